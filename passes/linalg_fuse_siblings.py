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


def _loop_keys(op: GenericOp) -> set[tuple[object, ...]]:
    """What two siblings must share: the iterator types, the results' element type (an f64 sum
    merged with an i64 count would keep the sum's loop from vectorizing) and one value read
    with one map that names every loop (so that their loop ranges agree)."""
    elements = {r.type.get_element_type() for r in op.results if isinstance(r.type, TensorType)}
    if len(elements) != 1:
        return set()
    head = (op.iterator_types, *elements)
    return {(*head, v, m) for v, m in zip(op.inputs, indexing_maps(op)) if _names_every_loop(m)}


class _Group:
    """Siblings to merge, in block order, and the first position at which one's result is used."""

    def __init__(self, first: GenericOp, first_use: int) -> None:
        self.members = [first]
        self.first_use = first_use


def _first_use(op: GenericOp, block: Block, position: dict[Operation, int]) -> int:
    """The position in ``block`` of the first op (or op around a nested use) using ``op``'s results."""
    first = len(position)
    for result in op.results:
        for use in result.uses:
            user: Operation | None = use.operation
            while user is not None and user.parent_block() is not block:
                user = user.parent_op()
            if user is not None:
                first = min(first, position[user])
    return first


def _groups(block: Block) -> list[_Group]:
    """The reductions of ``block`` in groups of siblings, in one pass in block order: a
    reduction joins the earliest group it shares a read with whose results are all used only
    after it (the merged generic stands where the last member stood), else starts one."""
    position = {op: i for i, op in enumerate(block.ops)}
    groups: list[_Group] = []
    by_key: dict[tuple[object, ...], list[int]] = {}
    for op in block.ops:
        if not isinstance(op, GenericOp) or not _reduces(op):
            continue
        keys = _loop_keys(op)
        first_use = _first_use(op, block, position)
        candidates = sorted({g for key in keys for g in by_key.get(key, ())})
        joined = next((g for g in candidates if groups[g].first_use > position[op]), None)
        if joined is None:
            joined = len(groups)
            groups.append(_Group(op, first_use))
        else:
            groups[joined].members.append(op)
            groups[joined].first_use = min(groups[joined].first_use, first_use)
        for key in keys:
            if joined not in by_key.setdefault(key, []):
                by_key[key].append(joined)
    return groups


def _merge(members: list[GenericOp]) -> GenericOp:
    """One generic computing all ``members``: their inputs, outputs and bodies in order, one
    yield of all results. Their body ops are moved, not cloned: each is visited once."""
    ins = [len(m.inputs) for m in members]
    block = Block(arg_types=[a.type for m, n in zip(members, ins) for a in m.body.block.args[:n]]
                  + [a.type for m, n in zip(members, ins) for a in m.body.block.args[n:]])
    outer = [a for m, n in zip(members, ins) for a in m.body.block.args[:n]]
    outer += [a for m, n in zip(members, ins) for a in m.body.block.args[n:]]
    for old, new in zip(outer, block.args, strict=True):
        old.replace_all_uses_with(new)
    yielded: list[SSAValue] = []
    for member in members:
        for op in list(member.body.block.ops):
            op.detach()
            if isinstance(op, YieldOp):
                yielded += op.operands
                op.erase()
            else:
                block.add_op(op)
    block.add_op(YieldOp(*yielded))
    maps = [m for member, n in zip(members, ins) for m in indexing_maps(member)[:n]]
    maps += [m for member, n in zip(members, ins) for m in indexing_maps(member)[n:]]
    last = members[-1]
    merged = GenericOp(
        [v for m in members for v in m.inputs],
        [v for m in members for v in m.outputs],
        Region(block),
        [AffineMapAttr(m) for m in maps],
        list(last.iterator_types.data),
        [r.type for m in members for r in m.results],
    )
    merged.location = last.location
    return merged


def _merge_block(block: Block) -> None:
    """Merge each group of siblings of ``block`` into one generic, where its last member stood."""
    for group in _groups(block):
        if len(group.members) < 2:
            continue
        results = [r for m in group.members for r in m.results]
        merged = _merge(group.members)
        Rewriter.insert_op(merged, InsertPoint.before(group.members[-1]))
        for old, new in zip(results, merged.results, strict=True):
            old.replace_all_uses_with(new)
        for member in group.members:
            Rewriter.erase_op(member)


@dataclass(frozen=True)
class LinalgFuseSiblings(ModulePass):
    """Merge reductions that read the same tensor over the same loops (see module doc)."""

    name = "linalg-fuse-siblings"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = {g.parent_block() for g in op.walk() if isinstance(g, GenericOp) and _reduces(g)}
        for block in blocks:
            if block is not None:
                _merge_block(block)
