"""``kiln-elide-copies``: a copy that is only read reads its source; a result copied into its
destination is computed there.

A variable's update ``w.assign(w - lr * g)`` bufferizes to three passes over ``w``: a snapshot
of ``w`` (``graph.read``), the update into a new buffer, and that buffer copied into ``w``
(``graph.assign``). The forward pass's read of ``w`` is a snapshot too. For an MLP's 784x256
weights each pass moves 1.6 MB: more than the training step's arithmetic on it. Two rewrites
on identity copies (a ``linalg.generic`` of one input and one output, identity maps, yielding
its input):

1. **Snapshot read in place.** A copy into a fresh allocation of the same type that is then
   only read (as an input of ``linalg`` ops of the same block) is dropped, its readers reading
   the source, when nothing from the copy to the last reader writes the source (the
   ``kiln-fold-transposes`` conditions, passes/_buffer_facts.py). A free of the source there
   moves after the last reader.
2. **Result written in place.** A fresh allocation of the destination's type, written by one
   elementwise ``linalg.generic`` (parallel iterators, identity output map, the body not
   reading the output's old value) and then only copied into the destination, is replaced
   by the destination itself, when nothing between the two touches the destination's memory
   and the elementwise op reads it only at the element it writes (identity map): each
   element is read before it is overwritten, as in ``w -= lr * g``. The destination may be a
   view of all of an array (``C[:] = alpha * A @ B + beta * C``); the elementwise op then writes
   the array itself, and a GEMM before it takes it as its epilogue's output (no copy of C).
   When the op also reads the destination's memory elsewhere through views of static shape that
   hold at most a quarter of the destination's elements (broadcast rows and columns of it:
   Floyd-Warshall's ``path[:] = np.minimum(path, np.add.outer(path[:, k], path[k, :]))``), those
   views are copied first and the op reads the copies: two rows instead of the whole matrix.

Expects the buffer level (after ``kiln-bufferize``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from kiln.passes._buffer_facts import erase_buffer, read_instead, readers_of_copy, root
from kiln.passes._generic import is_identity_at, is_parallel
from kiln.passes._memory_touches import Touches
from kiln.passes.bufferize import builders as build


def _is_identity_copy(op: linalg.GenericOp, same_layout: bool = True) -> bool:
    """A copy of one memref into another of its shape (and layout, when ``same_layout``)."""
    if len(op.inputs) != 1 or len(op.outputs) != 1 or not is_parallel(op):
        return False
    src, dst = op.inputs[0].type, op.outputs[0].type
    if not (isinstance(src, MemRefType) and isinstance(dst, MemRefType)):
        return False
    if src != dst and (same_layout or src.get_shape() != dst.get_shape() or src.element_type != dst.element_type):
        return False
    if not (is_identity_at(op, 0) and is_identity_at(op, 1)):
        return False
    body = list(op.body.block.ops)
    return len(body) == 1 and isinstance(body[0], YieldOp) and body[0].operands[0] is op.body.block.args[0]


def _fresh(value: SSAValue) -> bool:
    return isinstance(value.owner, memref.AllocOp)


class ReadSnapshotInPlace(RewritePattern):
    """Rewrite 1 of the module docstring."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        if not _is_identity_copy(op):
            return
        src, dst = op.inputs[0], op.outputs[0]
        if not _fresh(dst):
            return
        readers = readers_of_copy(op, src, dst)
        if readers is not None:
            read_instead(op, dst, src, readers, rewriter)


def _single_writer(buffer: SSAValue, copy: Operation) -> linalg.GenericOp | None:
    """The elementwise op writing ``buffer`` whose result ``copy`` copies out, when ``buffer``
    has no other use than the two and its deallocs."""
    writer = None
    for use in buffer.uses:
        user = use.operation
        if user is copy or isinstance(user, memref.DeallocOp):
            continue
        if writer is not None or not isinstance(user, linalg.GenericOp):
            return None
        writer = user
    if writer is None or list(writer.outputs) != [buffer] or buffer in writer.inputs:
        return None
    if not is_parallel(writer) or not is_identity_at(writer, len(writer.inputs)):
        return None
    if writer.body.block.args[-1].uses:  # it reads the output's old (undefined) contents
        return None
    return writer


def _whole(value: SSAValue) -> SSAValue:
    """``value`` less any subviews that take all of their source (zero offsets, unit strides, the
    source's sizes): ``C[:] = f(C)`` reads ``C`` and writes ``C[:]``, the same elements."""
    while isinstance(sub := value.owner, memref.SubviewOp):
        source = sub.source.type
        if not (isinstance(source, MemRefType) and not (sub.offsets or sub.sizes or sub.strides)
                and all(o == 0 for o in sub.static_offsets.get_values())
                and all(t == 1 for t in sub.static_strides.get_values())
                and tuple(sub.static_sizes.get_values()) == tuple(source.get_shape())):
            break
        value = sub.source
    return value


