"""Per-chunk kernels of a function called with Dask arrays.

A kernel is a piece of the partitioned ``graph`` IR (kiln.passes.graph_partition): the ops that
compute one value of a chunk from the chunk's inputs. It is emitted as NumPy-style Python source
over the chunk's local shapes (a slice ``a[2:]`` of the whole array is ``a[2:]`` of the chunk, a
broadcast takes the chunk's length), and that source is a normal ``kiln.function``: traced per
chunk shape and compiled by the usual pipeline. The Dask graph holds :class:`ChunkTask`\\ s, which
hold the source and its key only, so they pickle small; a worker process compiles each kernel
once (its Python function is kept per key; the native code is in the worker's own disk cache)
and needs no shared filesystem.
"""

from __future__ import annotations

import hashlib
import linecache
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from kiln.dialects import graph
from kiln.frontend.dtypes import from_element
from kiln.dialects.ir_utils import describe_location
from kiln.passes.graph_partition import (ELEMENTWISE, Partition, PartitionError, combine_kind, combined_axes, loop_body,
                                         outer_operands, partial_dims, roll_of, static_range)

#: graph op -> the NumPy (or kiln) function that computes it, where the names differ
_FUNCTIONS = {
    "sub": "np.subtract", "mul": "np.multiply", "div": "np.true_divide", "pow": "np.power",
    "floordiv": "np.floor_divide", "and": "np.bitwise_and", "or": "np.bitwise_or", "xor": "np.bitwise_xor",
    "not": "np.invert", "neg": "np.negative", "relu": "kiln.relu", "sigmoid": "kiln.sigmoid",
    "cabs": "np.abs", "real": "np.real", "imag": "np.imag", "angle": "np.angle",
}
_COMPARE = {"eq": "np.equal", "ne": "np.not_equal", "lt": "np.less", "le": "np.less_equal",
            "gt": "np.greater", "ge": "np.greater_equal"}


def dtype_of(value: SSAValue) -> np.dtype[Any]:
    """The NumPy dtype of a tensor value's elements."""
    return from_element(graph.element_of(value))


def dtype_source(dtype: np.dtype[Any]) -> str:
    """A dtype as kernel source (``np.float32``; ``np.bool_``)."""
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


def number_source(value: Any) -> str:
    """A Python number as source that evaluates to it (``float('inf')`` for an infinity or NaN)."""
    text = repr(value)
    return text if math.isfinite(abs(value)) else f"{type(value).__name__}({str(value)!r})"


@dataclass(frozen=True)
class Kernel:
    """A per-chunk kiln function by value: its source and the options of the user's function."""

    source: str
    name: str
    target: str = "c"
    isa: str | None = None
    #: ``(rank, dtype)`` per argument when every size is dynamic (compiled once for all shapes), else None
    dynamic: tuple[tuple[int, str], ...] | None = None
    #: whether the source holds a loop (a staged ``for``): autograph stages it, reading the source
    #: from :mod:`linecache`, so that its body is traced once, not once per iteration
    loops: bool = False

    @property
    def key(self) -> str:
        return hashlib.sha256(f"{self.target}:{self.isa}:{self.dynamic}:{self.source}".encode()).hexdigest()

    def function(self) -> Any:
        """The kernel as a kiln.Function, made once per process (the worker's)."""
        key = self.key
        found = _FUNCTIONS_BY_KEY.get(key)
        if found is None:
            import kiln

            namespace: dict[str, Any] = {"np": np, "kiln": kiln}
            filename = f"<kiln.dask kernel {self.name}>"
            if self.loops:
                linecache.cache[filename] = (len(self.source), None, self.source.splitlines(True), filename)
            exec(compile(self.source, filename, "exec"), namespace)
            signature = None if self.dynamic is None else [
                kiln.TensorSpec([None] * rank, dtype) for rank, dtype in self.dynamic
            ]
            found = _FUNCTIONS_BY_KEY[key] = kiln.function(namespace[self.name], autograph=self.loops, target=self.target,
                                                           isa=self.isa, input_signature=signature)
        return found


#: the kernels this process has made, by key (a worker's cache: each compiles once per chunk shape)
_FUNCTIONS_BY_KEY: dict[str, Any] = {}


