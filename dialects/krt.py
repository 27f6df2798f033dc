"""The ``krt`` dialect (kiln runtime): effects that the emitted code asks of the runtime.

``krt.print`` is ``graph.print`` after bufferization: the same format string, its
values now buffers. It reads its operands and writes the process's output, so no
pass may drop, merge or reorder it (its effects say so); the C backend formats it
(docs/printing.md) and hands the text to ``kiln_write_hook``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, base, irdl_op_definition, prop_def, traits_def, var_operand_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class PrintOp(IRDLOperation):
    """``krt.print "x = {}\\n"(%a : memref<3xf32>)``: ``format`` with each ``{}`` replaced by
    the next buffer's value (a 0-d buffer prints as a scalar, others as NumPy arrays)."""

    name = "krt.print"
    format = prop_def(StringAttr)
    values = var_operand_def(base(MemRefType))
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$format (`(` $values^ `:` type($values) `)`)? attr-dict"

    def __init__(self, format: str, values: Sequence[SSAValue]):
        super().__init__(operands=[list(values)], properties={"format": StringAttr(format)})

    def verify_(self) -> None:
        holes = self.format.data.replace("{{", "").replace("}}", "").count("{}")
        if holes != len(self.values):
            raise VerifyException(f"krt.print: the format has {holes} '{{}}' but {len(self.values)} values are given")


KRT = Dialect("krt", [PrintOp], [])
