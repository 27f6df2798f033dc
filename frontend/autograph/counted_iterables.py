"""Python iterables a ``for`` loop stages as one counted loop instead of unrolling them at trace time.

Some iterables have a length known while tracing and items that are known functions of their
position, with no traced value per item: a list kiln holds as one array (kiln.frontend.list_arrays,
each item a read of it), ``itertools.repeat(obj, n)`` (``obj`` each time),
``np.ndindex(shape)`` and ``itertools.product`` of ranges (the row-major multi-index of the
position), a range's iterator (``reversed(range(n))``). :func:`positions` reads them without using
them up; the loop is then staged as a ``for`` over a Python ``range`` is
(kiln.frontend.autograph.staging.staged_python_counted).

``zip`` or ``enumerate`` of tensors whose length is known only at run time (``zip(*np.where(m))``)
has no Python iteration; :class:`StagedRows` stands for it, and a ``for`` over it is a staged loop
over the shortest one's rows, as a ``for`` over one such tensor is.

A comprehension over a Python list of traced numbers (a short list argument's, unpacked into one
traced Python number per element) runs over :class:`StackedItems`: a ``for`` over it is a staged
loop over the numbers' stack, whatever its length, so that a filter on them stages as over an array.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from kiln.frontend import index_facts
from kiln.frontend.list_arrays import held
from kiln.frontend.tensor import Tensor

#: an item as a function of its position (a Python int, or a staged loop's weak 0-d integer tensor)
Item = Callable[[Any], Any]


def positions(iterable: Any) -> tuple[range, Item | None] | None:
    """``(range of positions, item at a position)`` for an iterable a ``for`` may stage as a counted
    loop (None for the item: the position itself); None for any other iterable."""
    kind = type(iterable)
    if held(iterable):  # a list held as one array: its items are reads of it
        return range(len(iterable)), iterable.item_at
    if kind is itertools.repeat:
        reduced = iterable.__reduce__()[1]
        if len(reduced) < 2:  # endless: Python's loop ends at a `break` only
            return None
        obj, count = reduced
        return range(count), lambda _: obj
    if kind.__name__ in ("range_iterator", "longrange_iterator"):
        _, (whole,), *state = iterable.__reduce__()
        return whole[state[0] if state else 0:], None
    if isinstance(iterable, np.ndindex):
        product = getattr(iterable, "_iter", None)  # NumPy 2's ndindex walks an itertools.product of ranges
        return _product(product) if type(product) is itertools.product else None
    if kind is itertools.product:
        return _product(iterable)
    return None


def _product(product: Any) -> tuple[range, Item] | None:
    """``itertools.product`` of int progressions (ranges), not yet started: the multi-index,
    row-major (the last factor varies fastest)."""
    reduced = product.__reduce__()
    if len(reduced) > 2:  # started: some items are used up
        return None
    pools = [_progression(pool) for pool in reduced[1]]
    if any(pool is None for pool in pools):
        return None
    ranges: list[range] = pools  # type: ignore[assignment]
    strides, total = [], 1
    for pool in reversed(ranges):
        strides.insert(0, total)
        total *= len(pool)

    def item(k: Any) -> tuple[Any, ...]:
        parts = []
        for n, (pool, stride) in enumerate(zip(ranges, strides)):
            j = k if stride == 1 else k // stride
            part = _at(pool, j if n == 0 else j % len(pool))  # (the first factor's j is below its length)
            if isinstance(part, Tensor):
                index_facts.loop_index(part, min(pool), max(pool))  # (indexing with it needs no bounds check)
            parts.append(part)
        return tuple(parts)

    return range(total), item


def _progression(pool: tuple[Any, ...]) -> range | None:
    """``pool`` as a range: Python ints in an arithmetic progression (a ``range``'s items)."""
    if not all(type(v) is int for v in pool):
        return None
    if len(pool) < 2:
        return range(pool[0], pool[0] + 1) if pool else range(0)
    step = pool[1] - pool[0]
    if step == 0 or any(b - a != step for a, b in zip(pool, pool[1:])):
        return None
    return range(pool[0], pool[-1] + step, step)


def _at(pool: range, j: Any) -> Any:
    """``pool[j]`` for a position ``j`` that may be traced."""
    if pool.start == 0 and pool.step == 1:
        return j
    return j * pool.step + pool.start


class StagedRows:
    """``zip(*tensors)`` or ``enumerate(tensor)`` (``enumerate(zip(...))``) where a tensor's length is
    known only at run time: a ``for`` over it is a staged loop over the rows of each, to the
    shortest (kiln.frontend.autograph.staging.staged_for)."""

    def __init__(self, columns: tuple[Tensor, ...], zipped: bool, start: int | None = None):
        self.columns = columns
        #: items are tuples of rows (zip), not one row
        self.zipped = zipped
        #: enumerate's first count (None: not enumerated)
        self.start = start

    def item(self, i: Tensor, count: Tensor) -> Any:
        """The item at row ``i``; ``count``: ``i`` as a Python int (enumerate's)."""
        rows = tuple(column[i] for column in self.columns)  # views of the rows, as NumPy iterates
        row = rows if self.zipped else rows[0]
        return row if self.start is None else (count + self.start if self.start else count, row)

    def __iter__(self) -> Iterator[Any]:
        """Python's iteration (a comprehension, unpacking): the tensors' own refusal, naming the statement."""
        return zip(*self.columns)


def _run_time_rows(values: tuple[Any, ...]) -> bool:
    """Whether ``values`` are tensors (of rank >= 1) one of which has a length known only at run time."""
    return (bool(values) and all(isinstance(v, Tensor) and v.ndim for v in values)
            and any(v.shape[0] is None for v in values))


def zip_(*iterables: Any, **kwargs: Any) -> Any:
    """``zip(*iterables)``; a :class:`StagedRows` for tensors one of which has a run-time length."""
    if not kwargs and _run_time_rows(iterables):
        return StagedRows(iterables, zipped=True)
    return zip(*iterables, **kwargs)


def enumerate_(iterable: Any, start: Any = 0) -> Any:
    """``enumerate(iterable, start)``; a :class:`StagedRows` for a tensor of run-time length or a
    ``zip`` of such (a Python int ``start``)."""
    if type(start) is int:
        if isinstance(iterable, StagedRows) and iterable.start is None:
            return StagedRows(iterable.columns, iterable.zipped, start)
        if _run_time_rows((iterable,)):
            return StagedRows((iterable,), zipped=False, start=start)
    return enumerate(iterable, start)


class StackedItems:
    """The items of a Python list or tuple (or a ``zip``/``enumerate`` of such) holding traced values,
    as a comprehension's loop runs over them (operators/comprehensions.comprehension_iterable): ``plan``
    (a staging._Sequence) makes each item from one staged index where the items are traced Python
    numbers of one type (and counts, or values the same in every item); None where they are not, and
    the loop is Python's (a filter on traced values is then refused naming the line)."""

    def __init__(self, items: list[Any], plan: Any):
        self.items, self.plan = items, plan

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)
