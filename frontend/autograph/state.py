"""The state a staged construct threads through ``graph.cond`` / ``graph.while``, leaf by leaf.

A construct's state (``get_state()``) is a tuple of Python values: tensors,
Python numbers, ``Undefined``, ``None``, nested tuples/lists/dicts, and
objects that flatten themselves (``kiln.TensorArray``, through
``__kiln_flatten__`` / ``__kiln_unflatten__``). Staging works on the flat
leaves; each leaf keeps a readable name ("total", "result (TensorArray
buffer)") for error messages.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from kiln.frontend.autograph.operators.variables import NOT_RETURNED, Undefined


class _Empty:
    """A leaf with no value yet that may become a tensor (a TensorArray before its first write)."""

    def __repr__(self) -> str:
        return "EMPTY"


EMPTY = _Empty()

#: generated names, as error messages call them
_GENERATED = {"retval_": "the return value", "do_return": "the early-return flag"}


def is_jump_flag(name: str) -> bool:
    """Whether a state name is a flag the jump converters generate (``do_return``, ``break_N``, ``continue_N``)."""
    if name == "do_return":
        return True
    prefix, _, number = name.partition("_")
    return prefix in ("break", "continue") and number.rstrip("_").isdigit()


def describe(name: str) -> str:
    """How an error message names a state variable (generated flags get words, not names)."""
    if name in _GENERATED:
        return _GENERATED[name]
    if name.startswith("the value of "):  # an expression's (staging.staged_and, ...), not a variable
        return name
    base, bracket, rest = name.partition("[")
    if bracket and base in _GENERATED:  # a leaf of a returned tuple, list or dict
        return f"item [{rest} of {_GENERATED[base]}"
    for prefix, words in (("break_", "the `break` flag"), ("continue_", "the `continue` flag")):
        if name.startswith(prefix) and name[len(prefix) :].rstrip("_").isdigit():
            return words
    return f"variable '{name}'"


@dataclass(frozen=True)
class Tree:
    """The structure of one state value; ``kind`` is leaf, tuple, list, dict or object."""

    kind: str
    children: tuple[Tree, ...] = ()
    aux: Hashable = None
    cls: type | None = None


def flatten(value: Any, name: str, leaves: list[Any], names: list[str]) -> Tree:
    """Append the leaves of ``value`` (and their names) and return its structure."""
    if isinstance(value, Undefined):
        leaves.append(value)
        names.append(name)
        return Tree("leaf")
    if hasattr(type(value), "__kiln_flatten__"):
        aux, parts = value.__kiln_flatten__()
        kids = tuple(flatten(p, f"{name} ({type(value).__name__} {label})", leaves, names) for label, p in parts)
        return Tree("object", kids, aux=aux, cls=type(value))
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        kids = tuple(flatten(v, f"{name}[{i}]", leaves, names) for i, v in enumerate(value))
        return Tree(type(value).__name__, kids)
    if isinstance(value, dict):
        keys = tuple(value)
        return Tree("dict", tuple(flatten(value[k], f"{name}[{k!r}]", leaves, names) for k in keys), aux=keys)
    leaves.append(value)
    names.append(name)
    return Tree("leaf")


def unflatten(tree: Tree, leaves: Any) -> Any:
    """Rebuild a value of structure ``tree`` from an iterator of leaves."""
    if tree.kind == "leaf":
        return next(leaves)
    kids = [unflatten(c, leaves) for c in tree.children]
    if tree.kind == "tuple":
        return tuple(kids)
    if tree.kind == "list":
        return kids
    if tree.kind == "dict":
        return dict(zip(tree.aux, kids))  # type: ignore[arg-type]
    assert tree.cls is not None
    return tree.cls.__kiln_unflatten__(tree.aux, kids)


def flatten_state(values: Sequence[Any], symbol_names: Sequence[str]) -> tuple[list[Any], list[str], list[Tree]]:
    """Leaves, their names and the per-variable structures of a state tuple."""
    leaves: list[Any] = []
    names: list[str] = []
    trees = [flatten(v, n, leaves, names) for v, n in zip(values, symbol_names)]
    return leaves, names, trees


def unflatten_state(trees: Sequence[Tree], leaves: Sequence[Any]) -> tuple[Any, ...]:
    it = iter(leaves)
    return tuple(unflatten(t, it) for t in trees)


def is_number(value: Any) -> bool:
    """A Python scalar: weakly typed, it may become a tensor of the dtype the other side needs."""
    return isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic)


def is_strong_constant(value: Any) -> bool:
    """A NumPy array or scalar: it becomes a tensor of its own dtype."""
    return isinstance(value, (np.ndarray, np.generic))


def may_be_placeholder(value: Any) -> bool:
    """A leaf without a value that may take a zero tensor of the other side's type.

    ``EMPTY`` (an unwritten TensorArray) and the return value before a
    ``return`` ran (``NOT_RETURNED``): their value is never read on the path that did not set it.
    """
    return value is EMPTY or value is NOT_RETURNED


def align_placeholders(a: Any, b: Any) -> tuple[Any, Any]:
    """``a`` and ``b`` with a ``NOT_RETURNED`` on one side grown to the structure of the other
    (``return (x, y)`` on one path of a staged ``if`` or loop, no return yet on the other)."""
    if a is NOT_RETURNED and b is not NOT_RETURNED:
        return _placeholder_like(b), b
    if b is NOT_RETURNED and a is not NOT_RETURNED:
        return a, _placeholder_like(a)
    if _is_sequence(a) and type(a) is type(b) and len(a) == len(b):
        pairs = [align_placeholders(x, y) for x, y in zip(a, b)]
        return type(a)(p[0] for p in pairs), type(b)(p[1] for p in pairs)
    if isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b):
        pairs = {k: align_placeholders(a[k], b[k]) for k in a}
        return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
    return a, b


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and not hasattr(value, "_fields")


def _placeholder_like(value: Any) -> Any:
    """``value``'s structure with ``NOT_RETURNED`` for each leaf."""
    if _is_sequence(value):
        return type(value)(_placeholder_like(v) for v in value)
    if isinstance(value, dict):
        return {k: _placeholder_like(v) for k, v in value.items()}
    return NOT_RETURNED


