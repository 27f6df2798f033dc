"""Vectorized exp, log and tanh (sin, cos, atan, atan2: vector_trig.py), written once over the
abstract ops of an ISA table.

Each becomes a ``static inline`` C function on one native register. Methods and measured
accuracy are in docs/vector-math.md; in short:

* exp: Cody-Waite reduction x = n*ln2 + r (|r| <= ln2/2, n by the 1.5*2^p rounding trick),
  a degree-6 (f32, Cephes) or degree-13 (f64, Taylor) polynomial, and 2^n applied as two
  factors 2^(n/2) so results that underflow to denormals round once. Inputs are clamped
  where the result is already 0 or inf; NaN propagates. Where the ISA can index a register
  by lane (AVX2's ``vpermps``: the table's ``lookup8``), f32 reduces by ln2/8 instead and
  takes 2^(j/8) from an 8-entry table: a degree-4 polynomial on |r| <= ln2/16, a shorter
  dependency chain (the loop it sits in is latency-bound) and a smaller error.
  ``kiln_vexp_near_*`` is the path for registers whose lanes all pass ``kiln_vexp_far_*``'s
  test (no clamps, 2^n added to the exponent field); the emitter tests several registers
  at once when a loop body computes several exps side by side.
* log: x = m*2^e with m in [sqrt(1/2), sqrt(2)), log m = 2*atanh(s), s = (m-1)/(m+1), an odd
  series in s; denormals are scaled first; 0 -> -inf, inf -> inf, x < 0 or NaN -> NaN.
* tanh: |x| < 0.625: x + x^3*P(x^2) (Cephes; f64 a rational P/Q), else
  sign(x)*(1 - 2/(exp(2|x|) + 1)).
"""

from __future__ import annotations

import math

from kiln.backends.c import vector_trig
from kiln.backends.c.c_types import float_literal
from kiln.backends.c.isa import IsaTable
from kiln.backends.c.vector_body import F as _F
from kiln.backends.c.vector_body import MAGIC as _MAGIC
from kiln.backends.c.vector_body import Body, helper_name

# per element type: mantissa bits, exponent bias, rounding magic 1.5*2^p (value, bits)
_MANT = {"f32": 23, "f64": 52}
_BIAS = {"f32": 127, "f64": 1023}
_LN2 = {"f32": (0.693359375, -2.12194440e-4), "f64": (6.93147180369123816490e-01, 1.90821492927058770002e-10)}
_EXP_CLAMP = {"f32": (-104.0, 89.0), "f64": (-746.0, 710.0)}
#: |x| up to which y*2^n, y = exp(r) in [0.7, 1.42], is normal: n = round(x/ln2) in [-125, 125] /
#: [-1021, 1021] (ln(2^-125.5) = -86.99), so the fast path may add n to y's exponent field
_EXP_FAST = {"f32": 86.0, "f64": 707.0}
_EXP_POLY = {
    "f32": [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1],
    "f64": [1.0 / math.factorial(k) for k in range(13, -1, -1)],
}
_LOG_TERMS = {"f32": 5, "f64": 11}  # odd terms s^3/3 ... s^(2K+1)/(2K+1)
_TANH_P32 = [-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1]
_TANH_P64 = [-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3]
_TANH_Q64 = [1.0, 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3]

#: f32 exp by table (ISAs with "lookup8.f32"): 2^(j/8), ln2/8 split so k*hi is exact for
#: |k| < 2^11, and expm1(r) ~ r + r^2*(1/2 + c3*r + c4*r^2), minimax on |r| <= ln2/16 (relative
#: error 1.7e-10). Max error 0.89 ulp over every f32 input of the fast path (checked exhaustively).
_EXP2_8THS = [2.0 ** (j / 8) for j in range(8)]
_LN2_8THS = (0.086639404296875, 3.9932729123e-06)
_EXP_TABLE_POLY = (0.04166042059659958, 0.16668029129505157)

#: the functions the vectorizer calls; "exp_near" and "exp_far" are exp's two halves (below)
FUNCTIONS: tuple[str, ...] = ("exp", "log", "tanh", "sin", "cos", "atan", "atan2")


def has_exp_fast_path(table: IsaTable, elem: str) -> bool:
    """Whether exp branches to ``exp_near`` when ``exp_far`` finds no lane out of range (ISAs
    that can test a mask, without AVX-512's one-instruction scaling)."""
    return f"any.{elem}" in table.ops and f"scalef.{elem}" not in table.ops


def dependencies(fn: str, table: IsaTable, elem: str) -> tuple[str, ...]:
    """Helpers ``fn`` calls, which must be emitted before it."""
    if fn == "tanh":
        return ("exp",)
    if fn == "atan":
        return ("atan2",)
    if fn == "exp" and has_exp_fast_path(table, elem):
        return ("exp_far", "exp_near")
    return ()


