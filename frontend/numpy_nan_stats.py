"""NumPy's NaN-ignoring statistics beyond sums and extremes: ``nanvar``, ``nanstd``,
``nanargmax``, ``nanargmin``, ``nanmedian``, ``nanquantile`` and ``nanpercentile``.

``nanvar`` follows NumPy's steps (NaN replaced by 0, a count of the others, the mean
divided into the sum's dtype, the squares of the deviations, NaN where the degrees of
freedom are not positive). The order statistics sort each slice with NaN last and read
the positions that the slice's count of numbers gives when the call runs: the quantile
of the numbers alone, as NumPy's ``_nanquantile_1d`` computes it. An all-NaN slice gives
NaN, and ``nanargmax`` of one raises NumPy's ``ValueError`` when the call runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend import array_ops, runtime_checks
from kiln.frontend.numpy_quantiles import _keep, _reduced_first, fractions_of, median
from kiln.frontend.numpy_reductions import argmax, argmin
from kiln.frontend.numpy_shape import ranked, reject, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, reshape_to, shape_of

_NO = np._NoValue


def _keepdims(value: Any) -> bool:
    return False if value is _NO else bool(value)


def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0, keepdims: Any = _NO, *,
           where: Any = _NO, mean: Any = _NO, correction: Any = _NO) -> Tensor:
    """NumPy's ``nanvar`` step by step (see the module's docstring)."""
    reject("nanvar", out=out, where=where, mean=mean)
    t = as_tensor(a)
    if t.dtype.kind != "f":
        return np.var(t, axis=axis, dtype=dtype, ddof=ddof, keepdims=_keepdims(keepdims))
    if correction is not _NO:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    dt = np.dtype(dtype) if dtype is not None else None
    if dt is not None and dt.kind not in "fc":
        raise TypeError("If a is inexact, then dtype must be inexact")
    nan = np.isnan(t)
    arr = np.where(nan, np.asarray(0, t.dtype), t)
    cnt = array_ops.reduce("sum", np.logical_not(nan), axis, True, np.dtype(np.int64))
    total = array_ops.reduce("sum", arr, axis, True, dt)
    avg = cast(np.true_divide(total, cnt), total.dtype)
    deviation = cast(np.subtract(arr, avg), arr.dtype)
    deviation = np.where(nan, np.asarray(0, arr.dtype), deviation)
    var = array_ops.reduce("sum", np.multiply(deviation, deviation), axis, _keepdims(keepdims), dt)
    if not _keepdims(keepdims):
        cnt = reshape_to(cnt, shape_of(var))
    dof = np.subtract(cnt, ddof)
    var = cast(np.true_divide(var, dof), var.dtype)
    return np.where(dof <= 0, np.asarray(np.nan, var.dtype), var)


def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0, keepdims: Any = _NO, *,
           where: Any = _NO, mean: Any = _NO, correction: Any = _NO) -> Tensor:
    """The square root of ``nanvar``."""
    return np.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction))


def _nan_arg(name: str, extreme: Callable[..., Tensor], fill: float) -> Callable[..., Tensor]:
    def impl(a: Any, axis: int | None = None, out: Any = None, *, keepdims: Any = _NO) -> Tensor:
        reject(name, out=out)
        t = as_tensor(a)
        if t.dtype.kind != "f":
            return extreme(t, axis, keepdims=keepdims)
        nan = np.isnan(t)
        runtime_checks.require(np.logical_not(np.any(np.all(nan, axis=axis))), "All-NaN slice encountered")
        return extreme(np.where(nan, np.asarray(fill, t.dtype), t), axis, keepdims=keepdims)

    impl.__name__ = name
    impl.__doc__ = f"``np.{name}``: NaN replaced by {fill}; an all-NaN slice raises ValueError when the call runs."
    return impl


def _count_and_sorted(a: Any, axis: Any, name: str) -> tuple[Tensor, Tensor, tuple[int, ...], tuple[int, ...]]:
    """Each slice sorted with NaN last, and its count of numbers (int64)."""
    s, shape, axes = _reduced_first(a, axis, name)
    count = array_ops.reduce("sum", np.logical_not(np.isnan(s)), 0, False, np.dtype(np.int64))
    return s, count, shape, axes


def _at(s: Tensor, index: Tensor) -> Tensor:
    """``s[index[j], j]`` for every slice ``j`` (axis 0 of ``s`` is the reduced one)."""
    return np.take_along_axis(s, reshape_to(index, [1, *shape_of(index)]), axis=0)[0]


def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: Any = _NO) -> Tensor:
    """The mean of the middle one or two numbers of each slice; NaN for an all-NaN slice."""
    reject("nanmedian", out=out)
    t = ranked(a, "np.nanmedian")
    if t.dtype.kind != "f":
        return median(t, axis=axis, keepdims=_keepdims(keepdims))
    s, count, shape, axes = _count_and_sorted(t, axis, "nanmedian")
    last = np.maximum(count - 1, 0)
    low, high = _at(s, last // 2), _at(s, np.minimum(count // 2, last))
    middle = np.true_divide(np.add(low, high), 2.0)
    result = np.where(count == 0, np.asarray(np.nan, middle.dtype), middle)
    return _keep(result, shape, axes, 0, _keepdims(keepdims))


def _nan_quantile_like(name: str, scale: float) -> Callable[..., Tensor]:
    def impl(
        a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, method: str = "linear",
        keepdims: Any = _NO, *, weights: Any = None, interpolation: Any = None,
    ) -> Tensor:
        reject(name, out=out, weights=weights, interpolation=interpolation)
        if method != "linear":
            raise unsupported(f"np.{name}(..., method={method!r}) (only 'linear')")
        fractions, weak = fractions_of(q, scale, name)
        t = ranked(a, f"np.{name}")
        if t.dtype.kind != "f":
            return np.quantile(t, fractions if not weak else float(fractions), axis=axis, keepdims=_keepdims(keepdims))
        s, count, shape, axes = _count_and_sorted(t, axis, name)
        n = cast(count, np.dtype(np.float64))
        top = np.maximum(count - 1, 0)
        picks: list[Tensor] = []
        for fraction in fractions.ravel():
            qf = np.float64(fraction)
            virtual = n * qf + (1 + qf * (1 - 1 - 1)) - 1  # NumPy's linear method, alpha = beta = 1
            below = np.floor(virtual)
            prev = np.clip(cast(below, np.dtype(np.int64)), 0, top)
            nxt = np.clip(prev + 1, 0, top)
            prev = np.where(virtual >= n - 1, top, prev)
            gamma = np.subtract(virtual, cast(prev, np.dtype(np.float64)))
            lo, hi = _at(s, prev), _at(s, nxt)
            rest = np.subtract(1, gamma)
            if weak:  # (a Python-number q: NumPy's weight is a Python float, so it takes the values' dtype)
                weight, rest = cast(gamma, lo.dtype), cast(rest, lo.dtype)
            else:
                weight = gamma
            diff = np.subtract(hi, lo)
            value = np.where(gamma >= 0.5, np.subtract(hi, np.multiply(diff, rest)), np.add(lo, np.multiply(diff, weight)))
            picks.append(np.where(count == 0, np.asarray(np.nan, value.dtype), value))
        result = picks[0] if fractions.ndim == 0 else reshape_to(np.stack(picks), [*fractions.shape, *shape_of(picks[0])])
        return _keep(result, shape, axes, fractions.ndim, _keepdims(keepdims))

    impl.__name__ = name
    impl.__doc__ = f"``np.{name}`` (linear): the quantile of each slice's numbers, NaN where it has none."
    return impl


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.nanvar: nanvar,
    np.nanstd: nanstd,
    np.nanargmax: _nan_arg("nanargmax", argmax, -np.inf),
    np.nanargmin: _nan_arg("nanargmin", argmin, np.inf),
    np.nanmedian: nanmedian,
    np.nanquantile: _nan_quantile_like("nanquantile", 1),
    np.nanpercentile: _nan_quantile_like("nanpercentile", 100),
}
