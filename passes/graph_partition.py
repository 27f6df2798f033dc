"""``graph-partition``: how each value of a function is chunked, given its arguments' chunking.

The model is MLIR's ``shard`` dialect: a sharding says, per tensor dimension, along which grid
axis the tensor is split; propagation gives every op's result a sharding from its operands'; a
reduction over a split axis leaves a *partial* value that needs a combine across the grid. Here
the grid is a Dask array's block grid and the per-chunk code is a kiln function (see
docs/dask.md and kiln.frontend.dask_arrays, which runs what this pass decides).

Per value and dimension the analysis keeps:

- the grid axis (a name, or none: the dimension is whole in every chunk); elementwise ops unify
  their operands' axes, which must then have the same length (the length of the arguments'
  dimension, the *root*: a slice keeps its operand's axis and root);
- the halo *margins* ``(left, right)``: how many elements at either end of a chunk's local value
  are wrong unless the chunk's input was extended by neighbours' elements (an ``insert_slice`` at
  an offset makes them: ``out[1:-1] = ...`` leaves ``out[0]`` of a chunk wrong); slices at
  offsets are read as shifts (``a[2:]`` is ``a`` moved by 2), which is what makes a stencil a
  stencil: the local value at index ``j`` is the global one at the chunk's start plus ``j``.

A reduction over a split axis is *cut*: per chunk a partial reduction, then a tree combine and a
final step (``mean`` divides by the global count). Anything else that the per-chunk code cannot
express is refused with the user's line.

Expects: a function of one block whose arguments carry ``kiln.chunks`` (an array of strings per
argument, a grid axis name or ``"*"`` per dimension; an argument without it is whole).
Guarantees: the IR is unchanged but for a ``kiln.partition`` string on every op saying how its
result is chunked (``blockwise [x, *]``, ``... halo x(1, 1)``, ``tree sum [x] -> [*]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.dialects.ir_utils import describe_location

#: the argument attribute naming each dimension's grid axis (``"*"``: not split)
CHUNKS_ATTR = "kiln.chunks"
#: the op attribute this pass writes
PARTITION_ATTR = "kiln.partition"

#: reductions that split into partial + combine + final, and the combine of each partial
TREE_COMBINE = {"sum": "sum", "mean": "sum", "max": "max", "min": "min", "prod": "prod"}

#: ops computed element by element from operands of the result's shape
ELEMENTWISE = (graph.ElementwiseBinaryOp, graph.ElementwiseUnaryOp, graph.ElementwiseTestOp, graph.CmpOp,
               graph.SelectOp, graph.CastOp, graph.ComplexOp, graph.ComplexToRealOp)

#: what users wrote for the ops refused under Dask, for the error
_CONSTRUCTS = {
    "graph.concat": "np.concatenate / np.roll",
    "graph.matmul": "a matrix product (@, np.dot)",
    "graph.while": "a staged loop (for/while over arrays)",
    "graph.cond": "a staged if on an array",
    "graph.gather": "indexing with an array",
    "graph.gather_row": "indexing with an array",
    "graph.scatter": "assignment through an array index",
    "graph.scan": "a cumulative sum or product",
    "graph.print": "kiln.print",
    "graph.read": "a kiln.Variable",
    "graph.assign": "a kiln.Variable",
    "graph.transpose": "a transpose (.T, np.transpose)",
    "graph.reshape": "a reshape",
    "graph.dynamic_slice": "a slice at a position known only at run time",
}


class PartitionError(DiagnosticException):
    """The function holds a construct that cannot run chunk by chunk (the message names it and the line)."""


@dataclass(frozen=True)
class Split:
    """How one value is chunked: per dimension the grid axis (None: whole) and the halo margins."""

    axes: tuple[str | None, ...]
    margins: tuple[tuple[int, int], ...]


@dataclass
class Partition:
    """The analysis of one function (see the module docstring)."""

    #: every value's split, with the axis names as first met (see :meth:`axis`)
    splits: dict[SSAValue, Split] = field(default_factory=dict)
    #: the reductions over split axes: partial + combine + final
    cuts: list[graph.ReduceOp] = field(default_factory=list)
    #: each grid axis's length (the length of the argument dimensions split along it)
    lengths: dict[str, int] = field(default_factory=dict)
    _parent: dict[str, str] = field(default_factory=dict)

    def find(self, name: str) -> str:
        """The canonical name of the grid axis ``name`` was unified with."""
        while self._parent.get(name, name) != name:
            name = self._parent[name]
        return name

    def axis(self, value: SSAValue, dim: int) -> str | None:
        """The grid axis of ``value``'s dimension ``dim`` (None: whole in every chunk)."""
        name = self.splits[value].axes[dim]
        return None if name is None else self.find(name)

    def axes(self, value: SSAValue) -> tuple[str | None, ...]:
        return tuple(self.axis(value, d) for d in range(len(self.splits[value].axes)))

    def depth(self, value: SSAValue) -> dict[str, tuple[int, int]]:
        """The halo a chunk's inputs need so that ``value`` is right on the whole chunk: per grid
        axis, the left margin, and the right margin plus what slices cut off the value's end."""
        split, shape = self.splits[value], graph.shape_of(value)
        out: dict[str, tuple[int, int]] = {}
        for d, (name, (left, right)) in enumerate(zip(split.axes, split.margins)):
            if name is None:
                continue
            axis = self.find(name)
            shrink = self.lengths[axis] - shape[d]
            if left or right + shrink:
                old = out.get(axis, (0, 0))
                out[axis] = (max(old[0], left), max(old[1], right + shrink))
        return out

    def is_cut(self, op: Operation) -> bool:
        return op in self.cuts

    def _unify(self, a: str, b: str, op: Operation) -> str:
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        if self.lengths[a] != self.lengths[b]:
            raise _refuse(op, "arrays of different lengths along a chunked axis combined after a shift",
                          f"{self.lengths[a]} and {self.lengths[b]} elements")
        keep, drop = sorted((a, b))
        self._parent[drop] = keep
        return keep


