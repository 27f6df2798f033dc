"""``kiln-interchange-loops``: a ``linalg.generic`` whose innermost loop strides through every
operand gets, as its innermost loop, a parallel one that walks an operand contiguously.

``convert-linalg-to-loops`` nests a generic's loops in its dimension order, and
``kiln-vectorize`` strip-mines innermost unit-stride loops only. A reduction over a transposed
view comes as ``(d0 parallel, d1 reduction)`` reading ``x[d1, d0]``: NumPy's ``np.cov(data.T)``
averages ``data.T`` along axis 1, and ``x.T.sum(axis=1)`` is the same. Its inner loop walks down a
column of ``x``, a cache line per element, and stays scalar; with ``d0`` innermost it reads rows
of ``x`` and vectorizes, as ``x.sum(axis=0)`` does.

Moving a parallel dimension inward keeps the results bit for bit: the points of a parallel
dimension are independent, and each output element still sees its reduction's iterations in
their order. The price is threads: ``kiln-parallel-loops`` runs a generic's outermost loop on
threads only when it is parallel, so an interchange that puts a reduction outermost runs on one
thread. It is made where no operand is contiguous in the innermost dimension and one is in the moved
dimension (a column walk costs a cache miss per element; a row walk a vector load per W
elements), and where the innermost loop is short (at most ``SHORT_INNER`` static iterations) and
the moved dimension walks more operands contiguously: NPBench's stockham_fft multiplies by a 2 x 2
complex DFT matrix, ``(2, 2) @ (2, 131072)`` with no kernel for complex products, and its
reduction of 2 innermost kept the 131072-long rows scalar. Generics whose body reads
``linalg.index`` keep their order.

Expects: the buffer level, after ``linalg-generalize-named-ops``; runs before
``kiln-parallel-loops``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, MemRefType, ModuleOp
from xdsl.ir.affine import AffineDimExpr
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern


def _contiguous_counts(op: linalg.GenericOp) -> list[int]:
    """Per loop dimension, how many memref operands it walks with unit stride (as a plain index)."""
    maps = [m.data for m in op.indexing_maps.data]
    counts = [0] * (maps[0].num_dims if maps else 0)
    for value, amap in zip(op.operands, maps, strict=True):
        if not isinstance(value.type, MemRefType):
            continue
        strides = value.type.get_strides()
        if strides is None:
            continue
        for expr, stride in zip(amap.results, strides, strict=True):
            if isinstance(expr, AffineDimExpr) and stride == 1:
                counts[expr.position] += 1
    return counts


#: an innermost loop of at most this many (static) iterations gives way to a parallel one that walks
#: more operands contiguously: too short to vectorize, and the others stride by it
SHORT_INNER = 8


def _extent(op: linalg.GenericOp, dim: int) -> int | None:
    """The static trip count of loop ``dim``, from an operand it indexes as a plain dimension."""
    for value, amap in zip(op.operands, (m.data for m in op.indexing_maps.data), strict=True):
        if not isinstance(value.type, MemRefType):
            continue
        for expr, size in zip(amap.results, value.type.get_shape(), strict=True):
            if isinstance(expr, AffineDimExpr) and expr.position == dim and size >= 0:
                return size
    return None


def _innermost_choice(op: linalg.GenericOp) -> int | None:
    """The parallel dimension to move innermost, or None to keep the order."""
    if not op.iterator_types.data or any(isinstance(o, linalg.IndexOp) for o in op.body.walk()):
        return None
    if any(not isinstance(v.type, MemRefType) for v in op.outputs):
        return None
    counts = _contiguous_counts(op)
    last = len(counts) - 1
    if last < 1:
        return None
    parallel = [d for d in range(last) if op.iterator_types.data[d].data == IteratorType.PARALLEL]
    best = max(parallel, key=lambda d: (counts[d], d), default=None)
    if best is None or not counts[best]:
        return None
    if not counts[last]:
        return best
    extent = _extent(op, last)
    return best if counts[best] > counts[last] and extent is not None and extent <= SHORT_INNER else None


class MoveContiguousInnermost(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        moved = _innermost_choice(op)
        if moved is None:
            return
        n = len(op.iterator_types.data)
        order = [d for d in range(n) if d != moved] + [moved]  # new dimension i is old dimension order[i]
        new_of_old = [AffineDimExpr(order.index(d)) for d in range(n)]
        maps = [m.data.replace_dims_and_symbols(new_of_old, [], n, m.data.num_symbols) for m in op.indexing_maps.data]
        op.properties["indexing_maps"] = ArrayAttr([AffineMapAttr(m) for m in maps])
        op.properties["iterator_types"] = ArrayAttr([op.iterator_types.data[d] for d in order])
        rewriter.handle_operation_modification(op)


@dataclass(frozen=True)
class KilnInterchangeLoops(ModulePass):
    """Put a contiguous parallel loop innermost where the innermost one strides every operand."""

    name = "kiln-interchange-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MoveContiguousInnermost(), apply_recursively=False).rewrite_module(op)
