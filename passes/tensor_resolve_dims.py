"""``tensor-resolve-dims``: a ``tensor.dim`` of a value some op made becomes the size that op was given.

``convert-graph-to-linalg`` sizes each result of dynamic shape by ``tensor.dim`` of an operand,
often of the generic that produced that operand. Such a use keeps the producer alive and counts
as its second use, so ``linalg-fuse-elementwise`` neither fuses nor erases it: in
``C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]`` each step of the loop computed every
intermediate slice into a buffer of its own. Resolved, the dims read the sizes the program
sliced with, the producers have one use each, and the slice update is one loop.

Each ``tensor.dim %v, c`` (constant ``c``) is rewritten, to a fixed point, when ``%v`` is:

* ``tensor.empty``: its dynamic size operand for that dimension;
* a ``linalg`` op's result: the dim of the ``outs`` operand it was built in;
* ``tensor.insert_slice``: the dim of its destination;
* ``tensor.extract_slice`` (not rank-reducing): its size operand for that dimension;
* ``tensor.expand_shape``: its output-shape operand for that dimension;
* ``tensor.collapse_shape``: the dim of the one dynamic source dimension of the collapsed group
  when the group's other dimensions are static 1s.

Expects: the tensor level. Guarantees: the same values, with fewer ops depending on a
result only for its size.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, ModuleOp, TensorType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from kiln.dialects.ir_utils import constant_int


def _dynamic_position(static: tuple[int, ...], dim: int) -> int | None:
    """Among the dynamic entries of ``static``, the position of entry ``dim`` (None: it is static)."""
    if static[dim] != DYNAMIC_INDEX:
        return None
    return sum(1 for s in static[:dim] if s == DYNAMIC_INDEX)


def _resolved(source: SSAValue, dim: int) -> tuple[list[Operation], SSAValue] | None:
    """New ops (placed before the dim) and the index value that is ``source``'s size ``dim``."""
    if not isinstance(source, OpResult):
        return None
    op = source.op
    if isinstance(op, tensor.EmptyOp):
        assert isinstance(source.type, TensorType)
        at = _dynamic_position(tuple(source.type.get_shape()), dim)
        return None if at is None else ([], op.dynamic_sizes[at])
    if isinstance(op, LinalgStructuredOperation | FillOp) and len(op.results) == len(op.outputs):
        return _dim_of(op.outputs[source.index], dim)
    if isinstance(op, tensor.InsertSliceOp):
        return _dim_of(op.dest, dim)
    if isinstance(op, tensor.ExtractSliceOp):
        sizes = tuple(op.static_sizes.get_values())
        if len(sizes) != len(source.type.get_shape()):  # type: ignore[union-attr]
            return None  # rank-reducing: result dims are not the sizes' positions
        at = _dynamic_position(sizes, dim)
        return None if at is None else ([], op.sizes[at])
    if isinstance(op, tensor.ExpandShapeOp):
        at = _dynamic_position(tuple(op.static_output_shape.get_values()), dim)
        return None if at is None else ([], op.dynamic_output_shape[at])
    if isinstance(op, tensor.CollapseShapeOp):
        group = [i.value.data for i in op.reassociation.data[dim].data]  # type: ignore[union-attr]
        shape = op.src.type.get_shape()  # type: ignore[union-attr]
        dynamic = [i for i in group if shape[i] == DYNAMIC_INDEX]
        if len(dynamic) != 1 or any(shape[i] != 1 for i in group if i != dynamic[0]):
            return None
        return _dim_of(op.src, dynamic[0])
    return None


def _dim_of(value: SSAValue, dim: int) -> tuple[list[Operation], SSAValue]:
    index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
    new = tensor.DimOp(value, index.result)
    return [index, new], new.result


class ResolveDim(RewritePattern):
    """``tensor.dim`` of a value whose producer knows its size."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.DimOp, rewriter: PatternRewriter) -> None:
        dim = constant_int(op.index)
        if dim is None:
            return
        found = _resolved(op.source, dim)
        if found is None:
            return
        new_ops, value = found
        for new in new_ops:
            new.location = op.location
        rewriter.replace(op, new_ops, [value])


@dataclass(frozen=True)
class TensorResolveDims(ModulePass):
    """Rewrite ``tensor.dim`` of produced values into the sizes their producers were given."""

    name = "tensor-resolve-dims"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ResolveDim()).rewrite_module(op)
