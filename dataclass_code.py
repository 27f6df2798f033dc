"""The code of the methods ``dataclasses`` writes, compiled once per machine instead of per process.

Defining a dataclass compiles the source text of each method it makes (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``; ``__setattr__`` and ``__delattr__`` when frozen), and that compile is
~70% of its cost. A small function's first call defines ~360 dataclasses (xDSL's attributes and
helpers, kiln's passes and rule syntax): 1,000 texts, ~50 ms of CPU compiling them at load 10.
A text always compiles to the same code, so, as Python keeps a module's bytecode in
``__pycache__``, kiln keeps the code of each text in its cache directory (one file per Python
bytecode version, checked against the sha256 it begins with: the file is replaced whole, while other
processes may read it), and a later process runs that code instead of compiling the text again
(~1 ms to read the file). The first process that defines a class compiles its texts as before
and stores them when it exits.

:func:`install` (``import kiln``, before it imports xDSL) puts :func:`_exec` in place of
the ``exec`` that the ``dataclasses`` module calls, its only use of it. The code run is the one
``exec`` would compile: from the same text, with the name ``<string>``, not inheriting any
``__future__`` flag (``dataclasses`` has none).
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import itertools
import marshal
import sys
import warnings
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

#: a stored file keeps at most this many texts (~0.8 KB each); past it, only the first this many
#: of the last process that stored it
LIMIT = 4_000

#: text -> the marshalled code stored by earlier processes (decoded when first asked for)
_stored: dict[str, bytes] = {}
#: text -> code, for the texts this process ran; and those it compiled (to be stored)
_codes: dict[str, CodeType] = {}
_compiled: dict[str, CodeType] = {}


def path() -> Path:
    """The file of this Python's bytecode version and optimization level in kiln's cache."""
    from kiln.backends import cache

    return cache.cache_dir() / f"dataclass-code-{MAGIC_NUMBER.hex()}-O{sys.flags.optimize}.sha256-marshal"


def install() -> None:
    """Run dataclasses' method texts through the stored code from now on (once per process)."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _stored.update(_read(path()))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # a module global before the builtin
    atexit.register(store)


def _read(file: Path) -> dict[str, bytes]:
    """The texts and code stored in ``file``; none when it is absent, or damaged (then with a
    warning naming it: this process compiles its texts and stores the file again)."""
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as e:
        return _damaged(file, f"unreadable: {e.strerror or e}")
    digest, payload = data[:32], data[32:]
    if hashlib.sha256(payload).digest() != digest:
        return _damaged(file, "its content does not match its sha256")
    return marshal.loads(payload)


def _damaged(file: Path, why: str) -> dict[str, bytes]:
    from kiln.backends.cache import CacheWarning

    warnings.warn(f"kiln: cache entry {file} is damaged ({why}); rebuilding it", CacheWarning, stacklevel=3)
    return {}


def code(text: str) -> CodeType:
    """The code of ``text``: this process's, the stored one, or compiled now."""
    found = _codes.get(text)
    if found is None:
        stored = _stored.get(text)
        if stored is not None:
            found = marshal.loads(stored)
        else:
            found = _compiled[text] = compile(text, "<string>", "exec", dont_inherit=True)
        _codes[text] = found
    return found


def _exec(source: Any, globals: dict[str, Any] | None = None, locals: dict[str, Any] | None = None, /) -> None:
    """``exec`` as dataclasses calls it (a text, its globals, a namespace), with :func:`code`."""
    exec(code(source) if isinstance(source, str) else source, globals, locals)  # noqa: S102


def store() -> None:
    """Add the texts this process compiled to the stored file (at exit; nothing when none)."""
    if not _compiled:
        return
    from kiln.backends import cache

    kept = {**_stored, **{text: marshal.dumps(c) for text, c in _compiled.items()}}
    if len(kept) > LIMIT:  # the first classes this process defined (kiln's own come first)
        kept = {text: marshal.dumps(c) for text, c in itertools.islice(_codes.items(), LIMIT)}
    payload = marshal.dumps(kept)
    cache.write_atomic(path(), lambda tmp: tmp.write_bytes(hashlib.sha256(payload).digest() + payload))
    _stored.update(kept)
    _compiled.clear()
