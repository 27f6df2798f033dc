"""AutoGraph's conversions kept on disk: a new process calling a function converted before
skips the parse, the converters and the compile (2-16 ms of a warm start, issue 39).

An entry (``<key>.autograph`` in kiln's cache directory, with its sha256 beside it) holds
what a conversion made: the compiled module code (``marshal``), the converted source, and
what the converters recorded about the file (unstageable constructs, Python effects, ``try``
bodies), recorded again on load. The key hashes what the converters read from the function:
the text of its file, its name, qualified name, first line, flags and free variables, and
kiln's compiler code (:func:`kiln.frontend.plan_cache.compiler_fingerprint`, the converters
among it) and Python's version (bytecode and ``marshal`` are Python's own). What the
converters read from the function's globals and closure values is not in the key: each answer
they got (:meth:`ConversionContext.decide`) is stored, and an entry is used only when every
answer comes out the same for the namespace at hand; else the function is converted again.
Lambdas are not kept (several can share a line).
"""

from __future__ import annotations

import linecache
import marshal
import pickle
import sys
import types
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kiln.backends import cache
from kiln.frontend.autograph.context import Decisions, Unsupported, decided_alike
from kiln.frontend.plan_cache import compiler_fingerprint

#: bump when what an entry holds changes
VERSION = 1


@dataclass(frozen=True)
class Conversion:
    """What converting one function made: its module's code (a factory that makes the converted
    function), the converted source, and what the converters found and decided."""

    module_code: types.CodeType
    source: str
    unsupported: tuple[Unsupported, ...]
    records: tuple[tuple[str, Any], ...]
    decisions: Decisions


def _entry(func: types.FunctionType) -> Any:
    """The cache entry of ``func``'s conversion, or None for a function whose file text is not
    known (code made by ``exec``) or a lambda."""
    code = func.__code__
    if func.__name__ == "<lambda>":
        return None
    linecache.checkcache(code.co_filename)  # (a file edited since it was read: as inspect.getsourcelines does)
    lines = linecache.getlines(code.co_filename, func.__globals__)
    if not lines:
        return None
    key = cache.cache_key(
        f"autograph-{VERSION}", sys.version, compiler_fingerprint(), code.co_filename, func.__name__,
        func.__qualname__, str(code.co_firstlineno), str(code.co_flags), code.co_freevars, "".join(lines),
    )
    return cache.entry(key, ".autograph")


def load(func: types.FunctionType, namespace: Mapping[str, Any]) -> Conversion | None:
    """The kept conversion of ``func``, when there is one and its decisions hold in ``namespace``."""
    path = _entry(func)
    raw = cache.read_checked(path) if path is not None else None
    if raw is None:
        return None
    try:  # (the cache directory is trusted as the shared objects it holds are)
        module_code, rest = marshal.loads(raw)
        conversion = Conversion(module_code, *pickle.loads(rest))
    except Exception:  # noqa: BLE001 (an entry this kiln or Python cannot read: converted again)
        return None
    return conversion if decided_alike(conversion.decisions, namespace) else None


def store(func: types.FunctionType, conversion: Conversion) -> None:
    """Keep ``conversion`` of ``func`` for later processes."""
    path = _entry(func)
    if path is None:
        return
    rest = pickle.dumps((conversion.source, conversion.unsupported, conversion.records, conversion.decisions))
    data = marshal.dumps((conversion.module_code, rest))
    try:
        cache.write_checked(path, lambda tmp: tmp.write_bytes(data))
    except OSError as e:  # (a full disk): the conversion stands; a later process converts again
        warnings.warn(f"kiln: the AutoGraph conversion of {func.__qualname__} could not be kept in {path} "
                      f"({e.strerror or e}); later processes convert it again", cache.CacheWarning, stacklevel=2)
