"""``graph-bound-results``: a public function's results whose length only the data decides are
returned in buffers of a bound, with the lengths as extra results.

kiln's callers allocate the results (destination passing, docs/abi.md), so they must know each
result's size before the call. ``return x[mask]`` has ``mask.size`` elements at most, but how
many only the call finds out. For each axis of a returned value whose size comes from the data
(``graph.compress``, ``graph.nonzero``, a ``graph.dynamic_slice`` of a traced length, and what
follows their sizes: elementwise ops, casts, broadcasts, transposes, sorts and scans, reshapes
with one unknown size (a row selection), concatenations (along another axis, or along the
same one with static sizes: ``np.concatenate((np.nonzero(m)[0], [n]))``), gathers by such
indices, staged ``if``s whose branches agree) and is bounded by a size that follows from the
inputs (an axis of a value, scaled by a reshape, plus a constant), the returned value becomes a
``graph.pad_to_bound`` of it to that bound, and its length (``graph.dim``) an extra 0-d i64
result, after all the others.

Expects: the function as traced (public ``func.func``s with bodies).
Guarantees: every such axis of every result is padded, and the function's
:data:`kiln.dialects.contracts.RESULT_LENGTHS_ATTR` lists ``(result, axis, length result)`` for
each, so the caller allocates the bound, reads the length and keeps the first elements. Sizes a
loop or a branch changes have no bound: they stay as they are (the frontend refuses to return them).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DictionaryAttr, FunctionType, ModuleOp, TensorType, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from kiln.dialects import graph
from kiln.dialects.contracts import RESULT_LENGTHS_ATTR, result_lengths_attr

#: ops whose result has the shape of each operand of the same rank (those of rank 0 broadcast)
_SAME_SHAPE = (graph.ElementwiseBinaryOp, graph.ElementwiseUnaryOp, graph.CmpOp, graph.SelectOp, graph.CastOp,
               graph.ElementwiseTestOp, graph.SortOp, graph.ScanOp, graph.ArgsortOp)

#: axis ``axis`` of ``value`` times ``mul`` over ``div`` (rounded down), plus ``extra``:
#: ``(value, axis, mul, div, extra)``
Bound = tuple[SSAValue, int, int, int, int]


def _first(bounds: Iterable[Bound | None]) -> Bound | None:
    return next((b for b in bounds if b is not None), None)


class DataBounds:
    """The bounds of the data-decided sizes of a block's values, found in program order (each
    value's from its operands', already found: no recursion however long the chain, and no
    repeated walks of shared operands, which made ``y = y + y`` forty times 2**40 walks)."""

    def __init__(self, block: Block) -> None:
        self.found: dict[tuple[SSAValue, int], Bound] = {}
        self._walk(block)

    def of(self, value: SSAValue, axis: int) -> Bound | None:
        """A size (of an axis of some value, scaled) at least that of ``value``'s ``axis`` that
        follows from the inputs as far as the data does not decide it; None when the data does not
        decide ``value``'s size there (a static size, an input's) or kiln cannot bound it."""
        return self.found.get((value, axis))

    def _walk(self, block: Block) -> None:
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self._walk(inner)
            for result in op.results:
                if isinstance(result.type, TensorType):
                    for axis, size in enumerate(graph.shape_of(result)):
                        if size < 0 and (bound := self._of(result, axis)) is not None:
                            self.found[(result, axis)] = bound

    def _bounding(self, value: SSAValue, axis: int) -> Bound:
        """What bounds a data-decided size read from axis ``axis`` of ``value`` (the source of a
        compress, a nonzero or a slice): that axis itself, unless its size is decided by data too."""
        return self.of(value, axis) or (value, axis, 1, 1, 0)

    def _of(self, value: SSAValue, axis: int) -> Bound | None:
        """The bound of a dynamic size of an op's result, from its operands' (arguments of the
        function or of a loop's or branch's region have none)."""
        op = value.owner
        assert isinstance(op, Operation)
        if isinstance(op, graph.CompressOp):
            return self._bounding(op.values, 0)
        if isinstance(op, graph.NonzeroOp):
            return self._bounding(op.operand, 0)
        if isinstance(op, graph.DynamicSliceOp):
            return self._bounding(op.source, axis) if op.static_sizes.get_values()[axis] == graph.DYNAMIC else None
        if isinstance(op, _SAME_SHAPE):
            rank = len(graph.shape_of(value))
            return _first(self.of(v, axis) for v in op.operands if len(graph.shape_of(v)) == rank)
        if isinstance(op, graph.BroadcastOp):
            lead = len(graph.shape_of(value)) - len(graph.shape_of(op.operand))
            return self.of(op.operand, axis - lead) if axis >= lead else None
        if isinstance(op, graph.TransposeOp):
            return self.of(op.operand, op.perm.get_values()[axis])
        if isinstance(op, graph.ReshapeOp):
            return self._reshaped(op)
        if isinstance(op, graph.ConcatOp):
            return self._concatenated(op, axis)
        if isinstance(op, graph.GatherOp) and axis < len(graph.shape_of(op.indices[0])):
            return _first(self.of(v, axis) for v in op.indices)
        if isinstance(op, graph.GatherRowOp):
            return self.of(op.operand, axis + 1)
        if isinstance(op, graph.CondOp):
            then, other = (self.of(r.block.last_op.operands[value.index], axis)  # type: ignore[union-attr]
                           for r in (op.then_region, op.else_region))
            return then if then is not None and then == other else None  # a staged if of one bound
        return None

    def _concatenated(self, op: graph.ConcatOp, axis: int) -> Bound | None:
        """Along another axis, an operand's bound; along the joined axis, the bound of its one
        operand of data-decided size plus the static sizes of the others (None otherwise)."""
        if axis != op.axis.value.data:
            return _first(self.of(v, axis) for v in op.inputs)
        bounds = [self.of(v, axis) for v in op.inputs]
        bounded = [b for b in bounds if b is not None]
        static = [graph.shape_of(v)[axis] for v, b in zip(op.inputs, bounds) if b is None]
        if len(bounded) != 1 or any(size < 0 for size in static):
            return None
        value, at, mul, div, extra = bounded[0]
        return value, at, mul, div, extra + sum(static)

    def _reshaped(self, op: graph.ReshapeOp) -> Bound | None:
        """A reshape with one unknown size on each side (``(?,) -> (?, 3)``, a row selection): the
        element count is kept, so the result's unknown size is the operand's times the ratio of the
        known sizes' products (a constant part scaled too, rounded up: the floor of a sum is at most
        the sum of the floor and the ceiling)."""
        src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
        if src.count(-1) != 1 or dst.count(-1) != 1:
            return None
        bound = self.of(op.operand, src.index(-1))
        if bound is None:
            return None
        value, axis, mul, div, extra = bound
        scale, shrink = math.prod(d for d in src if d >= 0), math.prod(d for d in dst if d >= 0)
        mul, div = mul * scale, div * shrink
        common = math.gcd(mul, div)
        return value, axis, mul // common, div // common, -(-extra * scale // shrink)


def _visible(value: SSAValue, block: Block) -> bool:
    """Whether ``value`` is defined in ``block`` itself (not in a region nested in it)."""
    owner = value.owner
    return owner is block if isinstance(owner, Block) else owner.parent_block() is block


def _size(bound: Bound, ops: list[Operation]) -> SSAValue:
    """The bound as a 0-d i64 value, its ops appended to ``ops``: a constant where it is static."""
    value, axis, mul, div, extra = bound
    static = graph.shape_of(value)[axis]

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def const(n: int) -> SSAValue:
        return add(graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(i64, []), [n])))

    if static >= 0:
        return const(static * mul // div + extra)
    size = add(graph.DimOp(value, axis))
    if mul != 1:
        size = add(graph.MulOp(size, const(mul)))
    if div != 1:
        size = add(graph.FloorDivOp(size, const(div)))
    if extra:
        size = add(graph.AddOp(size, const(extra)))
    return size


def bound_results(fn: func.FuncOp) -> None:
    """Pad ``fn``'s data-sized results to their bounds and return their lengths after the others."""
    block = fn.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    results = list(ret.arguments)
    lengths: list[SSAValue] = []
    table: list[tuple[int, int, int]] = []
    added: list[Operation] = []
    data = DataBounds(block)
    for k, value in enumerate(ret.arguments):
        if not isinstance(value.type, TensorType):
            continue
        bounds = {a: b for a in range(len(graph.shape_of(value)))
                  if (b := data.of(value, a)) is not None and _visible(b[0], block)}
        if not bounds:
            continue
        first = len(added)
        pad = graph.PadToBoundOp(value, [_size(b, added) for b in bounds.values()], list(bounds))
        added.append(pad)
        results[k] = pad.result
        for axis in bounds:
            dim = graph.DimOp(value, axis)
            added.append(dim)
            table.append((k, axis, len(results) + len(lengths)))
            lengths.append(dim.result)
        for op in added[first:]:  # at the user's line that made the value (errors name it)
            op.location = value.owner.location
    if not table:
        return
    block.insert_ops_before(added, ret)
    new_ret = func.ReturnOp(*results, *lengths)
    new_ret.location = ret.location
    block.insert_op_before(new_ret, ret)
    block.erase_op(ret)
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
            if not isinstance(fn, func.FuncOp) or not fn.body.blocks or RESULT_LENGTHS_ATTR in fn.attributes:
                continue
            if fn.sym_visibility is None or fn.sym_visibility.data == "public":  # callees' results stay theirs
                bound_results(fn)
