"""A user's extension module for ``kiln-opt --load``: one dialect, one pass."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition
from xdsl.passes import ModulePass

import kiln


@irdl_op_definition
class HelloOp(IRDLOperation):
    name = "my.hello"
    assembly_format = "attr-dict"


kiln.register_dialect(Dialect("my", [HelloOp], []))


@kiln.register_pass
@dataclass(frozen=True)
class TagFunctions(ModulePass):
    """Tags every op with a ``tagged`` attribute holding ``label``."""

    name = "my-tag"
    label: str = "hi"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if inner is not op:
                inner.attributes["tagged"] = StringAttr(self.label)
