"""Nested Python structures (tuples, lists, dicts) as flat leaves plus a shape.

Arguments and results of a ``kiln.function`` may be nested; the compiled code
sees only the flat list of tensors, and this module moves between the two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


class _Slot:
    """Marks where a tensor argument goes in a structure before tracing."""

    def __repr__(self) -> str:
        return "TENSOR_SLOT"


TENSOR_SLOT = _Slot()


@dataclass(frozen=True)
class TreeDef:
    """The shape of a structure: ``kind`` is "leaf", "tuple", "list", "dict", "namedtuple", "held"
    (a list of numbers held as one array) or "custom" (a ``node_type`` with ``__kiln_pytree__``,
    rebuilt by its ``__kiln_rebuild__(keys[0], items)``)."""

    kind: str
    children: tuple[TreeDef, ...] = ()
    keys: tuple[Any, ...] = ()
    node_type: type | None = None


LEAF = TreeDef("leaf")


def _not_held(obj: list[Any]) -> tuple[Any, Any] | None:
    return None


def _no_rebuild(values: Any, kinds: Any) -> list[Any]:
    raise AssertionError("a list held as one array, but no kiln.frontend.list_arrays to rebuild it")


#: ``(values, kinds or None)`` of a list held as one array (kiln.frontend.list_arrays), else None:
#: such a list is two leaves (or one), not one per number, and :data:`rebuild_held` makes it a list again
held_as_array: Callable[[list[Any]], tuple[Any, Any] | None] = _not_held
rebuild_held: Callable[[Any, Any], list[Any]] = _no_rebuild


def flatten(obj: Any) -> tuple[list[Any], TreeDef]:
    leaves: list[Any] = []
    tree = _flatten(obj, leaves)
    return leaves, tree


def _flatten(obj: Any, leaves: list[Any]) -> TreeDef:
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return TreeDef("namedtuple", tuple(_flatten(x, leaves) for x in obj), node_type=type(obj))
    if isinstance(obj, tuple):
        return TreeDef("tuple", tuple(_flatten(x, leaves) for x in obj))
    if isinstance(obj, list):
        held = held_as_array(obj)
        if held is not None:
            parts = [x for x in held if x is not None]
            leaves.extend(parts)
            return TreeDef("held", tuple(LEAF for _ in parts))
        return TreeDef("list", tuple(_flatten(x, leaves) for x in obj))
    if isinstance(obj, dict):
        keys = tuple(obj.keys())
        return TreeDef("dict", tuple(_flatten(obj[k], leaves) for k in keys), keys=keys)
    if hasattr(type(obj), "__kiln_pytree__"):  # a value standing for a Python one (a staged comprehension's list)
        aux, parts = obj.__kiln_pytree__()
        return TreeDef("custom", tuple(_flatten(x, leaves) for x in parts), keys=(aux,), node_type=type(obj))
    leaves.append(obj)
    return LEAF


def unflatten(tree: TreeDef, leaves: Iterator[Any]) -> Any:
    if tree.kind == "leaf":
        return next(leaves)
    items = [unflatten(c, leaves) for c in tree.children]
    if tree.kind == "held":
        return rebuild_held(items[0], items[1] if len(items) > 1 else None)
    if tree.kind == "tuple":
        return tuple(items)
    if tree.kind == "namedtuple":
        assert tree.node_type is not None
        return tree.node_type(*items)
    if tree.kind == "list":
        return items
    if tree.kind == "custom":
        assert tree.node_type is not None
        return tree.node_type.__kiln_rebuild__(tree.keys[0], items)
    return dict(zip(tree.keys, items))


def map_children(obj: Any, fn: Callable[[Any], Any]) -> Any:
    """``obj`` with ``fn`` applied to each item, when it is a tuple (a namedtuple stays one), a list
    (but one held as one array, which holds numbers only) or a dict; any other ``obj`` as it is."""
    if isinstance(obj, tuple):
        items = [fn(x) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if isinstance(obj, list):
        return obj if held_as_array(obj) is not None else [fn(x) for x in obj]  # (it holds numbers only)
    if isinstance(obj, dict):
        return {k: fn(v) for k, v in obj.items()}
    return obj


def fill_slots(obj: Any, values: Iterator[Any]) -> Any:
    """Replace every :data:`TENSOR_SLOT` in ``obj`` by the next of ``values``."""
    leaves, tree = flatten(obj)
    return unflatten(tree, iter([next(values) if leaf is TENSOR_SLOT else leaf for leaf in leaves]))
