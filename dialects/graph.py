"""The ``graph`` dialect: kiln's high-level array IR, what tracing records.

Values are builtin ``tensor<...>`` types with element types i1, i8..i64 (signed:
signless integers are NumPy's intN), ui8..ui64 (NumPy's uintN), f16, f32 and
f64 (docs/ir-reference.md, "Element types"). Ops are NumPy's vocabulary with
NumPy's semantics, made explicit:
elementwise ops take operands of one type (the frontend inserts
``graph.cast`` and ``graph.broadcast`` per NumPy's promotion and broadcasting
rules), so every later pass sees shapes and dtypes spelled out. Every op the
frontend builds carries the user's file:line:col as its location.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    I64,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    OptionalDef,
    VarRegionDef,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
    VariadicDef,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    SameOperandsAndResultType,
)
from xdsl.utils.exceptions import VerifyException

AnyTensor = base(TensorType)


def shape_of(value: SSAValue | Attribute) -> tuple[int, ...]:
    """Static view of a tensor value's (or type's) shape; ``-1`` marks a dynamic dim."""
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return tuple(-1 if d == DYNAMIC_INDEX else d for d in t.get_shape())


def tensor_type(element: Attribute, shape: Sequence[int]) -> TensorType:
    """``tensor<shape x element>``, with ``-1`` (or ``None``) for dynamic dims."""
    return _tensor_type(element, tuple(DYNAMIC_INDEX if d is None or d < 0 else d for d in shape))


@functools.lru_cache(maxsize=1024)
def _tensor_type(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    """One type object per type (attributes are immutable): building and verifying a TensorType
    for each traced op cost as much as the op."""
    return TensorType(element, shape)


@functools.cache
def _one_of_each(cls: type[IRDLOperation]) -> bool:
    """Whether ``cls``'s operands and results are each exactly one value, and it has no regions,
    successors or segment sizes."""
    d = cls.get_irdl_definition()
    defs = [*d.operands, *d.results]
    return not (d.regions or d.successors or d.options) and not any(isinstance(x, (OptionalDef, VariadicDef)) for _, x in defs)


def _build(op: IRDLOperation, operands: Sequence[SSAValue], result_types: Sequence[Attribute],
           properties: Mapping[str, Attribute] | None = None) -> None:
    """``IRDLOperation.__init__`` for the ops tracing builds most (constants, elementwise ops, casts,
    broadcasts): with one value per operand and result there is nothing for xDSL's generic
    builder to sort out (optional, variadic and segment-sized ones), and it was a quarter of
    the cost of tracing an op. What the builder skipped is checked when the traced module verifies."""
    assert _one_of_each(type(op)), f"{op.name} has optional or variadic parts: build it with IRDLOperation.__init__"
    Operation.__init__(op, operands=operands, result_types=result_types, properties=properties or {})


@functools.cache
def _flattens(cls: type[IRDLOperation]) -> bool:
    """Whether ``cls``'s operands and results are each one value but for at most one variadic
    group of each, its regions each one region, and it has no successors or segment sizes: xDSL's
    builder then flattens the groups in order, and nothing else."""
    d = cls.get_irdl_definition()
    one_variadic = all(sum(isinstance(x, VariadicDef) for _, x in defs) <= 1 for defs in (d.operands, d.results))
    return one_variadic and not (d.successors or d.options) and not any(
        isinstance(x, (OptionalDef, VarRegionDef)) for _, x in (*d.operands, *d.results, *d.regions))


def _build_flat(op: IRDLOperation, operands: Sequence[SSAValue | Operation], result_types: Sequence[Attribute] = (),
                regions: Sequence[Region] = ()) -> None:
    """``IRDLOperation.__init__`` for the ops of staged control flow (``graph.yield``, ``graph.condition``,
    ``graph.cond``, ``graph.while``), with their groups already flattened: xDSL's generic builder
    took 80-140 us per ``graph.yield`` (5 us this way), a tenth of a warm start's trace of a loop."""
    assert _flattens(type(op)), f"{op.name} has optional parts or segment sizes: build it with IRDLOperation.__init__"
    values = [v if isinstance(v, SSAValue) else SSAValue.get(v) for v in operands]
    Operation.__init__(op, operands=values, result_types=result_types, regions=regions)


def element_of(value: SSAValue | Attribute) -> Attribute:
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return t.get_element_type()


def is_float(element: Attribute) -> bool:
    return isinstance(element, AnyFloat)


def is_bool(element: Attribute) -> bool:
    return element == i1


def is_complex(element: Attribute) -> bool:
    """``complex<f32>`` / ``complex<f64>``: NumPy's complex64 / complex128."""
    return isinstance(element, ComplexType)


def is_unsigned(element: Attribute) -> bool:
    """``uiN``: NumPy's unsigned integers (signless ``iN`` are the signed ones)."""
    return isinstance(element, IntegerType) and element.signedness.data == Signedness.UNSIGNED


def _dims_compatible(a: int, b: int) -> bool:
    return a == b or a == -1 or b == -1


def _i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


# --------------------------------------------------------------------------- constants


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A tensor literal: ``%c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>``."""

    name = "graph.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(AnyTensor)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        _build(self, (), [value.type], {"value": value})

    def verify_(self) -> None:
        if self.value.type != self.result.type:
            raise VerifyException(
                f"graph.constant: value type {self.value.type} differs from result type {self.result.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("graph.constant expects a dense<...> : tensor<...> literal")
        attrs = parser.parse_optional_attr_dict()
        op = cls(value)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


# --------------------------------------------------------------------------- elementwise


class ElementwiseBinaryOp(IRDLOperation):
    """Base of same-typed binary ops; NumPy's promotion happened in the frontend."""

    T: ClassVar = VarConstraint("T", AnyTensor)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    #: which element kinds the op ACCEPTS: "any", "numeric" (no i1), "int" (i1 too)
    ACCEPTS: ClassVar[str] = "numeric"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        _build(self, [lhs, rhs], [lhs.type])

    def verify_(self) -> None:
        _check_element_kind(self, element_of(self.result), self.ACCEPTS)


class ElementwiseUnaryOp(IRDLOperation):
    """Base of same-typed unary ops."""

    T: ClassVar = VarConstraint("T", AnyTensor)
    operand = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "$operand attr-dict `:` type($result)"

    ACCEPTS: ClassVar[str] = "numeric"

    def __init__(self, operand: SSAValue):
        _build(self, [operand], [operand.type])

    def verify_(self) -> None:
        _check_element_kind(self, element_of(self.result), self.ACCEPTS)


def _check_element_kind(op: Operation, element: Attribute, ACCEPTS: str) -> None:
    ok = {
        "any": True,
        "numeric": not is_bool(element),
        "float": is_float(element),
        "inexact": is_float(element) or is_complex(element),
        "complex": is_complex(element),
        "int": isinstance(element, IntegerType),
    }[ACCEPTS]
    if not ok:
        kinds = {"numeric": "numbers (not bool)", "float": "floats", "int": "integers or bools",
                 "inexact": "floats and complex numbers", "complex": "complex numbers"}
        raise VerifyException(f"{op.name} is defined on {kinds[ACCEPTS]}, got element type {element}")


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """``x + y``; integers wrap around (NumPy)."""

    name = "graph.add"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """``x - y``; integers wrap around."""

    name = "graph.sub"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """``x * y``; integers wrap around."""

    name = "graph.mul"


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    """True division on floats and complex numbers (the frontend casts integers first, as NumPy does)."""

    name = "graph.div"
    ACCEPTS: ClassVar[str] = "inexact"


@irdl_op_definition
class FloorDivOp(ElementwiseBinaryOp):
    """Python's ``//``: rounds toward minus infinity; integer division by zero gives 0 (NumPy)."""

    name = "graph.floordiv"


@irdl_op_definition
class ModOp(ElementwiseBinaryOp):
    """Python's ``%``: the result takes the divisor's sign; integer ``x % 0`` gives 0 (NumPy)."""

    name = "graph.mod"


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """``x ** y`` (NumPy's ``power``; an integer base to a negative integer power: docs/numpy-semantics.md)."""

    name = "graph.pow"


@irdl_op_definition
class MaximumOp(ElementwiseBinaryOp):
    """NumPy's ``maximum``: NaN-propagating on floats."""

    name = "graph.maximum"


@irdl_op_definition
class MinimumOp(ElementwiseBinaryOp):
    """NumPy's ``minimum``: NaN-propagating on floats."""

    name = "graph.minimum"


@irdl_op_definition
class AndOp(ElementwiseBinaryOp):
    """Logical and on bools, bitwise and on integers (NumPy's ``&``)."""

    name = "graph.and"
    ACCEPTS: ClassVar[str] = "int"


@irdl_op_definition
class OrOp(ElementwiseBinaryOp):
    """Logical or on bools, bitwise or on integers (NumPy's ``|``)."""

    name = "graph.or"
    ACCEPTS: ClassVar[str] = "int"


@irdl_op_definition
class XorOp(ElementwiseBinaryOp):
    """Logical xor on bools, bitwise xor on integers (NumPy's ``^``)."""

    name = "graph.xor"
    ACCEPTS: ClassVar[str] = "int"


@irdl_op_definition
class NotOp(ElementwiseUnaryOp):
    """Logical not on bools, bitwise not on integers (NumPy's ``~``)."""

    name = "graph.not"
    ACCEPTS: ClassVar[str] = "int"


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    """``-x``; integers wrap around (``-INT_MIN`` is ``INT_MIN``)."""

    name = "graph.neg"


@irdl_op_definition
class AbsOp(ElementwiseUnaryOp):
    """``abs(x)`` of a real number (a complex one's magnitude is ``graph.cabs``); ``abs(INT_MIN)`` is ``INT_MIN`` (NumPy)."""

    name = "graph.abs"


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp):
    """``maximum(x, 0)``: NaN stays NaN."""

    name = "graph.relu"


def _float_unary(op_name: str, doc: str, accepts: str = "float") -> type[ElementwiseUnaryOp]:
    cls = type(
        op_name.split(".")[1].capitalize() + "Op",
        (ElementwiseUnaryOp,),
        {"name": op_name, "ACCEPTS": accepts, "__doc__": doc, "__module__": __name__, "__annotations__": {"ACCEPTS": ClassVar[str]}},
    )
    return irdl_op_definition(cls)


ExpOp = _float_unary("graph.exp", "e**x.", "inexact")
LogOp = _float_unary("graph.log", "Natural logarithm (principal branch on complex numbers).", "inexact")
SqrtOp = _float_unary("graph.sqrt", "Square root (principal branch on complex numbers).", "inexact")
TanhOp = _float_unary("graph.tanh", "Hyperbolic tangent.", "inexact")
SigmoidOp = _float_unary("graph.sigmoid", "1 / (1 + exp(-x)).")
SinOp = _float_unary("graph.sin", "Sine.", "inexact")
CosOp = _float_unary("graph.cos", "Cosine.", "inexact")
FloorOp = _float_unary("graph.floor", "Round toward minus infinity.")
CeilOp = _float_unary("graph.ceil", "Round toward plus infinity.")


