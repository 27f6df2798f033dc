"""``kiln-group-exp``: adjacent vector ``math.exp`` ops become one ``kvec.exp_group``.

Expects: the loop level after ``kiln-vectorize``, whose unrolled bodies put the K copies of
an exp side by side. Produces: each run of two or more adjacent ``math.exp`` on the same
vector type, none of which reads another's result, replaced by one ``kvec.exp_group`` of
the run's operands. Why: exp's fast path (``backends/c/vector_math.py``) is a test of the
input and a branch; the group tests all its inputs with one branch and puts the fast paths
side by side in one basic block, where the C compiler interleaves them. Results are those
of the separate exps, bit for bit. Scalar exps and lone vector exps are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import math
from xdsl.dialects.builtin import ModuleOp, VectorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from kiln.dialects import kvec


class _GroupAdjacentExps(RewritePattern):
    """An exp and the exps right after it (the walk meets a run's first exp first)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: math.ExpOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.result.type, VectorType):
            return
        group, produced, nxt = [op], {op.result}, op.next_op
        while isinstance(nxt, math.ExpOp) and nxt.result.type == op.result.type and nxt.operand not in produced:
            group.append(nxt)
            produced.add(nxt.result)
            nxt = nxt.next_op
        if len(group) < 2:
            return
        grouped = kvec.ExpGroupOp([g.operand for g in group])
        rewriter.insert(grouped)
        for g, result in zip(group, grouped.outputs, strict=True):
            rewriter.replace(g, [], [result])


@dataclass(frozen=True)
class KilnGroupExp(ModulePass):
    """Group adjacent vector math.exp ops into kvec.exp_group ops."""

    name = "kiln-group-exp"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(_GroupAdjacentExps(), apply_recursively=False).rewrite_module(op)
