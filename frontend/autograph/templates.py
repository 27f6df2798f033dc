"""Quasi-quoted Python templates: converters write the code they generate as Python text.

A template is parsed, its placeholder names are replaced by AST nodes, names or
statement lists, and every generated node takes the source location of the
user's statement it replaces, so that tracebacks and IR locations point at
the user's line.
"""

from __future__ import annotations

import ast
import copy
import functools
import pickle
import textwrap
from collections.abc import Iterable
from typing import Union

#: what a placeholder may stand for: a new name, an expression, or statements
Substitute = Union[str, ast.expr, list[ast.stmt], list[str]]

_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


class _Replacer(ast.NodeTransformer):
    """Replaces placeholder names in a parsed template."""

    def __init__(self, subs: dict[str, Substitute]):
        self.subs = subs

    def visit_Expr(self, node: ast.Expr) -> ast.AST | list[ast.stmt]:
        if isinstance(node.value, ast.Name) and isinstance(self.subs.get(node.value.id), list):
            return list(self.subs[node.value.id])  # type: ignore[arg-type]
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.expr:
        sub = self.subs.get(node.id)
        if isinstance(sub, str):
            return ast.Name(id=sub, ctx=node.ctx)
        if isinstance(sub, ast.expr):
            new = copy.deepcopy(sub)
            if hasattr(new, "ctx"):
                new.ctx = node.ctx  # type: ignore[attr-defined]
            return new
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        sub = self.subs.get(node.name)
        if isinstance(sub, str):
            node.name = sub
        return self.generic_visit(node)  # type: ignore[return-value]

    def visit_arg(self, node: ast.arg) -> ast.arg:
        sub = self.subs.get(node.arg)
        if isinstance(sub, str):
            node.arg = sub
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.Nonlocal | None:
        names = [n for name in node.names for n in self._names(name)]
        return ast.Nonlocal(names=names) if names else None

    def visit_Global(self, node: ast.Global) -> ast.Global | None:
        names = [n for name in node.names for n in self._names(name)]
        return ast.Global(names=names) if names else None

    def _names(self, name: str) -> list[str]:
        sub = self.subs.get(name, name)
        return [sub] if isinstance(sub, str) else list(sub)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=256)
def _parsed(template: str) -> bytes:
    """``template``'s statements without locations, pickled: a converter fills in a fresh copy
    per construct, and unpickling one costs a quarter of parsing the text and clearing its
    locations again (11,000 templates in the conversion of a 40,000-op function)."""
    body = ast.parse(textwrap.dedent(template)).body
    for node in body:
        for child in ast.walk(node):
            for attr in _LOCATION:
                if hasattr(child, attr):
                    delattr(child, attr)
    return pickle.dumps(body)


def replace(template: str, origin: ast.AST, **subs: Substitute) -> list[ast.stmt]:
    """Parses ``template``, substitutes ``subs`` and locates new nodes at ``origin``."""
    body = pickle.loads(_parsed(template))  # noqa: S301 (our own bytes)
    module = _Replacer(subs).visit(ast.Module(body=body, type_ignores=[]))
    locate(module.body, origin)
    return module.body


def replace_expr(template: str, origin: ast.AST, **subs: Substitute) -> ast.expr:
    """Like :func:`replace`, for a template that is one expression."""
    (stmt,) = replace(template, origin, **subs)
    assert isinstance(stmt, ast.Expr)
    return stmt.value


def locate(nodes: Iterable[ast.AST], origin: ast.AST) -> None:
    """Gives every node without a location the location of ``origin``."""
    for node in nodes:
        for child in ast.walk(node):
            if "lineno" in child._attributes and not hasattr(child, "lineno"):
                for attr in _LOCATION:
                    setattr(child, attr, getattr(origin, attr, None))
                if isinstance(child, ast.Attribute):  # else CPython puts `ag__.f(...)` calls on the origin's last line
                    child.end_lineno, child.end_col_offset = child.lineno, child.col_offset


def names_tuple(names: Iterable[str]) -> ast.Tuple:
    """``('a', 'b')``: the symbol names handed to an operator."""
    return ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())


def names_target(names: Iterable[str], ctx: ast.expr_context) -> ast.Tuple:
    """``(a, b)`` as a load or store target."""
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx) for n in names], ctx=ctx)
