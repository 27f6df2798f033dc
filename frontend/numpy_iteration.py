"""NumPy's element-by-element ways into an array, on traced tensors: ``a.flat`` (read, written
and iterated), ``a.tolist()`` and ``np.ndenumerate(a)`` (``np.nditer`` is refused, saying what to write instead).

A flat position is the row-major multi-index NumPy's ``flatiter`` walks, so each read or write
through ``a.flat`` is an index of ``a`` itself at ``np.unravel_index`` of the positions: it
writes into ``a`` whatever its layout (a transposed view too), as NumPy's does. Iteration and
``tolist`` need the shape while tracing and are unrolled, one element each: a Python list of
Python numbers (traced ones), as NumPy gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from kiln.frontend import creation
from kiln.frontend.numpy_shape import static_shape, unsupported
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor, implements
from kiln.frontend.tensor import is_traced



class FlatIter:
    """``a.flat``: indexing by flat positions, reading and writing ``a``; iterating its elements."""

    def __init__(self, base: Tensor) -> None:
        self.base = base
        self._shape = static_shape(base, "ndarray.flat")
        self._size = int(np.prod(self._shape, dtype=np.int64))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        """Each element in row-major order, read when asked for (as NumPy's iterator reads the live array)."""
        return (self.base[np.unravel_index(i, self._shape)] for i in range(self._size))

    def _where(self, key: Any) -> tuple[Any, ...]:
        """The multi-index of ``a`` at the flat positions ``key`` names."""
        if is_traced(key):
            k = as_tensor(key)
            if k.dtype.kind not in "iu":
                raise unsupported("a.flat[<traced non-integer index>]")
            k = np.where(np.less(k, 0), np.add(k, self._size), k)
            return np.unravel_index(k, self._shape)
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not -self._size <= key < self._size:
                raise IndexError(f"index {key} is out of bounds for axis 0 with size {self._size}")
            return np.unravel_index(int(key) % self._size, self._shape)
        return np.unravel_index(np.arange(self._size)[key], self._shape)  # NumPy's own checks of the key

    def __getitem__(self, key: Any) -> Any:
        picked = self.base[self._where(key)]
        return as_scalar(picked) if isinstance(picked, Tensor) else picked

    def __setitem__(self, key: Any, value: Any) -> None:
        """``a.flat[key] = value``: ``value`` repeated (or cut) to the number of positions, as NumPy's."""
        where = self._where(key)
        count = int(np.size(where[0])) if not is_traced(where[0]) else as_tensor(where[0]).size
        if not isinstance(value, (bool, int, float, complex)):
            values = np.ravel(as_tensor(value) if is_traced(value) else np.asarray(value))
            m = int(np.size(values))
            if m != 1 and m != count:
                values = values[np.arange(count) % m]
            value = np.reshape(values, np.shape(where[0])) if m != 1 else np.reshape(values, ())
        self.base[where] = value


@implements
def flat(a: Tensor) -> FlatIter:
    """``a.flat`` (see :class:`FlatIter`)."""
    return FlatIter(a)


def _nested(t: Tensor) -> Any:
    if t.ndim == 0:
        return t.item()
    return [_nested(t[i]) for i in range(static_shape(t, "ndarray.tolist")[0])]


@implements
def tolist(a: Tensor) -> Any:
    """``a.tolist()``: nested lists of Python numbers (a Python number for a 0-d array)."""
    static_shape(a, "ndarray.tolist")
    return _nested(a)


def ndenumerate(arr: Any) -> Iterator[tuple[tuple[int, ...], Any]]:
    """``np.ndenumerate``: each multi-index with the element there, unrolled over the static shape."""
    if not is_traced(arr):
        return np.ndenumerate(arr)
    t = as_tensor(arr)
    return ((index, as_scalar(t[index])) for index in np.ndindex(*static_shape(t, "np.ndenumerate")))


def nditer(op: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.nditer`` of a traced array is refused saying what to write instead: its default order
    follows the operand's memory layout, and its elements are 0-d views that may be written
    (``op_flags``), neither of which a trace keeps (NumPy's own message was about WRITEBACKIFCOPY)."""
    operands = op if isinstance(op, (list, tuple)) else [op]
    if not any(is_traced(o) for o in operands):
        return np.nditer(op, *args, **kwargs)
    raise unsupported("np.nditer of a traced array (iterate over np.ndindex(a.shape) and read a[index], or over a.flat)")


#: NumPy's callables that take traced arrays only through these: ``ag__.call`` substitutes them
#: while tracing, from kiln.frontend.creation's table
TRACED: dict[Any, Callable[..., Any]] = {np.ndenumerate: ndenumerate, np.nditer: nditer}
#: those of them that only refuse a traced array (not listed as supported: kiln.frontend.api_table)
REFUSED = frozenset({np.nditer})
creation.TRACED.update(TRACED)
