"""NumPy's reductions beyond sum/mean/max/min/prod, on traced tensors.

``argmax``/``argmin`` are one ``graph.argreduce``: the first occurrence wins and
the first NaN beats every number, as in NumPy. ``any``/``all``
are or/and reductions of bools. ``var``/``std``/``ptp``/``average`` and the
``nan*`` functions follow NumPy's own formulas step by step, in NumPy's
intermediate dtypes. Scans (``cumsum``, ``cumprod``, ``ufunc.accumulate``) are one
``graph.scan`` each.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import array_ops, dtypes
from kiln.frontend.numpy_shape import ranked, reject, static_shape, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, constant, emit, follow_layout, reshape_to, shape_of

_NO = np._NoValue


def _keepdims(value: Any) -> bool:
    return False if value is _NO else bool(value)


def _dtype(dtype: Any) -> np.dtype[Any] | None:
    return None if dtype is None else dtypes.canonical(dtype)


def _flat(t: Tensor) -> Tensor:
    """``t`` as a 1-D tensor of its elements (the flat data of a tensor of unknown rank)."""
    if t.shape_source is not None:
        return Tensor(t.value)
    return array_ops.reshape(t, -1)


def _isnan(t: Tensor) -> Tensor:
    return np.not_equal(t, t)


# ---------------------------------------------------------------------- argmax / argmin


def _arg_extreme(kind: str) -> Callable[..., Tensor]:
    name = f"arg{kind}"

    def impl(a: Any, axis: int | None = None, out: Any = None, *, keepdims: Any = _NO) -> Tensor:
        reject(name, out=out)
        t = as_tensor(a)
        keep = _keepdims(keepdims)
        if axis is None:
            result = _positions(kind, _flat(t), 0, name)
            if keep:
                ranked(t, f"np.{name}(..., keepdims=True)")
                result = reshape_to(result, [1] * t.ndim)
            return result
        ranked(t, f"np.{name}(..., axis=)")
        ax = array_ops.normalize_axis(axis, max(t.ndim, 1))
        if t.ndim == 0:
            return reshape_to(constant(np.zeros((), np.int64)), [1] if keep else [])
        result = _positions(kind, t, ax, name)
        return reshape_to(result, [1 if i == ax else d for i, d in enumerate(shape_of(t))]) if keep else result

    impl.__name__ = name
    return impl


def _positions(kind: str, t: Tensor, axis: int, name: str) -> Tensor:
    """Index along ``axis`` of the first extreme element (or first NaN), as int64, ``axis`` removed."""
    if shape_of(t)[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    return emit(graph.ArgReduceOp(kind, t.value, axis))


argmax = _arg_extreme("max")
argmin = _arg_extreme("min")


# ---------------------------------------------------------------------- any / all / count_nonzero


def bool_reduce(kind: str, t: Tensor, axis: Any, keepdims: bool) -> Tensor:
    """Or (``kind="max"``) or and (``"min"``) of ``t != 0`` over ``axis``; empty axes give the identity."""
    b = cast(t, np.dtype(np.bool_))
    if b.shape_source is not None:
        if axis is not None or keepdims:
            ranked(b, "np.any / np.all with axis= or keepdims=")
        b = Tensor(b.value)
    axes = () if b.ndim == 0 and axis in (0, -1) else array_ops.normalize_axes(axis, b.ndim)
    return emit(graph.ReduceOp(kind, b.value, axes, keepdims)) if axes else b


def _logical(name: str, kind: str) -> Callable[..., Tensor]:
    def impl(a: Any, axis: Any = None, out: Any = None, keepdims: Any = False, *, where: Any = _NO) -> Tensor:
        reject(name, out=out, where=where)
        return bool_reduce(kind, as_tensor(a), axis, _keepdims(keepdims))

    impl.__name__ = name
    return impl


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Tensor:
    """Number of elements that are not zero (NaN counts), as int64."""
    t = cast(as_tensor(a), np.dtype(np.bool_))
    return array_ops.reduce("sum", t, axis, bool(keepdims), np.dtype(np.int64))


# ---------------------------------------------------------------------- var / std / ptp / average


def _count(t: Tensor, axis: Any, what: str) -> int | Tensor:
    """How many elements a reduction over ``axis`` takes: an int, or a traced int64 where a
    length is known only at run time (``x[mask]``, ``x[:n]``)."""
    t = ranked(t, what)
    return array_ops.element_count(t, array_ops.normalize_axes(axis, t.ndim))


def _int64(n: int | Tensor) -> Any:
    return n if isinstance(n, Tensor) else np.int64(n)


def var(
    a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: Any = _NO,
    *, where: Any = _NO, mean: Any = _NO, correction: Any = _NO,
) -> Tensor:
    """NumPy's ``_var``: the mean (keepdims) in ``dtype`` (float64 for ints and bools), the squared
    deviations summed in ``dtype``, divided by ``max(n - ddof, 0)``."""
    return _variance("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def std(
    a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: Any = _NO,
    *, where: Any = _NO, mean: Any = _NO, correction: Any = _NO,
) -> Tensor:
    """``sqrt(var(...))`` in the variance's dtype."""
    return np.sqrt(_variance("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction))


def _variance(name: str, a: Any, axis: Any, dtype: Any, out: Any, ddof: Any, keepdims: Any, where: Any, mean: Any,
              correction: Any) -> Tensor:
    reject(name, out=out, where=where, mean=mean)
    if correction is not _NO:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    t = ranked(a, f"np.{name}")
    n = _count(t, axis, f"np.{name}")
    dt = _dtype(dtype) or (np.dtype(np.float64) if t.dtype.kind in "bi" else t.dtype)
    if dt.kind != "f":
        raise unsupported(f"np.{name}(..., dtype={dt}) (use a float dtype)")
    total = array_ops.reduce("sum", t, axis, True, dt)
    # NumPy divides by an intp count into the sum's own buffer: in float64, then cast back
    mean_ = cast(np.true_divide(total, _int64(n)), dt)
    deviation = np.subtract(t, mean_)
    squares = array_ops.reduce("sum", np.multiply(deviation, deviation), axis, _keepdims(keepdims), dt)
    return cast(np.true_divide(squares, np.maximum(_int64(n) - ddof, 0)), dt)


def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NO) -> Tensor:
    """``max - min`` along ``axis`` (NumPy's subtract: bools raise its TypeError)."""
    reject("ptp", out=out)
    t = as_tensor(a)
    keep = _keepdims(keepdims)
    return np.subtract(array_ops.reduce("max", t, axis, keep), array_ops.reduce("min", t, axis, keep))


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: Any = _NO) -> Any:
    """``np.average``: the mean, or ``sum(a * w) / sum(w)`` in NumPy's weighted result dtype."""
    t = ranked(a, "np.average")
    keep = _keepdims(keepdims)
    if weights is None:
        avg = array_ops.reduce("mean", t, axis, keep)
        n = _count(t, axis, "np.average")
        scale = cast(n, avg.dtype) if isinstance(n, Tensor) else np.asarray(n, avg.dtype)
        return (avg, np.broadcast_to(scale, avg.shape)) if returned else avg
    w = ranked(weights, "np.average(..., weights=)")
    dt = dtypes.result_type(t.dtype, w.dtype, *((np.dtype(np.float64),) if t.dtype.kind in "bi" else ()))
    if shape_of(w) != shape_of(t):
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = array_ops.normalize_axes(axis, t.ndim)
        if tuple(shape_of(w)) != tuple(shape_of(t)[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
        w = reshape_to(w, [shape_of(t)[i] if i in axes else 1 for i in range(t.ndim)])
    w = cast(w, dt)
    scale = array_ops.reduce("sum", np.broadcast_to(w, t.shape), axis, keep, dt)
    avg = np.true_divide(array_ops.reduce("sum", np.multiply(cast(t, dt), w), axis, keep, dt), scale)
    return (avg, scale) if returned else avg


# ---------------------------------------------------------------------- NaN-ignoring reductions


def _replace_nan(t: Tensor, value: float) -> Tensor:
    return np.where(_isnan(t), np.asarray(value, t.dtype), t) if t.dtype.kind == "f" else t


def _nan_sum_like(name: str, kind: str, neutral: float) -> Callable[..., Tensor]:
    def impl(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NO,
             initial: Any = _NO, where: Any = _NO) -> Tensor:
        reject(name, out=out, initial=initial, where=where)
        t = _replace_nan(as_tensor(a), neutral)
        return array_ops.reduce(kind, t, axis, _keepdims(keepdims), _dtype(dtype))

    impl.__name__ = name
    return impl


def _nan_extreme(name: str, kind: str) -> Callable[..., Tensor]:
    """``fmax.reduce``: NaNs are skipped, an all-NaN slice gives NaN."""

    def impl(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NO, initial: Any = _NO,
             where: Any = _NO) -> Tensor:
        reject(name, out=out, initial=initial, where=where)
        t = as_tensor(a)
        keep = _keepdims(keepdims)
        if t.dtype.kind != "f":
            return array_ops.reduce(kind, t, axis, keep)
        extreme = array_ops.reduce(kind, _replace_nan(t, -np.inf if kind == "max" else np.inf), axis, keep)
        all_nan = bool_reduce("min", _isnan(t), axis, keep)
        return np.where(all_nan, np.asarray(np.nan, t.dtype), extreme)

    impl.__name__ = name
    return impl


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NO, *,
            where: Any = _NO) -> Tensor:
    """The sum of the non-NaN elements over their count (NumPy divides into the sum's dtype)."""
    reject("nanmean", out=out, where=where)
    t = as_tensor(a)
    keep = _keepdims(keepdims)
    if t.dtype.kind != "f":
        return array_ops.reduce("mean", t, axis, keep, _dtype(dtype))
    total = array_ops.reduce("sum", _replace_nan(t, 0.0), axis, keep, _dtype(dtype))
    count = array_ops.reduce("sum", np.logical_not(_isnan(t)), axis, keep, np.dtype(np.int64))
    return cast(np.true_divide(total, count), total.dtype)


# ---------------------------------------------------------------------- scans


def scan(kind: str, t: Tensor, axis: int, dtype: np.dtype[Any]) -> Tensor:
    """One ``graph.scan`` of ``t`` cast to ``dtype`` along ``axis``."""
    return follow_layout(emit(graph.ScanOp(kind, cast(t, dtype).value, array_ops.normalize_axis(axis, t.ndim))), [t])


def _cumulative(name: str, kind: str) -> Callable[..., Tensor]:
    """``np.cumsum``/``np.cumprod``: in ``np.sum``'s dtype (or ``dtype``); ``axis=None`` flattens."""

    def impl(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Tensor:
        reject(name, out=out)
        t = as_tensor(a)
        if axis is None:
            t, axis = _flat(t), 0
        else:
            ranked(t, f"np.{name}(..., axis=)")
            if t.ndim == 0:
                array_ops.normalize_axis(axis, 1)
                t, axis = reshape_to(t, [1]), 0
        return scan(kind, t, axis, _dtype(dtype) or dtypes.sum_dtype(t.dtype))

    impl.__name__ = name
    return impl


def cov(
    m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None, fweights: Any = None,
    aweights: Any = None, *, dtype: Any = None,
) -> Tensor:
    """``np.cov`` without weights, NumPy's steps: observations as 2-D rows (in float64 or a wider
    float), the row means subtracted, ``X @ X.T.conj()`` times ``1 / (n - ddof)``, squeezed."""
    reject("cov", fweights=fweights, aweights=aweights)
    x = _observations(m, rowvar, dtype, "np.cov")
    if y is not None:
        x = np.concatenate((x, _observations(y, rowvar, x.dtype if dtype is None else dtype, "np.cov")), axis=0)
    rows, n = static_shape(x, "np.cov")
    if rows == 0:
        return constant(np.zeros((0, 0), x.dtype))
    ddof = (0 if bias else 1) if ddof is None else operator.index(ddof)
    fact = max(n - ddof, 0)
    mean = np.true_divide(array_ops.reduce("sum", x, 1, True, x.dtype), np.int64(n))
    centered = np.subtract(x, cast(mean, x.dtype))
    c = np.matmul(centered, np.conjugate(array_ops.transpose(centered)))
    c = cast(np.multiply(c, np.true_divide(1, fact) if fact else np.float64(np.inf)), c.dtype)  # NumPy's c *= 1/fact
    return np.squeeze(c)


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, bias: Any = _NO, ddof: Any = _NO, *, dtype: Any = None) -> Tensor:
    """``np.corrcoef``: the covariance divided by the outer product of the standard deviations,
    the real (and imaginary) parts clipped to [-1, 1]."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return np.true_divide(c, c)
    stddev = np.sqrt(np.real(np.diagonal(c)))
    c = np.true_divide(np.true_divide(c, stddev[:, None]), stddev[None, :])
    if c.dtype.kind == "c":
        return np.clip(np.real(c), -1, 1) + 1j * np.clip(np.imag(c), -1, 1)
    return np.clip(c, -1, 1)


def _observations(m: Any, rowvar: bool, dtype: Any, what: str) -> Tensor:
    t = as_tensor(m)
    if t.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    dt = dtypes.canonical(dtype) if dtype is not None else dtypes.result_type(t.dtype, np.dtype(np.float64))
    x = cast(t, dt) if t.dtype != dt else t
    x = reshape_to(x, [1, *shape_of(x)]) if x.ndim < 2 else x
    x = reshape_to(x, [1, 1]) if x.ndim == 1 else x
    return array_ops.transpose(x) if not rowvar and shape_of(x)[0] != 1 else x


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.cumsum: _cumulative("cumsum", "add"),
    np.cumprod: _cumulative("cumprod", "mul"),
    np.argmax: argmax,
    np.argmin: argmin,
    np.any: _logical("any", "max"),
    np.all: _logical("all", "min"),
    np.count_nonzero: count_nonzero,
    np.var: var,
    np.std: std,
    np.cov: cov,
    np.corrcoef: corrcoef,
    np.ptp: ptp,
    np.average: average,
    np.nansum: _nan_sum_like("nansum", "sum", 0.0),
    np.nanprod: _nan_sum_like("nanprod", "prod", 1.0),
    np.nanmax: _nan_extreme("nanmax", "max"),
    np.nanmin: _nan_extreme("nanmin", "min"),
    np.nanmean: nanmean,
}
