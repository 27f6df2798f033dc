"""``kiln-write-transposed``: an elementwise op that reads its arrays transposed writes its result
in their layout, and its readers see it through a transposed view.

``np.cov(data.T)`` centres ``data.T``: a ``linalg.generic`` over ``(i, j)`` reading ``data[j, i]``
and writing a fresh row-major ``(i, j)`` buffer. One side of that copy walks down columns
whatever the loop order (a cache line per element; 6% of the kernel at 1800 x 1400). Written as
``(j, i)`` into a buffer of the transposed shape, every access walks rows once
``kiln-interchange-loops`` puts ``i`` innermost, and the readers are given a
``memref.reinterpret_cast`` with strides ``(1, rows)``: the same elements at the same indices.

Made only where no reader pays for it: the generic computes (a bare copy is left to
``kiln-fold-transposes``), has two parallel loops, writes a fresh static
2-D allocation through the identity map, reads at least one 2-D array through the transposed map
and none through the identity map (a broadcast row or column reads the same either way); every
later use of the allocation is a ``linalg`` op that reads it transposed (a transposed copy, which
``kiln-fold-transposes`` then folds to the buffer itself) or a float32/float64 contraction (its
GEMM kernel takes any strides), or a free.

Expects the buffer level (after ``kiln-bufferize``); runs before ``kiln-fold-transposes``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.dialects.builtin import (AffineMapAttr, ArrayAttr, Float32Type, Float64Type, MemRefType, ModuleOp, NoneAttr,
                                   StridedLayoutAttr)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from kiln.passes._buffer_facts import later_readers

_SWAP = AffineMap.from_callable(lambda i, j: (j, i))
_IDENTITY = AffineMap.identity(2)


def _maps_of(op: linalg.GenericOp, value: SSAValue) -> list[AffineMap]:
    """The indexing maps through which ``op`` reads ``value``."""
    maps = [m.data for m in op.indexing_maps.data]
    return [amap for operand, amap in zip(op.inputs, maps) if operand is value]


def _transposed_reader(reader: Operation, value: SSAValue) -> bool:
    """Whether ``reader`` reads ``value`` through the transposed map only, or is a real contraction
    (``linalg-matmul-to-kernel``'s GEMM packs any strides; a complex one stays loops)."""
    assert isinstance(value.type, MemRefType)
    real = isinstance(value.type.element_type, Float32Type | Float64Type)
    if isinstance(reader, linalg.MatmulOp):
        return real
    if not isinstance(reader, linalg.GenericOp):
        return False
    if real and any(t.data == IteratorType.REDUCTION for t in reader.iterator_types.data) \
            and reader.get_num_loops() == 3 and len(reader.inputs) == 2:
        return True
    return all(amap == _SWAP for amap in _maps_of(reader, value))


def _is_copy(op: linalg.GenericOp) -> bool:
    """A body that yields an input as it is: a transposed copy is ``kiln-fold-transposes``'s."""
    body = list(op.body.block.ops)
    return len(body) == 1 and isinstance(body[0], YieldOp) and body[0].operands[0] in op.body.block.args


def _candidate(op: linalg.GenericOp) -> tuple[memref.AllocOp, list[Operation]] | None:
    """The fresh output allocation and its readers, when ``op`` should write transposed."""
    if len(op.outputs) != 1 or len(op.iterator_types.data) != 2:
        return None
    if any(t.data != IteratorType.PARALLEL for t in op.iterator_types.data):
        return None
    out = op.outputs[0]
    alloc, ty = out.owner, out.type
    if not isinstance(alloc, memref.AllocOp) or not isinstance(ty, MemRefType) or not isinstance(ty.layout, NoneAttr):
        return None
    if len(ty.get_shape()) != 2 or any(d < 0 for d in ty.get_shape()) or alloc.dynamic_sizes:
        return None
    maps = [m.data for m in op.indexing_maps.data]
    if maps[-1] != _IDENTITY or out in op.inputs or _is_copy(op):
        return None
    reads = [amap for value, amap in zip(op.inputs, maps) if isinstance(value.type, MemRefType)]
    if _IDENTITY in reads or _SWAP not in reads:
        return None
    readers = later_readers(out, op)
    if not readers or any(not _transposed_reader(r, out) for r in readers):
        return None
    return alloc, readers


class WriteTransposed(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        found = _candidate(op)
        if found is None:
            return
        alloc, readers = found
        old = alloc.memref
        old_type = old.type
        assert isinstance(old_type, MemRefType)
        rows, cols = old_type.get_shape()
        flipped = memref.AllocOp.get(old_type.element_type, alignment=alloc.alignment, shape=[cols, rows])
        flipped.location = alloc.location
        rewriter.insert(flipped, InsertPoint.before(alloc))
        view_type = MemRefType(old_type.element_type, [rows, cols], StridedLayoutAttr([1, rows], 0))
        view = memref.ReinterpretCastOp.from_dynamic(flipped.memref, [0], [rows, cols], [1, rows], view_type)
        view.location = op.location
        rewriter.insert(view, InsertPoint.after(op))
        op.operands[len(op.operands) - 1] = flipped.memref
        maps = [m.data for m in op.indexing_maps.data]
        op.properties["indexing_maps"] = ArrayAttr([AffineMapAttr(m) for m in maps[:-1]] + [AffineMapAttr(_SWAP)])
        rewriter.handle_operation_modification(op)
        for use in list(old.uses):
            user = use.operation
            if isinstance(user, memref.DeallocOp):
                user.operands[use.index] = flipped.memref
            else:
                assert user in readers
                user.operands[use.index] = view.result
        rewriter.erase(alloc)


@dataclass(frozen=True)
class KilnWriteTransposed(ModulePass):
    """Write a transposed-reading elementwise op's result in its inputs' layout (see above)."""

    name = "kiln-write-transposed"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(WriteTransposed(), apply_recursively=False).rewrite_module(op)
