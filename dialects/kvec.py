"""The ``kvec`` dialect: the vector ops that xDSL 0.74 lacks.

xDSL's ``arith.cmpf`` only yields ``i1`` and ``arith.select`` only takes an ``i1``
condition, so vectorized comparisons and selects (MLIR's ``arith.cmpf``/``arith.select`` on
vectors) are these two ops. ``kiln-vectorize`` creates them; the C backend emits them
with the ISA's mask type.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.arith import CMPF_COMPARISON_OPERATIONS
from xdsl.dialects.builtin import IntegerType, StringAttr, VectorType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, VarConstraint, base, irdl_op_definition, operand_def, prop_def, result_def, traits_def
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


KVec = Dialect("kvec", [CmpfOp, SelectOp], [])
