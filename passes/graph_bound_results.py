"""``graph-bound-results``: a public function's results whose length only the data decides are
returned in buffers of a bound, with the lengths as extra results.

kiln's callers allocate the results (destination passing, docs/abi.md), so they must know each
result's size before the call. ``return x[mask]`` has ``mask.size`` elements at most, but how
many only the call finds out. For each axis of a returned value whose size comes from the data
(``graph.compress``, ``graph.nonzero``, a ``graph.dynamic_slice`` of a traced length, and what
keeps their sizes: elementwise ops, casts, broadcasts, transposes, reshapes that keep the axis,
concatenations along another axis, gathers by such indices) and is bounded by an axis whose size
follows from the inputs, the returned value becomes a ``graph.pad_to_bound`` of it to that
bound, and its length (``graph.dim``) an extra 0-d i64 result, after all the others.

Expects: the function as traced (public ``func.func``s with bodies).
Guarantees: every such axis of every result is padded, and the function's
:data:`kiln.dialects.contracts.RESULT_LENGTHS_ATTR` lists ``(result, axis, length result)`` for
each, so the caller allocates the bound, reads the length and keeps the first elements. Sizes a
loop or a branch changes have no bound: they stay as they are (the frontend refuses to return them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, FunctionType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from kiln.dialects import graph
from kiln.dialects.contracts import RESULT_LENGTHS_ATTR, result_lengths_attr

#: ops whose result has the shape of each operand of the same rank (those of rank 0 broadcast)
_SAME_SHAPE = (graph.ElementwiseBinaryOp, graph.ElementwiseUnaryOp, graph.CmpOp, graph.SelectOp, graph.CastOp,
               graph.ElementwiseTestOp, graph.SortOp, graph.ScanOp, graph.ArgsortOp)

Bound = tuple[SSAValue, int]


def _bounding(value: SSAValue, axis: int) -> Bound:
    """What bounds a data-decided size of axis ``axis`` of ``value`` (the size of the source of a
    compress, a nonzero or a slice): that axis itself, unless its size is decided by data too."""
    return data_bound(value, axis) or (value, axis)


def data_bound(value: SSAValue, axis: int) -> Bound | None:
    """An axis (of some value) whose size is at least that of ``value``'s ``axis`` and follows from
    the inputs as far as the data does not decide it; None when the data does not decide
    ``value``'s size there (a static size, an input's, one kiln cannot bound)."""
    if graph.shape_of(value)[axis] >= 0:
        return None
    op = value.owner
    if not isinstance(op, Operation):
        return None  # an argument of the function or of a loop's or branch's region
    if isinstance(op, graph.CompressOp):
        return _bounding(op.values, 0)
    if isinstance(op, graph.NonzeroOp):
        return _bounding(op.operand, 0)
    if isinstance(op, graph.DynamicSliceOp):
        if op.static_sizes.get_values()[axis] == graph.DYNAMIC:
            return _bounding(op.source, axis)
        return None
    if isinstance(op, _SAME_SHAPE):
        rank = len(graph.shape_of(value))
        bounds = (data_bound(v, axis) for v in op.operands if len(graph.shape_of(v)) == rank)
        return next((b for b in bounds if b is not None), None)
    if isinstance(op, graph.BroadcastOp):
        lead = len(graph.shape_of(value)) - len(graph.shape_of(op.operand))
        return data_bound(op.operand, axis - lead) if axis >= lead else None
    if isinstance(op, graph.TransposeOp):
        return data_bound(op.operand, op.perm.get_values()[axis])
    if isinstance(op, graph.ReshapeOp):
        return _reshaped(op, axis)
    if isinstance(op, graph.ConcatOp) and axis != op.axis.value.data:
        return next((b for b in (data_bound(v, axis) for v in op.inputs) if b is not None), None)
    if isinstance(op, graph.GatherOp) and axis < len(graph.shape_of(op.indices[0])):
        return next((b for b in (data_bound(v, axis) for v in op.indices) if b is not None), None)
    if isinstance(op, graph.GatherRowOp):
        return data_bound(op.operand, axis + 1)
    return None


def _reshaped(op: graph.ReshapeOp, axis: int) -> Bound | None:
    """A reshape that keeps the one unknown size (``(?,) -> (?, 1)``: the known sizes' products agree)."""
    src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
    if src.count(-1) != 1 or dst.count(-1) != 1:
        return None
    known = lambda shape: math.prod([d for d in shape if d >= 0])
    return data_bound(op.operand, src.index(-1)) if known(src) == known(dst) else None


def bound_results(fn: func.FuncOp) -> None:
    """Pad ``fn``'s data-sized results to their bounds and return their lengths after the others."""
    ret = fn.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    results = list(ret.arguments)
    lengths: list[SSAValue] = []
    table: list[tuple[int, int, int]] = []
    added: list[Operation] = []
    for k, value in enumerate(ret.arguments):
        if not isinstance(value.type, TensorType):
            continue
        bounds = {a: b for a in range(len(graph.shape_of(value))) if (b := data_bound(value, a)) is not None}
        if not bounds:
            continue
        pad = graph.PadToBoundOp(value, list(bounds.values()), list(bounds))
        added.append(pad)
        results[k] = pad.result
        for axis in bounds:
            dim = graph.DimOp(value, axis)
            added.append(dim)
            table.append((k, axis, len(results) + len(lengths)))
            lengths.append(dim.result)
    if not table:
        return
    for op in added:
        op.location = ret.location
    fn.body.block.insert_ops_before(added, ret)
    new_ret = func.ReturnOp(*results, *lengths)
    new_ret.location = ret.location
    fn.body.block.insert_op_before(new_ret, ret)
    fn.body.block.erase_op(ret)
    fn.function_type = FunctionType.from_lists(fn.function_type.inputs.data, [v.type for v in new_ret.arguments])
    if fn.res_attrs is not None:
        fn.res_attrs = type(fn.res_attrs)([*fn.res_attrs.data, *[DictionaryAttr({})] * len(lengths)])
    fn.attributes[RESULT_LENGTHS_ATTR] = result_lengths_attr(table)


@dataclass(frozen=True)
class GraphBoundResults(ModulePass):
    """Return data-sized results padded to a bound, with their lengths."""

    name = "graph-bound-results"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            public = fn.sym_visibility is None or fn.sym_visibility.data == "public" if isinstance(fn, func.FuncOp) else False
            if public and fn.body.blocks and RESULT_LENGTHS_ATTR not in fn.attributes:
                bound_results(fn)
