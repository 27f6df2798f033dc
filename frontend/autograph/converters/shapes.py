"""Reads ``a.shape`` and ``a.size`` become ``ag__.shape_(a)`` and ``ag__.size_(a)``.

A traced array's size known only at run time (a loop that shrinks it, an ``input_signature``
with ``None``) is ``None`` in ``Tensor.shape``, which user code would turn into a silent NaN
(``np.float64(a.shape[0])``) or a confusing TypeError (``range(a.shape[0])``). The operators
give it as a traced 0-d int64 instead, as ``len(a)`` does; a static size stays a Python int.
``a.shape = s`` (a store) and ``np.shape`` (an attribute that is called) are left as written.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext
from kiln.frontend.autograph.converters.expressions import ExpressionConverter, transform_with

_OPERATORS = {"shape": "ag__.shape_(value)", "size": "ag__.size_(value)"}


class _Shapes(ExpressionConverter):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Attribute):  # a method or module function named shape/size: as written
            node.func.value = self.visit(node.func.value)
            node.args = [self.visit(a) for a in node.args]
            node.keywords = [self.visit(k) for k in node.keywords]
            return node
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if node.attr not in _OPERATORS or not isinstance(node.ctx, ast.Load):
            return node
        return templates.replace_expr(_OPERATORS[node.attr], node, value=node.value)

    def visit_ListComp(self, node: ast.expr) -> ast.AST:  # no lambda is made: comprehensions too
        return self.generic_visit(node)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    transform_with(_Shapes, func, ctx)
