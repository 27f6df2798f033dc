"""NumPy's numerical-calculus helpers on traced tensors: ``trapezoid``, ``gradient``, ``interp``,
``cross``, ``correlate``, ``polyval``, ``vander``, ``sinc`` and ``digitize``.

Each is NumPy's own formula written with the NumPy functions kiln already traces (slices,
``searchsorted``, ``convolve``, ``cumprod``), step for step and in NumPy's dtypes, so the
values are NumPy's. Sizes must be known at trace time where a formula slices by them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend import array_ops, dtypes, runtime_checks
from kiln.frontend.numpy_shape import ranked, reject, static_shape, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, reshape_to, shape_of
from kiln.frontend.tensor import is_traced



def _along(t: Tensor, axis: int, index: slice | int) -> Any:
    return t[(slice(None),) * axis + (index,)]


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Tensor:
    """``sum(d * (y[1:] + y[:-1]) / 2.0)`` along ``axis``, ``d`` the spacing or ``np.diff(x)``."""
    t = ranked(y, "np.trapezoid")
    ax = array_ops.normalize_axis(axis, t.ndim)
    if x is None:
        d: Any = dx
    else:
        xs = as_tensor(x) if is_traced(x) else np.asanyarray(x)
        d = np.diff(xs, axis=ax if xs.ndim > 1 else -1)
        if xs.ndim == 1:
            d = reshape_to(d, [shape_of(d)[0] if i == ax else 1 for i in range(t.ndim)]) if is_traced(d) else d.reshape(
                [d.shape[0] if i == ax else 1 for i in range(t.ndim)]
            )
    return np.sum(d * (_along(t, ax, slice(1, None)) + _along(t, ax, slice(None, -1))) / 2.0, axis=ax)


def _gradient_axis(f: Tensor, ax: int, dx: Any, edge_order: int) -> Tensor:
    n = static_shape(f, "np.gradient")[ax]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are required.")
    inner = (_along(f, ax, slice(2, None)) - _along(f, ax, slice(None, -2))) / (2.0 * dx)
    if edge_order == 1:
        first = (_along(f, ax, slice(1, 2)) - _along(f, ax, slice(0, 1))) / dx
        last = (_along(f, ax, slice(-1, None)) - _along(f, ax, slice(-2, -1))) / dx
    else:
        first = (-1.5 / dx) * _along(f, ax, slice(0, 1)) + (2.0 / dx) * _along(f, ax, slice(1, 2)) + (-0.5 / dx) * _along(f, ax, slice(2, 3))
        last = (0.5 / dx) * _along(f, ax, slice(-3, -2)) + (-2.0 / dx) * _along(f, ax, slice(-2, -1)) + (1.5 / dx) * _along(f, ax, slice(-1, None))
    return np.concatenate([first, inner, last], axis=ax)


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """Central differences inside, one-sided (``edge_order`` 1 or 2) at the ends, for uniform
    spacings given as Python numbers (coordinate arrays are refused)."""
    t = ranked(f, "np.gradient")
    axes = tuple(range(t.ndim)) if axis is None else array_ops.normalize_axes(axis, t.ndim)
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    if len(varargs) == 0:
        spacing: list[Any] = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if any(is_traced(d) or np.ndim(d) != 0 for d in spacing):
        raise unsupported("np.gradient with coordinate arrays or traced spacings (give the spacing as a number)")
    if t.dtype.kind in "biu":
        t = cast(t, np.dtype(np.float64))
    results = [_gradient_axis(t, ax, d, edge_order) for ax, d in zip(axes, spacing)]
    return results[0] if len(results) == 1 else tuple(results)


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Tensor:
    """NumPy's ``interp`` (in float64): the segment by a binary search, the slope's value from
    the left end, from the right end where that is NaN, and ``fp`` outside or at the last point."""
    reject("interp", period=period)
    f64 = np.dtype(np.float64)
    xs, ps, fs = (cast(as_tensor(v), f64) for v in (x, xp, fp))
    if ps.ndim != 1 or fs.ndim != 1:
        raise ValueError("object too deep for desired array" if ps.ndim > 1 else "object of too small depth for desired array")
    m = static_shape(ps, "np.interp")[0]
    if m != static_shape(fs, "np.interp")[0]:
        raise ValueError("fp and xp are not of the same length.")
    if m == 0:
        raise ValueError("array of sample points is empty")
    lo = fs[0] if left is None else left
    hi = fs[m - 1] if right is None else right
    if m == 1:
        inside: Tensor = np.broadcast_to(fs[0], shape_of(xs))
    else:
        j = np.clip(np.searchsorted(ps, xs, side="right") - 1, 0, m - 2)
        x0, x1, y0, y1 = ps[j], ps[j + 1], fs[j], fs[j + 1]
        slope = (y1 - y0) / (x1 - x0)
        inside = slope * (xs - x0) + y0
        inside = np.where(np.isnan(inside), slope * (xs - x1) + y1, inside)
        inside = np.where(np.isnan(inside) & (y0 == y1), y0, inside)
        inside = np.where(xs == ps[m - 1], fs[m - 1], inside)
    return np.where(xs < ps[0], lo, np.where(xs > ps[m - 1], hi, inside))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None) -> Tensor:
    """Cross products of 3-vectors (and the scalar one of 2-vectors) along the last axis."""
    if axis is not None:
        axisa = axisb = axisc = axis
    u = np.moveaxis(ranked(a, "np.cross"), axisa, -1)
    v = np.moveaxis(ranked(b, "np.cross"), axisb, -1)
    n, k = shape_of(u)[-1], shape_of(v)[-1]
    if n not in (2, 3) or k not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if n != k:
        raise unsupported("np.cross of a 2-vector and a 3-vector (deprecated by NumPy)")
    u0, u1, v0, v1 = u[..., 0], u[..., 1], v[..., 0], v[..., 1]
    if n == 2:
        return u0 * v1 - u1 * v0
    u2, v2 = u[..., 2], v[..., 2]
    c = np.stack([u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0], axis=-1)
    return np.moveaxis(c, -1, axisc)


def correlate(a: Any, v: Any, mode: str = "valid") -> Tensor:
    """``convolve`` with ``v`` reversed (and conjugated), which is NumPy's own definition."""
    u, w = ranked(a, "np.correlate"), ranked(v, "np.correlate")
    if u.ndim != 1 or w.ndim != 1:
        raise ValueError("object too deep for desired array")
    w = np.conj(w) if w.dtype.kind == "c" else w
    if static_shape(u, "np.correlate")[0] < static_shape(w, "np.correlate")[0]:
        return np.convolve(w, u[::-1], mode=mode)[::-1]
    return np.convolve(u, w[::-1], mode=mode)


