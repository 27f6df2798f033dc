"""``linalg-fuse-shared``: an elementwise value several ops read is computed inside its first reader.

``linalg-fuse-elementwise`` inlines a producer into its readers only when it has one (or is cheap
to recompute); a shared one stays its own loop, and its first elementwise reader loads back every
element it just stored. NPBench's mandelbrot2 steps ``Z = Z*Z + C`` and then ``abs(Z) > 2`` over
the same points: two loops, the second re-reading 16 bytes an element from memory, though its
division and square root leave the memory system idle. Fused, one loop stores the new ``Z`` for
its other readers and compares it straight from registers.

A producer is fused into a reader when: the producer is parallel with one result whose output map
and the reader's map for it are identities (the reader's loop visits each element once, in the
producer's order), its body ignores its ``outs`` value, the reader is parallel and in the same
block, reads it through exactly one input and does not write into it, and every other use of it
comes after the reader. The fused generic has the reader's outputs, then the producer's; the
producer's ops come first in its body, cloned as they are (results bit-identical).

Expects: tensors, after ``linalg-fuse-elementwise`` (chains already single generics).
Guarantees: no such producer/reader pair remains.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp, TensorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.passes._generic import indexing_maps, is_identity_at, is_parallel


def _shared_producer(op: GenericOp) -> bool:
    """A parallel generic with one tensor result, identity output map, body ignoring its ``outs``."""
    if len(op.results) != 1 or len(op.outputs) != 1 or not is_parallel(op):
        return False
    if not isinstance(op.results[0].type, TensorType) or op.results[0].has_one_use():
        return False
    return is_identity_at(op, len(op.inputs)) and not op.body.block.args[-1].uses


def _first_reader(producer: GenericOp, position: dict[Operation, int]) -> tuple[GenericOp, int] | None:
    """The reader to fuse into, and the index of its input that reads the producer (``position``:
    each op of the producer's block by its place, so that finding the first reader does not walk
    the block)."""
    value, block = producer.results[0], producer.parent_block()
    assert block is not None
    users = [u.operation for u in value.uses]
    anchors = [block.find_ancestor_op_in_block(user) for user in users]
    if any(a is None for a in anchors):
        return None
    first = min(anchors, key=lambda a: position[a])  # type: ignore[index]
    if not isinstance(first, GenericOp) or not is_parallel(first):
        return None
    if any(a is first and u is not first for a, u in zip(anchors, users)):
        return None  # also read inside the reader's body
    reads = [i for i, v in enumerate(first.inputs) if v is value]
    if len(reads) != 1 or value in first.outputs:
        return None
    if not is_identity_at(first, reads[0]):
        return None  # (an identity map over the reader's loops: as many as the producer's)
    return first, reads[0]


def _fused(producer: GenericOp, reader: GenericOp, index: int) -> GenericOp:
    """``reader`` computing ``producer`` in its loop: inputs with the producer's spliced in at
    ``index``, outputs the reader's then the producer's. The reader's body block is reused (the
    producer's ops cloned in front of it), so a long chain costs each body once."""
    r_maps, p_maps = indexing_maps(reader), indexing_maps(producer)
    n_in = len(reader.inputs)
    inputs = [*reader.inputs[:index], *producer.inputs, *reader.inputs[index + 1 :]]
    maps = [*r_maps[:index], *p_maps[:-1], *r_maps[index + 1 : n_in], *r_maps[n_in:], r_maps[index]]
    block = reader.body.block
    read_arg, p_args = block.args[index], producer.body.block.args
    mapping: dict[SSAValue, SSAValue] = {a: block.insert_arg(a.type, index + i) for i, a in enumerate(p_args[:-1])}
    block.insert_arg(p_args[-1].type, len(block.args))
    front = block.first_op
    value: SSAValue | None = None
    for op in producer.body.block.ops:
        if isinstance(op, YieldOp):
            value = mapping.get(op.operands[0], op.operands[0])
            break
        block.insert_op_before(op.clone(mapping), front)  # type: ignore[arg-type]
    assert value is not None
    read_arg.replace_all_uses_with(value)
    block.erase_arg(read_arg)
    yield_op = block.last_op
    assert isinstance(yield_op, YieldOp)
    Rewriter.replace_op(yield_op, YieldOp(*yield_op.operands, value))
    fused = GenericOp(
        inputs,
        [*reader.outputs, *producer.outputs],
        reader.detach_region(reader.body),
        [AffineMapAttr(m) for m in maps],
        list(reader.iterator_types.data),
        [*(r.type for r in reader.results), producer.results[0].type],
        doc=reader.doc,
        library_call=reader.library_call,
    )
    fused.location = reader.location
    return fused


def _fuse_shared(producer: GenericOp, position: dict[Operation, int]) -> None:
    found = _first_reader(producer, position)
    if found is None:
        return
    reader, index = found
    fused = _fused(producer, reader, index)
    Rewriter.insert_op(fused, InsertPoint.before(reader))
    position[fused] = position[reader]
    for old, new in zip(reader.results, fused.results):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(reader)
    producer.results[0].replace_all_uses_with(fused.results[-1])
    Rewriter.erase_op(producer)


@dataclass(frozen=True)
class LinalgFuseShared(ModulePass):
    """Compute a shared elementwise value inside its first elementwise reader (see module doc)."""

    name = "linalg-fuse-shared"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        positions: dict[Block, dict[Operation, int]] = {}
        for producer in [g for g in op.walk() if isinstance(g, GenericOp)]:
            if producer.parent is not None and _shared_producer(producer):
                block = producer.parent_block()
                assert block is not None
                if block not in positions:
                    positions[block] = {o: i for i, o in enumerate(block.ops)}
                _fuse_shared(producer, positions[block])
