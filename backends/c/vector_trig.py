"""Vectorized sin, cos, atan and atan2 over the abstract ops of an ISA table (docs/vector-math.md).

* sin, cos: q = round(x * 2/pi), r + r_lo = x - q*pi/2 with pi/2 split in three parts: the
  first step is an exact fma, the second an exact two-sum, so r + r_lo has about twice the
  working precision, |r| <= pi/4; then sin(r) = r + r^3*S(r^2) or cos(r) = 1 - r^2/2 +
  r^4*C(r^2), each corrected by r_lo, chosen and signed by q mod 4 (cos takes q + 1). Lanes
  with |x| beyond ``_FAST`` (the reduction loses bits there), inf and NaN go through libm, so
  they give libm's answer.
* atan2(y, x): with n = min(|y|, |x|), d = max, a = n/d in [0, 1]; for a > tan(pi/8),
  atan(a) = pi/4 + atan(u), u = (n - d)/(n + d) (one division either way), |u| <= tan(pi/8);
  atan(u) = u + u^3*P(u^2). The quadrant is an integer K and a sign s: the result is
  K*pi/4 + s*atan(u), with pi/4 in two parts. ±0, ±inf and NaN follow C99's atan2 (as NumPy).
  atan(x) is atan2(x, 1).

The polynomials are near-minimax fits (Chebyshev-node interpolation in long double of
(sin(r)/r - 1)/r^2, (cos(r) - 1 + r^2/2)/r^4 and (atan(u)/u - 1)/u^2 in z = r^2), on
|r| <= 1.0001*pi/4 and |u| <= 1.0001*tan(pi/8); their relative error is below 1e-17 (f64)
and 4e-9 (f32, with the coefficients rounded to f32).
"""

from __future__ import annotations

import functools
import struct
from typing import TYPE_CHECKING

from kiln.backends.c.vector_body import MAGIC, Body, helper_name

if TYPE_CHECKING:
    from fractions import Fraction


@functools.cache
def _pi() -> Fraction:
    """pi exactly enough to split it (fractions imported only by a program with trig: ~1.5 ms
    of every first call otherwise, its decimal module included)."""
    from fractions import Fraction

    return Fraction("3.14159265358979323846264338327950288419716939937510582097494459")


_BITS = {"f32": 32, "f64": 64}
_C = {"f32": "float", "f64": "double"}
_LIBM_SUFFIX = {"f32": "f", "f64": ""}
#: |x| up to which sin/cos take the polynomial path; q = round(x*2/pi) < 2^16 / 2^25, where pi/2
#: in three parts (72 / 159 bits) still leaves r with full relative precision
_FAST = {"f32": 65536.0, "f64": 2.0**25}
_TAN_PI_8 = 2**0.5 - 1

_SIN = {
    "f32": [2.7249864160694415e-06, -0.00019840085587929934, 0.008333331905305386, -0.1666666716337204],
    "f64": [-7.731645818796559e-13, 1.606163963518287e-10, -2.5052132211770907e-08, 2.75573193256241e-06,
            -0.00019841269841482993, 0.008333333333333533, -0.16666666666666669],
}
_COS = {
    "f32": [2.454789137118496e-05, -0.001388830249197781, 0.0416666641831398],
    "f64": [-1.145047736145361e-11, 2.087739528966439e-09, -2.755732586653106e-07, 2.480158732583376e-05,
            -0.00138888888889252, 0.041666666666666845],
}
_ATAN = {
    "f32": [-0.06451718509197235, 0.10743668675422668, -0.14263950288295746, 0.19999539852142334,
            -0.3333333134651184],
    "f64": [-0.019162676480551824, 0.039218578824425206, -0.05084931260924397, 0.05858033130776886,
            -0.06664495453535418, 0.07692181778481964, -0.09090904498608544, 0.11111111012503333,
            -0.14285714284612708, 0.19999999999995027, -0.3333333333333333],
}


def _round(value: Fraction, elem: str) -> float:
    """``value`` rounded to ``elem``."""
    wide = float(value)
    return wide if elem == "f64" else struct.unpack("f", struct.pack("f", wide))[0]


