"""A --load module whose op definition is wrong (a constraint variable without ClassVar)."""
from xdsl.irdl import AnyAttr, IRDLOperation, VarConstraint, irdl_op_definition, operand_def


@irdl_op_definition
class BadOp(IRDLOperation):
    name = "bad.op"
    T = VarConstraint("T", AnyAttr())
    x = operand_def(T)
