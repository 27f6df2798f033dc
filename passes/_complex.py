"""NumPy's complex arithmetic spelled in ``complex.create``/``re``/``im`` and ``arith`` on the parts.

convert-graph-to-linalg builds the scalar body of an elementwise op on complex operands
here (passes/_scalar.py dispatches). The arithmetic is written out on the real and
imaginary parts, in NumPy's formulas, so that no backend's complex semantics (C's Annex G
multiplication with its infinity recovery, another division algorithm) can change a
result: ``*`` is NumPy's ``fma(ar, br, -(ai*bi)) + fma(ar, bi, ai*br)j``; ``/`` is Smith's
algorithm, the one NumPy's loops use (divide by the larger of |br| and |bi| first); ``==`` compares both
parts; ``< <= > >=``, ``maximum`` and ``minimum`` order lexicographically, as NumPy does
(the real parts decide unless they are equal; a NaN part makes an ordered comparison false
and wins ``maximum``/``minimum``). Transcendental functions stay ``complex`` dialect ops,
which backends map to the C library (glibc's ``cexp``, ``clog``, ``csqrt``, ``cabs``,
``carg``: what NumPy calls too).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, ComplexType, FloatAttr, i1
from xdsl.ir import Attribute, Operation, SSAValue

if TYPE_CHECKING:
    from xdsl.dialects import complex as cplx

    from kiln.passes._scalar import ScalarBuilder

Parts = tuple[SSAValue, SSAValue]


def _cplx() -> ModuleType:
    """xDSL's complex dialect, imported by the first complex value lowered (~5 ms of every
    program's first compile otherwise)."""
    from xdsl.dialects import complex as cplx

    return cplx


def complex_constant(value: complex, t: ComplexType) -> cplx.ConstantOp:
    """``complex.constant`` of ``value`` in the complex type ``t``."""
    part = t.element_type
    assert isinstance(part, AnyFloat)
    return _cplx().ConstantOp.from_floats((value.real, value.imag), part)


def _parts(b: ScalarBuilder, z: SSAValue) -> Parts:
    return b.value(_cplx().ReOp(z)), b.value(_cplx().ImOp(z))


def _make(b: ScalarBuilder, re: SSAValue, im: SSAValue, t: Attribute) -> SSAValue:
    assert isinstance(t, ComplexType)
    return b.value(_cplx().CreateOp(re, im, t))


def _f(b: ScalarBuilder, op: type[Operation], x: SSAValue, y: SSAValue) -> SSAValue:
    return b.value(op(x, y))


