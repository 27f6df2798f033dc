"""Native constraints and rewrites: Python functions that rules call by name.

A *native constraint* (or computation) is called from a guard or a replacement's arguments with
the values the rule passes (SSA values, ops, Python numbers, strings, tuples, types) and returns
any Python value; a guard fails when it is falsy, and ``p := native(...)`` keeps it for later.
A *native rewrite* (``rewrite=True``) is called as a replacement, with a :class:`RuleBuilder`
first; it builds ops with ``b.insert(op)`` and returns the replacing value(s), or None to leave
the op alone.

Names are global: kiln's own natives (``kiln.passes.rules.library.natives``) and the user's
share one table, and registering a name kiln uses is an error.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import marshal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, overload

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter


@dataclass(frozen=True)
class Native:
    name: str
    fn: Callable[..., Any]
    rewrite: bool
    #: registered by kiln itself (kiln.passes.rules.library.natives)
    kiln: bool = False

    def fingerprint(self) -> str:
        """What a cache key must hold so that editing the native invalidates the entries built with
        it: its code and the text of the file that defines it (helpers included)."""
        h = hashlib.sha256(f"{self.name}:{self.rewrite}:{getattr(self.fn, '__qualname__', '')}".encode())
        code = getattr(self.fn, "__code__", None)
        if code is not None:
            h.update(marshal.dumps(code))
        try:
            with open(inspect.getfile(self.fn), "rb") as f:
                h.update(f.read())
        except (TypeError, OSError):
            if code is None:  # nothing stable to hash: a key of this process only
                h.update(repr(self.fn).encode())
        return h.hexdigest()


@dataclass
class RuleBuilder:
    """What a native rewrite gets first: the matched op and a way to add ops before it (they
    take its location, so errors keep pointing at the user's line)."""

    rewriter: PatternRewriter
    root: Operation
    #: the ops inserted so far, in order
    ops: list[Operation] = field(default_factory=list)

    def insert(self, op: Operation) -> Operation:
        """Put ``op`` before the matched op (with its location) and return it."""
        op.location = self.root.location
        self.ops.append(op)
        return op


NATIVES: dict[str, Native] = {}
_KILN_MODULE = "kiln.passes.rules.library.natives"


@overload
def register_rule_native(fn: Callable[..., Any], *, name: str | None = None, rewrite: bool = False) -> Callable[..., Any]: ...
@overload
def register_rule_native(
    fn: None = None, *, name: str | None = None, rewrite: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...


def register_rule_native(
    fn: Callable[..., Any] | None = None, *, name: str | None = None, rewrite: bool = False
) -> Any:
    """Make ``fn`` callable from rule files as ``name`` (default: its ``__name__``); usable as
    ``@kiln.register_rule_native`` or ``@kiln.register_rule_native(rewrite=True)``.
    Registering a name again replaces the function (a notebook re-running its cell)."""

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        key = name or f.__name__
        _load_kiln_natives()
        is_kiln = f.__module__ == _KILN_MODULE
        old = NATIVES.get(key)
        if old is not None and old.kiln and not is_kiln:
            raise ValueError(f"register_rule_native: {key!r} is one of kiln's own natives; choose another name")
        if key in BUILTINS:
            raise ValueError(f"register_rule_native: {key!r} is a builtin of the rule language; choose another name")
        NATIVES[key] = Native(key, f, rewrite, is_kiln)
        return f

    return register if fn is None else register(fn)


def lookup(name: str) -> Native | None:
    _load_kiln_natives()
    return NATIVES.get(name)


_kiln_loaded = False


def _load_kiln_natives() -> None:
    """kiln's own natives are registered before any lookup or user registration."""
    global _kiln_loaded
    if not _kiln_loaded:
        _kiln_loaded = True
        importlib.import_module(_KILN_MODULE)


# --------------------------------------------------------------------------- builtins


def _splat(value: Any, type: Any) -> Any:
    """``splat(0, x.type)``: a dense constant attribute of ``type`` (static) whose elements are ``value``."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ShapedType

    if not isinstance(type, ShapedType) or -1 in type.get_shape():
        raise ValueError(f"splat needs a static shaped type, got {type}")
    if isinstance(value, complex):
        value = (value.real, value.imag)
    return DenseIntOrFPElementsAttr.from_list(type, [value])  # type: ignore[arg-type]


def _tensor(shape: Any, element: Any) -> Any:
    """``tensor((), x.element)``: the tensor type of this shape (None for a dynamic dim) and element type."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType

    return TensorType(element, [DYNAMIC_INDEX if d is None else d for d in shape])


#: functions every rule file may call (Python's, ``splat`` and ``tensor``)
BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len,
    "min": min,
    "max": max,
    "abs": abs,
    "all": all,
    "any": any,
    "sorted": lambda xs: tuple(sorted(xs)),
    "tuple": tuple,
    "int": int,
    "float": float,
    "str": str,
    "splat": _splat,
    "tensor": _tensor,
}
