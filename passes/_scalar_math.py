"""NumPy's elementwise math beyond arithmetic, spelled in ``arith``, ``math`` and ``kmath`` ops.

The bodies of the ``linalg.generic`` ops that kiln.dialects.graph's elementwise-math ops
lower to (convert-graph-to-linalg). Functions libm has are one ``math``/``kmath`` op, so
the C backend calls libm (``tanf`` on f32, as NumPy's float32 loops do) and CUDA its device
functions. Where NumPy's answer is not one C function (integer ``fmod`` by 0, shift counts
past the width, ``sign`` of NaN, ``logaddexp`` of infinities) the body computes it
explicitly with selects, so the emitted code has no undefined behaviour.

:data:`BINARY` and :data:`UNARY` extend kiln.passes._scalar's tables of the same names.
"""

from __future__ import annotations

import math as pymath

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IntegerType, i1
from xdsl.ir import Operation, SSAValue

from kiln.dialects.kmath import FModOp, HypotOp
from kiln.passes import _scalar
from kiln.passes._scalar import Binary, ScalarBuilder, Unary, is_float, is_unsigned


def _math(op: type[Operation]) -> Unary:
    return lambda b, x: b.value(op(x))


def _float_binary(op: type[Operation]) -> Binary:
    return lambda b, x, y: b.value(op(x, y))


def _width(t: object) -> int:
    assert isinstance(t, IntegerType)
    return t.width.data


