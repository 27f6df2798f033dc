"""A ``kiln.function`` called with Dask arrays: the answer as a lazy Dask array.

The function is traced once on the whole arrays' shapes (no data is read), ``graph-partition``
decides how each value is chunked, and the function is split into per-chunk kernels
(kiln.frontend.dask_kernels) that Dask runs as it runs its own: blockwise, with
``dask.array.overlap`` for a stencil's halo, ``dask.array.reduction`` (partial, a tree of
combines) for a reduction over a chunked axis, Dask's ``cumreduction`` (a scan per chunk, then
the prefix of the chunks' totals) for a cumulative sum along one, a rechunk, with a
:class:`KilnRechunkWarning`, for a sort or an indexing with arrays along one, and a task per
chunk and step for a time-stepping loop. NumPy arrays among the arguments are one-chunk
Dask arrays, cut like the Dask ones where they meet a chunked axis (broadcast to every chunk
otherwise). See docs/dask.md.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, TensorType
from xdsl.ir import Operation, SSAValue

from kiln.dialects import graph
from kiln.frontend import pytree
from kiln.dialects.ir_utils import describe_location
from kiln.frontend.dask_kernels import ChunkTask, combine_kernel, dtype_of, op_kernel, partial_dtype, plan_kernel
from kiln.frontend.list_numbers import lift_list_numbers
from kiln.frontend.signature import TensorSpec, is_tensor_value
from kiln.passes.graph_partition import (Partition, combined_axes, construct_of, loop_body, partial_dims, partition,
                                         static_range)

#: a scan's kind -> how Dask joins a chunk's scan to the chunks' before it, and the identity (by dtype kind)
_SCAN_JOINS = {"add": (np.add, lambda t: 0), "mul": (np.multiply, lambda t: 1),
               "max": (np.maximum, lambda t: -np.inf if t.kind in "fc" else np.iinfo(t).min if t.kind in "iu" else False),
               "min": (np.minimum, lambda t: np.inf if t.kind in "fc" else np.iinfo(t).max if t.kind in "iu" else True)}


class KilnRechunkWarning(UserWarning):
    """An op that cannot be split along a chunked axis (a sort, indexing with arrays) gathers that
    axis into one chunk: the answer is right, the data moves between workers (the message says
    how much)."""


def holds_dask_array(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    """Whether a call passes a Dask array (at the top level or in a list, tuple or dict)."""
    import dask.array as da

    leaves, _ = pytree.flatten((tuple(args), kwargs))
    return any(isinstance(leaf, da.Array) for leaf in leaves)


def call(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``function(*args, **kwargs)`` as a Dask array (or a structure of them, as the function returns)."""
    import dask.array as da

    if function.rules is not None or function.passes is not None:
        raise NotImplementedError(f"{function.__name__}: rules= and passes= are not supported with Dask arrays yet")
    leaves, tree = pytree.flatten((tuple(args), kwargs))
    dask_of: dict[int, Any] = {}
    traced_leaves = []
    for leaf in leaves:
        if isinstance(leaf, da.Array):
            if any(np.isnan(n) for n in leaf.shape):
                raise ValueError(f"{function.__name__}: a Dask array of unknown chunk sizes; call compute_chunk_sizes() first")
            spec = TensorSpec(leaf.shape, leaf.dtype)
            dask_of[id(spec)] = leaf
            leaf = spec
        traced_leaves.append(leaf)
    spec_args, spec_kwargs = pytree.unflatten(tree, iter(traced_leaves))
    concrete = function.get_concrete_function(*spec_args, **spec_kwargs)
    traced = concrete.traced
    if traced.statics or traced.container_effects:
        raise NotImplementedError(
            f"{function.__name__}: with Dask arrays, a function may not return Python values or change its "
            "argument lists and dicts"
        )
    flat, _ = pytree.flatten(lift_list_numbers((tuple(spec_args), spec_kwargs)))
    tensors = [leaf for leaf in flat if is_tensor_value(leaf) or isinstance(leaf, TensorSpec)]
    fn = traced.func_op
    arrays: list[Any] = []  # None for an argument the function writes (graph-partition refuses the write)
    for t, arg in zip(tensors, fn.body.block.args):
        if id(t) not in dask_of and not isinstance(t, (np.ndarray, np.generic)):
            raise NotImplementedError(f"{function.__name__}: lists of numbers are not supported with Dask arrays yet")
        if not isinstance(arg.type, TensorType):
            arrays.append(None)
        else:
            arrays.append(dask_of[id(t)] if id(t) in dask_of else da.from_array(np.asarray(t, dtype_of(arg)), chunks=-1))
    chunks = [[] if a is None else [None if n == 1 else f"a{i}.{d}" for d, n in enumerate(a.shape)]
              for i, a in enumerate(arrays)]
    single = {name for a, names in zip(arrays, chunks) for name, n in zip(names, a.numblocks if a is not None else ())
              if name is not None and n == 1}
    builder = _Builder(partition(fn, chunks, single), fn, arrays, function.target, function.isa)
    outputs = [builder.output(v) for v in fn.body.block.last_op.operands]  # type: ignore[union-attr]
    return pytree.unflatten(traced.output_tree, iter(outputs))


