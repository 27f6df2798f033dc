"""``a and b``, ``a or b``, ``not a`` become ``ag__.and_(lambda: a, lambda: b)``, ``ag__.or_(...)``, ``ag__.not_(a)``;
a chained comparison ``a < m <= b`` becomes ``ag__.compare(a, 'Lt', lambda: m, 'LtE', lambda: b)``.

The lambdas keep Python's short-circuit: an operand runs only when the ones
before it did not decide the result, and the result is an operand's value. A
chained comparison is Python's ``a < m and m <= b`` with ``m`` evaluated once.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext
from kiln.frontend.autograph.converters.expressions import ExpressionConverter, transform_with


class _Logical(ExpressionConverter):
    INTO_COMPREHENSIONS = True

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if not self.lambda_safe(node):
            return node
        operator = "ag__.and_" if isinstance(node.op, ast.And) else "ag__.or_"
        call = templates.replace_expr(f"{operator}()", node)
        assert isinstance(call, ast.Call)
        call.args = [templates.replace_expr("lambda: operand", v, operand=v) for v in node.values]
        return call

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        membership = len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))  # (`k in xs` of traced numbers)
        if (len(node.ops) < 2 and not membership) or not self.lambda_safe(node):
            return node
        call = templates.replace_expr("ag__.compare(left)", node, left=node.left)
        assert isinstance(call, ast.Call)
        for op, operand in zip(node.ops, node.comparators):
            call.args += [ast.Constant(value=type(op).__name__), templates.replace_expr("lambda: operand", operand, operand=operand)]
        templates.locate(call.args, node)
        return call

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return templates.replace_expr("ag__.not_(operand)", node, operand=node.operand)


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    transform_with(_Logical, func, ctx)
