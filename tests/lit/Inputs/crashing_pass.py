"""Passes with bugs, for kiln-opt's reports of errors in a user's pass: one fails on the first
arith.addf, one leaves IR that does not verify."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
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


@kiln.register_pass
@dataclass(frozen=True)
class InvalidAddf(ModulePass):
    """Leaves IR that does not verify: an ``arith.addf`` whose fastmath flags are an integer."""

    name = "test-invalid-addf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if isinstance(inner, arith.AddfOp):
                inner.properties["fastmath"] = IntegerAttr(1, 32)