def same_python_value(a: Any, b: Any) -> bool:
    """Whether two non-tensor leaves are the same trace-time value (so they need not be staged)."""
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, Undefined):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


class BranchUndefined(Undefined):
    """A variable bound in only one branch of a staged ``if``: any use raises, naming it and the ``if``."""

    __slots__ = ("where", "branch")

    def __init__(self, symbol_name: str, where: str, branch: str):
        super().__init__(symbol_name)
        self.where = where
        self.branch = branch

    def _unbound(self, *_: Any) -> NoReturn:
        raise UnboundLocalError(
            f"{self.where}: {describe(self.symbol_name)} is defined only in the {self.branch} branch of this `if` "
            "on a tensor, and used after it; define it before the `if` or in both branches"
        )

    def __getattr__(self, name: str) -> NoReturn:
        self._unbound()

    def __kiln_tensor__(self) -> NoReturn:
        self._unbound()


class JumpBound(BranchUndefined):
    """A variable a staged ``if`` binds only on the path that jumps (``found = i; break``): bound
    exactly where the jump flag ``flag`` (a 0-d bool tensor) is true. A use raises as
    :class:`BranchUndefined` does; a staged ``if`` whose path knows ``flag`` true (a loop's ``else``
    clause, skipped where the loop broke) reads ``value`` there, as Python would read the variable."""

    __slots__ = ("value", "flag")

    def __init__(self, symbol_name: str, where: str, branch: str, value: Any, flag: Any):
        super().__init__(symbol_name, where, branch)
        self.value = value
        self.flag = flag


class NotCarried(Undefined):
    """A variable that a branch of a staged ``if`` rebinds but that is not used after the ``if``
    (liveness analysis): it is not carried out, so any use raises instead of reading a value of
    one branch's region."""

    __slots__ = ("where",)

    def __init__(self, symbol_name: str, where: str):
        super().__init__(symbol_name)
        self.where = where

    def _unbound(self, *_: Any) -> NoReturn:
        raise RuntimeError(
            f"{self.where}: kiln internal error: {describe(self.symbol_name)} is rebound in a branch of this `if` "
            "on a tensor and kiln found no use of it after the `if`, so it was not carried out; but it is used "
            "after all. Please report this; assigning it before the `if` may work around it"
        )

    def __getattr__(self, name: str) -> NoReturn:
        self._unbound()

    def __kiln_tensor__(self) -> NoReturn:
        self._unbound()


for _cls in (BranchUndefined, NotCarried):
    for _name, _value in vars(Undefined).items():
        if _value is Undefined._unbound and _name != "_unbound":
            setattr(_cls, _name, _cls._unbound)
