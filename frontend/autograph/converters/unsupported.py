"""Records constructs that run as Python but could not be staged under a tensor condition.

They are converted (and run) as ordinary Python; the list goes into the
converted function's :class:`~kiln.frontend.autograph.context.ConversionInfo`,
where the staging hooks find those inside the body they stage
(:func:`kiln.frontend.autograph.staging.unstageable`).
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph.analysis.activity import walk_scope
from kiln.frontend.autograph.context import ConversionContext

_CONSTRUCTS: dict[type[ast.AST], str] = {
    ast.Try: "try",
    ast.With: "with",
    ast.Global: "global",
    ast.Delete: "del",
    ast.Raise: "raise",
    ast.Assert: "assert",
    ast.Match: "match",
}
if hasattr(ast, "TryStar"):
    _CONSTRUCTS[ast.TryStar] = "try"


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    for node in walk_scope(func.body):
        construct = _CONSTRUCTS.get(type(node))
        if construct:
            ctx.note_unsupported(construct, node)
