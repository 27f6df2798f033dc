"""kiln-vectorize: strip-mine innermost contiguous loops onto the ``vector`` dialect.

For each loop that ``_vector_plan.analyze`` accepts, with W lanes (the ISA's register width,
or ``width`` bits, over the loop's float width)::

    scf.for %i = lb to ub step 1 { body }
  becomes
    scf.for %i = lb to lb + (n/(W*K))*(W*K) step W*K { K copies of the body on vector<W x T> }
    scf.for %i = ... to lb + (n/W)*W step W { one vector copy }        (when K > 1)
    scf.for %i = lb + (n/W)*W to ub step 1 { body }                     (scalar tail, unchanged)
  or, with a masked tail (``tail=masked``, or ``auto`` on an ISA with masked loads/stores):
    scf.for %i = lb + (n/W)*W to ub step W { one vector copy under vector.create_mask(ub - %i) }

The masked tail runs at most once (it covers the last ``n % W`` elements): loads become
``vector.maskedload`` (masked-off lanes read nothing and are 0.0), stores
``vector.maskedstore``, and a reduction combines ``kvec.select(mask, value, identity)``.
When lb and ub are constants and W divides n there is no tail at all.

K = ``accumulators`` when the loop reduces (K independent vector accumulators hide the
add latency, then combine pairwise and fold with ``vector.reduction``), ``unroll`` when its
body calls exp, log, tanh, sin, cos, atan or atan2 (their long dependency chains leave an out-of-order core idle
with one register in flight), else 1. The K copies are interleaved op by op, so each step
of the body is K independent instructions side by side (and the C emitter tests the K
exps' inputs for its fast path at once). This
**reassociates** float reductions (sum, product, max, min): results differ from a
sequential sum by rounding only, as NumPy's pairwise sums do. Elementwise ops keep exact
IEEE semantics lane by lane: no mul+add contraction (only ``math.fma`` becomes
``vector.fma``); exp/log/tanh use kiln's vector polynomials (docs/vector-math.md).
"""

from __future__ import annotations

import functools
import math as pymath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math, memref, scf, vector
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, ModuleOp, VectorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects.target import capabilities
from kiln.dialects import kvec
from kiln.dialects.contracts import PARALLEL_ATTR
from kiln.dialects.ir_utils import constant_int
from kiln.passes._vector_plan import Plan, Reduction, analyze, is_innermost

_IDENTITY: dict[str, float] = {"add": 0.0, "mul": 1.0, "maximumf": -pymath.inf, "minimumf": pymath.inf}


@functools.cache
def _vector_type(element: Attribute, lanes: int) -> VectorType:
    """``vector<lanes x element>``, built once: building (and verifying) one per op was two
    thirds of the pass on a long fused chain."""
    return VectorType(element, [lanes])


@dataclass(frozen=True)
class KilnVectorize(ModulePass):
    """Vectorize innermost unit-stride loops for an ISA (default: ``$KILN_ISA``, else the host's)."""

    name = "kiln-vectorize"

    isa: str = ""
    #: vector width in bits; 0 means one register of the ISA
    width: int = 0
    #: independent vector accumulators per reduction
    accumulators: int = 8
    #: "auto" (masked where the ISA table has masked loads/stores: AVX2, AVX-512), "masked", "scalar"
    tail: str = "auto"
    #: copies of an elementwise body that calls exp, log, tanh or a trig function
    unroll: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        isa = capabilities(self.isa or None, op)
        bits = self.width or isa.native_bytes * 8
        if self.tail not in ("auto", "masked", "scalar"):
            raise ValueError(f"kiln-vectorize: tail must be auto, masked or scalar, not {self.tail!r}")
        masked = self.tail == "masked" or (self.tail == "auto" and isa.masked_memory)
        loops = [loop for loop in op.walk() if isinstance(loop, scf.ForOp) and is_innermost(loop)]
        for loop in loops:
            plan = analyze(loop)
            if plan is not None:
                lanes = bits // plan.elem.bitwidth  # type: ignore[attr-defined]
                if lanes > 1:
                    k = self.accumulators if plan.reductions else self.unroll if _transcendental(loop) else 1
                    _Rewrite(loop, plan, lanes, max(1, k), masked).run()


_TRANSCENDENTAL = (math.ExpOp, math.LogOp, math.TanhOp, math.SinOp, math.CosOp, math.AtanOp, math.Atan2Op)


def _transcendental(loop: scf.ForOp) -> bool:
    return any(isinstance(op, _TRANSCENDENTAL) for op in loop.body.block.ops)


def _trip_count(loop: scf.ForOp) -> int | None:
    """The trip count of a step-1 loop with constant bounds, else None."""
    lb, ub = constant_int(loop.lb), constant_int(loop.ub)
    return None if lb is None or ub is None else max(0, ub - lb)


