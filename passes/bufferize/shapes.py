"""Sizes of a callee's dynamic tensor results, computed in the caller.

In destination-passing style the caller allocates the callee's outputs, so for
a result ``tensor<?xf32>`` it must know the size before the call. The size is
traced back through the callee's (tensor-level) body to its arguments and
re-emitted in the caller: ``tensor.empty`` sizes, linalg ``outs``, reshapes,
``tensor.dim`` of arguments and index arithmetic are understood.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, func, memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, ShapedType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes.bufferize.builders import index_constant

Emit = Callable[[Operation], Operation]


class ResultShapes:
    """Re-emits, through ``emit``, the sizes of ``callee``'s results for one call."""

    def __init__(self, callee: func.FuncOp, call_args: Sequence[SSAValue], emit: Emit) -> None:
        self.callee = callee
        self.call_args = call_args
        self.emit = emit

    def _fail(self, what: str) -> DiagnosticException:
        return DiagnosticException(
            f"kiln-bufferize: cannot size the dynamic result of call to "
            f"@{self.callee.sym_name.data}: {what}"
        )

    def dynamic_sizes(self, result_index: int) -> list[SSAValue]:
        """The dynamic sizes of the callee's result ``result_index``, in dimension order."""
        ret = self.callee.body.block.last_op
        assert isinstance(ret, func.ReturnOp)
        value = ret.arguments[result_index]
        assert isinstance(value.type, ShapedType)
        shape = value.type.get_shape()
        return [self.dim(value, d) for d, size in enumerate(shape) if size == DYNAMIC_INDEX]

    def _const(self, value: int) -> SSAValue:
        return self.emit(index_constant(value)).results[0]

    def dim(self, value: SSAValue, d: int) -> SSAValue:
        """Size of dimension ``d`` of the callee's tensor ``value``."""
        assert isinstance(value.type, ShapedType)
        size = value.type.get_shape()[d]
        if size != DYNAMIC_INDEX:
            return self._const(size)
        if isinstance(value, BlockArgument) and value.block is self.callee.body.block:
            buffer = self.call_args[value.index]
            return self.emit(memref.DimOp(buffer, self._const(d))).results[0]
        assert isinstance(value, OpResult)
        op = value.op
        if isinstance(op, tensor.EmptyOp):
            position = sum(1 for s in value.type.get_shape()[:d] if s == DYNAMIC_INDEX)
            return self.index(op.dynamic_sizes[position])
        if isinstance(op, LinalgStructuredOperation):
            return self.dim(op.outputs[value.index], d)
        if isinstance(op, tensor.ExpandShapeOp):
            static = op.static_output_shape.get_values()
            position = sum(1 for s in static[:d] if s == DYNAMIC_INDEX)
            return self.index(op.dynamic_output_shape[position])
        if isinstance(op, tensor.CollapseShapeOp):
            group = [g.data for g in op.reassociation.data[d].data]
            sizes = [self.dim(op.src, g) for g in group]
            total = sizes[0]
            for size in sizes[1:]:
                total = self.emit(arith.MuliOp(total, size)).results[0]
            return total
        raise self._fail(f"'{op.name}' is not understood")

    def index(self, value: SSAValue) -> SSAValue:
        """An index value of the callee, recomputed in the caller."""
        if isinstance(value, BlockArgument) and value.block is self.callee.body.block:
            return self.call_args[value.index]
        if not isinstance(value, OpResult):
            raise self._fail("size defined in a nested region")
        op = value.op
        if isinstance(op, tensor.DimOp):
            index_op = op.index.owner
            if isinstance(index_op, arith.ConstantOp) and isinstance(index_op.value, IntegerAttr):
                return self.dim(op.source, index_op.value.value.data)
            raise self._fail("tensor.dim with a non-constant index")
        if isinstance(op, arith.ConstantOp):
            return self.emit(op.clone()).results[0]
        if op.dialect_name() == "arith" and not op.regions:
            operands = [self.index(o) for o in op.operands]
            clone = op.clone()
            clone.operands = operands
            return self.emit(clone).results[value.index]
        raise self._fail(f"'{op.name}' is not understood")
