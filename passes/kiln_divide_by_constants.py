"""``kiln-divide-by-constants``: ``x / c`` for a constant c becomes a product and an fma, rounded
as the division is, for the divisors where that is proven for every x.

A division in a loop-carried chain costs its latency per element (seidel_2d's
``A[i, j] = (A[i, j] + A[i, j-1]) / 9``: add + divide, 16 cycles, where Numba's ``fastmath``
multiplies by 1/9 and rounds differently from NumPy). Brisebarre, Muller and Raina ("Accelerating
correctly rounded floating-point division when the divisor is known in advance", IEEE Trans.
Computers 53(8), 2004) compute ``RN(x/y)`` as ``RN(x*zh + RN(x*zl))``, one product and one fma,
where ``zh = RN(1/y)``, ``zl = RN(1/y - zh)``, and give a test on y that proves it correctly rounded
for every x (docs/vector-math.md has the proof as implemented here). :func:`reciprocal_pair` is
that test, in exact rational arithmetic.

The proof holds while x*zl and x/y are normal numbers and x*zl is finite; outside that range
(zeros, subnormal quotients, infinities, NaN, where the fma would also give -0 or NaN for a
zl of the other sign than zh) the division itself runs, behind a branch on |x| that a chain
of ordinary values always predicts.

Expects: the loop level, after ``kiln-vectorize`` and ``kiln-if-to-select`` (the last pass of the
``loops`` stage). Produces: each scalar f32/f64 ``arith.divf %x, %c`` with ``%c`` an
``arith.constant`` accepted by the test replaced by
``scf.if (lo <= |x| <= hi) { fma(x, zh, x * zl) } else { x / c }``. Vector divisions (bound by
throughput, not latency), powers of two (gcc multiplies by them itself) and divisors the test
rejects keep their division.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from xdsl.context import Context
from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, ModuleOp
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from kiln.passes._scalar import ScalarBuilder


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: ``p`` significand bits, normal exponents from ``emin`` to ``emax``."""

    p: int
    emin: int
    emax: int

    @property
    def largest(self) -> Fraction:
        return Fraction(2**self.p - 1) * Fraction(2) ** (self.emax - self.p + 1)


BINARY64 = Format(53, -1022, 1023)
BINARY32 = Format(24, -126, 127)


def exponent(value: Fraction) -> int:
    """e with 2^e <= |value| < 2^(e+1) (value nonzero)."""
    a = abs(value)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    return e if Fraction(2) ** e <= a else e - 1


def round_nearest(value: Fraction, p: int) -> Fraction:
    """``value`` rounded to ``p`` significant bits, ties to even, the exponent unbounded."""
    if value == 0:
        return value
    shift = p - 1 - exponent(value)
    scaled = abs(value) * Fraction(2) ** shift
    n, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest > scaled.denominator or (2 * rest == scaled.denominator and n % 2):
        n += 1
    return (1 if value > 0 else -1) * Fraction(n) / Fraction(2) ** shift


def fast_quotient(x: Fraction, zh: Fraction, zl: Fraction, p: int) -> Fraction:
    """``RN(x*zh + RN(x*zl))``: the product and the fma, exactly as the hardware rounds them."""
    return round_nearest(x * zh + round_nearest(x * zl, p), p)


@dataclass(frozen=True)
class Reciprocal:
    """What the rewrite of ``x / y`` needs: the pair and the range of |x| where it is proven."""

    zh: float
    zl: float
    lo: float
    hi: float


def _is_normal(value: Fraction, fmt: Format) -> bool:
    return value != 0 and fmt.emin <= exponent(value) <= fmt.emax


def hard_case(significand: int, p: int) -> int | None:
    """For an odd divisor significand Y in [2^(p-1), 2^p), the one significand X in [2^(p-1), 2^p)
    whose quotient X/Y lies 1/(Y 2^(p+1)) from a midpoint, where the pair's error may cross it (None
    when that X is out of range). The midpoint is P/2^(p+1) with P odd in [2^p, 2^(p+1)) and
    2^(p+1) X - P Y = -1 or 1, that is P = +-Y^-1 mod 2^(p+1)."""
    modulus = 2 ** (p + 1)
    inverse = pow(significand, -1, modulus)
    if inverse >= 2**p:
        x = (inverse * significand - 1) // modulus
    else:
        x = ((modulus - inverse) * significand + 1) // modulus
    return x if 2 ** (p - 1) <= x < 2**p else None


