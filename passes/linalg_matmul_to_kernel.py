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
by the same iteration), so the output is written once, while in cache. When
the generic also reads D (an optimizer's ``w - lr * (x.T @ g)`` into ``w``),
the kernel keeps writing C and the epilogue reads each row block of C right
after it is computed, while it is in cache.

A product whose B is A's transpose (``x @ x.T``, ``x.T @ x``, ``np.cov``) is marked
``symmetric`` by the next pass, ``kiln-symmetric-products``.

Matrix-vector products (loops ``(i, k)``, a 2-D and a 1-D input, output ``(i)``) become
``kernel.matvec`` when the matrix is read through ``(i, k)`` (``A @ x``) and ``kernel.vecmat``
through ``(k, i)`` (``y @ A``, and ``A.T @ x``), the zero fill removed: a GEMM would pack the
whole matrix to use each element once, and the loop nest reads ``y @ A``'s matrix down its
columns.

Batched products (loops ``(batch..., m, n, k)``, C ``(batch..., m, n)``, A ``(..., m, k)`` and
B ``(..., k, n)`` where each leading result is a batch dim or 0) become the 2-D kernel on
rank-reduced ``memref.subview`` slices inside an ``scf.for`` nest over the batch dims, the
outermost marked ``kiln.parallel`` (batch items are independent). When B has one matrix for
all items (no batch dims, or broadcast ones) and A and C are contiguous, ``(batch..., m)`` is
one long row axis instead: A and C are collapsed to 2-D and one ``kernel.matmul`` packs B once.

The kernels reassociate each k-sum (256-long slices, fused multiply-adds), so
results differ from a sequential sum in the last bits, like any BLAS.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from kiln.dialects import kernel
from kiln.dialects.contracts import PARALLEL_ATTR
from kiln.passes._kernel_common import (
    buffer_root,
    epilogue_can_move,
    hoist_alloc_before,
    install_kernel,
    indexing_maps,
    layout_strides,
    multiply_add_body,
    row_view,
    zero_fill_before,
)

#: a batch loop's ``kiln.parallel`` weight per multiply-add of one item: the C backend's threshold
#: for a parallel loop (2^17 elements) then meets the GEMM's own (2^21 multiply-adds)
_MULTIPLY_ADDS_PER_ELEMENT = 16

def _matmul_maps() -> list[AffineMap]:
    d = [AffineMap.identity(3).results[i] for i in range(3)]
    return [AffineMap(3, 0, (d[0], d[2])), AffineMap(3, 0, (d[2], d[1])), AffineMap(3, 0, (d[0], d[1]))]


def _is_contraction(op: GenericOp) -> bool:
    """``c += a * b`` on float memrefs, every loop parallel but the last, a reduction."""
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.results:
        return False
    iterators = [it.data for it in op.iterator_types.data]
    if len(iterators) < 2 or iterators != [IteratorType.PARALLEL] * (len(iterators) - 1) + [IteratorType.REDUCTION]:
        return False
    if not all(isinstance(v.type, MemRefType) and isinstance(v.type.get_element_type(), AnyFloat) for v in op.operands):
        return False
    return multiply_add_body(op)


def _is_matmul(op: GenericOp) -> bool:
    """A contraction over ``(m,k),(k,n)->(m,n)``."""
    return indexing_maps(op) == _matmul_maps()


def _epilogue_for(matmul: GenericOp, c: SSAValue) -> tuple[GenericOp, int, bool] | None:
    """The elementwise generic reading ``c`` right after the matmul, ``c``'s input index, and
    whether the product may go straight into its output D (not when the generic also reads D:
    ``w[:] = w - lr * (x.T @ g)``, whose product then stays in C, each row block read while hot)."""
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
    if not isinstance(out.owner, (memref.AllocOp, Block)):
        return None
    # row blocks of D are written while other row blocks are still being multiplied: D must not
    # be (a view of) what the product reads
    if any(buffer_root(v) is buffer_root(out) for v in matmul.inputs):
        return None
    # the kernel writes the product into D before the epilogue reads its other inputs: where one
    # is D's memory (w[:] = w - lr * (x.T @ g)), the product stays in C
    in_place = not any(buffer_root(v) is buffer_root(out) for i, v in enumerate(nxt.inputs) if i != indices[0])
    if any(u.operation not in (matmul, nxt) and not isinstance(u.operation, (memref.DeallocOp, FillOp)) for u in c.uses):
        return None
    return nxt, indices[0], in_place


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


def _lower(op: GenericOp, rewriter: PatternRewriter) -> None:
    a, b = op.inputs
    c = op.outputs[0]
    assert isinstance(c.type, MemRefType)
    fill = zero_fill_before(op, c) if _unit_column_stride(c.type) else None
    if fill is None:
        return
    target, region, epi = c, None, None
    found = _epilogue_for(op, c)
    if found is not None:
        generic, c_index, in_place = found
        d = generic.outputs[0]
        hoist_alloc_before(d, op)
        if epilogue_can_move(op, generic):
            region = _build_epilogue(generic, c_index, d if in_place else c)
            if region is not None:
                epi, target = generic, d if in_place else c
    install_kernel(op, fill, kernel.MatmulOp(a, b, target, region), epi, rewriter)


def _lower_matrix_vector(op: GenericOp, rewriter: PatternRewriter) -> None:
    """Loops ``(i, k)``, output ``(i)``: ``kernel.matvec`` for a matrix read as ``(i, k)``,
    ``kernel.vecmat`` for one read as ``(k, i)``."""
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    maps = indexing_maps(op)
    if maps[2].results != (d0,):
        return
    matrices = [i for i in (0, 1) if len(maps[i].results) == 2]
    if len(matrices) != 1:  # two matrices: a row-wise dot product (np.average's weighted sum), no kernel
        return
    matrix = matrices[0]
    if maps[1 - matrix].results != (d1,):
        return
    a, x, y = op.inputs[matrix], op.inputs[1 - matrix], op.outputs[0]
    fill = zero_fill_before(op, y)
    if fill is None:
        return
    if maps[matrix].results == (d0, d1):
        install_kernel(op, fill, kernel.MatvecOp(a, x, y), None, rewriter)
    elif maps[matrix].results == (d1, d0):
        install_kernel(op, fill, kernel.VecmatOp(x, a, y), None, rewriter)


def _batch_exprs(op: GenericOp) -> list[list[AffineExpr]] | None:
    """The leading (batch) results of A's, B's and C's maps, when ``op`` is a batched matmul."""
    nd = op.get_num_loops()
    p = nd - 3
    d = AffineExpr.dimension
    maps = indexing_maps(op)
    if p < 1 or maps[2].results != tuple(d(i) for i in range(nd - 1)):
        return None
    if maps[0].results[-2:] != (d(p), d(p + 2)) or maps[1].results[-2:] != (d(p + 2), d(p + 1)):
        return None
    batch = [list(m.results[:-2]) for m in maps]
    for exprs in batch[:2]:
        for e in exprs:
            if not (isinstance(e, AffineDimExpr) and e.position < p) and not (isinstance(e, AffineConstantExpr) and e.value == 0):
                return None
    return batch


def _lower_batched(op: GenericOp, rewriter: PatternRewriter) -> None:
    """A batched matmul as one GEMM on collapsed rows, or a loop nest of GEMMs on batch slices."""
    batch = _batch_exprs(op)
    a, b = op.inputs
    c = op.outputs[0]
    assert isinstance(c.type, MemRefType)
    if batch is None or not _unit_column_stride(c.type):
        return
    fill = zero_fill_before(op, c)
    if fill is None:
        return
    p = len(batch[2])
    if all(isinstance(e, AffineConstantExpr) for e in batch[1]) and batch[0] == batch[2] and all(_contiguous(v) for v in (a, c)):
        flat_a, flat_c = _collapse_leading(a, p + 1), _collapse_leading(c, p + 1)
        views: list[Operation] = [flat_a, flat_c]
        matrix_b = _batch_slice(b, batch[1], [], views)  # B's one matrix (a broadcast batch)
        rewriter.insert(views, InsertPoint.before(op))
        install_kernel(op, fill, kernel.MatmulOp(flat_a.results[0], matrix_b, flat_c.results[0]), None, rewriter)
        return
    ops: list[Operation] = []
    zero, one = arith.ConstantOp.from_int_and_width(0, IndexType()), arith.ConstantOp.from_int_and_width(1, IndexType())
    ops += [zero, one]
    bounds = [_index(_dim(c, i, ops), ops) for i in range(p)]
    blocks = [Block(arg_types=[IndexType()]) for _ in range(p)]  # loop bodies, outermost first
    inner: list[Operation] = []
    views = [_batch_slice(v, exprs, [blk.args[0] for blk in blocks], inner) for v, exprs in zip((a, b, c), batch)]
    matmul = kernel.MatmulOp(*views)
    matmul.location = op.location
    blocks[-1].add_ops([*inner, matmul, scf.YieldOp()])
    loop = scf.ForOp(zero, bounds[-1], one, [], blocks[-1])
    for level in reversed(range(p - 1)):
        blocks[level].add_ops([loop, scf.YieldOp()])
        loop = scf.ForOp(zero, bounds[level], one, [], blocks[level])
    for nested in loop.walk():
        nested.location = op.location
    loop.attributes[PARALLEL_ATTR] = IntegerAttr(_item_work(a, b) // _MULTIPLY_ADDS_PER_ELEMENT or 1, IntegerType(64))
    rewriter.insert([*ops, loop], InsertPoint.before(op))
    rewriter.erase(op)
    rewriter.erase(fill)


def _contiguous(value: SSAValue) -> bool:
    return isinstance(value.type, MemRefType) and isinstance(value.type.layout, NoneAttr)


def _collapse_leading(value: SSAValue, count: int) -> memref.CollapseShapeOp:
    """A contiguous memref with its first ``count`` dims merged into one."""
    ty = value.type
    assert isinstance(ty, MemRefType)
    shape = ty.get_shape()
    lead = shape[:count]
    merged = DYNAMIC_INDEX if DYNAMIC_INDEX in lead else _product(lead)
    flat_t = MemRefType(ty.get_element_type(), [merged, *shape[count:]])
    groups = [list(range(count)), *[[i] for i in range(count, len(shape))]]
    assoc = ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups])
    return memref.CollapseShapeOp.create(operands=[value], result_types=[flat_t], properties={"reassociation": assoc})


