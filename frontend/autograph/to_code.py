"""``to_code``: the converted source of a function, as ``kiln.autograph.to_code`` shows it.

Each ``for`` over ``range(...)`` is annotated with what tracing will do with it
(docs/numpy-semantics.md, "Loops"): a staged loop, or unrolled at trace time and why.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from kiln.frontend.autograph.staging import CONTAINER_METHODS
from kiln.frontend.autograph.transpiler import conversion_info


def to_code(func: Callable[..., Any]) -> str:
    """The Python source AutoGraph generates for ``func``; ``ValueError`` (with the reason) if it is not converted."""
    info = conversion_info(getattr(func, "python_function", func))
    if info.source is None:
        raise ValueError(info.reason)
    return _annotate_range_loops(info.source) + "\n"


def _annotate_range_loops(source: str) -> str:
    tree = ast.parse(source)
    bodies = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    notes: dict[int, str] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _dotted(node.func) == "ag__.for_stmt" and node.args):
            continue
        iterable = node.args[0]
        if not (isinstance(iterable, ast.Call) and _dotted(iterable.func) == "ag__.range_"):
            continue
        body = bodies.get(node.args[2].id) if len(node.args) > 2 and isinstance(node.args[2], ast.Name) else None
        effect = _python_effect(body) if body is not None else None
        notes[node.lineno] = (
            f"# kiln: unrolled while tracing: the body has a Python side effect ({effect})"
            if effect else
            "# kiln: a staged loop when the range has more than 4 iterations (counting unrolled loops around it) "
            "and the body traces with a traced index; else unrolled while tracing (tensor bounds: always staged)"
        )
    lines = source.splitlines()
    for lineno in sorted(notes, reverse=True):
        indent = lines[lineno - 1][: len(lines[lineno - 1]) - len(lines[lineno - 1].lstrip())]
        lines.insert(lineno - 1, indent + notes[lineno])
    return "\n".join(lines)


def _python_effect(body: ast.FunctionDef) -> str | None:
    for node in ast.walk(body):
        # a method called (`lst.append(v)`, converted: `ag__.call(lst.append)(v)`), not `np.add.outer`
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Call) and _dotted(func.func) == "ag__.call" and func.args:
            func = func.args[0]
        if isinstance(func, ast.Attribute) and func.attr in CONTAINER_METHODS:
            return f"`.{func.attr}()`"
        if isinstance(node, ast.Name) and node.id == "print":
            return "`print()`"
        if isinstance(node, (ast.Global, ast.Delete)) or (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)):
            return "a `global`, `del` or attribute store"
    return None


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""
