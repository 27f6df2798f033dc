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
* ``graph.print`` becomes ``krt.print`` on the values' buffers; ``graph.token`` and
  every token disappear (program order is the order of effects from here on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kiln.dialects import graph, krt
from kiln.passes import _bufferize_builders as build

if TYPE_CHECKING:
    from kiln.passes._bufferize_func import FunctionBufferizer


def bufferize_read(fb: FunctionBufferizer, op: graph.ReadOp) -> None:
    variable = fb.variables[op.resource]
    if not any(isinstance(use.operation, graph.AssignOp) for use in op.resource.uses):
        fb.bind(op.value, variable.value, variable)
        return
    if _read_then_assigned_once(op):
        # the buffer holds the read value until the one assign at the end: writes may go in place
        # (under the usual rule: the old value is dead), and the assign of a value already there is free
        from kiln.passes._bufferize_func import Root, RootKind

        fb.bind(op.value, variable.value, Root(RootKind.TEMPORARY, variable.value, block=op.parent_block()))
        return
    root = fb.temporary(build.alloc_like(variable.value))
    fb.emit(build.copy(variable.value, root.value))
    fb.bind(op.value, root.value, root)


def _read_then_assigned_once(op: graph.ReadOp) -> bool:
    """The resource is read once, here, and assigned once, later in the same block (a written
    argument: read at entry, written back at the end)."""
    uses = [u.operation for u in op.resource.uses]
    assigns = [o for o in uses if isinstance(o, graph.AssignOp)]
    reads = [o for o in uses if isinstance(o, graph.ReadOp)]
    if len(assigns) != 1 or reads != [op] or len(uses) != 2 or assigns[0].parent_block() is not op.parent_block():
        return False
    block = op.parent_block()
    assert block is not None
    order = list(block.ops)
    return order.index(op) < order.index(assigns[0])


def bufferize_assign(fb: FunctionBufferizer, op: graph.AssignOp) -> None:
    variable = fb.variables[op.resource]
    source = fb.buffers[op.value]
    if source.value is not variable.value:
        fb.emit(build.copy(source.value, variable.value))


def bufferize_print(fb: FunctionBufferizer, op: graph.PrintOp) -> None:
    fb.emit(krt.PrintOp(op.format.data, [fb.buffers[v].value for v in op.values]))