def _split(value: Fraction, elem: str, parts: int) -> list[float]:
    """``value`` as a sum of ``parts`` numbers of type ``elem``, each the rest rounded."""
    from fractions import Fraction

    out: list[float] = []
    for _ in range(parts):
        out.append(_round(value - sum(map(Fraction, out), Fraction(0)), elem))
    return out


def _quarter_pi(elem: str) -> tuple[float, float]:
    """pi/4 as hi + lo, hi with 2 bits to spare so that K*hi is exact for K <= 4."""
    from fractions import Fraction

    bits = 22 if elem == "f32" else 51
    pi = _pi()
    hi = Fraction(round(pi / 4 * 2**bits), 2**bits)
    return float(hi), _round(pi / 4 - hi, elem)


def _sign(b: Body) -> str:
    return b.let(b.op("as_float", b.i(-(2**31) if b.e == "f32" else -(2**63))))


def _sin_cos(b: Body, x: str, cos: bool) -> str:
    e = b.e
    magic = MAGIC[e][0]
    t = b.let(b.op("madd", x, b.c(float(2 / _pi())), b.c(magic)))
    q = b.let(b.op("sub", t, b.c(magic)))
    p1, p2, p3 = _split(_pi() / 2, e, 3)
    sign = _sign(b)
    r1 = b.let(b.op("fma", q, b.c(-p1), x))  # exact
    # r + r_lo = r1 - q*p2 - q*p3 to about twice the precision: q*p2 = p + p_err exactly, and
    # r1 - p = r + err exactly (Knuth's two-sum: r1 and p are close when r cancels)
    p = b.let(b.op("mul", q, b.c(p2)))
    p_err = b.let(b.op("fma", q, b.c(p2), b.op("bxor", p, sign)))
    r = b.let(b.op("sub", r1, p))
    moved = b.let(b.op("sub", r, r1))
    err = b.let(b.op("sub", b.op("sub", r1, b.op("sub", r, moved)), b.op("add", p, moved)))
    r_lo = b.let(b.op("fma", q, b.c(-p3), b.op("sub", err, p_err)))
    z = b.let(b.op("mul", r, r))
    # sin(r + r_lo) ~ r + (r*z*S + r_lo)
    sin_r = b.let(b.op("add", r, b.op("madd", b.op("mul", r, z), b.horner(_SIN[e], z), r_lo)))
    # cos(r + r_lo) ~ w + ((1 - w - z/2) - z_err/2 - r*r_lo + z^2*C), w = 1 - z/2, z + z_err = r^2
    half_z = b.let(b.op("mul", z, b.c(0.5)))
    w = b.let(b.op("sub", b.c(1.0), half_z))
    tail = b.let(b.op("sub", b.op("sub", b.c(1.0), w), half_z))
    z_err = b.let(b.op("fma", r, r, b.op("bxor", z, sign)))
    tail = b.let(b.op("sub", tail, b.op("madd", r, r_lo, b.op("mul", z_err, b.c(0.5)))))
    cos_r = b.let(b.op("add", w, b.op("madd", b.op("mul", z, z), b.horner(_COS[e], z), tail)))
    quadrant = b.let(b.op("as_int", t), "int")  # q mod 2^k in the low bits
    if cos:
        quadrant = b.let(b.op("iadd", quadrant, b.i(1)), "int")
    odd = b.let(b.op("as_float", b.op("isub", b.i(0), b.op("iand", quadrant, b.i(1)))))  # all ones where odd
    y = b.let(b.op("bxor", sin_r, b.op("band", b.op("bxor", sin_r, cos_r), odd)))
    y = b.let(b.op("bxor", y, b.op("as_float", b.op("shl", b.op("iand", quadrant, b.i(2)), _BITS[e] - 2))))
    if not cos:  # r + (+0) is +0 (and -0 - -0 too): sin(±0) = ±0 needs its own lane test
        y = b.select_cmp("oeq", x, b.c(0.0), x, y)
    return _libm_lanes(b, "cos" if cos else "sin", x, y)


