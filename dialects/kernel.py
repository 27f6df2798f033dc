"""The ``kernel`` dialect: calls into kiln's hand-tuned C kernels, at the buffer level.

``kernel.matmul ins(%a, %b) outs(%c)`` computes ``C = A @ B`` on 2-D memrefs
(any strides for A and B; C has a unit column stride) with the packed,
register-blocked GEMM of ``backends/c/runtime/kiln_gemm.h``. The rows of C are
produced in blocks; the op's region, the *epilogue*, runs once per finished
block with block arguments ``(%row_begin, %row_end)``, while the block is
still in cache, so a fused bias/activation writes C once. Blocks may run on
several threads: the epilogue must touch only rows ``[row_begin, row_end)``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, IndexType, MemRefType
from xdsl.ir import Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
)
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """``C = A @ B`` by the packed GEMM kernel, then the epilogue region per row block."""

    name = "kernel.matmul"
    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    epilogue = region_def("single_block")
    assembly_format = "`ins` `(` $a `,` $b `:` type($a) `,` type($b) `)` `outs` `(` $c `:` type($c) `)` $epilogue attr-dict"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, epilogue: Region | None = None):
        if epilogue is None:
            epilogue = Region(Block([YieldOp()], arg_types=[IndexType(), IndexType()]))
        super().__init__(operands=[a, b, c], regions=[epilogue])

    def verify_(self) -> None:
        types = [self.a.type, self.b.type, self.c.type]
        assert all(isinstance(t, MemRefType) for t in types)
        elements = {t.get_element_type() for t in types}  # type: ignore[union-attr]
        if len(elements) != 1 or not isinstance(next(iter(elements)), AnyFloat):
            raise VerifyException("kernel.matmul operands must share one float element type")
        if any(len(t.get_shape()) != 2 for t in types):  # type: ignore[union-attr]
            raise VerifyException("kernel.matmul operands must be 2-D")
        block = self.epilogue.block
        if [a.type for a in block.args] != [IndexType(), IndexType()]:
            raise VerifyException("kernel.matmul epilogue takes (row_begin: index, row_end: index)")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a ``kernel.matmul`` epilogue."""

    name = "kernel.yield"
    traits = traits_def(IsTerminator(), HasParent(MatmulOp))
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


Kernel = Dialect("kernel", [MatmulOp, YieldOp], [])
