"""``assert test, msg`` becomes ``ag__.assert_(test, lambda: msg, 'test')``.

On a Python ``test`` that is Python's ``assert``; on a tensor, a run-time check that raises
``AssertionError`` with the message in the caller (operators/exceptions.py). The lambda keeps
Python's rule that the message is made only when it is needed. Under ``python -O``
(``sys.flags.optimize``) an ``assert`` stays as written, and compiling the converted code drops
it, as Python's compiler does.
"""

from __future__ import annotations

import ast
import sys

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext
from kiln.frontend.autograph.converters.expressions import ExpressionConverter, transform_with
from kiln.frontend.autograph.converters.messages import shown_at_run_time


class _Asserts(ExpressionConverter):
    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        if sys.flags.optimize or (node.msg is not None and not self.lambda_safe(node.msg)):
            return node
        message = (
            ast.Constant(value=None) if node.msg is None
            else templates.replace_expr("lambda: msg", node.msg, msg=shown_at_run_time(node.msg))
        )
        (call,) = templates.replace("ag__.assert_(test, message, source)", node, test=node.test, message=message,
                                    source=ast.Constant(value=ast.unparse(node.test)))
        return call


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    transform_with(_Asserts, func, ctx)
