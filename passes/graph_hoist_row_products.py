"""``graph-hoist-row-products``: a loop computing row ``i`` of a product per iteration computes the
product once, before the loop, with the GEMM kernel.

``for i in range(M): out[i] = a[i] @ b`` multiplies one vector by the whole of ``b`` per
iteration: M vector-matrix products, each reading all of ``b`` once, so bound by memory
bandwidth. Iteration ``i`` computes row ``i`` of ``a @ b``; computed before the loop as one
matrix product, it is a packed, cache-blocked GEMM (compute-bound), and each iteration reads its
row. Likewise ``x[:, i] @ y`` is row ``i`` of ``x.T @ y``, and ``x[:, i] @ x[:, i:M]`` (the
upper triangle of a covariance, row by row) is the part of row ``i`` of ``x.T @ x`` right of the
diagonal: hoisted, that product is symmetric, and the kernel computes half of it, as BLAS's
``syrk`` does, the same work as the loop did but at GEMM speed.

Matched, in the body of a staged ``for i in range(N)`` (:func:`static_range`: runs every
iteration, no early exit), directly in the body (so on every iteration), a ``graph.matmul`` of
f32 or f64 whose

- left operand is row ``i`` of a 2-D ``a`` (``graph.gather_row``: the product is ``a @ b``) or
  column ``i`` of it (``graph.reshape`` of the ``graph.dynamic_slice`` ``a[:, i:i+1]``: the
  product is ``a.T @ b``), with N at least half the number of rows R of the product (each row is
  used at most once; ``range(M - 1)`` over M columns leaves one unused);
- right operand is a 2-D ``b`` whole, or its columns ``i + c:`` for a constant ``c >= 0``
  (``graph.dynamic_slice`` at offset ``i`` or ``i + c``, of the size ``b``'s columns minus that
  offset), with all its rows;

``a`` and ``b`` defined before the loop, static shapes. The product costs at most twice the
loop's multiply-adds (R <= 2N; the triangle of a non-symmetric ``a.T @ b``), at GEMM speed.
Other loops are left alone: computing a whole product for a loop that reads a few columns of it
per row (a window ``x[:, i:i + 2]``) would do far more work.

Expects: ``canonicalize`` and ``cse`` have run (one constant per value).
Guarantees: no matched matmul remains in a loop body; the product is computed once before the
loop and each iteration slices its row (the same indices, so the same bounds, as the slices it
replaces). The product's sums are reassociated, as any GEMM's are.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, Float64Type, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from kiln.dialects import graph
from kiln.dialects.ir_utils import defined_before
from kiln.passes._graph_loops import constant_of, static_range


def _row_of(lhs: SSAValue, i: SSAValue) -> tuple[SSAValue, bool] | None:
    """``(a, transposed)`` when ``lhs`` is row ``i`` of ``a`` (False) or column ``i`` (True)."""
    owner = lhs.owner
    if isinstance(owner, graph.GatherRowOp) and owner.index == i and len(graph.shape_of(owner.operand)) == 2:
        return owner.operand, False
    if not isinstance(owner, graph.ReshapeOp) or not isinstance(view := owner.operand.owner, graph.DynamicSliceOp):
        return None
    source = view.source
    shape = graph.shape_of(source)
    if (len(shape) == 2 and list(view.offsets) == [i] and not view.sizes
            and list(view.static_offsets.get_values()) == [0, graph.DYNAMIC]
            and list(view.static_sizes.get_values()) == [shape[0], 1]
            and list(view.strides.get_values()) == [1, 1]):
        return source, True
    return None


def _columns_of(rhs: SSAValue, i: SSAValue) -> tuple[SSAValue, bool] | None:
    """``(b, tail)`` when ``rhs`` is ``b`` whole (False) or its columns ``i + c:`` for a constant
    ``c >= 0`` (True)."""
    view = rhs.owner
    if not isinstance(view, graph.DynamicSliceOp):
        return rhs, False
    shape = graph.shape_of(view.source)
    if not (len(shape) == 2 and len(view.offsets) == 1 and len(view.sizes) == 1
            and list(view.static_offsets.get_values()) == [0, graph.DYNAMIC]
            and list(view.static_sizes.get_values()) == [shape[0], graph.DYNAMIC]
            and list(view.strides.get_values()) == [1, 1]):
        return None
    offset, size = view.offsets[0], view.sizes[0].owner
    if not (offset == i or _plus_constant(offset, i)):
        return None
    if isinstance(size, graph.SubOp) and size.rhs == offset and constant_of(size.lhs) == shape[1]:
        return view.source, True
    return None


def _plus_constant(value: SSAValue, i: SSAValue) -> bool:
    """Whether ``value`` is ``i + c`` for a constant ``c >= 0``."""
    add = value.owner
    if not isinstance(add, graph.AddOp) or i not in (add.lhs, add.rhs):
        return False
    c = constant_of(add.rhs if add.lhs == i else add.lhs)
    return c is not None and c >= 0


class HoistRowProduct(RewritePattern):
    """Row ``i`` of a product inside a counted loop over ``i``: the product before the loop, its row
    ``i`` (or the columns of it the loop read) read inside."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.MatmulOp, rewriter: PatternRewriter) -> None:
        loop = op.parent_op()
        if not isinstance(loop, graph.WhileOp) or op.parent_block() is not loop.body_region.block:
            return
        counted = static_range(loop)
        if counted is None or not isinstance(graph.element_of(op.result), (Float32Type, Float64Type)):
            return
        trips, index = counted
        i = loop.body_region.block.args[index]
        row, columns = _row_of(op.lhs, i), _columns_of(op.rhs, i)
        if row is None or columns is None:
            return
        (a, transposed), (b, tail) = row, columns
        if not (defined_before(a, loop) and defined_before(b, loop)) or -1 in graph.shape_of(b):
            return
        rows = graph.shape_of(a)[1 if transposed else 0]
        if 2 * trips < rows or trips > rows or -1 in graph.shape_of(a):
            return
        _hoist(op, loop, a, b, transposed, tail, i, rewriter)


def _hoist(op: graph.MatmulOp, loop: graph.WhileOp, a: SSAValue, b: SSAValue, transposed: bool, tail: bool,
           i: SSAValue, rewriter: PatternRewriter) -> None:
    """Insert the product (``a.T @ b`` when ``transposed``) before ``loop``; replace ``op`` by its
    row ``i`` (with ``tail``, the columns the slice read: its offset and size)."""
    left = graph.TransposeOp(a, [1, 0]) if transposed else None
    product = graph.MatmulOp(left.result if left is not None else a, b)
    for new in (left, product):
        if new is not None:
            new.location = op.location
            rewriter.insert(new, InsertPoint.before(loop))
    if tail:
        view = op.rhs.owner
        assert isinstance(view, graph.DynamicSliceOp)
        piece = graph.DynamicSliceOp(product.result, [i, view.offsets[0]], [1, view.sizes[0]], [1, 1])
        row = [piece, graph.ReshapeOp(piece.result, graph.shape_of(op.result))]
    else:
        row = [graph.GatherRowOp(product.result, i)]
    for new in row:
        new.location = op.location
    rewriter.replace(op, row)


@dataclass(frozen=True)
class GraphHoistRowProducts(ModulePass):
    """Compute, once before a counted loop, the product whose row ``i`` iteration ``i`` computes."""

    name = "graph-hoist-row-products"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(HoistRowProduct(), apply_recursively=False).rewrite_module(op)