def _where(op: Operation) -> str:
    return describe_location(op.location)


def _refuse(op: Operation, construct: str, why: str) -> PartitionError:
    return PartitionError(f"{_where(op)}: {construct} is not supported on Dask arrays ({why})")


def _whole(value: SSAValue) -> Split:
    rank = len(graph.shape_of(value))
    return Split((None,) * rank, ((0, 0),) * rank)


def partition(fn: func.FuncOp, chunks: Sequence[Sequence[str | None]]) -> Partition:
    """Partition ``fn`` whose argument ``i`` is split along ``chunks[i]`` (a grid axis name or
    None per dimension); raises :class:`PartitionError` naming the first construct that cannot
    run chunk by chunk."""
    part = Partition()
    for arg, axes in zip(fn.body.block.args, chunks):
        shape = graph.shape_of(arg)
        for name, n in zip(axes, shape):
            if name is not None:
                if part.lengths.setdefault(name, n) != n:
                    raise PartitionError(f"grid axis {name!r} has arguments of lengths {part.lengths[name]} and {n}")
        part.splits[arg] = Split(tuple(axes), ((0, 0),) * len(shape))
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            continue
        if op.regions:
            raise _refuse(op, _CONSTRUCTS.get(op.name, op.name), "it has regions")
        split = _propagate(part, op)
        part.splits[op.results[0]] = split
    return part


def _propagate(part: Partition, op: Operation) -> Split:
    """``op``'s result split from its operands' (the rules of the module docstring)."""
    if isinstance(op, graph.ConstantOp):
        return _whole(op.results[0])
    if isinstance(op, ELEMENTWISE):
        return _elementwise(part, op)
    if isinstance(op, graph.BroadcastOp):
        return _broadcast(part, op)
    if isinstance(op, graph.ReduceOp):
        return _reduce(part, op)
    if isinstance(op, graph.SliceOp):
        return _slice(part, op)
    if isinstance(op, graph.InsertSliceOp):
        return _insert_slice(part, op)
    if isinstance(op, graph.RelaxShapeOp):
        return part.splits[op.operands[0]]
    raise _refuse(op, _CONSTRUCTS.get(op.name, op.name), "kiln cannot split it into chunks yet")


def _elementwise(part: Partition, op: Operation) -> Split:
    shape = graph.shape_of(op.results[0])
    axes: list[str | None] = []
    margins: list[tuple[int, int]] = []
    for d in range(len(shape)):
        name: str | None = None
        left = right = 0
        for operand in op.operands:
            split = part.splits[operand]
            if len(split.axes) != len(shape):
                continue  # a 0-d condition or scale: whole
            other = split.axes[d]
            if other is not None:
                name = other if name is None else part._unify(name, other, op)
            left, right = max(left, split.margins[d][0]), max(right, split.margins[d][1])
        axes.append(name)
        margins.append((left, right))
    return Split(tuple(axes), tuple(margins))


def _broadcast(part: Partition, op: graph.BroadcastOp) -> Split:
    src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
    split = part.splits[op.operand]
    lead = len(dst) - len(src)
    axes: list[str | None] = [None] * lead
    margins: list[tuple[int, int]] = [(0, 0)] * lead
    for d, n in enumerate(src):
        stretched = n == 1 and dst[lead + d] != 1
        axes.append(None if stretched else split.axes[d])
        margins.append((0, 0) if stretched else split.margins[d])
    return Split(tuple(axes), tuple(margins))