# --------------------------------------------------------------------------- elementwise math
# NumPy's ufuncs beyond arithmetic (kiln.frontend.ufuncs). Each is one scalar function per
# element; convert-graph-to-linalg gives its NumPy semantics in arith/math/kmath ops.

TanOp = _float_unary("graph.tan", "Tangent.")
ArcsinOp = _float_unary("graph.arcsin", "Inverse sine; NaN outside [-1, 1].")
ArccosOp = _float_unary("graph.arccos", "Inverse cosine; NaN outside [-1, 1].")
ArctanOp = _float_unary("graph.arctan", "Inverse tangent.")
SinhOp = _float_unary("graph.sinh", "Hyperbolic sine.")
CoshOp = _float_unary("graph.cosh", "Hyperbolic cosine.")
ArcsinhOp = _float_unary("graph.arcsinh", "Inverse hyperbolic sine.")
ArccoshOp = _float_unary("graph.arccosh", "Inverse hyperbolic cosine; NaN below 1.")
ArctanhOp = _float_unary("graph.arctanh", "Inverse hyperbolic tangent; +-inf at +-1, NaN beyond.")
Log1pOp = _float_unary("graph.log1p", "log(1 + x), accurate near 0.")
Expm1Op = _float_unary("graph.expm1", "exp(x) - 1, accurate near 0.")
Log2Op = _float_unary("graph.log2", "Base-2 logarithm.")
Log10Op = _float_unary("graph.log10", "Base-10 logarithm.")
Exp2Op = _float_unary("graph.exp2", "2**x.")
CbrtOp = _float_unary("graph.cbrt", "Cube root (real, so cbrt(-8) = -2).")
RintOp = _float_unary("graph.rint", "Round to the nearest integer, halves to even (np.rint, np.round).")
TruncOp = _float_unary("graph.trunc", "Round toward zero.")


@irdl_op_definition
class SignOp(ElementwiseUnaryOp):
    """``np.sign``: -1, 0 or 1 (0 for both zeros); NaN stays NaN."""

    name = "graph.sign"


@irdl_op_definition
class ReciprocalOp(ElementwiseUnaryOp):
    """``np.reciprocal``: 1/x on floats; on integers C's ``(int)(1.0 / x)`` as NumPy computes it
    on x86-64 (1 and -1 invert, other values give 0, 0 gives the minimum of 32- and 64-bit types)."""

    name = "graph.reciprocal"


@irdl_op_definition
class Arctan2Op(ElementwiseBinaryOp):
    """``np.arctan2(y, x)``: the angle of (x, y), quadrant-aware, signed zeros respected."""

    name = "graph.arctan2"
    ACCEPTS: ClassVar[str] = "float"


@irdl_op_definition
class HypotOp(ElementwiseBinaryOp):
    """``np.hypot``: sqrt(x*x + y*y) without overflow; inf if either is inf, even with a NaN."""

    name = "graph.hypot"
    ACCEPTS: ClassVar[str] = "float"


@irdl_op_definition
class CopysignOp(ElementwiseBinaryOp):
    """``np.copysign(x, y)``: |x| with the sign bit of y (NaNs and zeros included)."""

    name = "graph.copysign"
    ACCEPTS: ClassVar[str] = "float"


@irdl_op_definition
class LogaddexpOp(ElementwiseBinaryOp):
    """``np.logaddexp``: log(exp(x) + exp(y)) without overflow."""

    name = "graph.logaddexp"
    ACCEPTS: ClassVar[str] = "float"


@irdl_op_definition
class Logaddexp2Op(ElementwiseBinaryOp):
    """``np.logaddexp2``: log2(2**x + 2**y) without overflow."""

    name = "graph.logaddexp2"
    ACCEPTS: ClassVar[str] = "float"


@irdl_op_definition
class FmodOp(ElementwiseBinaryOp):
    """``np.fmod``: C's remainder, with the dividend's sign; integer ``x fmod 0`` gives 0 (NumPy)."""

    name = "graph.fmod"


@irdl_op_definition
class FmaxOp(ElementwiseBinaryOp):
    """``np.fmax``: the larger value, ignoring a NaN operand (NaN only when both are); or on bools."""

    name = "graph.fmax"
    ACCEPTS: ClassVar[str] = "any"


@irdl_op_definition
class FminOp(ElementwiseBinaryOp):
    """``np.fmin``: the smaller value, ignoring a NaN operand (NaN only when both are); and on bools."""

    name = "graph.fmin"
    ACCEPTS: ClassVar[str] = "any"


@irdl_op_definition
class LeftShiftOp(ElementwiseBinaryOp):
    """``np.left_shift`` (``<<``) on integers: a shift count outside [0, width) gives 0."""

    name = "graph.left_shift"
    ACCEPTS: ClassVar[str] = "int"


@irdl_op_definition
class RightShiftOp(ElementwiseBinaryOp):
    """``np.right_shift`` (``>>``): arithmetic; a count outside [0, width) gives 0, or -1 for x < 0."""

    name = "graph.right_shift"
    ACCEPTS: ClassVar[str] = "int"


class ElementwiseTestOp(IRDLOperation):
    """Base of per-element tests: ``%m = graph.isnan %x : tensor<4xf32> -> tensor<4xi1>``."""

    operand = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    ACCEPTS: ClassVar[str] = "any"

    def __init__(self, operand: SSAValue):
        _build(self, [operand], [tensor_type(i1, shape_of(operand))])

    def verify_(self) -> None:
        _check_element_kind(self, element_of(self.operand), self.ACCEPTS)
        if element_of(self.result) != i1 or shape_of(self.result) != shape_of(self.operand):
            expected = tensor_type(i1, shape_of(self.operand))
            raise VerifyException(f"{self.name}: result must be {expected}, got {self.result.type}")


@irdl_op_definition
class IsnanOp(ElementwiseTestOp):
    """``np.isnan``; false for every integer or bool."""

    name = "graph.isnan"


@irdl_op_definition
class IsinfOp(ElementwiseTestOp):
    """``np.isinf`` (either sign); false for every integer or bool."""

    name = "graph.isinf"


@irdl_op_definition
class IsfiniteOp(ElementwiseTestOp):
    """``np.isfinite``: neither inf nor NaN; true for every integer or bool."""

    name = "graph.isfinite"


@irdl_op_definition
class SignbitOp(ElementwiseTestOp):
    """``np.signbit``: whether the sign bit is set (-0.0 and negative NaNs included)."""

    name = "graph.signbit"
    ACCEPTS: ClassVar[str] = "float"


#: the ops of this section, for the dialect
ELEMENTWISE_MATH: tuple[type[IRDLOperation], ...] = (
    TanOp, ArcsinOp, ArccosOp, ArctanOp, SinhOp, CoshOp, ArcsinhOp, ArccoshOp, ArctanhOp,
    Log1pOp, Expm1Op, Log2Op, Log10Op, Exp2Op, CbrtOp, RintOp, TruncOp, SignOp, ReciprocalOp,
    Arctan2Op, HypotOp, CopysignOp, LogaddexpOp, Logaddexp2Op, FmodOp, FmaxOp, FminOp,
    LeftShiftOp, RightShiftOp, IsnanOp, IsinfOp, IsfiniteOp, SignbitOp,
)

COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")


@irdl_op_definition
class CmpOp(IRDLOperation):
    """``%m = graph.cmp "lt", %a, %b : tensor<3xf32> -> tensor<3xi1>``; NaN compares unequal."""

    name = "graph.cmp"
    T: ClassVar = VarConstraint("T", AnyTensor)
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        _build(self, [lhs, rhs], [tensor_type(i1, shape_of(lhs))], {"predicate": StringAttr(predicate)})

    def verify_(self) -> None:
        if self.predicate.data not in COMPARISONS:
            raise VerifyException(
                f"graph.cmp: unknown predicate {self.predicate.data!r}, expected one of {', '.join(COMPARISONS)}"
            )
        if element_of(self.result) != i1 or shape_of(self.result) != shape_of(self.lhs):
            raise VerifyException(
                f"graph.cmp: result must be {tensor_type(i1, shape_of(self.lhs))}, got {self.result.type}"
            )


@irdl_op_definition
class SelectOp(IRDLOperation):
    """NumPy's ``where(cond, a, b)`` with operands already broadcast to one shape."""

    name = "graph.select"
    T: ClassVar = VarConstraint("T", AnyTensor)
    condition = operand_def(AnyTensor)
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$condition `,` $true_value `,` $false_value attr-dict `:` type($condition) `,` type($result)"
    )

    def __init__(self, condition: SSAValue, true_value: SSAValue, false_value: SSAValue):
        _build(self, [condition, true_value, false_value], [true_value.type])

    def verify_(self) -> None:
        if element_of(self.condition) != i1:
            raise VerifyException(f"graph.select: condition must have i1 elements, got {self.condition.type}")
        if shape_of(self.condition) != shape_of(self.result):
            raise VerifyException(
                f"graph.select: condition shape {shape_of(self.condition)} differs from value shape {shape_of(self.result)}"
            )


@irdl_op_definition
class CastOp(IRDLOperation):
    """Element type conversion with NumPy's ``astype`` semantics (float->int truncates)."""

    name = "graph.cast"
    operand = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, element: Attribute):
        _build(self, [operand], [tensor_type(element, shape_of(operand))])

    def verify_(self) -> None:
        if shape_of(self.operand) != shape_of(self.result):
            raise VerifyException(
                f"graph.cast changes element types only, but shape {shape_of(self.operand)} became {shape_of(self.result)}"
            )


# --------------------------------------------------------------------------- complex numbers


def complex_part_type(element: Attribute) -> Attribute:
    """The float type of a complex element's parts (``complex<f64>`` -> ``f64``)."""
    assert isinstance(element, ComplexType)
    return element.element_type


@irdl_op_definition
class ComplexOp(IRDLOperation):
    """``re + im*1j`` from two float tensors of one type and shape:
    ``%z = graph.complex %re, %im : tensor<4xf64> -> tensor<4xcomplex<f64>>``. It is also how
    a complex constant is spelled (two float ``graph.constant`` ops)."""

    name = "graph.complex"
    T: ClassVar = VarConstraint("T", AnyTensor)
    real = operand_def(T)
    imag = operand_def(T)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$real `,` $imag attr-dict `:` type($real) `->` type($result)"

    def __init__(self, real: SSAValue, imag: SSAValue):
        element = ComplexType(element_of(real))
        super().__init__(operands=[real, imag], result_types=[tensor_type(element, shape_of(real))])

    def verify_(self) -> None:
        part = element_of(self.real)
        if not isinstance(part, Float32Type | Float64Type):
            raise VerifyException(f"graph.complex: the parts must be f32 or f64, got {part}")
        if self.result.type != tensor_type(ComplexType(part), shape_of(self.real)):
            raise VerifyException(f"graph.complex: result must be {tensor_type(ComplexType(part), shape_of(self.real))}")


