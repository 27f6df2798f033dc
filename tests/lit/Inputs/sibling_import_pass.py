"""A --load pass that imports a module from its own folder (pass_helpers/), as a user's
project splits its code."""

from dataclasses import dataclass

from pass_helpers.tagging import tag_every_addf
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import kiln


@kiln.register_pass
@dataclass(frozen=True)
class SiblingImport(ModulePass):
    """Tags every arith.addf, through the helper module beside this file."""

    name = "test-sibling-import"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        tag_every_addf(op, "imported")
