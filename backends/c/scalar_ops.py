"""arith and math ops → C expressions, one local per result (constants are inlined).

Integer ops follow MLIR's two's-complement semantics: the emitted C is
compiled with ``-fwrapv`` (see toolchain.py), unsigned ops cast to the
unsigned type of the same width, and i1 is handled as a 1-bit integer
(true is -1 when read as signed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.backends.c.c_types import (
    bit_width,
    c_type,
    float_literal,
    int_literal,
    is_float,
    unsigned_c_type,
)
from kiln.backends.c.dispatch import handles
from kiln.backends.c.errors import CEmitError
from kiln.dialects.kmath import FModOp, HypotOp

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter

# math op → libm base name (the f32 variant appends "f").
_UNARY_LIBM: dict[type, str] = {
    math.ExpOp: "exp",
    math.Exp2Op: "exp2",
    math.ExpM1Op: "expm1",
    math.LogOp: "log",
    math.Log2Op: "log2",
    math.Log10Op: "log10",
    math.Log1pOp: "log1p",
    math.SqrtOp: "sqrt",
    math.CbrtOp: "cbrt",
    math.TanhOp: "tanh",
    math.SinhOp: "sinh",
    math.CoshOp: "cosh",
    math.AsinhOp: "asinh",
    math.AcoshOp: "acosh",
    math.AtanhOp: "atanh",
    math.SinOp: "sin",
    math.CosOp: "cos",
    math.TanOp: "tan",
    math.AsinOp: "asin",
    math.AcosOp: "acos",
    math.AtanOp: "atan",
    math.AbsFOp: "fabs",
    math.FloorOp: "floor",
    math.CeilOp: "ceil",
    math.RoundOp: "round",
    math.RoundEvenOp: "rint",  # round-half-even in the default rounding mode
    math.TruncOp: "trunc",
    math.ErfOp: "erf",
}
_BINARY_LIBM: dict[type, str] = {
    math.PowFOp: "pow",
    math.CopySignOp: "copysign",
    math.Atan2Op: "atan2",
    FModOp: "fmod",
    HypotOp: "hypot",
    arith.MaxnumfOp: "fmax",
    arith.MinnumfOp: "fmin",
}
LIBM_NAMES: frozenset[str] = frozenset(
    name + suffix
    for name in [*_UNARY_LIBM.values(), *_BINARY_LIBM.values(), "fma", "sqrt", "signbit"]
    for suffix in ("", "f")
)

_INFIX: dict[type, str] = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.DivSIOp: "/",
    arith.RemSIOp: "%",
    arith.AndIOp: "&",
    arith.OrIOp: "|",
    arith.XOrIOp: "^",
    arith.ShRSIOp: ">>",
    arith.AddfOp: "+",
    arith.SubfOp: "-",
    arith.MulfOp: "*",
    arith.DivfOp: "/",
}
_I1_INFIX: dict[type, str] = {arith.AddiOp: "^", arith.SubiOp: "^", arith.MuliOp: "&"}
_UNSIGNED_INFIX: dict[type, str] = {
    arith.DivUIOp: "/",
    arith.RemUIOp: "%",
    arith.ShRUIOp: ">>",
    arith.ShLIOp: "<<",
}
_CMPI: dict[str, tuple[str, bool]] = {  # predicate → (C operator, compare as unsigned)
    "eq": ("==", False),
    "ne": ("!=", False),
    "slt": ("<", False),
    "sle": ("<=", False),
    "sgt": (">", False),
    "sge": (">=", False),
    "ult": ("<", True),
    "ule": ("<=", True),
    "ugt": (">", True),
    "uge": (">=", True),
}
# cmpf: ordered predicates are false on NaN, unordered ones true (C's == < <= are ordered, != is not).
_CMPF: dict[str, str] = {
    "false": "false",
    "oeq": "{a} == {b}",
    "ogt": "{a} > {b}",
    "oge": "{a} >= {b}",
    "olt": "{a} < {b}",
    "ole": "{a} <= {b}",
    "one": "({a} < {b} || {a} > {b})",
    "ord": "({a} == {a} && {b} == {b})",
    "ueq": "!({a} < {b} || {a} > {b})",
    "ugt": "!({a} <= {b})",
    "uge": "!({a} < {b})",
    "ult": "!({a} >= {b})",
    "ule": "!({a} > {b})",
    "une": "{a} != {b}",
    "uno": "({a} != {a} || {b} != {b})",
    "true": "true",
}
# The same, as C99's quiet comparison macros (gcc's builtins) where C's operators are signaling:
# `a < b` may raise FE_INVALID on a quiet NaN, so under -ftrapping-math gcc will not if-convert a
# select on it, and the loop holding it stays scalar ("control flow in loop": complex abs, whose
# hypot picks max/min with `>=`, kept NPBench's mandelbrot1 scalar). Same values; kiln never
# reads the exception flags. Device code (CUDA) has no such builtins and keeps _CMPF.
_CMPF_QUIET: dict[str, str] = {
    **_CMPF,
    "ogt": "__builtin_isgreater({a}, {b})",
    "oge": "__builtin_isgreaterequal({a}, {b})",
    "olt": "__builtin_isless({a}, {b})",
    "ole": "__builtin_islessequal({a}, {b})",
    "one": "__builtin_islessgreater({a}, {b})",
    "ord": "!__builtin_isunordered({a}, {b})",
    "ueq": "!__builtin_islessgreater({a}, {b})",
    "ugt": "!__builtin_islessequal({a}, {b})",
    "uge": "!__builtin_isless({a}, {b})",
    "ult": "!__builtin_isgreaterequal({a}, {b})",
    "ule": "!__builtin_isgreater({a}, {b})",
    "uno": "__builtin_isunordered({a}, {b})",
}


def _libm(base: str, ty: Attribute) -> str:
    """The f32 (``expf``) or f64 (``exp``) variant of a libm function."""
    if not is_float(ty) or bit_width(ty) == 16:
        raise CEmitError(f"{base} needs f32 or f64, got {ty} (f16 math is computed in f32: passes/_scalar.py in_f32)")
    return base + "f" if isinstance(ty, Float32Type) else base


def _signed(em: FunctionEmitter, value: SSAValue) -> str:
    """The value read as a signed integer (i1 true is -1)."""
    text = em.expr(value)
    return f"(-(int)({text}))" if bit_width(value.type) == 1 else text


def _unsigned(em: FunctionEmitter, value: SSAValue) -> str:
    """The value read as an unsigned integer of its width."""
    return f"({unsigned_c_type(value.type)}){em.expr(value)}"


def _wide_literal(text: str, ty: Attribute) -> str:
    """Give a bare literal a 64-bit type so literal-only arithmetic cannot overflow int."""
    return f"(({c_type(ty)}){text})" if text.lstrip("-").isdigit() and bit_width(ty) == 64 else text


@handles(arith.ConstantOp)
def _constant(em: FunctionEmitter, op: arith.ConstantOp) -> None:
    value, ty = op.value, op.result.type
    if isinstance(value, IntegerAttr):
        text = int_literal(value.value.data, ty)
    elif isinstance(value, FloatAttr):
        text = float_literal(value.value.data, ty)
    elif isinstance(value, DenseIntOrFPElementsAttr):
        raise CEmitError(f"dense constants of type {ty} are not supported (use memref.global)")
    else:
        raise CEmitError(f"unsupported constant {value}")
    c_type(ty)
    em.bind(op.result, f"({text})" if text.startswith("-") else text)


@handles(*_INFIX)
def _infix(em: FunctionEmitter, op: arith.SignlessIntegerBinaryOperation) -> None:
    ty = op.result.type
    _no_half_arithmetic(op)
    sym = _I1_INFIX.get(type(op), _INFIX[type(op)]) if bit_width(ty) == 1 else _INFIX[type(op)]
    lhs, rhs = em.expr(op.lhs), em.expr(op.rhs)
    if not is_float(ty):
        lhs = _wide_literal(lhs, ty)
    elif _complex_product_part(op):
        em.line(f"{em.use_helper('kiln_opaque')}({lhs});")
    em.define(op.result, f"{lhs} {sym} {rhs}")


#: the ops that take a complex value apart (by name: xDSL's complex dialect is imported only by
#: programs with complex values)
_COMPLEX_PARTS = frozenset({"complex.re", "complex.im"})


def _complex_product_part(op: Operation) -> bool:
    """Whether ``op`` subtracts or adds two products of complex values' parts (``ar*br - ai*bi``,
    ``ar*bi + ai*br``: a product written out without a fused operation, as NumPy's scalars and
    Python's complex numbers multiply), which gcc's vectorizer would fuse (``kiln_opaque``)."""
    if not isinstance(op, arith.SubfOp | arith.AddfOp):
        return False
    products = [v.owner for v in op.operands]
    if products[0] is products[1] or all(isinstance(p, arith.MulfOp) and p.lhs is p.rhs for p in products):
        return False  # a square's parts (z*z: ``zr*zr - zi*zi``, ``zr*zi + zr*zi``), which gcc leaves unfused
    return all(
        isinstance(p, arith.MulfOp) and all(isinstance(v.owner, Operation) and v.owner.name in _COMPLEX_PARTS for v in p.operands)
        for p in products
    )


@handles(*_UNSIGNED_INFIX)
def _unsigned_infix(em: FunctionEmitter, op: arith.SignlessIntegerBinaryOperation) -> None:
    ty = op.result.type
    text = f"{_unsigned(em, op.lhs)} {_UNSIGNED_INFIX[type(op)]} {_unsigned(em, op.rhs)}"
    em.define(op.result, f"({c_type(ty)})({text})")


@handles(arith.FloorDivSIOp, arith.CeilDivSIOp)
def _floor_ceil_div(em: FunctionEmitter, op: arith.SignlessIntegerBinaryOperation) -> None:
    """Python-style floor division (and its ceiling twin): adjust C's truncating quotient."""
    a, b = em.expr(op.lhs), em.expr(op.rhs)
    if isinstance(op, arith.FloorDivSIOp):
        em.define(op.result, f"{a} / {b} - ({a} % {b} != 0 && ({a} < 0) != ({b} < 0))")
    else:
        em.define(op.result, f"{a} / {b} + ({a} % {b} != 0 && ({a} < 0) == ({b} < 0))")