def polyval(p: Any, x: Any) -> Any:
    """Horner's rule from ``zeros_like(x)``, as NumPy (each coefficient a NumPy scalar)."""
    coefficients = ranked(p, "np.polyval") if is_traced(p) else np.asarray(p)
    if coefficients.ndim != 1:
        raise unsupported("np.polyval with coefficients that are not a 1-D sequence")
    xs = as_tensor(x)
    y: Any = np.zeros_like(xs)
    for i in range(static_shape(coefficients, "np.polyval")[0] if is_traced(coefficients) else len(coefficients)):
        y = y * xs + coefficients[i]
    return y


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Tensor:
    """Columns of powers ``x**0 .. x**(N-1)`` by a running product, in ``promote_types(x, int)``."""
    t = ranked(x, "np.vander")
    if t.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = static_shape(t, "np.vander")[0]
    cols = n if N is None else int(N)
    dt = dtypes.result_type(t.dtype, np.dtype(np.int64)) if t.dtype.kind != "b" else np.dtype(np.int64)
    t = cast(t, dt)
    parts = [np.ones((n, min(cols, 1)), dt)]
    if cols > 1:
        parts.append(np.cumprod(np.broadcast_to(reshape_to(t, [n, 1]), (n, cols - 1)), axis=1))
    v = np.concatenate(parts, axis=1)
    return v if increasing else v[:, ::-1]


def sinc(x: Any) -> Tensor:
    """``sin(y) / y`` for ``y = pi * x``, with 1e-20 for 0 as NumPy."""
    t = as_tensor(x)
    y = np.pi * np.where(t == 0, 1.0e-20, t)
    return np.sin(y) / y


def digitize(x: Any, bins: Any, right: bool = False) -> Tensor:
    """``searchsorted`` in increasing bins, counted from the end in decreasing ones; NumPy's
    ValueError for bins neither (checked when the call runs if the bins are traced)."""
    side = "left" if right else "right"
    xs = as_tensor(x)
    if not is_traced(bins):
        edges = np.asarray(bins)
        if edges.ndim != 1:
            raise ValueError("object too deep for desired array" if edges.ndim > 1 else "object of too small depth for desired array")
        d = np.diff(edges)
        if np.all(d >= 0):
            return np.searchsorted(edges, xs, side=side)
        if np.all(d <= 0):
            return len(edges) - np.searchsorted(edges[::-1], xs, side=side)
        raise ValueError("bins must be monotonically increasing or decreasing")
    b = ranked(bins, "np.digitize")
    if b.ndim != 1:
        raise ValueError("object too deep for desired array")
    n = static_shape(b, "np.digitize")[0]
    d = np.diff(b)
    up, down = np.all(d >= 0), np.all(d <= 0)
    runtime_checks.require(up | down, "bins must be monotonically increasing or decreasing")
    return np.where(up, np.searchsorted(b, xs, side=side), n - np.searchsorted(b[::-1], xs, side=side))


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    **({np.trapezoid: trapezoid} if hasattr(np, "trapezoid") else {}),  # (NumPy 2; np.trapz before)
    **({np.trapz: trapezoid} if hasattr(np, "trapz") else {}),
    np.gradient: gradient,
    np.interp: interp,
    np.cross: cross,
    np.correlate: correlate,
    np.polyval: polyval,
    np.vander: vander,
    np.sinc: sinc,
    np.digitize: digitize,
}
