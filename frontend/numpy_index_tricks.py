"""``np.r_[...]`` and ``np.c_[...]`` with traced items: NumPy's ``AxisConcatenator`` on tensors.

NumPy's index tricks make each item an array with ``np.array``, which a traced tensor cannot
give, so AutoGraph's subscript conversion (``ag__.getitem``) sends a key holding a traced
value here. Each item is made as NumPy makes it: a slice of constants is ``np.arange`` (or
``np.linspace`` for a complex step), a scalar stays weak to the result's dtype as a Python
number does (a NumPy scalar or a 0-d traced value counts by its dtype), an array gets
``ndmin`` leading axes moved as ``trans1d`` says (``np.c_`` makes a 1-D array a column);
then all are cast to NumPy's ``result_type`` of them and concatenated along the axis. The
string directives that set the axis (``'0,2,1'``, ``'1'``) are read; the matrix ones
(``'r'``, ``'c'``) are refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend.numpy_shape import unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, promotion_value, reshape_to
from kiln.frontend.tensor import is_traced

#: the classes of ``np.r_`` and ``np.c_`` (NumPy's ``AxisConcatenator`` is private in NumPy 2)
CONCATENATORS = (type(np.r_), type(np.c_))



def _directive(item: str, axis: int, ndmin: int, trans1d: int) -> tuple[int, int, int]:
    """NumPy's reading of a string first item: ``'axis'`` or ``'axis,ndmin[,trans1d]'``."""
    if item in ("r", "c"):
        raise unsupported(f"np.r_/np.c_ with the matrix directive {item!r}")
    parts = item.split(",")
    try:
        if len(parts) == 1:
            return int(item), ndmin, trans1d
        return int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) == 3 else trans1d
    except ValueError as e:
        raise ValueError(f"unknown special directive {item!r}") from e


def _with_ndmin(t: Tensor, ndmin: int, trans1d: int) -> Tensor:
    """``np.array(t, ndmin=ndmin)`` with the original axes moved to ``trans1d`` as NumPy's index tricks do."""
    nd = t.ndim
    if nd >= ndmin:
        return t
    grown = reshape_to(t, [1] * (ndmin - nd) + list(t.shape))
    if trans1d == -1:
        return grown
    k1, k2 = trans1d, ndmin - nd
    if k1 < 0:
        k1 += k2 + 1
    axes = list(range(ndmin))
    return np.transpose(grown, axes[:k1] + axes[k2:] + axes[k1:k2])


def concatenate(maker: Any, key: Any) -> Tensor:
    """``maker[key]`` (``np.r_`` or ``np.c_``) with traced items, as NumPy computes it."""
    axis, ndmin, trans1d = maker.axis, maker.ndmin, maker.trans1d
    key = key if isinstance(key, tuple) else (key,)
    objs: list[Any] = []
    kinds: list[Any] = []  # what each item brings to result_type (a weak Python scalar, else a dtype)
    for k, item in enumerate(key):
        if isinstance(item, str):
            if k != 0:
                raise ValueError("special directives must be the first entry.")
            axis, ndmin, trans1d = _directive(item, axis, ndmin, trans1d)
            continue
        if isinstance(item, slice):
            if any(is_traced(p) for p in (item.start, item.stop, item.step)):
                raise unsupported("np.r_/np.c_ with a slice of traced bounds")
            made = maker[item]  # NumPy's own arange/linspace, ndmin and trans1d
            objs.append(made)
            kinds.append(made.dtype)
        elif type(item) in np.ScalarType:
            objs.append(np.asarray(item))
            kinds.append(item)
        else:
            t = as_tensor(item) if is_traced(item) else as_tensor(np.asarray(item))
            objs.append(t if t.ndim == 0 else _with_ndmin(t, ndmin, trans1d))
            kinds.append(promotion_value(t) if t.ndim == 0 else t.dtype)
    if not objs:
        return as_tensor(np.concatenate((), axis=axis))
    dtype = np.result_type(*kinds)
    made = [cast(as_tensor(o), dtype) for o in objs]
    made = [reshape_to(t, [1] * ndmin) if t.ndim == 0 else t for t in made]  # a scalar: np.array(s, ndmin=ndmin)
    return np.concatenate(made, axis=axis)
