"""The ``kvec`` dialect: the vector ops that xDSL 0.74 lacks.

xDSL's ``arith.cmpf`` only yields ``i1`` and ``arith.select`` only takes an ``i1``
condition, so vectorized comparisons and selects (MLIR's ``arith.cmpf``/``arith.select`` on
vectors) are ``kvec.cmpf`` and ``kvec.select``. ``kiln-vectorize`` creates them; the C
backend emits them with the ISA's mask type. ``kvec.exp_group`` (``kiln-group-exp``) is
several independent vector ``math.exp`` computed together.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.arith import CMPF_COMPARISON_OPERATIONS
from xdsl.dialects.builtin import AnyFloatConstr, IntegerType, StringAttr, VectorType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class CmpfOp(IRDLOperation):
    """``%m = kvec.cmpf "olt", %a, %b : vector<8xf32> -> vector<8xi1>``: lane-wise arith.cmpf."""

    name = "kvec.cmpf"
    T: ClassVar = VarConstraint("T", base(VectorType))
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(VectorType)
    traits = traits_def(Pure())
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        assert isinstance(lhs.type, VectorType)
        mask = VectorType(IntegerType(1), lhs.type.get_shape())
        super().__init__(operands=[lhs, rhs], result_types=[mask], properties={"predicate": StringAttr(predicate)})

    def verify_(self) -> None:
        if self.predicate.data not in CMPF_COMPARISON_OPERATIONS:
            raise VerifyException(f"unknown cmpf predicate {self.predicate.data!r}")
        lhs, res = self.lhs.type, self.result.type
        assert isinstance(lhs, VectorType) and isinstance(res, VectorType)
        if res.get_element_type() != IntegerType(1) or res.get_shape() != lhs.get_shape():
            raise VerifyException(f"result must be a vector of i1 shaped like the operands, got {res}")


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``%r = kvec.select %m, %a, %b : vector<8xi1>, vector<8xf32>``: lane-wise arith.select."""

    name = "kvec.select"
    T: ClassVar = VarConstraint("T", base(VectorType))
    cond = operand_def(VectorType)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($result)"

    def __init__(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[cond, lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        cond, res = self.cond.type, self.result.type
        assert isinstance(cond, VectorType) and isinstance(res, VectorType)
        if cond.get_element_type() != IntegerType(1) or cond.get_shape() != res.get_shape():
            raise VerifyException(f"condition must be a vector of i1 shaped like the result, got {cond}")


@irdl_op_definition
class ExpGroupOp(IRDLOperation):
    """``%r:2 = kvec.exp_group %a, %b : vector<8xf32>``: ``math.exp`` of each operand, as
    separate ``math.exp`` ops give, computed side by side. The C backend tests all the inputs
    for exp's fast path with one branch where the ISA has that path (AVX2), and emits one exp
    per operand elsewhere; ``kiln-group-exp`` groups adjacent exps into it."""

    name = "kvec.exp_group"
    T: ClassVar = VarConstraint("T", VectorType.constr(AnyFloatConstr))
    inputs = var_operand_def(T)
    outputs = var_result_def(T)
    traits = traits_def(Pure())

    def __init__(self, inputs: list[SSAValue]):
        super().__init__(operands=[inputs], result_types=[[v.type for v in inputs]])

    def verify_(self) -> None:
        if len(self.inputs) != len(self.outputs) or not self.inputs:
            raise VerifyException(f"needs one result per operand, and an operand; got {len(self.inputs)} -> {len(self.outputs)}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.inputs[0].type)

    @classmethod
    def parse(cls, parser: Parser) -> ExpGroupOp:
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ty = parser.parse_type()
        op = cls([parser.resolve_operand(u, ty) for u in unresolved])
        op.attributes |= attributes
        return op


KVec = Dialect("kvec", [CmpfOp, SelectOp, ExpGroupOp], [])