class ComplexToRealOp(IRDLOperation):
    """Base of the ops from a complex tensor to the float tensor of its parts' type."""

    operand = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue):
        part = complex_part_type(element_of(operand))
        super().__init__(operands=[operand], result_types=[tensor_type(part, shape_of(operand))])

    def verify_(self) -> None:
        element = element_of(self.operand)
        if not is_complex(element):
            raise VerifyException(f"{self.name} is defined on complex numbers, got element type {element}")
        if self.result.type != tensor_type(complex_part_type(element), shape_of(self.operand)):
            raise VerifyException(f"{self.name}: result must be {complex_part_type(element)} of the operand's shape")


@irdl_op_definition
class RealOp(ComplexToRealOp):
    """``np.real``: ``%r = graph.real %z : tensor<4xcomplex<f32>> -> tensor<4xf32>``."""

    name = "graph.real"


@irdl_op_definition
class ImagOp(ComplexToRealOp):
    """``np.imag``: ``%i = graph.imag %z : tensor<4xcomplex<f32>> -> tensor<4xf32>``."""

    name = "graph.imag"


@irdl_op_definition
class CabsOp(ComplexToRealOp):
    """``np.abs`` of a complex number, ``hypot(re, im)``: ``%a = graph.cabs %z : tensor<4xcomplex<f64>> -> tensor<4xf64>``."""

    name = "graph.cabs"


@irdl_op_definition
class AngleOp(ComplexToRealOp):
    """``np.angle``, ``atan2(im, re)``: ``%t = graph.angle %z : tensor<4xcomplex<f64>> -> tensor<4xf64>``."""

    name = "graph.angle"


@irdl_op_definition
class ConjOp(ElementwiseUnaryOp):
    """``np.conj``: ``%c = graph.conj %z : tensor<4xcomplex<f64>>`` (the imaginary part negated)."""

    name = "graph.conj"
    ACCEPTS: ClassVar[str] = "complex"


# --------------------------------------------------------------------------- shapes


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """NumPy's broadcasting of shapes (``-1`` = dynamic); ``ValueError`` when incompatible."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d not in (1, -1)}
        if len(known) > 1:
            raise ValueError(
                "operands could not be broadcast together with shapes "
                + " ".join("(" + ",".join("?" if d < 0 else str(d) for d in s) + ")" for s in shapes)
            )
        if known:
            out.append(known.pop())
        elif -1 in dims:
            out.append(-1)
        else:
            out.append(1)
    return tuple(out)


class _ShapeOp(IRDLOperation):
    """One array's elements in another shape: an operand, a result of the same element type."""

    operand = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, shape: Sequence[int]):
        _build(self, [operand], [tensor_type(element_of(operand), shape)])

    def verify_(self) -> None:
        if element_of(self.operand) != element_of(self.result):
            raise VerifyException(f"{self.name} cannot change the element type")
        self.verify_shapes(shape_of(self.operand), shape_of(self.result))

    def verify_shapes(self, src: tuple[int, ...], dst: tuple[int, ...]) -> None:
        """The op's rule for the operand's shape ``src`` and the result's ``dst``."""


@irdl_op_definition
class BroadcastOp(_ShapeOp):
    """NumPy broadcasting made explicit: ``graph.broadcast %x : tensor<3xf32> -> tensor<2x3xf32>``."""

    name = "graph.broadcast"

    def verify_shapes(self, src: tuple[int, ...], dst: tuple[int, ...]) -> None:
        if len(src) > len(dst):
            raise VerifyException(f"graph.broadcast cannot lower the rank: {src} -> {dst}")
        for s, d in zip(src, dst[len(dst) - len(src) :]):
            if s != 1 and not _dims_compatible(s, d):
                raise VerifyException(f"graph.broadcast: shape {src} cannot broadcast to {dst}")


@irdl_op_definition
class ReshapeOp(_ShapeOp):
    """Row-major reshape to a shape with the same number of elements."""

    name = "graph.reshape"

    def verify_shapes(self, src: tuple[int, ...], dst: tuple[int, ...]) -> None:
        if -1 not in src and -1 not in dst and _prod(src) != _prod(dst):
            raise VerifyException(f"graph.reshape: cannot reshape {src} ({_prod(src)} elements) to {dst} ({_prod(dst)} elements)")


@irdl_op_definition
class RelaxShapeOp(_ShapeOp):
    """The same array with some static sizes forgotten (made dynamic): how a value of a known
    shape joins a loop-carried or branch value whose size varies (``z = z[1:]`` in a loop)."""

    name = "graph.relax_shape"

    def verify_shapes(self, src: tuple[int, ...], dst: tuple[int, ...]) -> None:
        if len(src) != len(dst) or any(d != -1 and d != s for s, d in zip(src, dst)):
            raise VerifyException(f"graph.relax_shape: {dst} does not relax {src} (same rank; each size kept or dynamic)")


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """Axis permutation: result dim ``i`` is operand dim ``perm[i]``."""

    name = "graph.transpose"
    operand = operand_def(AnyTensor)
    perm = prop_def(DenseArrayBase)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand `perm` qualified($perm) attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, perm: Sequence[int]):
        src = shape_of(operand)
        super().__init__(
            operands=[operand],
            properties={"perm": _i64_array(perm)},
            result_types=[tensor_type(element_of(operand), [src[p] for p in perm])],
        )

    def verify_(self) -> None:
        perm = list(self.perm.get_values())
        src, dst = shape_of(self.operand), shape_of(self.result)
        if sorted(perm) != list(range(len(src))):
            raise VerifyException(f"graph.transpose: {perm} is not a permutation of {len(src)} axes")
        if tuple(src[p] for p in perm) != dst:
            raise VerifyException(f"graph.transpose: result shape {dst} does not match {src} permuted by {perm}")


@irdl_op_definition
class SliceOp(IRDLOperation):
    """Static strided slice ``x[start:limit:stride, ...]`` per axis (no rank change)."""

    name = "graph.slice"
    operand = operand_def(AnyTensor)
    start = prop_def(DenseArrayBase)
    stride = prop_def(DenseArrayBase)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$operand `start` qualified($start) `stride` qualified($stride) attr-dict `:` type($operand) `->` type($result)"
    )

    def __init__(self, operand: SSAValue, start: Sequence[int], size: Sequence[int], stride: Sequence[int]):
        super().__init__(
            operands=[operand],
            properties={"start": _i64_array(start), "stride": _i64_array(stride)},
            result_types=[tensor_type(element_of(operand), size)],
        )

    def verify_(self) -> None:
        src, dst = shape_of(self.operand), shape_of(self.result)
        start, stride = self.start.get_values(), self.stride.get_values()
        if not (len(src) == len(dst) == len(start) == len(stride)):
            raise VerifyException("graph.slice: start, stride, operand and result must have one entry per axis")
        for axis, (n, m, b, s) in enumerate(zip(src, dst, start, stride)):
            if s == 0:
                raise VerifyException(f"graph.slice: stride of axis {axis} is zero")
            if m < 0:
                raise VerifyException(f"graph.slice: result dim {axis} must be static")
            if n >= 0 and m > 0 and not (0 <= b < n and 0 <= b + (m - 1) * s < n):
                raise VerifyException(
                    f"graph.slice: axis {axis} reads indices {b}..{b + (m - 1) * s} of a dimension of size {n}"
                )


#: the type of a dynamic offset or size: a 0-d i64 tensor
_I64_SCALAR = TensorType(i64, [])

#: marks an offset or size given by an operand in the ``static_*`` arrays of the slice ops below
DYNAMIC = -(2**63)


def _check_index_scalars(op: IRDLOperation, values: Sequence[SSAValue]) -> None:
    for v in values:
        t = v.type
        if not (isinstance(t, TensorType) and not t.get_shape() and t.get_element_type() == i64):
            raise VerifyException(f"{op.name}: dynamic offsets and sizes are 0-d i64 tensors, got {t}")


def _check_mixed(op: IRDLOperation, static: Sequence[int], dynamic: Sequence[SSAValue], what: str) -> None:
    if sum(1 for v in static if v == DYNAMIC) != len(dynamic):
        raise VerifyException(f"{op.name}: {what} has {len(dynamic)} operands for "
                              f"{sum(1 for v in static if v == DYNAMIC)} dynamic entries")


def _mixed(values: Sequence[int | SSAValue]) -> tuple[list[int], list[SSAValue]]:
    """Split offsets or sizes into the static array (DYNAMIC where an operand gives it) and the operands."""
    return ([v if isinstance(v, int) else DYNAMIC for v in values], [v for v in values if not isinstance(v, int)])


@irdl_op_definition
class DynamicSliceOp(IRDLOperation):
    """``x[o0:o0+n0*s0:s0, ...]`` where offsets or sizes are known only at run time (a loop index,
    ``A[i, :j]``): per axis an offset and a size, each a constant or a 0-d i64 operand, and a
    positive constant stride. The frontend keeps every slice in bounds (Python's slice rules);
    no rank change. ``DynamicSliceOp(x, [i, 0], [1, n], [1, 1])`` with SSA values where dynamic."""

    name = "graph.dynamic_slice"
    source = operand_def(AnyTensor)
    offsets = var_operand_def(_I64_SCALAR)
    sizes = var_operand_def(_I64_SCALAR)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$source `[` $offsets `]` `[` $sizes `]` `static_offsets` qualified($static_offsets) `static_sizes` qualified($static_sizes) "
        "`strides` qualified($strides) attr-dict `:` type($source) `->` type($result)"
    )

    def __init__(self, source: SSAValue, offsets: Sequence[int | SSAValue], sizes: Sequence[int | SSAValue],
                 strides: Sequence[int]):
        static_offsets, dyn_offsets = _mixed(offsets)
        static_sizes, dyn_sizes = _mixed(sizes)
        super().__init__(
            operands=[source, dyn_offsets, dyn_sizes],
            properties={"static_offsets": _i64_array(static_offsets), "static_sizes": _i64_array(static_sizes),
                        "strides": _i64_array(strides)},
            result_types=[tensor_type(element_of(source), [-1 if s == DYNAMIC else s for s in static_sizes])],
        )

    def verify_(self) -> None:
        _check_slice_parts(self, self.source, self.result, self.offsets, self.sizes)


