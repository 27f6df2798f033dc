"""``linalg-fuse-elementwise``: producer/consumer fusion of ``linalg.generic`` on tensors.

Expects: the tensor level (after ``convert-graph-to-linalg``), one generic per op.
Produces: fewer generics. A *parallel* producer (all iterators parallel, one
result, a permutation output map, a body that ignores its ``outs`` value) is
inlined into each generic that reads it through ``ins``; the producer's input
maps are composed with the consumer's map (broadcasts, transposes, constant
indices all compose), so ``relu(2*x+1)*sigmoid(x) - x/3`` becomes one generic
with one input. A producer is fused:

* into a parallel consumer when it has one use, or when it is *cheap*
  (at most two arithmetic ops, nothing transcendental or dividing) and reads no
  other generic's result: such a producer with several uses is duplicated into
  each, any other producer with several uses stays (so compile time stays
  linear in the program: a chain of shared values is never copied per path);
* into a consumer with reduction iterators only when that consumer reads each
  producer element once (its map is a permutation of its loops, constants
  allowed), so a reduction absorbs its elementwise producer and matmul keeps
  its plain operands for the matmul kernel;
* never when the fused generic would read more than ``MAX_INPUTS`` inputs (a
  chain that gathers an input per link stays linear to fuse).

Before each fusion step a consumer's inputs are cleaned: the same (value, map)
read twice becomes one input (a producer read twice the same way is then a
single use, fused once), a splat ``arith.constant`` tensor becomes a scalar
``arith.constant`` in the body, unread inputs are dropped; loops must stay
bounded by some operand. Float math is cloned op for op: nothing is
reassociated, so results are bit-identical. Cloned ops keep their locations;
the fused generic takes the consumer's. Dead producers are erased.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from kiln.passes._generic import indexing_maps, is_parallel, reorder_args, set_inputs

#: ops a *cheap* producer may contain (besides constants and the yield)
_CHEAP_OPS = frozenset(
    "arith.addf arith.subf arith.mulf arith.negf arith.maximumf arith.minimumf arith.addi "
    "arith.subi arith.muli arith.select arith.cmpf arith.cmpi arith.extf arith.truncf "
    "arith.sitofp arith.uitofp arith.extsi arith.extui arith.trunci arith.andi arith.ori "
    "arith.xori".split()
)
_MAX_CHEAP_OPS = 2
#: the most inputs a fused generic reads: each fusion step and each round's input clean-up costs
#: time in the consumer's inputs, so a chain gathering a new input per link (the and-ed path flags
#: of a function of thousands of staged ``if``s) fused into one generic was quadratic; and a loop
#: streaming more arrays than this gains nothing from reading them in one pass
MAX_INPUTS = 32


def _is_cheap(op: GenericOp) -> bool:
    """Worth recomputing per use: a copy/broadcast or one or two simple arithmetic ops."""
    work = [o for o in op.body.block.ops if not isinstance(o, (arith.ConstantOp, YieldOp))]
    return len(work) <= _MAX_CHEAP_OPS and all(o.name in _CHEAP_OPS for o in work)


def _reads_once(m: AffineMap) -> bool:
    """Each loop point reads a distinct element: every loop dim appears, only dims/constants."""
    dims = [e.position for e in m.results if isinstance(e, AffineDimExpr)]
    plain = all(isinstance(e, (AffineDimExpr, AffineConstantExpr)) for e in m.results)
    return plain and sorted(dims) == list(range(m.num_dims))


def _loops_covered(maps: list[AffineMap], num_loops: int) -> bool:
    """Every loop's bound can still be read off some operand's shape."""
    seen = {e.position for m in maps for e in m.results if isinstance(e, AffineDimExpr)}
    return seen >= set(range(num_loops))


def _fusible_producer(value: SSAValue) -> GenericOp | None:
    """The generic defining ``value`` if it may be inlined into its readers at all."""
    producer = value.owner
    if not isinstance(producer, GenericOp) or len(producer.results) != 1 or len(producer.outputs) != 1:
        return None
    if not is_parallel(producer) or not isinstance(value.type, TensorType):
        return None
    out_map = indexing_maps(producer)[-1]
    if out_map.num_dims != len(out_map.results) or out_map.inverse_permutation() is None:
        return None
    if not all(isinstance(e, AffineDimExpr) for e in out_map.results):
        return None
    out_arg = producer.body.block.args[-1]
    return None if out_arg.uses else producer


def _only_read_by_generics(value: SSAValue) -> bool:
    return all(isinstance(u.operation, GenericOp) and u.index < len(u.operation.inputs) for u in value.uses)


def _duplicable(producer: GenericOp) -> bool:
    """A cheap producer whose inputs no generic computes: copying it into each reader costs a few
    ops once. A cheap producer of a generic's result is not copied: each copy would pull in its own
    producers, and a chain of shared cheap values (an unrolled loop body) would grow exponentially."""
    return _is_cheap(producer) and not any(isinstance(v.owner, GenericOp) for v in producer.inputs)


def _should_fuse(producer: GenericOp, consumer: GenericOp, index: int) -> bool:
    if len(consumer.inputs) - 1 + len(producer.inputs) > MAX_INPUTS:
        return False
    value = producer.results[0]
    read_map = indexing_maps(consumer)[index]
    if not is_parallel(consumer):
        return _reads_once(read_map) and (value.has_one_use() or _duplicable(producer))
    single = value.has_one_use() and _only_read_by_generics(value)
    return (single and (_reads_once(read_map) or _is_cheap(producer))) or _duplicable(producer)


def _fuse(producer: GenericOp, consumer: GenericOp, index: int) -> bool:
    """Inline ``producer`` into ``consumer`` for input ``index``, in place; False (nothing changed)
    when the fused generic would leave a loop unbounded.

    Its inputs become the consumer's with the producer's in place of input ``index``, each (value,
    map) read once, where it is first read. The consumer's body block is kept, not cloned: the
    producer's body is cloned in front of it, and a read the consumer already makes keeps its
    argument (moved into place), so fusing a chain into its last generic costs the size of each
    producer once, not the growing fused body, nor the uses of a value every step reads."""
    c_maps, p_maps = indexing_maps(consumer), indexing_maps(producer)
    to_producer_loops = p_maps[-1].inverse_permutation()
    assert to_producer_loops is not None
    read = to_producer_loops.compose(c_maps[index])
    c_reads = list(zip(consumer.inputs, c_maps))
    n_in = len(c_reads)
    p_reads = [(v, m.compose(read)) for v, m in zip(producer.inputs, p_maps)]
    reads = list(dict.fromkeys(c_reads[:index] + p_reads + c_reads[index + 1 :]))
    maps = [m for _, m in reads] + c_maps[n_in:]
    if not _loops_covered(maps, consumer.get_num_loops()):
        return False
    block = consumer.body.block
    c_args, outs = block.args[:n_in], block.args[n_in:]
    args: dict[_Read, BlockArgument] = {}
    for i, (key, arg) in enumerate(zip(c_reads, c_args)):
        if i != index:
            args.setdefault(key, arg)
    for key, arg in zip(p_reads, producer.body.block.args):
        if key not in args:
            args[key] = block.insert_arg(arg.type, 0)
    mapping: dict[SSAValue, SSAValue] = {a: args[key] for key, a in zip(p_reads, producer.body.block.args)}
    c_args[index].replace_all_uses_with(_clone_body(producer.body.block, block, mapping))
    kept = [args[key] for key in reads]
    kept_set = set(kept)
    dropped = [a for a in c_args if a not in kept_set]
    for i, (key, arg) in enumerate(zip(c_reads, c_args)):
        if arg not in kept_set and i != index:
            arg.replace_all_uses_with(args[key])  # the consumer's own second read of a value
    reorder_args(block, [*kept, *dropped, *outs])
    for arg in dropped:
        block.erase_arg(arg)
    set_inputs(consumer, [v for v, _ in reads], maps)
    return True


_Read = tuple[SSAValue, AffineMap]


def _clone_body(source: Block, dest: Block, mapping: dict[SSAValue, SSAValue]) -> SSAValue:
    """Clone ``source``'s ops but its yield to the front of ``dest``; returns the yielded value."""
    front = dest.first_op
    for op in source.ops:
        if isinstance(op, YieldOp):
            return mapping.get(op.operands[0], op.operands[0])
        clone = op.clone(mapping)
        if front is None:
            dest.add_op(clone)
        else:
            dest.insert_op_before(clone, front)
    raise AssertionError("generic body without linalg.yield")


