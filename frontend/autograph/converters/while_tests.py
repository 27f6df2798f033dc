"""``while`` whose test binds a name (``while (v := x[i]) < t:``) becomes ``while True:`` whose body
starts with ``if not test: break`` (one such ``if`` per operand of a test ``a and b``, in turn).

A staged loop evaluates its test in the loop's condition region and passes the state the
iteration began with on to the body and out of the loop, so a name the test binds kept the value
of the first test (kiln.function gave 3.0 for Python's 4.5). Tested at the top of the body,
each iteration binds it where the body, and the code after the loop, reads it. An ``else``
clause runs where the test fails, before the ``break`` (not where a ``break`` of the body ends the
loop, as in Python); one that holds its own ``break`` or ``continue`` (of an enclosing loop) is
left as written. Runs before ``break_statements``, which lowers the ``break``.
"""

from __future__ import annotations

import ast
import copy

from kiln.frontend.autograph.analysis.activity import contains
from kiln.frontend.autograph.context import ConversionContext


def _binds_in_test(node: ast.While) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in ast.walk(node.test))


class _WhileTests(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # nested functions are converted when they are called

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef  # type: ignore[assignment]

    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        if not _binds_in_test(node) or contains(node.orelse, (ast.Break, ast.Continue), through_loops=False):
            return node
        # `a and b`, each tested in turn (`b` only where `a` held): a `:=` in `b` binds where the
        # logical converter would have to leave Python's `and` (a lambda has a scope of its own)
        tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else [node.test]
        leaves = []
        for test in tests:
            failed = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=test), test)
            body = [*copy.deepcopy(node.orelse), ast.copy_location(ast.Break(), node)]
            leaves.append(ast.copy_location(ast.If(test=failed, body=body, orelse=[]), test))
        loop = ast.While(test=ast.copy_location(ast.Constant(value=True), node.test), body=[*leaves, *node.body], orelse=[])
        return ast.fix_missing_locations(ast.copy_location(loop, node))


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    func.body = [_WhileTests().visit(stmt) for stmt in func.body]
