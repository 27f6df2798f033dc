"""``tensor[key]`` with NumPy's basic indexing, as one ``graph.slice`` plus one ``graph.reshape``.

Integers (negative too), slices with any start/stop/step, ``None``/``np.newaxis``
and ``...`` are supported. The slice op takes every axis's start, stride and
result size; an integer index is a slice of size 1 whose axis the reshape then
drops, and ``None`` is a length-1 axis the reshape inserts. Either op is left
out when it would change nothing. A 0-d integer tensor as the first index
(``x[i]`` in a staged loop) reads that row with ``graph.gather_row``. Other
advanced indexing (arrays, lists, boolean masks, tensors elsewhere) is not
supported yet and says so.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend.tensor import Tensor, emit, require_rank, reshape_to, shape_of


def getitem(t: Tensor, key: Any) -> Tensor:
    """``t[key]`` with NumPy's basic-indexing semantics; a 0-d integer tensor first index reads a row."""
    require_rank(t, "indexing")
    first, rest = (key[0], key[1:]) if isinstance(key, tuple) and key else (key, ())
    if isinstance(first, Tensor):
        return getitem(_gather_row(t, first), rest) if rest else _gather_row(t, first)
    items = _expand(key if isinstance(key, tuple) else (key,), t.ndim)
    src = shape_of(t)
    start: list[int] = []
    size: list[int] = []
    stride: list[int] = []
    out_shape: list[int] = []
    axis = 0
    for item in items:
        if item is None:
            out_shape.append(1)
            continue
        n = src[axis]
        if isinstance(item, slice):
            b, s, m = _slice(item, n, axis)
            out_shape.append(m)
        else:
            b, s, m = _integer(item, n, axis), 1, 1
        start.append(b)
        stride.append(s)
        size.append(m)
        axis += 1
    if size != list(src) or any(b != 0 for b in start) or any(s != 1 for s in stride):
        if -1 in src:
            raise NotImplementedError(
                f"indexing {t!r} is not supported yet: slicing needs every dimension's size at trace time"
            )
        t = emit(graph.SliceOp(t.value, start, size, stride))
    return reshape_to(t, out_shape)


def _gather_row(t: Tensor, index: Tensor) -> Tensor:
    """``t[i]`` for a traced index ``i``: one ``graph.gather_row`` (negative ``i`` counts from the end)."""
    if t.ndim == 0:
        raise IndexError("too many indices for array: array is 0-dimensional, but 1 were indexed")
    if index.ndim != 0 or index.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise NotImplementedError(
            f"indexing with {index!r} is not supported yet inside kiln.function: a tensor index must be a "
            "0-d int32 or int64 tensor (a single row along the first axis)"
        )
    return emit(graph.GatherRowOp(t.value, index.value))


def _expand(items: tuple[Any, ...], ndim: int) -> list[Any]:
    """Check the index items and replace ``...`` by full slices; one entry per axis (plus ``None`` s)."""
    for item in items:
        if isinstance(item, Tensor):
            raise NotImplementedError("indexing with a tensor is not supported yet inside kiln.function")
        if isinstance(item, (bool, np.bool_)) or not (
            item is None or item is Ellipsis or isinstance(item, slice) or hasattr(type(item), "__index__")
        ):
            raise NotImplementedError(
                f"advanced indexing with {item!r} is not supported yet inside kiln.function "
                "(use integers, slices, None and ...)"
            )
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(item is not None and item is not Ellipsis for item in items)
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed")
    fill = [slice(None)] * (ndim - used)
    if Ellipsis in items:
        at = next(i for i, item in enumerate(items) if item is Ellipsis)
        return [*items[:at], *fill, *items[at + 1 :]]
    return [*items, *fill]


def _integer(item: Any, n: int, axis: int) -> int:
    i = operator.index(item)
    if n < 0:
        if i < 0:
            raise NotImplementedError(f"a negative index on the dynamic axis {axis} is not supported yet")
        return i
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return i % n


def _slice(item: slice, n: int, axis: int) -> tuple[int, int, int]:
    """(start, stride, size) of ``item`` on an axis of size ``n``."""
    if n < 0:
        if item != slice(None):
            raise NotImplementedError(f"slicing the dynamic axis {axis} is not supported yet (only `:`)")
        return 0, 1, -1
    begin, end, step = item.indices(n)
    count = len(range(begin, end, step))
    return (begin if count else 0), step, count
