"""kiln-bufferize for ``scf.if`` and ``scf.while`` carrying tensors (and tokens).

Ownership rules (each buffer has one owner, so nothing leaks and nothing is freed
while still readable):

* ``scf.if``: every tensor result gets one buffer allocated *before* the ``if``
  (the caller's out-parameter when the result is returned), except a result both
  branches make by updating one value from before the ``if`` (``if c: x[i] = v``)
  that is dead after it, in a buffer the ``if``'s block may overwrite: the result
  then lives in that buffer, and each branch writes it in place. One result at most
  takes a given buffer: two results made from one value (the value updated, and the
  value itself, say) each keep their own, as a loop's carried values do. Each branch is
  bufferized as a block of its own and copies the value it yields into that
  buffer; the branch's temporaries are freed inside the branch. The ``if`` itself
  then yields no tensor of static shape.
* ``scf.while``: every carried tensor lives in one *carried buffer* for the whole
  loop, allocated before the loop (or the init value's own buffer when that is a
  temporary dead after the loop and not read inside it, or the out-parameter when
  the loop result is returned) and initialised by a copy of the init value. The
  ``before`` and ``after`` block arguments and the loop result are that buffer.
  ``scf.condition`` and ``scf.yield`` copy the values they pass into the carried
  buffers as one parallel assignment: a value that lives in some carried buffer
  (a swap, a view of the carried value) is first copied into a temporary. Every
  buffer allocated inside an iteration is freed in that iteration, right after its
  last use (at the latest, the copy into the carried buffer), so memory stays flat
  however many iterations run. The loop carries no tensor of static shape afterwards.
* A carried value or ``if`` result of *dynamic* shape (not returned) may change its size
  from one iteration or branch to the next (``z = z[1:]``, ``z = z[mask]``), so no buffer
  allocated before the op can hold it: the op carries a memref instead. Each region
  *hands over* the buffer its terminator passes: a whole buffer the region owns (a
  temporary of its block, or the carried buffer it received) is passed as it is and no
  longer freed there; any other value (a view, an outer array) is copied into a fresh
  buffer. A loop frees the carried buffer it received and did not pass on, after the
  copies; the op's result is a temporary of the enclosing block, freed after its last use.
* Nothing is written in place across a region boundary: a linalg op or
  ``insert_slice`` overwrites only a temporary allocated in its own block, or, in a
  loop body, the loop's carried buffer once no later op of the body reads the
  carried value (``x[i] = v`` in a loop is then a store, not a copy of ``x``).
* ``!graph.token`` results, arguments and carried values are dropped: at the
  buffer level, program order inside the regions is the order of effects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import memref, scf, tensor
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.passes.bufferize import builders as build

from kiln.passes.bufferize.buffers import Buffer, Root, RootKind

if TYPE_CHECKING:
    from kiln.passes.bufferize.func import FunctionBufferizer


def _dropped(t: Attribute) -> bool:
    """Tensor and token values leave scf ops; buffers and program order replace them."""
    return isinstance(t, (TensorType, graph.TokenType))


def assign(fb: FunctionBufferizer, pairs: list[tuple[SSAValue, Buffer]], carried: set[Root]) -> None:
    """Copy each value into its target buffer as if all at once (before the current op)."""
    staged: list[tuple[SSAValue, Buffer]] = []
    direct: list[tuple[SSAValue, Buffer]] = []
    for value, target in pairs:
        source = fb.buffers[value]
        if source.value is target.value:
            continue
        if source.root in carried:
            root = fb.temporary(build.alloc_like(source.value))
            fb.emit(build.copy(source.value, root.value))
            staged.append((root.value, target))
        else:
            direct.append((source.value, target))
    for source_value, target in direct + staged:
        fb.emit(build.copy(source_value, target.value))


def _replace_terminator(fb: FunctionBufferizer, term: Operation, new: Operation) -> None:
    new.location = term.location
    Rewriter.insert_op(new, InsertPoint.before(term))
    fb.erased.append(term)


def _install(fb: FunctionBufferizer, op: Operation, new: Operation, keep: list[int],
             handed: dict[int, Attribute]) -> None:
    """Put ``new`` (the op without tensor values of static shape) where ``op`` is; kept scalar
    results move over, handed-over buffers become temporaries of the enclosing block."""
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    order = fb.order_of(op)
    order.take_place(new, op)
    for j, i in enumerate(keep):
        if i in handed:
            block = op.parent_block()
            fb.bind(op.results[i], new.results[j], Root(RootKind.TEMPORARY, new.results[j], block=block))
            fb.temporaries.append(new.results[j])
        else:
            op.results[i].replace_all_uses_with(new.results[j])


def _result_buffer(fb: FunctionBufferizer, result: SSAValue) -> Buffer:
    if result in fb.dest:
        return fb.out_params[fb.dest[result]]
    assert isinstance(result.type, TensorType)
    if not result.type.has_static_shape():
        raise DiagnosticException(
            f"kiln-bufferize: scf.if result {result.type} of dynamic shape is not supported"
        )
    root = fb.temporary([build.alloc(build.memref_type_of(result.type), [])])
    return Buffer(root.value, root)


def _updated_origin(op: scf.IfOp, i: int) -> SSAValue | None:
    """The one value that both branches of ``op`` update into result ``i`` by chains of
    ``insert_slice``, destination-style ops writing their ``outs`` (``x[idx] = v`` is a
    ``kalgo.scatter`` into ``x``) and nested ``if``s of the same kind (``if a: (if b: x[i] = v)``),
    if there is one."""
    origins: set[SSAValue] = set()
    for region in op.regions:
        if not region.blocks:
            return None
        value = region.block.last_op.operands[i]  # type: ignore[union-attr]
        while isinstance(value, OpResult) and value.op.parent_block() is region.block:
            if isinstance(value.op, tensor.InsertSliceOp):
                value = value.op.dest
            elif isinstance(value.op, LinalgStructuredOperation) and len(value.op.outputs) == len(value.op.results):
                value = value.op.outputs[value.index]  # (a scatter into x, a generic writing outs(x))
            elif isinstance(value.op, scf.IfOp) and (inner := _updated_origin(value.op, value.index)) is not None:
                value = inner
            else:
                break
        origins.add(value)
    if len(origins) != 1:
        return None
    return origins.pop()


def _updated_in_place(fb: FunctionBufferizer, op: scf.IfOp, i: int, taken: set[Root]) -> Buffer | None:
    """The buffer of the value from before the ``if`` that both branches update into result ``i``
    (``if c: x[i] = v``), when the result may live in it: the value is dead after the ``if``,
    in a buffer the ``if``'s block may overwrite that no other result of the ``if`` has
    ``taken``. None otherwise (the result gets its own buffer)."""
    if op.output[i] in fb.dest:
        return None
    value = _updated_origin(op, i)
    if value is None:
        return None
    owner = value.owner
    inside = owner.parent_block() if isinstance(owner, Operation) else owner
    while inside is not None:
        if inside.parent_op() is op:
            return None  # defined in a branch
        parent = inside.parent_op()
        inside = parent.parent_block() if parent is not None else None
    if value not in fb.buffers or fb.buffers[value].root in taken or not fb.may_overwrite(value, op):
        return None  # (taken: a dead result's copy at a branch's end would overwrite the other's value)
    return fb.buffers[value]


def _dynamic(fb: FunctionBufferizer, result: SSAValue) -> bool:
    """A tensor result of dynamic shape the op hands over in a memref (see the module doc); a
    returned one lives in its out-parameter, whose size the caller fixed."""
    t = result.type
    return isinstance(t, TensorType) and not t.has_static_shape() and result not in fb.dest


def _owned_here(fb: FunctionBufferizer, buffer: Buffer, block: Block, owned_args: set[SSAValue]) -> bool:
    """Whether ``block`` owns the whole of ``buffer``: a temporary allocated in it, or a carried
    buffer it received (``owned_args``)."""
    if buffer.is_view:
        return False
    root = buffer.root
    if root.value in owned_args:
        return True
    return root.kind is RootKind.TEMPORARY and root.block is block and root.value in fb.temporaries


def hand_over(fb: FunctionBufferizer, block: Block, slots: dict[int, tuple[SSAValue, Attribute]],
              owned_args: set[SSAValue]) -> dict[int, SSAValue]:
    """The memref each dynamic slot passes at ``block``'s terminator (``fb.current``): its value's
    buffer when ``block`` owns it whole (no longer freed here; each buffer passed once), else
    a fresh copy. Copies come first, so that they may read any buffer; nothing is freed."""
    out: dict[int, SSAValue] = {}
    claimed: set[SSAValue] = set()
    for i, (value, memref_type) in slots.items():
        buffer = fb.buffers[value]
        if (_owned_here(fb, buffer, block, owned_args) and buffer.value.type == memref_type
                and buffer.root.value not in claimed):
            claimed.add(buffer.root.value)
            out[i] = buffer.value
    for i, (value, memref_type) in slots.items():
        if i in out:
            continue
        source = fb.buffers[value].value
        assert isinstance(memref_type, MemRefType)
        fresh = fb.emit_all(build.alloc_like(source, memref_type)).results[0]
        fb.emit(build.copy(source, fresh))
        out[i] = fresh
    for value in claimed:
        if value in fb.temporaries:
            fb.temporaries.remove(value)
    return out


def _free_unpassed(fb: FunctionBufferizer, owned_args: set[SSAValue], passed: dict[int, SSAValue]) -> None:
    """Free the carried buffers a region received and does not pass on (after its copies)."""
    kept = set(passed.values())
    for arg in sorted(owned_args, key=lambda a: a.index):  # type: ignore[attr-defined]  (block arguments: freed in their order, not a set's)
        if arg not in kept:
            fb.emit(memref.DeallocOp.get(arg))


def _retype_args(fb: FunctionBufferizer, block: Block, types: dict[int, Attribute]) -> set[SSAValue]:
    """Block arguments of dynamic slots become memrefs the block owns; returns them."""
    owned: set[SSAValue] = set()
    for i, memref_type in types.items():
        arg = Rewriter.replace_value_with_new_type(block.args[i], memref_type)
        fb.bind(arg, arg, Root(RootKind.TEMPORARY, arg, block=block))
        owned.add(arg)
    return owned


def bufferize_if(fb: FunctionBufferizer, op: scf.IfOp) -> None:
    targets: dict[int, Buffer] = {}
    handed: dict[int, Attribute] = {}  # dynamic results: index -> memref type
    taken: set[Root] = set()
    for i, result in enumerate(op.output):
        if isinstance(result.type, TensorType):
            shared = _updated_in_place(fb, op, i, taken)
            if shared is None and _dynamic(fb, result):
                handed[i] = build.memref_type_of(result.type)
                continue
            targets[i] = shared if shared is not None else _result_buffer(fb, result)
            fb.bind(result, targets[i].value, targets[i].root)
            if shared is not None:  # each branch writes the value's own buffer (it is dead after the if)
                taken.add(shared.root)
                fb.loop_bodies.setdefault(shared.root, set()).update(r.block for r in op.regions if r.blocks)
    keep = [i for i, r in enumerate(op.output) if not _dropped(r.type) or i in handed]
    roots = {t.root for t in targets.values()}
    for region in op.regions:
        if not region.blocks:
            continue
        block = region.block
        fb.convert_block(block)
        term = block.last_op
        assert isinstance(term, scf.YieldOp)
        fb.current = term
        passed = hand_over(fb, block, {i: (term.arguments[i], t) for i, t in handed.items()}, set())
        assign(fb, [(term.arguments[i], t) for i, t in targets.items()], roots)
        _replace_terminator(fb, term, scf.YieldOp(*[passed.get(i, term.arguments[i]) for i in keep]))
    fb.current = op
    types = [handed.get(i, op.output[i].type) for i in keep]
    new = scf.IfOp(op.cond, types, op.detach_region(0), op.detach_region(0))
    _install(fb, op, new, keep, handed)


def _reusable(fb: FunctionBufferizer, init: SSAValue, op: scf.WhileOp, taken: set[Root]) -> bool:
    """May the loop carry ``init`` in its own buffer: a temporary of this block, dead after
    the loop, read by nothing inside it, not carried twice?"""
    root = fb.buffers[init].root
    if root in taken or not fb.may_overwrite(init, op):
        return False
    return not any(
        use.operation is not op and op.is_ancestor(use.operation)
        for alias in root.aliases
        for use in alias.uses
    )


def _carried_buffer(fb: FunctionBufferizer, op: scf.WhileOp, i: int, taken: set[Root]) -> Buffer:
    init = op.arguments[i]
    source = fb.buffers[init]
    if op.res[i] in fb.dest:
        target = fb.out_params[fb.dest[op.res[i]]]
    elif _reusable(fb, init, op, taken):
        target = Buffer(source.value, source.root)
    else:
        root = fb.temporary(build.alloc_like(source.value))
        target = Buffer(root.value, root)
    if target.value is not source.value:
        fb.emit(build.copy(source.value, target.value))
    taken.add(target.root)
    return target


def _convert_region(fb: FunctionBufferizer, block: Block, carried: dict[int, Buffer],
                    handed: dict[int, Attribute], keep: list[int]) -> None:
    owned = _retype_args(fb, block, handed)
    fb.convert_block(block)
    term = block.last_op
    assert isinstance(term, (scf.ConditionOp, scf.YieldOp))
    fb.current = term
    values = list(term.arguments if isinstance(term, scf.YieldOp) else term.args)
    passed = hand_over(fb, block, {i: (values[i], t) for i, t in handed.items()}, owned)
    assign(fb, [(values[i], b) for i, b in carried.items()], {b.root for b in carried.values()})
    _free_unpassed(fb, owned, passed)
    kept = [passed.get(i, values[i]) for i in keep]
    new = scf.ConditionOp(term.condition, *kept) if isinstance(term, scf.ConditionOp) else scf.YieldOp(*kept)
    _replace_terminator(fb, term, new)
    fb.dead_args.append((block, [i for i in range(len(block.args)) if i not in keep]))


def _handed_init(fb: FunctionBufferizer, op: scf.WhileOp, i: int, memref_type: Attribute, taken: set[Root]) -> SSAValue:
    """The buffer a dynamic slot enters the loop in: the init value's own when it is a whole
    temporary the loop may take (see ``_reusable``), else a fresh copy. (Not :func:`hand_over`'s
    rule, which is for a terminator, after which nothing reads: an init used after the loop, by a
    second loop say, was handed over, freed by the first iteration and read after it: kiln.fuzz
    20660-9517.)"""
    init = op.arguments[i]
    source = fb.buffers[init]
    block = op.parent_block()
    assert block is not None
    if _owned_here(fb, source, block, set()) and source.value.type == memref_type and _reusable(fb, init, op, taken):
        taken.add(source.root)
        fb.temporaries.remove(source.value)
        return source.value
    assert isinstance(memref_type, MemRefType)
    fresh = fb.emit_all(build.alloc_like(source.value, memref_type)).results[0]
    fb.emit(build.copy(source.value, fresh))
    return fresh


def bufferize_while(fb: FunctionBufferizer, op: scf.WhileOp) -> None:
    before, after = op.before_region.block, op.after_region.block
    if [a.type for a in after.args] != [a.type for a in before.args]:
        raise DiagnosticException("kiln-bufferize: scf.while must forward the carried types unchanged")
    handed = {i: build.memref_type_of(r.type) for i, r in enumerate(op.res) if _dynamic(fb, r)}
    keep = [i for i, r in enumerate(op.res) if not _dropped(r.type) or i in handed]
    carried: dict[int, Buffer] = {}
    inits: dict[int, SSAValue] = {}
    taken: set[Root] = set()
    for i, init in enumerate(op.arguments):
        if i in handed:
            inits[i] = _handed_init(fb, op, i, handed[i], taken)
        elif isinstance(op.res[i].type, TensorType):
            carried[i] = _carried_buffer(fb, op, i, taken)
            for value in (before.args[i], after.args[i], op.res[i]):
                fb.bind(value, carried[i].value, carried[i].root)
            fb.loop_bodies.setdefault(carried[i].root, set()).add(after)
    _convert_region(fb, before, carried, handed, keep)
    _convert_region(fb, after, carried, handed, keep)
    fb.current = op
    new = scf.WhileOp(
        [inits.get(i, op.arguments[i]) for i in keep], [handed.get(i, op.res[i].type) for i in keep],
        op.detach_region(0), op.detach_region(0),
    )
    _install(fb, op, new, keep, handed)
