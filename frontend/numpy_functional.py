"""NumPy's functions that call a function of the user's on pieces of an array, on traced tensors:
``piecewise`` and ``apply_along_axis``.

``apply_along_axis`` is NumPy's own loop, unrolled while tracing: the function is traced once
per 1-D slice (the shape of the other axes must be known then, and hold at most
:data:`MAX_SLICES` slices), each result is written into a buffer of the first result's
dtype and shape, and the result axes are moved to ``axis``, as NumPy does. ``piecewise`` is
NumPy's loop too: into zeros of ``x``'s dtype, each function's values of ``x[cond]`` (a
selection of a length known at run time) or its constant are written at ``cond``, later
conditions over earlier ones. NumPy skips a function whose selection is empty; kiln calls it
(on no elements, so it writes nothing), each condition must have ``x``'s shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend import array_ops
from kiln.frontend.numpy_shape import ranked, static_shape
from kiln.frontend.tensor import Tensor, as_tensor, broadcast_to, cast, reshape_to, shape_of
from kiln.frontend.tensor import is_traced

#: the most 1-D slices ``apply_along_axis`` unrolls (each one traces the function again)
MAX_SLICES = 4096



def _array(x: Any) -> Tensor:
    return as_tensor(x) if is_traced(x) else as_tensor(np.asarray(x))


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any) -> Tensor:
    """``func1d`` of each 1-D slice along ``axis``, unrolled over the other axes (NumPy's loop)."""
    t = ranked(arr, "np.apply_along_axis")
    ax = array_ops.normalize_axis(axis, t.ndim)
    shape = static_shape(t, "np.apply_along_axis")
    outer = shape[:ax] + shape[ax + 1:]
    count = math.prod(outer)
    if count == 0:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    if count > MAX_SLICES:
        raise NotImplementedError(
            f"np.apply_along_axis over {count} slices is not supported inside kiln.function: it traces the function "
            f"once per slice (at most {MAX_SLICES}); write the function on whole arrays (an axis= argument) instead"
        )
    view = np.moveaxis(t, ax, -1)
    results = [_array(func1d(view[index], *args, **kwargs)) for index in np.ndindex(*outer)]
    first = results[0]
    res_shape = shape_of(first)
    for r in results[1:]:
        if np.broadcast_shapes(shape_of(r), res_shape) != res_shape:
            raise ValueError(f"could not broadcast input array from shape {tuple(shape_of(r))} into shape {tuple(res_shape)}")
    stacked = array_ops.stack([broadcast_to(cast(r, first.dtype), res_shape) for r in results], 0, None)
    buff = reshape_to(stacked, [*outer, *res_shape])
    dims = list(range(len(outer) + len(res_shape)))
    return np.transpose(buff, dims[:ax] + dims[len(outer):] + dims[ax:len(outer)])


def _is_array(v: Any) -> bool:
    """Whether NumPy would see a list or an ndarray (a traced array of rank >= 1 eagerly is one)."""
    return isinstance(v, (list, np.ndarray)) or (is_traced(v) and as_tensor(v).ndim != 0)


def _conditions(x: Tensor, condlist: Any) -> list[Any]:
    """NumPy's reading of ``condlist``: one condition (a scalar, or a sequence whose first item is not
    a list or an array) or several (the rows of a 2-D array too, as NumPy reads one)."""
    single = np.isscalar(condlist) or (is_traced(condlist) and as_tensor(condlist).ndim == 0) or (
        not _is_array(condlist[0]) and x.ndim != 0)
    conds = [condlist] if single else list(condlist)
    return [cast(as_tensor(c), np.dtype(np.bool_)) if is_traced(c) else np.asarray(c, dtype=bool) for c in conds]


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Tensor:
    """Each function's values (or constant) where its condition holds, zeros elsewhere; one more
    function than conditions is the "otherwise" one, where no condition holds."""
    t = ranked(x, "np.piecewise")
    conds = _conditions(t, condlist)
    n, n2 = len(conds), len(funclist)
    for c in conds:
        if tuple(np.shape(c)) != tuple(t.shape):
            raise NotImplementedError(f"np.piecewise with a condition of shape {tuple(np.shape(c))} for x of shape "
                                      f"{tuple(t.shape)} is not supported inside kiln.function (one of x's shape is)")
    if n == n2 - 1:
        conds.append(np.logical_not(np.any(np.stack(conds), axis=0)))
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = np.zeros_like(t)
    for cond, func in zip(conds, funclist):
        y[cond] = func(t[cond], *args, **kw) if callable(func) else func
    return y


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.apply_along_axis: apply_along_axis,
    np.piecewise: piecewise,
}
