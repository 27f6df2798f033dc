"""``graph-linalg-to-calls``: each ``graph.linalg`` becomes a call to a private declaration.

Expects: the graph level, right before ``convert-graph-to-linalg``.
Produces: ``func.call @__kiln_linalg_<kind>_<elem>_<shapes>`` on tensors, and one private
declaration per distinct callee at the top of the module. A call is something
``kiln-bufferize`` already turns into destination-passing style (the caller
allocates the result, arguments made contiguous), so the routines need no
bufferization rule of their own; ``kiln-linalg-calls-to-kernel`` then replaces
the buffer-level calls by ``kernel.linalg`` and drops the declarations.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from kiln.dialects import graph

#: prefix of the callees this pass declares (and ``kiln-linalg-calls-to-kernel`` recognizes)
CALLEE_PREFIX = "__kiln_linalg_"


def callee_name(kind: str, types: list[Attribute]) -> str:
    """``__kiln_linalg_solve_f64_4x4_4x2``: one name per routine, element type and operand shapes."""
    first = types[0]
    assert isinstance(first, TensorType)
    shapes = "_".join("x".join(str(d) for d in graph.shape_of(t)) for t in types)
    return f"{CALLEE_PREFIX}{kind}_{first.get_element_type()}_{shapes}"


@dataclass
class LinalgToCall(RewritePattern):
    """A ``graph.linalg`` becomes a call, its callee declared at the top of ``module`` unless
    ``declared`` names it already."""

    module: ModuleOp
    declared: set[str]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.LinalgOp, rewriter: PatternRewriter) -> None:
        inputs = [a.type for a in op.args]
        name = callee_name(op.kind.data, inputs)
        if name not in self.declared:
            decl = func.FuncOp.external(name, inputs, [op.result.type])
            decl.sym_visibility = StringAttr("private")
            rewriter.insert(decl, InsertPoint.at_start(self.module.body.block))
            self.declared.add(name)
        call = func.CallOp(name, list(op.args), [op.result.type])
        call.location = op.location
        rewriter.replace(op, call)


@dataclass(frozen=True)
class GraphLinalgToCalls(ModulePass):
    """Replace ``graph.linalg`` ops by calls to private ``__kiln_linalg_*`` declarations."""

    name = "graph-linalg-to-calls"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        declared = {f.sym_name.data for f in op.body.block.ops if isinstance(f, func.FuncOp)}
        PatternRewriteWalker(LinalgToCall(op, declared), apply_recursively=False).rewrite_module(op)
