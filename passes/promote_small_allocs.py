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

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from kiln.dialects.ir_utils import enclosing

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


@dataclass
class PromoteAlloc(RewritePattern):
    """A small static alloc freed in its own block becomes an alloca, while its function's stack
    budget lasts (the walk meets allocs in program order, so the first ones are promoted)."""

    budgets: dict[func.FuncOp, int] = field(default_factory=dict[func.FuncOp, int])

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter) -> None:
        function = enclosing(op, func.FuncOp)
        ty = op.memref.type
        if function is None or op.dynamic_sizes or op.symbol_operands or not isinstance(ty, MemRefType):
            return
        if not ty.has_static_shape() or not hasattr(ty.get_element_type(), "bitwidth"):
            return
        size = _bytes(ty)
        budget = self.budgets.get(function, FUNCTION_BYTES)
        dealloc = _paired_dealloc(op)
        if dealloc is None or size > MAX_BYTES or size > budget:
            return
        self.budgets[function] = budget - size
        alloca = memref.AllocaOp.get(ty.get_element_type(), alignment=64, shape=ty.get_shape(), layout=ty.layout)
        alloca.location = op.location
        alloca.memref.name_hint = op.memref.name_hint
        rewriter.replace(op, alloca)
        rewriter.erase(dealloc)


@dataclass(frozen=True)
class PromoteSmallAllocs(ModulePass):
    """Turn small static alloc/dealloc pairs into stack allocations."""

    name = "promote-small-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(PromoteAlloc(), apply_recursively=False).rewrite_module(op)