def _add(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    (xr, xi), (yr, yi) = _parts(b, x), _parts(b, y)
    return _make(b, _f(b, arith.AddfOp, xr, yr), _f(b, arith.AddfOp, xi, yi), x.type)


def _sub(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    (xr, xi), (yr, yi) = _parts(b, x), _parts(b, y)
    return _make(b, _f(b, arith.SubfOp, xr, yr), _f(b, arith.SubfOp, xi, yi), x.type)


def _mul(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """``fma(xr, yr, -(xi*yi)) + fma(xr, yi, xi*yr)j``: NumPy's SIMD complex multiply (on
    hosts with FMA, every x86-64 and Arm machine kiln targets) rounds the first product
    only through the fused operation; ``np.square`` gives the same bits."""
    (xr, xi), (yr, yi) = _parts(b, x), _parts(b, y)
    re = b.value(math.FmaOp(xr, yr, b.value(arith.NegfOp(_f(b, arith.MulfOp, xi, yi)))))
    im = b.value(math.FmaOp(xr, yi, _f(b, arith.MulfOp, xi, yr)))
    return _make(b, re, im, x.type)


def plain_mul(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """``(xr*yr - xi*yi) + (xr*yi + xi*yr)j`` without fused operations: how NumPy multiplies
    in its reductions (``np.prod``) and in ``np.power``'s integer powers."""
    (xr, xi), (yr, yi) = _parts(b, x), _parts(b, y)
    re = _f(b, arith.SubfOp, _f(b, arith.MulfOp, xr, yr), _f(b, arith.MulfOp, xi, yi))
    im = _f(b, arith.AddfOp, _f(b, arith.MulfOp, xr, yi), _f(b, arith.MulfOp, xi, yr))
    return _make(b, re, im, x.type)


def _abs(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    """|x| as NumPy's complex absolute loop computes it: with l and s the larger and smaller of
    |re| and |im|, ``l * sqrt(fma(s/l, s/l, 1))``; 0 for 0, inf if a part is infinite, else NaN
    if a part is NaN (hypot's rules)."""
    xr, xi = _parts(b, x)
    t = xr.type
    ar, ai = b.value(math.AbsFOp(xr)), b.value(math.AbsFOp(xi))
    re_larger = b.cmpf(ar, ai, "oge")
    large, small = b.select(re_larger, ar, ai), b.select(re_larger, ai, ar)
    q = _f(b, arith.DivfOp, small, large)
    h = _f(b, arith.MulfOp, large, b.value(math.SqrtOp(b.value(math.FmaOp(q, q, b.const(1.0, t))))))
    inf = b.const(float("inf"), t)
    h = b.select(b.cmpf(large, b.const(0.0, t), "oeq"), b.const(0.0, t), h)
    h = b.select(b.value(arith.OrIOp(_is_nan(b, ar), _is_nan(b, ai))), _f(b, arith.AddfOp, ar, ai), h)
    return b.select(b.value(arith.OrIOp(b.cmpf(ar, inf, "oeq"), b.cmpf(ai, inf, "oeq"))), inf, h)


def _div(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """Smith's algorithm: with |yr| >= |yi|, r = yi/yr, s = 1/(yr + yi*r),
    re = (xr + xi*r)*s, im = (xi - xr*r)*s; the mirror image otherwise; a zero divisor gives
    (xr/|yr|, xi/|yr|), NumPy's infinities and NaNs."""
    (xr, xi), (yr, yi) = _parts(b, x), _parts(b, y)
    t = xr.type
    one, zero = b.const(1.0, t), b.const(0.0, t)
    abs_r, abs_i = b.value(math.AbsFOp(yr)), b.value(math.AbsFOp(yi))
    # |yr| >= |yi|: divide by yr first
    rat = _f(b, arith.DivfOp, yi, yr)
    scl = _f(b, arith.DivfOp, one, _f(b, arith.AddfOp, yr, _f(b, arith.MulfOp, yi, rat)))
    re_a = _f(b, arith.MulfOp, _f(b, arith.AddfOp, xr, _f(b, arith.MulfOp, xi, rat)), scl)
    im_a = _f(b, arith.MulfOp, _f(b, arith.SubfOp, xi, _f(b, arith.MulfOp, xr, rat)), scl)
    # |yr| < |yi| (or a NaN): divide by yi first
    rat_b = _f(b, arith.DivfOp, yr, yi)
    scl_b = _f(b, arith.DivfOp, one, _f(b, arith.AddfOp, yi, _f(b, arith.MulfOp, yr, rat_b)))
    re_b = _f(b, arith.MulfOp, _f(b, arith.AddfOp, _f(b, arith.MulfOp, xr, rat_b), xi), scl_b)
    im_b = _f(b, arith.MulfOp, _f(b, arith.SubfOp, _f(b, arith.MulfOp, xi, rat_b), xr), scl_b)
    # 0 divisor
    zero_div = b.value(arith.AndIOp(b.cmpf(abs_r, zero, "oeq"), b.cmpf(abs_i, zero, "oeq")))
    re_a = b.select(zero_div, _f(b, arith.DivfOp, xr, abs_r), re_a)
    im_a = b.select(zero_div, _f(b, arith.DivfOp, xi, abs_r), im_a)
    first = b.cmpf(abs_r, abs_i, "oge")
    return _make(b, b.select(first, re_a, re_b), b.select(first, im_a, im_b), x.type)


def _neg(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    xr, xi = _parts(b, x)
    return _make(b, b.value(arith.NegfOp(xr)), b.value(arith.NegfOp(xi)), x.type)


def _conj(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    xr, xi = _parts(b, x)
    return _make(b, xr, b.value(arith.NegfOp(xi)), x.type)


def _is_nan(b: ScalarBuilder, v: SSAValue) -> SSAValue:
    return b.cmpf(v, v, "uno")


def _ordered(b: ScalarBuilder, pred: str, x: SSAValue, y: SSAValue) -> SSAValue:
    """NumPy's lexicographic ``x pred y`` for pred in lt le gt ge: the real parts decide when
    they differ (and neither imaginary part is NaN), the imaginary parts when they are equal."""
    (xr, xi), (yr, yi) = _parts(b, x), _parts(b, y)
    strict = "olt" if pred in ("lt", "le") else "ogt"
    no_nan = b.value(arith.AndIOp(b.cmpf(xi, xi, "ord"), b.cmpf(yi, yi, "ord")))
    by_real = b.value(arith.AndIOp(b.cmpf(xr, yr, strict), no_nan))
    by_imag = b.value(arith.AndIOp(b.cmpf(xr, yr, "oeq"), b.cmpf(xi, yi, "o" + pred)))
    return b.value(arith.OrIOp(by_real, by_imag))


def compare(b: ScalarBuilder, pred: str, x: SSAValue, y: SSAValue) -> SSAValue:
    """``==`` is both parts equal, ``!=`` either differs (NaN differs); others lexicographic."""
    if pred in ("eq", "ne"):
        (xr, xi), (yr, yi) = _parts(b, x), _parts(b, y)
        if pred == "eq":
            return b.value(arith.AndIOp(b.cmpf(xr, yr, "oeq"), b.cmpf(xi, yi, "oeq")))
        return b.value(arith.OrIOp(b.cmpf(xr, yr, "une"), b.cmpf(xi, yi, "une")))
    return _ordered(b, pred, x, y)


def _pick(pred: str) -> Callable[[ScalarBuilder, SSAValue, SSAValue], SSAValue]:
    """NumPy's complex maximum (``ge``) / minimum (``le``): x when x has a NaN part or
    ``x pred y``, else y."""

    def build(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        xr, xi = _parts(b, x)
        keep = b.value(arith.OrIOp(b.value(arith.OrIOp(_is_nan(b, xr), _is_nan(b, xi))), _ordered(b, pred, x, y)))
        return b.select(keep, x, y)

    return build


def _relu(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    return _pick("ge")(b, x, b.value(complex_constant(0j, x.type)))  # type: ignore[arg-type]


def _unary(op: str) -> Callable[[ScalarBuilder, SSAValue], SSAValue]:
    """The complex dialect's op named ``op`` (a class name) on one operand."""
    return lambda b, x: b.value(getattr(_cplx(), op)(x))


#: graph op name -> its scalar body on complex operands
BUILDERS: dict[str, Callable[..., SSAValue]] = {
    "graph.add": _add,
    "graph.sub": _sub,
    "graph.mul": _mul,
    "graph.div": _div,
    "graph.maximum": _pick("ge"),
    "graph.minimum": _pick("le"),
    "graph.neg": _neg,
    "graph.conj": _conj,
    "graph.relu": _relu,
    "graph.exp": _unary("ExpOp"),
    "graph.log": _unary("LogOp"),
    "graph.sqrt": _unary("SqrtOp"),
    "graph.sin": _unary("SinOp"),
    "graph.cos": _unary("CosOp"),
    "graph.tanh": _unary("TanhOp"),
    "graph.real": _unary("ReOp"),
    "graph.imag": _unary("ImOp"),
    "graph.cabs": _abs,
    "graph.angle": _unary("AngleOp"),
}


def cast(b: ScalarBuilder, x: SSAValue, to: Attribute, real_cast: Callable[[ScalarBuilder, SSAValue, Attribute], SSAValue]) -> SSAValue:
    """``astype`` to or from a complex type (``real_cast`` converts real values): a real value
    becomes ``x + 0j``; a complex one keeps its real part for a real target (NumPy warns that
    the imaginary part is discarded), is nonzero when either part is for bool."""
    src = x.type
    if isinstance(src, ComplexType):
        xr, xi = _parts(b, x)
        if isinstance(to, ComplexType):
            return _make(b, real_cast(b, xr, to.element_type), real_cast(b, xi, to.element_type), to)
        if to == i1:
            zero = b.const(0.0, xr.type)
            return b.value(arith.OrIOp(b.cmpf(xr, zero, "une"), b.cmpf(xi, zero, "une")))
        return real_cast(b, xr, to)
    assert isinstance(to, ComplexType)
    part = to.element_type
    return _make(b, real_cast(b, x, part), b.value(arith.ConstantOp(FloatAttr(0.0, part))), to)