def _product(sizes: tuple[int, ...]) -> int:
    out = 1
    for s in sizes:
        out *= s
    return out


def _dim(value: SSAValue, axis: int, ops: list[Operation]) -> SSAValue | int:
    """``value``'s size along ``axis``: an int when static, else a ``memref.dim`` added to ``ops``."""
    assert isinstance(value.type, MemRefType)
    size = value.type.get_shape()[axis]
    if size != DYNAMIC_INDEX:
        return size
    index = arith.ConstantOp.from_int_and_width(axis, IndexType())
    dim = memref.DimOp(value, index)
    ops += [index, dim]
    return dim.result


def _index(size: SSAValue | int, ops: list[Operation]) -> SSAValue:
    if isinstance(size, SSAValue):
        return size
    constant = arith.ConstantOp.from_int_and_width(size, IndexType())
    ops.append(constant)
    return constant.result


def _batch_slice(value: SSAValue, exprs: list[AffineExpr], ivs: list[SSAValue], ops: list[Operation]) -> SSAValue:
    """The 2-D matrix of ``value`` at the batch position ``ivs`` (a batch result of 0 stays at 0)."""
    ty = value.type
    assert isinstance(ty, MemRefType)
    rank = len(exprs) + 2
    if rank == 2:
        return value
    offsets: list[SSAValue | int] = [ivs[e.position] if isinstance(e, AffineDimExpr) else 0 for e in exprs] + [0, 0]
    sizes: list[SSAValue | int] = [1] * len(exprs) + [_dim(value, rank - 2, ops), _dim(value, rank - 1, ops)]
    strides = layout_strides(ty)
    view_t = MemRefType(ty.get_element_type(), ty.get_shape()[-2:], StridedLayoutAttr(strides[-2:], None))
    view = memref.SubviewOp.get(value, offsets, sizes, [1] * rank, view_t)
    ops.append(view)
    return view.result


def _item_work(a: SSAValue, b: SSAValue) -> int:
    """Multiply-adds of one batch item, a dynamic size counting 1."""
    assert isinstance(a.type, MemRefType) and isinstance(b.type, MemRefType)
    m, k = a.type.get_shape()[-2:]
    n = b.type.get_shape()[-1]
    return _product(tuple(max(s, 1) for s in (m, n, k)))


class LowerContraction(RewritePattern):
    """A contraction generic onto its kernel: a matmul, a matrix-vector product or a batched matmul."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if not _is_contraction(op):
            return
        if _is_matmul(op):
            _lower(op, rewriter)
        elif op.get_num_loops() == 2:
            _lower_matrix_vector(op, rewriter)
        else:
            _lower_batched(op, rewriter)


@dataclass(frozen=True)
class LinalgMatmulToKernel(ModulePass):
    """Replace fill + matmul generics (and a following elementwise epilogue) by ``kernel.matmul``,
    matrix-vector ones by ``kernel.matvec`` / ``kernel.vecmat``, batched ones by batch loops."""

    name = "linalg-matmul-to-kernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LowerContraction(), apply_recursively=False).rewrite_module(op)
