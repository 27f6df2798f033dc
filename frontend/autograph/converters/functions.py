"""The converted function itself: no decorators, and its scope declarations first.

Decorators are dropped because the converted code object replaces the body of
a function object that already exists (decorators were applied to it).
``global``/``nonlocal`` move to the top of the body: they hold for the whole
function, and once the body is split into helpers they must precede every use.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph.context import ConversionContext


class _Declarations(ast.NodeTransformer):
    """Removes ``global``/``nonlocal`` statements from the current scope, collecting them."""

    def __init__(self) -> None:
        self.found: list[ast.Global | ast.Nonlocal] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef  # type: ignore[assignment]

    def visit_Global(self, node: ast.Global) -> ast.AST:
        self.found.append(node)
        return ast.copy_location(ast.Pass(), node)

    visit_Nonlocal = visit_Global  # type: ignore[assignment]


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    func.decorator_list = []
    declarations = _Declarations()
    func.body = [declarations.visit(stmt) for stmt in func.body]
    func.body = [*declarations.found, *func.body]
