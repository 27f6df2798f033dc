"""``np.median``, ``np.quantile`` and ``np.percentile`` on traced tensors.

Each sorts the reduced axes into one (``graph.sort``, NaN last) and reads the order
statistics it needs. Which positions and weights those are depends only on the axis's
length and the quantiles, both known at trace time, so they are computed by NumPy's own
quantile methods while tracing and every one of NumPy's methods gives NumPy's answer.
The interpolation and the result dtypes follow NumPy's steps: a median is the ``mean`` of
the middle one or two values; a quantile is NumPy's two-sided ``_lerp`` with a weak weight
when ``q`` is a Python number; a slice holding NaN gives NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import array_ops
from kiln.frontend.numpy_shape import ranked, reject, static_shape, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, is_traced, reshape_to, shape_of

_NO = np._NoValue


def _reduced_first(a: Any, axis: Any, name: str) -> tuple[Tensor, tuple[int, ...], tuple[int, ...]]:
    """``a`` with the reduced axes merged into axis 0, sorted along it (NaN last); the
    original shape and the reduced axes (NumPy's ``_ureduce``)."""
    t = ranked(a, f"np.{name}")
    shape = static_shape(t, f"np.{name}")
    axes = tuple(range(t.ndim)) if axis is None else array_ops.normalize_axes(axis, t.ndim)
    kept = [i for i in range(t.ndim) if i not in axes]
    moved = np.transpose(t, [*axes, *kept]) if [*axes, *kept] != list(range(t.ndim)) else t
    n = int(np.prod([shape[i] for i in axes], dtype=np.int64))
    merged = reshape_to(moved, [n, *(shape[i] for i in kept)])
    if merged.dtype.kind == "c":
        raise unsupported(f"np.{name} of complex values")
    return np.sort(merged, axis=0), shape, axes


def _keep(result: Tensor, shape: tuple[int, ...], axes: tuple[int, ...], lead: int, keepdims: bool) -> Tensor:
    """With ``keepdims``, the reduced axes back as length 1 (after ``lead`` quantile axes)."""
    if not keepdims:
        return result
    return reshape_to(result, [*shape_of(result)[:lead], *(1 if i in axes else d for i, d in enumerate(shape))])


def _nan_last(sorted_: Tensor, result: Tensor) -> Tensor:
    """Where a slice holds NaN (sorted last), the result is that NaN, as in NumPy."""
    if sorted_.dtype.kind != "f":
        return result
    last = sorted_[-1]
    return np.where(np.isnan(last), cast(last, result.dtype), result)


def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False) -> Tensor:
    """NumPy's ``_median``: the mean of the middle one or two sorted values."""
    reject("median", out=out)
    s, shape, axes = _reduced_first(a, axis, "median")
    n = shape_of(s)[0]
    if n == 0:
        raise unsupported("np.median of an empty array (NumPy returns NaN with a warning)")
    middle = s[(n - 1) // 2 : n // 2 + 1]
    return _keep(_nan_last(s, np.mean(middle, axis=0)), shape, axes, 0, keepdims)


def _methods() -> dict[str, Any]:
    """NumPy's table of quantile methods (their positions and weights, computed at trace time)."""
    try:
        from numpy.lib import _function_base_impl as impl

        return impl._QuantileMethods
    except (ImportError, AttributeError) as error:  # pragma: no cover - NumPy < 2 lays it out elsewhere
        raise unsupported(f"np.quantile with this NumPy ({np.__version__}; kiln reads NumPy 2's quantile methods)") from error


def _lerp(a: Tensor, b: Tensor, t: Any, upper: bool) -> Tensor:
    """NumPy's ``_lerp``: ``a + (b - a) * t``, or ``b - (b - a) * (1 - t)`` where ``t >= 0.5``."""
    diff = np.subtract(b, a)
    low = np.add(a, np.multiply(diff, t))
    if not upper:
        return low
    return cast(np.subtract(b, np.multiply(diff, 1 - t)), low.dtype)


def _quantiles(s: Tensor, q: np.ndarray, weak: bool, method: str, name: str) -> Tensor:
    """The ``q`` quantiles (an array of static fractions) along axis 0 of the sorted ``s``."""
    try:
        props = _methods()[method]
    except KeyError:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_methods().keys()}") from None
    n = shape_of(s)[0]
    if n == 0:
        raise unsupported(f"np.{name} of an empty array")
    virtual = np.asanyarray(props["get_virtual_index"](n, q))
    picks: list[Tensor] = []
    if props["fix_gamma"] is None or (method == "linear" and np.issubdtype(virtual.dtype, np.integer)):
        for index in virtual.ravel():
            picks.append(s[int(index)])
    else:
        from numpy.lib import _function_base_impl as impl

        prev, nxt = impl._get_indexes(np.empty(0, s.dtype), virtual, n)
        gamma = impl._get_gamma(virtual, prev, props)
        for p, x, g in zip(prev.ravel(), nxt.ravel(), gamma.ravel()):
            weight = float(g) if weak else np.float64(g)
            picks.append(_lerp(s[int(p)], s[int(x)], weight, bool(g >= 0.5)))
    result = picks[0] if q.ndim == 0 else reshape_to(np.stack(picks), [*q.shape, *shape_of(picks[0])])
    return _nan_last(s, result)


def _static_q(q: Any, name: str) -> np.ndarray:
    """``q``'s values: a constant, or a tensor that holds one (``np.array([10.0, 90.0])`` inside
    the function); a ``q`` computed from the arguments is refused."""
    if is_traced(q):
        t = as_tensor(q)
        owner = t.value.owner
        if t.shape_source is None and isinstance(owner, graph.ConstantOp):
            return np.array(list(owner.value.get_values()), dtype=t.dtype).reshape(shape_of(t))
        raise unsupported(f"np.{name} with q computed inside the function (pass q as a constant)")
    return np.asanyarray(q)


def fractions_of(q: Any, scale: float, name: str) -> tuple[np.ndarray, bool]:
    """``q`` as static fractions in [0, 1] (a percentile divided by 100, as NumPy), and whether
    it is weak (a Python number: NumPy keeps the values' dtype then)."""
    fractions = _static_q(q, name)
    fractions = np.true_divide(fractions, scale) if scale != 1 else fractions
    if fractions.size and not (fractions.min() >= 0 and fractions.max() <= 1):
        raise ValueError("Percentiles must be in the range [0, 100]" if scale != 1 else "Quantiles must be in the range [0, 1]")
    return fractions, type(q) in (int, float)


def _quantile_like(name: str, scale: float) -> Callable[..., Tensor]:
    def impl(
        a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, method: str = "linear",
        keepdims: bool = False, *, weights: Any = None, interpolation: Any = None,
    ) -> Tensor:
        reject(name, out=out, weights=weights, interpolation=interpolation)
        fractions, weak = fractions_of(q, scale, name)
        s, shape, axes = _reduced_first(a, axis, name)
        return _keep(_quantiles(s, fractions, weak, method, name), shape, axes, fractions.ndim, keepdims)

    impl.__name__ = name
    impl.__doc__ = f"``np.{name}``: order statistics of the sorted values at NumPy's positions, interpolated as NumPy does."
    return impl


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.median: median,
    np.quantile: _quantile_like("quantile", 1),
    np.percentile: _quantile_like("percentile", 100),
}
