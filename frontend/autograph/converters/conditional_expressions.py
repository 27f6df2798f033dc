"""``a if c else b`` becomes ``ag__.if_exp(c, lambda: a, lambda: b)``: only the chosen branch runs."""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext
from kiln.frontend.autograph.converters.expressions import ExpressionConverter, transform_with


class _IfExps(ExpressionConverter):
    INTO_COMPREHENSIONS = True

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if not self.lambda_safe(node):
            return node
        return templates.replace_expr(
            "ag__.if_exp(test, lambda: body, lambda: orelse)", node, test=node.test, body=node.body, orelse=node.orelse
        )


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    transform_with(_IfExps, func, ctx)
