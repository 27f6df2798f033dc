"""``graph-merge-histograms``: histograms of the same data in the same bins become one.

``np.histogram(r, n)`` and ``np.histogram(r, n, weights=w)`` of one array trace two
``graph.histogram`` ops whose operands, after ``cse``, are the same values but the weights.
Each op walks all the data; merged, one walk counts and adds both weights (the counts are
the same, each weights operand keeps its own sums and order of additions, so the results
do not change).

Expects: ``cse`` has run (identical min/max/edges computations are one value).
Guarantees: no two ``graph.histogram`` ops of one block with the same data, bounds and edges,
where the later one's weights are visible at the earlier one.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from kiln.dialects import graph
from kiln.dialects.ir_utils import defined_before


def _binning(op: graph.HistogramOp) -> tuple[object, ...]:
    return (op.operand, op.low, op.high, op.span, op.edges)


class MergeHistograms(RewritePattern):
    """A ``graph.histogram`` and a later one of its block with the same binning: one op at the
    first's place, with the weights of both (the second's must be visible there)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.HistogramOp, rewriter: PatternRewriter) -> None:
        later = op.next_op
        while later is not None:
            if (isinstance(later, graph.HistogramOp) and _binning(later) == _binning(op)
                    and all(defined_before(w, op) for w in later.weights)):
                break
            later = later.next_op
        if later is None:
            return
        merged = graph.HistogramOp(op.operand, op.low, op.high, op.span, op.edges, [*op.weights, *later.weights])
        merged.location = op.location
        first = len(op.weights)
        rewriter.replace(later, [], [merged.counts, *merged.sums[first:]])
        rewriter.replace(op, merged, [merged.counts, *merged.sums[:first]])


@dataclass(frozen=True)
class GraphMergeHistograms(ModulePass):
    """Merge the ``graph.histogram`` ops that bin the same data alike."""

    name = "graph-merge-histograms"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MergeHistograms()).rewrite_module(op)