def reciprocal_pair(y: float, fmt: Format) -> Reciprocal | None:
    """The test: the pair (zh, zl) and the proven range of |x| when ``RN(x*zh + RN(x*zl)) = RN(x/y)``
    for every x of ``fmt`` with |x| in that range; None when it is not proven for some x (or y is
    zero, not finite, a power of two, or its pair is not made of normal numbers)."""
    if y != y or y in (0.0, float("inf"), float("-inf")):
        return None
    exact = Fraction(y)
    e = exponent(exact)
    significand = abs(exact) * Fraction(2) ** (fmt.p - 1 - e)
    assert significand.denominator == 1
    Y = significand.numerator
    if Y == 2 ** (fmt.p - 1):
        return None
    zh = round_nearest(1 / exact, fmt.p)
    zl = round_nearest(1 / exact - zh, fmt.p)
    if not (_is_normal(zh, fmt) and _is_normal(zl, fmt)):
        return None
    if Y % 2:  # an even Y keeps every quotient 2/(Y 2^(p+1)) from a midpoint: always right
        X = hard_case(Y, fmt.p)
        one = Fraction(2) ** (1 - fmt.p)
        scale = Fraction(2) ** e * (1 if exact > 0 else -1)
        y1, zh1, zl1 = Y * one, zh * scale, zl * scale  # y, zh, zl scaled to y in [1, 2) (x/y is odd in y)
        if X is not None and fast_quotient(X * one, zh1, zl1, fmt.p) != round_nearest(X * one / y1, fmt.p):
            return None
    # |x| >= lo: x*zl and x/y at least 2^(emin+1); |x| <= hi: x*zl finite (x/y may overflow: it
    # rounds, as the division does, to inf exactly when the quotient with an unbounded exponent
    # reaches 2^(emax+1), and both round to the same value there)
    smallest = Fraction(2) ** fmt.emin * max(1 / abs(zl), abs(exact))
    lo = max(Fraction(2) ** (exponent(smallest) + 2), Fraction(2) ** (fmt.emin - fmt.p + 1))  # zero: never
    hi = min(fmt.largest, Fraction(2) ** exponent(fmt.largest / abs(zl)))
    if lo > hi:
        return None
    return Reciprocal(float(zh), float(zl), float(lo), float(hi))


_FORMATS: dict[type[Attribute], Format] = {Float64Type: BINARY64, Float32Type: BINARY32}


def _pair_for(op: arith.DivfOp) -> Reciprocal | None:
    fmt = _FORMATS.get(type(op.result.type))
    owner = op.rhs.owner
    if fmt is None or not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, FloatAttr):
        return None
    return reciprocal_pair(owner.value.value.data, fmt)


def _rewrite(op: arith.DivfOp, pair: Reciprocal) -> None:
    b = ScalarBuilder(op, op.location)
    x, t = op.lhs, op.result.type
    size = b.value(math.AbsFOp(x))
    within = b.value(arith.AndIOp(b.cmpf(size, b.const(pair.lo, t), "oge"), b.cmpf(size, b.const(pair.hi, t), "ole")))
    fast, slow = Block(), Block()
    fb = ScalarBuilder(fast, op.location)
    low = fb.value(arith.MulfOp(x, fb.const(pair.zl, t)))
    fb.add(scf.YieldOp(fb.value(math.FmaOp(x, fb.const(pair.zh, t), low))))
    sb = ScalarBuilder(slow, op.location)
    sb.add(scf.YieldOp(sb.value(arith.DivfOp(x, op.rhs))))
    branch = b.add(scf.IfOp(within, [t], [fast], [slow]))
    Rewriter.replace_op(op, [], [branch.results[0]])


@dataclass(frozen=True)
class KilnDivideByConstants(ModulePass):
    """Replace scalar divisions by a constant that the test accepts by a product and an fma."""

    name = "kiln-divide-by-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        found = [(inner, pair) for inner in op.walk()
                 if isinstance(inner, arith.DivfOp) and (pair := _pair_for(inner)) is not None]
        for div, pair in found:
            _rewrite(div, pair)