@handles(arith.CeilDivUIOp)
def _ceildivui(em: FunctionEmitter, op: arith.CeilDivUIOp) -> None:
    a, b = _unsigned(em, op.lhs), _unsigned(em, op.rhs)
    em.define(op.result, f"({c_type(op.result.type)})({a} / {b} + ({a} % {b} != 0))")


@handles(arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp)
def _int_min_max(em: FunctionEmitter, op: arith.SignlessIntegerBinaryOperation) -> None:
    unsigned = isinstance(op, arith.MaxUIOp | arith.MinUIOp)
    read = _unsigned if unsigned else _signed
    cmp = ">" if isinstance(op, arith.MaxSIOp | arith.MaxUIOp) else "<"
    a, b = em.expr(op.lhs), em.expr(op.rhs)
    em.define(op.result, f"{read(em, op.lhs)} {cmp} {read(em, op.rhs)} ? {a} : {b}")


@handles(arith.MaximumfOp, arith.MinimumfOp)
def _nan_min_max(em: FunctionEmitter, op: arith.FloatingPointLikeBinaryOperation) -> None:
    base = "kiln_maximum" if isinstance(op, arith.MaximumfOp) else "kiln_minimum"
    helper = em.use_helper(_libm(base, op.result.type))
    em.define(op.result, f"{helper}({em.expr(op.lhs)}, {em.expr(op.rhs)})")


