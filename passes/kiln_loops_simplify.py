"""``kiln-loops-simplify``: kiln's loop-level rules (``passes/rules/library/loops-*.rules``).

Expects: the loop level (arith, math and vector ops on scalars and vectors), after
``kiln-vectorize``. Every rule is exact, bit for bit, so results never change; the rewrite
only trades an instruction for a cheaper one the C backend then emits as written
(``x * 2.0`` -> ``x + x``), or takes complex selects apart (loops-complex) so that the C
backend can read and write complex arrays part by part. Each file also runs alone:
``kiln-opt --rules kiln:loops-arith``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from kiln.passes._rule_files import applicable, library_files


@dataclass(frozen=True)
class KilnLoopsSimplify(ModulePass):
    """Apply kiln's loop-level rules (passes/rules/library/loops-*.rules) until none applies."""

    name = "kiln-loops-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        files = applicable([f"kiln:{path.stem}" for path in library_files("loops")], op)
        if files:  # (the rule language is imported only when a file may apply)
            from kiln.passes.rules import load_rules

            load_rules(files).apply(op)
