"""``linalg-conv-to-kernel``: buffer-level convolutions onto kiln's packed GEMM kernel.

Expects: the buffer level (after ``kiln-bufferize``), where ``graph.conv2d`` is a
``linalg.fill`` of 0 into the NHWC output followed by a ``linalg.generic`` over
``(n, oh, ow, co, kh, kw, ci)`` with maps ``(n, oh*sh+kh, ow*sw+kw, ci)``,
``(kh, kw, ci, co)``, ``(n, oh, ow, co)``, four parallel and three reduction
iterators, body ``y + x * f`` on f32 or f64, all three buffers contiguous.
Produces: ``kernel.conv2d`` (see ``dialects/kernel.py``), the fill removed: the
GEMM with an implicit im2col A packed straight from the input, the same
register-blocked FMA micro-kernel as matmul. When the next reader of the output
is an elementwise generic that reads it whole (a bias add, an activation:
every operand read either through the identity or through a map of the
channel alone), that generic becomes the kernel's epilogue on the just-finished
rows of the flattened ``(n*oh*ow) x co`` output, as for matmul.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IndexType, IntegerAttr, MemRefType, ModuleOp, NoneAttr, i64
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from kiln.dialects import kernel
from kiln.passes._kernel_common import (
    buffer_root,
    epilogue_can_move,
    hoist_alloc_before,
    install_kernel,
    indexing_maps,
    multiply_add_body,
    row_view,
    zero_fill_before,
)


def conv_maps(sh: int, sw: int) -> list[AffineMap]:
    """The indexing maps ``convert-graph-to-linalg`` gives a conv2d with strides ``(sh, sw)``."""
    d = AffineExpr.dimension
    return [
        AffineMap(7, 0, (d(0), d(1) * sh + d(4), d(2) * sw + d(5), d(6))),
        AffineMap(7, 0, (d(4), d(5), d(6), d(3))),
        AffineMap(7, 0, (d(0), d(1), d(2), d(3))),
    ]


def _strides(op: GenericOp) -> tuple[int, int] | None:
    """``(sh, sw)`` when ``op`` is a VALID NHWC x HWIO convolution on contiguous float buffers."""
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.results:
        return None
    if [it.data for it in op.iterator_types.data] != [IteratorType.PARALLEL] * 4 + [IteratorType.REDUCTION] * 3:
        return None
    maps = indexing_maps(op)
    if len(maps) != 3 or maps[0].num_dims != 7 or len(maps[0].results) != 4:
        return None
    _, sh, sw, _ = maps[0].eval([0, 1, 1, 0, 0, 0, 0], [])
    if sh < 1 or sw < 1 or maps != conv_maps(sh, sw):
        return None
    types = [v.type for v in op.operands]
    if not all(isinstance(t, MemRefType) and isinstance(t.layout, NoneAttr) and t.has_static_shape() for t in types):
        return None
    return (sh, sw) if multiply_add_body(op) else None


def _epilogue_for(conv: GenericOp, y: SSAValue) -> GenericOp | None:
    """The elementwise generic reading all of ``y`` right after ``conv``, fusable per row block."""
    nxt = conv.next_op
    while nxt is not None and y not in nxt.operands:
        if any(y in o.operands for o in nxt.walk()):
            return None
        nxt = nxt.next_op
    if not isinstance(nxt, GenericOp) or nxt.results or len(nxt.outputs) != 1 or nxt.get_num_loops() != 4:
        return None
    if any(it.data != IteratorType.PARALLEL for it in nxt.iterator_types.data):
        return None
    ident = AffineMap.identity(4)
    maps = indexing_maps(nxt)
    out = nxt.outputs[0]
    if maps[-1] != ident or [v for v in nxt.inputs].count(y) != 1 or maps[list(nxt.inputs).index(y)] != ident:
        return None
    if out is y or out.type != y.type or out in conv.operands or not isinstance(out.owner, (memref.AllocOp, Block)):
        return None
    if any(buffer_root(v) is buffer_root(out) for v in nxt.inputs if v is not y):
        return None  # the kernel writes D before the epilogue reads: `acc[:] = acc + conv(...)`
    for value, m in zip(nxt.operands, maps):
        if m != ident and m.used_dims() & {0, 1, 2}:
            return None
        if m == ident and (not isinstance(value.type, MemRefType) or not isinstance(value.type.layout, NoneAttr)):
            return None
    if any(u.operation not in (conv, nxt) and not isinstance(u.operation, (memref.DeallocOp, FillOp)) for u in y.uses):
        return None
    return nxt


def _rows_2d(value: SSAValue, begin: SSAValue, size: SSAValue) -> list[Operation]:
    """``value`` (contiguous NHWC) as ``(n*h*w) x c``, restricted to rows ``[begin, begin + size)``."""
    ty = value.type
    assert isinstance(ty, MemRefType)
    n, h, w, c = ty.get_shape()
    flat_t = MemRefType(ty.get_element_type(), [n * h * w, c])
    assoc = ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in group]) for group in ((0, 1, 2), (3,))])
    flat = memref.CollapseShapeOp.create(operands=[value], result_types=[flat_t], properties={"reassociation": assoc})
    view = row_view(flat.results[0], 0, begin, size)
    assert view is not None
    return [flat, view]


def _build_epilogue(epi: GenericOp, y: SSAValue, d: SSAValue) -> Region:
    """``epi`` on rows ``[begin, end)`` of the flattened output: identity operands become row
    views of their ``(n*h*w) x c`` collapse (``y`` read from ``d``), channel maps move to dim 1."""
    block = Block(arg_types=[IndexType(), IndexType()])
    begin, end = block.args
    size = arith.SubiOp(end, begin)
    ops: list[Operation] = [size]
    ident = AffineMap.identity(4)
    channel = [AffineExpr.constant(0)] * 3 + [AffineExpr.dimension(1)]
    operands: list[SSAValue] = []
    maps: list[AffineMap] = []
    for value, m in zip([*epi.inputs, epi.outputs[0]], indexing_maps(epi)):
        if m == ident:
            views = _rows_2d(d if value is y else value, begin, size.result)
            ops.extend(views)
            operands.append(views[-1].results[0])
            maps.append(AffineMap.identity(2))
        else:
            operands.append(value)
            maps.append(m.replace_dims_and_symbols(channel, [], 2, 0))
    parallel = [IteratorTypeAttr.parallel()] * 2
    generic = GenericOp(operands[:-1], operands[-1:], epi.body.clone(), [AffineMapAttr(m) for m in maps], parallel)
    ops.extend([generic, kernel.YieldOp()])
    for op in ops:
        op.location = epi.location
        block.add_op(op)
    return Region(block)


def _lower(op: GenericOp, strides: tuple[int, int], rewriter: PatternRewriter) -> None:
    x, f = op.inputs
    y = op.outputs[0]
    fill = zero_fill_before(op, y)
    if fill is None:
        return
    target, region, epi = y, None, _epilogue_for(op, y)
    if epi is not None:
        d = epi.outputs[0]
        hoist_alloc_before(d, op)
        if epilogue_can_move(op, epi):
            region, target = _build_epilogue(epi, y, d), d
        else:
            epi = None
    install_kernel(op, fill, kernel.Conv2DOp(x, f, target, strides, region), epi, rewriter)


class LowerConvolution(RewritePattern):
    """A convolution generic (after its zero fill) onto ``kernel.conv2d``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        strides = _strides(op)
        if strides is not None:
            _lower(op, strides, rewriter)


@dataclass(frozen=True)
class LinalgConvToKernel(ModulePass):
    """Replace fill + convolution generics (and a following elementwise epilogue) by ``kernel.conv2d``."""

    name = "linalg-conv-to-kernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LowerConvolution(), apply_recursively=False).rewrite_module(op)