def _warn_rechunk(op: Operation, construct: str, operand: Any, dims: Sequence[int]) -> None:
    """Warn that ``op``'s operand is rechunked along ``dims``, at the user's line (as Python
    shows its own warnings)."""
    loc = op.location
    warnings.warn_explicit(
        f"{describe_location(loc)}: {construct} cannot run chunk by chunk: its operand (shape {operand.shape}, "
        f"{operand.dtype}) is rechunked into one chunk along axis {', '.join(map(str, dims))}, moving up to "
        f"{operand.nbytes} bytes between workers",
        KilnRechunkWarning, loc.filename.data if isinstance(loc, FileLineColLoc) else "<unknown>",
        loc.line.data if isinstance(loc, FileLineColLoc) else 0)


def _reshaped(op: Operation, operand: Any, shape: Sequence[int]) -> Any:
    """``operand`` reshaped by Dask, with a warning when the axes it merges are rechunked whole;
    a reshape that neither merges nor splits axes (``(40, 30)`` to ``(30, 40)``, which Dask
    refuses) goes through the flat array."""
    from dask.array.reshape import reshape_rechunk

    if operand.size:
        try:
            inchunks = reshape_rechunk(operand.shape, shape, operand.chunks)[0]
        except NotImplementedError:
            return _reshaped(op, operand, (operand.size,)).reshape(shape)
        # the axes made whole (Dask may also split others' chunks, which moves nothing)
        dims = [d for d, n in enumerate(operand.numblocks) if n > 1 and len(inchunks[d]) == 1]
        if dims:
            _warn_rechunk(op, "a reshape of chunked axes", operand, dims)
    return operand.reshape(shape)


def _identity(x: Any, **_: Any) -> Any:
    """The chunk step of a tree reduction whose blocks are partials already."""
    return x