@irdl_op_definition
class InsertSliceOp(IRDLOperation):
    """A copy of ``dest`` whose slice (offsets, sizes and positive strides as in
    ``graph.dynamic_slice``) is replaced by ``source``: the functional form of ``x[idx] = v``,
    which bufferization turns back into a store into ``x``'s buffer. ``source`` has the slice's
    shape (no rank change); its dynamic sizes must equal the slice's sizes at run time."""

    name = "graph.insert_slice"
    T: ClassVar = VarConstraint("T", AnyTensor)
    source = operand_def(AnyTensor)
    dest = operand_def(T)
    offsets = var_operand_def(_I64_SCALAR)
    sizes = var_operand_def(_I64_SCALAR)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase)
    result = result_def(T)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$source `into` $dest `[` $offsets `]` `[` $sizes `]` `static_offsets` qualified($static_offsets) `static_sizes` "
        "qualified($static_sizes) `strides` qualified($strides) attr-dict `:` type($source) `into` type($dest)"
    )

    def __init__(self, source: SSAValue, dest: SSAValue, offsets: Sequence[int | SSAValue],
                 sizes: Sequence[int | SSAValue], strides: Sequence[int]):
        static_offsets, dyn_offsets = _mixed(offsets)
        static_sizes, dyn_sizes = _mixed(sizes)
        super().__init__(
            operands=[source, dest, dyn_offsets, dyn_sizes],
            properties={"static_offsets": _i64_array(static_offsets), "static_sizes": _i64_array(static_sizes),
                        "strides": _i64_array(strides)},
            result_types=[dest.type],
        )

    def verify_(self) -> None:
        if self.result.type != self.dest.type:
            raise VerifyException("graph.insert_slice: the result has the destination's type")
        _check_slice_parts(self, self.dest, self.source, self.offsets, self.sizes)


def _check_slice_parts(op: IRDLOperation, whole: SSAValue, part: SSAValue, offsets: Sequence[SSAValue],
                       sizes: Sequence[SSAValue]) -> None:
    """Shared checks of the two slice ops: ranks, element types, operand counts, static bounds."""
    static_offsets = op.static_offsets.get_values()  # type: ignore[attr-defined]
    static_sizes = op.static_sizes.get_values()  # type: ignore[attr-defined]
    strides = op.strides.get_values()  # type: ignore[attr-defined]
    src, dst = shape_of(whole), shape_of(part)
    if not (len(src) == len(dst) == len(static_offsets) == len(static_sizes) == len(strides)):
        raise VerifyException(f"{op.name}: offsets, sizes, strides and both tensors need one entry per axis")
    if element_of(whole) != element_of(part):
        raise VerifyException(f"{op.name}: element types differ")
    _check_mixed(op, static_offsets, offsets, "offsets")
    _check_mixed(op, static_sizes, sizes, "sizes")
    _check_index_scalars(op, [*offsets, *sizes])
    for axis, (n, m, b, k, s) in enumerate(zip(src, dst, static_offsets, static_sizes, strides)):
        if s <= 0:
            raise VerifyException(f"{op.name}: stride of axis {axis} must be positive")
        if (k == DYNAMIC) != (m < 0) or (k != DYNAMIC and k != m):
            raise VerifyException(f"{op.name}: size of axis {axis} is {k if k != DYNAMIC else '?'} but the slice has {m if m >= 0 else '?'}")
        if n >= 0 and b != DYNAMIC and k != DYNAMIC and k > 0 and not (0 <= b and b + (k - 1) * s < n):
            raise VerifyException(f"{op.name}: axis {axis} covers indices {b}..{b + (k - 1) * s} of a dimension of size {n}")


# --------------------------------------------------------------------------- contractions


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """NumPy ``matmul`` result shape for operands with equal batch dims; ``ValueError`` otherwise."""
    if len(a) == 0 or len(b) == 0:
        raise ValueError("matmul: input operand does not have enough dimensions (scalars are not allowed)")
    a2 = (1, *a) if len(a) == 1 else tuple(a)
    b2 = (*b, 1) if len(b) == 1 else tuple(b)
    if not _dims_compatible(a2[-1], b2[-2]):
        raise ValueError(f"matmul: contracted dimensions differ: {a2[-1]} (of {tuple(a)}) vs {b2[-2]} (of {tuple(b)})")
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    out = [*batch, a2[-2], b2[-1]]
    if len(b) == 1:
        out.pop(-1)
    if len(a) == 1:
        out.pop(-2 if len(b) != 1 else -1)
    return tuple(out)


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """NumPy's ``matmul`` (``@``): 1-D operands promoted, batch dims already broadcast equal."""

    name = "graph.matmul"
    lhs = operand_def(AnyTensor)
    rhs = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        shape = matmul_shape(shape_of(lhs), shape_of(rhs))
        super().__init__(operands=[lhs, rhs], result_types=[tensor_type(element_of(lhs), shape)])

    def verify_(self) -> None:
        a, b = shape_of(self.lhs), shape_of(self.rhs)
        if not (element_of(self.lhs) == element_of(self.rhs) == element_of(self.result)):
            raise VerifyException("graph.matmul: operands and result must share an element type")
        try:
            expected = matmul_shape(a, b)
        except ValueError as e:
            raise VerifyException(f"graph.matmul: {e}") from e
        if len(a) > 2 and len(b) > 2 and a[:-2] != b[:-2]:
            raise VerifyException(f"graph.matmul: batch dims {a[:-2]} and {b[:-2]} must be broadcast first")
        if len(expected) != len(shape_of(self.result)) or not all(
            _dims_compatible(x, y) for x, y in zip(expected, shape_of(self.result))
        ):
            raise VerifyException(f"graph.matmul: result shape should be {expected}, got {shape_of(self.result)}")


REDUCTIONS = ("sum", "mean", "max", "min", "prod")


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdims or i not in axes)


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """``graph.reduce "sum" %x axes array<i64: 0> : tensor<3x4xf32> -> tensor<4xf32>``."""

    name = "graph.reduce"
    kind = prop_def(StringAttr)
    operand = operand_def(AnyTensor)
    axes = prop_def(DenseArrayBase)
    keepdims = opt_prop_def(UnitAttr)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$kind `,` $operand `axes` qualified($axes) (`keepdims` $keepdims^)? attr-dict `:` type($operand) `->` type($result)"
    )

    def __init__(self, kind: str, operand: SSAValue, axes: Sequence[int], keepdims: bool = False):
        shape = reduced_shape(shape_of(operand), axes, keepdims)
        props: dict[str, Attribute] = {"kind": StringAttr(kind), "axes": _i64_array(sorted(axes))}
        if keepdims:
            props["keepdims"] = UnitAttr()
        super().__init__(
            operands=[operand], properties=props, result_types=[tensor_type(element_of(operand), shape)]
        )

    def verify_(self) -> None:
        kind, axes = self.kind.data, list(self.axes.get_values())
        src = shape_of(self.operand)
        if kind not in REDUCTIONS:
            raise VerifyException(f"graph.reduce: unknown kind {kind!r}, expected one of {', '.join(REDUCTIONS)}")
        if sorted(set(axes)) != axes or any(not 0 <= a < len(src) for a in axes):
            raise VerifyException(f"graph.reduce: axes {axes} must be sorted, unique and within rank {len(src)}")
        if kind == "mean" and not (is_float(element_of(self.operand)) or is_complex(element_of(self.operand))):
            raise VerifyException("graph.reduce \"mean\" is defined on floats and complex numbers (cast integers first)")
        if element_of(self.operand) != element_of(self.result):
            raise VerifyException("graph.reduce cannot change the element type")
        expected = reduced_shape(src, axes, self.keepdims is not None)
        if expected != shape_of(self.result):
            raise VerifyException(f"graph.reduce: result shape should be {expected}, got {shape_of(self.result)}")



@irdl_op_definition
class ConcatOp(IRDLOperation):
    """NumPy's ``concatenate`` along one axis of same-typed, same-rank operands:
    ``graph.concat %a, %b axis 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>``."""

    name = "graph.concat"
    inputs = var_operand_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$inputs `axis` $axis attr-dict `:` `(` type($inputs) `)` `->` type($result)"

    def __init__(self, inputs: Sequence[SSAValue], axis: int):
        shapes = [shape_of(v) for v in inputs]
        sizes = [s[axis] for s in shapes]
        first = list(shapes[0])
        for s in shapes[1:]:  # a static size wherever some operand knows it
            first = [b if a == -1 else a for a, b in zip(first, s)]
        first[axis] = -1 if -1 in sizes else sum(sizes)
        super().__init__(
            operands=[inputs],
            properties={"axis": IntegerAttr(axis, i64)},
            result_types=[tensor_type(element_of(inputs[0]), first)],
        )

    def verify_(self) -> None:
        axis = self.axis.value.data
        if not self.inputs:
            raise VerifyException("graph.concat needs at least one operand")
        dst = shape_of(self.result)
        if not 0 <= axis < len(dst):
            raise VerifyException(f"graph.concat: axis {axis} is out of range for rank {len(dst)}")
        sizes: list[int] = []
        for i, v in enumerate(self.inputs):
            src = shape_of(v)
            if element_of(v) != element_of(self.result) or len(src) != len(dst):
                raise VerifyException(f"graph.concat: operand {i} has type {v.type}, expected rank {len(dst)} of {element_of(self.result)}")
            for d, (a, b) in enumerate(zip(src, dst)):
                if d != axis and not _dims_compatible(a, b):
                    raise VerifyException(f"graph.concat: operand {i} has size {a} along axis {d}, the result {b}")
            sizes.append(src[axis])
        if -1 not in sizes and dst[axis] not in (-1, sum(sizes)):
            raise VerifyException(f"graph.concat: result size along axis {axis} should be {sum(sizes)}, got {dst[axis]}")


CONV_PADDINGS = ("VALID", "SAME")


