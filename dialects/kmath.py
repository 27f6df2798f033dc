"""The ``kmath`` dialect: scalar math that upstream ``arith``/``math`` lack in xDSL 0.74.

``kmath.fmod`` is C's ``fmod`` (MLIR's ``arith.remf``, absent from xDSL 0.74):
exact, needed for NumPy's ``%`` and ``//`` on floats. ``kmath.hypot`` is C's ``hypot``
(no ``math.hypot`` upstream): NumPy's ``np.hypot``, which a composition of sqrt, mul and add
would not give (overflow for large operands, and inf beside a NaN).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, VarConstraint, base, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class FModOp(IRDLOperation):
    """``%r = kmath.fmod %x, %y : f32``: the remainder of x / y with x's sign, exact."""

    name = "kmath.fmod"
    T: ClassVar = VarConstraint("T", base(AnyFloat))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])


@irdl_op_definition
class HypotOp(IRDLOperation):
    """``%r = kmath.hypot %x, %y : f32``: sqrt(x*x + y*y) without intermediate overflow."""

    name = "kmath.hypot"
    T: ClassVar = VarConstraint("T", base(AnyFloat))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])


KMath = Dialect("kmath", [FModOp, HypotOp], [])
