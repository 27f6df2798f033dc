"""NumPy's scalar semantics spelled in ``arith`` and ``math`` ops.

Used to build the bodies of the ``linalg.generic`` ops that elementwise graph
ops lower to. The builders are called on the graph's element types, so an
unsigned ``uiN`` operand selects the unsigned ops (``divui``, ``cmpi ult``,
``extui``, ...); convert-graph-to-linalg erases the signedness afterwards
(passes/_signless.py). Where C and NumPy disagree (integer division by zero, ``//`` and
``%`` signs, NaN in comparisons, ``INT_MIN // -1``) the body computes NumPy's
answer explicitly, so the emitted code has no undefined behaviour.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, ComplexType, Float16Type, FloatAttr, IntegerAttr, IntegerType, f32, i1, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.passes import _complex

from kiln.dialects.graph import is_unsigned
from kiln.dialects.ir_utils import OpBuilder
from kiln.dialects.kmath import FModOp


def scalar_constant(value: complex | float | int | bool, t: Attribute) -> Operation:
    """``arith.constant`` of ``value`` converted to the scalar type ``t`` (wrapped into an
    unsigned type's range: ``-1`` is all ones; ``complex.constant`` for a complex type)."""
    if isinstance(t, ComplexType):
        return _complex.complex_constant(complex(value), t)
    assert not isinstance(value, complex)
    if isinstance(t, AnyFloat):
        return arith.ConstantOp(FloatAttr(float(value), t))
    assert isinstance(t, IntegerType)
    if is_unsigned(t):
        return arith.ConstantOp(IntegerAttr(int(value) % (1 << t.width.data), t))
    return arith.ConstantOp(IntegerAttr(int(bool(value)) if t == i1 else int(value), t))


class ScalarBuilder(OpBuilder):
    """An :class:`OpBuilder` appending to a ``linalg.generic`` body, with the scalar ops that
    NumPy's semantics need most."""

    def const(self, value: float | int | bool, t: Attribute) -> SSAValue:
        return self.value(scalar_constant(value, t))

    def select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.SelectOp(c, a, b))

    def cmpf(self, a: SSAValue, b: SSAValue, pred: str) -> SSAValue:
        return self.value(arith.CmpfOp(a, b, pred))

    def cmpi(self, a: SSAValue, b: SSAValue, pred: str) -> SSAValue:
        return self.value(arith.CmpiOp(a, b, pred))


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


Binary = Callable[[ScalarBuilder, SSAValue, SSAValue], SSAValue]
Unary = Callable[[ScalarBuilder, SSAValue], SSAValue]


