"""``kiln-outline-parts``: a large function is cut into functions that compile in parallel.

Expects: the loop level (memrefs, scf loops, vectors), as the C backend takes it.
Produces: in each ``func.func`` of more than ``min-ops`` ops, runs of consecutive ops of about
``chunk-ops`` ops (at any depth: an scf loop or ``if`` too big for one run is cut inside) moved into
new private functions ``@<name>_part<i>``, called where the run was. Each carries
``kiln.part`` (``PART_ATTR``): one of ``parts`` groups of about equal size. The C backend
compiles each group as a translation unit of its own, in parallel (backends/c/parts.py).

Why: gcc optimizes one function at a time, on one core, and its time grows faster than the
function: NPBench's channel_flow (one function of 2,900 ops) spent 1.0 s in gcc.

What crosses into an outlined function: a memref whose buffer is an argument of the function
or an allocation (passed as a pointer: distinct buffers, so the C ABI's ``restrict`` holds),
and integer, index and float scalars and 1-D float vectors (by value: a ``__m512d`` is passed
in a register). Constants and views (ops without memory effects or regions) are cloned in
instead, but not a vector computed from vectors (passed: walking a chain of vector ops back
would clone the work). What comes out: scalars and float vectors, as results; an allocation or
a pure op the rest of the function uses moves before the call. A run where anything else would
cross (a memref yielded by a loop, a vector mask) is left where it is. So a fused loop whose
body is one long chain of vector ops (the running ``x`` of a 10^5-op program) is cut into parts
that take and return the vector, not left one function of 170,000 lines of C.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, is_side_effect_free

from kiln.dialects.contracts import PART_ATTR


def _size(op: Operation) -> int:
    return sum(1 for _ in op.walk())


def _runs(block: Block, chunk: int) -> list[list[Operation]]:
    """Runs of consecutive ops of ``block`` of about ``chunk`` ops; an scf loop or ``if`` bigger
    than that is cut inside instead (other ops with regions, such as a kernel's epilogue, stay
    whole). A run ends only where no value of it that cannot cross a call (a memref a loop
    yields, a vector mask) is still to be used: cut there, neither side could be outlined, and a
    comprehension of 600 sums stayed one function of 36,000 lines of C. It ends preferably where
    no vector computed in it is still to be used either (a reduction's partial sums stay with
    their combination), but past ``2 * chunk`` ops it ends with vectors crossing (passed by value:
    a chain of vector ops has no other place to cut)."""
    runs: list[list[Operation]] = []
    run: list[Operation] = []
    size = 0
    live: dict[SSAValue, int] = {}  # values of the run that cannot cross or are vectors -> their uses to come

    def close() -> None:
        nonlocal run, size
        if size >= chunk // 4:  # a small leftover is not worth a call
            runs.append(run)
        run, size = [], 0
        live.clear()

    for op in block.ops:
        if op.has_trait(IsTerminator):
            break
        n = _size(op)
        if n > chunk and isinstance(op, scf.ForOp | scf.WhileOp | scf.IfOp):
            close()
            runs += [r for region in op.regions for b in region.blocks for r in _runs(b, chunk)]
            continue
        run.append(op)
        size += n
        derived = False  # from a value that cannot cross: cloning op in would not help
        for inner in op.walk():
            for value in inner.operands:
                if value in live:
                    derived = True
                    live[value] -= 1
                    if not live[value]:
                        del live[value]
        if derived or not _clonable(op) or _from_vectors(op):
            live.update(
                (r, r.uses.get_length())
                for r in op.results
                if r.uses and (not _crosses(r.type) or isinstance(r.type, VectorType))
            )
        if size >= chunk and (not live or size >= 2 * chunk and all(_crosses(v.type) for v in live)):
            close()
    close()
    return runs


def _is_scalar(ty: Attribute) -> bool:
    return isinstance(ty, IntegerType | IndexType | Float16Type | Float32Type | Float64Type)


def _by_value(ty: Attribute) -> bool:
    """Whether a value of type ``ty`` crosses a call by value: a scalar, or a 1-D vector of floats
    (the C backend's ``kiln_v<N>f32``/``kiln_v<N>f64``; not a mask)."""
    if isinstance(ty, VectorType):
        return ty.get_num_dims() == 1 and isinstance(ty.get_element_type(), Float32Type | Float64Type)
    return _is_scalar(ty)


def _crosses(ty: Attribute) -> bool:
    """Whether a value of type ``ty`` may cross into or out of an outlined function (a memref
    crosses as a pointer or is hoisted: :meth:`_Run.crossing` decides)."""
    return _by_value(ty) or isinstance(ty, MemRefType)


def _from_vectors(owner: Operation) -> bool:
    """Whether ``owner`` computes from vectors: its results are passed rather than cloned in."""
    return any(isinstance(v.type, VectorType) for v in owner.operands)


def _is_root(value: SSAValue, entry: Block) -> bool:
    """A buffer of its own with the identity layout: an argument of the function or an allocation."""
    ty = value.type
    if not isinstance(ty, MemRefType) or not isinstance(ty.layout, NoneAttr):
        return False
    if isinstance(value, BlockArgument):
        return value.block is entry
    return isinstance(value.owner, memref.AllocOp | memref.AllocaOp)


def _clonable(op: Operation) -> bool:
    return not op.regions and is_side_effect_free(op)


class _Run:
    """One run of ops and what crosses its border."""

    def __init__(self, fn: func.FuncOp, ops: list[Operation]) -> None:
        self.entry = fn.body.blocks[0]
        self.ops = ops
        #: the run's ops and all nested in them, in walk order (a set would make the output vary)
        self.inside: dict[Operation, None] = {nested: None for op in ops for nested in op.walk()}

    def defined_inside(self, value: SSAValue) -> bool:
        owner = value.owner
        return (owner.parent_op() if isinstance(owner, Block) else owner) in self.inside

    def hoist(self) -> None:
        """Move in front of the run the ops whose results the rest of the function uses, or such
        ops use, and that can run first: allocations and pure ops of values from before the run
        (but not of vectors: that is the work the run does)."""
        needed: set[Operation] = set()
        for op in reversed(self.ops):
            # not a vector computed from vectors: the chain of a fused loop's body would all move
            movable = isinstance(op, memref.AllocOp | memref.AllocaOp) or _clonable(op) and not _from_vectors(op)
            used_after = any(u.operation not in self.inside or u.operation in needed for r in op.results for u in r.uses)
            if movable and used_after:
                needed.add(op)
        kept: list[Operation] = []
        for op in self.ops:
            if op in needed and all(not self.defined_inside(v) for v in op.operands):
                for nested in op.walk():
                    del self.inside[nested]
                if kept:
                    op.detach()
                    block = kept[0].parent_block()
                    assert block is not None
                    block.insert_op_before(op, kept[0])
            else:
                kept.append(op)
        self.ops = kept

    def crossing(self, budget: int) -> tuple[list[SSAValue], list[SSAValue]] | None:
        """(the values passed in, the results given back), or None when anything else crosses.
        Values that are neither (constants, views) are cloned in from their definitions; a run
        that would clone more than ``budget`` of them is left where it is (outside a fused loop's
        body, the run before it is a chain of vector ops: walking it back from every run would make
        the pass quadratic, and cloning it would repeat the work)."""
        passed: list[SSAValue] = []
        seen: set[SSAValue] = set()
        pending = [v for op in self.inside for v in reversed(op.operands)]
        pending.reverse()
        while pending:
            value = pending.pop()
            if value in seen or self.defined_inside(value):
                continue
            seen.add(value)
            owner = value.owner
            computed = isinstance(owner, Operation) and _from_vectors(owner) and _by_value(value.type)
            if computed or _is_root(value, self.entry):
                passed.append(value)
            elif isinstance(owner, Operation) and _clonable(owner):
                budget -= 1
                if budget < 0:
                    return None
                pending += reversed(owner.operands)
            elif _by_value(value.type):
                passed.append(value)
            else:
                return None
        results = [r for op in self.ops for r in op.results if any(u.operation not in self.inside for u in r.uses)]
        if not all(_by_value(r.type) for r in results):
            return None
        return passed, results


def _outline(fn: func.FuncOp, ops: list[Operation], name: str, budget: int) -> func.FuncOp | None:
    """Replace ``ops`` by a call of a new function ``name`` (returned), if all that crosses can
    (cloning in at most ``budget`` pure ops)."""
    run = _Run(fn, ops)
    run.hoist()
    crossing = run.crossing(budget) if run.ops else None
    if crossing is None:
        return None
    passed, results = crossing
    if not results and all(_clonable(op) for op in run.ops):
        return None  # dead: pure ops whose users were outlined (and cloned them in), not worth a call
    body = Block(arg_types=[v.type for v in passed])
    inner: dict[SSAValue, SSAValue] = {}
    for value, arg in zip(passed, body.args, strict=True):
        arg.name_hint = value.name_hint or ("buf" if isinstance(value.type, MemRefType) else None)
        inner[value] = arg

    def inside(value: SSAValue) -> SSAValue:
        """``value`` in the new function: an argument, or a clone of its pure definition."""
        if value not in inner:
            owner = value.owner
            assert isinstance(owner, Operation)
            clone = owner.clone(clone_name_hints=True)
            for i, operand in enumerate(owner.operands):
                clone.operands[i] = inside(operand)
            body.add_op(clone)
            inner.update(zip(owner.results, clone.results, strict=True))
        return inner[value]

    for op in run.inside:
        for i, operand in enumerate(op.operands):
            if not run.defined_inside(operand):
                op.operands[i] = inside(operand)
    block = run.ops[0].parent_block()
    assert block is not None
    call = func.CallOp(name, passed, [r.type for r in results])
    block.insert_op_before(call, run.ops[0])
    for old, new in zip(results, call.res, strict=True):
        new.name_hint = old.name_hint
        for use in list(old.uses):
            if use.operation not in run.inside:
                use.operation.operands[use.index] = new
    for op in run.ops:
        op.detach()
        body.add_op(op)
    body.add_op(func.ReturnOp(*results))
    signature = FunctionType.from_lists([v.type for v in passed], [r.type for r in results])
    return func.FuncOp(name, signature, Region(body), visibility="private")


@dataclass(frozen=True)
class KilnOutlineParts(ModulePass):
    """Cut each function of more than ``min_ops`` ops into calls of ``parts`` groups of functions."""

    name = "kiln-outline-parts"

    min_ops: int = 1500
    chunk_ops: int = 200
    parts: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        taken = {o.sym_name.data for o in op.ops if isinstance(o, func.FuncOp)}
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]:
            if _size(fn) <= self.min_ops:
                continue
            loads = [0] * max(1, self.parts)
            outlined: list[func.FuncOp] = []
            # from the last run back: a run that cannot be cut alone (a vector value of the run
            # before it crosses) is tried again joined to the run before it
            pending: list[Operation] = []
            runs = _runs(fn.body.blocks[0], self.chunk_ops)
            for index in reversed(range(len(runs))):
                ops = runs[index]
                if pending and pending[0].parent_block() is ops[0].parent_block():
                    joined = _span(ops[0], pending[-1])
                    ops = joined if sum(_size(o) for o in joined) <= 4 * self.chunk_ops else ops
                name = f"{fn.sym_name.data}_part{index}"
                while name in taken:
                    name += "_"
                new = _outline(fn, ops, name, self.chunk_ops)
                if new is None:
                    pending = ops
                    continue
                pending = []
                taken.add(name)
                outlined.append(new)
            for new in sorted(outlined, key=_size, reverse=True):  # the biggest first, each to the least loaded group
                part = loads.index(min(loads))
                loads[part] += _size(new)
                new.attributes[PART_ATTR] = IntegerAttr(part, i64)
            for new in outlined:  # (found last first) in program order after the function
                op.body.block.insert_op_after(new, fn)


def _span(first: Operation, last: Operation) -> list[Operation]:
    """The ops of a block from ``first`` to ``last``."""
    ops = [first]
    while ops[-1] is not last:
        following = ops[-1].next_op
        assert following is not None
        ops.append(following)
    return ops