class _Rewrite:
    """Builds the vector loops before ``loop`` and turns ``loop`` into the scalar tail."""

    def __init__(self, loop: scf.ForOp, plan: Plan, lanes: int, k: int, masked: bool = False) -> None:
        self.loop, self.plan, self.lanes, self.k, self.masked = loop, plan, lanes, k, masked
        self.vty = VectorType(plan.elem, [lanes])
        self.before: list[Operation] = []
        self.splats: dict[SSAValue, SSAValue] = {}

    def emit(self, op: Operation) -> SSAValue:
        self.before.append(op)
        return op.results[0]

    def index(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def run(self) -> None:
        loop, lanes, k = self.loop, self.lanes, self.k
        n = self.emit(arith.SubiOp(loop.ub, loop.lb))
        n = self.emit(arith.MaxSIOp(n, self.index(0)))
        ub_main = self.bound(n, lanes * k)
        self.identities = [self.emit(vector.BroadcastOp(self.emit(arith.ConstantOp(FloatAttr(_IDENTITY[r.kind], self.plan.elem))),
                                                        self.vty)) for r in self.plan.reductions]
        accs = [ident for ident in self.identities for _ in range(k)]
        inits = [self.emit(memref.LoadOp.get(r.load.memref, list(r.load.indices))) for r in self.plan.reductions]
        results = self.vector_loop(loop.lb, ub_main, k, accs)
        parallel = loop.attributes.pop(PARALLEL_ATTR, None)  # the vector loop does the bulk; the tail is short
        if parallel is not None and not self.plan.reductions:
            self.before[-1].attributes[PARALLEL_ATTR] = parallel
        ub_vec = ub_main
        if k > 1:
            results = [self.tree([results[i * k + j] for j in range(k)], r) for i, r in enumerate(self.plan.reductions)]
            ub_vec = self.bound(n, lanes)
            results = self.vector_loop(ub_main, ub_vec, 1, results)
        trips = _trip_count(loop)
        tail = "none" if trips is not None and trips % lanes == 0 else "masked" if self.masked else "scalar"
        if tail == "masked":
            results = self.vector_loop(ub_vec, loop.ub, 1, results, masked=True)
        for r, init, acc in zip(self.plan.reductions, inits, results, strict=True):
            kind = vector.CombiningKindAttr(vector.CombiningKindFlag(r.kind))
            folded = self.emit(vector.ReductionOp.create(operands=[acc], result_types=[self.plan.elem], properties={"kind": kind}))
            total = self.emit(type(r.combine).create(operands=[init, folded], result_types=[self.plan.elem],
                                                     properties=dict(r.combine.properties)))
            self.before.append(memref.StoreOp.get(total, r.store.memref, list(r.store.indices)))
        Rewriter.insert_op(self.before, InsertPoint.before(loop))
        if tail == "scalar":
            loop.operands = [ub_vec, *loop.operands[1:]]
        else:
            Rewriter.erase_op(loop)

    def bound(self, n: SSAValue, multiple: int) -> SSAValue:
        """lb + (n / multiple) * multiple (a constant when the bounds are)."""
        lb, trips = constant_int(self.loop.lb), _trip_count(self.loop)
        if lb is not None and trips is not None:
            return self.index(lb + trips // multiple * multiple)
        c = self.index(multiple)
        whole = self.emit(arith.MuliOp(self.emit(arith.DivUIOp(n, c)), c))
        return self.emit(arith.AddiOp(self.loop.lb, whole))

    def tree(self, accs: list[SSAValue], r: Reduction) -> SSAValue:
        """Combine accumulators pairwise."""
        while len(accs) > 1:
            pairs = [self.emit(type(r.combine).create(operands=[a, b], result_types=[self.vty],
                                                      properties=dict(r.combine.properties)))
                     for a, b in zip(accs[::2], accs[1::2], strict=False)]
            accs = pairs + ([accs[-1]] if len(accs) % 2 else [])
        return accs[0]

    def vector_loop(self, lb: SSAValue, ub: SSAValue, k: int, accs: list[SSAValue], masked: bool = False) -> list[SSAValue]:
        """A loop stepping lanes*k with k vector copies of the body; returns the final accumulators.
        ``masked``: lanes at and past ``ub`` are masked off (the tail: k is 1 and it runs at most once)."""
        block = Block(arg_types=[IndexType(), *(a.type for a in accs)])
        iv, carried = block.args[0], list(block.args[1:])
        body: list[Operation] = []
        out: list[SSAValue] = list(carried)
        self.mask: SSAValue | None = None
        if masked:
            rem = arith.SubiOp(ub, iv)
            mask = vector.CreateMaskOp([rem.result], VectorType(IntegerType(1), [self.lanes]))
            zero = arith.ConstantOp(FloatAttr(0.0, self.plan.elem))
            self.pass_thru = vector.BroadcastOp(zero.result, self.vty)
            body += [rem, mask, zero, self.pass_thru]
            self.mask = mask.results[0]
        offsets: list[SSAValue] = [iv]
        for j in range(1, k):
            c = arith.ConstantOp(IntegerAttr(j * self.lanes, IndexType()))
            add = arith.AddiOp(iv, c)
            body += [c, add]
            offsets.append(add.result)
        mappings: list[dict[SSAValue, SSAValue]] = [{} for _ in range(k)]
        for op in self.loop.body.block.ops:  # copy j of each op next to the others: interleaved
            if isinstance(op, scf.YieldOp):
                continue
            for j in range(k):
                body += self.lane_op(op, offsets[j], mappings[j], out, j, k)
        step = self.index(self.lanes * k)
        block.add_ops([*body, scf.YieldOp(*out)])
        loop = scf.ForOp(lb, ub, step, accs, block)
        self.before.append(loop)
        return list(loop.results)

    def lane_op(self, op: Operation, offset: SSAValue, mapping: dict[SSAValue, SSAValue],
                accs: list[SSAValue], j: int, k: int) -> list[Operation]:
        """The vector form of one body op (several ops when scalars are broadcast)."""
        plan, new = self.plan, []
        for r_index, r in enumerate(plan.reductions):
            if op is r.load or op is r.store:
                return []
            if op is r.combine:
                slot = r_index * k + j
                value = self.vec(r.value, mapping, new)
                if self.mask is not None:  # masked-off lanes contribute the identity
                    keep = kvec.SelectOp(self.mask, value, self.identities[r_index])
                    new.append(keep)
                    value = keep.results[0]
                combined = type(op).create(operands=[accs[slot], value],
                                           result_types=[self.vty], properties=dict(op.properties))
                accs[slot] = combined.results[0]
                return [*new, combined]
        if isinstance(op, memref.LoadOp) and op in plan.contiguous:
            idx = [*op.indices[:-1], offset]
            load: Operation = (vector.LoadOp(op.memref, idx, self.vty) if self.mask is None
                               else vector.MaskedLoadOp(op.memref, idx, self.mask, self.pass_thru.results[0], self.vty))
            mapping[op.res] = load.results[0]
            return [load]
        if isinstance(op, memref.StoreOp):
            value, idx = self.vec(op.value, mapping, new), [*op.indices[:-1], offset]
            if self.mask is not None:
                return [*new, vector.MaskedStoreOp(op.memref, idx, self.mask, value)]
            return [*new, vector.StoreOp(value, op.memref, idx)]
        if isinstance(op, memref.LoadOp | arith.ConstantOp) or op in plan.scalar:  # uniform: stays scalar, broadcast on use
            clone = op.clone()
            clone.operands = [_scalar_of(v, mapping) for v in op.operands]
            for old, res in zip(op.results, clone.results, strict=True):
                mapping[old] = res
            return [clone]
        if isinstance(op, arith.SelectOp):
            lane: Operation = kvec.SelectOp(mapping[op.cond], self.vec(op.lhs, mapping, new), self.vec(op.rhs, mapping, new))
            mapping[op.result] = lane.results[0]
            return [*new, lane]
        if isinstance(op, arith.CmpfOp):
            pred = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
            lane = kvec.CmpfOp(pred, self.vec(op.lhs, mapping, new), self.vec(op.rhs, mapping, new))
            mapping[op.result] = lane.results[0]
            return [*new, lane]
        operands = [self.vec(v, mapping, new) for v in op.operands]
        result_types: list[Attribute] = [_vector_type(r.type, self.lanes) for r in op.results]
        lane = type(op).create(operands=operands, result_types=result_types,
                               properties=dict(op.properties), attributes=dict(op.attributes))
        for old, res in zip(op.results, lane.results, strict=True):
            mapping[old] = res
        return [*new, lane]

    def vec(self, value: SSAValue, mapping: dict[SSAValue, SSAValue], new: list[Operation]) -> SSAValue:
        """The vector of ``value``: its lane form, or a broadcast of a scalar."""
        mapped = mapping.get(value, value)
        if isinstance(mapped.type, VectorType):
            return mapped
        if mapped is value and value in self.splats:  # loop-invariant: broadcast once, before the loops
            return self.splats[value]
        splat = vector.BroadcastOp(mapped, self.vty)
        if mapped is value:
            self.before.append(splat)
            self.splats[value] = splat.results[0]
        else:
            new.append(splat)
            mapping[value] = splat.results[0]
        return splat.results[0]


def _scalar_of(value: SSAValue, mapping: dict[SSAValue, SSAValue]) -> SSAValue:
    """The scalar form of the uniform ``value`` in a lane: ``mapping`` holds the broadcast of it
    once a vector op has used it (the scalar that broadcast reads is what scalar ops need)."""
    mapped = mapping.get(value, value)
    if isinstance(mapped.type, VectorType):
        assert isinstance(mapped.owner, vector.BroadcastOp), "a uniform value's vector form is its broadcast"
        return mapped.owner.source
    return mapped