@dataclass(frozen=True)
class ChunkTask:
    """What one Dask task calls: a kernel on a chunk's inputs; for a stencil, the block's trims
    (per trimmed output dimension, each block's ``(start, length)`` within the extended chunk),
    and for an argmax's partial, the block's start along its axis (a 0-d array: no retrace per
    block), with the block's index as the last argument. A structured block (an argmax's
    partials: extreme values and positions) is passed as its fields; a kernel returning a tuple
    gives one (see :func:`packed`)."""

    kernel: Kernel
    trims: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = ()
    offsets: tuple[tuple[int, tuple[int, ...]], ...] = ()

    @property
    def __name__(self) -> str:  # noqa: A003 (what Dask names the task's layer after)
        return self.kernel.name

    def __dask_tokenize__(self) -> tuple[Any, ...]:
        """Dask's name for the task function: equal kernels and trims give equal layer names, so
        Dask computes a partial that two results share (a mean and a std of one array) once."""
        return (self.kernel.key, self.trims, self.offsets)

    def __call__(self, *blocks: Any, **_dask_options: Any) -> Any:
        ints: list[Any] = []
        if self.trims or self.offsets:
            *blocks, block_id = blocks  # type: ignore[assignment]
            for dim, table in self.trims:
                ints.extend(table[block_id[dim]])
            ints += [np.asarray(starts[block_id[dim]], np.int64) for dim, starts in self.offsets]
        fields = [f for b in blocks for f in _fields(b)]
        out = self.kernel.function()(*fields, *ints)
        return packed(*out) if isinstance(out, tuple) else out


def _fields(block: Any) -> list[Any]:
    """A block as kernel arguments: a structured one (an argmax's partials) as its fields."""
    names = getattr(getattr(block, "dtype", None), "names", None)
    return [np.ascontiguousarray(block[n]) for n in names] if names else [block]