def _libm_lanes(b: Body, fn: str, x: str, y: str) -> str:
    """y, with libm's ``fn`` in the lanes where |x| > _FAST or x is NaN. One branch on the whole
    register where the ISA can test a mask; else the lanes are checked one by one."""
    e, lanes, c = b.e, b.t.lanes(b.e), _C[b.e]
    suffix = _LIBM_SUFFIX[e]
    fix = [
        f"{c} xs[{lanes}], ys[{lanes}];",
        b.op("store", "xs", x) + ";",
        b.op("store", "ys", y) + ";",
        f"for (int i = 0; i < {lanes}; i++) if (!(fabs{suffix}(xs[i]) <= {_FAST[e]!r}{suffix})) ys[i] = {fn}{suffix}(xs[i]);",
    ]
    if f"any.{e}" not in b.t.ops:
        b.lines.extend(f"  {line}" for line in fix)
        return b.op("load", "ys")
    magnitude = b.op("band", x, b.op("as_float", b.i(2**31 - 1 if e == "f32" else 2**63 - 1)))
    far = b.let(b.op("cmp.ugt", magnitude, b.c(_FAST[e])), "mask")
    b.lines.append(f"  if ({b.op('any', far)}) {{")
    b.lines.extend(f"    {line}" for line in fix)
    b.lines.append(f"    return {b.op('load', 'ys')};")
    b.lines.append("  }")
    return y


def _atan2(b: Body, y: str, x: str) -> str:
    e = b.e
    sign = _sign(b)
    ay = b.let(b.op("bxor", y, b.op("band", y, sign)))
    ax = b.let(b.op("bxor", x, b.op("band", x, sign)))
    swap = b.let(b.op("cmp.ogt", ay, ax), "mask")
    n = b.let(b.op("select", swap, ax, ay))
    d = b.let(b.op("select", swap, ay, ax))
    # atan2(±inf, ±inf) takes a = 1, atan2(±0, ±0) a = 0 (n/d would be NaN)
    both_inf = b.let(b.op("cmp.oeq", n, b.c(float("inf"))), "mask")
    d = b.let(b.op("select", b.op("mor", both_inf, b.op("cmp.oeq", d, b.c(0.0))), b.c(1.0), d))
    n = b.let(b.op("select", both_inf, b.c(1.0), n))
    # n + d below must not overflow: scale both near the top of the range (exactly)
    huge = b.let(b.op("cmp.ogt", d, b.c(2.0**125 if e == "f32" else 2.0**1021)), "mask")
    scale = b.let(b.op("select", huge, b.c(0.25), b.c(1.0)))
    n = b.let(b.op("mul", n, scale))
    d = b.let(b.op("mul", d, scale))
    big = b.let(b.op("cmp.ogt", n, b.op("mul", d, b.c(_TAN_PI_8))), "mask")
    u = b.let(b.op("div", b.op("select", big, b.op("sub", n, d), n), b.op("select", big, b.op("add", n, d), d)))
    # result = K*pi/4 + s*atan(u): K, s by swap (|y| > |x|) and the sign bit of x
    negative_x = b.let(b.op("cmp.olt", b.op("bor", b.c(1.0), b.op("band", x, sign)), b.c(0.0)), "mask")
    flip = b.let(b.op("bxor", b.op("select", swap, sign, b.c(0.0)), b.op("band", x, sign)))  # s = -1
    base = b.let(b.op("select", swap, b.c(2.0), b.op("select", negative_x, b.c(4.0), b.c(0.0))))
    k = b.let(b.op("add", base, b.op("bxor", b.op("select", big, b.c(1.0), b.c(0.0)), flip)))
    us = b.let(b.op("bxor", u, flip))
    z = b.let(b.op("mul", u, u))
    hi, lo = _quarter_pi(e)
    tail = b.let(b.op("madd", b.op("mul", us, z), b.horner(_ATAN[e], z), b.op("mul", k, b.c(lo))))
    angle = b.let(b.op("madd", k, b.c(hi), b.op("add", us, tail)))
    angle = b.let(b.op("bor", angle, b.op("band", y, sign)))
    return b.select_cmp("uno", x, y, b.op("add", x, y), angle)


def _atan(b: Body, x: str) -> str:
    return f"{helper_name('atan2', b.e)}({x}, {b.c(1.0)})"


BODIES = {
    "sin": lambda b, x: _sin_cos(b, x, cos=False),
    "cos": lambda b, x: _sin_cos(b, x, cos=True),
    "atan": _atan,
    "atan2": _atan2,
}
#: parameter names of the helpers that take more than one register
PARAMS = {"atan2": ("y", "x")}