def _by_table(b: "Body") -> bool:
    return b.e == "f32" and "lookup8.f32" in b.t.ops


def _exp(b: Body, x: str) -> str:
    e = b.e
    if has_exp_fast_path(b.t, e):
        b.lines.append(f"  if (!{b.op('any', helper_name('exp_far', e) + '(x)')}) return {helper_name('exp_near', e)}(x);")
    lo, hi = _EXP_CLAMP[e]
    x = b.clamp(x, lo, hi)
    t, y = _exp_reduced(b, x)
    if f"scalef.{e}" in b.t.ops:
        n = b.let(b.op("sub", t, b.c(_MAGIC[e][0])))
        return b.let(b.op("scalef", y, n))
    ni = b.let(_exp_exponent(b, t), "int")
    bias, mant = _BIAS[e], _MANT[e]
    half_range = 128 if e == "f32" else 1024
    n1 = b.let(b.op("isub", b.op("shr", b.op("iadd", ni, b.i(2 * half_range)), 1), b.i(half_range)), "int")
    n2 = b.let(b.op("isub", ni, n1), "int")
    s1 = b.let(b.op("as_float", b.op("shl", b.op("iadd", n1, b.i(bias)), mant)))
    s2 = b.let(b.op("as_float", b.op("shl", b.op("iadd", n2, b.i(bias)), mant)))
    return b.let(b.op("mul", b.op("mul", y, s1), s2))


def _exp_far(b: Body, x: str) -> str:
    """The lanes exp_near must not take: |x| > _EXP_FAST, or NaN."""
    e = b.e
    magnitude = b.op("as_float", b.i(2**31 - 1 if e == "f32" else 2**63 - 1))
    return b.let(b.op("cmp.ugt", b.op("band", x, magnitude), b.c(_EXP_FAST[e])), "mask")


def _exp_near(b: Body, x: str) -> str:
    """exp where every lane has |x| <= _EXP_FAST: 2^n is one normal power of two, so y * 2^n is
    n added to y's exponent field, with no clamps and no two-factor scaling (~10 ops of ~30).
    Bit-identical to the general path, whose y * 2^n0 * 2^n1 also rounds once."""
    t, y = _exp_reduced(b, x)
    return b.let(b.op("as_float", b.op("iadd", b.op("as_int", y), b.op("shl", _exp_exponent(b, t, biased=True), _MANT[b.e]))))


def _exp_exponent(b: Body, t: str, biased: bool = False) -> str:
    """n, the power of two of exp(x) = y * 2^n, from t (see _exp_reduced). ``biased``: plus a
    multiple of 2^(32-mant) (2^(64-mant)), which shifting left by mant bits drops."""
    bits = b.op("as_int", t)
    if _by_table(b):  # t holds k = 8n + j: n = k >> 3 (t's magic is a multiple of 8, t > 0)
        bits = b.op("shr", bits, 3)
        return bits if biased else b.op("isub", bits, b.i(_MAGIC[b.e][1] >> 3))
    return bits if biased else b.op("isub", bits, b.i(_MAGIC[b.e][1]))


def _exp_reduced(b: Body, x: str) -> tuple[str, str]:
    """(t, y): t = x/ln2 (x*8/ln2 by table) + magic, the integer k in its low bits, and
    y = exp(x - k*ln2) (by table: 2^(j/8) * exp(x - k*ln2/8), j = k mod 8, k = 8n + j)."""
    e = b.e
    magic = _MAGIC[e][0]
    if _by_table(b):
        t = b.let(b.op("madd", x, b.c(8 / math.log(2)), b.c(magic)))
        k = b.let(b.op("sub", t, b.c(magic)))
        r = b.let(b.op("madd", k, b.c(-_LN2_8THS[0]), x))
        r = b.let(b.op("madd", k, b.c(-_LN2_8THS[1]), r))
        entries = ", ".join(float_literal(v, _F[e]) for v in _EXP2_8THS)
        b.lines.append(f"  static const float kiln_exp2_8ths[8] = {{{entries}}};")
        two_j = b.let(b.op("lookup8", b.op("load", "kiln_exp2_8ths"), b.op("as_int", t)))
        r2 = b.let(b.op("mul", r, r))
        c4, c3 = _EXP_TABLE_POLY
        a = b.let(b.op("madd", b.c(c4), r2, b.op("madd", b.c(c3), r, b.c(0.5))))
        p = b.let(b.op("madd", a, r2, r))
        return t, b.let(b.op("madd", two_j, p, two_j))
    ln2_hi, ln2_lo = _LN2[e]
    t = b.let(b.op("madd", x, b.c(1 / math.log(2)), b.c(magic)))
    n = b.let(b.op("sub", t, b.c(magic)))
    r = b.let(b.op("madd", n, b.c(-ln2_hi), x))
    r = b.let(b.op("madd", n, b.c(-ln2_lo), r))
    if e == "f32":
        p = b.horner(_EXP_POLY[e], r)
        z = b.let(b.op("mul", r, r))
        y = b.let(b.op("add", b.op("madd", p, z, r), b.c(1.0)))
    else:
        y = b.horner(_EXP_POLY[e], r)
    return t, y