def _by_kind(
    fop: type[arith.FloatingPointLikeBinaryOperation], iop: type[Operation], bop: type[Operation] | None = None, uop: type[Operation] | None = None
) -> Binary:
    """``fop`` on floats, ``bop`` on i1 (when given), ``uop`` on unsigned (when given), else ``iop``."""

    def build(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        if is_float(x.type):
            return b.value(_float_binary(fop, x, y))
        if x.type == i1 and bop is not None:
            return b.value(bop(x, y))
        if uop is not None and is_unsigned(x.type):
            return b.value(uop(x, y))
        return b.value(iop(x, y))

    return build


#: the properties xDSL's constructor gives a float binary op built without flags
_NO_FASTMATH = {"fastmath": arith.FastMathFlagsAttr("none")}


def _float_binary(op: type[arith.FloatingPointLikeBinaryOperation], x: SSAValue, y: SSAValue) -> Operation:
    """``op(x, y)`` built by ``Operation.create``: the op its constructor builds, without xDSL's
    generic argument sorting (7 us instead of 18 per op; one per elementwise op of a float program)."""
    return op.create(operands=[x, y], result_types=[x.type], properties=dict(_NO_FASTMATH))


def _floordiv(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    t = x.type
    if is_float(t):
        # NumPy's npy_divmod: floor((x - fmod(x, y)) / y), corrected for the divisor's sign.
        mod = b.value(FModOp(x, y))
        div = b.value(arith.DivfOp(b.value(arith.SubfOp(x, mod)), y))
        zero = b.const(0.0, t)
        signs_differ = b.value(
            arith.XOrIOp(b.cmpf(y, zero, "olt"), b.cmpf(mod, zero, "olt"))
        )
        adjust = b.value(arith.AndIOp(b.cmpf(mod, zero, "une"), signs_differ))
        div = b.select(adjust, b.value(arith.SubfOp(div, b.const(1.0, t))), div)
        floor = b.value(math.FloorOp(div))
        floor = b.select(
            b.cmpf(b.value(arith.SubfOp(div, floor)), b.const(0.5, t), "ogt"),
            b.value(arith.AddfOp(floor, b.const(1.0, t))),
            floor,
        )
        # div == 0: keep the sign of the exact quotient (copysign(0, x / y)).
        exact = b.value(arith.DivfOp(x, y))
        signed_zero = b.value(math.CopySignOp(zero, exact))
        floor = b.select(b.cmpf(div, zero, "oeq"), signed_zero, floor)
        # y == 0: NumPy returns x / y (inf or nan).
        return b.select(b.cmpf(y, zero, "oeq"), exact, floor)
    if t == i1:
        return b.value(arith.AndIOp(x, y))
    if is_unsigned(t):  # x // 0 is 0, as in NumPy; no sign fix-ups
        return _unsigned_div(b, arith.DivUIOp, x, y)
    zero, one, minus_one = b.const(0, t), b.const(1, t), b.const(-1, t)
    y_is_zero = b.cmpi(y, zero, "eq")
    y_is_m1 = b.cmpi(y, minus_one, "eq")
    safe = b.select(b.value(arith.OrIOp(y_is_zero, y_is_m1)), one, y)
    q = b.value(arith.FloorDivSIOp(x, safe))
    q = b.select(y_is_m1, b.value(arith.SubiOp(zero, x)), q)
    return b.select(y_is_zero, zero, q)


def _mod(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    t = x.type
    if is_float(t):
        zero = b.const(0.0, t)
        mod = b.value(FModOp(x, y))
        signs_differ = b.value(arith.XOrIOp(b.cmpf(y, zero, "olt"), b.cmpf(mod, zero, "olt")))
        fix = b.value(arith.AndIOp(b.cmpf(mod, zero, "une"), signs_differ))
        mod = b.select(fix, b.value(arith.AddfOp(mod, y)), mod)
        # an exact zero takes the divisor's sign, as in Python
        return b.select(b.cmpf(mod, zero, "oeq"), b.value(math.CopySignOp(zero, y)), mod)
    if t == i1:
        return b.value(arith.AndIOp(x, b.value(arith.XOrIOp(y, b.const(True, i1)))))
    if is_unsigned(t):  # x % 0 is 0, as in NumPy
        return _unsigned_div(b, arith.RemUIOp, x, y)
    zero, one = b.const(0, t), b.const(1, t)
    y_is_zero = b.cmpi(y, zero, "eq")
    y_is_m1 = b.cmpi(y, b.const(-1, t), "eq")
    safe = b.select(b.value(arith.OrIOp(y_is_zero, y_is_m1)), one, y)
    r = b.value(arith.RemSIOp(x, safe))
    fix = b.value(
        arith.AndIOp(
            b.cmpi(r, zero, "ne"),
            b.value(arith.XOrIOp(b.cmpi(r, zero, "slt"), b.cmpi(y, zero, "slt"))),
        )
    )
    r = b.select(fix, b.value(arith.AddiOp(r, safe)), r)
    return b.select(b.value(arith.OrIOp(y_is_zero, y_is_m1)), zero, r)


def _unsigned_div(b: ScalarBuilder, op: type[Operation], x: SSAValue, y: SSAValue) -> SSAValue:
    """``divui``/``remui`` with NumPy's 0 for a zero divisor (the division never sees one)."""
    t = x.type
    zero = b.const(0, t)
    y_is_zero = b.cmpi(y, zero, "eq")
    q = b.value(op(x, b.select(y_is_zero, b.const(1, t), y)))
    return b.select(y_is_zero, zero, q)


def in_f32(build: Callable[..., SSAValue]) -> Callable[..., SSAValue]:
    """``build`` with float16 computed as NumPy's float16 loops do: each f16 operand extended to
    f32 (exactly), the op built on f32, an f32 result rounded to f16 (``truncf``), so every op
    rounds once to f16. For + - * / and sqrt this is the correctly rounded f16 result (f32 has
    more than twice f16's precision); C's ``_Float16`` arithmetic would instead keep excess
    precision across ops. Other types pass through unchanged."""

    if build in _HALF_NATIVE:
        return build

    def wrapped(b: ScalarBuilder, *args: SSAValue) -> SSAValue:
        if not any(isinstance(a.type, Float16Type) for a in args):
            return build(b, *args)
        wide = [b.value(arith.ExtFOp(a, f32)) if isinstance(a.type, Float16Type) else a for a in args]
        result = build(b, *wide)
        return b.value(arith.TruncFOp(result, Float16Type())) if result.type == f32 else result

    return wrapped


def builder(name: str) -> Callable[..., SSAValue]:
    """The scalar body of the elementwise graph op ``name`` (a BINARY or UNARY entry): complex
    operands take passes/_complex.py's (also for the complex-only ops), float16 ones compute in
    f32 (:func:`in_f32`)."""
    real_build = BINARY.get(name) or UNARY.get(name)
    real = in_f32(real_build) if real_build is not None else None
    on_complex = _complex.BUILDERS.get(name)

    def build(b: ScalarBuilder, *args: SSAValue) -> SSAValue:
        fn = on_complex if isinstance(args[0].type, ComplexType) else real
        if fn is None:  # the graph verifiers refuse such ops first
            raise ValueError(f"{name} is not defined on {args[0].type}")
        return fn(b, *args)

    return build


def floordiv_pow2(b: ScalarBuilder, x: SSAValue, k: int) -> SSAValue:
    """``x // 2**k`` for an integer x and k >= 1: Python's floor division by a positive
    power of two is exactly an arithmetic shift (no zero, -1 or sign fix-ups to test);
    a logical one for unsigned x."""
    shift = arith.ShRUIOp if is_unsigned(x.type) else arith.ShRSIOp
    return b.value(shift(x, b.const(k, x.type)))


def mod_pow2(b: ScalarBuilder, x: SSAValue, k: int) -> SSAValue:
    """``x % 2**k`` for a signed integer x and k >= 1: Python's modulo by a positive power of
    two is in [0, 2**k) for every x, exactly the low k bits."""
    return b.value(arith.AndIOp(x, b.const((1 << k) - 1, x.type)))


def _pow(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    if is_float(x.type):
        return b.value(math.PowFOp(x, y))
    if x.type == i1:
        return b.value(arith.OrIOp(x, b.value(arith.XOrIOp(y, b.const(True, i1)))))
    if is_unsigned(x.type):
        return _unsigned_pow(b, x, y)
    return b.value(math.IPowIOp(x, y))


def _unsigned_pow(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """``x ** y`` on unsigned N-bit integers with ``ipowi`` (whose exponent is signed): both
    zero-extended to i64, the power taken mod 2**64 and truncated (2**N divides 2**64). A
    64-bit exponent e >= 2**63 becomes (e mod 2**62) + 2**62, which gives the same power mod
    2**64: odd bases have order dividing 2**62, even ones are 0 for any exponent >= 64."""
    t = x.type
    assert isinstance(t, IntegerType)
    if t.width.data < 64:
        wide = [b.value(arith.ExtUIOp(v, i64)) for v in (x, y)]
        return b.value(arith.TruncIOp(b.value(math.IPowIOp(*wide)), t))
    huge = b.cmpi(b.value(arith.ShRUIOp(y, b.const(63, t))), b.const(0, t), "ne")
    reduced = b.value(arith.OrIOp(b.value(arith.AndIOp(y, b.const((1 << 62) - 1, t))), b.const(1 << 62, t)))
    return b.value(math.IPowIOp(x, b.select(huge, reduced, y)))


def _maximum(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    if isinstance(x.type, Float16Type):
        return _half_pick(b, x, y, "oge")
    return _by_kind(arith.MaximumfOp, arith.MaxSIOp, arith.OrIOp, arith.MaxUIOp)(b, x, y)


def _minimum(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    if isinstance(x.type, Float16Type):
        return _half_pick(b, x, y, "ole")
    return _by_kind(arith.MinimumfOp, arith.MinSIOp, arith.AndIOp, arith.MinUIOp)(b, x, y)


def _half_pick(b: ScalarBuilder, x: SSAValue, y: SSAValue, pred: str) -> SSAValue:
    """NumPy's float16 maximum/minimum: ``x`` when ``x >= y`` (``<=``) or x is NaN, else ``y``:
    NaN propagates, and of -0.0 and +0.0 the first operand wins (its float32/64 loops order
    -0.0 below +0.0 instead, as ``maximumf`` does)."""
    keep = b.value(arith.OrIOp(b.cmpf(x, y, pred), b.cmpf(x, x, "uno")))
    return b.select(keep, x, y)


BINARY: dict[str, Binary] = {
    "graph.add": _by_kind(arith.AddfOp, arith.AddiOp, arith.OrIOp),
    "graph.sub": _by_kind(arith.SubfOp, arith.SubiOp, arith.XOrIOp),
    "graph.mul": _by_kind(arith.MulfOp, arith.MuliOp, arith.AndIOp),
    "graph.div": lambda b, x, y: b.value(arith.DivfOp(x, y)),
    "graph.floordiv": _floordiv,
    "graph.mod": _mod,
    "graph.pow": _pow,
    "graph.maximum": _maximum,
    "graph.minimum": _minimum,
    "graph.and": lambda b, x, y: b.value(arith.AndIOp(x, y)),
    "graph.or": lambda b, x, y: b.value(arith.OrIOp(x, y)),
    "graph.xor": lambda b, x, y: b.value(arith.XOrIOp(x, y)),
}


def _neg(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    if is_float(x.type):
        return b.value(arith.NegfOp(x))
    if x.type == i1:
        return x
    return b.value(arith.SubiOp(b.const(0, x.type), x))


def _abs(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    if is_float(x.type):
        return b.value(math.AbsFOp(x))
    if x.type == i1 or is_unsigned(x.type):
        return x
    return b.value(math.AbsIOp(x))


def _relu(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    zero = b.const(0, x.type)
    return _maximum(b, x, zero)


def _sigmoid(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    one = b.const(1.0, x.type)
    e = b.value(math.ExpOp(b.value(arith.NegfOp(x))))
    return b.value(arith.DivfOp(one, b.value(arith.AddfOp(one, e))))


def _not(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    return b.value(arith.XOrIOp(x, b.const(-1 if x.type != i1 else True, x.type)))


def _math(op: type[Operation]) -> Unary:
    return lambda b, x: b.value(op(x))


UNARY: dict[str, Unary] = {
    "graph.neg": _neg,
    "graph.abs": _abs,
    "graph.relu": _relu,
    "graph.not": _not,
    "graph.sigmoid": _sigmoid,
    "graph.exp": _math(math.ExpOp),
    "graph.log": _math(math.LogOp),
    "graph.sqrt": _math(math.SqrtOp),
    "graph.tanh": _math(math.TanhOp),
    "graph.sin": _math(math.SinOp),
    "graph.cos": _math(math.CosOp),
    "graph.floor": _math(math.FloorOp),
    "graph.ceil": _math(math.CeilOp),
}

#: builders that handle f16 operands themselves (exact comparisons and selects; in_f32 keeps them)
_HALF_NATIVE: set[Callable[..., SSAValue]] = {_maximum, _minimum, _relu}

_FLOAT_PRED = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_INT_PRED = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_BOOL_PRED = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def compare(b: ScalarBuilder, pred: str, x: SSAValue, y: SSAValue) -> SSAValue:
    """NumPy comparison: every ordered comparison with NaN is False, ``!=`` is True."""
    if isinstance(x.type, ComplexType):
        return _complex.compare(b, pred, x, y)
    if is_float(x.type):
        return b.cmpf(x, y, _FLOAT_PRED[pred])
    table = _BOOL_PRED if x.type == i1 or is_unsigned(x.type) else _INT_PRED
    return b.cmpi(x, y, table[pred])


def cast(b: ScalarBuilder, x: SSAValue, to: Attribute) -> SSAValue:
    """NumPy ``astype``: floats truncate toward zero into ints, nonzero (or NaN) is True;
    unsigned sources zero-extend, narrowing wraps around."""
    src = x.type
    if src == to:
        return x
    if isinstance(src, ComplexType) or isinstance(to, ComplexType):
        return _complex.cast(b, x, to, cast)
    if to == i1:
        zero = b.const(0, src)
        return b.cmpf(x, zero, "une") if is_float(src) else b.cmpi(x, zero, "ne")
    if is_float(src) and is_float(to):
        assert isinstance(src, AnyFloat) and isinstance(to, AnyFloat)
        wider = src.bitwidth < to.bitwidth
        return b.value(arith.ExtFOp(x, to) if wider else arith.TruncFOp(x, to))
    if is_float(to):
        return b.value(arith.UIToFPOp(x, to) if src == i1 or is_unsigned(src) else arith.SIToFPOp(x, to))
    if is_float(src):
        return _float_to_int(b, x, to)
    assert isinstance(src, IntegerType) and isinstance(to, IntegerType)
    if src.width.data < to.width.data:
        return b.value(arith.ExtUIOp(x, to) if src == i1 or is_unsigned(src) else arith.ExtSIOp(x, to))
    if src.width.data == to.width.data:  # int32 <-> uint32: the same bits (signedness is erased later)
        return x
    return b.value(arith.TruncIOp(x, to))


def _float_to_int(b: ScalarBuilder, x: SSAValue, to: IntegerType) -> SSAValue:
    """Truncation toward zero, as NumPy's C casts on x86-64 do it: a signed conversion to
    ``to``, and to uint8/16 (uint32) through a signed i32 (i64) conversion and wraparound, so
    that ``-1.0`` becomes 255 as in NumPy; uint64 converts as unsigned (``fptoui``)."""
    if not is_unsigned(to):
        return b.value(arith.FPToSIOp(x, to))
    width = to.width.data
    if width == 64:
        return b.value(arith.FPToUIOp(x, to))
    return b.value(arith.TruncIOp(b.value(arith.FPToSIOp(x, i32 if width < 32 else i64)), to))
