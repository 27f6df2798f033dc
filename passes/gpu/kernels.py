"""Kernel bodies for ``kiln-gpu-outline``: how one ``scf.parallel`` nest runs on a GPU.

Two mappings, both written with upstream ``gpu`` index ops, ``scf`` and ``memref``:

* ``grid_stride``: every thread of a 1-D grid walks the flattened iteration space in a
  grid-stride loop (so any size runs with a bounded grid); inner ``scf.parallel``s
  (reductions included) run sequentially in the thread that owns the point.
* ``block_tree``: for a reduction nest (an outer point holding one inner reduction
  ``scf.parallel``), each block owns outer points (grid-stride over blocks); its threads
  stride over the reduction space into per-thread partials, combine them in a shared-memory
  tree (``BLOCK``/2, /4, ... with barriers), and thread 0 does the final combine with the
  output's initial value.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue

from kiln.dialects.contracts import SHARED_SPACE
from kiln.passes.gpu.builder import IndexBuilder

#: threads per block of the tree reduction (a power of two)
TREE_BLOCK = 256
#: shared (workgroup) memory space of kernel-local buffers, as in MLIR's NVVM lowering


def _gpu_index(b: IndexBuilder, op_type: type[Operation]) -> SSAValue:
    return b.value(op_type(gpu.DimensionAttr(gpu.DimensionEnum.X)))  # type: ignore[call-arg]


def clone_ops(b: IndexBuilder, ops: Sequence[Operation], mapping: dict[SSAValue, SSAValue]) -> None:
    """Clone ``ops`` in order, extending ``mapping`` with their results."""
    for op in ops:
        clone = op.clone(value_mapper=mapping)
        b.add(clone)
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new


def _body_ops(loop: scf.ParallelOp) -> list[Operation]:
    return [op for op in loop.body.block.ops if not isinstance(op, scf.ReduceOp)]


def _space(b: IndexBuilder, loop: scf.ParallelOp, mapping: dict[SSAValue, SSAValue]) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue], SSAValue]:
    """Mapped lower bounds, steps, trip counts and total trip count of a loop nest."""
    lbs = [mapping.get(v, v) for v in loop.lowerBound]
    ubs = [mapping.get(v, v) for v in loop.upperBound]
    steps = [mapping.get(v, v) for v in loop.step]
    counts = [b.trip_count(lb, ub, st) for lb, ub, st in zip(lbs, ubs, steps, strict=True)]
    return lbs, steps, counts, b.product(counts)


def _combine(b: IndexBuilder, reduce: scf.ReduceOp, index: int, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """Inline the ``index``-th region of an ``scf.reduce`` on (lhs, rhs)."""
    region = reduce.reductions[index].block
    mapping: dict[SSAValue, SSAValue] = {region.args[0]: lhs, region.args[1]: rhs}
    ret = region.last_op
    assert isinstance(ret, scf.ReduceReturnOp)
    clone_ops(b, [op for op in region.ops if op is not ret], mapping)
    return mapping.get(ret.result, ret.result)


def _terminator(loop: scf.ParallelOp) -> scf.ReduceOp:
    term = loop.body.block.last_op
    assert isinstance(term, scf.ReduceOp)
    return term


def sequentialize(b: IndexBuilder, loop: scf.ParallelOp, mapping: dict[SSAValue, SSAValue]) -> None:
    """Clone ``loop`` as a sequential ``scf.for`` nest carrying its reductions' accumulators."""
    accs = [mapping.get(v, v) for v in loop.initVals]
    lbs = [mapping.get(v, v) for v in loop.lowerBound]
    ubs = [mapping.get(v, v) for v in loop.upperBound]
    steps = [mapping.get(v, v) for v in loop.step]
    results = _nest(b, loop, list(zip(lbs, ubs, steps, strict=True)), 0, accs, mapping)
    for old, new in zip(loop.results, results, strict=True):
        mapping[old] = new


def _nest(
    b: IndexBuilder,
    loop: scf.ParallelOp,
    bounds: list[tuple[SSAValue, SSAValue, SSAValue]],
    dim: int,
    accs: list[SSAValue],
    mapping: dict[SSAValue, SSAValue],
) -> list[SSAValue]:
    if dim == len(bounds):
        clone_body(b, _body_ops(loop), mapping)
        reduce = _terminator(loop)
        return [_combine(b, reduce, i, acc, mapping.get(v, v)) for i, (acc, v) in enumerate(zip(accs, reduce.args, strict=True))]
    body = Block(arg_types=[IndexType(), *(a.type for a in accs)])
    mapping[loop.body.block.args[dim]] = body.args[0]
    inner = IndexBuilder(body, b.location)
    results = _nest(inner, loop, bounds, dim + 1, list(body.args[1:]), mapping)
    inner.add(scf.YieldOp(*results))
    lb, ub, step = bounds[dim]
    return list(b.add(scf.ForOp(lb, ub, step, accs, Region(body))).results)


def clone_body(b: IndexBuilder, ops: Sequence[Operation], mapping: dict[SSAValue, SSAValue]) -> None:
    """Clone ops of a kernel body; nested ``scf.parallel``s become sequential loops."""
    for op in ops:
        if isinstance(op, scf.ParallelOp):
            sequentialize(b, op, mapping)
        else:
            clone_ops(b, [op], mapping)


