"""Live variables: which names may be read after a point before being rebound.

Runs on a function whose ``break``/``continue``/``return`` are already
lowered, so control flow is structured. It annotates every ``if``/``while``/
``for`` with ``kiln_live_out`` (live after the statement) and every loop with
``kiln_live_in`` (live at the loop head, which the loop carries).
``try``/``with`` and other statements are treated conservatively: they read
everything they mention and rebind nothing. Names that the function's nested
functions and lambdas read are live everywhere: any call may run a closure.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph.analysis.activity import bound_names, read_names, walk_scope


def annotate(func: ast.FunctionDef, live_at_exit: set[str]) -> None:
    """Annotates the constructs of ``func``; ``live_at_exit`` are names observable after it returns."""
    captured = _captured(func)
    _block(func.body, live_at_exit | captured, captured)


def _captured(func: ast.FunctionDef) -> frozenset[str]:
    """Names the functions and lambdas nested in ``func`` read from it (whenever they are called):
    what they read but do not bind themselves."""
    names: set[str] = set()
    for node in walk_scope(func.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            body = node.body if isinstance(node.body, list) else [node.body]
            args = node.args
            params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
            names |= read_names(body) - params - (bound_names(body) - _declared_outer(body))
    return frozenset(names)


def _declared_outer(body: list[ast.stmt]) -> set[str]:
    """Names a nested function declares ``nonlocal``: bound there, but the enclosing function's."""
    return {n for node in walk_scope(body) if isinstance(node, ast.Nonlocal) for n in node.names}


def _block(stmts: list[ast.stmt], live: set[str], captured: frozenset[str]) -> set[str]:
    for stmt in reversed(stmts):
        live = _stmt(stmt, live, captured)
    return live


def _stmt(stmt: ast.stmt, live: set[str], captured: frozenset[str]) -> set[str]:
    if isinstance(stmt, ast.If):
        stmt.kiln_live_out = set(live)  # type: ignore[attr-defined]
        return read_names([stmt.test]) | _block(stmt.body, live, captured) | _block(stmt.orelse, live, captured)
    if isinstance(stmt, ast.While):
        stmt.kiln_live_out = set(live)  # type: ignore[attr-defined]
        head = live | read_names([stmt.test])
        while True:
            new_head = head | _block(stmt.body, head, captured)
            if new_head == head:
                break
            head = new_head
        stmt.kiln_live_in = head  # type: ignore[attr-defined]
        return head
    if isinstance(stmt, ast.For):
        stmt.kiln_live_out = set(live)  # type: ignore[attr-defined]
        extra = read_names(getattr(stmt, "kiln_extra_tests", []))
        head = live | extra
        while True:
            new_head = head | (_block(stmt.body, head, captured) - bound_names([stmt.target])) | read_names([stmt.target])
            if new_head == head:
                break
            head = new_head
        stmt.kiln_live_in = head  # type: ignore[attr-defined]
        return head | read_names([stmt.iter])
    nested = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, f, None), list)]
    nested += [h.body for h in getattr(stmt, "handlers", [])] + [c.body for c in getattr(stmt, "cases", [])]
    if nested:
        conservative = live | read_names([stmt])
        for block in nested:
            _block(block, conservative, captured)
        return conservative
    kills = bound_names([stmt]) - captured if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom)) else set()
    return (live - kills) | read_names([stmt])
