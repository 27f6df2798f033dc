"""``graph-inline-calls``: a ``func.call`` of a small or effectful function of the module becomes its body.

A kiln.function called while another is traced is traced once per signature into a private
``func.func`` of the caller's module, and every call of it is a ``func.call``
(kiln.frontend.calls). This pass, first in the ``tensor`` stage, decides what stays a call: a
callee of at least ``keep-ops`` ops (counted at any depth) without effects (``graph.print``,
``graph.check``, ``graph.read``, ``graph.assign``, here or in a function it calls) stays a
function, which the later stages lower and the C backend emits once (a ``static`` function);
every other call is replaced by a copy of the callee's body (its arguments the call's operands,
its ``func.return`` operands the call's results), so that small callees fuse with their callers
and effects are ordered with the caller's by ``graph-order-effects``. Copies that hold calls are
inlined in turn. Private functions left uncalled are erased. With ``keep-ops=0`` (the default)
every call is inlined: the CUDA pipeline does so on buffers, before its own stages.

Expects: no recursion among the functions it inlines (tracing refuses it; this pass names it).
Guarantees: every remaining ``func.call`` of a function of the module calls a kept function;
no private function with a body that nothing calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes.graph_order_effects import STATEFUL


def _inline(call: func.CallOp, callee: func.FuncOp) -> None:
    """Replace ``call`` by a copy of ``callee``'s body on the call's operands."""
    body = callee.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, call.arguments, strict=True))
    where = InsertPoint.before(call)
    for op in body.ops:
        if isinstance(op, func.ReturnOp):
            for old, new in zip(call.results, op.arguments, strict=True):
                old.replace_all_uses_with(mapping.get(new, new))
            break
        clone = op.clone(value_mapper=mapping)
        mapping.update(zip(op.results, clone.results))
        Rewriter.insert_op(clone, where)
    call.detach()
    call.erase()


def _size(fn: func.FuncOp) -> int:
    """The ops of ``fn``'s body at any depth, its ``func.return`` left out."""
    return sum(1 for _ in fn.body.walk()) - 1


def _effects(name: str, defined: dict[str, func.FuncOp], memo: dict[str, bool]) -> bool:
    """Whether function ``name`` has effects, itself or through the functions it calls."""
    if name not in memo:
        memo[name] = False  # (a cycle is refused when inlined)
        memo[name] = any(
            isinstance(o, STATEFUL)
            or (isinstance(o, func.CallOp) and o.callee.string_value() in defined
                and _effects(o.callee.string_value(), defined, memo))
            for o in defined[name].walk()
        )
    return memo[name]


@dataclass(frozen=True)
class GraphInlineCalls(ModulePass):
    """Inline the calls of functions below ``keep-ops`` ops or with effects (every call with
    ``keep-ops=0``); drop the private functions left uncalled."""

    name = "graph-inline-calls"

    #: callees of at least this many ops and without effects stay functions (0: none does)
    keep_ops: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        defined = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks}
        memo: dict[str, bool] = {}
        kept = {name for name, f in defined.items()
                if 0 < self.keep_ops <= _size(f) and not _effects(name, defined, memo)}
        inlined = {name: f for name, f in defined.items() if name not in kept}
        rounds = 0
        while calls := [c for c in op.walk() if isinstance(c, func.CallOp) and c.callee.string_value() in inlined]:
            rounds += 1
            if rounds > len(inlined):  # each round inlines one level of calls: more levels than functions is a cycle
                raise DiagnosticException(f"graph-inline-calls: @{calls[0].callee.string_value()} calls itself "
                                          "(directly or through other functions): recursion cannot be inlined")
            for call in calls:  # (a copy of a body with calls is inlined in the next round)
                _inline(call, inlined[call.callee.string_value()])
        called = {c.callee.string_value() for c in op.walk() if isinstance(c, func.CallOp)}
        for name, f in defined.items():
            if f.sym_visibility is not None and f.sym_visibility.data == "private" and name not in called:
                f.detach()
                f.erase()
