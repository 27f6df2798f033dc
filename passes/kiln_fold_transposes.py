"""``kiln-fold-transposes``: a transposed copy that is only read is a strided view instead.

``x.T @ g`` bufferizes to a ``linalg.generic`` copying ``x`` transposed into a new buffer, then
the product reading that buffer. The product's kernel takes any strides (backends/c/kernel_ops.py
passes both of each operand), so the copy is wasted work: for a 128x784 float32 ``x`` it took as
long as the product itself. This pass replaces the copy by a ``memref.reinterpret_cast`` of
``x`` with swapped strides, where that keeps the meaning:

- the copy is a 2-D transpose of a row-major buffer with static shape into a fresh allocation
  (or of a transposed view of one, as ``kiln-write-transposed`` makes: then the readers read the
  buffer itself);
- the allocation is only read (as an input of a ``linalg`` op) after the copy, in the same block;
- ``x`` freed between the copy and its last reader (the copy was its last use) is freed after
  that reader instead;
- nothing else from the copy to its last reader (the readers included: ``x[:] = x.T`` reads the
  copy while it writes ``x``) may write or free ``x``: every buffer an op there writes
  views another function argument or allocation (distinct arguments never overlap: an array
  passed twice is one argument); an op that may write what it is given (a call, a kernel) keeps
  the copy.

Expects the buffer level (after ``kiln-bufferize``); runs before ``linalg-matmul-to-kernel``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.dialects.builtin import MemRefType, ModuleOp, NoneAttr, StridedLayoutAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from kiln.passes._buffer_facts import read_instead, readers_of_copy

_SWAP = AffineMap.from_callable(lambda i, j: (j, i))
_IDENTITY = AffineMap.identity(2)


def _row_major(t: MemRefType) -> bool:
    """A static row-major buffer: no layout, or strides (cols, 1) at offset 0."""
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return True
    return isinstance(layout, StridedLayoutAttr) and tuple(layout.get_strides()) == (t.get_shape()[1], 1) \
        and layout.get_offset() == 0


def _transposed_view_base(value: SSAValue) -> SSAValue | None:
    """The row-major buffer ``value`` is the transposed view of (a static ``reinterpret_cast``
    at offset 0 with swapped shape and strides ``(1, rows)``, as ``kiln-write-transposed`` makes),
    or None."""
    cast, ty = value.owner, value.type
    if not isinstance(cast, memref.ReinterpretCastOp) or cast.offsets or cast.sizes or cast.strides:
        return None
    base, base_type = cast.source, cast.source.type
    if not isinstance(ty, MemRefType) or not isinstance(base_type, MemRefType) or not _row_major(base_type):
        return None
    rows, cols = ty.get_shape()
    layout = ty.layout
    return base if tuple(base_type.get_shape()) == (cols, rows) and isinstance(layout, StridedLayoutAttr) \
        and tuple(layout.get_strides()) == (1, rows) and layout.get_offset() == 0 else None


def _is_transpose_copy(op: linalg.GenericOp) -> bool:
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        return False
    if any(i != IteratorTypeAttr.parallel() for i in op.iterator_types):
        return False
    src, dst = op.inputs[0].type, op.outputs[0].type
    if not (isinstance(src, MemRefType) and isinstance(dst, MemRefType) and len(src.get_shape()) == 2):
        return False
    if any(d < 0 for d in src.get_shape()) or src.element_type != dst.element_type:
        return False
    maps = [m.data for m in op.indexing_maps.data]
    if maps != [_SWAP, _IDENTITY]:
        return False
    body = list(op.body.block.ops)
    return len(body) == 1 and isinstance(body[0], YieldOp) and body[0].operands[0] is op.body.block.args[0]


class FoldTransposeCopy(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        if not _is_transpose_copy(op):
            return
        src, dst = op.inputs[0], op.outputs[0]
        src_type = src.type
        assert isinstance(src_type, MemRefType)
        base = _transposed_view_base(src)
        if not (_row_major(src_type) or base is not None) or not isinstance(dst.owner, memref.AllocOp):
            return
        readers = readers_of_copy(op, src, dst)
        if readers is None:
            return
        if base is not None:  # the transpose of a transposed view is its buffer
            read_instead(op, dst, base, readers, rewriter)
            return
        rows, cols = src_type.get_shape()
        view_type = MemRefType(src_type.element_type, [cols, rows], StridedLayoutAttr([1, cols], 0))
        view = memref.ReinterpretCastOp.from_dynamic(src, [0], [cols, rows], [1, cols], view_type)
        view.location = op.location
        rewriter.insert(view, InsertPoint.before(op))
        read_instead(op, dst, view.result, readers, rewriter)


@dataclass(frozen=True)
class KilnFoldTransposes(ModulePass):
    """Replace a transposed copy that is only read by a strided view (see the module docstring)."""

    name = "kiln-fold-transposes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldTransposeCopy(), apply_recursively=False).rewrite_module(op)
