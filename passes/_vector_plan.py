"""Which innermost ``scf.for`` loops ``kiln-vectorize`` can strip-mine, and how (the analysis half).

A loop qualifies when its step is 1, it carries no values, its body has no regions, and
every op is one of:

* ``memref.load``/``memref.store`` whose last index is the induction variable and whose
  other indices are loop-invariant (contiguous: becomes ``vector.load``/``vector.store``);
* ``memref.load`` at loop-invariant indices (uniform: stays scalar, then ``vector.broadcast``);
* a reduction: a uniform load of an accumulator, one combining op (addf, mulf, maximumf,
  minimumf) with a value computed in the loop, and a store back to the same element
  (the form ``convert-linalg-to-loops`` gives reductions);
* float arith/math ops in :data:`ELEMENTWISE` on one float width (f32 or f64 only); i1 only
  as a comparison's result, a select's condition, and ``andi``/``ori`` of such masks computed
  in the loop (a select between booleans stays scalar);
* uniform computations: ops of :data:`ELEMENTWISE` or :data:`UNIFORM_ONLY` whose operands are
  all uniform (defined outside the loop, uniform loads, constants, other uniform computations).
  They stay scalar, of any float width (``w - float32(lr) * g`` with a float64 ``lr``), and are
  broadcast where a lane op uses them.

Any other use of the induction variable, a memref written and also read at another
position (through views of the same buffer included), or mixed float widths disqualify it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, math, memref, scf
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects.ir_utils import constant_int
from kiln.passes._buffer_facts import VIEWS

#: float ops vectorized one lane at a time (the C backend has a vector form of each)
ELEMENTWISE: tuple[type[Operation], ...] = (
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.NegfOp,
    arith.MaximumfOp, arith.MinimumfOp, arith.CmpfOp, arith.SelectOp,
    math.ExpOp, math.LogOp, math.TanhOp, math.SinOp, math.CosOp, math.AtanOp, math.Atan2Op,
    math.SqrtOp, math.AbsFOp, math.FmaOp,
    arith.AndIOp, arith.OrIOp,
)
#: ops allowed only on uniform values (they stay scalar: no vector form needed)
UNIFORM_ONLY: tuple[type[Operation], ...] = (arith.TruncFOp, arith.ExtFOp)
#: logic on comparison masks (i1 only), the ISA's mask and/or
MASK_LOGIC: tuple[type[Operation], ...] = (arith.AndIOp, arith.OrIOp)
#: combining op of a reduction -> vector.reduction kind
COMBINERS: dict[type[Operation], str] = {
    arith.AddfOp: "add",
    arith.MulfOp: "mul",
    arith.MaximumfOp: "maximumf",
    arith.MinimumfOp: "minimumf",
}
_CMPF_SUPPORTED = frozenset(range(1, 15))  # every predicate but "false" (0) and "true" (15)


@dataclass
class Reduction:
    """acc = load M[idx]; new = combine(acc, value); store new, M[idx]."""

    load: memref.LoadOp
    combine: Operation
    store: memref.StoreOp
    value: SSAValue
    kind: str


@dataclass
class Plan:
    """What the rewrite needs: the element type and the ops of each kind."""

    elem: Attribute
    contiguous: set[Operation] = field(default_factory=set)
    uniform: set[Operation] = field(default_factory=set)
    reductions: list[Reduction] = field(default_factory=list)
    #: uniform computations (not loads): cloned as scalars, broadcast on use
    scalar: set[Operation] = field(default_factory=set)


def is_innermost(loop: scf.ForOp) -> bool:
    """True when no op in the body has a region."""
    return all(not op.regions for op in loop.body.block.ops)


def _defined_outside(value: SSAValue, loop: scf.ForOp) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    while op is not None:
        if op is loop:
            return False
        op = op.parent_op()
    return True


def _unit_stride(ty: Attribute) -> bool:
    if not isinstance(ty, MemRefType):
        return False
    if isinstance(ty.layout, NoneAttr):
        return True
    return isinstance(ty.layout, StridedLayoutAttr) and ty.get_strides() is not None and ty.get_strides()[-1] == 1


def _root(value: SSAValue) -> object:
    """The buffer a memref value views (a global by symbol name)."""
    while isinstance(value.owner, VIEWS):
        value = value.owner.operands[0]
    if isinstance(value.owner, memref.GetGlobalOp):
        return ("global", value.owner.name_.string_value())
    return value


def _float_width(ty: Attribute) -> Attribute | None:
    return ty if isinstance(ty, Float32Type | Float64Type) else None


def _mask_position(op: Operation, value: SSAValue, loop: scf.ForOp) -> bool:
    """Whether an i1 ``value`` of ``op`` is a comparison's result, a select's condition, or an
    operand or result of and/or on masks the loop computes: the places the C backend has a
    vector of i1 (its ISA mask type). A select choosing between i1 values (``np.where`` on
    booleans) would need more mask logic, and a loop-invariant i1 operand a broadcast to a
    mask: such loops stay scalar."""
    if isinstance(op, arith.CmpfOp):
        return value is op.result
    if isinstance(op, MASK_LOGIC):
        return value is op.results[0] or not _defined_outside(value, loop)
    return isinstance(op, arith.SelectOp) and value is op.cond


def analyze(loop: scf.ForOp) -> Plan | None:
    """A plan to vectorize ``loop``, or None when it does not qualify."""
    if loop.iter_args or constant_int(loop.step) != 1 or not is_innermost(loop):
        return None
    iv = loop.body.block.args[0]
    ops = [op for op in loop.body.block.ops if not isinstance(op, scf.YieldOp)]
    floats: set[Attribute] = set()
    plan = Plan(elem=Float32Type())
    accesses: list[tuple[object, SSAValue, tuple[SSAValue, ...], Operation]] = []
    uniform_values: set[SSAValue] = set()
    for op in ops:
        if isinstance(op, (*ELEMENTWISE, *UNIFORM_ONLY)) and all(
            _defined_outside(v, loop) or v in uniform_values for v in op.operands
        ) and all(_float_width(v.type) for v in (*op.operands, *op.results)):
            plan.scalar.add(op)  # a uniform computation: any float width, scalar
            uniform_values.update(op.results)
            continue
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            ref = op.memref
            indices = tuple(op.indices)
            if any(i is iv for i in indices[:-1]) or not all(i is iv or _defined_outside(i, loop) for i in indices):
                return None
            if indices and indices[-1] is iv:
                if not _unit_stride(ref.type):
                    return None
                plan.contiguous.add(op)
            else:
                plan.uniform.add(op)
            accesses.append((_root(ref), ref, indices, op))
            value = op.res if isinstance(op, memref.LoadOp) else op.value
            if _float_width(value.type) is None:
                return None
            if op in plan.uniform and isinstance(op, memref.LoadOp):
                uniform_values.add(op.res)  # (its width counts where a lane op uses it)
            else:
                floats.add(value.type)
        elif isinstance(op, arith.ConstantOp):
            if _float_width(op.result.type) is None:
                return None
            uniform_values.add(op.result)
        elif isinstance(op, ELEMENTWISE):
            if isinstance(op, arith.CmpfOp) and op.predicate.value.data not in _CMPF_SUPPORTED:
                return None
            if isinstance(op, arith.SelectOp) and _defined_outside(op.cond, loop):
                return None
            for v in (*op.operands, *op.results):
                if v is iv or not (_float_width(v.type) or (v.type == IntegerType(1) and _mask_position(op, v, loop))):
                    return None
                if _float_width(v.type):
                    floats.add(v.type)
        else:
            return None
    if len(floats) != 1 or any(o is iv for op in ops if not isinstance(op, memref.LoadOp | memref.StoreOp) for o in op.operands):
        return None
    plan.elem = floats.pop()
    return plan if _find_reductions(plan, accesses) and _no_alias(accesses, plan) else None


def _find_reductions(plan: Plan, accesses: list[tuple[object, SSAValue, tuple[SSAValue, ...], Operation]]) -> bool:
    """Match every uniform store to the reduction pattern; False when one does not match."""
    for _, ref, indices, op in accesses:
        if not (isinstance(op, memref.StoreOp) and op in plan.uniform):
            continue
        combine = op.value.owner
        if type(combine) not in COMBINERS or len(list(combine.results[0].uses)) != 1:
            return False
        loads = [o for o in combine.operands if isinstance(o.owner, memref.LoadOp) and o.owner in plan.uniform
                 and o.owner.memref is ref and tuple(o.owner.indices) == indices]
        if len(loads) != 1 or len(list(loads[0].uses)) != 1 or combine.operands[0] is combine.operands[1]:
            return False
        load = loads[0].owner
        assert isinstance(load, memref.LoadOp) and isinstance(combine, Operation)
        value = combine.operands[1] if combine.operands[0] is loads[0] else combine.operands[0]
        plan.reductions.append(Reduction(load, combine, op, value, COMBINERS[type(combine)]))
    return True


def _no_alias(accesses: list[tuple[object, SSAValue, tuple[SSAValue, ...], Operation]], plan: Plan) -> bool:
    """A written buffer is read and written only at one position (the same SSA indices)."""
    reduction_ops = {op for r in plan.reductions for op in (r.load, r.store)}
    written = {root for root, _, _, op in accesses if isinstance(op, memref.StoreOp)}
    for root in written:
        sites = {(ref, idx) for r, ref, idx, _ in accesses if r == root}
        if len(sites) != 1:
            return False
        users = [op for r, _, _, op in accesses if r == root]
        if any(op in reduction_ops for op in users) and (len(users) != 2 or not all(op in reduction_ops for op in users)):
            return False
    return True