def conv2d_output_size(size: int, window: int, stride: int, padding: str) -> int:
    """One spatial output size, as TensorFlow computes it (``-1`` stays dynamic)."""
    if size < 0:
        return -1
    if padding == "SAME":
        return -(-size // stride)
    return max(0, (size - window) // stride + 1)


def conv2d_same_padding(size: int, window: int, stride: int) -> tuple[int, int]:
    """TensorFlow's SAME padding (before, after) of one spatial axis: the odd element goes after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    return total // 2, total - total // 2


def conv2d_shape(x: Sequence[int], f: Sequence[int], strides: Sequence[int], padding: str) -> tuple[int, ...]:
    """NHWC input ``x`` with HWIO filters ``f`` -> the NHWC result shape; ``ValueError`` when they do not fit."""
    if len(x) != 4 or len(f) != 4:
        raise ValueError(f"input must be 4-D NHWC and filters 4-D HWIO, got shapes {tuple(x)} and {tuple(f)}")
    if len(strides) != 2 or any(s < 1 for s in strides):
        raise ValueError(f"strides must be two positive integers, got {tuple(strides)}")
    if padding not in CONV_PADDINGS:
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    if any(d < 0 for d in f):
        raise ValueError(f"filter shape {tuple(f)} must be static")
    if x[3] >= 0 and x[3] != f[2]:
        raise ValueError(f"input has {x[3]} channels but the filters expect {f[2]} (HWIO: dimension 2)")
    for axis, (size, window) in enumerate(zip(x[1:3], f[:2])):
        if padding == "VALID" and 0 <= size < window:
            raise ValueError(f"VALID convolution: input size {size} along spatial axis {axis} is smaller than the filter ({window})")
    oh, ow = (conv2d_output_size(x[1 + i], f[i], strides[i], padding) for i in range(2))
    return (x[0], oh, ow, f[3])


@irdl_op_definition
class Conv2DOp(IRDLOperation):
    """TensorFlow's ``conv2d``: NHWC input, HWIO filters, 2 strides, ``"VALID"``/``"SAME"`` padding:
    ``graph.conv2d %x, %f strides array<i64: 1, 1> padding "VALID" : (tensor<1x5x5x3xf32>,
    tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32>``."""

    name = "graph.conv2d"
    input = operand_def(AnyTensor)
    filter = operand_def(AnyTensor)
    strides = prop_def(DenseArrayBase)
    padding = prop_def(StringAttr)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $filter `strides` qualified($strides) `padding` $padding attr-dict "
        "`:` `(` type($input) `,` type($filter) `)` `->` type($result)"
    )

    def __init__(self, input: SSAValue, filter: SSAValue, strides: Sequence[int], padding: str):
        shape = conv2d_shape(shape_of(input), shape_of(filter), strides, padding)
        super().__init__(
            operands=[input, filter],
            properties={"strides": _i64_array(strides), "padding": StringAttr(padding)},
            result_types=[tensor_type(element_of(input), shape)],
        )

    def verify_(self) -> None:
        if not (element_of(self.input) == element_of(self.filter) == element_of(self.result)):
            raise VerifyException("graph.conv2d: input, filters and result must share an element type")
        if not is_float(element_of(self.input)):
            raise VerifyException(f"graph.conv2d: element type must be a float, got {element_of(self.input)}")
        try:
            expected = conv2d_shape(
                shape_of(self.input), shape_of(self.filter), list(self.strides.get_values()), self.padding.data
            )
        except ValueError as e:
            raise VerifyException(f"graph.conv2d: {e}") from e
        got = shape_of(self.result)
        if len(got) != 4 or not all(_dims_compatible(a, b) for a, b in zip(expected, got)):
            raise VerifyException(f"graph.conv2d: result shape should be {expected}, got {got}")


# --------------------------------------------------------------------------- control flow


def _scalar_bool() -> TensorType:
    return TensorType(i1, [])


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """``!graph.token``: orders side effects. A stateful op consumes the token of the effect
    before it and produces the one after it, so no pass can reorder or drop it."""

    name = "graph.token"


@irdl_attr_definition
class ResourceType(ParametrizedAttribute, TypeAttribute):
    """``!graph.resource<tensor<3xf32>>``: a handle to a ``kiln.Variable``'s storage, passed to
    the function as an argument; read and written only by ``graph.read`` / ``graph.assign``."""

    name = "graph.resource"
    value_type: TensorType

    def __init__(self, value_type: TensorType):
        super().__init__(value_type)


@irdl_op_definition
class TokenOp(IRDLOperation):
    """``%t = graph.token``: the token a function's first side effect waits on.
    It has unknown effects on purpose, so CSE never merges two of them."""

    name = "graph.token"
    token = result_def(TokenType)
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[TokenType()])


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates the regions of ``graph.cond`` and the body of ``graph.while``."""

    name = "graph.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(CondOp, WhileOp)))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        _build_flat(self, values)


@irdl_op_definition
class ConditionOp(IRDLOperation):
    """Terminates the ``cond`` region of ``graph.while``: continue while ``%pred`` holds,
    passing ``values`` to the body (or out as the loop's results)."""

    name = "graph.condition"
    pred = operand_def(_scalar_bool())
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(WhileOp)))
    assembly_format = "$pred (`,` $values^ `:` type($values))? attr-dict"

    def __init__(self, pred: SSAValue, *values: SSAValue):
        _build_flat(self, (pred, *values))


def _terminator_types(region: Region, op_name: str, expected: Sequence[Attribute], what: str) -> None:
    term = region.block.last_op
    if not isinstance(term, (YieldOp, ConditionOp)):
        raise VerifyException(f"{op_name}: {what} must end with graph.yield or graph.condition")
    got = tuple(term.values.types)
    if got != tuple(expected):
        raise VerifyException(
            f"{op_name}: {what} yields ({', '.join(map(str, got))}) but ({', '.join(map(str, expected))}) is expected"
        )


@irdl_op_definition
class CondOp(IRDLOperation):
    """``if`` on a tensor: runs one region, whose ``graph.yield`` gives the results.

    ``%r = graph.cond %p -> (tensor<f32>) { graph.yield %a : tensor<f32> } else { ... }``;
    regions see values from above (not isolated)."""

    name = "graph.cond"
    pred = operand_def(_scalar_bool())
    res = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = "$pred (`->` `(` type($res)^ `)`)? $then_region `else` $else_region attr-dict"

    def __init__(self, pred: SSAValue, result_types: Sequence[Attribute], then_region: Region, else_region: Region):
        _build_flat(self, (pred,), result_types, (then_region, else_region))

    def verify_(self) -> None:
        for region, what in ((self.then_region, "the then-region"), (self.else_region, "the else-region")):
            if region.block.args:
                raise VerifyException(f"graph.cond: {what} takes no arguments")
            _terminator_types(region, self.name, self.res.types, what)


@irdl_op_definition
class WhileOp(IRDLOperation):
    """A loop on tensor values, shaped like ``scf.while``: the ``cond`` region receives the
    carried values and ends in ``graph.condition``; the ``body`` receives what the condition
    forwarded and yields the next carried values. Loop-carried types never change."""

    name = "graph.while"
    init = var_operand_def()
    res = var_result_def()
    cond_region = region_def("single_block")
    body_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = "`(` $init `)` `:` functional-type($init, $res) `cond` $cond_region `do` $body_region attr-dict"

    def __init__(self, init: Sequence[SSAValue], cond_region: Region, body_region: Region):
        _build_flat(self, init, [v.type for v in init], (cond_region, body_region))

    def verify_(self) -> None:
        carried = tuple(self.init.types)
        if tuple(self.res.types) != carried:
            raise VerifyException("graph.while: results must have the types of the initial values")
        for region, what in ((self.cond_region, "the cond region"), (self.body_region, "the body")):
            if tuple(region.block.arg_types) != carried:
                raise VerifyException(f"graph.while: {what} must take the carried values as arguments")
        cond_term = self.cond_region.block.last_op
        if not isinstance(cond_term, ConditionOp):
            raise VerifyException("graph.while: the cond region must end with graph.condition")
        _terminator_types(self.cond_region, self.name, carried, "the cond region")
        if not isinstance(self.body_region.block.last_op, YieldOp):
            raise VerifyException("graph.while: the body must end with graph.yield")
        _terminator_types(self.body_region, self.name, carried, "the body")


# --------------------------------------------------------------------------- dynamic indexing


def _check_index(op: Operation, index: SSAValue) -> None:
    t = index.type
    if not (isinstance(t, TensorType) and not t.get_shape() and element_of(t) in (IntegerType(32), i64)):
        raise VerifyException(f"{op.name}: the index must be a 0-d int32 or int64 tensor, got {t}")


@irdl_op_definition
class GatherRowOp(IRDLOperation):
    """``x[i]`` with a traced index: row ``i`` of axis 0 (negative ``i`` counts from the end;
    out-of-range indices are clamped, after the frontend's ``graph.check`` raised IndexError)."""

    name = "graph.gather_row"
    operand = operand_def(AnyTensor)
    index = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand `[` $index `]` attr-dict `:` type($operand) `,` type($index) `->` type($result)"

    def __init__(self, operand: SSAValue, index: SSAValue):
        shape = shape_of(operand)[1:]
        super().__init__(operands=[operand, index], result_types=[tensor_type(element_of(operand), shape)])

    def verify_(self) -> None:
        _check_index(self, self.index)
        src = shape_of(self.operand)
        if not src or shape_of(self.result) != src[1:] or element_of(self.result) != element_of(self.operand):
            raise VerifyException(f"graph.gather_row: result must be a row of {self.operand.type}, got {self.result.type}")


@irdl_op_definition
class ScatterRowOp(IRDLOperation):
    """A copy of ``operand`` with row ``index`` of axis 0 replaced by ``row`` (TensorArray.write)."""

    name = "graph.scatter_row"
    T: ClassVar = VarConstraint("T", AnyTensor)
    operand = operand_def(T)
    index = operand_def(AnyTensor)
    row = operand_def(AnyTensor)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$row `into` $operand `[` $index `]` attr-dict `:` type($row) `,` type($operand) `,` type($index)"
    )

    def __init__(self, operand: SSAValue, index: SSAValue, row: SSAValue):
        super().__init__(operands=[operand, index, row], result_types=[operand.type])

    def verify_(self) -> None:
        _check_index(self, self.index)
        if shape_of(self.row) != shape_of(self.operand)[1:] or element_of(self.row) != element_of(self.operand):
            raise VerifyException(f"graph.scatter_row: row {self.row.type} does not fit a row of {self.operand.type}")
        if self.result.type != self.operand.type:
            raise VerifyException("graph.scatter_row: the result has the operand's type")


SCATTER_KINDS = ("set", "add", "mul", "max", "min")


def _check_gather_indices(op: Operation, indices: Sequence[SSAValue], operand: SSAValue) -> tuple[int, ...]:
    """The common shape ``B`` of integer-array ``indices`` (i64, one per leading axis of ``operand``)."""
    if not indices:
        raise VerifyException(f"{op.name}: at least one index array")
    if len(indices) > len(shape_of(operand)):
        raise VerifyException(f"{op.name}: {len(indices)} index arrays for a rank-{len(shape_of(operand))} operand")
    batch = shape_of(indices[0])
    for index in indices:
        if element_of(index) != i64:
            raise VerifyException(f"{op.name}: index arrays are i64 tensors, got {index.type}")
        shape = shape_of(index)
        if len(shape) != len(batch) or not all(_dims_compatible(a, b) for a, b in zip(shape, batch)):
            raise VerifyException(f"{op.name}: index arrays share one shape, got {index.type} and {indices[0].type}")
    return batch


def _check_gathered(op: Operation, what: str, value: SSAValue, batch: tuple[int, ...], operand: SSAValue, k: int) -> None:
    want = (*batch, *shape_of(operand)[k:])
    have = shape_of(value)
    if len(have) != len(want) or not all(_dims_compatible(a, b) for a, b in zip(have, want)):
        raise VerifyException(f"{op.name}: {what} {value.type} does not have the shape index arrays + trailing axes")


