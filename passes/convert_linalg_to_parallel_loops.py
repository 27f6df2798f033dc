"""``convert-linalg-to-parallel-loops``: linalg on memrefs to ``scf.parallel`` loop nests.

Expects: the buffer level (``linalg.generic`` and ``linalg.fill`` on memrefs; run
``linalg-generalize-named-ops`` first for named ops).
Produces, per linalg op, one ``scf.parallel`` over the dimensions that index every
output (its points write disjoint elements, so they may run in any order), holding:

* nothing more when there are no other dimensions;
* for a single-output reduction whose body is ``op(acc, x)`` with an associative ``op``
  (see ``gpu/combiners.py``): ``%init = memref.load`` of the output, an inner
  ``scf.parallel`` over the reduction dimensions starting from ``op``'s identity and
  combining with ``scf.reduce``, then ``op(%init, %partial)`` stored back;
* otherwise a sequential ``scf.for`` nest over the remaining dimensions carrying the
  outputs' values.

Indices that are not plain loop indices (shifted concatenation maps) are ``affine.apply``
ops; run ``lower-affine`` afterwards. New ops carry the linalg op's location.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, memref, scf
from xdsl.dialects.builtin import AffineMapAttr, IndexType, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes.gpu.builder import IndexBuilder
from kiln.passes.gpu.combiners import identity


def _bounds(b: IndexBuilder, op: linalg.GenericOp, maps: Sequence[AffineMap]) -> list[SSAValue]:
    """Upper bound of every loop dimension, from an operand dimension indexed by it alone."""
    n = maps[0].num_dims if maps else 0
    found: dict[int, SSAValue] = {}
    for operand, amap in zip(op.operands, maps, strict=True):
        if not isinstance(operand.type, MemRefType):
            continue
        shape = operand.type.get_shape()
        for pos, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr) and expr.position not in found:
                if shape[pos] >= 0:
                    found[expr.position] = b.index(shape[pos])
                else:
                    found[expr.position] = b.value(memref.DimOp(operand, b.index(pos)))
    missing = [d for d in range(n) if d not in found]
    if missing:
        raise DiagnosticException(f"convert-linalg-to-parallel-loops: cannot infer the bound of loop d{missing[0]}")
    return [found[d] for d in range(n)]


def _indices(b: IndexBuilder, amap: AffineMap, ivs: dict[int, SSAValue]) -> list[SSAValue]:
    """The memref indices an indexing map gives at loop indices ``ivs`` (dimension -> index)."""
    out: list[SSAValue] = []
    for expr in amap.results:
        if isinstance(expr, AffineDimExpr):
            out.append(ivs[expr.position])
        else:
            dims = sorted(_dims_of(expr))
            single = AffineMap(len(dims), 0, (expr.replace_dims_and_symbols([AffineExpr.dimension(dims.index(d)) if d in dims else AffineExpr.constant(0) for d in range(amap.num_dims)], []),))
            out.append(b.value(affine.ApplyOp([ivs[d] for d in dims], AffineMapAttr(single))))
    return out


def _dims_of(expr: AffineExpr) -> set[int]:
    return {e.position for e in expr.dfs() if isinstance(e, AffineDimExpr)}


def _reduction_combiner(op: linalg.GenericOp) -> Operation | None:
    """The ``op`` of a single-output body ``yield op(acc, x)``, when associative and acc is used once."""
    if len(op.outputs) != 1:
        return None
    block = op.body.block
    acc = block.args[-1]
    yielded = block.last_op
    if not isinstance(yielded, linalg.YieldOp) or len(yielded.operands) != 1:
        return None
    combiner = yielded.operands[0].owner
    if not isinstance(combiner, Operation) or len(combiner.operands) != 2 or identity(combiner) is None:
        return None
    if acc not in combiner.operands or len(list(acc.uses)) != 1 or combiner.operands[0] is combiner.operands[1]:
        return None
    return combiner


class _GenericLowering:
    """Builds the loop nest of one ``linalg.generic``, before it."""

    def __init__(self, op: linalg.GenericOp) -> None:
        self.op = op
        self.maps = [m.data for m in op.indexing_maps.data]  # type: ignore[union-attr]
        self.b = IndexBuilder(op, op.location)
        n_in = len(op.inputs)
        self.in_maps, self.out_maps = self.maps[:n_in], self.maps[n_in:]

    def lower(self) -> None:
        op, b = self.op, self.b
        bounds = _bounds(b, op, self.maps)
        out_dims = [set().union(*(_dims_of(e) for e in m.results)) for m in self.out_maps]
        par = [d for d in range(len(bounds)) if all(d in s for s in out_dims)]
        rest = [d for d in range(len(bounds)) if d not in par]
        zero, one = b.index(0), b.index(1)
        body = Block(arg_types=[IndexType()] * max(len(par), 1))
        ivs: dict[int, SSAValue] = dict(zip(par, body.args, strict=False))
        inner = IndexBuilder(body, op.location)
        combiner = _reduction_combiner(op)
        reduction_only = all(str(op.iterator_types.data[d].data) == "reduction" for d in rest)
        if not rest:
            self._point(inner, ivs)
        elif combiner is not None and reduction_only:
            self._tree_reduction(inner, ivs, rest, bounds, combiner)
        else:
            self._sequential(inner, ivs, rest, bounds)
        inner.add(scf.ReduceOp())
        ubs = [bounds[d] for d in par] or [one]  # a 0-d iteration space is one point
        b.add(scf.ParallelOp([zero] * len(ubs), ubs, [one] * len(ubs), Region(body)))

    def _loads(self, b: IndexBuilder, ivs: dict[int, SSAValue], outs_too: bool) -> list[SSAValue]:
        values = []
        operands = list(self.op.inputs) + (list(self.op.outputs) if outs_too else [])
        for operand, amap in zip(operands, self.maps, strict=False):
            if isinstance(operand.type, MemRefType):
                values.append(b.value(memref.LoadOp.get(operand, _indices(b, amap, ivs))))
            else:
                values.append(operand)
        return values

    def _clone_body(self, b: IndexBuilder, args: Sequence[SSAValue], ivs: dict[int, SSAValue], stop: Operation | None = None) -> list[SSAValue]:
        """Clone the payload with block args bound to ``args``; returns the yielded values."""
        mapping: dict[SSAValue, SSAValue] = dict(zip(self.op.body.block.args, args, strict=True))
        for inner in self.op.body.block.ops:
            if isinstance(inner, linalg.YieldOp):
                return [mapping.get(v, v) for v in inner.operands]
            if inner is stop:
                return [mapping.get(v, v) for v in inner.operands]
            if isinstance(inner, linalg.IndexOp):
                mapping[inner.result] = ivs[inner.dim.value.data]
                continue
            clone = inner.clone(value_mapper=mapping)
            b.add(clone)
            for old, new in zip(inner.results, clone.results, strict=True):
                mapping[old] = new
        raise DiagnosticException("convert-linalg-to-parallel-loops: linalg body without linalg.yield")

    def _stores(self, b: IndexBuilder, values: Sequence[SSAValue], ivs: dict[int, SSAValue]) -> None:
        for value, out, amap in zip(values, self.op.outputs, self.out_maps, strict=True):
            b.add(memref.StoreOp.get(value, out, _indices(b, amap, ivs)))

    def _point(self, b: IndexBuilder, ivs: dict[int, SSAValue]) -> None:
        uses_outs = any(a.uses for a in self.op.body.block.args[len(self.op.inputs):])
        args = self._loads(b, ivs, outs_too=uses_outs)
        if not uses_outs:
            args += [a for a in self.op.outputs]  # placeholders: unused block args
        self._stores(b, self._clone_body(b, args, ivs), ivs)

    def _tree_reduction(
        self, b: IndexBuilder, ivs: dict[int, SSAValue], rest: list[int], bounds: list[SSAValue], combiner: Operation
    ) -> None:
        op = self.op
        out, out_map = op.outputs[0], self.out_maps[0]
        init = b.value(memref.LoadOp.get(out, _indices(b, out_map, ivs)))
        ident = identity(combiner)
        assert ident is not None
        start = b.value(ident)
        body = Block(arg_types=[IndexType()] * len(rest))
        all_ivs = {**ivs, **dict(zip(rest, body.args, strict=True))}
        rb = IndexBuilder(body, op.location)
        acc = op.body.block.args[-1]
        args = self._loads(rb, all_ivs, outs_too=False) + [acc]
        (x,) = [v for v in self._clone_body(rb, args, all_ivs, stop=combiner) if v is not acc]
        region = Block(arg_types=[x.type, x.type])
        cb = IndexBuilder(region, op.location)
        combined = cb.value(type(combiner)(region.args[0], region.args[1]))  # type: ignore[call-arg]
        cb.add(scf.ReduceReturnOp(combined))
        rb.add(scf.ReduceOp([x], [Region(region)]))
        zero, one = b.index(0), b.index(1)
        partial = b.value(
            scf.ParallelOp([zero] * len(rest), [bounds[d] for d in rest], [one] * len(rest), Region(body), [start])
        )
        final = b.value(type(combiner)(init, partial))  # type: ignore[call-arg]
        self._stores(b, [final], ivs)

    def _sequential(self, b: IndexBuilder, ivs: dict[int, SSAValue], rest: list[int], bounds: list[SSAValue]) -> None:
        op = self.op
        accs = [b.value(memref.LoadOp.get(o, _indices(b, m, ivs))) for o, m in zip(op.outputs, self.out_maps, strict=True)]
        results = self._nest(b, ivs, rest, bounds, accs)
        self._stores(b, results, ivs)

    def _nest(
        self, b: IndexBuilder, ivs: dict[int, SSAValue], rest: list[int], bounds: list[SSAValue], accs: list[SSAValue]
    ) -> list[SSAValue]:
        if not rest:
            return self._clone_body(b, self._loads(b, ivs, outs_too=False) + accs, ivs)
        body = Block(arg_types=[IndexType(), *(a.type for a in accs)])
        inner = IndexBuilder(body, self.op.location)
        results = self._nest(inner, {**ivs, rest[0]: body.args[0]}, rest[1:], bounds, list(body.args[1:]))
        inner.add(scf.YieldOp(*results))
        loop = b.add(scf.ForOp(b.index(0), bounds[rest[0]], b.index(1), accs, Region(body)))
        return list(loop.results)


def _lower_fill(op: linalg.FillOp) -> None:
    """Builds the ``scf.parallel`` of stores of one ``linalg.fill``, before it."""
    b = IndexBuilder(op, op.location)
    (value,), (out,) = op.inputs, op.outputs
    assert isinstance(out.type, MemRefType)
    shape = out.type.get_shape()
    bounds = [b.index(s) if s >= 0 else b.value(memref.DimOp(out, b.index(i))) for i, s in enumerate(shape)]
    body = Block(arg_types=[IndexType()] * max(len(shape), 1))
    inner = IndexBuilder(body, op.location)
    inner.add(memref.StoreOp.get(value, out, list(body.args)[: len(shape)]))
    inner.add(scf.ReduceOp())
    one = b.index(1)
    b.add(scf.ParallelOp([b.index(0)] * len(body.args), bounds or [one], [one] * len(body.args), Region(body)))


class LowerGeneric(RewritePattern):
    """A ``linalg.generic`` on buffers becomes its ``scf.parallel`` nest."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        if any(not isinstance(v.type, MemRefType) for v in op.outputs):
            raise DiagnosticException(
                "convert-linalg-to-parallel-loops requires buffer semantics (run kiln-bufferize first)"
            )
        _GenericLowering(op).lower()
        rewriter.erase(op)


class LowerFill(RewritePattern):
    """A ``linalg.fill`` becomes an ``scf.parallel`` of stores."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.FillOp, rewriter: PatternRewriter) -> None:
        _lower_fill(op)
        rewriter.erase(op)


class RefuseNamedOps(RewritePattern):
    """Named ops other than ``linalg.fill`` (tried after :class:`LowerFill`) are not lowered here."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.NamedOperation, rewriter: PatternRewriter) -> None:
        raise DiagnosticException(
            f"convert-linalg-to-parallel-loops: run linalg-generalize-named-ops before lowering {op.name}"
        )


@dataclass(frozen=True)
class ConvertLinalgToParallelLoopsPass(ModulePass):
    """Lower memref linalg ops to ``scf.parallel`` nests that a GPU mapping can take as kernels."""

    name = "convert-linalg-to-parallel-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([LowerGeneric(), LowerFill(), RefuseNamedOps()], dce_enabled=False)
        PatternRewriteWalker(patterns, apply_recursively=False).rewrite_module(op)
