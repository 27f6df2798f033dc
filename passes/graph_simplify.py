"""``graph-simplify``: kiln's own graph rules (``passes/rules/library/graph-*.rules``).

Runs in the ``tensor`` stage before the graph is lowered. Every rule is exact under NumPy's
semantics, bit for bit (float rules mind -0.0, NaN and infinities; complex numbers are left
out where their cross terms differ), so results never change; the IR only gets smaller:
``x * 1``, ``-(-x)``, ``x.T.T``, ``relu(relu(x))``, ``where(c, x, x)``, casts and reshapes
that cancel, ... Each file is also usable alone: ``kiln-opt --rules kiln:graph-arith``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from kiln.passes._rule_files import applicable, library_files


@dataclass(frozen=True)
class GraphSimplify(ModulePass):
    """Apply kiln's own graph rules (passes/rules/library/graph-*) until none applies."""

    name = "graph-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        files = applicable([f"kiln:{path.stem}" for path in library_files("graph")], op)
        if files:  # (the rule language is imported only when a file may apply)
            from kiln.passes.rules import load_rules

            load_rules(files).apply(op)