@irdl_op_definition
class GatherOp(IRDLOperation):
    """``x[i0, ..., ik-1]`` with integer-array indices of one shape ``B`` on the first ``k`` axes
    (NumPy's advanced indexing, the frontend having moved those axes first and broadcast the
    indices): the result has shape ``B + x.shape[k:]``. Negative indices count from the end;
    out-of-range ones are clamped, as for ``gather_row`` (docs/numpy-semantics.md):
    ``graph.gather %x[%i] : (tensor<10x3xf64>, tensor<4xi64>) -> tensor<4x3xf64>``."""

    name = "graph.gather"
    operand = operand_def(AnyTensor)
    indices = var_operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand `[` $indices `]` attr-dict `:` functional-type(operands, results)"

    def __init__(self, operand: SSAValue, indices: Sequence[SSAValue]):
        shape = (*shape_of(indices[0]), *shape_of(operand)[len(indices):])
        super().__init__(operands=[operand, list(indices)], result_types=[tensor_type(element_of(operand), shape)])

    def verify_(self) -> None:
        batch = _check_gather_indices(self, self.indices, self.operand)
        _check_gathered(self, "the result", self.result, batch, self.operand, len(self.indices))
        if element_of(self.result) != element_of(self.operand):
            raise VerifyException("graph.gather: the result has the operand's element type")


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """A copy of ``x`` with ``x[i0, ..., ik-1]`` (as ``graph.gather`` reads it) combined with
    ``updates`` of shape ``B + x.shape[k:]``, one index position after another in row-major order:
    ``set`` replaces (the last write to a repeated index wins, as NumPy's ``x[i] = v``),
    ``add``/``mul``/``max``/``min`` accumulate (``np.add.at``). ``updates`` may have another
    element type than ``x``: each element is combined in the updates' type, then cast:
    ``graph.scatter "add" %u into %x[%i] : (tensor<4xf64>, tensor<10xf64>, tensor<4xi64>) -> tensor<10xf64>``."""

    name = "graph.scatter"
    kind = prop_def(StringAttr)
    updates = operand_def(AnyTensor)
    operand = operand_def(AnyTensor)
    indices = var_operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$kind $updates `into` $operand `[` $indices `]` attr-dict `:` functional-type(operands, results)"

    def __init__(self, kind: str, operand: SSAValue, indices: Sequence[SSAValue], updates: SSAValue):
        super().__init__(
            operands=[updates, operand, list(indices)], result_types=[operand.type], properties={"kind": StringAttr(kind)}
        )

    def verify_(self) -> None:
        if self.kind.data not in SCATTER_KINDS:
            raise VerifyException(f"graph.scatter: kind must be one of {', '.join(SCATTER_KINDS)}, got {self.kind.data!r}")
        batch = _check_gather_indices(self, self.indices, self.operand)
        _check_gathered(self, "the updates", self.updates, batch, self.operand, len(self.indices))
        if self.result.type != self.operand.type:
            raise VerifyException("graph.scatter: the result has the operand's type")
        if self.kind.data == "set" and element_of(self.updates) != element_of(self.operand):
            raise VerifyException("graph.scatter: \"set\" updates have the operand's element type")


@irdl_op_definition
class IotaOp(IRDLOperation):
    """``0, 1, ..., n-1`` as i64, ``n`` a 0-d i64 tensor known only at run time (``np.arange`` with
    traced bounds; a negative ``n`` gives an empty result):
    ``%r = graph.iota %n : tensor<i64> -> tensor<?xi64>``."""

    name = "graph.iota"
    count = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$count attr-dict `:` type($count) `->` type($result)"

    def __init__(self, count: SSAValue):
        super().__init__(operands=[count], result_types=[tensor_type(i64, [DYNAMIC])])

    def verify_(self) -> None:
        _check_index_scalars(self, [self.count])
        if len(shape_of(self.result)) != 1 or element_of(self.result) != i64:
            raise VerifyException(f"graph.iota: the result is a 1-D i64 tensor, got {self.result.type}")


@irdl_op_definition
class NonzeroOp(IRDLOperation):
    """The positions of the nonzero elements of a 1-D tensor, in increasing order, as i64 of a
    length known only at run time (``np.flatnonzero``): an element is nonzero when it is not
    ``== 0`` (a true bool, NaN, a complex number with either part nonzero):
    ``%i = graph.nonzero %x : tensor<8xf32> -> tensor<?xi64>``."""

    name = "graph.nonzero"
    operand = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue):
        super().__init__(operands=[operand], result_types=[tensor_type(i64, [DYNAMIC])])

    def verify_(self) -> None:
        if len(shape_of(self.operand)) != 1:
            raise VerifyException(f"graph.nonzero: the operand is a 1-D tensor, got {self.operand.type}")
        if len(shape_of(self.result)) != 1 or element_of(self.result) != i64:
            raise VerifyException(f"graph.nonzero: the result is a 1-D i64 tensor, got {self.result.type}")


@irdl_op_definition
class CompressOp(IRDLOperation):
    """The elements of the 1-D ``values`` whose element of the 1-D ``mask`` (any element type) is
    nonzero, in order, of a length known only at run time (NumPy's ``values[mask]``; nonzero as
    ``graph.nonzero`` says): ``%r = graph.compress %v, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>``.
    The two have one length: checked here when both are static; where either is known only at run
    time, the frontend checks it when the function runs (NumPy's IndexError) before this op reads."""

    name = "graph.compress"
    values = operand_def(AnyTensor)
    mask = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$values `,` $mask attr-dict `:` functional-type(operands, results)"

    def __init__(self, values: SSAValue, mask: SSAValue):
        super().__init__(operands=[values, mask], result_types=[tensor_type(element_of(values), [DYNAMIC])])

    def verify_(self) -> None:
        vs, ms = shape_of(self.values), shape_of(self.mask)
        if len(vs) != 1 or len(ms) != 1:
            raise VerifyException(f"graph.compress: 1-D values and mask, got {self.values.type} and {self.mask.type}")
        if vs[0] >= 0 and ms[0] >= 0 and vs[0] != ms[0]:
            raise VerifyException(f"graph.compress: the values and the mask have one length, got {vs[0]} and {ms[0]}")
        if shape_of(self.result) != (-1,) or element_of(self.result) != element_of(self.values):
            raise VerifyException(
                f"graph.compress: the result is a 1-D tensor of a dynamic length and the values' element type, got {self.result.type}"
            )


@irdl_op_definition
class DimOp(IRDLOperation):
    """The runtime size of dimension ``axis`` as a 0-d ``i64`` tensor, so that staged code can
    compute with a dynamic size (a loop over the rows of ``tensor<?x4xf32>``, ``len(x)``):
    ``%n = graph.dim %x, 0 : tensor<?x4xf32> -> tensor<i64>``."""

    name = "graph.dim"
    operand = operand_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand `,` $axis attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, axis: int):
        super().__init__(
            operands=[operand], properties={"axis": IntegerAttr(axis, i64)}, result_types=[tensor_type(i64, ())]
        )

    def verify_(self) -> None:
        rank = len(shape_of(self.operand))
        if not 0 <= self.axis.value.data < rank:
            raise VerifyException(f"graph.dim: axis {self.axis.value.data} is out of range for rank {rank}")
        if self.result.type != tensor_type(i64, ()):
            raise VerifyException(f"graph.dim: the result must be tensor<i64>, got {self.result.type}")


@irdl_op_definition
class PadToBoundOp(IRDLOperation):
    """``value`` at the front of a larger tensor whose axis ``axes[i]`` has the size ``sizes[i]``
    (a 0-d i64 tensor), known to be at least ``value``'s there (``x[mask]`` has at most
    ``mask.size`` elements); the other axes keep ``value``'s sizes and the elements past
    ``value``'s are undefined. How a function returns a result whose length only its data decides:
    its caller allocates the bound (graph-bound-results, docs/abi.md). A padded axis is static
    where its size is a ``graph.constant``:
    ``%p = graph.pad_to_bound %r axes array<i64: 0> sizes[%n] : tensor<?x3xf32> -> tensor<?x3xf32>``."""

    name = "graph.pad_to_bound"
    value = operand_def(AnyTensor)
    sizes = var_operand_def(_I64_SCALAR)
    axes = prop_def(DenseArrayBase)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$value `axes` qualified($axes) `sizes` `[` $sizes `]` attr-dict `:` type($value) `->` type($result)"

    def __init__(self, value: SSAValue, sizes: Sequence[SSAValue], axes: Sequence[int]):
        shape = list(shape_of(value))
        for axis, size in zip(axes, sizes):
            known = size.owner if isinstance(size.owner, ConstantOp) else None
            shape[axis] = int(known.value.get_values()[0]) if known is not None else -1
        super().__init__(operands=[value, sizes], properties={"axes": _i64_array(axes)},
                         result_types=[tensor_type(element_of(value), shape)])

    def verify_(self) -> None:
        axes = list(self.axes.get_values())
        src, dst = shape_of(self.value), shape_of(self.result)
        if len(axes) != len(self.sizes) or len(set(axes)) != len(axes) or not all(0 <= a < len(src) for a in axes):
            raise VerifyException("graph.pad_to_bound: one size per padded axis, each axis of the value at most once")
        if element_of(self.result) != element_of(self.value) or len(dst) != len(src):
            raise VerifyException("graph.pad_to_bound: the result has the value's element type and rank")
        for axis, (s, d) in enumerate(zip(src, dst)):
            if axis not in axes and s != d:
                raise VerifyException(f"graph.pad_to_bound: axis {axis} is not padded, so keeps its size")


# --------------------------------------------------------------------------- side effects