class _Builder:
    """Builds the Dask arrays of one call: kernels for the values asked for, reductions on the way."""

    def __init__(self, part: Partition, fn: func.FuncOp, arrays: Sequence[Any], target: str, isa: str | None):
        self.part, self.fn, self.target, self.isa = part, fn, target, isa
        self.fresh = itertools.count()
        #: the Dask array of each kernel input: arguments, and cut reductions' combined partials
        self.inputs: dict[SSAValue, Any] = dict(zip(fn.body.block.args, arrays))
        #: kernels are named after the function and their code
        self.prefix = f"kiln_chunk_{self.fn.sym_name.data}"

    def _index(self, value: SSAValue) -> tuple[str, ...]:
        """Dask's index of ``value``'s dimensions: the grid axis, or a fresh name (whole)."""
        return self._dims_index([(value, d) for d in range(len(graph.shape_of(value)))])

    def _input(self, value: SSAValue) -> tuple[Any, tuple[str, ...]]:
        owner = value.owner
        if isinstance(owner, Operation) and self.part.is_cut(owner):  # combined partials (see partial_dims)
            if value not in self.inputs:
                self.inputs[value] = self._reduction(owner)
            return self.inputs[value], self._dims_index(partial_dims(owner), skip=combined_axes(owner))
        if value not in self.inputs:
            if owner in self.part.steps:
                self._steps(owner)
            else:  # a scan's or a rechunked op's result
                self.inputs[value] = (self._scan(owner) if owner in self.part.scans else
                                      self._dask_op(owner) if owner in self.part.dask_ops else self._rechunked(owner))
        return self.inputs[value], self._index(value)

    def _steps(self, op: graph.WhileOp) -> None:
        """A loop whose body needs neighbours: per iteration, each carried value is one task per
        chunk (the body's kernel on the chunk and the halo of its neighbours at the step before);
        the counter is the step's number. Carried values that nothing reads are left out."""
        import dask.array as da

        trips, counter = static_range(op)  # type: ignore[misc]
        body = op.body_region.block
        yielded = body.last_op.operands  # type: ignore[union-attr]
        inside = [v for inner in op.body_region.walk() for v in inner.results]
        read = {v for inner in loop_body(op) if inner is not yielded[counter].owner for v in inner.operands}
        live = [i for i in range(len(op.init)) if i != counter and (body.args[i] in read or op.res[i].first_use)]
        state = {i: self._exact(op.init[i]) for i in live}
        for step in range(trips):
            for v in inside:  # a cut in the body: one per step
                self.inputs.pop(v, None)
            self.inputs[body.args[counter]] = da.from_array(np.asarray(step, np.int64))
            self.inputs.update((body.args[i], state[i]) for i in live)
            state = {i: self._exact(yielded[i]) for i in live}
        self.inputs[op.res[counter]] = da.from_array(np.asarray(trips, np.int64))
        self.inputs.update((op.res[i], state[i]) for i in live)

    def _exact(self, value: SSAValue) -> Any:
        """``value`` as a Dask array chunked as the whole array is (no halo)."""
        owner = value.owner
        if not isinstance(owner, Operation) or (self.part.is_boundary(owner) and not self.part.is_cut(owner)):
            return self._input(value)[0]
        return self._blockwise(value, None)

    def _scan(self, op: graph.ScanOp) -> Any:
        """A scan along a chunked axis: Dask's ``cumreduction``, a kiln scan per chunk joined to
        the prefix of the chunks before it, chunk by chunk (no rechunk)."""
        import dask.array as da

        dtype = dtype_of(op.result)
        join, identity = _SCAN_JOINS[op.kind.data]
        scan = ChunkTask(op_kernel(self.part, self.fn, op, self.prefix, self.target, self.isa))
        return da.reductions.cumreduction(scan, join, identity(dtype), self._exact(op.operand),
                                          axis=op.axis.value.data, dtype=dtype)

    def _rechunked(self, op: Operation) -> Any:
        """An op that needs its whole axis (a sort, indexing with arrays): its operand rechunked
        whole along the chunked axes it works along, with a warning of what that moves; the
        result's blocks are cut back to the chunks of what they meet by the consumers'
        ``unify_chunks``. The indices of an indexing keep their chunks: each of their blocks
        meets the whole operand."""
        import dask.array as da

        operand, value = self._exact(op.operands[0]), op.results[0]
        index = self._index(op.operands[0])
        dims = [d for d, name in enumerate(index) if name in self.part.rechunks[op] and operand.numblocks[d] > 1]
        out_index, batch = index, ()
        if isinstance(op, graph.GatherOp):  # the indexed axes are not the result's: whole, apart from its chunks
            batch = self._index(op.indices[0])  # the indices share one shape, and the result's leading dimensions
            out_index = (*batch, *index[len(op.indices):])
            index = tuple(f"_w{next(self.fresh)}" if d < len(op.indices) else name for d, name in enumerate(index))
        if dims:
            _warn_rechunk(op, f"{construct_of(op)} along a chunked axis", operand, dims)
        args = [operand.rechunk({d: -1 for d in dims}), index]
        for v in op.operands[1:]:
            args += [self._exact(v), batch]
        kernel = ChunkTask(op_kernel(self.part, self.fn, op, self.prefix, self.target, self.isa))
        dtype = dtype_of(value)
        return da.blockwise(kernel, out_index, *args, dtype=dtype, concatenate=True,
                            meta=np.empty((0,) * len(out_index), dtype))

    def _dask_op(self, op: Operation) -> Any:
        """An op that Dask computes on the exact operand: a strided slice (each chunk keeps the
        elements of the slice's phase), a transpose, a reshape (Dask rechunks the operand when the
        axes it merges or splits are chunked: warned, as a sort's rechunk is)."""
        operand, result = self._exact(op.operands[0]), op.results[0]
        if isinstance(op, graph.SliceOp):
            index = []
            for start, stride, n in zip(op.start.get_values(), op.stride.get_values(), graph.shape_of(result)):
                stop = start + (n - 1) * stride + (1 if stride > 0 else -1)
                index.append(slice(start, stop if stop >= 0 else None, stride) if n else slice(0, 0))
            return operand[tuple(index)]
        if isinstance(op, graph.TransposeOp):
            return operand.transpose(tuple(op.perm.get_values()))
        assert isinstance(op, graph.ReshapeOp)
        return _reshaped(op, operand, graph.shape_of(result))

    def _dims_index(self, dims: Sequence[tuple[SSAValue, int]], skip: Sequence[int] = ()) -> tuple[str, ...]:
        """Dask's index of an array whose dimensions follow ``dims`` (a grid axis, or fresh: whole)."""
        axes = [self.part.axis(v, e) for v, e in dims]
        return tuple(a if a is not None and d not in skip else f"_w{next(self.fresh)}" for d, a in enumerate(axes))

    def output(self, value: SSAValue) -> Any:
        return self._exact(value)

    def _reduction(self, op: Operation) -> Any:
        """A cut (a reduction, a contracting product): each chunk's partial, then Dask's tree of combines."""
        import dask.array as da

        value = op.results[0] if isinstance(op, graph.MatmulOp) else op.operands[0]
        partials = self._blockwise(value, op)
        axes = combined_axes(op)
        dtype = dtype_of(value)
        combine = ChunkTask(combine_kernel(op, partials.ndim, dtype, self.prefix, self.target, self.isa))
        if isinstance(op, graph.ArgReduceOp):  # values and positions (see packed)
            dtype = partial_dtype(dtype)
        return da.reduction(partials, chunk=_identity, combine=combine, aggregate=combine, axis=axes, keepdims=True,
                            dtype=dtype, concatenate=True, meta=np.empty((0,) * partials.ndim, dtype))

    def _blockwise(self, value: SSAValue, partial: Operation | None) -> Any:
        """The kernel computing ``value`` (or, with ``partial``, the cut's partials) per chunk."""
        import dask.array as da
        from dask.array.core import ArrayBlockIdDep, unify_chunks

        plan = plan_kernel(self.part, self.fn, value, self.prefix, partial=partial, target=self.target, isa=self.isa)
        pairs: list[Any] = []
        for v in plan.inputs:
            pairs += list(self._input(v))
        common, unified = unify_chunks(*pairs)
        arrays = list(unified)
        indices = pairs[1::2]
        # Dask extends a periodic axis alike at both ends
        halo = {a: (max(d), max(d)) if a in self.part.periodic else d for a, d in plan.halo.items()}
        dims = partial_dims(partial) if partial is not None else [(value, d) for d in range(len(graph.shape_of(value)))]
        out_index = self._dims_index(dims)
        shape = tuple(graph.shape_of(v)[e] for v, e in dims)
        # blocks that lie wholly past a stencil result's end would give empty chunks (a max of
        # none): they join the block before them
        merged = {name: _without_empty_tail(common[name], shape[d]) for d, name in enumerate(out_index) if name in halo}
        for i, (array, index) in enumerate(zip(arrays, indices)):
            depth: dict[int, Any] = {d: halo[name] for d, name in enumerate(index) if name in halo}
            if depth:
                array = array.rechunk({d: merged[index[d]] for d in depth if index[d] in merged})
                boundary = {d: "periodic" if index[d] in self.part.periodic else "none" for d in depth}
                depth = {d: depth[d][0] if boundary[d] == "periodic" else depth[d] for d in depth}
                arrays[i] = da.overlap.overlap(array, depth=depth, boundary=boundary)
        adjust: dict[str, Any] = {}
        trims = []
        for d in plan.trimmed:
            ext = next(a.chunks[idx.index(out_index[d])] for a, idx in zip(arrays, indices) if out_index[d] in idx)
            table = _trims(ext, halo[out_index[d]], shape[d], out_index[d] in self.part.periodic)
            trims.append((d, table))
            adjust[out_index[d]] = tuple(k for _, k in table)
        for d in combined_axes(partial) if partial is not None else ():
            adjust[out_index[d]] = 1
        offsets = []
        for d in plan.offsets:  # each block's start in the whole value (its own part, when trimmed)
            sizes = dict(trims).get(d)
            lengths = [k for _, k in sizes] if sizes is not None else next(
                a.chunks[idx.index(out_index[d])] for a, idx in zip(arrays, indices) if out_index[d] in idx)
            offsets.append((d, tuple(int(x) for x in np.cumsum([0, *lengths[:-1]]))))
        new_axes = {name: shape[d] for d, name in enumerate(out_index) if name.startswith("_w")}
        args: list[Any] = [x for pair in zip(arrays, indices) for x in pair]
        if trims or offsets:
            numblocks = [self._numblocks(name, arrays, indices, new_axes) for name in out_index]
            args += [ArrayBlockIdDep(tuple((1,) * n for n in numblocks)), out_index]
        dtype = partial_dtype(dtype_of(value)) if isinstance(partial, graph.ArgReduceOp) else dtype_of(value)
        return da.blockwise(
            ChunkTask(plan.kernel, tuple(trims), tuple(offsets)), out_index, *args, dtype=dtype, concatenate=True,
            align_arrays=False, new_axes=new_axes, adjust_chunks=adjust or None,
            meta=np.empty((0,) * len(out_index), dtype),
        )

    @staticmethod
    def _numblocks(name: str, arrays: Sequence[Any], indices: Sequence[tuple[str, ...]], new_axes: dict[str, int]) -> int:
        if name in new_axes:
            return 1
        return next(a.numblocks[idx.index(name)] for a, idx in zip(arrays, indices) if name in idx)


def _without_empty_tail(chunks: Sequence[int], length: int) -> tuple[int, ...]:
    """``chunks`` of an axis, those starting at or past ``length`` (a stencil result's end) merged
    into the last one that starts before it."""
    kept: list[int] = []
    start = 0
    for n in chunks:
        if start >= length and kept:
            kept[-1] += n
        else:
            kept.append(n)
        start += n
    return tuple(kept)


def _trims(ext: Sequence[int], depth: tuple[int, int], length: int, periodic: bool) -> tuple[tuple[int, int], ...]:
    """Per block of an axis extended by ``depth`` (Dask's overlap: no padding at the array's ends,
    or, ``periodic``, the other end's elements): where the block's own part of the result starts
    in the extended block's result, and its length (a stencil's result is ``length`` long; the
    last block may give fewer elements)."""
    left, right = depth
    out = []
    start = 0
    for b, n in enumerate(ext):
        lo = left if b > 0 or periodic else 0
        core = n - lo - (right if b < len(ext) - 1 or periodic else 0)
        keep = max(0, min(start + core, length) - start)
        out.append((lo, keep))
        start += core
    return tuple(out)