def packed(values: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """An argmax's partials as one structured array (what Dask's reduction tree passes around)."""
    out = np.empty(values.shape, partial_dtype(values.dtype))
    out["v"], out["i"] = values, positions
    return out


def partial_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype of an argmax's partials over elements of ``dtype``: the value and its position."""
    return np.dtype([("v", dtype), ("i", np.int64)])


@dataclass
class KernelPlan:
    """One kernel and how to feed it: its inputs (values of the partitioned function) and the
    output dimensions it trims (a stencil's halo)."""

    kernel: Kernel
    inputs: list[SSAValue]
    #: per grid axis, how far the inputs are extended into their neighbours (a stencil's halo)
    halo: dict[str, tuple[int, int]] = field(default_factory=dict)
    trimmed: list[int] = field(default_factory=list)
    #: the output dimensions whose blocks' start the kernel takes (an argmax's partial)
    offsets: list[int] = field(default_factory=list)


class _Emitter:
    """Writes one kernel's source: the cone of a value, from the function's arguments and the
    combined results of cut reductions."""

    def __init__(self, part: Partition, fn: func.FuncOp):
        self.part = part
        self.fn = fn
        self.lines: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.lengths: dict[str, str] = {}
        #: whether the kernel holds a loop (then autograph stages it)
        self.loops = False

    def cone(self, values: Sequence[SSAValue]) -> tuple[list[SSAValue], list[Operation]]:
        """The inputs and ops (in program order) that ``values`` need."""
        inputs: set[SSAValue] = set()
        needed: set[Operation] = set()
        stack = list(values)
        while stack:
            v = stack.pop()
            owner = v.owner
            if not isinstance(owner, Operation) or self.part.is_boundary(owner):
                inputs.add(v)
            elif owner not in needed:
                needed.add(owner)
                stack.extend(owner.operands)
                if isinstance(owner, graph.WhileOp):  # a loop run per chunk: what its body reads from outside
                    stack.extend(outer_operands(owner))
        order = {op: i for i, op in enumerate(self.fn.body.walk())}
        return sorted(inputs, key=lambda v: _position(v, order)), sorted(needed, key=order.__getitem__)

    def shape(self, value: SSAValue) -> str:
        """``value``'s local shape as a Python expression (a chunked axis: the chunk's length)."""
        dims = []
        for d, n in enumerate(graph.shape_of(value)):
            axis = self.part.axis(value, d)
            dims.append(str(n) if axis is None else f"{self.lengths[axis]} - {self.part.shrink(value, d)}")
        return "(" + "".join(f"{d}, " for d in dims) + ")"

    def bind_inputs(self, inputs: Sequence[SSAValue], halo: dict[str, tuple[int, int]]) -> list[str]:
        """Parameter names for ``inputs``; each chunked axis's local length read from one of them.
        A cut reduction comes in as its combined partials (the operand's rank, reduced dimensions
        of size 1) and is finished here (see :meth:`final`)."""
        params = []
        for i, value in enumerate(inputs):
            name = f"in{i}"
            if isinstance(value.owner, graph.ArgReduceOp) and self.part.is_cut(value.owner):
                params.append(f"{name}_extremes")  # the combined partials' values (see packed)
            params.append(name)
            cut = value.owner if isinstance(value.owner, Operation) and self.part.is_cut(value.owner) else None
            dims = [(value, d) for d in range(len(graph.shape_of(value)))] if cut is None else partial_dims(cut)
            combined = () if cut is None else combined_axes(cut)
            for d, (whole, e) in enumerate(dims):
                axis = self.part.axis(whole, e)
                if axis is None or d in combined:
                    continue
                shrink = self.part.shrink(whole, e)
                if cut is not None and shrink and (axis in halo or self._others_carry(inputs, value, axis)):
                    # its chunks are the stencil result's, shorter than the other inputs' along the axis
                    raise PartitionError(f"{describe_location(cut.location)}: a reduction of a stencil result, combined "
                                         "along the axis it keeps chunked, is not supported on Dask arrays")
                self.lengths.setdefault(axis, f"{name}.shape[{d}] + {shrink}")
            self.names[value] = name if cut is None else self.final(cut, name)
        return params

    def _others_carry(self, inputs: Sequence[SSAValue], value: SSAValue, axis: str) -> bool:
        """Whether an input other than ``value`` is chunked along ``axis``."""
        return any(axis in self.part.axes(v) for v in inputs if v is not value)

    def final(self, op: Operation, combined: str) -> str:
        """The final step of a cut on its combined partials (combined dimensions of size 1)."""
        name = f"v{len(self.names)}"
        expr = combined
        if isinstance(op, graph.MatmulOp):
            self.lines.append(f"    {name} = {combined}.reshape(({combined}.shape[0], {combined}.shape[2]))")
            return name
        if isinstance(op, graph.ArgReduceOp):  # the positions, the axis dropped
            kept = [d for d in range(len(graph.shape_of(op.operand))) if d != op.axis.value.data]
            self.lines.append(f"    {name} = {combined}.reshape(({''.join(f'{combined}.shape[{d}], ' for d in kept)}))")
            return name
        assert isinstance(op, graph.ReduceOp)
        if op.kind.data == "mean":
            count = math.prod(graph.shape_of(op.operand)[a] for a in op.axes.get_values())
            expr = f"{expr} / {dtype_source(np.empty(0, dtype_of(op.result)).real.dtype)}({count})"
        if op.keepdims is None:
            kept = [d for d in range(len(graph.shape_of(op.operand))) if d not in set(op.axes.get_values())]
            expr = f"({expr}).reshape(({''.join(f'{combined}.shape[{d}], ' for d in kept)}))"
        self.lines.append(f"    {name} = {expr}")
        return name

    def op(self, op: Operation) -> None:
        """The lines computing ``op``'s result from its operands' names."""
        if isinstance(op, graph.WhileOp):
            self.loop(op)
            return
        result = op.results[0]
        name = self.names[result] = f"v{len(self.names)}"
        args = [self.names[v] for v in op.operands]
        if isinstance(op, graph.InsertSliceOp):  # x[idx] = v on a copy: the graph op is functional
            index = self.index(op.dest, op.static_offsets.get_values(), op.static_sizes.get_values(),
                               op.strides.get_values(), args[1])
            self.lines += [f"    {name} = {args[1]}.copy()", f"    {name}[{index}] = {args[0]}"]
            return
        self.lines.append(f"    {name} = {self.expression(op, result, args)}")

    def loop(self, op: graph.WhileOp) -> None:
        """A loop run per chunk: a Python ``for`` over ``range(N)`` that carries its values (the
        kernel is staged with autograph, so it is a loop in the kernel's IR too)."""
        trips, _ = static_range(op)  # type: ignore[misc]
        body = op.body_region.block
        carried = [f"c{len(self.names)}_{i}" for i in range(len(op.init))]
        self.lines.append(f"    {', '.join(carried)}, = {', '.join(self.names[v] for v in op.init)},")
        self.names.update(zip(body.args, carried))
        outside, self.lines = self.lines, []
        for inner in loop_body(op):
            self.op(inner)
        self.lines.append(f"    {', '.join(carried)}, = {', '.join(self.names[v] for v in body.last_op.operands)},")
        self.lines = [*outside, f"    for _ in range({trips}):", *("    " + line for line in self.lines)]
        self.names.update(zip(op.res, carried))
        self.loops = True

    def expression(self, op: Operation, result: SSAValue, args: list[str]) -> str:
        """The NumPy expression of ``op`` (the render rule of the first of :data:`_RENDER` it is an instance of)."""
        for kind, render in _RENDER:
            if isinstance(op, kind):
                return render(self, op, result, args)
        raise self.refuse(op)

    def index(self, whole: SSAValue, starts: Sequence[int], sizes: Sequence[int], strides: Sequence[int],
              name: str) -> str:
        """The index of a static slice of ``whole``: along a chunked axis a shift, its end counted
        from the chunk's end (so the chunk's slice is the whole array's, moved)."""
        parts = []
        n_whole = graph.shape_of(whole)
        for d, (start, size, stride) in enumerate(zip(starts, sizes, strides)):
            if self.part.axis(whole, d) is not None:
                parts.append(f"{start}:{name}.shape[{d}] - {n_whole[d] - start - size}")
            elif size == 0:
                parts.append(f"{start}:{start}")
            else:
                stop = start + (size - 1) * stride + (1 if stride > 0 else -1)
                parts.append(f"{start}:{stop if stop >= 0 else ''}:{stride}")
        return ", ".join(parts) + ","

    def constant(self, op: graph.ConstantOp) -> str:
        """A traced constant (a NumPy one would make writes into it, ``out[1:-1] = ...``, NumPy's)."""
        value = op.results[0]
        dtype = dtype_source(dtype_of(value))
        values = op.value.get_values()
        if not graph.shape_of(value):
            return f"kiln.constant({number_source(values[0])}, {dtype})"
        if op.value.is_splat():
            return f"np.broadcast_to(kiln.constant({number_source(values[0])}, {dtype}), {self.shape(value)})"
        items = ", ".join(number_source(v) for v in values)
        return f"kiln.constant(np.array([{items}], dtype={dtype}).reshape({graph.shape_of(value)}))"

    def refuse(self, op: Operation) -> PartitionError:
        return PartitionError(f"{describe_location(op.location)}: {op.name} is not supported on Dask arrays")


def plan_kernel(part: Partition, fn: func.FuncOp, value: SSAValue, prefix: str, *, partial: Operation | None = None,
                target: str = "c", isa: str | None = None) -> KernelPlan:
    """The kernel computing ``value`` per chunk; with ``partial``, a cut whose operand ``value``
    is (a product: whose result), the chunk's partial: the reduction of ``value`` with reduced
    dimensions kept, of size 1, or the product of the operands' blocks, its contracted axis of size 1."""
    em = _Emitter(part, fn)
    product = partial if isinstance(partial, graph.MatmulOp) else None
    inputs, ops = em.cone([product.lhs, product.rhs] if product is not None else [value])
    halo = {} if product is not None else _halo(part, value, inputs)
    for axis in sorted({a for op in ops for r in op.results for a in part.axes(r) if a is not None}):
        if not any(axis in part.axes(v) for v in inputs):  # np.zeros_like(x): x gives the chunks
            inputs.append(next(a for a in fn.body.block.args if axis in part.axes(a)))
    params = em.bind_inputs(inputs, halo)
    for op in ops:
        em.op(op)
    if product is not None:
        a, b = em.names[product.lhs], em.names[product.rhs]
        em.lines.append(f"    return np.matmul({a}, {b}).reshape(({a}.shape[0], 1, {b}.shape[1]))")
        return _kernel(prefix, params, [], em.lines, inputs, halo, [], target, isa, em.loops)
    out = em.names[value]
    trimmed = [d for d in range(len(graph.shape_of(value))) if part.axis(value, d) in halo]
    trims = []
    if trimmed:
        index = []
        for d in range(len(graph.shape_of(value))):
            if d in trimmed:
                index.append(f"t{d}:t{d} + k{d}")
                trims += [f"t{d}", f"k{d}"]
            else:
                index.append(":")
        em.lines.append(f"    {out} = {out}[{', '.join(index)},]")
    offsets = []
    if isinstance(partial, graph.ArgReduceOp):  # the extreme and its position in the whole array
        d, kind = partial.axis.value.data, partial.kind.data
        em.lines.append(f"    return np.{kind}({out}, axis=({d},), keepdims=True), "
                        f"np.expand_dims(np.arg{kind}({out}, axis={d}), {d}) + o{d}")
        trims.append(f"o{d}")
        offsets.append(d)
    elif partial is not None:
        em.lines.append(f"    return np.{combine_kind(partial)}({out}, axis={combined_axes(partial)}, keepdims=True)")
    else:
        em.lines.append(f"    return {out}")
    plan = _kernel(prefix, params, trims, em.lines, inputs, halo, trimmed, target, isa, em.loops)
    plan.offsets = offsets
    return plan


def op_kernel(part: Partition, fn: func.FuncOp, op: Operation, prefix: str, target: str = "c",
              isa: str | None = None) -> Kernel:
    """The kernel of one op on blocks of its operands: a scan's per-chunk scan, a rechunked sort."""
    em = _Emitter(part, fn)
    params = [f"in{i}" for i in range(len(op.operands))]
    return _kernel(prefix, params, [], [f"    return {em.expression(op, op.results[0], params)}"], [], {}, [],
                   target, isa).kernel


def _kernel(prefix: str, params: list[str], trims: list[str], lines: list[str], inputs: list[SSAValue],
            halo: dict[str, tuple[int, int]], trimmed: list[int], target: str, isa: str | None,
            loops: bool = False) -> KernelPlan:
    """The plan of a kernel whose body is ``lines``: its source, named after its code."""
    name = content_name(prefix, f"{params + trims}{lines}")
    source = "\n".join([f"def {name}({', '.join(params + trims)}):", *lines]) + "\n"
    return KernelPlan(Kernel(source, name, target, isa, loops=loops), inputs, halo, trimmed)


def _position(value: SSAValue, order: dict[Operation, int]) -> tuple[int, ...]:
    """Where ``value`` is defined, for a kernel's parameter order: the function's arguments first,
    then a loop body's arguments and op results, in program order."""
    owner = value.owner
    if isinstance(owner, Operation):
        return (1, order[owner], list(owner.results).index(value))
    parent = owner.parent_op()
    return (0, -1 if isinstance(parent, func.FuncOp) else order[parent], value.index)


def _halo(part: Partition, value: SSAValue, inputs: Sequence[SSAValue]) -> dict[str, tuple[int, int]]:
    """The halo of the kernel computing ``value`` from ``inputs``: the value's depth, less what a
    reduction of a stencil result among the inputs has cut already (its chunks are exact)."""
    halo = part.depth(value)
    for v in inputs:
        owner = v.owner
        if isinstance(owner, Operation) and part.is_cut(owner):
            for whole, e in partial_dims(owner):
                axis = part.axis(whole, e)
                if axis in halo and halo[axis] == (0, part.shrink(whole, e)):
                    del halo[axis]
    return halo


def content_name(prefix: str, body: str) -> str:
    """A kernel's name: the same code has the same name, so it is one kernel (compiled once)."""
    return f"{prefix}_{hashlib.sha256(body.encode()).hexdigest()[:12]}"


def combine_kernel(cut: Operation, rank: int, dtype: np.dtype[Any], prefix: str, target: str = "c",
                   isa: str | None = None) -> Kernel:
    """The combine of a cut's partials (of ``rank`` dimensions), concatenated along the combined
    axes and reduced again; of dynamic sizes, since the number of partials a combine takes varies.
    An argmax's partials are values and positions: the first position holding the extreme (or
    a NaN) wins."""
    if not isinstance(cut, graph.ArgReduceOp):
        body = f"(partials):\n    return np.{combine_kind(cut)}(partials, axis={combined_axes(cut)}, keepdims=True)\n"
        name = content_name(prefix, body)
        return Kernel(f"def {name}{body}", name, target, isa, dynamic=((rank, dtype.name),))
    axes = combined_axes(cut)
    body = "\n".join([
        "(values, positions):",
        f"    extreme = np.{cut.kind.data}(values, axis={axes}, keepdims=True)",
        "    hit = (values == extreme) | ((values != values) & (extreme != extreme))",
        f"    first = np.min(np.where(hit, positions, {np.iinfo(np.int64).max}), axis={axes}, keepdims=True)",
        "    return extreme, first",
    ]) + "\n"
    name = content_name(prefix, body)
    return Kernel(f"def {name}{body}", name, target, isa, dynamic=((rank, dtype.name), (rank, "int64")))


# --------------------------------------------------------------------------- render rules
# Each gives the NumPy expression of one kind of graph op from its operands' names.

Render = Callable[[_Emitter, Any, SSAValue, list[str]], str]


def _elementwise(em: _Emitter, op: Operation, result: SSAValue, args: list[str]) -> str:
    short = op.name.split(".", 1)[1]
    return f"{_FUNCTIONS.get(short, 'np.' + short)}({', '.join(args)})"


def _concat(em: _Emitter, op: graph.ConcatOp, result: SSAValue, args: list[str]) -> str:
    roll = roll_of(op)
    if roll is not None:  # the chunk's own roll: wrong only within the (periodic) halo
        return f"np.roll({em.names[roll[0]]}, {roll[1]}, axis={roll[2]})"
    return f"np.concatenate([{', '.join(args)}], axis={op.axis.value.data})"


def _reduce(em: _Emitter, op: graph.ReduceOp, result: SSAValue, args: list[str]) -> str:
    keep = ", keepdims=True" if op.keepdims is not None else ""
    return f"np.{op.kind.data}({args[0]}, axis={tuple(op.axes.get_values())}{keep})"


def _slice(em: _Emitter, op: graph.SliceOp, result: SSAValue, args: list[str]) -> str:
    index = em.index(op.operand, op.start.get_values(), graph.shape_of(result), op.stride.get_values(), args[0])
    return f"{args[0]}[{index}]"


#: a scan's kind -> the NumPy function of it
_SCANS = {"add": "np.cumsum", "mul": "np.cumprod", "max": "np.maximum.accumulate", "min": "np.minimum.accumulate"}


_RENDER: tuple[tuple[Any, Render], ...] = (
    (graph.ConstantOp, lambda em, op, result, args: em.constant(op)),
    (graph.CmpOp, lambda em, op, result, args: f"{_COMPARE[op.predicate.data]}({args[0]}, {args[1]})"),
    (graph.SelectOp, lambda em, op, result, args: f"np.where({', '.join(args)})"),
    (graph.CastOp, lambda em, op, result, args: f"{args[0]}.astype({dtype_source(dtype_of(result))})"),
    (ELEMENTWISE, _elementwise),
    (graph.ConcatOp, _concat),
    (graph.MatmulOp, lambda em, op, result, args: f"np.matmul({args[0]}, {args[1]})"),
    (graph.TransposeOp, lambda em, op, result, args: f"np.transpose({args[0]}, {tuple(op.perm.get_values())})"),
    (graph.BroadcastOp, lambda em, op, result, args: f"np.broadcast_to({args[0]}, {em.shape(result)})"),
    (graph.ReduceOp, _reduce),
    (graph.SliceOp, _slice),
    (graph.ReshapeOp, lambda em, op, result, args: f"{args[0]}.reshape({em.shape(result)})"),
    (graph.ArgReduceOp, lambda em, op, result, args: f"np.arg{op.kind.data}({args[0]}, axis={op.axis.value.data})"),
    (graph.ScanOp, lambda em, op, result, args: f"{_SCANS[op.kind.data]}({args[0]}, axis={op.axis.value.data})"),
    (graph.GatherOp, lambda em, op, result, args: f"{args[0]}[{', '.join(args[1:])},]"),
    (graph.SortOp, lambda em, op, result, args: f"np.sort({args[0]}, axis={op.axis.value.data})"),
    (graph.ArgsortOp, lambda em, op, result, args: f"np.argsort({args[0]}, axis={op.axis.value.data}, kind='stable')"),
)
