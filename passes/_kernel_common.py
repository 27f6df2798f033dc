"""What the GEMM-family kernel passes (linalg-matmul-to-kernel, linalg-conv-to-kernel) share:
matching the accumulation they replace, row-block views for epilogues, and the final swap of
``fill + generic (+ epilogue generic)`` for one ``kernel.*`` op."""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, FloatAttr, MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, YieldOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects.ir_utils import defined_before
from kiln.passes._buffer_facts import VIEWS


def indexing_maps(op: GenericOp) -> list[AffineMap]:
    return [m.data for m in op.indexing_maps.data]


def multiply_add_body(op: GenericOp) -> bool:
    """One float element type, body ``c + a * b`` (either operand order): a GEMM's accumulation."""
    if len({v.type.get_element_type() for v in op.operands}) != 1:  # type: ignore[union-attr]
        return False
    a, b, c = op.body.block.args
    ops = list(op.body.block.ops)
    if len(ops) != 3 or not isinstance(ops[0], arith.MulfOp) or not isinstance(ops[1], arith.AddfOp):
        return False
    mul, add, yld = ops
    return (
        {mul.lhs, mul.rhs} == {a, b}
        and {add.lhs, add.rhs} == {c, mul.result}
        and isinstance(yld, YieldOp)
        and list(yld.operands) == [add.result]
    )


def zero_fill_before(op: GenericOp, c: SSAValue) -> FillOp | None:
    """The ``linalg.fill`` of 0.0 into ``c`` that ``op`` accumulates onto, nothing in between."""
    prev = op.prev_op
    while prev is not None:
        if isinstance(prev, FillOp) and list(prev.outputs) == [c]:
            value = prev.inputs[0].owner
            if isinstance(value, arith.ConstantOp) and isinstance(value.value, FloatAttr) and value.value.value.data == 0.0:
                return prev
            return None
        if c in prev.operands or any(c in o.operands for o in prev.walk()):
            return None
        prev = prev.prev_op
    return None


def row_major_strides(ty: MemRefType) -> list[int] | None:
    if isinstance(ty.layout, StridedLayoutAttr):
        strides = ty.layout.get_strides()
        return None if any(s is None for s in strides) else [int(s) for s in strides]  # type: ignore[arg-type]
    if not isinstance(ty.layout, NoneAttr) or not ty.has_static_shape():
        return None
    strides, acc = [], 1
    for size in reversed(ty.get_shape()):
        strides.append(acc)
        acc *= size
    return strides[::-1]


def layout_strides(ty: MemRefType) -> list[int | None]:
    """Per-dim strides in elements of a strided or identity-layout memref, None where unknown
    before run time (a dynamic size to the right, in an identity layout)."""
    if isinstance(ty.layout, StridedLayoutAttr):
        return list(ty.layout.get_strides())
    strides: list[int | None] = []
    acc: int | None = 1
    for size in reversed(ty.get_shape()):
        strides.append(acc)
        acc = None if acc is None or size == DYNAMIC_INDEX else acc * size
    return strides[::-1]


def row_view(source: SSAValue, dim: int, begin: SSAValue, size: SSAValue) -> memref.SubviewOp | None:
    """``source`` restricted to ``[begin, begin + size)`` along ``dim``."""
    ty = source.type
    assert isinstance(ty, MemRefType)
    strides = row_major_strides(ty)
    if strides is None:
        return None
    shape = list(ty.get_shape())
    rank = len(shape)
    offsets: list[SSAValue | int] = [begin if d == dim else 0 for d in range(rank)]
    sizes: list[SSAValue | int] = [size if d == dim else shape[d] for d in range(rank)]
    view_shape = [DYNAMIC_INDEX if d == dim else shape[d] for d in range(rank)]
    view_type = MemRefType(ty.get_element_type(), view_shape, StridedLayoutAttr(strides, None))
    return memref.SubviewOp.get(source, offsets, sizes, [1] * rank, view_type)




def buffer_root(value: SSAValue) -> SSAValue:
    """The buffer ``value`` is a view of (itself if it is not a view)."""
    while isinstance(value.owner, VIEWS):
        value = value.owner.operands[0]
    return value


def _only_reads(op: Operation, buffer: SSAValue) -> bool:
    if isinstance(op, (memref.LoadOp, *VIEWS)):
        return True
    return isinstance(op, GenericOp) and buffer in op.inputs and buffer not in op.outputs


def epilogue_can_move(kernel: Operation, epilogue: GenericOp) -> bool:
    """Whether ``epilogue`` may run at ``kernel`` (as its epilogue), before the ops between them:
    its other operands exist there, none of those ops writes a buffer it reads, and none touches
    the buffer it writes (``x @ w * y.min()``: the min is computed between the two)."""
    if not all(defined_before(v, kernel) for v in epilogue.operands):
        return False
    written = {buffer_root(v) for v in epilogue.outputs}
    read = {buffer_root(v) for v in epilogue.inputs if isinstance(v.type, MemRefType)}
    between = kernel.next_op
    while between is not None and between is not epilogue:
        for nested in between.walk():
            for value in nested.operands:
                if not isinstance(value.type, MemRefType):
                    continue
                root = buffer_root(value)
                if root in written or (root in read and not _only_reads(nested, value)):
                    return False
        between = between.next_op
    return True


def hoist_alloc_before(value: SSAValue, op: Operation) -> None:
    """Move the (static) ``memref.alloc`` of an epilogue's output above ``op``, so the kernel,
    which replaces ``op``, can write into it."""
    alloc = value.owner
    if isinstance(alloc, memref.AllocOp) and not alloc.operands and alloc.parent is op.parent and op.is_before_in_block(alloc):
        alloc.detach()  # returns None in xDSL 0.74
        Rewriter.insert_op(alloc, InsertPoint.before(op))


def install_kernel(
    op: GenericOp, fill: FillOp, new: Operation, epilogue: GenericOp | None, rewriter: PatternRewriter
) -> None:
    """Replace ``op`` by the kernel op ``new`` (at ``op``'s location); the kernel overwrites its
    output, so the zero ``fill`` goes, and so does an epilogue generic it absorbed."""
    new.location = op.location
    rewriter.replace(op, new)
    rewriter.erase(fill)
    if epilogue is not None:
        rewriter.erase(epilogue)