def _sign(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    """-1, 0 or 1; floats: both zeros give +0.0 and NaN stays NaN (NumPy's ``sign``)."""
    t = x.type
    if is_float(t):
        zero = b.const(0.0, t)
        rest = b.select(b.cmpf(x, x, "uno"), x, zero)
        rest = b.select(b.cmpf(x, zero, "ogt"), b.const(1.0, t), rest)
        return b.select(b.cmpf(x, zero, "olt"), b.const(-1.0, t), rest)
    zero = b.const(0, t)
    if is_unsigned(t):
        return b.value(arith.ExtUIOp(b.cmpi(x, zero, "ne"), t))
    pos = b.value(arith.ExtUIOp(b.cmpi(x, zero, "sgt"), t))
    neg = b.value(arith.ExtUIOp(b.cmpi(x, zero, "slt"), t))
    return b.value(arith.SubiOp(pos, neg))


def _reciprocal(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    """1/x. NumPy's integer loop converts the double 1.0/x to the integer type: 1 and -1 stay,
    every other nonzero x gives 0, and 0 (1/0 = inf, converted by x86-64's cvttsd2si) gives the
    32- or 64-bit minimum, which narrower types truncate to 0."""
    t = x.type
    if is_float(t):
        return b.value(arith.DivfOp(b.const(1.0, t), x))
    width = _width(t)
    zero = b.const(0, t)
    one = b.const(1, t)
    if is_unsigned(t):  # NumPy: 1 for 1, 0 for everything else (0 included)
        return b.select(b.cmpi(x, one, "eq"), one, zero)
    at_zero = b.const(-(2 ** (width - 1)), t) if width >= 32 else zero
    r = b.select(b.cmpi(x, zero, "eq"), at_zero, zero)
    minus_one = b.const(-1, t)
    r = b.select(b.cmpi(x, minus_one, "eq"), minus_one, r)
    one = b.const(1, t)
    return b.select(b.cmpi(x, one, "eq"), one, r)


def _isnan(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    return b.cmpf(x, x, "uno") if is_float(x.type) else b.const(False, i1)


def _isinf(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    if not is_float(x.type):
        return b.const(False, i1)
    return b.cmpf(b.value(math.AbsFOp(x)), b.const(pymath.inf, x.type), "oeq")


def _isfinite(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    if not is_float(x.type):
        return b.const(True, i1)
    return b.cmpf(b.value(math.AbsFOp(x)), b.const(pymath.inf, x.type), "olt")


def _signbit(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    """copysign(1, x) < 0: the sign bit itself, of zeros and NaNs too, with no bit casts."""
    t = x.type
    return b.cmpf(b.value(math.CopySignOp(b.const(1.0, t), x)), b.const(0.0, t), "olt")


def _fmod(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """C's remainder (the dividend's sign). Integers: ``x fmod 0`` is 0 as in NumPy, and the
    divisor -1 (whose remainder is always 0) is not divided by, so MIN fmod -1 cannot trap."""
    t = x.type
    if is_float(t):
        return b.value(FModOp(x, y))
    zero = b.const(0, t)
    if is_unsigned(t):
        trivial = b.cmpi(y, zero, "eq")
        return b.select(trivial, zero, b.value(arith.RemUIOp(x, b.select(trivial, b.const(1, t), y))))
    trivial = b.value(arith.OrIOp(b.cmpi(y, zero, "eq"), b.cmpi(y, b.const(-1, t), "eq")))
    r = b.value(arith.RemSIOp(x, b.select(trivial, b.const(1, t), y)))
    return b.select(trivial, zero, r)


def _nan_ignoring(fop: type[Operation], iop: type[Operation], bop: type[Operation]) -> Binary:
    """``fmax``/``fmin``: C's fmax/fmin on floats (a NaN operand is ignored); like maximum on the rest."""

    def build(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        if is_float(x.type):
            return b.value(fop(x, y))
        if is_unsigned(x.type):
            return b.value((arith.MaxUIOp if iop is arith.MaxSIOp else arith.MinUIOp)(x, y))
        return b.value((bop if x.type == i1 else iop)(x, y))

    return build


def _left_shift(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """x << y; a count outside [0, width) (negative counts read as huge unsigned ones) gives 0.
    The shift itself always gets an in-range count: C leaves larger ones undefined."""
    t = x.type
    last = b.const(_width(t) - 1, t)
    shifted = b.value(arith.ShLIOp(x, b.value(arith.MinUIOp(y, last))))
    return b.select(b.cmpi(y, last, "ule"), shifted, b.const(0, t))


def _right_shift(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """Arithmetic x >> y; a count outside [0, width) gives x >> (width - 1): 0, or -1 for x < 0.
    Unsigned x: a logical shift, and 0 for a count outside [0, width)."""
    last = b.const(_width(x.type) - 1, x.type)
    if is_unsigned(x.type):
        shifted = b.value(arith.ShRUIOp(x, b.value(arith.MinUIOp(y, last))))
        return b.select(b.cmpi(y, last, "ule"), shifted, b.const(0, x.type))
    return b.value(arith.ShRSIOp(x, b.value(arith.MinUIOp(y, last))))


#: ln 2 and log2 e, correctly rounded (the constants C's math.h and NumPy spell out)
_LN2 = 0.693147180559945309417232121458176568
_LOG2_E = 1.442695040888963407359924681001892137


def _logaddexp_by(exp: type[Operation], log_scale: float, equal_add: float) -> Binary:
    """log_b(b**x + b**y) as max(x, y) + log_b(1 + b**-|x - y|); x == y gives x + log_b(2),
    which also covers infinities of one sign (whose difference is NaN). A NaN operand makes
    the difference, and so the sum, NaN."""

    def build(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        t = x.type
        assert isinstance(t, AnyFloat)
        d = b.value(arith.SubfOp(x, y))
        tail = b.value(math.Log1pOp(b.value(exp(b.value(arith.NegfOp(b.value(math.AbsFOp(d))))))))
        if log_scale != 1.0:
            tail = b.value(arith.MulfOp(b.const(log_scale, t), tail))
        r = b.value(arith.AddfOp(b.select(b.cmpf(d, b.const(0.0, t), "ogt"), x, y), tail))
        return b.select(b.cmpf(x, y, "oeq"), b.value(arith.AddfOp(x, b.const(equal_add, t))), r)

    return build


BINARY: dict[str, Binary] = {
    **_scalar.BINARY,
    "graph.arctan2": _float_binary(math.Atan2Op),
    "graph.hypot": _float_binary(HypotOp),
    "graph.copysign": _float_binary(math.CopySignOp),
    "graph.logaddexp": _logaddexp_by(math.ExpOp, 1.0, _LN2),
    "graph.logaddexp2": _logaddexp_by(math.Exp2Op, _LOG2_E, 1.0),
    "graph.fmod": _fmod,
    "graph.fmax": _nan_ignoring(arith.MaxnumfOp, arith.MaxSIOp, arith.OrIOp),
    "graph.fmin": _nan_ignoring(arith.MinnumfOp, arith.MinSIOp, arith.AndIOp),
    "graph.left_shift": _left_shift,
    "graph.right_shift": _right_shift,
}

UNARY: dict[str, Unary] = {
    **_scalar.UNARY,
    "graph.tan": _math(math.TanOp),
    "graph.arcsin": _math(math.AsinOp),
    "graph.arccos": _math(math.AcosOp),
    "graph.arctan": _math(math.AtanOp),
    "graph.sinh": _math(math.SinhOp),
    "graph.cosh": _math(math.CoshOp),
    "graph.arcsinh": _math(math.AsinhOp),
    "graph.arccosh": _math(math.AcoshOp),
    "graph.arctanh": _math(math.AtanhOp),
    "graph.log1p": _math(math.Log1pOp),
    "graph.expm1": _math(math.ExpM1Op),
    "graph.log2": _math(math.Log2Op),
    "graph.log10": _math(math.Log10Op),
    "graph.exp2": _math(math.Exp2Op),
    "graph.cbrt": _math(math.CbrtOp),
    "graph.rint": _math(math.RoundEvenOp),
    "graph.trunc": _math(math.TruncOp),
    "graph.sign": _sign,
    "graph.reciprocal": _reciprocal,
    "graph.isnan": _isnan,
    "graph.isinf": _isinf,
    "graph.isfinite": _isfinite,
    "graph.signbit": _signbit,
}

# builder() (float16 in f32, complex parts) and the lowering read the shared tables
_scalar.BINARY.update(BINARY)
_scalar.UNARY.update(UNARY)
