"""Which names a piece of code binds and reads, within one function scope.

Nested functions, lambdas, classes and comprehensions are scopes of their
own: only their name (for ``def``/``class``) and walrus targets escape them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def walk_scope(nodes: Iterable[ast.AST]) -> Iterable[ast.AST]:
    """Every node of ``nodes`` that belongs to the current scope (decorators and defaults do)."""
    stack = list(nodes)[::-1]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            children: list[ast.AST] = [*node.decorator_list, *node.args.defaults, *filter(None, node.args.kw_defaults)]
        elif isinstance(node, ast.Lambda):
            children = [*node.args.defaults, *filter(None, node.args.kw_defaults)]
        elif isinstance(node, ast.ClassDef):
            children = [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
        elif isinstance(node, _COMPREHENSIONS):
            # Only walrus targets escape a comprehension; the first iterable is evaluated outside.
            children = [node.generators[0].iter, *(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))]
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


def bound_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names that ``nodes`` bind in the current scope (assignment, ``def``, ``import``, ``for``, ``as``, ``:=``)."""
    names: set[str] = set()
    for node in walk_scope(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def init_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Generated flags initialised inside ``nodes``: they are local to the helper holding their init."""
    return {
        t.id
        for node in walk_scope(nodes)
        if getattr(node, "kiln_init", False)
        for t in node.targets  # type: ignore[attr-defined]
        if isinstance(t, ast.Name)
    }


def read_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names read by ``nodes``, nested scopes included (a closure reads when it is called)."""
    names: set[str] = set()
    for node in nodes:
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                names.add(child.id)
            elif isinstance(child, ast.AugAssign) and isinstance(child.target, ast.Name):
                names.add(child.target.id)
    return names


def contains(nodes: Iterable[ast.AST], kinds: tuple[type[ast.AST], ...], *, through_loops: bool = True) -> bool:
    """Whether ``nodes`` hold a node of ``kinds`` in the current scope (optionally not inside nested loops)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, (*_SCOPES, *_COMPREHENSIONS)):
            continue
        if not through_loops and isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def declared(func: ast.FunctionDef) -> tuple[set[str], set[str]]:
    """Names the function declares ``global``, and those it declares ``nonlocal``: one walk of
    its body for both (a walk of a 100,000-op function is a quarter of a second)."""
    globals_: set[str] = set()
    nonlocals: set[str] = set()
    for node in walk_scope(func.body):
        if isinstance(node, ast.Global):
            globals_.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonlocals.update(node.names)
    return globals_, nonlocals