@irdl_op_definition
class PrintOp(IRDLOperation):
    """``kiln.print``: prints ``format`` with each ``{}`` replaced by the next value
    (docs/printing.md), on every call, in program order. The token operand and result are
    added by ``graph-order-effects``; before that pass the op's effects keep it in place."""

    name = "graph.print"
    tok_in = opt_operand_def(TokenType)
    format = prop_def(StringAttr)
    values = var_operand_def(AnyTensor)
    tok_out = opt_result_def(TokenType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = "(`after` $tok_in^)? $format (`(` $values^ `:` type($values) `)`)? attr-dict (`->` type($tok_out)^)?"

    def __init__(self, format: str, values: Sequence[SSAValue], token: SSAValue | None = None):
        super().__init__(
            operands=[[] if token is None else [token], list(values)],
            properties={"format": StringAttr(format)},
            result_types=[[] if token is None else [TokenType()]],
        )

    def verify_(self) -> None:
        holes = self.format.data.replace("{{", "").replace("}}", "").count("{}")
        if holes != len(self.values):
            raise VerifyException(f"graph.print: the format has {holes} '{{}}' but {len(self.values)} values are given")
        _check_token_pair(self)


def error_prefix(kind: type[Exception]) -> str:
    """The start of a ``graph.check`` message that raises ``kind`` (the rest of the message is its
    text): ``"IndexError: "``; none for ValueError, the default. ``kind`` is one of Python's builtin
    exceptions that take a message, since the native entry finds it by name among the builtins."""
    if kind is ValueError:
        return ""
    if getattr(builtins, kind.__name__, None) is not kind or not issubclass(kind, Exception):
        raise ValueError(f"graph.check raises Python's builtin exceptions only, not {kind.__qualname__}")
    return f"{kind.__name__}: "


#: in a ``graph.check`` message, between the exception's text and the user's line: a user's own
#: ``raise`` or ``assert`` raises their text as Python would, the line coming as a note on it
WHERE_SEPARATOR = "\x1e"


def users_message(prefix: str, text: str, where: str, after: str = "") -> str:
    """A ``graph.check`` message raising a user's own exception: :func:`error_prefix`'s ``prefix``,
    their ``text`` exactly, then the line (``where``, ``after`` it) for the note."""
    return f"{prefix}{text}{WHERE_SEPARATOR}{where}{': ' + after if after else ''}"


def where_note(where: str) -> str:
    """The note on a user's exception raised by a run-time check (kiln_entry.c writes the same)."""
    return f"raised at {where} (a run-time check of a kiln.function)"


def check_error(message: str) -> Exception:
    """The exception a failed ``graph.check`` with ``message`` raises in the caller (ValueError
    unless the message starts with an :func:`error_prefix`; kiln_entry.c decodes it the same way),
    with the line after a :data:`WHERE_SEPARATOR` as a note."""
    text, located, where = message.partition(WHERE_SEPARATOR)
    name, sep, rest = text.partition(": ")
    kind = getattr(builtins, name, None) if sep and name.isidentifier() else None
    error = kind(rest) if isinstance(kind, type) and issubclass(kind, Exception) else ValueError(text)
    if located:
        error.add_note(where_note(where))
    return error


#: a ``graph.check`` message that starts with this raises IndexError (the rest of the message)
INDEX_ERROR = error_prefix(IndexError)
#: a ``graph.check`` message that starts with this raises OverflowError (the rest of the message)
OVERFLOW_ERROR = error_prefix(OverflowError)


@irdl_op_definition
class CheckOp(IRDLOperation):
    """A run-time condition NumPy would raise on, that tracing could not decide (two lengths
    known only at run time must match, a traced index must be in range): when ``cond`` is
    false, the call stops and raises ``ValueError(message)`` in the caller, or another of
    Python's builtin exceptions when the message starts with its :func:`error_prefix`
    (:data:`INDEX_ERROR`, :data:`OVERFLOW_ERROR`, ``AssertionError: `` for a staged ``assert``).
    Ordered like
    ``graph.print`` (a print before a failing check still prints; none after it does):
    ``graph.check %ok, "f.py:3: ..." : tensor<i1>``."""

    name = "graph.check"
    tok_in = opt_operand_def(TokenType)
    cond = operand_def(AnyTensor)
    message = prop_def(StringAttr)
    tok_out = opt_result_def(TokenType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = "(`after` $tok_in^)? $cond `,` $message attr-dict `:` type($cond) (`->` type($tok_out)^)?"

    def __init__(self, cond: SSAValue, message: str, token: SSAValue | None = None):
        super().__init__(
            operands=[[] if token is None else [token], [cond]],
            properties={"message": StringAttr(message)},
            result_types=[[] if token is None else [TokenType()]],
        )

    def verify_(self) -> None:
        if self.cond.type != tensor_type(i1, ()):
            raise VerifyException(f"graph.check: the condition must be tensor<i1>, got {self.cond.type}")
        _check_token_pair(self)


def _check_token_pair(op: Operation) -> None:
    tok_in, tok_out = getattr(op, "tok_in"), getattr(op, "tok_out")
    if (tok_in is None) != (tok_out is None):
        raise VerifyException(f"{op.name}: takes a token if and only if it produces one")


def _resource_value_type(op: Operation, resource: SSAValue) -> TensorType:
    if not isinstance(resource.type, ResourceType):
        raise VerifyException(f"{op.name}: expected a !graph.resource, got {resource.type}")
    return resource.type.value_type


@irdl_op_definition
class ReadOp(IRDLOperation):
    """Reads a variable's current value:
    ``%v = graph.read %var : !graph.resource<tensor<3xf32>> -> tensor<3xf32>``."""

    name = "graph.read"
    resource = operand_def(ResourceType)
    tok_in = opt_operand_def(TokenType)
    value = result_def(AnyTensor)
    tok_out = opt_result_def(TokenType)
    traits = traits_def(MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$resource (`after` $tok_in^)? attr-dict `:` type($resource) `->` type($value) (`,` type($tok_out)^)?"
    )

    def __init__(self, resource: SSAValue, token: SSAValue | None = None):
        assert isinstance(resource.type, ResourceType)
        super().__init__(
            operands=[resource, [] if token is None else [token]],
            result_types=[resource.type.value_type, [] if token is None else [TokenType()]],
        )

    def verify_(self) -> None:
        if _resource_value_type(self, self.resource) != self.value.type:
            raise VerifyException(f"graph.read: reads {self.resource.type} as {self.value.type}")
        _check_token_pair(self)


@irdl_op_definition
class AssignOp(IRDLOperation):
    """Writes a variable: ``graph.assign %v to %var : tensor<3xf32> to !graph.resource<tensor<3xf32>>``."""

    name = "graph.assign"
    resource = operand_def(ResourceType)
    value = operand_def(AnyTensor)
    tok_in = opt_operand_def(TokenType)
    tok_out = opt_result_def(TokenType)
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$value `to` $resource (`after` $tok_in^)? attr-dict `:` type($value) `to` type($resource) (`->` type($tok_out)^)?"
    )

    def __init__(self, resource: SSAValue, value: SSAValue, token: SSAValue | None = None):
        super().__init__(
            operands=[resource, value, [] if token is None else [token]],
            result_types=[[] if token is None else [TokenType()]],
        )

    def verify_(self) -> None:
        if _resource_value_type(self, self.resource) != self.value.type:
            raise VerifyException(f"graph.assign: cannot store {self.value.type} in {self.resource.type}")
        _check_token_pair(self)


# --------------------------------------------------------------------------- sequential algorithms


SCANS = ("add", "mul", "max", "min")


def _check_axis(op: Operation, axis: int, rank: int) -> None:
    if not 0 <= axis < rank:
        raise VerifyException(f"{op.name}: axis {axis} is out of range for rank {rank}")


@irdl_op_definition
class ScanOp(IRDLOperation):
    """Inclusive scan along ``axis``, in order (NumPy's ``cumsum``, ``cumprod``, ``maximum.accumulate``):
    ``graph.scan "add", %x axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>``. ``max``/``min`` propagate NaN."""

    name = "graph.scan"
    kind = prop_def(StringAttr)
    operand = operand_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$kind `,` $operand `axis` $axis attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, kind: str, operand: SSAValue, axis: int):
        super().__init__(
            operands=[operand],
            properties={"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)},
            result_types=[operand.type],
        )

    def verify_(self) -> None:
        if self.kind.data not in SCANS:
            raise VerifyException(f"graph.scan: unknown kind {self.kind.data!r}, expected one of {', '.join(SCANS)}")
        _check_axis(self, self.axis.value.data, len(shape_of(self.operand)))
        if self.result.type != self.operand.type:
            raise VerifyException("graph.scan: the result has the operand's type")


@irdl_op_definition
class ArgReduceOp(IRDLOperation):
    """The position (i64) of the first largest (``max``) or smallest (``min``) element of each line
    along ``axis``, or of its first NaN (``np.argmax``/``np.argmin``); the axis is removed:
    ``graph.argreduce "max", %x axis 1 : tensor<3x4xf32> -> tensor<3xi64>``."""

    name = "graph.argreduce"
    kind = prop_def(StringAttr)
    operand = operand_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$kind `,` $operand `axis` $axis attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, kind: str, operand: SSAValue, axis: int):
        shape = [d for i, d in enumerate(shape_of(operand)) if i != axis]
        super().__init__(
            operands=[operand],
            properties={"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)},
            result_types=[tensor_type(i64, shape)],
        )

    def verify_(self) -> None:
        if self.kind.data not in ("max", "min"):
            raise VerifyException(f"graph.argreduce: kind must be 'max' or 'min', got {self.kind.data!r}")
        src, axis = shape_of(self.operand), self.axis.value.data
        _check_axis(self, axis, len(src))
        if src[axis] == 0:
            raise VerifyException("graph.argreduce: the axis is empty (NumPy raises: no position to return)")
        expected = tensor_type(i64, [d for i, d in enumerate(src) if i != axis])
        if self.result.type != expected:
            raise VerifyException(f"graph.argreduce: the result should be {expected}, got {self.result.type}")


@irdl_op_definition
class SortOp(IRDLOperation):
    """Each line along ``axis`` sorted ascending, NaN last (``np.sort``):
    ``graph.sort %x axis 1 : tensor<3x4xf32> -> tensor<3x4xf32>``."""

    name = "graph.sort"
    operand = operand_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand `axis` $axis attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, axis: int):
        super().__init__(operands=[operand], properties={"axis": IntegerAttr(axis, i64)}, result_types=[operand.type])

    def verify_(self) -> None:
        _check_axis(self, self.axis.value.data, len(shape_of(self.operand)))
        if self.result.type != self.operand.type:
            raise VerifyException("graph.sort: the result has the operand's type")


@irdl_op_definition
class ArgsortOp(IRDLOperation):
    """The positions that sort each line along ``axis``, stably (equal elements keep their order,
    NaN last), as i64 (``np.argsort(kind="stable")``):
    ``graph.argsort %x axis 0 : tensor<5xf32> -> tensor<5xi64>``."""

    name = "graph.argsort"
    operand = operand_def(AnyTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand `axis` $axis attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, axis: int):
        super().__init__(
            operands=[operand],
            properties={"axis": IntegerAttr(axis, i64)},
            result_types=[tensor_type(i64, shape_of(operand))],
        )

    def verify_(self) -> None:
        _check_axis(self, self.axis.value.data, len(shape_of(self.operand)))
        if self.result.type != tensor_type(i64, shape_of(self.operand)):
            raise VerifyException("graph.argsort: the result is i64 of the operand's shape")


@irdl_op_definition
class BincountOp(IRDLOperation):
    """How often each value ``0 <= v < N`` occurs in the 1-D i64 ``operand`` (i64 counts), or the sum
    of the f64 ``weights`` at its positions (f64), ``N`` being the result's static length (``np.bincount``
    with ``minlength=N``); values outside ``[0, N)`` are not counted:
    ``graph.bincount %x, %w : (tensor<?xi64>, tensor<?xf64>) -> tensor<8xf64>``."""

    name = "graph.bincount"
    operand = operand_def(AnyTensor)
    weights = opt_operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand (`,` $weights^)? attr-dict `:` functional-type(operands, results)"

    def __init__(self, operand: SSAValue, weights: SSAValue | None, length: int):
        element = i64 if weights is None else Float64Type()
        super().__init__(operands=[operand, [] if weights is None else [weights]], result_types=[tensor_type(element, [length])])

    def verify_(self) -> None:
        if len(shape_of(self.operand)) != 1 or element_of(self.operand) != i64:
            raise VerifyException("graph.bincount: the operand must be a 1-D i64 tensor")
        result = shape_of(self.result)
        if len(result) != 1 or result[0] < 0:
            raise VerifyException("graph.bincount: the result must be 1-D of a static length")
        if self.weights is None:
            if element_of(self.result) != i64:
                raise VerifyException("graph.bincount: counts are i64")
            return
        if element_of(self.weights) != Float64Type() or element_of(self.result) != Float64Type():
            raise VerifyException("graph.bincount: weights and their sums are f64")
        if len(shape_of(self.weights)) != 1 or not _dims_compatible(shape_of(self.weights)[0], shape_of(self.operand)[0]):
            raise VerifyException("graph.bincount: one weight per element of the operand")


