"""The ``krt`` dialect (kiln runtime): effects that the emitted code asks of the runtime.

``krt.check`` stops the call with a ``ValueError`` when a run-time condition fails.
``krt.print`` is ``graph.print`` after bufferization: the same format string, its
values now buffers. It reads its operands and writes the process's output, so no
pass may drop, merge or reorder it (its effects say so); the C backend formats it
(docs/printing.md) and hands the text to ``kiln_write_hook``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType, StringAttr, i1
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, base, irdl_op_definition, operand_def, prop_def, traits_def, var_operand_def
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


@irdl_op_definition
class CheckOp(IRDLOperation):
    """``krt.check %ok, "f.py:3: ..." : memref<i1>``: ``graph.check`` after bufferization.
    When ``*ok`` is false the function returns at once and its caller raises
    ``ValueError(message)`` (docs/abi.md, "Run-time errors")."""

    name = "krt.check"
    cond = operand_def(base(MemRefType))
    message = prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$cond `,` $message attr-dict `:` type($cond)"

    def __init__(self, cond: SSAValue, message: str):
        super().__init__(operands=[cond], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        t = self.cond.type
        if not (isinstance(t, MemRefType) and t.element_type == i1 and not t.get_shape()):
            raise VerifyException(f"krt.check: the condition must be memref<i1>, got {t}")


KRT = Dialect("krt", [PrintOp, CheckOp], [])
