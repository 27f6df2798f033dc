"""kiln-bufferize for the stateful graph ops: variables and prints.

* A ``!graph.resource<T>`` argument becomes a memref argument: the variable's own
  buffer, identity layout, read and written in place (not an out-parameter).
* ``graph.read`` is a copy of the variable's buffer into a temporary, taken at the
  read's place in program order, so no later ``graph.assign`` can change the value
  read. Optimisation: a variable that no ``graph.assign`` in the function writes is
  read in place (its buffer is then read-only, like an argument).
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
    root = fb.temporary(build.alloc_like(variable.value))
    fb.emit(build.copy(variable.value, root.value))
    fb.bind(op.value, root.value, root)


def bufferize_assign(fb: FunctionBufferizer, op: graph.AssignOp) -> None:
    variable = fb.variables[op.resource]
    source = fb.buffers[op.value]
    if source.value is not variable.value:
        fb.emit(build.copy(source.value, variable.value))


def bufferize_print(fb: FunctionBufferizer, op: graph.PrintOp) -> None:
    fb.emit(krt.PrintOp(op.format.data, [fb.buffers[v].value for v in op.values]))