def _defined_between(value: SSAValue, block: Block, touches: Touches, start: float, end: float) -> Operation | None:
    """The op of ``block`` strictly between positions ``start`` and ``end`` defining ``value``:
    a view the in-place result must now define before its writer."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.parent_block() is block:
        if start < touches.position[owner] < end:
            return owner
    return None


def _cheap_snapshots(values: list[SSAValue], dst: SSAValue) -> bool:
    """Copying ``values`` (static shapes) costs at most a quarter of a copy of ``dst``."""
    types = [v.type for v in (*values, dst)]
    if not all(isinstance(t, MemRefType) and t.has_static_shape() for t in types):
        return False
    counts = [t.element_count() for t in types if isinstance(t, MemRefType)]
    return 4 * sum(counts[:-1]) <= counts[-1]


def _read_a_snapshot(writer: linalg.GenericOp, index: int, rewriter: PatternRewriter) -> None:
    """Make ``writer`` read a copy of its input ``index`` taken just before it (freed just after)."""
    value = writer.inputs[index]
    *sizes, fresh = build.alloc_like(value)
    rewriter.insert([*sizes, fresh, build.copy(value, fresh.results[0])], InsertPoint.before(writer))
    rewriter.insert(memref.DeallocOp.get(fresh.results[0]), InsertPoint.after(writer))
    writer.operands[index] = fresh.results[0]


class WriteResultInPlace(RewritePattern):
    """Rewrite 2 of the module docstring."""

    def __init__(self) -> None:
        self._touches: dict[Block, Touches] = {}

    def _index(self, block: Block, *ops: Operation) -> Touches:
        """``block``'s index, built again when one of ``ops`` is newer than it (inserted ops take
        positions a half from their neighbour's; the ops asked about have whole ones)."""
        touches = self._touches.get(block)
        if touches is None or any(touches.position.get(op, 0.5) % 1 for op in ops):
            touches = self._touches[block] = Touches(block)
        return touches

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        if not _is_identity_copy(op, same_layout=False):
            return
        tmp, dst = op.inputs[0], op.outputs[0]
        if not _fresh(tmp):
            return
        writer = _single_writer(tmp, op)
        block = op.parent_block()
        if writer is None or writer.parent_block() is not block or block is None:
            return
        touches = self._index(block, writer, op)
        start, end = touches.position[writer], touches.position[op]
        if start > end:
            return
        dst_root = root(dst)
        if dst_root is None:
            return
        whole = _whole(dst)
        snapshots: list[int] = []  # inputs reading dst elsewhere than the element written: copied first
        for i, value in enumerate(writer.inputs):  # dst read only at the element written
            r = root(value) if isinstance(value.type, MemRefType) else value
            if r is None:
                return
            if r is dst_root and not (_whole(value) is whole and is_identity_at(writer, i)):
                snapshots.append(i)
        if snapshots and not _cheap_snapshots([writer.inputs[i] for i in snapshots], dst):
            return
        view = _defined_between(dst, block, touches, start, end)
        between = touches.touching(dst_root, start, end) + touches.touching(None, start, end)
        if any(view is None or p != touches.position[view] for p in between):
            return  # something else touches dst meanwhile (tmp's root is its own allocation)
        if view is not None:
            if any(_defined_between(v, block, touches, start - 0.5, end) for v in view.operands):  # the writer on
                return
            view.detach()
            block.insert_op_before(view, writer)
        if whole.type == tmp.type:  # the array itself, not a view of all of it: later passes see one buffer
            dst = whole
        for i in snapshots:
            _read_a_snapshot(writer, i, rewriter)
        writer.operands[len(writer.inputs)] = dst
        rewriter.erase(op)
        erase_buffer(tmp, rewriter)
        if view is not None and not view.results[0].uses:
            rewriter.erase(view)
        self._update(block, touches, writer, op, view)

    def _update(self, block: Block, touches: Touches, writer: Operation, copy: Operation,
                view: Operation | None) -> None:
        """Bring the index up to date after a rewrite: the copy gone, the view moved, the writer
        writing the destination, the snapshots around it new; the blocks holding ``block``
        (whose ops now touch other memory) are indexed again when next asked."""
        at = touches.position[writer]
        for gone in (copy, view, writer):
            if gone is not None:
                touches.remove(gone)
        touches.add(writer, at)
        before, after = writer.prev_op, writer.next_op
        while before is not None and before not in touches.position:
            touches.add(before, at - 0.5)
            before = before.prev_op
        while after is not None and after not in touches.position:
            touches.add(after, at + 0.5)
            after = after.next_op
        parent = block.parent_block()
        while parent is not None:
            self._touches.pop(parent, None)
            parent = parent.parent_block()


@dataclass(frozen=True)
class KilnElideCopies(ModulePass):
    """Drop identity copies of buffers where reading the source or writing the destination in
    place means the same (see the module docstring)."""

    name = "kiln-elide-copies"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ReadSnapshotInPlace(), apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(WriteResultInPlace(), apply_recursively=False).rewrite_module(op)
