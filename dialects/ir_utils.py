"""Small IR helpers every layer uses: where an op came from, and the value of a constant."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FileLineColLoc, IntegerAttr, LocationAttr
from xdsl.ir import SSAValue


def describe_location(loc: LocationAttr) -> str:
    """``file:line:col`` of a location, for error messages."""
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return "<unknown location>"


def constant_int(value: SSAValue) -> int | None:
    """The value of an integer ``arith.constant`` (index or iN), else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None