def _splat_constant(value: SSAValue) -> arith.ConstantOp | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr):
        values = owner.value.get_values()
        if values and all(v == values[0] for v in values):
            return owner
    return None


def _first_element(dense: DenseIntOrFPElementsAttr) -> FloatAttr | IntegerAttr:
    """The first element as an attribute (``get_attrs()`` would make one for every element)."""
    element = dense.get_element_type()
    first = dense.get_values()[0]
    if isinstance(element, AnyFloat):
        return _float_attr(float(first).hex(), element)  # (hex: -0.0 and 0.0 are two keys)
    return _integer_attr(int(first), element)


# One attribute per value (attributes are immutable: a chain folds the same few splats at every
# step), keyed by the value, not by the splat, which may hold a table's worth of bytes.
@functools.lru_cache(maxsize=1024)
def _float_attr(bits: str, element: AnyFloat) -> FloatAttr:
    return FloatAttr(float.fromhex(bits), element)


@functools.lru_cache(maxsize=1024)
def _integer_attr(value: int, element: Attribute) -> IntegerAttr:
    return IntegerAttr(value, element)


def _scalar_constant(value: FloatAttr | IntegerAttr) -> arith.ConstantOp:
    """``arith.ConstantOp(value)``, built without xDSL's generic op builder (93 us per op: most of
    folding a splat into a fused body)."""
    return arith.ConstantOp.create(result_types=[value.type], properties={"value": value})


