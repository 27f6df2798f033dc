"""``graph-partition``: how each value of a function is chunked, given its arguments' chunking.

The model is MLIR's ``shard`` dialect: a sharding says, per tensor dimension, along which grid
axis the tensor is split; propagation gives every op's result a sharding from its operands'; a
reduction over a split axis leaves a *partial* value that needs a combine across the grid. Here
the grid is a Dask array's block grid and the per-chunk code is a kiln function (see
docs/dask.md and kiln.frontend.dask_arrays, which runs what this pass decides).

Per value and dimension the analysis keeps:

- the grid axis (a name, or none: the dimension is whole in every chunk): dimensions that must
  be chunked alike are one class of a union-find (an elementwise op's result and operands, a
  transpose's permuted axes, a slice and its operand), named after the argument dimension in it,
  whose length every argument dimension in it must have (a slice is shorter: it *shrinks*);
- the halo *margins* ``(left, right)``: how many elements at either end of a chunk's local value
  are wrong unless the chunk's input was extended by neighbours' elements (an ``insert_slice`` at
  an offset makes them: ``out[1:-1] = ...`` leaves ``out[0]`` of a chunk wrong); slices at
  offsets are read as shifts (``a[2:]`` is ``a`` moved by 2), which is what makes a stencil a
  stencil: the local value at index ``j`` is the global one at the chunk's start plus ``j``.
  ``np.roll`` (a concat of a tail and a head slice) is a shift that wraps around: its axis is
  *periodic*, its halo taken across the array's ends.

A reduction over a split axis is *cut*: per chunk a partial reduction, then a tree combine and a
final step (``mean`` divides by the global count); an ``argmax``/``argmin``'s partial is the
chunk's extreme value and its global position. A cumulative sum or product along a split axis is
a *scan*: per chunk a scan, then each chunk adds the total of the chunks before it. A sort along
a split axis cannot be split: its operand is *rechunked*, whole along that axis (the caller
warns of the cost). A strided slice of chunked arrays, a reshape merging or splitting chunked
axes and the transpose of ``a @ a.T`` are computed by Dask on their exact operand (*dask ops*),
each of their result's dimensions a grid axis of its own (the analysis runs again once they are
found, without them in the classes). Anything else that the per-chunk code cannot express is
refused with the user's line.

A staged ``for t in range(N)`` (a ``graph.while`` counting to a constant) whose body crosses no
chunks (no halo along a split axis, nothing cut) stays one loop, run per chunk; one whose body
needs neighbours (a time-stepping stencil) or a cut *steps*: each of its N iterations is one
task per chunk, its carried values exact between steps (a halo exchange per step).

Expects: a function of one block whose arguments carry ``kiln.chunks`` (an array of strings per
argument, a grid axis name or ``"*"`` per dimension; an argument without it is whole).
Guarantees: the IR is unchanged but for a ``kiln.partition`` string on every op saying how its
result is chunked (``blockwise [x, *]``, ``... halo x(1, 1)``, ``... halo x(1, 0, periodic)``,
``tree sum [x, *] -> [*]``, ``tree argmax [x] -> []``, ``scan add [x, *]``,
``rechunk [x, *] whole along x``, ``dask [reshape0.0]``, ``loop per chunk [x]``, ``steps 10 [x]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.dialects.ir_utils import describe_location
from kiln.passes._graph_loops import static_range

#: the argument attribute naming each dimension's grid axis (``"*"``: not split)
CHUNKS_ATTR = "kiln.chunks"
#: the op attribute this pass writes
PARTITION_ATTR = "kiln.partition"

#: reductions that split into partial + combine + final, and the reduction that makes each
#: chunk's partial and combines partials (a mean sums; its final step divides)
TREE_COMBINE = {"sum": "sum", "mean": "sum", "max": "max", "min": "min", "prod": "prod"}

#: ops computed element by element from operands of the result's shape
ELEMENTWISE = (graph.ElementwiseBinaryOp, graph.ElementwiseUnaryOp, graph.ElementwiseTestOp, graph.CmpOp,
               graph.SelectOp, graph.CastOp, graph.ComplexToRealOp)

#: what users wrote for the ops refused under Dask, for the error
_CONSTRUCTS = {
    "graph.concat": "np.concatenate along a chunked axis",
    "graph.matmul": "a matrix product of vectors or stacks of matrices (@, np.dot)",
    "graph.while": "a staged loop other than `for ... in range(N)` with a static N",
    "graph.cond": "a staged if on an array",
    "graph.gather": "indexing with arrays",
    "graph.gather_row": "indexing with an array",
    "graph.scatter": "assignment through an array index",
    "graph.print": "kiln.print",
    "graph.read": "state (a kiln.Variable, kiln.random's generator, or an argument the function writes)",
    "graph.assign": "state (a kiln.Variable, kiln.random's generator, or an argument the function writes)",
    "graph.reshape": "a reshape",
    "graph.dynamic_slice": "a slice at a position known only at run time",
}


class PartitionError(DiagnosticException):
    """The function holds a construct that cannot run chunk by chunk (the message names it and the line)."""


#: one dimension of one value: the unit that chunking is decided for
Dim = tuple[SSAValue, int]


@dataclass
class Partition:
    """The analysis of one function (see the module docstring). Dimensions that must be chunked
    alike (an elementwise op's result and operands, a slice and its operand) are one class of a
    union-find; a class that holds an argument's split dimension is split along that grid axis."""

    #: per value and dimension, the halo margins ``(left, right)``
    margins: dict[SSAValue, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: the reductions over split axes and the matrix products contracting one: partial + combine + final
    cuts: list[Operation] = field(default_factory=list)
    #: each grid axis's length (the length of the argument dimensions split along it)
    lengths: dict[str, int] = field(default_factory=dict)
    #: the cumulative sums and products along a split axis: a scan per chunk, then the chunks' prefixes
    scans: list[graph.ScanOp] = field(default_factory=list)
    #: the ops that cannot be split along a split axis, and those axes (grid axis names): their
    #: operand is rechunked, whole along them
    rechunks: dict[Operation, tuple[str, ...]] = field(default_factory=dict)
    #: the loops whose iterations run one task per chunk each (a time-stepping stencil)
    steps: list[graph.WhileOp] = field(default_factory=list)
    #: the grid axes that an ``np.roll`` wraps around: their halo is taken across the array's ends
    periodic: set[str] = field(default_factory=set)
    #: the ops that Dask computes itself on their exact operand (a strided slice along a chunked
    #: axis, a reshape that merges or splits chunked axes, the transpose in ``a @ a.T``): each of
    #: their result's dimensions is a grid axis of its own, chunked as Dask's result is
    dask_ops: list[Operation] = field(default_factory=list)
    #: the dimensions rolled, and the ops (with the dimension) that write at an offset from an end
    _rolled: list[Dim] = field(default_factory=list)
    _edges: list[tuple[Operation, Dim]] = field(default_factory=list)
    _parent: dict[Dim, Dim] = field(default_factory=dict)
    #: a class's grid axis and root length, by the class's representative
    _axis: dict[Dim, str] = field(default_factory=dict)

    def _find(self, dim: Dim) -> Dim:
        while self._parent.get(dim, dim) != dim:
            dim = self._parent[dim]
        return dim

    def axis(self, value: SSAValue, dim: int) -> str | None:
        """The grid axis of ``value``'s dimension ``dim`` (None: whole in every chunk)."""
        return self._axis.get(self._find((value, dim)))

    def axes(self, value: SSAValue) -> tuple[str | None, ...]:
        return tuple(self.axis(value, d) for d in range(len(graph.shape_of(value))))

    def shrink(self, value: SSAValue, dim: int) -> int:
        """How many elements fewer than its grid axis ``value`` has along ``dim`` (slices cut them)."""
        axis = self.axis(value, dim)
        return 0 if axis is None else self.lengths[axis] - graph.shape_of(value)[dim]

    def depth(self, value: SSAValue) -> dict[str, tuple[int, int]]:
        """The halo a chunk's inputs need so that ``value`` is right on the whole chunk: per grid
        axis, the left margin, and the right margin plus what slices cut off the value's end."""
        out: dict[str, tuple[int, int]] = {}
        for d, (left, right) in enumerate(self.margins[value]):
            axis = self.axis(value, d)
            if axis is not None and (left or right + self.shrink(value, d)):
                old = out.get(axis, (0, 0))
                out[axis] = (max(old[0], left), max(old[1], right + self.shrink(value, d)))
        return out

    def is_cut(self, op: Operation) -> bool:
        return op in self.cuts

    def is_boundary(self, op: Operation) -> bool:
        """Whether ``op``'s result is computed by Dask from its operands' chunks (a cut, a scan, a
        rechunked op), so kernels take it as an input instead of computing it."""
        return op in self.cuts or op in self.scans or op in self.rechunks or op in self.steps or op in self.dask_ops

    def _unify(self, a: Dim, b: Dim) -> None:
        a, b = self._find(a), self._find(b)
        if a != b:
            self._parent[b] = a


def _where(op: Operation) -> str:
    return describe_location(op.location)


def _refuse(op: Operation, construct: str, why: str) -> PartitionError:
    return PartitionError(f"{_where(op)}: {construct} is not supported on Dask arrays ({why})")


def partition(fn: func.FuncOp, chunks: Sequence[Sequence[str | None]], single: Set[str] = frozenset(),
              dask_ops: Sequence[Operation] = ()) -> Partition:
    """Partition ``fn`` whose argument ``i`` is split along ``chunks[i]`` (a grid axis name or
    None per dimension); a class of dimensions all of whose argument dimensions are named in
    ``single`` (they have one block: a NumPy argument, a Dask array in one chunk) is whole.
    ``dask_ops`` are ops that Dask computes (see :attr:`Partition.dask_ops`); those found to need
    Dask once the classes are named are added, and the analysis runs again without them in the
    classes. Raises :class:`PartitionError` naming the first construct that cannot run chunk by chunk."""
    part = Partition(dask_ops=list(dask_ops))
    args = [a for a in fn.body.block.args if isinstance(a.type, TensorType)]  # not a Variable's resource
    chunks = [c for a, c in zip(fn.body.block.args, chunks) if isinstance(a.type, TensorType)]
    for arg in args:
        part.margins[arg] = ((0, 0),) * len(graph.shape_of(arg))
    ops = [op for op in fn.body.block.ops if not isinstance(op, func.ReturnOp)]
    for op in ops:
        margins = _propagate(part, op)
        if op.results:  # not a bounds check
            part.margins[op.results[0]] = margins
    _name_classes(part, args, chunks, single)
    found = [found for op in ops for found in _needs_dask(part, op) if found not in part.dask_ops]
    if found:
        return partition(fn, chunks, single, [*part.dask_ops, *found])
    _name_dask_results(part)
    for op in ops:
        _check(part, op)
    if part.scans or part.rechunks or part.steps or part.dask_ops:  # their results come in exact: no halo past them
        for op in ops:
            if part.is_boundary(op):
                for r in op.results:
                    part.margins[r] = ((0, 0),) * len(graph.shape_of(r))
            elif op.results:
                part.margins[op.results[0]] = _propagate(part, op)
    return part


def _name_classes(part: Partition, args: Sequence[SSAValue], chunks: Sequence[Sequence[str | None]],
                  single: Set[str]) -> None:
    """Give each class holding a split argument dimension its grid axis: the first name met
    (arguments split along several names that meet are one axis, of one length), unless every
    name in it is ``single``."""
    names: dict[Dim, set[str]] = {}
    for arg, axes in zip(args, chunks):
        for d, (name, n) in enumerate(zip(axes, graph.shape_of(arg))):
            if name is None:
                continue
            root = part._find((arg, d))
            names.setdefault(root, set()).add(name)
            axis = part._axis.setdefault(root, name)
            if part.lengths.setdefault(axis, n) != n:
                raise PartitionError(
                    f"arrays of lengths {part.lengths[axis]} and {n} along one chunked axis are combined "
                    "(after a shift, or of different sizes): not supported on Dask arrays"
                )
    for root, met in names.items():
        if met <= single:
            del part._axis[root]
    part.periodic = {a for a in (part.axis(*dim) for dim in part._rolled) if a is not None}
    for op, dim in part._edges:
        if part.axis(*dim) in part.periodic:
            raise _refuse(op, "a write at an offset from the array's end, with np.roll along the same axis",
                          "the halo cannot both wrap around and stop at the ends")
    for i, (arg, axes) in enumerate(zip(args, chunks)):
        for d, name in enumerate(axes):
            if name is None and part.axis(arg, d) is not None:
                raise PartitionError(f"argument {i} is whole along dimension {d}, which meets the chunked "
                                     f"axis {part.axis(arg, d)!r}: chunk it alike")


def _needs_dask(part: Partition, op: Operation) -> list[Operation]:
    """The ops that Dask must compute for ``op`` to be split: a strided slice along a chunked axis,
    a reshape other than of dimensions of size 1 on chunked arrays, and the transpose of ``a @ a.T``
    (whose rows and columns would otherwise be one grid axis)."""
    if (isinstance(op, graph.SliceOp) and any(s != 1 for s in op.stride.get_values())) or (
            isinstance(op, graph.ReshapeOp) and unit_dims(op) is None):
        return [op] if any(part.axes(op.operands[0])) or any(part.axes(op.results[0])) else []
    if isinstance(op, graph.MatmulOp) and _matrices(op):
        axes = part.axes(op.result)
        if axes[0] is not None and axes[0] == axes[1]:
            return [v.owner for v in (op.rhs, op.lhs) if isinstance(v.owner, graph.TransposeOp)][:1]
    return []


def _name_dask_results(part: Partition) -> None:
    """Give each dimension of an op that Dask computes a grid axis of its own, of the result's
    length (unless what it meets names it already)."""
    for i, op in enumerate(part.dask_ops):
        for d, n in enumerate(graph.shape_of(op.results[0])):
            root = part._find((op.results[0], d))
            if root not in part._axis:
                name = part._axis[root] = f"{op.name.split('.')[1]}{i}.{d}"
                part.lengths[name] = n


def _check(part: Partition, op: Operation) -> None:
    """Refuse what per-chunk code cannot compute, and record the reductions to cut."""
    if isinstance(op, graph.CheckOp):
        _check_bounds(part, op)
        return
    for d, n in enumerate(graph.shape_of(op.results[0])):
        axis = part.axis(op.results[0], d)
        if axis is not None and n > part.lengths[axis]:
            raise _refuse(op, "an array longer than the chunked axis it meets (np.convolve's mode 'full', a padding)",
                          f"{n} elements along an axis of {part.lengths[axis]}")
    axes = [a for a in part.axes(op.results[0]) if a is not None]
    if len(set(axes)) != len(axes):
        if isinstance(op, graph.MatmulOp):
            raise _refuse(op, "a matrix product that contracts an array's chunked axis with its other one (a @ a)",
                          "its rows and columns would be one chunked axis")
        raise _refuse(op, "an array whose two chunked axes meet (x + x.T)", "its chunks would have to be square")
    if op in part.dask_ops:
        return
    if isinstance(op, graph.ConstantOp) and not op.value.is_splat():
        if any(part.axis(op.results[0], d) is not None for d in range(len(graph.shape_of(op.results[0])))):
            raise _refuse(op, "an array constant along a chunked axis", "pass it as an argument instead")
    if isinstance(op, graph.ReduceOp):
        if any(part.axis(op.operand, d) is not None for d in op.axes.get_values()):
            if op.kind.data not in TREE_COMBINE:
                raise _refuse(op, f"the reduction {op.kind.data!r}", "no tree combine for it")
            part.cuts.append(op)
    if isinstance(op, graph.ArgReduceOp) and part.axis(op.operand, op.axis.value.data) is not None:
        part.cuts.append(op)
    if isinstance(op, (graph.ScanOp, graph.SortOp, graph.ArgsortOp, graph.GatherOp)):
        _check_along(part, op)
    if isinstance(op, graph.MatmulOp):
        _check_matmul(part, op)
    if isinstance(op, graph.WhileOp):
        _check_loop(part, op)
    if isinstance(op, graph.ReshapeOp) and unit_dims(op) is not None:
        kept = {d for d, _ in unit_dims(op) or ()}
        if any(part.axis(op.operand, d) is not None for d in range(len(graph.shape_of(op.operand))) if d not in kept):
            raise _refuse(op, "indexing one position along a chunked axis (a[0])",
                          "its chunks would be on one worker only")
    if isinstance(op, graph.ConcatOp) and roll_of(op) is None:
        axis = op.axis.value.data
        if any(part.axis(piece, axis) is not None for piece in op.inputs):
            raise _refuse(op, _CONSTRUCTS[op.name], "only np.roll's wrap-around is split into chunks")
    if isinstance(op, (graph.SliceOp, graph.ReshapeOp)) and _needs_dask(part, op):  # in a loop's body
        construct = "a strided slice" if isinstance(op, graph.SliceOp) else "a reshape"
        raise _refuse(op, f"{construct} of chunked axes inside a staged loop", "Dask computes it only outside loops")
    if isinstance(op, graph.InsertSliceOp):
        for d, stride in enumerate(op.strides.get_values()):
            if stride != 1 and part.axis(op.dest, d) is not None:
                raise _refuse(op, "a strided write along a chunked axis (out[::2] = v)", f"stride {stride}")


def _propagate(part: Partition, op: Operation) -> tuple[tuple[int, int], ...]:
    """Unify ``op``'s result dimensions with its operands' and give the result's margins (the
    rule of the first of :data:`_RULES` that ``op`` is an instance of)."""
    if op.regions and not isinstance(op, graph.WhileOp):
        raise _refuse(op, _CONSTRUCTS.get(op.name, op.name), "it has regions")
    if op in part.dask_ops:  # its result's dimensions are grid axes of their own (see _name_dask_results)
        return ((0, 0),) * len(graph.shape_of(op.results[0]))
    for kind, rule in _RULES:
        if isinstance(op, kind):
            return rule(part, op)
    raise _refuse(op, _CONSTRUCTS.get(op.name, op.name), "kiln cannot split it into chunks yet")


def _loop(part: Partition, op: graph.WhileOp) -> tuple[tuple[int, int], ...]:
    """A staged ``for t in range(N)``: each carried value's dimensions are one class with its
    initial value's, its body's arguments' and what the body yields; the body is propagated from
    exact carried values (a step's halo is its body's), and a result's margins are its initial
    value's or its yield's (a loop run per chunk adds no halo along a split axis)."""
    if static_range(op) is None:
        raise _refuse(op, _CONSTRUCTS[op.name], "its trip count is not a constant N, or it may break early")
    body = op.body_region.block
    yielded = body.last_op.operands  # type: ignore[union-attr]
    for i, init in enumerate(op.init):
        part.margins[op.cond_region.block.args[i]] = part.margins[body.args[i]] = ((0, 0),) * len(graph.shape_of(init))
        for d in range(len(graph.shape_of(init))):
            for v in (op.res[i], op.cond_region.block.args[i], body.args[i], yielded[i]):
                part._unify((init, d), (v, d))
    for inner in loop_body(op):
        if isinstance(inner, graph.WhileOp):
            raise _refuse(inner, "a loop inside a loop", "only the outer loop's iterations are split into tasks")
        margins = _propagate(part, inner)
        if inner.results:  # not a bounds check
            part.margins[inner.results[0]] = margins
    for r, init, out in zip(op.res, op.init, yielded):
        part.margins[r] = tuple((max(a[0], b[0]), max(a[1], b[1])) for a, b in zip(part.margins[init], part.margins[out]))
    return part.margins[op.res[0]]


def loop_body(op: graph.WhileOp) -> list[Operation]:
    """The ops of a loop's body, its yield left out."""
    return [inner for inner in op.body_region.block.ops if not isinstance(inner, graph.YieldOp)]


def outer_operands(op: graph.WhileOp) -> list[SSAValue]:
    """The values defined outside a loop that its body reads (regions see values from above)."""
    inside = {v for inner in op.body_region.walk() for v in inner.results} | set(op.body_region.block.args)
    return list(dict.fromkeys(v for inner in op.body_region.walk() for v in inner.operands if v not in inside))


def _check_loop(part: Partition, op: graph.WhileOp) -> None:
    """Check the body's ops; a body that needs a halo along a split axis or a cut steps."""
    for inner in loop_body(op):
        _check(part, inner)
    if any(part.is_boundary(inner) or (inner.results and part.depth(inner.results[0])) for inner in loop_body(op)):
        part.steps.append(op)


def _matrices(op: graph.MatmulOp) -> bool:
    return len(graph.shape_of(op.lhs)) == len(graph.shape_of(op.rhs)) == 2


def _matmul(part: Partition, op: graph.MatmulOp) -> tuple[tuple[int, int], ...]:
    """A product of matrices: rows follow the left operand, columns the right one, and the
    contracted axes are one class (a product of vectors or stacks keeps its axes apart)."""
    if not _matrices(op):
        return ((0, 0),) * len(graph.shape_of(op.result))
    part._unify((op.result, 0), (op.lhs, 0))
    part._unify((op.result, 1), (op.rhs, 1))
    part._unify((op.lhs, 1), (op.rhs, 0))
    return (part.margins[op.lhs][0], part.margins[op.rhs][1])


def _check_matmul(part: Partition, op: graph.MatmulOp) -> None:
    """A product contracting a chunked axis is cut (blockwise products, then their sum); its
    operands must be exact on every chunk (no halo), and only matrices are split."""
    split = [(v, d) for v in (op.lhs, op.rhs) for d in range(len(graph.shape_of(v))) if part.axis(v, d) is not None]
    if split and not _matrices(op):
        raise _refuse(op, _CONSTRUCTS[op.name], "only products of matrices are split into chunks")
    if any(part.margins[v][d] != (0, 0) or part.shrink(v, d) for v, d in split):
        raise _refuse(op, "a matrix product of a stencil result along a chunked axis", "its chunks are not exact")
    if split and part.axis(op.lhs, 1) is not None:
        part.cuts.append(op)


#: what users wrote for the ops that need their whole axis, for the warning and errors
_ALONG = {"graph.scan": "a cumulative {kind}", "graph.sort": "np.sort", "graph.argsort": "np.argsort"}


def _check_along(part: Partition, op: graph.ScanOp | graph.SortOp | graph.ArgsortOp | graph.GatherOp) -> None:
    """An op along split axes: a scan (a cumulative sum or product) runs as a scan over chunks, a
    sort or an indexing with arrays (along the indexed axes) is rechunked; their operand's
    chunks must be the array's (not a stencil's, shorter)."""
    dims = range(len(op.indices)) if isinstance(op, graph.GatherOp) else [op.axis.value.data]
    axes = tuple(dict.fromkeys(a for a in (part.axis(op.operand, d) for d in dims) if a is not None))
    if not axes:
        return
    if any(part.shrink(op.operand, d) for d in range(len(graph.shape_of(op.operand)))):
        raise _refuse(op, f"{construct_of(op)} of a stencil result (a shorter array) along a chunked axis",
                      "its chunks are not the array's")
    if isinstance(op, graph.ScanOp):
        part.scans.append(op)
    else:
        part.rechunks[op] = axes


def _check_bounds(part: Partition, op: graph.CheckOp) -> None:
    """An index's bounds check is done again by the kernel that indexes (its own trace checks
    the same index); any other run-time check would be lost between chunks: refused."""
    if not op.message.data.startswith("IndexError:") or op.tok_in is not None or op.results:
        raise _refuse(op, "a run-time check (kiln.check, or NumPy's own)", "it would be checked per chunk only")


def construct_of(op: Operation) -> str:
    """What the user wrote for ``op`` (for errors and warnings)."""
    kinds = {"add": "sum (np.cumsum)", "mul": "product (np.cumprod)", "max": "maximum (np.maximum.accumulate)",
             "min": "minimum (np.minimum.accumulate)"}
    text = _ALONG.get(op.name) or _CONSTRUCTS.get(op.name, op.name)
    return text.format(kind=kinds[op.kind.data]) if isinstance(op, graph.ScanOp) else text


def partial_dims(op: Operation) -> list[Dim]:
    """Per dimension of a cut's per-chunk partials, the operand dimension whose chunks it follows:
    a reduction's operand's; a product's rows, contracted axis and columns."""
    if isinstance(op, graph.MatmulOp):
        return [(op.lhs, 0), (op.lhs, 1), (op.rhs, 1)]
    assert isinstance(op, (graph.ReduceOp, graph.ArgReduceOp))
    return [(op.operand, d) for d in range(len(graph.shape_of(op.operand)))]


def combined_axes(op: Operation) -> tuple[int, ...]:
    """The dimensions of a cut's partials that the combine reduces (of size 1 per partial)."""
    if isinstance(op, graph.ArgReduceOp):
        return (op.axis.value.data,)
    return (1,) if isinstance(op, graph.MatmulOp) else tuple(op.axes.get_values())  # type: ignore[attr-defined]


def combine_kind(op: Operation) -> str:
    """How a cut's partials combine: a product's by sums, a reduction's by :data:`TREE_COMBINE`."""
    return "sum" if isinstance(op, graph.MatmulOp) else TREE_COMBINE[op.kind.data]  # type: ignore[attr-defined]


def _constant(part: Partition, op: graph.ConstantOp) -> tuple[tuple[int, int], ...]:
    return ((0, 0),) * len(graph.shape_of(op.results[0]))


def _elementwise(part: Partition, op: Operation) -> tuple[tuple[int, int], ...]:
    result = op.results[0]
    rank = len(graph.shape_of(result))
    margins = []
    for d in range(rank):
        left = right = 0
        for operand in op.operands:
            if len(graph.shape_of(operand)) != rank:
                continue  # a 0-d condition: whole
            part._unify((result, d), (operand, d))
            left, right = max(left, part.margins[operand][d][0]), max(right, part.margins[operand][d][1])
        margins.append((left, right))
    return tuple(margins)


def _broadcast(part: Partition, op: graph.BroadcastOp) -> tuple[tuple[int, int], ...]:
    src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
    lead = len(dst) - len(src)
    margins = [(0, 0)] * lead
    for d, n in enumerate(src):
        if n == 1 and dst[lead + d] != 1:  # stretched: whole
            margins.append((0, 0))
        else:
            part._unify((op.result, lead + d), (op.operand, d))
            margins.append(part.margins[op.operand][d])
    return tuple(margins)


def _reduce(part: Partition, op: graph.ReduceOp) -> tuple[tuple[int, int], ...]:
    reduced = set(op.axes.get_values())
    keep = op.keepdims is not None
    margins = []
    d_out = 0
    for d, m in enumerate(part.margins[op.operand]):
        if d in reduced:
            if keep:
                margins.append((0, 0))
                d_out += 1
            continue
        part._unify((op.result, d_out), (op.operand, d))
        margins.append(m)
        d_out += 1
    return tuple(margins)


def _argreduce(part: Partition, op: graph.ArgReduceOp) -> tuple[tuple[int, int], ...]:
    """The position along one axis: the other axes follow the operand (see :func:`_reduce`)."""
    axis = op.axis.value.data
    for d_out, d in enumerate(d for d in range(len(graph.shape_of(op.operand))) if d != axis):
        part._unify((op.result, d_out), (op.operand, d))
    return tuple(m for d, m in enumerate(part.margins[op.operand]) if d != axis)


def _along(part: Partition, op: graph.ScanOp | graph.SortOp | graph.ArgsortOp) -> tuple[tuple[int, int], ...]:
    """An op along one axis whose result has its operand's shape: in the chunk when the axis is
    whole, else a scan or a rechunk (:func:`_check_along`), whose result comes in exact."""
    for d in range(len(graph.shape_of(op.operand))):
        part._unify((op.result, d), (op.operand, d))
    return part.margins[op.operand]


def unit_dims(op: graph.ReshapeOp) -> list[tuple[int, int]] | None:
    """``(source dim, result dim)`` of the dimensions a reshape keeps when it only drops or inserts
    dimensions of size 1 (``a[:, 0]``, ``x[None]``); None for any other reshape."""
    src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
    kept_src = [d for d, n in enumerate(src) if n != 1]
    kept_dst = [d for d, n in enumerate(dst) if n != 1]
    if [src[d] for d in kept_src] != [dst[d] for d in kept_dst]:
        return None
    return list(zip(kept_src, kept_dst))


def _gather(part: Partition, op: graph.GatherOp) -> tuple[tuple[int, int], ...]:
    """Indexing with arrays: the result's leading dimensions are the indices' (chunked as they
    are), the others the operand's trailing ones; along the indexed axes the operand is whole in
    every chunk (:func:`_check_along` rechunks it where it is not)."""
    batch = len(graph.shape_of(op.indices[0]))
    margins = []
    for d in range(batch):
        for index in op.indices:
            part._unify((op.result, d), (index, d))
        margins.append((max(part.margins[i][d][0] for i in op.indices), max(part.margins[i][d][1] for i in op.indices)))
    for d in range(len(op.indices), len(graph.shape_of(op.operand))):
        part._unify((op.result, batch + d - len(op.indices)), (op.operand, d))
        margins.append(part.margins[op.operand][d])
    return tuple(margins)


def _reshape(part: Partition, op: graph.ReshapeOp) -> tuple[tuple[int, int], ...]:
    """A reshape that drops or inserts dimensions of size 1 keeps the others' chunks and margins
    (:func:`_check` refuses one that drops a chunked dimension); any other runs in the chunk on
    whole arrays, or is Dask's (:func:`_needs_dask`)."""
    kept = unit_dims(op)
    if kept is None:
        return ((0, 0),) * len(graph.shape_of(op.result))
    margins = [(0, 0)] * len(graph.shape_of(op.result))
    for d_src, d_dst in kept:
        part._unify((op.result, d_dst), (op.operand, d_src))
        margins[d_dst] = part.margins[op.operand][d_src]
    return tuple(margins)


def _slice(part: Partition, op: graph.SliceOp) -> tuple[tuple[int, int], ...]:
    """A slice of unit strides is a shift of its operand; a strided one keeps its dimensions
    apart from the operand's (in the chunk when both are whole, else Dask's: :func:`_needs_dask`)."""
    src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
    if any(s != 1 for s in op.stride.get_values()):
        return ((0, 0),) * len(dst)
    margins = []
    for d, (start, n, m) in enumerate(zip(op.start.get_values(), src, dst)):
        part._unify((op.result, d), (op.operand, d))
        left, right = part.margins[op.operand][d]
        margins.append((max(0, left - start), max(0, right - (n - start - m))))
    return tuple(margins)


def roll_of(op: graph.ConcatOp) -> tuple[SSAValue, int, int] | None:
    """``(array, shift, axis)`` when ``op`` is how ``np.roll`` traces: the concat of an array's
    tail and head slices along one axis (the shift is the shorter way round); else None."""
    axis = op.axis.value.data
    if len(op.inputs) != 2:
        return None
    tail, head = (v.owner for v in op.inputs)
    if not (isinstance(tail, graph.SliceOp) and isinstance(head, graph.SliceOp) and tail.operand == head.operand):
        return None
    src = graph.shape_of(tail.operand)
    for piece, start in ((tail, None), (head, 0)):
        size = graph.shape_of(piece.result)
        for d, (b, s, m, n) in enumerate(zip(piece.start.get_values(), piece.stride.get_values(), size, src)):
            if s != 1 or (d != axis and (b != 0 or m != n)) or (d == axis and start is not None and b != start):
                return None
    k = tail.start.get_values()[axis]
    if graph.shape_of(head.result)[axis] != k or k == 0:
        return None
    n = src[axis]
    return tail.operand, (-k if k <= n // 2 else n - k), axis


def _concat(part: Partition, op: graph.ConcatOp) -> tuple[tuple[int, int], ...]:
    """``np.roll`` (see :func:`roll_of`) keeps its array's axes and wraps its halo around; any
    other concat keeps the other axes (:func:`_check` refuses one along a chunked axis)."""
    roll = roll_of(op)
    rank = len(graph.shape_of(op.result))
    if roll is not None:
        source, shift, axis = roll
        margins = list(part.margins[source])
        for d in range(rank):
            part._unify((op.result, d), (source, d))
        left, right = margins[axis]
        margins[axis] = (left + shift, max(0, right - shift)) if shift > 0 else (max(0, left + shift), right - shift)
        part._rolled.append((op.result, axis))
        return tuple(margins)
    axis = op.axis.value.data
    margins = []
    for d in range(rank):
        if d == axis:
            margins.append((0, 0))
            continue
        for piece in op.inputs:
            part._unify((op.result, d), (piece, d))
        margins.append((max(part.margins[p][d][0] for p in op.inputs), max(part.margins[p][d][1] for p in op.inputs)))
    return tuple(margins)


def _transpose(part: Partition, op: graph.TransposeOp) -> tuple[tuple[int, int], ...]:
    perm = op.perm.get_values()
    for d, source in enumerate(perm):
        part._unify((op.result, d), (op.operand, source))
    return tuple(part.margins[op.operand][source] for source in perm)


def _insert_slice(part: Partition, op: graph.InsertSliceOp) -> tuple[tuple[int, int], ...]:
    if op.offsets or op.sizes:
        raise _refuse(op, _CONSTRUCTS["graph.dynamic_slice"], "offsets known only at run time")
    n_dst = graph.shape_of(op.dest)
    base, source = part.margins[op.dest], part.margins[op.source]
    margins = []
    for d, (offset, size) in enumerate(zip(op.static_offsets.get_values(), op.static_sizes.get_values())):
        part._unify((op.result, d), (op.dest, d))
        part._unify((op.result, d), (op.source, d))
        gap = n_dst[d] - offset - size
        if offset or gap:
            part._edges.append((op, (op.result, d)))
        margins.append((max(base[d][0], offset + source[d][0]), max(base[d][1], gap + source[d][1])))
    return tuple(margins)


#: op kinds and their propagation rules
_RULES: tuple[tuple[Any, Callable[[Partition, Any], tuple[tuple[int, int], ...]]], ...] = (
    (graph.ConstantOp, _constant),
    (ELEMENTWISE, _elementwise),
    (graph.BroadcastOp, _broadcast),
    (graph.ReduceOp, _reduce),
    (graph.SliceOp, _slice),
    (graph.TransposeOp, _transpose),
    (graph.ConcatOp, _concat),
    (graph.InsertSliceOp, _insert_slice),
    (graph.MatmulOp, _matmul),
    (graph.ArgReduceOp, _argreduce),
    (graph.ReshapeOp, _reshape),
    (graph.WhileOp, _loop),
    (graph.GatherOp, _gather),
    (graph.CheckOp, lambda part, op: ()),
    ((graph.ScanOp, graph.SortOp, graph.ArgsortOp), _along),
)


def describe(part: Partition, op: Operation) -> str:
    """What ``kiln.partition`` says of ``op``'s result."""
    value = op.results[0]
    names = "[" + ", ".join(a or "*" for a in part.axes(value)) + "]"
    if op in part.dask_ops:
        return f"dask {names}"
    if part.is_cut(op):
        source = "[" + ", ".join(part.axis(v, d) or "*" for v, d in partial_dims(op)) + "]"
        what = "contract" if isinstance(op, graph.MatmulOp) else f"tree {op.kind.data}"  # type: ignore[attr-defined]
        what = f"tree arg{op.kind.data}" if isinstance(op, graph.ArgReduceOp) else what  # type: ignore[attr-defined]
        return f"{what} {source} -> {names}"
    if op in part.scans:
        return f"scan {op.kind.data} {names}"  # type: ignore[attr-defined]
    if op in part.rechunks:
        return f"rechunk {names} whole along {', '.join(part.rechunks[op])}"
    if isinstance(op, graph.WhileOp):
        trips = static_range(op)[0]  # type: ignore[index]
        return f"steps {trips} {names}" if op in part.steps else f"loop per chunk {names}"
    halo = part.depth(value)
    text = f"blockwise {names}"
    if halo:
        text += " halo " + " ".join(
            f"{a}({lo}, {hi}{', periodic' if a in part.periodic else ''})" for a, (lo, hi) in sorted(halo.items())
        )
    return text


def _argument_chunks(fn: func.FuncOp) -> list[list[str | None]]:
    """The ``kiln.chunks`` of each argument (none: whole)."""
    chunks: list[list[str | None]] = []
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else [DictionaryAttr({})] * len(fn.body.block.args)
    for arg, dictionary in zip(fn.body.block.args, attrs):
        given = dictionary.data.get(CHUNKS_ATTR)
        rank = len(graph.shape_of(arg)) if isinstance(arg.type, TensorType) else 0
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
            for inner in fn.body.walk():
                if inner.results and inner.results[0] in part.margins:  # not a loop's condition
                    inner.attributes[PARTITION_ATTR] = StringAttr(describe(part, inner))
