"""kiln-parallel-loops: lower linalg.generic ops with a parallel outermost loop, marking that loop.

Runs just before ``convert-linalg-to-loops`` in the ``loops`` stage, and lowers the same way
(xDSL's pattern), so the two give the same loop nests; only here the nest's outermost
``scf.for`` gets ``kiln.parallel = <elements per iteration>`` (the static sizes of the inner
loops, 1 for a dynamic one). Its iterations write disjoint output elements, so the C
backend runs it as an OpenMP ``parallel for`` when the whole loop is large enough
(backends/c/parallel_ops.py). Eligible: a ``linalg.generic`` on buffers whose first
iterator is parallel and whose every output map has ``d0`` as a plain result (so iteration
i writes only where the output's index is i). Reductions over d0 and named ops are left
to ``convert-linalg-to-loops``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.ir.affine import AffineDimExpr
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, op_type_rewrite_pattern
from xdsl.transforms.convert_linalg_to_loops import LowerLinalgStructuredOpPattern

from kiln.dialects.contracts import PARALLEL_ATTR


def _eligible(op: GenericOp) -> bool:
    if _inside_kernel(op):  # a kernel's epilogue already runs per row block, on its threads
        return False
    if op.res or not op.iterator_types.data or op.iterator_types.data[0].data != IteratorType.PARALLEL:
        return False
    maps = op.get_indexing_maps().data[len(op.inputs):]
    return all(any(isinstance(e, AffineDimExpr) and e.position == 0 for e in m.data.results) for m in maps)


def _inside_kernel(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.dialect_name() == "kernel":
            return True
        parent = parent.parent_op()
    return False


def _inner_elements(op: GenericOp) -> int:
    work = 1
    for source in op.get_loop_bound_sources()[1:]:
        work *= source.dim_size if source.dim_size >= 0 else 1
    return work


def _last_loop_before(block: Block, after: Operation | None) -> scf.ForOp | None:
    """The scf.for the lowering put just before ``after`` (the nest is the last op it inserts)."""
    op = after.prev_op if after is not None else block.last_op
    return op if isinstance(op, scf.ForOp) else None


class LowerParallelGeneric(LowerLinalgStructuredOpPattern):
    """xDSL's lowering of an eligible ``linalg.generic``, its outermost loop marked parallel."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if not _eligible(op):
            return
        work = _inner_elements(op)
        block, after = op.parent_block(), op.next_op
        assert block is not None
        super().match_and_rewrite(op, rewriter)
        outer = _last_loop_before(block, after)
        if outer is not None:
            outer.attributes[PARALLEL_ATTR] = IntegerAttr(work, IntegerType(64))


@dataclass(frozen=True)
class KilnParallelLoops(ModulePass):
    """Lower parallel-outermost linalg.generic ops to loops, marking the outermost one parallel."""

    name = "kiln-parallel-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LowerParallelGeneric(), apply_recursively=False).rewrite_module(op)
