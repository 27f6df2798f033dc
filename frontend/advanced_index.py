"""NumPy's advanced indexing with integer arrays: ``x[idx]``, ``A[i, j]``, ``A[:, cols]``,
``x[idx] = v``, ``x[idx] += v`` and ``np.add.at`` (ufunc ``.at``).

A key holding an integer array (a traced tensor, a NumPy array, a list of ints or of
traced integers, ``M[[i, j]]``) reads a copy, never a view, in four steps:

1. the slices on the other axes are applied first, as a view of the array;
2. the indexed axes (integer arrays and plain integers, which NumPy counts as
   advanced alongside an array) are moved first, a transpose view;
3. the index arrays are broadcast to one shape ``B`` and ``graph.gather`` reads
   ``B + trailing axes``;
4. as in NumPy, the ``B`` axes then stand where the indexed axes were when those
   are adjacent, and first otherwise.

A write runs the steps backwards: the value is broadcast to what the read gives,
moved back to ``B + trailing axes``, scattered (``graph.scatter``) into the view
of step 2 and written through it. Repeated indices keep NumPy's meaning: the last
write wins for ``=`` (and so ``x[idx] += 1`` adds once), ``np.add.at`` adds each.
A constant index out of range is NumPy's ``IndexError``; a traced one is checked at
run time (``graph.check``), raising it too. A constant boolean array
among the index items stands for its ``nonzero()`` arrays.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import creation, runtime_checks
from kiln.frontend.tensor import Tensor, as_tensor, broadcast_to, cast, emit, shape_of
from kiln.frontend.views import TransposeStep


def is_advanced(key: Any) -> bool:
    """Whether ``key`` holds an integer-array item (a traced tensor of rank >= 1, an array, a list)."""
    items = key if isinstance(key, tuple) else (key,)
    return any(_is_array_item(item) for item in items)


def known(item: Any) -> np.ndarray[Any, Any] | None:
    """The value of an integer or boolean tensor that holds a constant now (``np.array([1, 2])``
    inside the function), so that it is checked and used as NumPy would a constant array."""
    if not isinstance(item, Tensor) or item.dtype.kind not in "biu" or item.shape_source is not None:
        return None
    owner = item.value.owner
    if not isinstance(owner, graph.ConstantOp):
        return None
    values = np.array(list(owner.value.get_values()))
    if item.dtype == np.bool_:
        return (values != 0).reshape(shape_of(item))
    return values.astype(item.dtype).reshape(shape_of(item))


def _is_array_item(item: Any) -> bool:
    if hasattr(type(item), "__kiln_tensor__"):  # a mask's selection x[m], a Variable
        item = as_tensor(item)
    if isinstance(item, Tensor):
        return item.ndim >= 1
    if isinstance(item, np.ndarray):
        return item.ndim >= 1
    return isinstance(item, list)


@dataclass
class _Plan:
    """How ``t[key]`` reads: ``view`` (steps 1-2) gathered at ``indices`` (shape ``batch``), then
    ``out_perm`` applied (step 4; None when the gathered axes already stand right)."""

    view: Tensor
    indices: list[Tensor]
    batch: tuple[int, ...]
    out_perm: list[int] | None

    def read(self) -> Tensor:
        got = emit(graph.GatherOp(self.view.value, [i.value for i in self.indices]))
        return got if self.out_perm is None else emit(graph.TransposeOp(got.value, self.out_perm))

    def result_shape(self) -> tuple[int, ...]:
        gathered = (*self.batch, *shape_of(self.view)[len(self.indices):])
        return gathered if self.out_perm is None else tuple(gathered[p] for p in self.out_perm)

    def scatter(self, kind: str, updates: Tensor) -> None:
        """Combine ``updates`` (of ``result_shape()``) into the indexed elements, through the view."""
        if self.out_perm is not None:
            back = [0] * len(self.out_perm)
            for i, p in enumerate(self.out_perm):
                back[p] = i
            updates = emit(graph.TransposeOp(updates.value, back))
        new = emit(graph.ScatterOp(kind, self.view.value, [i.value for i in self.indices], updates.value))
        self.view.overwrite(new)


def _items(t: Tensor, key: Any) -> list[Any]:
    """One item per axis of ``t``: ``...`` expanded, missing axes whole, constant masks as arrays."""
    raw = key if isinstance(key, tuple) else (key,)
    items: list[Any] = []
    for item in raw:
        if hasattr(type(item), "__kiln_tensor__"):
            item = as_tensor(item)
        if item is None:
            raise NotImplementedError(
                "np.newaxis (None) in an index that also holds an integer array is not supported inside kiln.function; "
                "index first, then add the axis with np.expand_dims or reshape"
            )
        if isinstance(item, list) and creation.holds_tensor(item):
            item = creation.array(item)  # `M[[i, j]]` of traced scalars: one index array, NumPy's dtype
        if known(item) is not None:
            item = known(item)
        if isinstance(item, Tensor) and item.dtype == np.bool_:
            raise NotImplementedError(
                "a traced boolean mask together with other index items is not supported inside kiln.function "
                "(x[mask] alone is, so is x[i, mask, j, k:l] with only integers before the mask and integers, "
                "slices and ... after it, and so are constant masks); use np.where"
            )
        if isinstance(item, (np.ndarray, list)) and np.asarray(item).dtype == np.bool_:
            items.extend(np.nonzero(np.asarray(item)))
            continue
        items.append(item)
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(item is not Ellipsis for item in items)
    if used > t.ndim:
        raise IndexError(f"too many indices for array: array is {t.ndim}-dimensional, but {used} were indexed")
    fill = [slice(None)] * (t.ndim - used)
    if any(item is Ellipsis for item in items):
        at = next(i for i, item in enumerate(items) if item is Ellipsis)
        return [*items[:at], *fill, *items[at + 1 :]]
    return [*items, *fill]


def _index_tensor(item: Any, size: int | Tensor, axis: int) -> Tensor:
    """An index item as an int64 tensor; constants checked against a static axis as NumPy does,
    anything else (a traced index, or an axis of run-time length ``size``) when the call runs."""
    if known(item) is not None:
        item = known(item)
    if isinstance(item, Tensor):
        if item.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type, not {item.dtype}")
        runtime_checks.all_in_bounds(item, size, axis)
        return cast(item, np.dtype(np.int64))
    if isinstance(item, (np.ndarray, list)):
        array = np.asarray(item)
        if array.size == 0:
            array = array.astype(np.int64)
        if array.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type, not {array.dtype}")
    else:
        array = np.asarray(operator.index(item))
    if isinstance(size, Tensor):
        indices = as_tensor(array.astype(np.int64))
        if array.size:
            runtime_checks.all_in_bounds(indices, size, axis)
        return indices
    if array.size and (array.max() >= size or array.min() < -size):
        bad = array.max() if array.max() >= size else array.min()
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {size}")
    return as_tensor(array.astype(np.int64))


def _plan(t: Tensor, key: Any) -> _Plan:
    items = _items(t, key)
    advanced = [a for a, item in enumerate(items) if not isinstance(item, slice)]
    for a in advanced:
        item = items[a]
        if not (isinstance(item, (Tensor, np.ndarray, list)) or hasattr(type(item), "__index__")):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean "
                f"arrays are valid indices, not {item!r}"
            )
    basic = tuple(item if isinstance(item, slice) else slice(None) for item in items)
    whole = all(s.start is None and s.stop is None and s.step is None for s in basic)
    view = t if whole else t[basic]
    others = [a for a in range(t.ndim) if a not in advanced]
    perm = [*advanced, *others]
    if perm != list(range(t.ndim)):
        view = view.make_view(TransposeStep(tuple(perm)))
    src = shape_of(t)
    indices = [_index_tensor(items[a], src[a] if src[a] >= 0 else emit(graph.DimOp(t.value, a)), a) for a in advanced]
    try:
        batch = graph.broadcast_shapes(*(shape_of(i) for i in indices))
    except ValueError:
        shapes = " ".join(str(i.shape) for i in indices)
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with shapes {shapes}") from None
    runtime_checks.broadcastable(indices, batch)  # (lengths known only at run time must agree)
    indices = [broadcast_to(i, batch) for i in indices]
    first = advanced[0]
    adjacent = advanced == list(range(first, first + len(advanced)))
    out_perm = None
    if adjacent and first > 0:
        nb = len(batch)
        out_perm = [nb + i for i in range(first)] + list(range(nb)) + [nb + i for i in range(first, len(others))]
    return _Plan(view, indices, tuple(batch), out_perm)


def getitem(t: Tensor, key: Any) -> Tensor:
    """``t[key]`` for a key with an integer array: a new array (NumPy copies too)."""
    return _plan(t, key).read()


def setitem(t: Tensor, key: Any, value: Tensor) -> None:
    """``t[key] = value``, ``value`` already cast to ``t``'s dtype: broadcast, then scattered."""
    plan = _plan(t, key)
    shape = plan.result_shape()
    try:
        graph.broadcast_shapes(shape_of(value), shape)
        if len(shape_of(value)) > len(shape):
            raise ValueError
    except ValueError:
        raise ValueError(
            f"shape mismatch: value array of shape {value.shape} could not be broadcast to indexing result of shape "
            f"{tuple(None if d < 0 else d for d in shape)}"
        ) from None
    plan.scatter("set", broadcast_to(value, shape))


def accumulate(t: Tensor, key: Any, kind: str, value: Tensor) -> None:
    """``ufunc.at(t, key, value)`` for an integer-array key: each index position combined in turn
    (``kind`` add, mul, max or min) in ``value``'s dtype, then cast to ``t``'s."""
    plan = _plan(t, key)
    shape = plan.result_shape()
    try:
        graph.broadcast_shapes(shape_of(value), shape)
        if len(shape_of(value)) > len(shape):
            raise ValueError
    except ValueError:
        raise ValueError(
            f"operands could not be broadcast together with remapped shapes: {value.shape} and "
            f"{tuple(None if d < 0 else d for d in shape)}"
        ) from None
    plan.scatter(kind, broadcast_to(value, shape))
