"""If-conversion: a small ``scf.if`` in a ``while`` loop runs both branches, then selects.

``v = v // 2 if v % 2 == 0 else 3 * v + 1`` in a data-dependent loop (Collatz) is a branch
that mispredicts about half the time. gcc emits a branch for it even written as a C ternary
of two computed values, where LLVM (Numba) emits ``cmov``: Collatz steps for 1..10^5 took
17 ms as kiln's C against Numba's 11 ms. When both branches are a few pure integer or float
ops that cannot trap, on one-element locals only (what bufferized ifs over 0-d tensors
are), the emitter runs each branch on copies of the locals it writes and then sets each
local with ``kiln_select_mask`` (``test`` and ``cmov`` on x86-64, the ternary elsewhere): ~11 ms.
A condition ``(x & c) == 0`` or ``!= 0`` (``x % 2 == 0`` lowers to it) is tested in place,
as LLVM does, rather than first computed as a bool: two fewer instructions on the loop's
critical path.

Only ifs whose nearest enclosing loop is an ``scf.while`` are converted: gcc vectorizes
counted loops (``scf.for``) with ifs itself (sum_even: the if becomes a vector blend), and
the inline ``cmov`` would stop it. Nothing that can trap or has an effect is speculated:
no division or remainder, no shift by a non-constant amount (undefined in C past the
width), no load or store but of one-element locals, no call, no print, at most
``MAX_OPS`` ops in the two branches together.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Block, Operation, SSAValue

from kiln.backends.c.c_types import c_type
from kiln.dialects.ir_utils import constant_int

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter, MemrefDesc

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


def _written_locals(em: FunctionEmitter, op: scf.IfOp) -> list[SSAValue] | None:
    """The one-element locals defined outside ``op`` that its branches store to, when every
    op of both branches may run unconditionally, and both branches store every one of them
    before reading it (so each branch's copy needs no initial value); None otherwise."""
    blocks = [r.blocks[0] for r in (op.true_region, op.false_region) if r.blocks]
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
                desc = em.memrefs.get(ref)
                if desc is None or not desc.scalar:
                    return None
                if isinstance(o, memref.StoreOp):
                    if not _integer(o.value):
                        return None
                    stored.add(ref)
                elif ref in written and ref not in stored:  # the branch's copy has no value yet
                    return None
            elif isinstance(o, _SHIFTS):
                if not _constant_shift(o):
                    return None
            elif not isinstance(o, (*_PURE, scf.YieldOp)):
                return None
    if not all(_integer(r) for r in op.results):
        return None
    return written


def try_speculate(em: FunctionEmitter, op: scf.IfOp) -> bool:
    """Emit ``op`` as both branches then selects, when it qualifies (module docstring)."""
    if not _in_while(op):
        return False
    written = _written_locals(em, op)
    if written is None:
        return False
    test, mask, swap = _condition(em, op.cond)
    if test != f"(int64_t){em.expr(op.cond)}":  # tested in place: the bool may be unused now
        em.line(f"(void){em.expr(op.cond)};")
    select = em.use_helper("kiln_select_mask")
    originals = {ref: em.memref(ref) for ref in written}
    copies: list[dict[SSAValue, MemrefDesc]] = []
    yields: list[list[str]] = []
    for region in (op.true_region, op.false_region):
        copy = {}
        for ref, desc in originals.items():
            name = em.fresh(f"{desc.ptr}_{'then' if not copies else 'else'}")
            em.line(f"{desc.elem} {name};")
            copy[ref] = replace(desc, ptr=name)
        values = [em.fresh(r.name_hint, "v") for r in op.results]
        for value, result in zip(values, op.results, strict=True):
            em.line(f"{c_type(result.type)} {value};")
        em.open("{")
        for ref, desc in copy.items():
            em.bind_memref(ref, desc)
        block: Block | None = region.blocks[0] if region.blocks else None
        if block is not None:
            terminator = em.emit_ops(block)
            if isinstance(terminator, scf.YieldOp):
                for value, arg in zip(values, terminator.arguments, strict=True):
                    em.line(f"{value} = {em.expr(arg)};")
        em.close()
        copies.append(copy)
        yields.append(values)
    for ref, desc in originals.items():
        em.bind_memref(ref, desc)
        then, other = copies[0][ref].ptr, copies[1][ref].ptr
        if swap:
            then, other = other, then
        em.line(f"{desc.ptr} = ({desc.elem}){select}({test}, {mask}, {then}, {other});")
    for result, then, other in zip(op.results, *yields, strict=True):
        if swap:
            then, other = other, then
        em.define(result, f"({c_type(result.type)}){select}({test}, {mask}, {then}, {other})")
    return True


def _stored_value(value: SSAValue) -> SSAValue:
    """What a load of a one-element local stored once, earlier in the load's block, reads
    (bufferized ifs read their condition so); else ``value`` itself."""
    load = value.owner
    if not isinstance(load, memref.LoadOp) or not isinstance(load.memref.owner, memref.AllocaOp):
        return value
    stores = [u.operation for u in load.memref.uses if isinstance(u.operation, memref.StoreOp)]
    if len(stores) != 1 or stores[0].parent is not load.parent or stores[0].memref is not load.memref:
        return value
    block = load.parent
    assert block is not None
    if block.get_operation_index(stores[0]) > block.get_operation_index(load):
        return value
    return stores[0].value


def _condition(em: FunctionEmitter, cond: SSAValue) -> tuple[str, str, bool]:
    """(x, m, swap): ``cond`` is ``(x & m) != 0``, or ``== 0`` when swap."""
    owner = _stored_value(cond).owner
    if isinstance(owner, arith.CmpiOp) and owner.predicate.value.data in (0, 1):  # eq, ne
        lhs, rhs = owner.lhs, owner.rhs
        if constant_int(lhs) == 0:
            lhs, rhs = rhs, lhs
        if constant_int(rhs) == 0 and _integer(lhs):
            swap = owner.predicate.value.data == 0
            x = lhs
            and_op = x.owner
            if isinstance(and_op, arith.AndIOp):
                for value, mask in ((and_op.lhs, and_op.rhs), (and_op.rhs, and_op.lhs)):
                    c = constant_int(mask)
                    if c is not None and -(2**31) <= c < 2**31:
                        return f"(int64_t){em.expr(value)}", f"(int64_t){em.expr(mask)}", swap
            return f"(int64_t){em.expr(x)}", "-1", swap
    return f"(int64_t){em.expr(cond)}", "1", False