def _thread_ids(b: IndexBuilder) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    return (
        _gpu_index(b, gpu.ThreadIdOp),
        _gpu_index(b, gpu.BlockIdOp),
        _gpu_index(b, gpu.BlockDimOp),
        _gpu_index(b, gpu.GridDimOp),
    )


def grid_stride(b: IndexBuilder, loop: scf.ParallelOp, mapping: dict[SSAValue, SSAValue]) -> None:
    """Body of a grid-stride kernel for ``loop``."""
    lbs, steps, counts, total = _space(b, loop, mapping)
    tid, bid, bdim, gdim = _thread_ids(b)
    start = b.add_(b.mul(bid, bdim), tid)
    stride = b.mul(gdim, bdim)
    body = Block(arg_types=[IndexType()])
    inner = IndexBuilder(body, b.location)
    ivs = inner.delinearize(body.args[0], lbs, steps, counts)
    mapping.update(zip(loop.body.block.args, ivs, strict=True))
    clone_body(inner, _body_ops(loop), mapping)
    inner.add(scf.YieldOp())
    b.add(scf.ForOp(start, total, stride, [], Region(body)))


def tree_parts(loop: scf.ParallelOp) -> tuple[list[Operation], scf.ParallelOp, list[Operation]] | None:
    """(ops before, the inner reduction, ops after) when ``loop`` is a one-result reduction nest."""
    ops = _body_ops(loop)
    inner = [i for i, op in enumerate(ops) if isinstance(op, scf.ParallelOp)]
    if len(inner) != 1:
        return None
    red = ops[inner[0]]
    assert isinstance(red, scf.ParallelOp)
    before, after = ops[: inner[0]], ops[inner[0] + 1 :]
    if len(red.results) != 1 or any(isinstance(op, memref.StoreOp) or op.regions for op in before):
        return None
    if any(isinstance(op, scf.ParallelOp) for op in red.walk() if op is not red):
        return None
    return before, red, after


def block_tree(b: IndexBuilder, loop: scf.ParallelOp, mapping: dict[SSAValue, SSAValue]) -> None:
    """Body of a block-per-output tree-reduction kernel for ``loop`` (see ``tree_parts``)."""
    parts = tree_parts(loop)
    assert parts is not None
    before, red, after = parts
    elem = red.results[0].type
    shared = b.value(memref.AllocaOp.get(elem, shape=[TREE_BLOCK], memory_space=SHARED_SPACE))
    lbs, steps, counts, total = _space(b, loop, mapping)
    tid, bid, bdim, gdim = _thread_ids(b)
    outer = Block(arg_types=[IndexType()])
    ob = IndexBuilder(outer, b.location)
    mapping.update(zip(loop.body.block.args, ob.delinearize(outer.args[0], lbs, steps, counts), strict=True))
    clone_ops(ob, before, mapping)
    rlbs, rsteps, rcounts, rtotal = _space(ob, red, mapping)
    part = Block(arg_types=[IndexType(), elem])
    pb = IndexBuilder(part, b.location)
    mapping.update(zip(red.body.block.args, pb.delinearize(part.args[0], rlbs, rsteps, rcounts), strict=True))
    clone_body(pb, _body_ops(red), mapping)
    reduce = _terminator(red)
    pb.add(scf.YieldOp(_combine(pb, reduce, 0, part.args[1], mapping.get(reduce.args[0], reduce.args[0]))))
    init = mapping.get(red.initVals[0], red.initVals[0])
    partial = ob.value(scf.ForOp(tid, rtotal, bdim, [init], Region(part)))
    ob.add(memref.StoreOp.get(partial, shared, [tid]))
    ob.add(gpu.BarrierOp())
    _tree(ob, reduce, shared, tid)
    is_first = ob.value(arith.CmpiOp(tid, ob.index(0), "eq"))
    then = Block()
    tb = IndexBuilder(then, b.location)
    mapping[red.results[0]] = tb.value(memref.LoadOp.get(shared, [tb.index(0)]))
    clone_body(tb, after, mapping)
    tb.add(scf.YieldOp())
    ob.add(scf.IfOp(is_first, [], Region(then), Region(Block([scf.YieldOp()]))))
    ob.add(gpu.BarrierOp())  # the next outer point reuses the shared buffer
    ob.add(scf.YieldOp())
    b.add(scf.ForOp(bid, total, gdim, [], Region(outer)))


def _tree(b: IndexBuilder, reduce: scf.ReduceOp, shared: SSAValue, tid: SSAValue) -> None:
    """Halve the active threads each step: shared[t] = combine(shared[t], shared[t + s])."""
    body = Block(arg_types=[IndexType()])
    lb = IndexBuilder(body, b.location)
    s = lb.value(arith.ShRUIOp(lb.index(TREE_BLOCK // 2), body.args[0]))
    active = lb.value(arith.CmpiOp(tid, s, "ult"))
    then = Block()
    tb = IndexBuilder(then, b.location)
    mine = tb.value(memref.LoadOp.get(shared, [tid]))
    other = tb.value(memref.LoadOp.get(shared, [tb.add_(tid, s)]))
    tb.add(memref.StoreOp.get(_combine(tb, reduce, 0, mine, other), shared, [tid]))
    tb.add(scf.YieldOp())
    lb.add(scf.IfOp(active, [], Region(then), Region(Block([scf.YieldOp()]))))
    lb.add(gpu.BarrierOp())
    lb.add(scf.YieldOp())
    steps = TREE_BLOCK.bit_length() - 1
    b.add(scf.ForOp(b.index(0), b.index(steps), b.index(1), [], Region(body)))

