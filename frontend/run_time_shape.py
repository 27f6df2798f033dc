"""A traced array's shape and size as Python gives them: ints, traced where known only at run time.

``x.shape`` of a NumPy array is a tuple of Python ints. A traced array whose size is known only
when the call runs has ``None`` there (``Tensor.shape``); what user code reads (``x.shape`` through
AutoGraph, ``np.shape(x)``, ``np.size(x)``) gives instead that size as a 0-d traced value standing
for a Python int (``tensor.python_number``), so that ``n = x.shape[0]`` returns an ``int`` and
``float32_array * n`` promotes as with any Python int.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import trace_context
from kiln.frontend.tensor import Tensor, emit, python_number


def traced(value: Any) -> bool:
    """A tensor, or a variable read while tracing."""
    return isinstance(value, Tensor) or (hasattr(type(value), "__kiln_tensor__") and trace_context.current() is not None)


class Shape(tuple):  # type: ignore[type-arg]
    """A traced array's ``.shape`` holding each size known only at run time as a traced Python int
    (a Python int where it is static). ``==`` and ``!=`` compare every size, as tuples do, and
    give a traced bool where a traced size takes part (a staged ``if`` can branch on it)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        if not isinstance(other, tuple) or len(other) != len(self):
            return False
        result: Any = True
        for a, b in zip(self, other):
            if traced(a) or traced(b):
                same = np.equal(a, b)
                result = same if result is True else np.logical_and(result, same)
            elif a != b:
                return False
        return result

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        same = self.__eq__(other)
        return np.logical_not(same) if isinstance(same, Tensor) else not same

    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        got = tuple.__getitem__(self, key)
        return Shape(got) if isinstance(key, slice) else got


def dynamic(value: Any) -> bool:
    """A tensor with a size known only at run time (and a known rank)."""
    return isinstance(value, Tensor) and value.shape is not None and None in value.shape


def dim(value: Tensor, axis: int) -> Tensor:
    """The run-time size of ``value``'s dimension ``axis`` as a 0-d int64 tensor (``graph.dim``)."""
    return emit(graph.DimOp(value.value, axis))


def shape(value: Tensor) -> Any:
    """``value.shape`` with each size known only at run time a traced Python int (a :class:`Shape`)."""
    if not dynamic(value):
        return value.shape
    return Shape(python_number(dim(value, i)) if d is None else d for i, d in enumerate(value.shape))


def size(value: Tensor) -> Any:
    """``value.size``: a traced Python int where a size is known only at run time."""
    if not dynamic(value):
        return value.size
    total: Any = 1
    for d in shape(value):
        total = total * d
    return total
