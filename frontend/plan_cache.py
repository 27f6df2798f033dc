"""On-disk cache of lowering results, so that a warm start in a new process costs trace + hash
+ dlopen instead of re-running the pass pipeline (~75 ms, mostly importing xDSL's dialects).

An entry (``<key>.plan.json`` in the cache directory, with its sha256 beside it) holds the
emitted source and the ABI signature of the traced function. The key hashes the traced ``graph`` IR with locations
(exactly what ``kiln-opt -p graph-to-c`` sees), the target, the xDSL install and a fingerprint
of kiln's compiler code (size and mtime of every source file, kiln's own rule files included),
so editing a pass invalidates every entry. A function's own rules (``kiln.function(rules=...)``)
are keyed by the caller through the target string. The shared object itself is still found by
the toolchain's content hash.

The rule files lowering runs keep their syntax trees here too (:func:`keep_rule_syntax`).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import pickle
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.backends import cache
from kiln.backends.loader import ArgKind, MemrefArg, ScalarArg, Signature
from kiln.passes import _parse_store

#: the parts of the package that decide what a graph IR lowers to
_COMPILER_DIRS = ("dialects", "passes", "backends", "frontend")


@dataclass(frozen=True)
class Plan:
    """What lowering produced for one traced function."""

    source: str
    signature: Signature


@functools.cache
def compiler_fingerprint() -> str:
    """Identity of the code that lowers and emits: kiln's source files and xDSL's install.
    Plain ``os.scandir`` and strings: with pathlib it took 7-11 ms per process (220 files), a
    warm start's largest cost after tracing."""
    import xdsl

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stats = [_stat_line(root, entry) for entry in os.scandir(root) if entry.name.endswith(".py")]
    for sub in _COMPILER_DIRS:
        stats += _walk(root, os.path.join(root, sub))
    xdsl_dir = xdsl.__path__[0]  # reinstalling xDSL (another version) replaces this folder's files
    return cache.cache_key(f"{xdsl_dir}:{os.stat(xdsl_dir).st_mtime_ns}", sorted(stats))


def _walk(root: str, folder: str) -> list[str]:
    lines: list[str] = []
    for entry in os.scandir(folder):
        if entry.is_dir() and entry.name != "__pycache__":
            lines += _walk(root, entry.path)
        elif entry.name.endswith((".py", ".c", ".h", ".rules", ".lark")):  # kiln's rule files lower too
            lines.append(_stat_line(root, entry))
    return lines


def _stat_line(root: str, entry: os.DirEntry[str]) -> str:
    st = entry.stat()
    return f"{entry.path[len(root) + 1:]}:{st.st_size}:{st.st_mtime_ns}"


def plan_key(located_ir: str, target: str) -> str:
    return cache.cache_key(located_ir, target, compiler_fingerprint())


def _kind_to_json(kind: ArgKind) -> dict[str, object]:
    if isinstance(kind, MemrefArg):
        return {"dtype": kind.dtype.str, "shape": list(kind.shape)}
    return {"dtype": kind.dtype.str}


def _kind_from_json(data: dict[str, object]) -> ArgKind:
    dtype = np.dtype(str(data["dtype"]))
    shape = data.get("shape")
    return ScalarArg(dtype) if shape is None else MemrefArg(dtype, tuple(shape))  # type: ignore[arg-type]


def load(key: str) -> Plan | None:
    """The stored plan, or None (absent, damaged or unreadable: the caller lowers again)."""
    raw = cache.read_checked(cache.entry(key, ".plan.json"))  # an edited plan's C is not trusted
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        signature = Signature(
            tuple(_kind_from_json(k) for k in data["args"]), tuple(np.dtype(d) for d in data["results"])
        )
        return Plan(data["source"], signature)
    except (ValueError, KeyError, TypeError):
        return None


def store(key: str, plan: Plan) -> None:
    data = {
        "source": plan.source,
        "args": [_kind_to_json(k) for k in plan.signature.args],
        "results": [d.str for d in plan.signature.results],
    }
    cache.write_checked(cache.entry(key, ".plan.json"), lambda tmp: tmp.write_text(json.dumps(data)))


# --------------------------------------------------------------------------- rule files' syntax


def _rule_syntax_entry(text: str, name: str) -> Any:
    """Where the syntax tree of a rule file is kept: keyed by its text and name, kiln's code
    (the grammar and the tree's classes among it) and lark's install."""
    spec = importlib.util.find_spec("lark")  # finds lark's folder without importing it
    folder = os.path.dirname(spec.origin) if spec is not None and spec.origin else ""
    stamp = f"{folder}:{os.stat(folder).st_mtime_ns}" if folder else ""
    return cache.entry(cache.cache_key("rule-syntax", text, name, compiler_fingerprint(), stamp), ".rules.pickle")


def _load_rule_syntax(text: str, name: str) -> Any:
    raw = cache.read_checked(_rule_syntax_entry(text, name))
    if raw is None:
        return None
    try:
        return pickle.loads(raw)  # (the cache directory is trusted as the shared objects it holds are)
    except Exception:  # noqa: BLE001 (an entry this kiln cannot read: parsed again, and stored anew)
        return None


def _store_rule_syntax(text: str, name: str, tree: Any) -> None:
    data = pickle.dumps(tree)
    cache.write_checked(_rule_syntax_entry(text, name), lambda tmp: tmp.write_bytes(data))


def keep_rule_syntax() -> None:
    """Keep the syntax trees of the rule files lowering parses in the cache directory, so that a
    later process neither imports lark nor parses them (passes/_parse_store.py)."""
    _parse_store.install(_load_rule_syntax, _store_rule_syntax)
