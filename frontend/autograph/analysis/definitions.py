"""Which names are certainly unbound when a top-level construct starts.

Every helper a construct becomes declares the names it binds ``nonlocal``,
and ``nonlocal`` needs a binding in the enclosing function. At function
level, a construct binding a name that nothing before it (in source order)
binds gets ``x = ag__.Undefined('x')`` first; it is unbound there in Python
too, so nothing observable changes. Inside helpers every such name is
already nonlocal, so only function-level constructs need this.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph.analysis.activity import bound_names, init_names

_CONSTRUCTS = (ast.If, ast.While, ast.For)


def annotate(func: ast.FunctionDef, declared: set[str]) -> None:
    """Sets ``kiln_undefined`` (sorted names) on each function-level ``if``/``while``/``for``;
    ``declared``: the names ``func`` declares ``global`` or ``nonlocal`` (bound outside it)."""
    args = func.args
    bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    bound |= declared
    _block(func.body, bound)


def _block(stmts: list[ast.stmt], bound: set[str]) -> None:
    for stmt in stmts:
        if isinstance(stmt, _CONSTRUCTS):
            stmt.kiln_undefined = sorted(bound_names([stmt]) - init_names([stmt]) - bound)  # type: ignore[attr-defined]
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    _block(getattr(stmt, field), bound)
            for part in [*getattr(stmt, "handlers", []), *getattr(stmt, "cases", [])]:
                _block(part.body, bound)
        bound |= bound_names([stmt])