def _no_half_arithmetic(op: Operation) -> None:
    """f16 is only stored and converted here: C's ``_Float16`` arithmetic keeps excess precision
    across ops, where NumPy rounds every op to float16; convert-graph-to-linalg computes in f32."""
    if is_float(op.results[0].type) and bit_width(op.results[0].type) == 16:
        raise CEmitError(f"'{op.name}' on f16: f16 arithmetic is computed in f32 and rounded (passes/_scalar.py in_f32)")


@handles(arith.NegfOp)
def _negf(em: FunctionEmitter, op: arith.NegfOp) -> None:
    _no_half_arithmetic(op)
    em.define(op.result, f"-{em.expr(op.operand)}")


@handles(arith.CmpiOp)
def _cmpi(em: FunctionEmitter, op: arith.CmpiOp) -> None:
    sym, unsigned = _CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
    if unsigned:
        a, b = _unsigned(em, op.lhs), _unsigned(em, op.rhs)
    else:
        a, b = _signed(em, op.lhs), _signed(em, op.rhs)
    em.define(op.result, f"{a} {sym} {b}")


@handles(arith.CmpfOp)
def _cmpf(em: FunctionEmitter, op: arith.CmpfOp) -> None:
    table = _CMPF_QUIET if em.quiet_compares else _CMPF
    template = table[arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]]
    em.define(op.result, template.format(a=em.expr(op.lhs), b=em.expr(op.rhs)))


@handles(arith.SelectOp)
def _select(em: FunctionEmitter, op: arith.SelectOp) -> None:
    if op.result.type not in (op.lhs.type,) or not _is_scalar(op.result.type):
        raise CEmitError(f"select on {op.result.type} is not supported")
    em.define(op.result, f"{em.expr(op.cond)} ? {em.expr(op.lhs)} : {em.expr(op.rhs)}")


def _is_scalar(ty: Attribute) -> bool:
    try:
        c_type(ty)
    except CEmitError:
        return False
    return True


@handles(arith.IndexCastOp, arith.ExtSIOp, arith.TruncIOp)
def _int_cast(em: FunctionEmitter, op: arith.IndexCastOp) -> None:
    """Sign-extending or truncating integer casts (index_cast sign-extends, like extsi)."""
    dst = op.result.type
    if bit_width(dst) == 1:
        em.define(op.result, f"({em.expr(op.input)} & 1)")
    else:
        em.define(op.result, f"({c_type(dst)}){_signed(em, op.input)}")


