"""kiln-bufferize for the stateful graph ops: variables and prints.

* A ``!graph.resource<T>`` argument becomes a memref argument: the variable's own
  buffer, identity layout, read and written in place (not an out-parameter).
* ``graph.read`` is a copy of the variable's buffer into a temporary, taken at the
  read's place in program order, so no later ``graph.assign`` can change the value
  read. Optimisations: a variable that no ``graph.assign`` in the function writes is
  read in place (its buffer is then read-only, like an argument); one read once and
  assigned once later in the same block (an argument the function writes) is read in
  place as a writable buffer, so its writes are stores into the caller's array.
* ``graph.assign`` copies the value into the variable's buffer (nothing when the
  value already lives there).
* ``graph.print`` becomes ``krt.print`` on the values' buffers (``graph.check``: ``krt.check``); ``graph.token`` and
  every token disappear (program order is the order of effects from here on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import scf, tensor
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import SSAValue

from kiln.dialects import graph, krt
from kiln.passes.bufferize import builders as build
from kiln.passes.bufferize.buffers import Root, RootKind

if TYPE_CHECKING:
    from kiln.passes.bufferize.func import FunctionBufferizer


def bufferize_read(fb: FunctionBufferizer, op: graph.ReadOp) -> None:
    variable = fb.variables[op.resource]
    if not any(isinstance(use.operation, graph.AssignOp) for use in op.resource.uses):
        fb.bind(op.value, variable.value, variable)
        return
    if _read_then_assigned_once(op):
        # the buffer holds the read value until the one assign at the end: writes may go in place
        # (under the usual rule: the old value is dead), and the assign of a value already there is free
        fb.bind(op.value, variable.value, Root(RootKind.TEMPORARY, variable.value, block=op.parent_block()))
        return
    root = fb.temporary(build.alloc_like(variable.value))
    fb.emit(build.copy(variable.value, root.value))
    fb.bind(op.value, root.value, root)


def _read_then_assigned_once(op: graph.ReadOp) -> bool:
    """The resource is read once, here, and assigned once, later in the same block (a written
    argument: read at entry, written back at the end), and nothing that may share the read value's
    buffer is used after the assign but the assigned value itself (``old = v.read_value()``
    printed after ``v.assign(x)`` must see the old contents)."""
    uses = [u.operation for u in op.resource.uses]
    assigns = [o for o in uses if isinstance(o, graph.AssignOp)]
    reads = [o for o in uses if isinstance(o, graph.ReadOp)]
    block = op.parent_block()
    if len(assigns) != 1 or reads != [op] or len(uses) != 2 or block is None or assigns[0].parent_block() is not block:
        return False
    (assign,) = assigns
    position = {o: i for i, o in enumerate(block.ops)}
    if position[op] > position[assign]:
        return False
    for value in _may_share_buffer(op.value):
        if value is assign.value:
            continue
        for use in value.uses:
            holder = use.operation
            while holder.parent_block() is not block:
                holder = holder.parent_op()  # type: ignore[assignment]
                if holder is None:
                    return False
            if position[holder] > position[assign]:
                return False
    return True


def _may_share_buffer(root: SSAValue) -> set[SSAValue]:
    """Values that bufferization may place in ``root``'s buffer: views of it, values written into it
    in place, and results of the control flow and linalg ops that carry or update them."""
    found: set[SSAValue] = set()
    work = [root]
    while work:
        value = work.pop()
        if value in found:
            continue
        found.add(value)
        for use in value.uses:
            user = use.operation
            if isinstance(user, (tensor.ExtractSliceOp, tensor.CollapseShapeOp, tensor.ExpandShapeOp, tensor.CastOp)):
                work.extend(user.results)
            elif isinstance(user, tensor.InsertSliceOp) and use.index == 1:
                work.extend(user.results)
            elif isinstance(user, LinalgStructuredOperation):
                outs = list(user.outputs)
                work.extend(r for r, o in zip(user.results, outs) if o is value)
            elif isinstance(user, (scf.IfOp, scf.WhileOp, scf.YieldOp, scf.ConditionOp)):
                target = user.parent_op() if isinstance(user, (scf.YieldOp, scf.ConditionOp)) else user
                if target is not None:
                    work.extend(target.results)
                    for region in target.regions:
                        for block in region.blocks:
                            work.extend(block.args)
    return found


def bufferize_assign(fb: FunctionBufferizer, op: graph.AssignOp) -> None:
    variable = fb.variables[op.resource]
    source = fb.buffers[op.value]
    if source.value is not variable.value:
        fb.emit(build.copy(source.value, variable.value))


def bufferize_print(fb: FunctionBufferizer, op: graph.PrintOp) -> None:
    fb.emit(krt.PrintOp(op.format.data, [fb.buffers[v].value for v in op.values]))


def bufferize_check(fb: FunctionBufferizer, op: graph.CheckOp) -> None:
    fb.emit(krt.CheckOp(fb.buffers[op.cond].value, op.message.data))
