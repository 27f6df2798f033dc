"""``kiln-linalg-calls-to-kernel``: buffer-level ``__kiln_linalg_*`` calls become ``kernel.linalg``.

Expects: the buffer level (after ``kiln-bufferize``), where the calls that
``graph-linalg-to-calls`` made take the contiguous input memrefs, then the
output memref, and return nothing.
Produces: ``kernel.linalg "<kind>" ins(...) outs(...)`` (see ``dialects/kernel.py``)
at each call's location; the private declarations are erased.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import Rewriter

from kiln.dialects import kernel
from kiln.passes.graph_linalg_to_calls import CALLEE_PREFIX


@dataclass
class CallToKernel(RewritePattern):
    """A call of one of ``callees`` becomes ``kernel.linalg``: its arguments are the inputs, then
    the output."""

    callees: Collection[str]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        callee = op.callee.string_value()
        if callee not in self.callees:
            return
        kind = callee.removeprefix(CALLEE_PREFIX).split("_", 1)[0]
        *ins, out = op.arguments
        new = kernel.LinalgOp(kind, list(ins), out)
        new.location = op.location
        rewriter.replace(op, new)


@dataclass(frozen=True)
class KilnLinalgCallsToKernel(ModulePass):
    """Replace calls to ``__kiln_linalg_<kind>_*`` declarations by ``kernel.linalg`` ops."""

    name = "kiln-linalg-calls-to-kernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decls = {
            f.sym_name.data: f
            for f in op.body.block.ops
            if isinstance(f, func.FuncOp) and f.is_declaration and f.sym_name.data.startswith(CALLEE_PREFIX)
        }
        if not decls:
            return
        PatternRewriteWalker(CallToKernel(decls.keys()), apply_recursively=False).rewrite_module(op)
        for decl in decls.values():
            Rewriter.erase_op(decl)