@irdl_op_definition
class HistogramOp(IRDLOperation):
    """Counts of the 1-D float ``operand`` in ``n`` equal bins, and per ``weights`` operand the sums
    of its weights in each bin (``np.histogram`` with an int ``bins``), in one pass over the data.
    A value is counted when ``low <= x <= high``; its bin is ``int((x - low) / span * n)`` (``n`` the
    last edge's, moved to ``n - 1``), then moved down one when ``x < edges[bin]`` or up one when
    ``x >= edges[bin + 1]`` (not past ``n - 1``): NumPy's arithmetic and its correction by the ``n + 1``
    ``edges``, all in the operand's type. Weights are summed in f64 per block of 65536 elements
    (in index order), each block's sums converted to the result's type and added to it, as NumPy's
    histogram does; counts are i64:
    ``graph.histogram %x, %lo, %hi, %span, %edges, %w : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>,
    tensor<11xf64>, tensor<?xf32>) -> (tensor<10xi64>, tensor<10xf32>)``."""

    name = "graph.histogram"
    operand = operand_def(AnyTensor)
    low = operand_def(AnyTensor)
    high = operand_def(AnyTensor)
    span = operand_def(AnyTensor)
    edges = operand_def(AnyTensor)
    weights = var_operand_def(AnyTensor)
    counts = result_def(AnyTensor)
    sums = var_result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$operand `,` $low `,` $high `,` $span `,` $edges (`,` $weights^)? attr-dict `:` functional-type(operands, results)"

    def __init__(self, operand: SSAValue, low: SSAValue, high: SSAValue, span: SSAValue, edges: SSAValue,
                 weights: Sequence[SSAValue]):
        n = shape_of(edges)[0] - 1
        super().__init__(
            operands=[operand, low, high, span, edges, list(weights)],
            result_types=[tensor_type(i64, [n]), [tensor_type(element_of(w), [n]) for w in weights]],
        )

    def verify_(self) -> None:
        t = element_of(self.operand)
        if len(shape_of(self.operand)) != 1 or not isinstance(t, (Float32Type, Float64Type)):
            raise VerifyException("graph.histogram: the operand must be a 1-D f32 or f64 tensor")
        if any(v.type != tensor_type(t, []) for v in (self.low, self.high, self.span)):
            raise VerifyException("graph.histogram: low, high and span are 0-d of the operand's type")
        edges = shape_of(self.edges)
        if len(edges) != 1 or edges[0] < 2 or element_of(self.edges) != t:
            raise VerifyException("graph.histogram: the edges are 1-D, at least 2, of the operand's type")
        if self.counts.type != tensor_type(i64, [edges[0] - 1]):
            raise VerifyException("graph.histogram: the counts are i64, one per bin")
        if len(self.sums) != len(self.weights):
            raise VerifyException("graph.histogram: one result of sums per weights operand")
        for w, s in zip(self.weights, self.sums):
            if len(shape_of(w)) != 1 or not _dims_compatible(shape_of(w)[0], shape_of(self.operand)[0]):
                raise VerifyException("graph.histogram: one weight per element of the operand")
            if not isinstance(element_of(w), (Float32Type, Float64Type)) or s.type != tensor_type(element_of(w), [edges[0] - 1]):
                raise VerifyException("graph.histogram: f32 or f64 weights, summed in their type, one sum per bin")


SEARCH_SIDES = ("left", "right")


@irdl_op_definition
class SearchsortedOp(IRDLOperation):
    """For each of ``values``, the position in the sorted 1-D ``sorted`` where it would be inserted
    (before equal elements for side ``left``, after them for ``right``; NaN sorts last), as i64
    (``np.searchsorted``): ``graph.searchsorted "left", %a, %v : (tensor<5xf32>, tensor<3xf32>) -> tensor<3xi64>``."""

    name = "graph.searchsorted"
    side = prop_def(StringAttr)
    sorted = operand_def(AnyTensor)
    values = operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$side `,` $sorted `,` $values attr-dict `:` functional-type(operands, results)"

    def __init__(self, side: str, sorted_: SSAValue, values: SSAValue):
        super().__init__(
            operands=[sorted_, values],
            properties={"side": StringAttr(side)},
            result_types=[tensor_type(i64, shape_of(values))],
        )

    def verify_(self) -> None:
        if self.side.data not in SEARCH_SIDES:
            raise VerifyException(f"graph.searchsorted: side must be 'left' or 'right', got {self.side.data!r}")
        if len(shape_of(self.sorted)) != 1 or element_of(self.sorted) != element_of(self.values):
            raise VerifyException("graph.searchsorted: a 1-D sorted operand of the values' element type")
        if self.result.type != tensor_type(i64, shape_of(self.values)):
            raise VerifyException("graph.searchsorted: the result is i64 of the values' shape")


# ---------------------------------------------------------------------- dense linear algebra

#: ``graph.linalg`` kinds and their operand counts (``solve`` takes ``a`` and ``b``)
LINALG_KINDS: dict[str, int] = {"cholesky": 1, "inv": 1, "det": 1, "solve": 2}


def linalg_shape(kind: str, operand_shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The result shape of ``np.linalg.<kind>``: ``a``'s for cholesky/inv, ``()`` for det, ``b``'s for solve."""
    if kind == "det":
        return ()
    return tuple(operand_shapes[-1])


@irdl_op_definition
class LinalgOp(IRDLOperation):
    """``graph.linalg "cholesky" %a : (tensor<4x4xf64>) -> tensor<4x4xf64>``: one ``np.linalg`` routine.

    ``a`` is a static square float matrix; ``solve``'s ``b`` is a vector or a matrix of as many rows
    (NumPy's ``b.ndim == 1`` rule). One op with a ``kind`` keeps the family small: every kind lowers
    the same way (a call to a C loop nest, ``kernel.linalg``). Singular / not positive-definite inputs
    give NaNs (NumPy raises ``LinAlgError``; compiled code cannot)."""

    name = "graph.linalg"
    kind = prop_def(StringAttr)
    args = var_operand_def(AnyTensor)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())
    assembly_format = "$kind $args attr-dict `:` `(` type($args) `)` `->` type($result)"

    def __init__(self, kind: str, args: Sequence[SSAValue]):
        shape = linalg_shape(kind, [shape_of(a) for a in args])
        super().__init__(
            operands=[list(args)],
            properties={"kind": StringAttr(kind)},
            result_types=[tensor_type(element_of(args[0]), shape)],
        )

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in LINALG_KINDS:
            raise VerifyException(f"graph.linalg: unknown kind {kind!r} (expected one of {sorted(LINALG_KINDS)})")
        if len(self.args) != LINALG_KINDS[kind]:
            raise VerifyException(f"graph.linalg {kind!r} takes {LINALG_KINDS[kind]} operand(s), got {len(self.args)}")
        element = element_of(self.args[0])
        real = element.element_type if isinstance(element, ComplexType) else element
        if not isinstance(real, (Float32Type, Float64Type)) or any(element_of(v) != element for v in [*self.args, self.result]):
            raise VerifyException("graph.linalg: operands and result must share an f32, f64 or complex element type")
        if isinstance(element, ComplexType) and self.kind.data == "cholesky":
            raise VerifyException("graph.linalg: cholesky is real only")
        shapes = [shape_of(v) for v in self.args]
        a = shapes[0]
        if len(a) != 2 or a[0] != a[1] or a[0] < 0:
            raise VerifyException(f"graph.linalg: a must be a static square matrix, got shape {a}")
        if kind == "solve" and (len(shapes[1]) not in (1, 2) or shapes[1][0] != a[0] or min(shapes[1]) < 0):
            raise VerifyException(f"graph.linalg solve: b of shape {shapes[1]} does not fit a of shape {a}")
        if shape_of(self.result) != linalg_shape(kind, shapes):
            raise VerifyException(
                f"graph.linalg {kind!r}: result shape should be {linalg_shape(kind, shapes)}, got {shape_of(self.result)}"
            )


Graph = Dialect(
    "graph",
    [
        ConstantOp,
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        FloorDivOp,
        ModOp,
        PowOp,
        MaximumOp,
        MinimumOp,
        AndOp,
        OrOp,
        XorOp,
        NotOp,
        NegOp,
        AbsOp,
        ReluOp,
        ExpOp,
        LogOp,
        SqrtOp,
        TanhOp,
        SigmoidOp,
        SinOp,
        CosOp,
        FloorOp,
        CeilOp,
        CmpOp,
        SelectOp,
        CastOp,
        BroadcastOp,
        ReshapeOp,
        RelaxShapeOp,
        TransposeOp,
        SliceOp,
        DynamicSliceOp,
        InsertSliceOp,
        MatmulOp,
        ReduceOp,
        ConcatOp,
        Conv2DOp,
        TokenOp,
        YieldOp,
        ConditionOp,
        CondOp,
        WhileOp,
        GatherRowOp,
        ScatterRowOp,
        GatherOp,
        ScatterOp,
        IotaOp,
        NonzeroOp,
        CompressOp,
        DimOp,
        PadToBoundOp,
        PrintOp,
        CheckOp,
        ReadOp,
        AssignOp,
        LinalgOp,
        *ELEMENTWISE_MATH,
        ScanOp,
        ArgReduceOp,
        SortOp,
        ArgsortOp,
        BincountOp,
        HistogramOp,
        SearchsortedOp,
        ComplexOp,
        RealOp,
        ImagOp,
        CabsOp,
        AngleOp,
        ConjOp,
    ],
    [TokenType, ResourceType],
)

ELEMENT_TYPES: tuple[Attribute, ...] = (i1, IntegerType(32), i64, Float32Type(), Float64Type())
#: the element types of int8/int16 and of the unsigned integers (uint8..uint64)
ELEMENT_TYPES += (IntegerType(8), IntegerType(16), *(IntegerType(w, Signedness.UNSIGNED) for w in (8, 16, 32, 64)))
#: float16, computed in f32 and rounded after every op (docs/ir-reference.md, "Element types")
ELEMENT_TYPES += (Float16Type(),)
#: complex64 and complex128
ELEMENT_TYPES += (ComplexType(Float32Type()), ComplexType(Float64Type()))
