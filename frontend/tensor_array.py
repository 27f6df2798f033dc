"""``kiln.TensorArray``: a list of same-shaped tensors that staged loops can accumulate into.

It is functional, as in TensorFlow: ``write`` returns a new TensorArray, so
``ta = ta.write(i, v)`` inside a staged loop makes ``ta`` loop-carried state.
While tracing, its storage is one tensor of shape ``(capacity, *element_shape)``
(written with ``graph.scatter_row``, read with ``graph.gather_row``), created
at the first write, when the element shape is known; outside a trace it is a
NumPy array, so eager code gives the same results.

Capacity. Loop-carried tensors keep one static shape, so storage cannot grow
inside a staged loop. A fixed-size array (``size=n``) has capacity ``n``.
With ``dynamic_size=True`` the capacity is fixed at the first traced write:
``size`` plus the trip count of the staged loops around that write (inside
the array's own creation depth), which must be known at trace time
(``kiln.range`` with integer bounds, or a loop over a tensor's static first
axis); otherwise the write raises, asking for ``size=``. Outside staged loops
a dynamic array grows as written. ``stack()`` of a dynamic array returns all
``capacity`` rows (unwritten rows are zeros): results have static shapes.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import dtypes, trace_context
from kiln.frontend.autograph import staging
from kiln.frontend.autograph.state import EMPTY
from kiln.frontend.tensor import Tensor, as_tensor, broadcast_to, cast, constant, emit

Storage = Any  # a Tensor while tracing, an np.ndarray eagerly, EMPTY before the first write


class TensorArray:
    """``TensorArray(dtype, size=0, dynamic_size=False, element_shape=None)``: ``write``/``read``/``stack``/``size``."""

    def __init__(
        self, dtype: Any, size: int = 0, dynamic_size: bool = False, element_shape: Sequence[int] | None = None
    ):
        if isinstance(size, Tensor):
            raise TypeError(
                "kiln.TensorArray: size must be known at trace time (a Python int, e.g. len(x)); "
                "for a size known only when the function runs, use dynamic_size=True with a staged loop "
                "whose trip count is known"
            )
        self.dtype = dtypes.canonical(dtype)
        self._capacity_hint = int(size)
        self.dynamic_size = bool(dynamic_size)
        self.element_shape = None if element_shape is None else tuple(int(d) for d in element_shape)
        self._storage: Storage = EMPTY
        self._length: Any = int(size)
        self._depth = staging.loop_depth()

    # ------------------------------------------------------------------ the interface

    def write(self, index: Any, value: Any) -> TensorArray:
        """A new TensorArray with element ``index`` set to ``value``."""
        if trace_context.current() is None:
            return self._write_eager(int(index), np.asarray(value, dtype=self.dtype))
        return self._write_traced(index, cast(as_tensor(value), self.dtype))

    def read(self, index: Any) -> Any:
        """Element ``index``."""
        if self._storage is EMPTY:
            if self.element_shape is None:
                raise ValueError("kiln.TensorArray.read: nothing was written yet, so the element shape is unknown")
            return self.stack()[index]
        if isinstance(index, Tensor):
            return emit(graph.GatherRowOp(self._storage.value, _index(index).value))
        return self._storage[index]

    def stack(self) -> Any:
        """All elements as one array of shape ``(size, *element_shape)``."""
        if self._storage is EMPTY:
            if self.element_shape is None and self._capacity_hint:
                raise ValueError(
                    "kiln.TensorArray.stack: nothing was written, so the element shape is unknown; pass element_shape="
                )
            zeros = np.zeros((self._capacity_hint, *(self.element_shape or ())), self.dtype)
            return zeros if trace_context.current() is None else constant(zeros)
        if isinstance(self._storage, np.ndarray) and self.dynamic_size:
            return self._storage[: self._length].copy()
        return self._storage if isinstance(self._storage, Tensor) else self._storage.copy()

    def size(self) -> Any:
        """The number of elements: an int for a fixed size, a tensor for a dynamic size written in a staged loop."""
        return self._length

    def __len__(self) -> int:
        if isinstance(self._length, Tensor):
            raise TypeError("len() of a dynamic kiln.TensorArray written in a staged loop: use .size()")
        return int(self._length)

    def __repr__(self) -> str:
        return f"kiln.TensorArray(dtype={self.dtype}, size={self._length!r}, dynamic_size={self.dynamic_size})"

    # ------------------------------------------------------------------ staged state (see autograph.state)

    def __kiln_flatten__(self) -> tuple[Hashable, list[tuple[str, Any]]]:
        aux = (self.dtype, self._capacity_hint, self.dynamic_size, self.element_shape, self._depth)
        parts = [("buffer", self._storage)]
        if self.dynamic_size:
            parts.append(("size", self._length))
        return aux, parts

    @classmethod
    def __kiln_unflatten__(cls, aux: Hashable, leaves: list[Any]) -> TensorArray:
        new = cls.__new__(cls)
        new.dtype, new._capacity_hint, new.dynamic_size, new.element_shape, new._depth = aux  # type: ignore[misc]
        new._storage = leaves[0]
        new._length = leaves[1] if new.dynamic_size else new._capacity_hint
        return new

    # ------------------------------------------------------------------ internals

    def _with(self, storage: Storage, length: Any) -> TensorArray:
        new = TensorArray.__new__(TensorArray)
        new.__dict__.update(self.__dict__)
        new._storage, new._length = storage, length
        return new

    def _check_element(self, shape: tuple[int | None, ...]) -> None:
        expected = self.element_shape
        if expected is None and self._storage is not EMPTY:
            expected = tuple(np.shape(self._storage)[1:]) if isinstance(self._storage, np.ndarray) else self._storage.shape[1:]
        if expected is not None and tuple(shape) != tuple(expected):
            raise ValueError(f"kiln.TensorArray.write: element of shape {tuple(shape)}, expected {tuple(expected)}")

    def _write_eager(self, i: int, value: np.ndarray) -> TensorArray:
        self._check_element(value.shape)
        storage = self._storage if self._storage is not EMPTY else np.zeros((self._capacity_hint, *value.shape), self.dtype)
        if i < 0:
            raise IndexError(f"kiln.TensorArray.write: negative index {i}")
        if i >= len(storage):
            if not self.dynamic_size:
                raise IndexError(f"kiln.TensorArray.write: index {i} is out of range for size {self._capacity_hint}")
            grown = np.zeros((max(i + 1, 2 * len(storage)), *value.shape), self.dtype)
            grown[: len(storage)] = storage
            storage = grown
        else:
            storage = storage.copy()
        storage[i] = value
        return self._with(storage, max(self._length, i + 1) if self.dynamic_size else self._length)

    def _write_traced(self, index: Any, value: Tensor) -> TensorArray:
        self._check_element(value.shape)
        storage = self._storage
        if storage is EMPTY:
            storage = self._allocate(value, index)
        if not isinstance(index, Tensor):
            i = int(index)
            if i < 0 or (i >= storage.shape[0] and not self.dynamic_size):
                raise IndexError(f"kiln.TensorArray.write: index {i} is out of range for size {storage.shape[0]}")
            if i >= storage.shape[0]:  # a dynamic array outside staged loops grows as written
                pad = constant(np.zeros((i + 1 - storage.shape[0], *value.shape), self.dtype))
                storage = np.concatenate([storage, pad])
        storage = emit(graph.ScatterRowOp(storage.value, _index(index).value, value.value))
        length = self._length
        if self.dynamic_size:
            nxt = index + 1
            both_python = not isinstance(nxt, Tensor) and not isinstance(length, Tensor)
            length = max(length, int(nxt)) if both_python else np.maximum(cast(as_tensor(length), np.dtype(np.int64)), nxt)
        return self._with(storage, length)

    def _allocate(self, value: Tensor, index: Any) -> Tensor:
        """Zeroed storage for the first write: its capacity is fixed from here on inside staged loops."""
        capacity = self._capacity_hint
        if self.dynamic_size:
            bound = staging.trip_bound_below(self._depth)
            if bound is None or (bound == 1 and isinstance(index, Tensor)):
                raise ValueError(
                    f"{staging.statement_location()}: kiln.TensorArray(dynamic_size=True) is written in a staged "
                    "loop whose trip count is unknown at trace time, and its storage cannot grow inside a "
                    "staged loop: pass size= (an upper bound on the number of elements)"
                )
            capacity += bound if bound > 1 else 0
        shape = (capacity, *value.shape)
        return broadcast_to(constant(np.zeros((), self.dtype)), shape)


def _index(index: Any) -> Tensor:
    """A 0-d int64 (or int32) tensor index, as graph.gather_row / graph.scatter_row take."""
    t = as_tensor(index) if not isinstance(index, Tensor) else index
    if t.ndim != 0 or not np.issubdtype(t.dtype, np.integer):
        raise TypeError(f"kiln.TensorArray: an index must be an integer or a 0-d integer tensor, got {index!r}")
    return t
