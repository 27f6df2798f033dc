"""Stores into Python state become ``ag__`` calls that refuse a traced value escaping the trace.

``obj.name = v`` becomes ``ag__.store_attribute(v)(obj, 'name')`` (the value first, as Python
evaluates it), ``obj.name op= v`` becomes ``ag__.store_attribute_augmented(obj, 'name', 'Op',
lambda: v)``; under ``global g``, ``g = v`` becomes ``g = ag__.store_global(v, 'g')`` and ``g op= v``
``g = ag__.store_global(ag__.in_place('Op', g, v), 'g')``; under ``nonlocal n`` likewise with
``ag__.store_nonlocal(v, 'n', lambda: n)`` (the lambda shares ``n``'s cell, which says whether the
variable is from outside the trace). Stores into subscripts (``ag__.store``) and mutating method
calls (``ag__.call``) are checked where they run (:mod:`kiln.frontend.autograph.escapes`).
An unpacking into attributes (``o.a, o.b = t``) is left as written.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.analysis.activity import declared
from kiln.frontend.autograph.context import ConversionContext
from kiln.frontend.autograph.converters.expressions import ExpressionConverter, transform_with


class _Stores(ExpressionConverter):
    def __init__(self, ctx: ConversionContext, globals_: set[str], nonlocals: set[str]):
        super().__init__(ctx)
        self.globals = globals_
        self.nonlocals = nonlocals

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        if len(node.targets) != 1:
            return node
        target = node.targets[0]
        if isinstance(target, ast.Attribute):
            call = templates.replace_expr("ag__.store_attribute(value)(obj, name)", node, value=node.value,
                                          obj=target.value, name=ast.Constant(target.attr))
            return ast.copy_location(ast.Expr(value=call), node)
        if isinstance(target, ast.Name):
            node.value = self._checked(target.id, node.value)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        self.generic_visit(node)
        if node.value is not None and isinstance(node.target, ast.Name):
            node.value = self._checked(node.target.id, node.value)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        op = ast.Constant(type(node.op).__name__)
        target = node.target
        if isinstance(target, ast.Attribute) and self.lambda_safe(node.value):
            call = templates.replace_expr("ag__.store_attribute_augmented(obj, name, op, lambda: value)", node,
                                          obj=target.value, name=ast.Constant(target.attr), op=op, value=node.value)
            return ast.copy_location(ast.Expr(value=call), node)
        if isinstance(target, ast.Name) and target.id in self.globals | self.nonlocals:
            current = ast.copy_location(ast.Name(id=target.id, ctx=ast.Load()), target)
            value = templates.replace_expr("ag__.in_place(op, current, value)", node, op=op, current=current,
                                           value=node.value)
            store = ast.copy_location(ast.Name(id=target.id, ctx=ast.Store()), target)
            return ast.copy_location(ast.Assign(targets=[store], value=self._checked(target.id, value)), node)
        return node

    def _checked(self, name: str, value: ast.expr) -> ast.expr:
        """``value`` stored to ``name``, checked when ``name`` is a ``global`` or ``nonlocal``."""
        if name in self.globals:
            return templates.replace_expr("ag__.store_global(value, name)", value, value=value, name=ast.Constant(name))
        if name in self.nonlocals:
            reader = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), value)
            return templates.replace_expr("ag__.store_nonlocal(value, name, lambda: reader)", value, value=value,
                                          name=ast.Constant(name), reader=reader)
        return value


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    globals_, nonlocals = declared(func)
    transform_with(lambda c: _Stores(c, globals_, nonlocals), func, ctx)  # type: ignore[arg-type]
