"""Counted ``graph.while`` loops: how a staged ``for i in range(N)`` traces, for the passes that
reason about its iterations (chunking it, hoisting work out of it)."""

from __future__ import annotations

from xdsl.ir import SSAValue

from kiln.dialects import graph


def static_range(op: graph.WhileOp) -> tuple[int, int] | None:
    """``(N, i)`` when ``op`` is how a staged ``for t in range(N)`` traces, N a constant: carried
    value ``i`` counts from 0 and the loop runs while it is below N; else None."""
    cond, body = op.cond_region.block, op.body_region.block
    term = cond.last_op
    if not isinstance(term, graph.ConditionOp) or list(term.values) != list(cond.args):
        return None
    pred = term.pred.owner
    if not isinstance(pred, graph.CmpOp) or pred.predicate.data != "lt" or pred.lhs not in cond.args:
        return None
    if any(not isinstance(inner, (graph.ConstantOp, graph.CmpOp, graph.ConditionOp)) for inner in cond.ops):
        return None
    i = list(cond.args).index(pred.lhs)
    step = body.last_op.operands[i].owner if isinstance(body.last_op, graph.YieldOp) else None
    counts = isinstance(step, graph.AddOp) and body.args[i] in step.operands and any(
        constant_of(v) == 1 for v in step.operands)
    bound = constant_of(pred.rhs)
    return (int(bound), i) if counts and bound is not None and constant_of(op.init[i]) == 0 else None


def constant_of(value: SSAValue) -> int | None:
    """The value of a 0-d integer constant (None for anything else)."""
    owner = value.owner
    if not isinstance(owner, graph.ConstantOp) or graph.shape_of(value):
        return None
    v = owner.value.get_values()[0]
    return v if isinstance(v, int) else None
