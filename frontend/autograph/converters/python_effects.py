"""Records where converted code may change a Python object in place, for error messages.

``stack.pop()``, ``d[k] = v``, ``obj.n += 1``: inside a staged body such a
statement would change a Python object once per trace rather than once per
run, so the staging hooks refuse it when it changes an object from outside the
body (:mod:`kiln.frontend.autograph.effects` sees the change itself); these
sites let the message quote the statement and its line. Whether the object is
a Python container or a kiln array is only known while tracing, so every
candidate is recorded.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from kiln.frontend.autograph.analysis.activity import walk_scope
from kiln.frontend.autograph.context import ConversionContext, records_of

#: methods that change a Python container in place
MUTATING_METHODS = frozenset(
    "append extend insert pop remove clear update setdefault popitem add discard appendleft popleft "
    "extendleft rotate sort reverse".split()
)


@dataclass(frozen=True)
class Site:
    """One statement that may change the object a variable names: ``root`` is that variable."""

    lineno: int
    root: str
    text: str


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    for node in walk_scope(func.body):
        for site in _sites_of(node):
            ctx.record("python-effect", site)


def sites_in(filename: str, first: int, last: int, root: str) -> list[Site]:
    """The recorded sites on lines ``first..last`` of ``filename`` that change what ``root`` names, in order."""
    return sorted((s for s in records_of("python-effect", filename) if first <= s.lineno <= last and s.root == root),
                  key=lambda s: s.lineno)


def statement_on(filename: str, line: int) -> str | None:
    """The text of a recorded site on ``line`` of ``filename`` (``SEEN.append(...)``), or ``None``."""
    found = sorted((s for s in records_of("python-effect", filename) if s.lineno == line), key=lambda s: s.text)
    return found[0].text if found else None


def _sites_of(node: ast.AST) -> list[Site]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
        root = _root(node.func.value)
        args = "(...)" if node.args or node.keywords else "()"
        return [Site(node.lineno, root, f"{ast.unparse(node.func)}{args}")] if root else []
    targets: list[ast.expr] = []
    op = "="
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
        op = f"{_OPERATORS.get(type(node.op), '')}=" if isinstance(node, ast.AugAssign) else "="
    elif isinstance(node, ast.Delete):
        return [Site(node.lineno, r, f"del {ast.unparse(t)}") for t in node.targets if (r := _store_root(t))]
    return [Site(node.lineno, r, f"{ast.unparse(t)} {op} ...") for t in _unpacked(targets) if (r := _store_root(t))]


def _unpacked(targets: list[ast.expr]) -> list[ast.expr]:
    """The targets an assignment stores to, those of an unpacking among them (``xs[0], xs[1] = ...``)."""
    out: list[ast.expr] = []
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            out += _unpacked(t.elts)
        else:
            out.append(t.value if isinstance(t, ast.Starred) else t)
    return out


def _store_root(target: ast.expr) -> str | None:
    """The variable whose object an assignment target changes (``d`` for ``d[k]``, ``self`` for ``self.n``)."""
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        return _root(target.value)
    return None


def _root(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}