def _reduce(part: Partition, op: graph.ReduceOp) -> Split:
    split = part.splits[op.operand]
    reduced = set(op.axes.get_values())
    keep = op.keepdims is not None
    if any(split.axes[d] is not None for d in reduced):
        if op.kind.data not in TREE_COMBINE:
            raise _refuse(op, f"the reduction {op.kind.data!r}", "no tree combine for it")
        part.cuts.append(op)
    axes = tuple(None if d in reduced else a for d, a in enumerate(split.axes) if keep or d not in reduced)
    margins = tuple((0, 0) if d in reduced else m for d, m in enumerate(split.margins) if keep or d not in reduced)
    return Split(axes, margins)


def _check_unit_strides(part: Partition, op: Operation, value: SSAValue, strides: Sequence[int]) -> None:
    for d, stride in enumerate(strides):
        if stride != 1 and part.splits[value].axes[d] is not None:
            raise _refuse(op, "a strided slice along a chunked axis", f"stride {stride}")


def _slice(part: Partition, op: graph.SliceOp) -> Split:
    split = part.splits[op.operand]
    _check_unit_strides(part, op, op.operand, op.stride.get_values())
    src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
    margins = []
    for d, (start, n, m) in enumerate(zip(op.start.get_values(), src, dst)):
        left, right = split.margins[d]
        margins.append((max(0, left - start), max(0, right - (n - start - m))))
    return Split(split.axes, tuple(margins))


def _insert_slice(part: Partition, op: graph.InsertSliceOp) -> Split:
    if op.offsets or op.sizes:
        raise _refuse(op, _CONSTRUCTS["graph.dynamic_slice"], "offsets known only at run time")
    _check_unit_strides(part, op, op.dest, op.strides.get_values())
    base, source = part.splits[op.dest], part.splits[op.source]
    n_dst = graph.shape_of(op.dest)
    axes: list[str | None] = []
    margins: list[tuple[int, int]] = []
    for d, (offset, size) in enumerate(zip(op.static_offsets.get_values(), op.static_sizes.get_values())):
        name = base.axes[d]
        if source.axes[d] is not None:
            name = source.axes[d] if name is None else part._unify(name, source.axes[d], op)
        gap = n_dst[d] - offset - size
        left = max(base.margins[d][0], offset + source.margins[d][0]) if name is not None else 0
        right = max(base.margins[d][1], gap + source.margins[d][1]) if name is not None else 0
        axes.append(name)
        margins.append((left, right))
    if any(name is not None and part.lengths[part.find(name)] != n for name, n in zip(axes, n_dst)):
        raise _refuse(op, "a write into an array of another length than the chunked one", "no common chunking")
    return Split(tuple(axes), tuple(margins))


def describe(part: Partition, op: Operation) -> str:
    """What ``kiln.partition`` says of ``op``'s result."""
    value = op.results[0]
    names = "[" + ", ".join(a or "*" for a in part.axes(value)) + "]"
    if isinstance(op, graph.ReduceOp) and part.is_cut(op):
        source = "[" + ", ".join(a or "*" for a in part.axes(op.operand)) + "]"
        return f"tree {op.kind.data} {source} -> {names}"
    halo = part.depth(value)
    text = f"blockwise {names}"
    if halo:
        text += " halo " + " ".join(f"{a}({lo}, {hi})" for a, (lo, hi) in sorted(halo.items()))
    return text


def _argument_chunks(fn: func.FuncOp) -> list[list[str | None]]:
    """The ``kiln.chunks`` of each argument (none: whole)."""
    chunks: list[list[str | None]] = []
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else [DictionaryAttr({})] * len(fn.body.block.args)
    for arg, dictionary in zip(fn.body.block.args, attrs):
        given = dictionary.data.get(CHUNKS_ATTR)
        rank = len(graph.shape_of(arg))
        if isinstance(given, ArrayAttr):
            names = [a.data for a in given.data if isinstance(a, StringAttr)]
            chunks.append([None if a == "*" else a for a in names])
        else:
            chunks.append([None] * rank)
    return chunks


@dataclass(frozen=True)
class GraphPartition(ModulePass):
    """Annotate every op with how its result is chunked (``kiln.partition``)."""

    name = "graph-partition"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp) or fn.is_declaration:
                continue
            part = partition(fn, _argument_chunks(fn))
            for inner in fn.body.block.ops:
                if inner.results:
                    inner.attributes[PARTITION_ATTR] = StringAttr(describe(part, inner))
