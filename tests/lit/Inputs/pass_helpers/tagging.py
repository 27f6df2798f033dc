"""A helper module of sibling_import_pass.py, imported from that file's folder."""

from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, StringAttr


def tag_every_addf(module: ModuleOp, tag: str) -> None:
    for op in module.walk():
        if isinstance(op, arith.AddfOp):
            op.attributes["sibling"] = StringAttr(tag)
