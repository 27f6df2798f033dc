"""Small IR helpers every layer uses: where an op came from, the value of a constant, whether a
value is visible at an op, the op of a kind that encloses one, and a builder that inserts ops
at one place."""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import FileLineColLoc, IntegerAttr, LocationAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

OpT = TypeVar("OpT", bound=Operation)


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


def enclosing(op: Operation, kind: type[OpT]) -> OpT | None:
    """The innermost op of type ``kind`` that holds ``op`` (its function, say)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, kind):
        parent = parent.parent_op()
    return parent


class OpBuilder:
    """Inserts ops at one place, the end of a block or just before an op, so that code emitting a
    sequence of ops reads as that sequence. ``location``, when given, is copied onto each op: the
    ops that lower one source op point at its line."""

    def __init__(self, at: Block | Operation, location: LocationAttr | None = None) -> None:
        self.point = InsertPoint.at_end(at) if isinstance(at, Block) else InsertPoint.before(at)
        self.location = location

    def add(self, op: OpT) -> OpT:
        """Insert ``op`` and return it."""
        if self.location is not None:
            op.location = self.location
        Rewriter.insert_op(op, self.point)
        return op

    def value(self, op: Operation) -> SSAValue:
        """Insert ``op`` and return its only result."""
        return self.add(op).results[0]
