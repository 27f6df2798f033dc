"""``promote-small-allocs``: small static temporaries move from the heap to the stack.

Expects: the buffer or loop level, where the bufferizer (or the fusion left
behind) pairs each temporary ``memref.alloc`` with a ``memref.dealloc``.
Produces: ``memref.alloca`` (a local aligned array in C) for every static
``memref.alloc`` of at most ``MAX_BYTES`` whose one use besides its readers and
writers is a ``memref.dealloc`` in the same block (so it cannot outlive the
block), the dealloc erased. A tiny function (an LSTM step: five 10x10..10x40
temporaries) then pays no ``aligned_alloc``/``free`` per call. At most
``FUNCTION_BYTES`` are promoted per function, in program order, to bound the
stack (OpenMP worker threads have small stacks too).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

#: the largest single buffer promoted
MAX_BYTES = 16 * 1024
#: the most promoted per function
FUNCTION_BYTES = 64 * 1024


def _bytes(ty: MemRefType) -> int:
    count = 1
    for d in ty.get_shape():
        count *= d
    return count * ty.get_element_type().bitwidth // 8  # type: ignore[attr-defined]


def _paired_dealloc(alloc: memref.AllocOp) -> memref.DeallocOp | None:
    """The one dealloc of ``alloc``'s buffer, when it sits in the alloc's own block."""
    deallocs = [u.operation for u in alloc.memref.uses if isinstance(u.operation, memref.DeallocOp)]
    if len(deallocs) != 1 or deallocs[0].parent_block() is not alloc.parent_block():
        return None
    return deallocs[0]  # type: ignore[return-value]


def _promote(function: func.FuncOp) -> None:
    budget = FUNCTION_BYTES
    for alloc in [o for o in function.walk() if isinstance(o, memref.AllocOp)]:
        ty = alloc.memref.type
        if alloc.dynamic_sizes or alloc.symbol_operands or not isinstance(ty, MemRefType):
            continue
        if not ty.has_static_shape() or not hasattr(ty.get_element_type(), "bitwidth"):
            continue
        size = _bytes(ty)
        dealloc = _paired_dealloc(alloc)
        if dealloc is None or size > MAX_BYTES or size > budget:
            continue
        budget -= size
        alloca = memref.AllocaOp.get(ty.get_element_type(), alignment=64, shape=ty.get_shape(), layout=ty.layout)
        alloca.location = alloc.location
        alloca.memref.name_hint = alloc.memref.name_hint
        Rewriter.replace_op(alloc, alloca)
        Rewriter.erase_op(dealloc)


@dataclass(frozen=True)
class PromoteSmallAllocs(ModulePass):
    """Turn small static alloc/dealloc pairs into stack allocations."""

    name = "promote-small-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            _promote(function)
