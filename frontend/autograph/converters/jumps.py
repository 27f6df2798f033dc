"""Shared by the jump converters: replace a jump by setting a flag, and guard what follows it.

``A; if c: break; B`` becomes ``A; if c: flag = True; if not flag: B``: the
statements after one that may jump run only when the flag is still clear,
and statements after the jump itself are dead and dropped. The guard takes the
location of the user's ``if`` whose branch holds the jump (of the loop, when
the loop's body holds it), so that a refusal of the guard, staged, names that
line rather than ``B``'s.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from kiln.frontend.autograph import templates

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def lower_block(
    stmts: list[ast.stmt],
    flag: str,
    is_jump: Callable[[ast.stmt], bool],
    lower_jump: Callable[[ast.stmt], list[ast.stmt]],
    may_jump: Callable[[ast.stmt], bool],
    lower_other: Callable[[ast.stmt], ast.stmt] = lambda s: s,
) -> list[ast.stmt]:
    """Lowers the jumps of ``stmts`` (and of the blocks nested in them, loops excepted unless ``lower_other`` does)."""
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if is_jump(stmt):
            out.extend(lower_jump(stmt))
            return out
        jumps = may_jump(stmt)
        origin = deciding(stmt, is_jump, may_jump) if jumps else stmt
        if jumps and not isinstance(stmt, (ast.For, ast.While, *_SCOPES)):
            for block in nested_blocks(stmt):
                block[:] = lower_block(block, flag, is_jump, lower_jump, may_jump, lower_other)
        out.append(lower_other(stmt))
        rest = stmts[i + 1 :]
        if jumps and rest:
            out.extend(
                templates.replace(
                    "if not flag:\n    rest",
                    origin,
                    flag=flag,
                    rest=lower_block(rest, flag, is_jump, lower_jump, may_jump, lower_other),
                )
            )
            return out
    return out


def deciding(stmt: ast.stmt, is_jump: Callable[[ast.stmt], bool], may_jump: Callable[[ast.stmt], bool]) -> ast.stmt:
    """The statement whose test decides whether ``stmt`` jumps: the innermost one holding its first
    jump directly (the ``if`` or ``elif`` around a ``return``, or a loop)."""
    for block in nested_blocks(stmt):
        for inner in block:
            if is_jump(inner):
                return stmt
            if may_jump(inner):
                return deciding(inner, is_jump, may_jump)
    return stmt


def nested_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists directly inside a compound statement."""
    blocks = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, f, None), list)]
    return blocks + [h.body for h in getattr(stmt, "handlers", [])] + [c.body for c in getattr(stmt, "cases", [])]


def prepend_test(loop: ast.While, test: ast.expr) -> None:
    """``while c`` becomes ``while test and c``, flattening into one ``and``; ``while True`` becomes
    ``while test`` (a staged loop then knows that it ends only once the flag is set)."""
    rest = loop.test.values if isinstance(loop.test, ast.BoolOp) and isinstance(loop.test.op, ast.And) else [loop.test]
    rest = [t for t in rest if not (isinstance(t, ast.Constant) and t.value is True)]
    rest = [t if _is_bool(t) else _truth(t) for t in rest]
    loop.test = ast.BoolOp(op=ast.And(), values=[test, *rest]) if rest else test
    templates.locate([loop.test], loop)


def _is_bool(test: ast.expr) -> bool:
    """Whether ``test`` is a bool on every path (a comparison, a ``not``, an ``and`` of such)."""
    if isinstance(test, ast.BoolOp):
        return all(_is_bool(v) for v in test.values)
    return isinstance(test, ast.Compare) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))


def _truth(test: ast.expr) -> ast.expr:
    """``not not test``: the loop reads only the test's truth, and as a bool it joins the flag's in a staged
    ``not flag and test`` (``while t:`` on a number a staged ``break`` made an int tensor: was refused)."""
    return ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=ast.UnaryOp(op=ast.Not(), operand=test)), test)


def not_flag(flag: str, origin: ast.AST) -> ast.expr:
    return templates.replace_expr("not flag", origin, flag=flag)
