"""The Python numbers of a list argument, as a trace takes them (docs/python-semantics.md).

A list argument is a Python list, so its numbers are Python numbers: traced (their values change
from call to call without a new trace) and weak to NumPy's promotion, as Python numbers are. A list
of numbers of one type (``[0.5, 1.5, ...]``, the common case) is one 1-d argument of the compiled
function (:class:`NumberList`), which the trace unpacks into the elements the function sees
(:func:`unpack`); a number in any other list is a 0-d argument of its own (:class:`ListNumber`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend import pytree
from kiln.frontend.argument_containers import ArgumentList
from kiln.frontend.tensor import Tensor

#: NumPy's dtype of each Python number type
DTYPES: dict[type, np.dtype] = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
                                complex: np.dtype(np.complex128)}

_INT64 = np.iinfo(np.int64)


class ListNumber:
    """A Python number in a list argument that holds other things too: a 0-d traced leaf."""

    __slots__ = ("value",)

    def __init__(self, value: bool | int | float | complex):
        self.value = value

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.value, dtype=dtype)

    @property
    def dtype(self) -> np.dtype:
        return DTYPES[type(self.value)]

    def __repr__(self) -> str:
        return f"ListNumber({self.value!r})"


class NumberList:
    """A list argument of Python numbers of one type ``kind``, or a rectangular list of such lists
    (``float list list``) of ``shape``: one traced leaf of that shape."""

    __slots__ = ("values", "kind", "shape")

    def __init__(self, values: list[Any], kind: type, shape: tuple[int, ...] | None = None):
        self.values = values
        self.kind = kind
        self.shape = shape if shape is not None else (len(values),)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.array(self.values, dtype=dtype or DTYPES[self.kind])

    @property
    def dtype(self) -> np.dtype:
        return DTYPES[self.kind]

    def __repr__(self) -> str:
        return f"NumberList({self.values!r})"


def _liftable(value: Any) -> bool:
    """A Python number kiln can carry as a traced value of its own type (an int within int64)."""
    if type(value) is int:
        return bool(_INT64.min <= value <= _INT64.max)
    return type(value) in DTYPES


def lift_list_numbers(obj: Any, in_list: bool = False) -> Any:
    """``obj`` (a call's arguments) with each list of numbers of one type a :class:`NumberList`
    and each number in another list a :class:`ListNumber` (other numbers stay constants)."""
    if in_list and _liftable(obj):
        return ListNumber(obj)
    if isinstance(obj, list):
        found = _rectangular(obj)
        if found is not None:
            return NumberList(obj, *found)
        return [lift_list_numbers(x, True) for x in obj]
    return pytree.map_children(obj, lift_list_numbers)


def _rectangular(obj: list[Any]) -> tuple[type, tuple[int, ...]] | None:
    """The one number type and the shape of ``obj``, a non-empty list of Python numbers of one type
    or a rectangular list of such lists (its inner lists distinct objects); None for another."""
    if not obj:
        return None
    if not isinstance(obj[0], list):
        kind = type(obj[0])
        return (kind, (len(obj),)) if kind in DTYPES and all(type(x) is kind and _liftable(x) for x in obj) else None
    if not all(type(x) is list for x in obj) or len({id(x) for x in obj}) != len(obj):
        return None
    inner = [_rectangular(x) for x in obj]
    if inner[0] is None or any(found != inner[0] for found in inner):
        return None
    kind, shape = inner[0]
    return kind, (len(obj), *shape)


def python_number(t: Tensor) -> Tensor:
    """The 0-d ``t`` as a Python number of a list: immutable, weak to promotion (complex too)."""
    out = Tensor(t.value)
    out.weak = out.immutable = True
    return out


def unpack(packed: Tensor) -> ArgumentList:
    """The list a NumberList argument is in the trace: one Python number per element, read from
    the argument ``packed`` (which NumPy functions of the unchanged list use as it is), or for an
    N-d ``packed`` a list of such lists, each packed as its part of ``packed``."""
    if packed.ndim > 1:
        items = ArgumentList(unpack(packed[k]) for k in range(packed.shape[0]))
    else:
        items = ArgumentList(python_number(packed[k]) for k in range(packed.shape[0]))
    items.packed = (packed, tuple(items))
    return items
