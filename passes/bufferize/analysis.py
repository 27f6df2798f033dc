"""Analyses of kiln-bufferize on the tensor program, before anything is rewritten.

* :func:`out_param_destinations` decides which tensor values are built directly
  in a function's out-parameters (so that ``return linalg.generic(...)`` needs
  no temporary and no copy).
* :class:`BlockOrder` answers "is this value used after that op?", the question
  every in-place decision asks; uses inside nested regions count at the op of
  the block that holds them, so a use in a later loop iteration is never missed.
"""

from __future__ import annotations

from xdsl.dialects import func, scf, tensor
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import Block, Operation, OpResult, SSAValue

#: Ops whose tensor result can be produced directly inside a given buffer.
DESTINATION_OPS = (LinalgStructuredOperation, tensor.EmptyOp, tensor.InsertSliceOp, func.CallOp, scf.IfOp, scf.WhileOp)


def _producer_in(value: SSAValue, block: Block) -> Operation | None:
    """The op of ``block`` that can write ``value`` into a chosen buffer, if any."""
    if isinstance(value, OpResult) and value.op.parent_block() is block:
        if isinstance(value.op, DESTINATION_OPS):
            return value.op
    return None


def out_param_destinations(block: Block, ret: func.ReturnOp) -> dict[SSAValue, int]:
    """Map tensor values to the index (among tensor results) of the out-parameter holding them.

    A returned value produced in ``block`` by a linalg op, ``tensor.empty`` or a
    call gets its out-parameter (the first return position wins; a value
    returned twice is copied for the other positions). The request then flows
    backwards through linalg ``outs`` operands and ``insert_slice`` destinations that
    have no other use, so a ``fill`` + ``matmul`` chain, or a concatenation's inserts,
    also write straight into the out-parameter.
    """
    dest: dict[SSAValue, int] = {}
    tensor_results = [v for v in ret.arguments if isinstance(v.type, TensorType)]
    for j, value in enumerate(tensor_results):
        if value not in dest and _producer_in(value, block) is not None:
            dest[value] = j
    for op in reversed(list(block.ops)):
        if isinstance(op, tensor.InsertSliceOp):  # a concatenation's chain of inserts
            pairs = [(op.result, op.dest)]
        elif isinstance(op, LinalgStructuredOperation) and len(op.results) == len(op.outputs):
            pairs = list(zip(op.results, op.outputs, strict=True))
        else:
            continue  # not on tensors (a linalg op on memrefs already writes its outs)
        for result, init in pairs:
            if result in dest and init not in dest and init.has_one_use():
                if _producer_in(init, block) is not None:
                    dest[init] = dest[result]
    return dest


class BlockOrder:
    """Positions of a block's ops, to compare a use with the op being bufferized. An op the
    bufferizer inserted (before the op it rewrites) has no position: it comes before any op
    still to be rewritten (a carried buffer's own uses, ``memref.dim`` say, are such ops)."""

    def __init__(self, block: Block) -> None:
        self.block = block
        self.index = {op: i for i, op in enumerate(block.ops)}
        #: per position, the ops at it (an op and what replaced it: :meth:`take_place`)
        self.at: list[list[Operation]] = [[op] for op in self.index]

    def take_place(self, new: Operation, op: Operation) -> None:
        """``new`` replaces ``op``: it has ``op``'s position."""
        self.index[new] = self.index[op]
        self.at[self.index[op]].append(new)

    def between(self, start: int, end: int) -> list[Operation]:
        """The ops with positions strictly between ``start`` and ``end`` (without a walk of the
        whole block per ask: a function's every in-place write asks)."""
        return [o for ops in self.at[start + 1:end] for o in ops]

    def holder(self, op: Operation) -> Operation:
        """The op of this block that is ``op`` or contains it."""
        while op.parent_block() is not self.block:
            parent = op.parent_op()
            assert parent is not None, "use outside the bufferized block"
            op = parent
        return op

    def used_later_here(self, values: list[SSAValue], op: Operation) -> bool:
        """Like :meth:`used_after`, counting only uses inside this block (a loop body asks it
        about a carried buffer: uses in the condition region come before the body, uses after
        the loop see the last iteration's value, both as they should)."""
        position = self.index[op]
        return any(
            self.index.get(holder, -1) > position
            for value in values
            for use in value.uses
            if (holder := self._holder_or_none(use.operation)) is not None
        )

    def _holder_or_none(self, op: Operation) -> Operation | None:
        while op.parent_block() is not self.block:
            parent = op.parent_op()
            if parent is None:
                return None
            op = parent
        return op

    def used_after(self, values: list[SSAValue], op: Operation) -> bool:
        """True if any of ``values`` is used by an op after ``op`` in the block."""
        position = self.index[op]
        return any(
            self.index.get(self.holder(use.operation), -1) > position
            for value in values
            for use in value.uses
        )
