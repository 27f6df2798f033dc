"""Shared by the expression converters: which expressions may be wrapped in lambdas.

Comprehensions are left alone unless a converter says it goes into them
(:attr:`ExpressionConverter.INTO_COMPREHENSIONS`: a lambda called at once inside
one reads its variables as the expression would), and so is any expression
holding ``:=``, ``yield`` or ``await``: inside a lambda they would change meaning.
"""

from __future__ import annotations

import ast
from typing import ClassVar

from kiln.frontend.autograph.context import ConversionContext

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_NOT_IN_LAMBDA = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)


class ExpressionConverter(ast.NodeTransformer):
    """Visits the function's own expressions, skipping nested scopes and comprehensions."""

    #: convert inside comprehensions too: those Python runs as written (the ones not staged as a
    #: loop, kiln.frontend.autograph.converters.comprehensions) then keep ``if``-expressions and
    #: short-circuits on traced values working (``[a[i] if a[i] > 0 else 0.0 for i in range(3)]``)
    INTO_COMPREHENSIONS: ClassVar[bool] = False

    def __init__(self, ctx: ConversionContext):
        self.ctx = ctx

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if getattr(node, "kiln_helper", False):
            return self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ListComp(self, node: ast.expr) -> ast.AST:
        return self.generic_visit(node) if self.INTO_COMPREHENSIONS else node

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]

    @staticmethod
    def lambda_safe(node: ast.expr) -> bool:
        return not any(isinstance(n, _NOT_IN_LAMBDA) for n in ast.walk(node))


def transform_with(converter: type[ExpressionConverter], func: ast.FunctionDef, ctx: ConversionContext) -> None:
    """Convert each statement of ``func``'s body; one that becomes several (a top-level ``raise``) is spliced in."""
    body: list[ast.stmt] = []
    for stmt in func.body:
        new = converter(ctx).visit(stmt)
        body.extend(new if isinstance(new, list) else [new])
    func.body = body
