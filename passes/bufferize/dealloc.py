"""Frees kiln-bufferize's temporaries after their last use, on the buffer-level IR.

A temporary is freed in the block that allocated it, right after the last op
of that block that uses it or any view of it (a use inside a nested region
counts at the op holding the region). A buffer is therefore never freed while a
later loop iteration can still read it, and nothing leaks.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes.bufferize.analysis import BlockOrder

#: Ops whose result aliases their first operand.
VIEW_OPS = (memref.SubviewOp, memref.CollapseShapeOp, memref.ExpandShapeOp, memref.CastOp)


def _aliases(buffer: SSAValue) -> list[SSAValue]:
    """``buffer`` and every view derived from it."""
    found = [buffer]
    for value in found:
        for use in value.uses:
            if isinstance(use.operation, VIEW_OPS):
                found.append(use.operation.results[0])
    return found


def insert_deallocs(owned: list[SSAValue]) -> None:
    """Insert a ``memref.dealloc`` after the last use of each owned buffer (a ``memref.alloc``
    result, or an ``scf`` result that hands over a buffer its region allocated); an unused
    alloc is dropped, an unused handed-over buffer freed at once."""
    orders: dict[object, BlockOrder] = {}
    for buffer in owned:
        owner = buffer.owner
        assert isinstance(owner, Operation)
        block = owner.parent_block()
        assert block is not None
        order = orders.get(block) or orders.setdefault(block, BlockOrder(block))  # one per block, not per buffer
        holders = [order.holder(use.operation) for v in _aliases(buffer) for use in v.uses]
        if not holders and isinstance(owner, memref.AllocOp):
            Rewriter.erase_op(owner)
            continue
        last: Operation = max(holders, key=order.index.__getitem__) if holders else owner
        if last is block.last_op:
            raise DiagnosticException(
                f"kiln-bufferize: temporary buffer escapes its block through '{last.name}'"
            )
        dealloc = memref.DeallocOp.get(buffer)
        dealloc.location = owner.location
        Rewriter.insert_op(dealloc, InsertPoint.after(last))
