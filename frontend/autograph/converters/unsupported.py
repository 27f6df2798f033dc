"""Records constructs that run as Python but could not be staged under a tensor condition.

They are converted (and run) as ordinary Python; the list goes into the
converted function's :class:`~kiln.frontend.autograph.context.ConversionInfo`,
where the staging hooks find those inside the body they stage
(:func:`kiln.frontend.autograph.staging.unstageable`).

A ``try`` runs as Python, in staged code too. It records where each ``try`` body is
(:func:`try_in_trace`): staged code and run-time checks inside one are refused, since
compiled code raises no Python exception for its ``except`` clauses to catch; what is left
in a ``try`` body is Python and code that cannot raise when the call runs.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Mapping
from typing import Any

from kiln.frontend.autograph.analysis.activity import walk_scope
from kiln.frontend.autograph.context import ConversionContext, records_of, rule

_CONSTRUCTS: dict[type[ast.AST], str] = {
    ast.With: "with",
    ast.Global: "global",
    ast.Delete: "del",  # (of a variable: see _unbinds)
    ast.Match: "match",
}

_TRY: tuple[type[ast.AST], ...] = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    for node in walk_scope(func.body):
        construct = _CONSTRUCTS.get(type(node))
        if isinstance(node, ast.Delete) and not any(_unbinds(target) for target in node.targets):
            construct = None  # (`del xs[i]` changes an object, as `xs.pop(i)` does: see converters.python_effects)
        if construct and not (isinstance(node, ast.With) and all(_trace_time(item, ctx) for item in node.items)):
            ctx.note_unsupported(construct, node)
        if isinstance(node, _TRY):
            last = node.body[-1].end_lineno or node.body[-1].lineno
            ctx.record("try", (node.lineno, node.body[0].lineno, last))  # the try's line, its body's lines


def _unbinds(target: ast.expr) -> bool:
    """Whether a ``del`` target unbinds a variable (``del x``, ``del x, xs[0]``), which a staged
    construct cannot carry, rather than deleting an item or attribute of an object."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_unbinds(t) for t in target.elts)
    return isinstance(target, ast.Name)


def _trace_time(item: ast.withitem, ctx: ConversionContext) -> bool:
    """Whether ``item`` makes a context manager that only acts while tracing (a class marked
    ``__kiln_trace_time__``, such as ``kiln.GradientTape``): its ``with`` can be staged, since
    entering and leaving it do nothing when the compiled code runs."""
    call = item.context_expr
    if not isinstance(call, ast.Call):
        return False
    path: list[str] = []
    func = call.func
    while isinstance(func, ast.Attribute):
        path.insert(0, func.attr)
        func = func.value
    return isinstance(func, ast.Name) and ctx.decide("trace-time", func.id, tuple(path))


@rule("trace-time")
def _trace_time_class(namespace: Mapping[str, Any], root: str, path: tuple[str, ...]) -> bool:
    obj = namespace.get(root)
    for attr in path:
        obj = getattr(obj, attr, None)
    return isinstance(obj, type) and getattr(obj, "__kiln_trace_time__", False) is True


def _try_around(filename: str, lineno: int) -> int | None:
    """The line of the innermost ``try`` (in converted code) whose body holds ``filename:lineno``."""
    around = [t for t, first, last in records_of("try", filename) if first <= lineno <= last]
    return max(around, default=None)


#: where kiln.frontend.tracer.trace_graph is defined: the walk up the stack stops at its frame (the
#: tracer is not imported here: it imports, through the ops it traces, the run-time checks that ask)
_TRACER_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tracer.py")


def try_in_trace() -> str | None:
    """``file:line`` of the innermost ``try`` (in converted code) whose body is being traced now, in
    the traced function or any function it calls."""
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "trace_graph" and frame.f_code.co_filename == _TRACER_FILE):
        line = _try_around(frame.f_code.co_filename, frame.f_lineno)
        if line is not None:
            return f"{frame.f_code.co_filename}:{line}"
        frame = frame.f_back  # type: ignore[assignment]
    return None