def _clean_inputs(op: GenericOp) -> None:
    """Merge duplicate inputs, fold splat constants into the body, drop unread inputs (in place)."""
    maps = indexing_maps(op)
    op_inputs = list(op.inputs)
    n_in = len(op_inputs)
    block = op.body.block
    keep: list[int] = []
    seen: dict[tuple[SSAValue, AffineMap], int] = {}
    changed = False
    for i, (value, arg) in enumerate(zip(op_inputs, block.args)):
        key = (value, maps[i])
        const = _splat_constant(value)
        if key in seen:
            arg.replace_all_uses_with(block.args[seen[key]])
        elif const is not None and arg.uses:
            assert isinstance(const.value, DenseIntOrFPElementsAttr)
            scalar = _scalar_constant(_first_element(const.value))
            scalar.location = const.location
            block.insert_op_before(scalar, block.first_op)  # type: ignore[arg-type]
            arg.replace_all_uses_with(scalar.result)
        elif arg.uses:
            seen[key] = i
            keep.append(i)
            continue
        changed = True
    kept_maps = [maps[i] for i in keep] + maps[n_in:]
    if not changed or not _loops_covered(kept_maps, op.get_num_loops()):
        return
    inputs = [op_inputs[i] for i in keep]
    kept = set(keep)
    for arg in [a for i, a in enumerate(block.args[:n_in]) if i not in kept]:
        block.erase_arg(arg)
    set_inputs(op, inputs, kept_maps)


def _erase_if_dead(op: Operation) -> None:
    if not any(r.uses for r in op.results):
        Rewriter.erase_op(op)


def _fuse_into(consumer: GenericOp) -> None:
    """Inline producers into ``consumer`` until none qualifies."""
    progress = True
    while progress:
        progress = False
        _clean_inputs(consumer)  # a producer read twice the same way is then read once
        for index, value in enumerate(consumer.inputs):
            producer = _fusible_producer(value)
            if producer is None or not _should_fuse(producer, consumer, index):
                continue
            if _fuse(producer, consumer, index):
                _erase_if_dead(producer)
                progress = True
                break


@dataclass(frozen=True)
class LinalgFuseElementwise(ModulePass):
    """Fuse elementwise ``linalg.generic`` producers into their consumers (see module doc)."""

    name = "linalg-fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # last consumer first: it absorbs its producer chain before they are visited
        for consumer in reversed([g for g in op.walk() if isinstance(g, GenericOp)]):
            if consumer.parent is not None:
                _fuse_into(consumer)
        for g in reversed([g for g in op.walk() if isinstance(g, GenericOp)]):
            if g.results and all(isinstance(r.type, TensorType) for r in g.results):
                _erase_if_dead(g)
