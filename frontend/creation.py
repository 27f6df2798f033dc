"""NumPy's array-creation functions called inside a traced function: they make kiln arrays.

``buf = np.empty((n, n))`` then ``buf[i] = ...`` is how NumPy code fills a result.
A real NumPy array could not hold traced values, so AutoGraph's call hook
(:func:`kiln.frontend.autograph.operators.calls.call`) routes these functions
here while a trace is in progress: each returns a new kiln array (its own
storage), filled as NumPy fills it. ``np.empty``'s (and ``np.ndarray(shape)``'s) contents are
undefined in NumPy; kiln's are zeros.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend import array_ops, dtypes
from kiln.frontend.tensor import Tensor, as_tensor, cast


def _shape(shape: Any) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, (int, np.integer)) or isinstance(shape, Tensor) else tuple(shape)
    if any(isinstance(d, Tensor) for d in dims):
        raise NotImplementedError(
            "an array whose shape is known only at run time (a traced size) cannot be made inside kiln.function yet"
        )
    return tuple(int(d) for d in dims)


def _filled(fill: Any) -> Callable[..., Tensor]:
    def make(shape: Any, dtype: Any = float, order: str = "C", *, like: Any = None) -> Tensor:
        if order not in ("C", "K", "A"):
            raise NotImplementedError(f"order={order!r} is not supported inside kiln.function")
        return array_ops.full(_shape(shape), fill, np.dtype(dtype))

    return make


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *, like: Any = None) -> Tensor:
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, Tensor) else np.asarray(fill_value).dtype
    return array_ops.full(_shape(shape), fill_value, np.dtype(dtype))


def array(obj: Any, dtype: Any = None, *, copy: bool = True, **kwargs: Any) -> Any:
    """``np.array``: a new kiln array (values may be traced: a list of 0-d tensors is stacked)."""
    if kwargs:
        raise NotImplementedError(f"np.array(..., {', '.join(kwargs)}=) is not supported inside kiln.function")
    t = _stacked(obj)
    t = cast(t, dtypes.canonical(dtype)) if dtype is not None else t
    return t.copy() if copy else t


def asarray(obj: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """``np.asarray``: a kiln array as it is (no copy), anything else as a new kiln array."""
    if isinstance(obj, Tensor) and (dtype is None or np.dtype(dtype) == obj.dtype):
        return obj
    return array(obj, dtype, copy=False, **kwargs)


def _stacked(obj: Any) -> Tensor:
    if isinstance(obj, (list, tuple)) and any(_holds_tensor(o) for o in obj):
        return np.stack([_stacked(o) for o in obj])
    return as_tensor(obj)


def _holds_tensor(obj: Any) -> bool:
    if isinstance(obj, Tensor):
        return True
    return isinstance(obj, (list, tuple)) and any(_holds_tensor(o) for o in obj)


#: NumPy's functions and their kiln versions inside a trace
TRACED: dict[Any, Callable[..., Any]] = {
    np.empty: _filled(0),
    np.ndarray: _filled(0),
    np.zeros: _filled(0),
    np.ones: _filled(1),
    np.full: full,
    np.array: array,
    np.asarray: asarray,
}
