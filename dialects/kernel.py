"""The ``kernel`` dialect: calls into kiln's hand-tuned C kernels, at the buffer level.

``kernel.matmul ins(%a, %b) outs(%c)`` computes ``C = A @ B`` on 2-D memrefs
(any strides for A and B; C has a unit column stride) with the packed,
register-blocked GEMM of ``backends/c/runtime/kiln_gemm.h``. The rows of C are
produced in blocks; the op's region, the *epilogue*, runs once per finished
block with block arguments ``(%row_begin, %row_end)``, while the block is
still in cache, so a fused bias/activation writes C once. Blocks may run on
several threads: the epilogue must touch only rows ``[row_begin, row_end)``.

``kernel.matmul ... {symmetric}`` promises that B is A's transpose (``x @ x.T``, ``x.T @ x``: the
same elements), so C is symmetric: the kernel computes its lower triangle, mirrors it into the
upper one, then runs the epilogue once over all rows (``row_begin = 0``).

``kernel.matvec ins(%a, %x) outs(%y)`` computes ``y = A @ x`` and ``kernel.vecmat ins(%x, %a)
outs(%y)`` ``y = x @ A`` (2-D ``A``, 1-D ``x`` and ``y``, any strides) by the matrix-vector
routine of ``backends/c/runtime/kiln_gemv.h``, which reads ``A`` along its contiguous axis: a
packed GEMM with one row or column would copy all of ``A`` to use it once.

``kernel.conv2d ins(%x, %f) outs(%y) strides [sh, sw]`` is a VALID NHWC x HWIO
convolution by the same GEMM: A is the im2col matrix of ``%x`` (rows
``(n, oh, ow)``, columns ``(kh, kw, ci)``), packed straight from ``%x``, never
stored; B is ``%f`` seen as a ``(KH*KW*CI) x CO`` matrix; C is ``%y`` seen as
``(N*OH*OW) x CO``. All three are contiguous; epilogue rows are those of C.

``kernel.scan``, ``argreduce``, ``sort``, ``argsort``, ``bincount``, ``searchsorted``, ``gather``, ``scatter``, ``iota``,
``nonzero`` and ``compress`` are what ``convert-kalgo-to-kernel`` makes of the buffer-level ``kalgo`` ops (see
``dialects/kalgo.py``): sequential algorithms on memrefs of any strides, emitted by
``backends/c/algorithm_ops.py``.

``kernel.linalg "solve" ins(%a, %b) outs(%x)`` runs one dense linear-algebra
routine (``cholesky``, ``inv``, ``det``, ``solve``) of ``graph.linalg`` as a
plain C loop nest on contiguous memrefs; ``%x`` is written, never read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, AnyFloat, ComplexType, DenseArrayBase, IndexType, IntegerAttr, MemRefType, NoneAttr, StringAttr, UnitAttr, i64
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
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
    symmetric = opt_prop_def(UnitAttr)
    assembly_format = (
        "`ins` `(` $a `,` $b `:` type($a) `,` type($b) `)` `outs` `(` $c `:` type($c) `)` (`symmetric` $symmetric^)? "
        "$epilogue attr-dict"
    )

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, epilogue: Region | None = None,
                 symmetric: bool = False):
        super().__init__(operands=[a, b, c], regions=[_row_block_region(epilogue)],
                         properties={"symmetric": UnitAttr()} if symmetric else {})

    def verify_(self) -> None:
        types = _float_operands(self.name, [self.a.type, self.b.type, self.c.type])
        if any(len(t.get_shape()) != 2 for t in types):
            raise VerifyException("kernel.matmul operands must be 2-D")
        if self.symmetric is not None:
            (m, k), (kb, n) = types[0].get_shape(), types[1].get_shape()
            if (m, k) != (n, kb):
                raise VerifyException("kernel.matmul symmetric: B must have A's transposed shape")
        _check_epilogue(self.name, self.epilogue)


def _check_matrix_vector(name: str, matrix: SSAValue, vector: SSAValue, output: SSAValue, contracted: int) -> None:
    """A 2-D ``matrix`` whose axis ``contracted`` meets the 1-D ``vector``; a 1-D ``output``."""
    a, x, y = _float_operands(name, [matrix.type, vector.type, output.type])
    if len(a.get_shape()) != 2 or len(x.get_shape()) != 1 or len(y.get_shape()) != 1:
        raise VerifyException(f"{name}: the matrix must be 2-D, the vector and the output 1-D")
    k, out = a.get_shape()[contracted], a.get_shape()[1 - contracted]
    if -1 not in (k, x.get_shape()[0]) and k != x.get_shape()[0]:
        raise VerifyException(f"{name}: the vector's length {x.get_shape()[0]} does not match the matrix")
    if -1 not in (out, y.get_shape()[0]) and out != y.get_shape()[0]:
        raise VerifyException(f"{name}: the output's length {y.get_shape()[0]} does not match the matrix")


@irdl_op_definition
class MatvecOp(IRDLOperation):
    """``y = A @ x``: matrix times vector."""

    name = "kernel.matvec"
    a = operand_def(MemRefType)
    x = operand_def(MemRefType)
    y = operand_def(MemRefType)
    assembly_format = "`ins` `(` $a `,` $x `:` type($a) `,` type($x) `)` `outs` `(` $y `:` type($y) `)` attr-dict"

    def __init__(self, a: SSAValue, x: SSAValue, y: SSAValue):
        super().__init__(operands=[a, x, y])

    def verify_(self) -> None:
        _check_matrix_vector(self.name, self.a, self.x, self.y, 1)


@irdl_op_definition
class VecmatOp(IRDLOperation):
    """``y = x @ A``: vector times matrix (``A``'s transpose times ``x``)."""

    name = "kernel.vecmat"
    x = operand_def(MemRefType)
    a = operand_def(MemRefType)
    y = operand_def(MemRefType)
    assembly_format = "`ins` `(` $x `,` $a `:` type($x) `,` type($a) `)` `outs` `(` $y `:` type($y) `)` attr-dict"

    def __init__(self, x: SSAValue, a: SSAValue, y: SSAValue):
        super().__init__(operands=[x, a, y])

    def verify_(self) -> None:
        _check_matrix_vector(self.name, self.a, self.x, self.y, 0)


def _float_operands(op_name: str, types: list[Attribute]) -> list[MemRefType[Attribute]]:
    """The operand memref types, which must share one float element type."""
    memrefs = [t for t in types if isinstance(t, MemRefType)]
    assert len(memrefs) == len(types)
    elements = {t.get_element_type() for t in memrefs}
    if len(elements) != 1 or not isinstance(next(iter(elements)), AnyFloat):
        raise VerifyException(f"{op_name} operands must share one float element type")
    return memrefs


def _linalg_operands(op_name: str, kind: str, types: list[Attribute]) -> list[MemRefType[Attribute]]:
    """The operand memref types of ``kernel.linalg``: one float element type, or one complex one
    (not for cholesky)."""
    elements = {t.get_element_type() for t in types if isinstance(t, MemRefType)}
    element = next(iter(elements)) if len(elements) == 1 else None
    if isinstance(element, ComplexType) and isinstance(element.element_type, AnyFloat) and kind != "cholesky":
        return [t for t in types if isinstance(t, MemRefType)]
    return _float_operands(op_name, types)


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
        types = _linalg_operands(self.name, kind, [*(v.type for v in self.ins), self.out.type])
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


# --------------------------------------------------------------------------- sequential algorithms
# What convert-kalgo-to-kernel makes of the buffer-level kalgo ops (see dialects/kalgo.py): calls
# into the C runtime of backends/c/algorithm_ops.py. Operands are memrefs of any strides.


def _same_shape(op_name: str, a: SSAValue, b: SSAValue) -> None:
    if not (isinstance(a.type, MemRefType) and isinstance(b.type, MemRefType)) or a.type.get_shape() != b.type.get_shape():
        raise VerifyException(f"{op_name}: input and output must be memrefs of one shape")


def _axis_in_range(op_name: str, axis: int, value: SSAValue) -> None:
    assert isinstance(value.type, MemRefType)
    if not 0 <= axis < len(value.type.get_shape()):
        raise VerifyException(f"{op_name}: axis {axis} is out of range")


@irdl_op_definition
class ScanOp(IRDLOperation):
    """``kernel.scan "add" axis 0 ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)``: inclusive
    scan of each line along ``axis`` (kinds add, mul, max, min; max/min propagate NaN)."""

    name = "kernel.scan"
    kind = prop_def(StringAttr)
    axis = prop_def(IntegerAttr[I64])
    input = operand_def(MemRefType)
    output = operand_def(MemRefType)
    assembly_format = "$kind `axis` $axis `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)` attr-dict"

    def __init__(self, kind: str, input: SSAValue, output: SSAValue, axis: int):
        super().__init__(
            operands=[input, output], properties={"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)}
        )

    def verify_(self) -> None:
        _same_shape(self.name, self.input, self.output)
        _axis_in_range(self.name, self.axis.value.data, self.input)


@irdl_op_definition
class ArgReduceOp(IRDLOperation):
    """``kernel.argreduce "max" axis 1 ins(%x : memref<3x4xf32>) outs(%i : memref<3xi64>)``: the
    position of the first extreme element, or first NaN, of each line along ``axis``."""

    name = "kernel.argreduce"
    kind = prop_def(StringAttr)
    axis = prop_def(IntegerAttr[I64])
    input = operand_def(MemRefType)
    output = operand_def(MemRefType)
    assembly_format = "$kind `axis` $axis `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)` attr-dict"

    def __init__(self, kind: str, input: SSAValue, output: SSAValue, axis: int):
        super().__init__(
            operands=[input, output], properties={"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)}
        )

    def verify_(self) -> None:
        _axis_in_range(self.name, self.axis.value.data, self.input)


@irdl_op_definition
class SortOp(IRDLOperation):
    """``kernel.sort axis 1 ins(%x : ...) outs(%y : ...)``: each line along ``axis`` sorted, NaN last."""

    name = "kernel.sort"
    axis = prop_def(IntegerAttr[I64])
    input = operand_def(MemRefType)
    output = operand_def(MemRefType)
    assembly_format = "`axis` $axis `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)` attr-dict"

    def __init__(self, input: SSAValue, output: SSAValue, axis: int):
        super().__init__(operands=[input, output], properties={"axis": IntegerAttr(axis, i64)})

    def verify_(self) -> None:
        _same_shape(self.name, self.input, self.output)
        _axis_in_range(self.name, self.axis.value.data, self.input)


@irdl_op_definition
class ArgsortOp(IRDLOperation):
    """``kernel.argsort axis 0 ins(%x : ...) outs(%i : memref<...xi64>)``: the stable sorting
    permutation of each line along ``axis`` (a stable merge sort), NaN last."""

    name = "kernel.argsort"
    axis = prop_def(IntegerAttr[I64])
    input = operand_def(MemRefType)
    output = operand_def(MemRefType)
    assembly_format = "`axis` $axis `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)` attr-dict"

    def __init__(self, input: SSAValue, output: SSAValue, axis: int):
        super().__init__(operands=[input, output], properties={"axis": IntegerAttr(axis, i64)})

    def verify_(self) -> None:
        _same_shape(self.name, self.input, self.output)
        _axis_in_range(self.name, self.axis.value.data, self.input)


@irdl_op_definition
class BincountOp(IRDLOperation):
    """``kernel.bincount ins(%x, %w : ...) outs(%counts : ...)``: the output zeroed, then for each
    ``v = x[i]`` in ``[0, len(counts))``, ``counts[v] += w[i]`` (or 1 without weights)."""

    name = "kernel.bincount"
    input = operand_def(MemRefType)
    weights = opt_operand_def(MemRefType)
    output = operand_def(MemRefType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "`ins` `(` $input (`,` $weights^)? `:` type($input) (`,` type($weights)^)? `)` "
        "`outs` `(` $output `:` type($output) `)` attr-dict"
    )

    def __init__(self, input: SSAValue, weights: SSAValue | None, output: SSAValue):
        super().__init__(operands=[input, [] if weights is None else [weights], output])


@irdl_op_definition
class HistogramOp(IRDLOperation):
    """``kernel.histogram ins(%x, %low, %high, %span, %edges, %w... : ...) outs(%counts, %sums... : ...)``:
    the outputs zeroed, then one pass over ``%x`` finds each value's equal bin as ``graph.histogram``
    says and adds 1 to its count and each weight, in f64 per block of 65536 elements, to its sum."""

    name = "kernel.histogram"
    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = "`ins` `(` $inputs `:` type($inputs) `)` `outs` `(` $outputs `:` type($outputs) `)` attr-dict"
    #: NumPy's histogram adds the weights of this many elements at a time
    BLOCK: ClassVar[int] = 65536

    def __init__(self, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]):
        super().__init__(operands=[list(inputs), list(outputs)])

    def verify_(self) -> None:
        if len(self.inputs) < 5 or len(self.outputs) != len(self.inputs) - 4:
            raise VerifyException("kernel.histogram: x, low, high, span, edges and the weights; the counts and one sum per weights")


@irdl_op_definition
class SearchsortedOp(IRDLOperation):
    """``kernel.searchsorted "left" ins(%sorted, %values : ...) outs(%positions : ...)``: a binary
    search of each value in the 1-D ``%sorted`` (NaN sorts last)."""

    name = "kernel.searchsorted"
    side = prop_def(StringAttr)
    sorted = operand_def(MemRefType)
    values = operand_def(MemRefType)
    output = operand_def(MemRefType)
    assembly_format = (
        "$side `ins` `(` $sorted `,` $values `:` type($sorted) `,` type($values) `)` "
        "`outs` `(` $output `:` type($output) `)` attr-dict"
    )

    def __init__(self, side: str, sorted_: SSAValue, values: SSAValue, output: SSAValue):
        super().__init__(operands=[sorted_, values, output], properties={"side": StringAttr(side)})

    def verify_(self) -> None:
        _same_shape(self.name, self.values, self.output)


@irdl_op_definition
class GatherOp(IRDLOperation):
    """``kernel.gather ins(%x, %i0, ... : ...) outs(%out : ...)``: ``out[b, r] = x[i0[b], ..., r]``,
    each index wrapped (negative counts from the end) and clamped to its axis."""

    name = "kernel.gather"
    input = operand_def(MemRefType)
    indices = var_operand_def(MemRefType)
    output = operand_def(MemRefType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "`ins` `(` $input `,` $indices `:` type($input) `,` type($indices) `)` `outs` `(` $output `:` type($output) `)` attr-dict"
    )

    def __init__(self, input: SSAValue, indices: list[SSAValue], output: SSAValue):
        super().__init__(operands=[input, indices, output])


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """``kernel.scatter "add" ins(%u, %i0, ... : ...) outs(%x : ...)``: for each index position ``b`` in
    row-major order, ``x[i0[b], ..., r] = u[b, r]`` (``set``) or ``x[...] op= u[b, r]`` computed in the
    updates' type (``add``, ``mul``, ``max``, ``min``); indices wrapped and clamped as ``kernel.gather``'s."""

    name = "kernel.scatter"
    kind = prop_def(StringAttr)
    updates = operand_def(MemRefType)
    indices = var_operand_def(MemRefType)
    output = operand_def(MemRefType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$kind `ins` `(` $updates `,` $indices `:` type($updates) `,` type($indices) `)` "
        "`outs` `(` $output `:` type($output) `)` attr-dict"
    )

    def __init__(self, kind: str, updates: SSAValue, indices: list[SSAValue], output: SSAValue):
        super().__init__(operands=[updates, indices, output], properties={"kind": StringAttr(kind)})


@irdl_op_definition
class IotaOp(IRDLOperation):
    """``kernel.iota outs(%out : memref<?xi64>)``: ``out[i] = i``."""

    name = "kernel.iota"
    output = operand_def(MemRefType)
    assembly_format = "`outs` `(` $output `:` type($output) `)` attr-dict"

    def __init__(self, output: SSAValue):
        super().__init__(operands=[output])


@irdl_op_definition
class NonzeroOp(IRDLOperation):
    """``kernel.nonzero ins(%x : memref<?xf32>) outs(%i : memref<?xi64>)``: one pass over the 1-D
    ``%x`` in order, writing each position ``k`` where ``x[k] != 0`` (NaN counts, a complex number
    when either part is nonzero) to the next element of ``%i``, whose length is their count."""

    name = "kernel.nonzero"
    input = operand_def(MemRefType)
    output = operand_def(MemRefType)
    assembly_format = "`ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)` attr-dict"

    def __init__(self, input: SSAValue, output: SSAValue):
        super().__init__(operands=[input, output])

    def verify_(self) -> None:
        for v, what in ((self.input, "input"), (self.output, "output")):
            assert isinstance(v.type, MemRefType)
            if len(v.type.get_shape()) != 1:
                raise VerifyException(f"kernel.nonzero: the {what} is 1-D, got {v.type}")
        assert isinstance(self.output.type, MemRefType)
        if self.output.type.get_element_type() != i64:
            raise VerifyException(f"kernel.nonzero: the output is i64, got {self.output.type}")


@irdl_op_definition
class CompressOp(IRDLOperation):
    """``kernel.compress ins(%v, %m : memref<?xf64>, memref<?xi1>) outs(%r : memref<?xf64>)``: one
    pass over the 1-D ``%v`` and ``%m`` (of one length) in order, writing each ``v[k]`` where
    ``m[k] != 0`` to the next element of ``%r`` (the values' element type), whose length is their count."""

    name = "kernel.compress"
    values = operand_def(MemRefType)
    mask = operand_def(MemRefType)
    output = operand_def(MemRefType)
    assembly_format = (
        "`ins` `(` $values `,` $mask `:` type($values) `,` type($mask) `)` `outs` `(` $output `:` type($output) `)` attr-dict"
    )

    def __init__(self, values: SSAValue, mask: SSAValue, output: SSAValue):
        super().__init__(operands=[values, mask, output])

    def verify_(self) -> None:
        for v, what in ((self.values, "values"), (self.mask, "mask"), (self.output, "output")):
            assert isinstance(v.type, MemRefType)
            if len(v.type.get_shape()) != 1:
                raise VerifyException(f"kernel.compress: the {what} is 1-D, got {v.type}")
        assert isinstance(self.values.type, MemRefType) and isinstance(self.output.type, MemRefType)
        if self.output.type.get_element_type() != self.values.type.get_element_type():
            raise VerifyException(f"kernel.compress: the output has the values' element type, got {self.output.type}")


Kernel = Dialect(
    "kernel",
    [MatmulOp, MatvecOp, VecmatOp, Conv2DOp, LinalgOp, YieldOp, ScanOp, ArgReduceOp, SortOp, ArgsortOp, BincountOp, HistogramOp, SearchsortedOp, GatherOp,
     ScatterOp, IotaOp, NonzeroOp, CompressOp],
    [],
)
