"""``graph-order-effects``: thread a ``!graph.token`` through every stateful graph op.

TensorFlow's automatic control dependencies, made explicit in the IR. Runs first
in the ``tensor`` stage, before ``canonicalize``/``cse``: once each
``graph.print``/``graph.check``/``graph.read``/``graph.assign`` consumes the token of the effect
before it and produces the next one, no rewrite can reorder two effects (they are
chained by SSA use) and none can merge two identical prints (different token
operands).

Per function: ``%t = graph.token`` at entry, then in program order each stateful
op is rebuilt with ``after %t`` and its new token is the next ``%t``. A
``graph.cond`` whose regions hold stateful ops captures ``%t`` from above in both
regions and gets one more result, a token, yielded by each branch. A
``graph.while`` whose regions hold stateful ops carries the token as one more
loop value (last position). Functions already threaded (any stateful op with a
token) are left as they are, so the pass is idempotent.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph

#: graph ops with side effects, ordered by tokens
STATEFUL = (graph.PrintOp, graph.CheckOp, graph.ReadOp, graph.AssignOp)


def has_effects(op: Operation) -> bool:
    """True if ``op`` or an op nested in it is a stateful graph op."""
    return any(isinstance(o, STATEFUL) for o in op.walk())


def _retoken(op: Operation, token: SSAValue) -> tuple[Operation, SSAValue]:
    """The stateful ``op`` rebuilt to run after ``token``; returns it and its new token."""
    if isinstance(op, graph.PrintOp):
        new: Operation = graph.PrintOp(op.format.data, list(op.values), token)
    elif isinstance(op, graph.CheckOp):
        new = graph.CheckOp(op.cond, op.message.data, token)
    elif isinstance(op, graph.ReadOp):
        new = graph.ReadOp(op.resource, token)
    else:
        assert isinstance(op, graph.AssignOp)
        new = graph.AssignOp(op.resource, op.value, token)
    new.location = op.location
    new.attributes.update(op.attributes)
    return new, new.results[-1]


def _extend_terminator(block: Block, token: SSAValue) -> None:
    """Append ``token`` to the values a region's terminator passes on."""
    term = block.last_op
    assert isinstance(term, (graph.YieldOp, graph.ConditionOp))
    if isinstance(term, graph.ConditionOp):
        new: Operation = graph.ConditionOp(term.pred, *term.values, token)
    else:
        new = graph.YieldOp(*term.values, token)
    new.location = term.location
    Rewriter.replace_op(term, new)


def _thread_cond(op: graph.CondOp, token: SSAValue) -> tuple[Operation, SSAValue]:
    for region in (op.then_region, op.else_region):
        _extend_terminator(region.block, thread_block(region.block, token))
    new = graph.CondOp(
        op.pred, [*op.res.types, graph.TokenType()], op.detach_region(0), op.detach_region(0)
    )
    return new, new.results[-1]


def _thread_while(op: graph.WhileOp, token: SSAValue) -> tuple[Operation, SSAValue]:
    for region in (op.cond_region, op.body_region):
        block = region.block
        carried = block.insert_arg(graph.TokenType(), len(block.args))
        _extend_terminator(block, thread_block(block, carried))
    new = graph.WhileOp([*op.init, token], op.detach_region(0), op.detach_region(0))
    return new, new.results[-1]


def thread_block(block: Block, token: SSAValue) -> SSAValue:
    """Thread ``token`` through the stateful ops of ``block`` in order; return the last token."""
    for op in list(block.ops):
        if isinstance(op, STATEFUL):
            new, token_out = _retoken(op, token)
        elif isinstance(op, graph.CondOp) and has_effects(op):
            new, token_out = _thread_cond(op, token)
        elif isinstance(op, graph.WhileOp) and has_effects(op):
            new, token_out = _thread_while(op, token)
        elif op.regions and has_effects(op):
            raise DiagnosticException(
                f"graph-order-effects: stateful ops inside '{op.name}' cannot be ordered"
            )
        else:
            continue
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        for old, replacement in zip(op.results, new.results, strict=False):
            old.replace_all_uses_with(replacement)
        Rewriter.erase_op(op)
        token = token_out
    return token


def _already_threaded(fn: func.FuncOp) -> bool:
    return any(
        isinstance(o, STATEFUL) and o.tok_in is not None for o in fn.walk()
    ) or any(isinstance(o, graph.TokenOp) for o in fn.walk())


@dataclass(frozen=True)
class GraphOrderEffects(ModulePass):
    """Order the side effects of every function by an explicit token chain."""

    name = "graph-order-effects"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if not isinstance(fn, func.FuncOp) or fn.is_declaration:
                continue
            if not has_effects(fn) or _already_threaded(fn):
                continue
            block = fn.body.block
            start = graph.TokenOp()
            start.location = fn.location
            Rewriter.insert_op(start, InsertPoint.at_start(block))
            thread_block(block, start.token)
