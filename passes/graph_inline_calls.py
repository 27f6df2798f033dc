"""``graph-inline-calls``: each ``func.call`` of a function of the module becomes that function's body.

A kiln.function called while another is traced is traced once per signature into a private
``func.func`` of the caller's module, and every call of it is a ``func.call``
(kiln.frontend.calls). The later stages lower one function, so this pass puts a copy of the
callee's body in place of each call (the callee's arguments are the call's operands, its
``func.return`` operands the call's results) and erases the private functions no call refers to
any more. Callees calling callees are inlined too: a copy keeps calling until its calls are
inlined in turn. Tracing stays once per signature; the copies are what the
rest of the pipeline compiles, as if the callee had been traced into each caller.

Expects: no recursion between the module's functions (tracing refuses it; this pass names it).
Guarantees: no ``func.call`` of a function defined in the module; no private function with a
body that nothing calls.
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


@dataclass(frozen=True)
class GraphInlineCalls(ModulePass):
    """Inline every call of a function the module defines; drop the private functions left uncalled."""

    name = "graph-inline-calls"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        defined = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks}
        rounds = 0
        while calls := [c for c in op.walk() if isinstance(c, func.CallOp) and c.callee.string_value() in defined]:
            rounds += 1
            if rounds > len(defined):  # each round inlines one level of calls: more levels than functions is a cycle
                raise DiagnosticException(f"graph-inline-calls: @{calls[0].callee.string_value()} calls itself "
                                          "(directly or through other functions): recursion cannot be inlined")
            for call in calls:  # (a copy of a body with calls is inlined in the next round)
                _inline(call, defined[call.callee.string_value()])
        for f in defined.values():
            if f.sym_visibility is not None and f.sym_visibility.data == "private":
                f.detach()
                f.erase()
