"""``kiln-expand-half-powers``: ``x ** c`` for a constant half-integer c becomes sqrt, products and fmas.

``r ** -1.5`` (gravity, Coulomb), ``x ** 1.5``, ``x ** -0.5``: libm's ``pow`` is a call per
element that no loop around it can vectorize, and it was three quarters of NPBench's nbody
(2,500 calls a step). Numba's ``fastmath`` rewrites it as ``sqrt(x) / (x * x)``, which rounds up to
three times per element. Here the power is computed in double-double and rounded once, so
it is within a hair of 0.5 ulp (libm's pow: 0.52 ulp) and is libm's result for almost every
input, and it is only ops ``kiln-vectorize`` can put on vectors.

Expects: the loop level, before ``kiln-vectorize``. Produces: each scalar f64 ``math.powf``
whose exponent is an ``arith.constant`` c = n/2 with n odd and |n| <= 5 replaced by:

* scaling: x above 2^400 is multiplied by 2^-624, x below 2^-400 by 2^800 (exact), which puts
  every positive finite x, subnormals included, in [2^-274, 2^400], where x^|c| and x^-|c|
  stay within [2^-1000, 2^1000] and no step under- or overflows;
* s = sqrt(x), its error e = fma(-s, s, x) (exact) gives sqrt(x) = s + e/(2s) in
  double-double; (|n|-1)/2 products by x, each with its error from an fma, give x^(|n|/2) as
  hi + lo; for c > 0 the result is hi + lo rounded, for c < 0 q = 1/hi corrected by one
  Newton step on hi + lo: fma(q, fma(-q, hi, 1) - q*lo, q);
* the scale's power of two applied back as two equal factors (exact unless the result
  under- or overflows, where it rounds like libm's but for a result in the subnormals, which
  may round twice);
* libm's special cases by selects: x = +-0 gives 0 (c > 0) or inf, x = +-inf gives inf or 0,
  x < 0 and NaN give NaN.

c = 1/2 is ``math.sqrt``: NumPy's power takes that exponent to its sqrt (-0 for -0, NaN for -inf,
where C's pow gives +0 and inf).

f32 powers and other exponents are left to libm.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float64Type, FloatAttr, ModuleOp
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from kiln.passes._scalar import ScalarBuilder

#: the largest |2c| expanded: x^(5/2) of x in [2^-400, 2^400] stays in [2^-1000, 2^1000]
MAX_TWICE_EXPONENT = 5
#: x outside [2^-_EDGE, 2^_EDGE] is scaled into [2^-274, 2^400] first
_EDGE = 400
#: x = x' * 2^(2 * J): J for large x (x' = x * 2^-624) and for small x (x' = x * 2^800)
_J_LARGE, _J_SMALL = 312, -400


def half_power(op: math.PowFOp) -> int | None:
    """n when ``op`` is a scalar f64 ``x ** (n/2)`` with a constant odd n, |n| <= MAX_TWICE_EXPONENT."""
    owner = op.rhs.owner
    if not isinstance(op.result.type, Float64Type) or not isinstance(owner, arith.ConstantOp):
        return None
    value = owner.value
    if not isinstance(value, FloatAttr):
        return None
    twice = 2 * value.value.data
    if twice != int(twice) or int(twice) % 2 == 0 or abs(twice) > MAX_TWICE_EXPONENT:
        return None
    return int(twice)


def _two_to(b: ScalarBuilder, k: int, t: Attribute) -> SSAValue:
    return b.const(2.0**k, t)


def _mul(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.value(arith.MulfOp(x, y))


def _add(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.value(arith.AddfOp(x, y))


def _fma(b: ScalarBuilder, x: SSAValue, y: SSAValue, z: SSAValue) -> SSAValue:
    return b.value(math.FmaOp(x, y, z))


def _neg(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    return b.value(arith.NegfOp(x))


def _by_range(b: ScalarBuilder, large: SSAValue, small: SSAValue, x: SSAValue, k_large: int, k_small: int) -> SSAValue:
    """2^k_large where ``large``, 2^k_small where ``small``, else 1."""
    one = b.const(1.0, x.type)
    return b.select(large, _two_to(b, k_large, x.type), b.select(small, _two_to(b, k_small, x.type), one))


def expand(b: ScalarBuilder, x: SSAValue, n: int) -> SSAValue:
    """``x ** (n/2)`` as the module docstring says, built at ``b``."""
    if n == 1:  # NumPy's power by 0.5 is its sqrt: -0 for -0, NaN for -inf
        return b.value(math.SqrtOp(x))
    t = x.type
    large = b.cmpf(x, _two_to(b, _EDGE, t), "ogt")
    small = b.cmpf(x, _two_to(b, -_EDGE, t), "olt")
    scaled = _mul(b, x, _by_range(b, large, small, x, -2 * _J_LARGE, -2 * _J_SMALL))
    hi = b.value(math.SqrtOp(scaled))
    error = _fma(b, _neg(b, hi), hi, scaled)
    lo = b.value(arith.DivfOp(_mul(b, error, b.const(0.5, t)), hi))
    for _ in range(abs(n) // 2):
        product = _mul(b, hi, scaled)
        lo = _add(b, _fma(b, hi, scaled, _neg(b, product)), _mul(b, lo, scaled))
        hi = product
    if n > 0:
        power = _add(b, hi, lo)
    else:
        one = b.const(1.0, t)
        q = b.value(arith.DivfOp(one, hi))
        residual = b.value(arith.SubfOp(_fma(b, _neg(b, q), hi, one), _mul(b, q, lo)))
        power = _fma(b, q, residual, q)
    # x = x' * 2^(2J): x^(n/2) = x'^(n/2) * 2^(nJ), applied as two factors 2^(nJ/2)
    half = _by_range(b, large, small, x, n * _J_LARGE // 2, n * _J_SMALL // 2)
    power = _mul(b, _mul(b, power, half), half)
    zero, inf, nan = (b.const(v, t) for v in (0.0, float("inf"), float("nan")))
    finite_positive = b.value(arith.AndIOp(b.cmpf(x, zero, "ogt"), b.cmpf(x, inf, "olt")))
    at_zero, at_inf = (zero, inf) if n > 0 else (inf, zero)
    infinite = b.cmpf(b.value(math.AbsFOp(x)), inf, "oeq")
    special = b.select(infinite, at_inf, b.select(b.cmpf(x, zero, "oeq"), at_zero, nan))
    return b.select(finite_positive, power, special)


@dataclass(frozen=True)
class KilnExpandHalfPowers(ModulePass):
    """Replace f64 math.powf by a constant half-integer with sqrt, products and fmas."""

    name = "kiln-expand-half-powers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        found: list[tuple[math.PowFOp, int]] = []
        for inner in op.walk():
            if isinstance(inner, math.PowFOp) and (n := half_power(inner)) is not None:
                found.append((inner, n))
        for pow_op, n in found:
            b = ScalarBuilder(pow_op, pow_op.location)
            Rewriter.replace_op(pow_op, [], [expand(b, pow_op.lhs, n)])
