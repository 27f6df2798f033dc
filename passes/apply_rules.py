"""``apply-rules{file=PATH}``: rewrite with the rules of a rule file (docs/rules.md).

``file`` is a path, or ``kiln:NAME`` for one of kiln's own files
(``passes/rules/library/NAME.rules``). The rules are checked against the registered
dialects when the file is loaded (errors point at ``file:line:col``), then applied greedily,
highest benefit first, until none applies; pure ops left without uses are erased on the way.
The pass guarantees nothing else: what the rules do is what the file says. One of kiln's files
that names none of the module's ops is not read (passes/_rule_files.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes._rule_files import applicable


@dataclass(frozen=True)
class ApplyRules(ModulePass):
    """Apply the rules of one rule file (a path, or kiln:NAME) until none applies."""

    name = "apply-rules"

    file: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.file:
            raise DiagnosticException("apply-rules needs a rule file: apply-rules{file=PATH}")
        if applicable([self.file], op):  # kiln's own file naming none of op's ops: nothing to do
            from kiln.passes.rules import load_rules

            load_rules(self.file).apply(op)
