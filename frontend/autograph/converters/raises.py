"""``raise exc`` becomes ``ag__.raise_(exc)`` and ``return ag__.NOT_RETURNED``
(``raise exc from cause``: ``ag__.raise_(exc, cause)``).

``ag__.raise_`` raises as Python does, except in a region staged under a tensor, where the
``raise`` becomes a run-time error of the same exception and message (operators/exceptions.py)
and tracing goes on. The ``return`` then ends that path, as the ``raise`` would: what follows is
not traced on it, and the path yields no values of its own (the ``return`` converter's
``NOT_RETURNED`` placeholder takes the value the other paths return). A bare ``raise``
(re-raising in an ``except``) stays as written.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext
from kiln.frontend.autograph.converters.expressions import ExpressionConverter, transform_with
from kiln.frontend.autograph.converters.messages import shown_at_run_time


class _Raises(ExpressionConverter):
    def visit_Raise(self, node: ast.Raise) -> ast.AST | list[ast.stmt]:
        if node.exc is None:
            return node
        exc = shown_at_run_time(node.exc)
        if node.cause is None:
            return templates.replace("ag__.raise_(exc)\nreturn ag__.NOT_RETURNED", node, exc=exc)
        return templates.replace("ag__.raise_(exc, cause)\nreturn ag__.NOT_RETURNED", node, exc=exc, cause=node.cause)


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    transform_with(_Raises, func, ctx)