def _log(b: Body, x: str) -> str:
    e = b.e
    mant, bias = _MANT[e], _BIAS[e]
    magic, magic_bits = _MAGIC[e]
    ln2_hi, ln2_lo = _LN2[e]
    min_normal = 1.17549435e-38 if e == "f32" else 2.2250738585072014e-308
    tiny = b.let(b.op("cmp.olt", x, b.c(min_normal)), "mask")
    xs = b.let(b.op("select", tiny, b.op("mul", x, b.c(2.0**mant)), x))
    bits = b.let(b.op("as_int", xs), "int")
    ei = b.let(b.op("isub", b.op("shr", bits, mant), b.i(bias)), "int")
    ef = b.let(b.op("sub", b.op("as_float", b.op("iadd", ei, b.i(magic_bits))), b.c(magic)))
    ef = b.let(b.op("select", tiny, b.op("sub", ef, b.c(float(mant))), ef))
    mant_mask = (1 << mant) - 1
    one_bits = bias << mant
    m = b.let(b.op("as_float", b.op("ior", b.op("iand", bits, b.i(mant_mask)), b.i(one_bits))))
    big = b.let(b.op("cmp.ogt", m, b.c(math.sqrt(2.0))), "mask")
    m = b.let(b.op("select", big, b.op("mul", m, b.c(0.5)), m))
    ef = b.let(b.op("select", big, b.op("add", ef, b.c(1.0)), ef))
    s = b.let(b.op("div", b.op("sub", m, b.c(1.0)), b.op("add", m, b.c(1.0))))
    z = b.let(b.op("mul", s, s))
    terms = _LOG_TERMS[e]
    p = b.horner([1.0 / (2 * k + 1) for k in range(terms, 0, -1)], z)
    r = b.let(b.op("mul", b.op("mul", p, z), s))
    y = b.let(b.op("madd", ef, b.c(ln2_lo), b.op("add", r, r)))
    y = b.let(b.op("add", y, b.op("add", s, s)))
    y = b.let(b.op("madd", ef, b.c(ln2_hi), y))
    y = b.select_cmp("oeq", x, b.c(0.0), b.c(-math.inf), y)
    y = b.select_cmp("oeq", x, b.c(math.inf), b.c(math.inf), y)
    ok = b.let(b.op("cmp.oge", x, b.c(0.0)), "mask")
    return b.let(b.op("select", ok, y, b.c(math.nan)))


def _tanh(b: Body, x: str) -> str:
    e = b.e
    sign = b.let(b.op("as_float", b.i(-(2**31) if e == "f32" else -(2**63))))
    a = b.let(b.op("bxor", x, b.op("band", x, sign)))
    z = b.let(b.op("mul", x, x))
    if e == "f32":
        p = b.horner(_TANH_P32, z)
    else:
        num = b.horner(_TANH_P64, z)
        den = b.horner(_TANH_Q64, z)
        p = b.let(b.op("div", num, den))
    small = b.let(b.op("madd", b.op("mul", p, z), x, x))
    ex = b.let(f"{helper_name('exp', e)}({b.op('add', a, a)})")
    large = b.let(b.op("sub", b.c(1.0), b.op("div", b.c(2.0), b.op("add", ex, b.c(1.0)))))
    large = b.let(b.op("bor", large, b.op("band", x, sign)))
    return b.select_cmp("olt", a, b.c(0.625), small, large)


_BODIES = {"exp": _exp, "exp_near": _exp_near, "exp_far": _exp_far, "log": _log, "tanh": _tanh, **vector_trig.BODIES}


def helper(table: IsaTable, fn: str, elem: str) -> str:
    """The C definition of the vectorized ``fn`` on ``elem`` for ``table``."""
    b = Body(table, elem)
    params = vector_trig.PARAMS.get(fn, ("x",))
    result = _BODIES[fn](b, *params)
    vec = table.types[elem]["vec"]
    ret = table.types[elem]["mask" if fn == "exp_far" else "vec"]
    signature = ", ".join(f"{vec} {p}" for p in params)
    return "\n".join(
        [f"static inline {ret} {helper_name(fn, elem)}({signature}) {{", *b.lines, f"  return {result};", "}", ""]
    )
