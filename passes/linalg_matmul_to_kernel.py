"""``linalg-matmul-to-kernel``: buffer-level matmuls onto kiln's packed GEMM kernel.

Expects: the buffer level (after ``kiln-bufferize``), where NumPy's 2-D matmul
is ``linalg.fill`` of 0 into C followed by a ``linalg.generic`` with maps
``(m,n,k) -> (m,k), (k,n), (m,n)``, iterators parallel/parallel/reduction and
body ``c + a * b`` on f32 or f64.
Produces: ``kernel.matmul`` (see ``dialects/kernel.py``), the fill removed
(the kernel overwrites C). When the next reader of C is an elementwise
generic (``relu(x @ w + b)``: C read through the identity map, written to a
contiguous buffer D of C's shape, C dead afterwards), the kernel writes D and
that generic becomes its epilogue, re-indexed onto the just-finished row block
``[row_begin, row_end)`` of D (in place: each element is read, then written
by the same iteration), so the output is written once, while in cache.

The kernel reassociates each k-sum (256-long slices, fused multiply-adds), so
results differ from a sequential sum in the last bits, like any BLAS.
Batched and matrix-vector products stay generic loops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    IndexType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from kiln.dialects import kernel
from kiln.passes._kernel_common import (
    defined_before,
    hoist_alloc_before,
    install_kernel,
    indexing_maps,
    multiply_add_body,
    row_view,
    zero_fill_before,
)

def _matmul_maps() -> list[AffineMap]:
    d = [AffineMap.identity(3).results[i] for i in range(3)]
    return [AffineMap(3, 0, (d[0], d[2])), AffineMap(3, 0, (d[2], d[1])), AffineMap(3, 0, (d[0], d[1]))]


def _is_matmul(op: GenericOp) -> bool:
    """``c += a * b`` over ``(m,k),(k,n)->(m,n)`` on 2-D float memrefs."""
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.results:
        return False
    if [it.data for it in op.iterator_types.data] != [IteratorType.PARALLEL, IteratorType.PARALLEL, IteratorType.REDUCTION]:
        return False
    if indexing_maps(op) != _matmul_maps():
        return False
    if not all(isinstance(v.type, MemRefType) and isinstance(v.type.get_element_type(), AnyFloat) for v in op.operands):
        return False
    return multiply_add_body(op)


def _epilogue_for(matmul: GenericOp, c: SSAValue) -> tuple[GenericOp, int] | None:
    """The elementwise generic reading ``c`` right after the matmul, and ``c``'s input index."""
    nxt = matmul.next_op
    while nxt is not None and c not in nxt.operands:
        if any(c in o.operands for o in nxt.walk()):
            return None
        nxt = nxt.next_op
    if not isinstance(nxt, GenericOp) or nxt.results or len(nxt.outputs) != 1:
        return None
    if any(it.data != IteratorType.PARALLEL for it in nxt.iterator_types.data) or nxt.get_num_loops() != 2:
        return None
    maps = indexing_maps(nxt)
    ident = AffineMap.identity(2)
    indices = [i for i, v in enumerate(nxt.inputs) if v is c]
    out = nxt.outputs[0]
    if len(indices) != 1 or maps[indices[0]] != ident or maps[-1] != ident or out is c:
        return None
    if out.type != c.type or not isinstance(out.type, MemRefType) or not isinstance(out.type.layout, NoneAttr):
        return None
    if out in matmul.inputs or not isinstance(out.owner, (memref.AllocOp, Block)):
        return None
    if any(u.operation not in (matmul, nxt) and not isinstance(u.operation, (memref.DeallocOp, FillOp)) for u in c.uses):
        return None
    return nxt, indices[0]


def _build_epilogue(epi: GenericOp, c_index: int, d: SSAValue) -> Region | None:
    """``epi`` on rows ``[begin, end)``: C's reads become reads of D, row-indexed operands views."""
    block = Block(arg_types=[IndexType(), IndexType()])
    begin, end = block.args
    size = arith.SubiOp(end, begin)
    ops: list[Operation] = [size]
    maps = indexing_maps(epi)
    operands: list[SSAValue] = []
    for i, value in enumerate([*epi.inputs, epi.outputs[0]]):
        value = d if i == c_index else value
        uses_row = [p for p, e in enumerate(maps[i].results) if 0 in _dims(e)]
        if not uses_row:
            operands.append(value)
            continue
        if len(uses_row) != 1 or not isinstance(maps[i].results[uses_row[0]], AffineDimExpr):
            return None
        view = row_view(value, uses_row[0], begin, size.result)
        if view is None:
            return None
        ops.append(view)
        operands.append(view.result)
    generic = GenericOp(operands[:-1], operands[-1:], epi.body.clone(), [AffineMapAttr(m) for m in maps], list(epi.iterator_types.data))
    ops.append(generic)
    ops.append(kernel.YieldOp())
    for op in ops:
        op.location = epi.location
        block.add_op(op)
    return Region(block)


def _dims(expr: object) -> set[int]:
    if isinstance(expr, AffineDimExpr):
        return {expr.position}
    return {d for child in (getattr(expr, "lhs", None), getattr(expr, "rhs", None)) if child is not None for d in _dims(child)}


def _unit_column_stride(ty: MemRefType) -> bool:
    return isinstance(ty.layout, NoneAttr) or (
        isinstance(ty.layout, StridedLayoutAttr) and ty.layout.get_strides()[-1] == 1
    )


def _lower(op: GenericOp) -> None:
    a, b = op.inputs
    c = op.outputs[0]
    assert isinstance(c.type, MemRefType)
    fill = zero_fill_before(op, c) if _unit_column_stride(c.type) else None
    if fill is None:
        return
    target, region, epi = c, None, None
    found = _epilogue_for(op, c)
    if found is not None:
        d = found[0].outputs[0]
        hoist_alloc_before(d, op)
        others = [v for v in found[0].operands if v is not c]
        if all(defined_before(v, op) for v in others):
            region = _build_epilogue(found[0], found[1], d)
            if region is not None:
                epi, target = found[0], d
    install_kernel(op, fill, kernel.MatmulOp(a, b, target, region), epi)


@dataclass(frozen=True)
class LinalgMatmulToKernel(ModulePass):
    """Replace fill + matmul generics (and a following elementwise epilogue) by ``kernel.matmul``."""

    name = "linalg-matmul-to-kernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in [g for g in op.walk() if isinstance(g, GenericOp) and _is_matmul(g)]:
            _lower(generic)
