"""``kiln-if-to-select``: a small ``scf.if`` in a ``while`` loop runs both branches, then selects.

``v = v // 2 if v % 2 == 0 else 3 * v + 1`` in a data-dependent loop (Collatz) is a branch
that mispredicts about half the time. gcc emits a branch for it even written as a C ternary
of two computed values, where LLVM (Numba) emits ``cmov``: Collatz steps for 1..10^5 took
17 ms as kiln's C against Numba's 11 ms, and ~11 ms if-converted.

Expects: the loop level, as the C backend takes it (the last passes of the ``loops`` stage).
Produces: each qualifying ``scf.if`` replaced by both branches' ops, one after the other,
then one ``arith.select`` per local the branches write (stored back into the local) and per
result of the if, each marked ``kiln.branchless`` (``BRANCHLESS_ATTR``: the C backend emits a
test and a conditional move, ``kiln_select_mask``). Inside a branch, a load of a local the
branch wrote reads the value it stored. When the condition is a load of a one-element local
stored once earlier in its block (bufferized ifs read their condition so), the selects take
the stored value, so that the C backend can test ``(x & c) == 0`` in place; the local goes
if nothing reads it any more.

Qualifying: the nearest enclosing loop is an ``scf.while`` (gcc if-converts and vectorizes
ifs in counted loops itself, sum_even's becomes a vector blend, and the inline ``cmov``
would stop it); both branches together hold at most ``MAX_OPS`` ops, each pure and unable to
trap: no division or remainder, no shift by a non-constant amount (undefined in C past the
width), no load or store but of one-element locals (``memref.alloca`` only loaded and
stored), no call, no print, no nested region; both branches store integers to the same
outer locals, each before reading it; the results are integers.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects.contracts import BRANCHLESS_ATTR
from kiln.dialects.ir_utils import constant_int

#: ops in the two branches together, beyond which a branch is cheaper than running both
MAX_OPS = 16

_PURE: tuple[type[Operation], ...] = (
    arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
    arith.CmpiOp, arith.SelectOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.IndexCastOp,
    arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp,
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.NegfOp, arith.CmpfOp,
)
_SHIFTS: tuple[type[Operation], ...] = (arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)


def _in_while(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.WhileOp):
            return True
        if isinstance(parent, scf.ForOp | scf.ParallelOp):
            return False
        parent = parent.parent_op()
    return False


def _constant_shift(op: Operation) -> bool:
    amount = constant_int(op.operands[1])
    width = op.results[0].type.width.data if isinstance(op.results[0].type, IntegerType) else 64
    return amount is not None and 0 <= amount < width


def _integer(value: SSAValue) -> bool:
    return isinstance(value.type, IntegerType | IndexType)


def _local(ref: SSAValue) -> bool:
    """A one-element ``memref.alloca`` only loaded and stored (its address never escapes):
    the C backend makes it a plain local, which may be read and written unconditionally."""
    alloca = ref.owner
    if not isinstance(alloca, memref.AllocaOp) or alloca.dynamic_sizes:
        return False
    assert isinstance(ref.type, MemRefType)
    count = 1
    for size in ref.type.get_shape():
        count *= size
    return count == 1 and all(
        isinstance(u.operation, memref.LoadOp) or (isinstance(u.operation, memref.StoreOp) and u.operation.value is not ref)
        for u in ref.uses
    )


def _branches(op: scf.IfOp) -> list[Block]:
    return [r.blocks[0] for r in (op.true_region, op.false_region) if r.blocks]


def _written_locals(op: scf.IfOp) -> list[SSAValue] | None:
    """The one-element locals defined outside ``op`` that its branches store to, when ``op``
    qualifies (module docstring); None otherwise."""
    if not _in_while(op):
        return None
    blocks = _branches(op)
    body = [o for b in blocks for o in b.ops if not isinstance(o, scf.YieldOp)]
    if len(body) > MAX_OPS:
        return None
    inner = {o.memref for o in body if isinstance(o, memref.AllocaOp)}
    stores = [[o.memref for o in b.ops if isinstance(o, memref.StoreOp) and o.memref not in inner] for b in blocks]
    written = list(dict.fromkeys(stores[0])) if stores else []
    if any(set(s) != set(written) for s in stores) or (written and len(blocks) < 2):
        return None
    for block in blocks:
        stored: set[SSAValue] = set()
        for o in block.ops:
            if isinstance(o, memref.AllocaOp):
                if o.memref.type.get_shape() != () or o.dynamic_sizes:  # type: ignore[attr-defined]
                    return None
            elif isinstance(o, memref.LoadOp | memref.StoreOp):
                ref = o.memref
                if ref in inner:
                    continue
                if not _local(ref):
                    return None
                if isinstance(o, memref.StoreOp):
                    if not _integer(o.value):
                        return None
                    stored.add(ref)
                elif ref in written and ref not in stored:  # the branch's value is not known yet
                    return None
            elif isinstance(o, _SHIFTS):
                if not _constant_shift(o):
                    return None
            elif not isinstance(o, (*_PURE, scf.YieldOp)):
                return None
    if not all(_integer(r) for r in op.results):
        return None
    return written


def _hoist(op: scf.IfOp, block: Block, written: list[SSAValue]) -> tuple[dict[SSAValue, memref.StoreOp], list[SSAValue]]:
    """Move ``block``'s ops before ``op``, its stores to ``written`` locals dropped and their
    loads forwarded; returns the last store to each written local, and what it yields."""
    last: dict[SSAValue, memref.StoreOp] = {}
    yielded: list[SSAValue] = []
    for o in list(block.ops):
        if isinstance(o, scf.YieldOp):
            yielded = list(o.arguments)
        elif isinstance(o, memref.StoreOp) and o.memref in written:
            o.detach()
            if o.memref in last:
                last[o.memref].erase()
            last[o.memref] = o
        elif isinstance(o, memref.LoadOp) and o.memref in written:
            o.res.replace_all_uses_with(last[o.memref].value)
            Rewriter.erase_op(o)
        else:
            o.detach()
            Rewriter.insert_op(o, InsertPoint.before(op))
    return last, yielded


def _stored_value(value: SSAValue) -> SSAValue:
    """What a load of a one-element local stored once, earlier in the load's block, reads;
    else ``value`` itself."""
    load = value.owner
    if not isinstance(load, memref.LoadOp) or not isinstance(load.memref.owner, memref.AllocaOp):
        return value
    stores = [u.operation for u in load.memref.uses if isinstance(u.operation, memref.StoreOp)]
    if len(stores) != 1 or stores[0].parent is not load.parent or stores[0].memref is not load.memref:
        return value
    if not stores[0].is_before_in_block(load):
        return value
    return stores[0].value


def _drop_if_unread(load: memref.LoadOp) -> None:
    """Erase a load nobody uses, and its local when only stores are left."""
    if load.res.uses:
        return
    ref = load.memref
    Rewriter.erase_op(load)
    alloca = ref.owner
    if isinstance(alloca, memref.AllocaOp) and all(isinstance(u.operation, memref.StoreOp) for u in ref.uses):
        for use in list(ref.uses):
            Rewriter.erase_op(use.operation)
        Rewriter.erase_op(alloca)


def _if_to_select(op: scf.IfOp, written: list[SSAValue]) -> None:
    """Replace a qualifying ``op`` by both branches and branchless selects."""
    cond = _stored_value(op.cond)
    branches = [_hoist(op, block, written) for block in _branches(op)]

    def select(then: SSAValue, other: SSAValue, hint: str | None) -> SSAValue:
        sel = arith.SelectOp(cond, then, other)
        sel.attributes[BRANCHLESS_ATTR] = UnitAttr()
        sel.result.name_hint = hint
        Rewriter.insert_op(sel, InsertPoint.before(op))
        return sel.result

    for ref in written:
        then, other = branches[0][0][ref], branches[1][0][ref]
        value = select(then.value, other.value, ref.name_hint)
        Rewriter.insert_op(memref.StoreOp.get(value, ref, list(then.indices)), InsertPoint.before(op))
        then.erase()
        other.erase()
    results = [
        select(then, other, result.name_hint)
        for then, other, result in zip(branches[0][1], branches[-1][1], op.results, strict=True)
    ]
    old_cond = op.cond.owner
    Rewriter.replace_op(op, [], results)
    if cond is not op.cond and isinstance(old_cond, memref.LoadOp):
        _drop_if_unread(old_cond)


@dataclass(frozen=True)
class KilnIfToSelect(ModulePass):
    """If-convert small pure ifs in while loops into straight-line code and branchless selects."""

    name = "kiln-if-to-select"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # decided on the IR as it comes (a qualifying if holds no other), then rewritten
        chosen = [(o, w) for o in op.walk() if isinstance(o, scf.IfOp) and (w := _written_locals(o)) is not None]
        for if_op, written in chosen:
            _if_to_select(if_op, written)
