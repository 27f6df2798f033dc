"""What buffer-level passes ask about memory: which buffers an op writes, what memory a value
views, and whether a fresh buffer is only read after its copy. Shared by the copy-eliding
passes (``kiln-fold-transposes``, ``kiln-elide-copies``)."""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

#: ops that read buffers only
READERS = (memref.LoadOp, memref.DimOp, YieldOp)

#: ops whose result is a view of their first operand's memory
VIEWS = (memref.SubviewOp, memref.ReinterpretCastOp, memref.CollapseShapeOp, memref.ExpandShapeOp, memref.CastOp)


def written(op: Operation) -> list[SSAValue] | None:
    """The buffers ``op`` (with its regions) writes or frees; None when it cannot say. (A view
    writes nothing: a write through it is a write of its root.)"""
    out: list[SSAValue] = []
    for inner in op.walk():
        if isinstance(inner, (linalg.GenericOp, linalg.FillOp, linalg.MatmulOp)):
            out += list(inner.outputs)
        elif isinstance(inner, memref.StoreOp):
            out.append(inner.memref)
        elif isinstance(inner, memref.CopyOp):
            out.append(inner.destination)
        elif isinstance(inner, memref.DeallocOp):
            out.append(inner.memref)  # freeing it ends its contents too
        elif not isinstance(inner, (*READERS, *VIEWS)) and any(isinstance(v.type, MemRefType) for v in inner.operands):
            return None  # a call, a kernel...: it may write what it is given
    return out


def root(value: SSAValue) -> SSAValue | None:
    """The function argument or allocation whose memory ``value`` views; None if unknown.
    (Distinct function arguments do not overlap: an array passed twice is one argument.)"""
    while isinstance(value.owner, VIEWS):
        value = value.owner.operands[0]
    if isinstance(value.owner, (memref.AllocOp, memref.AllocaOp)) or not isinstance(value.owner, Operation):
        return value
    return None


def later_readers(buffer: SSAValue, producer: Operation) -> list[Operation] | None:
    """The ops reading ``buffer`` after ``producer`` (its only writer), when every use but the
    producer and deallocs is a ``linalg`` op of the same block that only reads it; else None."""
    block = producer.parent_block()
    assert block is not None
    readers: list[Operation] = []
    for use in buffer.uses:
        user = use.operation
        if user is producer or isinstance(user, memref.DeallocOp):
            continue
        if not (isinstance(user, (linalg.GenericOp, linalg.MatmulOp)) and user.parent_block() is block
                and buffer in user.inputs and buffer not in user.outputs
                and block.get_operation_index(user) > block.get_operation_index(producer)):
            return None
        readers.append(user)
    return readers


def source_kept_until(block: Block, start: Operation, last: Operation, source: SSAValue,
                      copy: SSAValue) -> list[memref.DeallocOp] | None:
    """Whether ``source`` keeps its contents from ``start`` (exclusive) to ``last`` (inclusive),
    so that its readers may read it in place of ``copy``: nothing there writes it or ``copy``
    (every buffer written views another argument or allocation). Returns the deallocs of
    ``source`` there (to be moved after ``last``), or None."""
    source_root = root(source)
    if source_root is None:
        return None
    freed: list[memref.DeallocOp] = []
    ops = list(block.ops)
    for between in ops[block.get_operation_index(start) + 1 : block.get_operation_index(last) + 1]:
        if isinstance(between, memref.DeallocOp) and root(between.memref) is source_root:
            freed.append(between)
            continue
        writes = written(between)
        if writes is None or any(root(w) in (None, source_root) or w is copy for w in writes):
            return None
    return freed


def readers_of_copy(copy: Operation, source: SSAValue, dst: SSAValue) -> list[Operation] | None:
    """The readers of ``dst``, the fresh copy of ``source`` that ``copy`` makes, when they may
    read ``source`` (or a view of it) instead: :func:`later_readers`, and
    :func:`source_kept_until` the last of them (the readers too: ``x[:] = x.T`` reads the copy
    while it writes ``x``). A free of ``source`` there moves after the last reader."""
    block = copy.parent_block()
    assert block is not None
    readers = later_readers(dst, copy)
    if not readers:
        return None
    last_reader = max(readers, key=block.get_operation_index)
    freed = source_kept_until(block, copy, last_reader, source, dst)
    if freed is None:
        return None
    for dealloc in freed:  # the source died after the copy: it must live to the last reader now
        dealloc.detach()
        block.insert_op_after(dealloc, last_reader)
    return readers


def read_instead(copy: Operation, dst: SSAValue, value: SSAValue, readers: list[Operation],
                 rewriter: PatternRewriter) -> None:
    """``readers`` read ``value`` instead of ``dst``; ``copy`` and ``dst`` (its deallocs, then
    its allocation) go."""
    for reader in readers:
        for i, v in enumerate(reader.operands):
            if v is dst:
                reader.operands[i] = value
    rewriter.erase(copy)
    erase_buffer(dst, rewriter)


def erase_buffer(buffer: SSAValue, rewriter: PatternRewriter) -> None:
    """Erase ``buffer``'s deallocs, then its allocation once unused."""
    for use in list(buffer.uses):
        if isinstance(use.operation, memref.DeallocOp):
            rewriter.erase(use.operation)
    if not buffer.uses:
        assert isinstance(buffer.owner, Operation)
        rewriter.erase(buffer.owner)
