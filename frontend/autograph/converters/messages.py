"""The messages of ``assert`` and ``raise``: each value an f-string formats goes through
``ag__.run_time_text(value, 'source')``, so that a traced value shows as its source text (known
only at run time) rather than as a tensor's repr; Python values format as they are."""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates


class _FormattedValues(ast.NodeTransformer):
    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        self.generic_visit(node)
        node.value = templates.replace_expr(
            "ag__.run_time_text(value, source)", node.value, value=node.value, source=ast.Constant(value=ast.unparse(node.value))
        )
        return node


def shown_at_run_time(expr: ast.expr) -> ast.expr:
    """``expr`` (a message, or an exception made with one) with its f-strings' values wrapped."""
    return _FormattedValues().visit(expr)  # type: ignore[no-any-return]
