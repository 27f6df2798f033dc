"""The ``kernel`` dialect: calls into kiln's hand-tuned C kernels, at the buffer level.

``kernel.matmul ins(%a, %b) outs(%c)`` computes ``C = A @ B`` on 2-D memrefs
(any strides for A and B; C has a unit column stride) with the packed,
register-blocked GEMM of ``backends/c/runtime/kiln_gemm.h``. The rows of C are
produced in blocks; the op's region, the *epilogue*, runs once per finished
block with block arguments ``(%row_begin, %row_end)``, while the block is
still in cache, so a fused bias/activation writes C once. Blocks may run on
several threads: the epilogue must touch only rows ``[row_begin, row_end)``.

``kernel.conv2d ins(%x, %f) outs(%y) strides [sh, sw]`` is a VALID NHWC x HWIO
convolution by the same GEMM: A is the im2col matrix of ``%x`` (rows
``(n, oh, ow)``, columns ``(kh, kw, ci)``), packed straight from ``%x``, never
stored; B is ``%f`` seen as a ``(KH*KW*CI) x CO`` matrix; C is ``%y`` seen as
``(N*OH*OW) x CO``. All three are contiguous; epilogue rows are those of C.

``kernel.linalg "solve" ins(%a, %b) outs(%x)`` runs one dense linear-algebra
routine (``cholesky``, ``inv``, ``det``, ``solve``) of ``graph.linalg`` as a
plain C loop nest on contiguous memrefs; ``%x`` is written, never read.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, DenseArrayBase, IndexType, MemRefType, NoneAttr, StringAttr, i64
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
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
        super().__init__(operands=[a, b, c], regions=[_row_block_region(epilogue)])

    def verify_(self) -> None:
        types = _float_operands(self.name, [self.a.type, self.b.type, self.c.type])
        if any(len(t.get_shape()) != 2 for t in types):
            raise VerifyException("kernel.matmul operands must be 2-D")
        _check_epilogue(self.name, self.epilogue)


def _float_operands(op_name: str, types: list[Attribute]) -> list[MemRefType[Attribute]]:
    """The operand memref types, which must share one float element type."""
    memrefs = [t for t in types if isinstance(t, MemRefType)]
    assert len(memrefs) == len(types)
    elements = {t.get_element_type() for t in memrefs}
    if len(elements) != 1 or not isinstance(next(iter(elements)), AnyFloat):
        raise VerifyException(f"{op_name} operands must share one float element type")
    return memrefs


def _check_epilogue(op_name: str, epilogue: Region) -> None:
    if [a.type for a in epilogue.block.args] != [IndexType(), IndexType()]:
        raise VerifyException(f"{op_name} epilogue takes (row_begin: index, row_end: index)")


def _row_block_region(epilogue: Region | None) -> Region:
    return epilogue if epilogue is not None else Region(Block([YieldOp()], arg_types=[IndexType(), IndexType()]))


@irdl_op_definition
class Conv2DOp(IRDLOperation):
    """VALID NHWC x HWIO convolution by the packed GEMM (implicit im2col), then the epilogue per row block."""

    name = "kernel.conv2d"
    input = operand_def(MemRefType)
    filter = operand_def(MemRefType)
    output = operand_def(MemRefType)
    strides = prop_def(DenseArrayBase)
    epilogue = region_def("single_block")
    assembly_format = (
        "`ins` `(` $input `,` $filter `:` type($input) `,` type($filter) `)` `outs` `(` $output `:` type($output) `)` "
        "`strides` qualified($strides) $epilogue attr-dict"
    )

    def __init__(self, input: SSAValue, filter: SSAValue, output: SSAValue, strides: tuple[int, int],
                 epilogue: Region | None = None):
        super().__init__(
            operands=[input, filter, output],
            properties={"strides": DenseArrayBase.from_list(i64, list(strides))},
            regions=[_row_block_region(epilogue)],
        )

    def verify_(self) -> None:
        types = _float_operands(self.name, [self.input.type, self.filter.type, self.output.type])
        if any(len(t.get_shape()) != 4 or not isinstance(t.layout, NoneAttr) for t in types):
            raise VerifyException("kernel.conv2d operands must be contiguous 4-D memrefs")
        x, f, y = (t.get_shape() for t in types)
        strides = list(self.strides.get_values())
        if len(strides) != 2 or min(strides) < 1:
            raise VerifyException("kernel.conv2d strides must be two positive integers")
        if x[3] != f[2] or y[3] != f[3] or y[0] != x[0]:
            raise VerifyException("kernel.conv2d: NHWC input, HWIO filters and NHWC output do not match")
        for axis in (1, 2):
            if x[axis] >= 0 and y[axis] >= 0 and (x[axis] - f[axis - 1]) // strides[axis - 1] + 1 != y[axis]:
                raise VerifyException(f"kernel.conv2d: output size {y[axis]} along axis {axis} does not fit a VALID window")
        _check_epilogue(self.name, self.epilogue)


@irdl_op_definition
class LinalgOp(IRDLOperation):
    """One ``np.linalg`` routine (``kind``: cholesky, inv, det, solve) from ``ins`` into ``out``.

    Operands are contiguous; ``ins[0]`` is a square matrix, ``solve``'s ``ins[1]`` a vector or a
    matrix of as many rows; ``out`` has the result's shape (0-d for det)."""

    name = "kernel.linalg"
    kind = prop_def(StringAttr)
    ins = var_operand_def(MemRefType)
    out = operand_def(MemRefType)
    assembly_format = "$kind `ins` `(` $ins `:` type($ins) `)` `outs` `(` $out `:` type($out) `)` attr-dict"

    def __init__(self, kind: str, ins: list[SSAValue], out: SSAValue):
        super().__init__(operands=[ins, out], properties={"kind": StringAttr(kind)})

    def verify_(self) -> None:
        kinds = {"cholesky": 1, "inv": 1, "det": 1, "solve": 2}
        kind = self.kind.data
        if kinds.get(kind) != len(self.ins):
            raise VerifyException(f"kernel.linalg: kind {kind!r} with {len(self.ins)} input(s) is not a routine")
        types = _float_operands(self.name, [*(v.type for v in self.ins), self.out.type])
        if any(not isinstance(t.layout, NoneAttr) for t in types):
            raise VerifyException("kernel.linalg operands must be contiguous memrefs")
        a = types[0].get_shape()
        if len(a) != 2 or a[0] != a[1] or a[0] < 0:
            raise VerifyException("kernel.linalg: the first input must be a static square matrix")
        expected = () if kind == "det" else types[-2].get_shape()
        if types[-1].get_shape() != expected:
            raise VerifyException(f"kernel.linalg {kind!r}: output shape should be {expected}")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a ``kernel.matmul`` or ``kernel.conv2d`` epilogue."""

    name = "kernel.yield"
    traits = traits_def(IsTerminator(), HasParent(MatmulOp, Conv2DOp))
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


Kernel = Dialect("kernel", [MatmulOp, Conv2DOp, LinalgOp, YieldOp], [])