@handles(arith.ExtUIOp)
def _extui(em: FunctionEmitter, op: arith.ExtUIOp) -> None:
    em.define(op.result, f"({c_type(op.result.type)}){_unsigned(em, op.input)}")


@handles(arith.SIToFPOp, arith.FPToSIOp, arith.ExtFOp, arith.TruncFOp)
def _value_cast(em: FunctionEmitter, op: arith.SIToFPOp) -> None:
    src = em.expr(op.input) if is_float(op.input.type) else _signed(em, op.input)
    em.define(op.result, f"({c_type(op.result.type)}){src}")


@handles(arith.UIToFPOp)
def _uitofp(em: FunctionEmitter, op: arith.UIToFPOp) -> None:
    em.define(op.result, f"({c_type(op.result.type)}){_unsigned(em, op.input)}")


@handles(arith.FPToUIOp)
def _fptoui(em: FunctionEmitter, op: arith.FPToUIOp) -> None:
    """Truncation to unsigned. To 64 bits it is spelled out as x86-64's scalar sequence (what
    NumPy's cast loop compiles to): a signed conversion below 2**63, so a negative value wraps
    (-1.0 -> 2**64 - 1), else one of ``x - 2**63`` with the top bit set. A plain C cast is
    undefined out of range and gcc turns it into AVX-512's ``vcvttpd2uqq``, which saturates."""
    dst = op.result.type
    x = em.expr(op.input)
    if isinstance(dst, IntegerType) and dst.width.data == 64:
        big = "9223372036854775808.0" + ("f" if c_type(op.input.type) != "double" else "")
        em.define(
            op.result,
            f"({c_type(dst)})({x} < {big} ? (uint64_t)(int64_t){x} "
            f": (uint64_t)(int64_t)({x} - {big}) ^ 0x8000000000000000ull)",
        )
        return
    em.define(op.result, f"({c_type(dst)})({unsigned_c_type(dst)}){x}")


@handles(arith.BitcastOp)
def _bitcast(em: FunctionEmitter, op: arith.BitcastOp) -> None:
    """Reinterpret the bits through a union compound literal (defined behaviour in C11)."""
    src, dst = c_type(op.input.type), c_type(op.result.type)
    if src == dst or (not is_float(op.input.type) and not is_float(op.result.type)):
        em.define(op.result, f"({dst}){em.expr(op.input)}")
    else:
        union = f"(union {{ {src} from; {dst} to; }})"
        em.define(op.result, f"({union}{{.from = {em.expr(op.input)}}}).to")


@handles(*_UNARY_LIBM)
def _unary_libm(em: FunctionEmitter, op: math.FloatingPointLikeUnaryMathOperation) -> None:
    em.define(op.result, f"{_libm(_UNARY_LIBM[type(op)], op.result.type)}({em.expr(op.operand)})")


@handles(*_BINARY_LIBM)
def _binary_libm(em: FunctionEmitter, op: math.PowFOp) -> None:
    fn = _libm(_BINARY_LIBM[type(op)], op.result.type)
    em.define(op.result, f"{fn}({em.expr(op.lhs)}, {em.expr(op.rhs)})")


@handles(math.RsqrtOp)
def _rsqrt(em: FunctionEmitter, op: math.RsqrtOp) -> None:
    ty = op.result.type
    one = "1.0f" if isinstance(ty, Float32Type) else "1.0"
    em.define(op.result, f"{one} / {_libm('sqrt', ty)}({em.expr(op.operand)})")


@handles(math.FmaOp)
def _fma(em: FunctionEmitter, op: math.FmaOp) -> None:
    fn = _libm("fma", op.result.type)
    em.define(op.result, f"{fn}({em.expr(op.a)}, {em.expr(op.b)}, {em.expr(op.c)})")


@handles(math.AbsIOp)
def _absi(em: FunctionEmitter, op: math.AbsIOp) -> None:
    x = em.expr(op.operand)
    em.define(op.result, f"{x} < 0 ? -{x} : {x}")


@handles(math.IPowIOp)
def _ipowi(em: FunctionEmitter, op: math.IPowIOp) -> None:
    ty = c_type(op.result.type)
    if ty == "bool":
        raise CEmitError("ipowi on i1 is not supported")
    helper = em.use_helper(f"kiln_ipowi_{ty}")
    em.define(op.result, f"{helper}({em.expr(op.lhs)}, {em.expr(op.rhs)})")


@handles(math.FPowIOp)
def _fpowi(em: FunctionEmitter, op: math.FPowIOp) -> None:
    ty = op.result.type
    em.define(op.result, f"{_libm('pow', ty)}({em.expr(op.lhs)}, ({c_type(ty)}){_signed(em, op.rhs)})")
