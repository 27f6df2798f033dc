"""NumPy's elementwise math beyond arithmetic, on traced tensors.

Trigonometry, logarithms, rounding, shifts and NaN tests are ufuncs:
:data:`UFUNCS` maps each to a builder that :mod:`kiln.frontend.numpy_dispatch`
calls after NumPy resolved the loop (so dtypes are NumPy's exactly) and the
operands were cast and broadcast to it; most build one ``graph`` op.
:data:`COMPOSITE_UFUNCS` are ufuncs NumPy defines as others (``divmod``), and
:data:`FUNCTIONS` the NumPy functions written in ufuncs (``np.round``,
``np.nan_to_num``, ``np.isclose``, ``np.allclose``): they call NumPy's ufuncs
on the tensors, which come back through dispatch, so they compute what NumPy
computes, in NumPy's order.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.irdl import IRDLOperation

from kiln.dialects import graph
from kiln.frontend import array_ops, trace_context
from kiln.frontend.tensor import Tensor, as_tensor, cast, constant, emit, python_number

Builder = Callable[..., Tensor]


def _op(op: type[IRDLOperation], identity_kinds: str = "") -> Builder:
    """One graph op on the operands; the identity on dtype kinds where NumPy's loop is
    (``trunc`` of integers and bools keeps them)."""

    def build(*operands: Tensor) -> Tensor:
        if operands[0].dtype.kind in identity_kinds:
            return operands[0]
        return emit(op(*(t.value for t in operands)))  # type: ignore[call-arg]

    return build


def _full_like(t: Tensor, value: Any) -> Tensor:
    """``value`` in ``t``'s dtype, broadcast to ``t``'s (static or dynamic) shape."""
    scalar = constant(np.asarray(value, dtype=t.dtype))
    shape = graph.shape_of(t.value)
    return Tensor(scalar.value) if not shape else emit(graph.BroadcastOp(scalar.value, shape))


def _scaled(numerator: float, denominator: float) -> Builder:
    """``x * (numerator / denominator)`` with the quotient computed in x's dtype, as NumPy's
    ``deg2rad`` (``x * (pi/180)``) and ``rad2deg`` (``x * (180/pi)``) loops do."""

    def build(x: Tensor) -> Tensor:
        if x.dtype == np.float16:  # NumPy's half loop: in float32, rounded to float16 once
            return cast(build(cast(x, np.dtype(np.float32))), x.dtype)
        factor = np.asarray(numerator, x.dtype) / np.asarray(denominator, x.dtype)
        return emit(graph.MulOp(x.value, _full_like(x, factor).value))

    return build


UFUNCS: dict[np.ufunc, Builder] = {
    np.tan: _op(graph.TanOp),
    np.arcsin: _op(graph.ArcsinOp),
    np.arccos: _op(graph.ArccosOp),
    np.arctan: _op(graph.ArctanOp),
    np.sinh: _op(graph.SinhOp),
    np.cosh: _op(graph.CoshOp),
    np.arcsinh: _op(graph.ArcsinhOp),
    np.arccosh: _op(graph.ArccoshOp),
    np.arctanh: _op(graph.ArctanhOp),
    np.log1p: _op(graph.Log1pOp),
    np.expm1: _op(graph.Expm1Op),
    np.log2: _op(graph.Log2Op),
    np.log10: _op(graph.Log10Op),
    np.exp2: _op(graph.Exp2Op),
    np.cbrt: _op(graph.CbrtOp),
    np.rint: _op(graph.RintOp),
    np.trunc: _op(graph.TruncOp, "bi"),
    np.fabs: _op(graph.AbsOp),
    np.sign: _op(graph.SignOp),
    np.reciprocal: _op(graph.ReciprocalOp),
    np.deg2rad: _scaled(np.pi, 180),
    np.radians: _scaled(np.pi, 180),
    np.rad2deg: _scaled(180, np.pi),
    np.degrees: _scaled(180, np.pi),
    np.arctan2: _op(graph.Arctan2Op),
    np.hypot: _op(graph.HypotOp),
    np.copysign: _op(graph.CopysignOp),
    np.logaddexp: _op(graph.LogaddexpOp),
    np.logaddexp2: _op(graph.Logaddexp2Op),
    np.fmod: _op(graph.FmodOp),
    np.fmax: _op(graph.FmaxOp),
    np.fmin: _op(graph.FminOp),
    np.float_power: _op(graph.PowOp),
    np.left_shift: _op(graph.LeftShiftOp),
    np.right_shift: _op(graph.RightShiftOp),
    np.isnan: _op(graph.IsnanOp),
    np.isinf: _op(graph.IsinfOp),
    np.isfinite: _op(graph.IsfiniteOp),
    np.signbit: _op(graph.SignbitOp),
}

COMPOSITE_UFUNCS: dict[np.ufunc, Callable[..., Any]] = {
    # NumPy's divmod loops are floor_divide's and remainder's, and give their values exactly
    np.divmod: lambda a, b: (np.floor_divide(a, b), np.remainder(a, b)),
    np.heaviside: lambda a, b: _heaviside(a, b),
}


def _heaviside(x: Any, h0: Any) -> Tensor:
    """NumPy's loop: NaN stays NaN, 0 gives ``h0``, otherwise 0 or 1, in the loop's float dtype
    (the add's promotion, float64 for integers)."""
    dt = np.add(x, h0).dtype
    dt = dt if dt.kind == "f" else np.dtype(np.float64)
    xs, hs = as_tensor(x), as_tensor(h0)
    xs = xs if xs.dtype == dt else cast(xs, dt)
    hs = hs if hs.dtype == dt else cast(hs, dt)
    steps = np.where(xs < 0, dt.type(0), dt.type(1))
    return np.where(np.isnan(xs), xs, np.where(xs == 0, hs, steps))


# ---------------------------------------------------------------------- functions


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(f"{trace_context.here()}: {what} is not supported inside kiln.function")


def _power_of_ten(n: int) -> float:
    """10.0**n as NumPy's ``round`` builds it: products of 10.0 in double (exact up to 1e22)."""
    p = 1.0
    for _ in range(min(n, 400)):  # inf from 10**309 on
        p *= 10.0
    return p


def round_(a: Any, decimals: Any = 0, out: Any = None) -> Tensor:
    """``np.round``/``np.around``/``x.round``: ``rint`` for ``decimals=0``; otherwise floats scale
    by 10**decimals, round half to even and scale back in their own dtype; integers are unchanged
    for ``decimals >= 0`` and otherwise rounded through float64 and cast back, as NumPy does."""
    if out is not None:
        raise _unsupported("np.round(..., out=) (traced tensors are immutable: use the result)")
    try:
        n = operator.index(decimals)
    except TypeError:
        raise TypeError(f"{trace_context.here()}: np.round: decimals must be a Python int, got {decimals!r}") from None
    t = as_tensor(a)
    if t.dtype == np.bool_ and n != 0:  # decimals=0 is rint, whose bool loop is float16's
        raise TypeError(f"{trace_context.here()}: np.round of a bool array with decimals != 0: "
                        "NumPy cannot cast the scaled values back to bool")
    if t.dtype.kind in "iu":
        if n >= 0:
            return t
        factor = _power_of_ten(-n)
        return cast(np.multiply(np.rint(np.true_divide(t, factor)), factor), t.dtype)
    if n == 0:
        return np.rint(t)
    factor = _power_of_ten(abs(n))
    if n > 0:
        return np.true_divide(np.rint(np.multiply(t, factor)), factor)
    return np.multiply(np.rint(np.true_divide(t, factor)), factor)


def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
    """NaN -> ``nan``, +inf -> ``posinf`` (default: the dtype's largest), -inf -> ``neginf``
    (default: its most negative), in the real and imaginary parts of complex numbers; integers and
    bools are unchanged. A new array, or with ``copy=False`` ``x`` itself, written in place."""
    t = as_tensor(x)
    if t.dtype.kind == "c":
        parts = [nan_to_num(np.real(t), True, nan, posinf, neginf), nan_to_num(np.imag(t), True, nan, posinf, neginf)]
        result = emit(graph.ComplexOp(parts[0].value, parts[1].value))
    elif t.dtype.kind == "f":
        info = np.finfo(t.dtype)
        big = info.max if posinf is None else posinf
        small = info.min if neginf is None else neginf

        def replace(mask: Tensor, value: Any, rest: Tensor) -> Tensor:
            return np.where(mask, np.asarray(value, dtype=t.dtype), rest)

        result = replace(np.isnan(t), nan, t)
        result = replace(np.equal(t, np.inf), big, result)
        result = replace(np.equal(t, -np.inf), small, result)
    else:
        result = t
    if not copy and t.ndim and not t.immutable:
        if result is not t:
            t[...] = result
        return t
    return t.copy("K") if result is t else result


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Tensor:
    """``|a - b| <= atol + rtol * |b|`` for finite ``b``, or ``a == b``; ``b`` is made inexact
    first (so ``abs`` of the minimum integer cannot wrap), as NumPy does."""
    if isinstance(equal_nan, Tensor):
        raise _unsupported("np.isclose(..., equal_nan=<traced tensor>)")
    x, y, atol, rtol = (v if isinstance(v, (int, float)) else as_tensor(v) for v in (a, b, atol, rtol))
    if isinstance(y, Tensor):
        y = cast(y, np.result_type(y.dtype, 1.0))
    elif isinstance(y, int):
        y = float(y)
    # Python operators, so that Python scalars stay Python (weak) values, as in NumPy's own
    # definition; on tensors each is the ufunc
    result = (abs(x - y) <= atol + rtol * abs(y)) & np.isfinite(y) | (x == y)
    if equal_nan:
        result = result | (np.isnan(x) & np.isnan(y))
    return as_tensor(result)


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Tensor:
    """Whether every element is ``isclose``: a 0-d bool tensor standing for the Python bool NumPy
    returns (returned as one); True for empty operands."""
    far = np.logical_not(isclose(a, b, rtol, atol, equal_nan))
    return python_number(np.equal(array_ops.reduce("sum", far, None, False), 0))


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.round: round_,
    np.around: round_,
    np.nan_to_num: nan_to_num,
    np.isclose: isclose,
    np.allclose: allclose,
}
