"""``graph-hoist-window-convs``: a convolution written as a loop over output pixels becomes one
``graph.conv2d`` before the loops.

The loop form of a stride-1 convolution::

    for r in range(H - K1 + 1):
        for c in range(W - K2 + 1):
            out[:, r, c, :] = np.sum(x[:, r:r + K1, c:c + K2, :, None] * w[None], axis=(1, 2, 3))

computes, per output pixel, an ``(N, K1*K2*C) x (K1*K2*C, CO)`` product from a freshly copied
window: one small product and a copy per pixel, the filters re-read every time. It is pixel
``(r, c)`` of ``conv2d(x, w)`` (NHWC input, HWIO filters, VALID padding), which kiln computes
as one GEMM with an implicit im2col (``linalg-conv-to-kernel``). Hoisted, the convolution runs
once before the loops, and each iteration reads its pixel.

Matched: a ``graph.reduce "sum"`` over axes ``(1, 2, 3)`` of a ``graph.mul`` of the window
``x[:, r:r+K1, c:c+K2, :]`` (a ``graph.dynamic_slice`` at offsets ``(0, r, c, 0)``, stride 1,
given a trailing unit axis and broadcast) and the filters ``w`` (``K1 x K2 x C x CO``, given a
leading axis and broadcast), directly in the body of a staged ``for c in range(W - K2 + 1)``,
itself directly in the body of a staged ``for r in range(H - K1 + 1)`` (:func:`static_range`:
every iteration runs, so every pixel is used once; the two loops may be either way round);
``x`` and ``w`` floats of static shapes, defined before the outer loop.

Expects: ``canonicalize`` and ``cse`` have run (one constant per value).
Guarantees: no matched reduction remains; ``graph.conv2d`` before the outer loop, its pixel
``(r, c)`` sliced where the reduction was (in bounds: the loops cover the output exactly). The
sums are reassociated, as the convolution kernel's are.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from kiln.dialects import graph
from kiln.dialects.ir_utils import defined_before
from kiln.passes._graph_loops import static_range


def _unexpanded(value: SSAValue, unit_axis: int) -> SSAValue | None:
    """The 4-D value that ``value`` is, broadcast after a unit axis was inserted at ``unit_axis``
    (by a ``graph.reshape``, or for a leading axis by the broadcast itself)."""
    if isinstance(value.owner, graph.BroadcastOp):
        value = value.owner.operand
    shape = graph.shape_of(value)
    if unit_axis == 0 and len(shape) == 4:
        return value
    owner = value.owner
    if not (isinstance(owner, graph.ReshapeOp) and len(shape) == 5 and shape[unit_axis] == 1):
        return None
    inner = owner.operand
    return inner if graph.shape_of(inner) == shape[:unit_axis] + shape[unit_axis + 1:] else None


def _window(value: SSAValue) -> graph.DynamicSliceOp | None:
    """The stride-1 window ``x[:, r:r+K1, c:c+K2, :]`` (both offsets run-time values) ``value`` is."""
    view = value.owner
    if not isinstance(view, graph.DynamicSliceOp) or len(graph.shape_of(view.source)) != 4:
        return None
    n, _, _, channels = graph.shape_of(view.source)
    sizes = list(view.static_sizes.get_values())
    if (list(view.static_offsets.get_values()) == [0, graph.DYNAMIC, graph.DYNAMIC, 0] and not view.sizes
            and sizes[0] == n and sizes[3] == channels and list(view.strides.get_values()) == [1, 1, 1, 1]):
        return view
    return None


def _loops(op: graph.ReduceOp) -> tuple[graph.WhileOp, dict[SSAValue, int]] | None:
    """The outer of two counted loops directly around ``op``, and each loop's counter with its
    number of iterations."""
    inner = op.parent_op()
    outer = inner.parent_op() if inner is not None else None
    if not (isinstance(inner, graph.WhileOp) and isinstance(outer, graph.WhileOp)
            and op.parent_block() is inner.body_region.block and inner.parent_block() is outer.body_region.block):
        return None
    counters: dict[SSAValue, int] = {}
    for loop in (inner, outer):
        counted = static_range(loop)
        if counted is None:
            return None
        counters[loop.body_region.block.args[counted[1]]] = counted[0]
    return outer, counters


class HoistWindowConv(RewritePattern):
    """A per-pixel window reduction in two loops over the pixels: the convolution before them."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ReduceOp, rewriter: PatternRewriter) -> None:
        mul = op.operand.owner
        if (op.kind.data != "sum" or list(op.axes.get_values()) != [1, 2, 3] or op.keepdims is not None
                or not isinstance(mul, graph.MulOp) or not graph.is_float(graph.element_of(op.result))):
            return
        loops = _loops(op)
        if loops is None:
            return
        outer, counters = loops
        for lhs, rhs in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
            window, filters = _unexpanded(lhs, 4), _unexpanded(rhs, 0)
            view = _window(window) if window is not None else None
            if view is None or filters is None:
                continue
            x = view.source
            _, h, w, channels = graph.shape_of(x)
            _, k1, k2, _ = view.static_sizes.get_values()
            r, c = view.offsets
            if (graph.shape_of(filters)[:3] != (k1, k2, channels) or -1 in graph.shape_of(filters)
                    or r == c or counters.get(r) != h - k1 + 1 or counters.get(c) != w - k2 + 1):
                continue
            if not (defined_before(x, outer) and defined_before(filters, outer)):
                continue
            _hoist(op, outer, x, filters, r, c, rewriter)
            return


def _hoist(op: graph.ReduceOp, outer: graph.WhileOp, x: SSAValue, filters: SSAValue, r: SSAValue, c: SSAValue,
           rewriter: PatternRewriter) -> None:
    """``graph.conv2d(x, filters)`` before ``outer``; ``op`` replaced by its pixel ``(r, c)``."""
    conv = graph.Conv2DOp(x, filters, [1, 1], "VALID")
    conv.location = op.location
    rewriter.insert(conv, InsertPoint.before(outer))
    n, _, _, co = graph.shape_of(conv.result)
    pixel = graph.DynamicSliceOp(conv.result, [0, r, c, 0], [n, 1, 1, co], [1, 1, 1, 1])
    flat = graph.ReshapeOp(pixel.result, graph.shape_of(op.result))
    for new in (pixel, flat):
        new.location = op.location
    rewriter.replace(op, [pixel, flat])


@dataclass(frozen=True)
class GraphHoistWindowConvs(ModulePass):
    """Compute, once before two loops over output pixels, the convolution each iteration reduces a
    window of."""

    name = "graph-hoist-window-convs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(HoistWindowConv(), apply_recursively=False).rewrite_module(op)
