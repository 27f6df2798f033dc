"""Small IR helpers every layer uses: where an op came from, the value of a constant, and
whether a value is visible at an op."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FileLineColLoc, IntegerAttr, LocationAttr
from xdsl.ir import Block, Operation, SSAValue


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


def defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether ``value`` is visible at ``op``: defined above it in its block or in an enclosing one
    (an argument of such a block included)."""
    owner = value.owner
    current: Operation | None = op
    while current is not None:
        if isinstance(owner, Block) and current.parent_block() is owner:
            return True
        if isinstance(owner, Operation) and owner.parent_block() is current.parent_block() and owner.is_before_in_block(current):
            return True
        current = current.parent_op()
    return False
