"""Why a ``kiln.function`` traced again, warnings when it keeps doing so, and its bounded cache.

Retracing is the top usability complaint about ``tf.function`` (it is slow and
silent), so every trace records a one-line reason naming the argument that
changed ("argument `x`: shape (2,) → (3,)"), a function that retraces on
each of its last :data:`WINDOW` calls warns with that argument and a fix, and
the cache of traces is an LRU of at most ``limit`` entries that can be
inspected and cleared (traces of dead ``self`` objects are dropped at once).
"""

from __future__ import annotations

import inspect
import os
import sys
import warnings
import weakref
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from kiln.frontend.signature import WeakIdentity

_FRONTEND = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` for a warning raised by the caller of this function that points at the
    first frame outside kiln's frontend: the user's line that called the kiln.function."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_FRONTEND):
        frame, level = frame.f_back, level + 1
    return level

#: a function that traced on each of its last WINDOW calls warns
WINDOW = 5
#: how many reasons Function.retrace_reasons keeps
REASONS_KEPT = 64

T = TypeVar("T")


class KilnRetracingWarning(UserWarning):
    """A ``kiln.function`` keeps retracing (each trace costs a compile)."""


class TraceCache(Generic[T]):
    """An LRU of traced functions by signature key; ``limit`` bounds its memory."""

    def __init__(self, limit: int, on_hit: Callable[[Any], None]):
        self.limit = limit
        self._entries: OrderedDict[Any, T] = OrderedDict()
        self._on_hit = on_hit

    def get(self, key: Any) -> T | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
            self._on_hit(key)
        return value

    def put(self, key: Any, value: T) -> list[T]:
        """Insert, and return what had to go (least recently used first) to stay within ``limit``."""
        self._entries[key] = value
        for obj in _weak_objects(key):
            weakref.finalize(obj, _drop, weakref.ref(self), key)
        evicted: list[T] = []
        while len(self._entries) > max(self.limit, 1):
            evicted.append(self._entries.popitem(last=False)[1])
        return evicted

    def discard(self, key: Any) -> None:
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._entries.values()))


def _weak_objects(key: Any) -> Iterator[Any]:
    """The live objects a key holds weakly (its ``self`` and other identity-keyed values)."""
    if isinstance(key, WeakIdentity):
        obj = key.ref()
        if obj is not None:
            yield obj
    elif isinstance(key, tuple):
        for part in key:
            yield from _weak_objects(part)


def _drop(cache_ref: weakref.ref[TraceCache[Any]], key: Any) -> None:
    cache = cache_ref()
    if cache is not None:
        cache.discard(key)


# ---------------------------------------------------------------------- reasons


def _describe_leaf(key: Any) -> str:
    kind = key[0]
    if kind == "tensor":
        shape = "any rank" if key[2] is None else f"shape {tuple(key[2])}"
        return f"array {_dtype_name(key[1])} {shape}"
    if kind == "scalar":
        return f"NumPy scalar {_dtype_name(key[1])}"
    if kind == "variable":
        return f"{_dtype_name(key[2])} {key[3]} at {key[1].ref_id:#x}"
    if kind == "object":
        return repr(key[1])
    if kind == "number":
        return f"Python {key[1].__name__} (in a list)"
    if kind == "numbers":
        shape = key[2]
        if len(shape) > 1:  # (a rectangular list of lists: one N-d argument)
            return f"{'x'.join(map(str, shape))} list of lists of Python {key[1].__name__}s"
        return f"list of {shape[0]} Python {key[1].__name__}s"
    return f"{key[1].__name__} {key[2]!r}"


def _dtype_name(dtype_str: str) -> str:
    import numpy as np

    return np.dtype(dtype_str).name


def _leaf_change(old: Any, new: Any) -> tuple[str, str]:
    """(what changed, kind of change) between two leaf keys."""
    if old[0] == new[0] == "tensor":
        parts = []
        if old[1] != new[1]:
            parts.append(f"dtype {_dtype_name(old[1])} → {_dtype_name(new[1])}")
        if old[2] != new[2]:
            parts.append(f"shape {old[2]} → {new[2]}")
        return ", ".join(parts), "shape" if old[1] == new[1] else "dtype"
    if old[0] == new[0] == "value":
        return f"value {old[2]!r} → {new[2]!r}", "value"
    if old[0] == new[0] == "variable":
        return f"another kiln.Variable ({_describe_leaf(old)} → {_describe_leaf(new)})", "object"
    if old[0] == new[0] == "object":
        obj = new[1].ref()
        return f"another {type(obj).__name__} object (keyed by identity)", "object"
    return f"{_describe_leaf(old)} → {_describe_leaf(new)}", "kind"


def _structure_change(old: Any, new: Any) -> str:
    """What differs between two argument structures (pytree.TreeDef): a dict's key order is
    Python-visible (iteration follows it), so a dict with its keys in another order is traced anew."""
    if old.kind == new.kind == "dict" and old.keys != new.keys and sorted(map(repr, old.keys)) == sorted(map(repr, new.keys)):
        return f"dict key order changed {old.keys!r} → {new.keys!r}"
    if old.kind == new.kind and len(old.children) == len(new.children) and old.keys == new.keys:
        for a, b in zip(old.children, new.children):
            if a != b:
                return _structure_change(a, b)
    return "structure changed (other nesting or length)"


def _arg_change(old: Any, new: Any) -> tuple[str, str]:
    old_tree, old_leaves = old
    new_tree, new_leaves = new
    if old_tree != new_tree:
        return _structure_change(old_tree, new_tree), "structure"
    if len(new_leaves) == 1:
        return _leaf_change(old_leaves[0], new_leaves[0])
    for i, (a, b) in enumerate(zip(old_leaves, new_leaves)):
        if a != b:
            text, kind = _leaf_change(a, b)
            return f"element {i}: {text}", kind
    return "unchanged", "none"


class RetraceMonitor:
    """Reasons for each trace of one function, and the warning when it keeps retracing."""

    def __init__(self, python_function: Callable[..., Any]):
        self.name = getattr(python_function, "__name__", "kiln_fn")
        try:
            params = inspect.signature(python_function).parameters.values()
            self._positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            self._positional = []
        self.reasons: deque[str] = deque(maxlen=REASONS_KEPT)
        self._last: Any = None
        self._window: deque[tuple[bool, str | None, str, str]] = deque(maxlen=WINDOW)

    def arg_names(self, count: int) -> list[str]:
        """Names of the first ``count`` positional arguments."""
        return [self._arg_name(i) for i in range(count)]

    def arg_name(self, position: int | str) -> str:
        """The parameter name of a position (or the keyword itself)."""
        return self._arg_name(position)

    def _arg_name(self, position: int | str) -> str:
        if isinstance(position, str):
            return position
        return self._positional[position] if position < len(self._positional) else f"args[{position}]"

    def reason(self, key: Any) -> tuple[str, str | None, str]:
        """(reason text, argument that changed, kind of change) of tracing the signature ``key``."""
        if self._last is None:
            return "first call", None, "first"
        old = dict(self._last)
        new = dict(key)
        if old.keys() != new.keys():
            names = lambda keys: ", ".join(f"`{self._arg_name(k)}`" for k in keys) or "none"
            return f"arguments ({names(old)}) → ({names(new)})", None, "arity"
        for position, arg_key in key:
            if old[position] != arg_key:
                text, kind = _arg_change(old[position], arg_key)
                name = self._arg_name(position)
                return f"argument `{name}`: {text}", name, kind
        return "the signature was evicted from the trace cache or the cache was cleared", None, "evicted"

    def seen(self, key: Any) -> None:
        """A call that found its trace in the cache."""
        self._last = key
        self._window.append((False, None, "", ""))

    def traced(self, key: Any) -> str:
        """A call that traced: record the reason, warn when every recent call traced."""
        text, arg, kind = self.reason(key)
        self.reasons.append(text)
        self._last = key
        self._window.append((True, arg, kind, text))
        if len(self._window) == WINDOW and all(t for t, *_ in self._window):
            self._warn()
            self._window.clear()
        return text

    def _warn(self) -> None:
        changed = Counter(arg for _, arg, _, _ in self._window if arg is not None)
        if changed:
            arg, _ = changed.most_common(1)[0]
            kind, text = next((k, t) for _, a, k, t in reversed(self._window) if a == arg)
            what = f"argument `{arg}` keeps changing (last: {text.split(': ', 1)[1]}). {_HINTS.get(kind, '')}"
        else:
            what = "its signature keeps changing."
        warnings.warn(
            f"kiln.function `{self.name}` retraced on {WINDOW} of its last {WINDOW} calls; {what} "
            f"Each trace compiles anew; see `{self.name}.retrace_reasons`.",
            KilnRetracingWarning,
            stacklevel=user_stacklevel(),
        )


_HINTS = {
    "value": "Python values are trace-time constants: pass it as a NumPy array (np.asarray(...)) "
    "to compile once for all values.",
    "shape": "Give the function an input_signature with None for the changing dimensions "
    "(kiln.TensorSpec([None, ...], dtype)) to compile once for all sizes.",
    "dtype": "Convert it to one dtype before the call (x.astype(...)).",
    "object": "A new object each call is a new key: reuse one object.",
    "structure": "Keep the nesting and lengths of its lists, tuples and dicts fixed, or pass an array.",
    "kind": "Pass the same kind of value (array or Python value) every time.",
}


class _CreationMonitor:
    """Warns when one Python function is wrapped anew and traced again and again
    (``kiln.function`` inside a loop or another function: each wrapper has an empty cache)."""

    def __init__(self) -> None:
        self._counts: Counter[Any] = Counter()

    def traced_first(self, python_function: Callable[..., Any]) -> None:
        # the user's function under a wrapper (functools.wraps: kiln.grad's, a user's decorator),
        # whose one code object every wrapped function shares
        code = getattr(inspect.unwrap(python_function), "__code__", None)
        if code is None:
            return
        self._counts[code] += 1
        if self._counts[code] == WINDOW:
            warnings.warn(
                f"kiln.function `{code.co_name}` ({code.co_filename}:{code.co_firstlineno}) was wrapped and "
                f"traced {WINDOW} times: a kiln.function created inside a loop or another function starts "
                "with an empty cache each time. Create it once, outside.",
                KilnRetracingWarning,
                stacklevel=user_stacklevel(),
            )


creations = _CreationMonitor()
