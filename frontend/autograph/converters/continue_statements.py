"""``continue`` becomes a flag, cleared at the top of each iteration, that guards the rest of the body.

    for x in xs:             for x in xs:
        if p:                    continue_1 = False
            continue    ->       if p:
        B                            continue_1 = True
                                 if not continue_1:
                                     B
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.analysis.activity import contains
from kiln.frontend.autograph.context import ConversionContext, mark_init
from kiln.frontend.autograph.converters import jumps


class _Continues(ast.NodeTransformer):
    def __init__(self, ctx: ConversionContext):
        self.ctx = ctx

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # nested functions are converted when they are called

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef  # type: ignore[assignment]

    def visit_While(self, node: ast.While | ast.For) -> ast.AST:
        self.generic_visit(node)
        if not contains(node.body, (ast.Continue,), through_loops=False):
            return node
        flag = self.ctx.numbered("continue", self.ctx.construct_id())
        body = jumps.lower_block(
            node.body,
            flag,
            is_jump=lambda s: isinstance(s, ast.Continue),
            lower_jump=lambda s: templates.replace("flag = True", s, flag=flag),
            may_jump=lambda s: not isinstance(s, (ast.For, ast.While))
            and contains([s], (ast.Continue,), through_loops=False),
        )
        node.body = [mark_init(templates.replace("flag = False", node.body[0], flag=flag)[0]), *body]
        return node

    visit_For = visit_While  # type: ignore[assignment]


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    """Lowers every ``continue`` of ``func`` (not of the functions nested in it)."""
    func.body = [_Continues(ctx).visit(stmt) for stmt in func.body]
