"""``linalg-fuse-siblings``: reductions over the same tensor become one ``linalg.generic``.

Expects: the tensor level, after ``linalg-fuse-elementwise`` (each reduction has absorbed its
own elementwise producers).
Produces: two generics in one block that both reduce (a reduction iterator, the same iterator
types, tensor results, no library call) and read one value with the same map naming every
loop, so that their loops are the same, and whose results have one element type (the vector
loops are of one float width), become one generic with the outputs of both: one pass over the
data instead of two (a masked mean's sum and count, np.histogram's min and max). The
merged generic stands where the later one stood, so none of the earlier one's results may be
used before it; its body is the earlier body, then the later one, and one yield of all
results. Nothing is recomputed or reordered within a body: results are bit-identical.
``linalg-fuse-elementwise`` after it reads a value the merged generic reads twice once and
fuses a producer that both siblings read (the mask of a masked mean).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp, TensorType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.passes._generic import indexing_maps


def _names_every_loop(m: AffineMap) -> bool:
    return {e.position for e in m.results if isinstance(e, AffineDimExpr)} == set(range(m.num_dims))


def _reduces(op: GenericOp) -> bool:
    """A reduction on tensors (on buffers, merging could move a read past a write: none then)."""
    return (
        any(it.data == IteratorType.REDUCTION for it in op.iterator_types.data)
        and op.library_call is None
        and bool(op.results)
        and all(isinstance(r.type, TensorType) for r in op.results)
    )


def _same_loops(a: GenericOp, b: GenericOp) -> bool:
    """Both read one value with one map that names every loop (their loop ranges agree), and
    all their results have one element type (an f64 sum merged with an i64 count would keep
    the sum's loop from vectorizing)."""
    if a.iterator_types != b.iterator_types:
        return False
    if len({r.type.get_element_type() for r in (*a.results, *b.results) if isinstance(r.type, TensorType)}) != 1:
        return False
    a_maps, b_maps = indexing_maps(a), indexing_maps(b)
    return any(
        _names_every_loop(m) and any(w is v and b_maps[j] == m for j, w in enumerate(b.inputs))
        for v, m in zip(a.inputs, a_maps)
    )


def _unused_before(a: GenericOp, b: GenericOp) -> bool:
    """No op from ``a`` to ``b`` (``b`` included, nested ops too) uses ``a``'s results."""
    between: set[Operation] = set()
    op = a.next_op
    while op is not None and op is not b:
        between.add(op)
        op = op.next_op
    if op is None:
        return False
    between.add(b)
    block = a.parent_block()
    for result in a.results:
        for use in result.uses:
            user: Operation | None = use.operation
            while user is not None and user.parent_block() is not block:
                user = user.parent_op()
            if user in between:
                return False
    return True


def _merge(a: GenericOp, b: GenericOp) -> GenericOp:
    """One generic computing ``a`` and ``b``: inputs, outputs and body of ``a`` then of ``b``."""
    a_maps, b_maps = indexing_maps(a), indexing_maps(b)
    na, nb = len(a.inputs), len(b.inputs)
    a_args, b_args = a.body.block.args, b.body.block.args
    arg_order = [*a_args[:na], *b_args[:nb], *a_args[na:], *b_args[nb:]]
    block = Block(arg_types=[arg.type for arg in arg_order])
    mapping: dict[SSAValue, SSAValue] = dict(zip(arg_order, block.args))
    yielded: list[SSAValue] = []
    for source in (a, b):
        for op in source.body.block.ops:
            if isinstance(op, YieldOp):
                yielded += [mapping.get(v, v) for v in op.operands]
            else:
                block.add_op(op.clone(mapping))
    block.add_op(YieldOp(*yielded))
    maps = [*a_maps[:na], *b_maps[:nb], *a_maps[na:], *b_maps[nb:]]
    merged = GenericOp(
        [*a.inputs, *b.inputs],
        [*a.outputs, *b.outputs],
        Region(block),
        [AffineMapAttr(m) for m in maps],
        list(b.iterator_types.data),
        [*(r.type for r in a.results), *(r.type for r in b.results)],
    )
    merged.location = b.location
    return merged


def _merge_one(block: Block) -> bool:
    """Merge the first pair of siblings in ``block``; False when there is none."""
    reductions = [op for op in block.ops if isinstance(op, GenericOp) and _reduces(op)]
    for i, a in enumerate(reductions):
        for b in reductions[i + 1 :]:
            if _same_loops(a, b) and _unused_before(a, b):
                merged = _merge(a, b)
                Rewriter.insert_op(merged, InsertPoint.before(b))
                for old, new in zip([*a.results, *b.results], merged.results, strict=True):
                    old.replace_all_uses_with(new)
                Rewriter.erase_op(b)
                Rewriter.erase_op(a)
                return True
    return False


@dataclass(frozen=True)
class LinalgFuseSiblings(ModulePass):
    """Merge reductions that read the same tensor over the same loops (see module doc)."""

    name = "linalg-fuse-siblings"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = {g.parent_block() for g in op.walk() if isinstance(g, GenericOp) and _reduces(g)}
        for block in blocks:
            if block is not None:
                while _merge_one(block):
                    pass
