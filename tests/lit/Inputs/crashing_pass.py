"""A pass with a bug, for kiln-opt's internal error report: it fails on the first arith.addf."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import kiln


@kiln.register_pass
@dataclass(frozen=True)
class CrashOnAddf(ModulePass):
    """Raises an IndexError while looking at the first ``arith.addf``, as a buggy pass would."""

    name = "test-crash-on-addf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if isinstance(inner, arith.AddfOp):
                self._look_at(inner)

    def _look_at(self, op: arith.AddfOp) -> None:
        _ = op.operands[7]
