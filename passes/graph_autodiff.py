"""``graph-autodiff``: reverse-mode differentiation as a transformation of the ``graph`` dialect.

:func:`backprop` walks the ops between some source values and a target backwards and builds,
with ``graph`` ops, the gradient of the target's sum with respect to each source: the
adjoint of every value the target depends on is the sum of what its uses contribute, each op
contributing through its rule in :data:`RULES`. ``kiln.grad``, ``kiln.value_and_grad`` and
``kiln.GradientTape`` call it while tracing, so a gradient is lowered and compiled by the same
pipeline as the rest of the program. The pass does the same on a module:
``graph-autodiff{func="f" wrt=0,1}`` adds ``@f_grad``, which returns ``f``'s result and its
gradient with respect to arguments 0 and 1.

Only floating-point values carry gradients (integer and bool paths get none, as in
TensorFlow). An op on such a path without a rule is an error naming it and its location.
Shapes must be static.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, DenseIntOrFPElementsAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.dialects.graph import element_of, shape_of
from kiln.dialects.ir_utils import describe_location


class AutodiffError(DiagnosticException):
    """A value on the path to the target comes from an op that has no gradient."""


#: how a new op goes into the IR (appended where the gradient is built)
Insert = Callable[[Operation], Operation]


def differentiable(value: SSAValue) -> bool:
    """Whether ``value`` can carry a gradient: a float tensor."""
    return isinstance(value.type, TensorType) and isinstance(element_of(value), AnyFloat)


@dataclass
class Adjoints:
    """Builds adjoint ops through ``insert`` and sums the contributions to each value."""

    insert: Insert
    sums: dict[SSAValue, SSAValue] = field(default_factory=dict)

    def op(self, op: Operation) -> SSAValue:
        return self.insert(op).results[0]

    def const(self, value: float, like: SSAValue | Attribute) -> SSAValue:
        """``value`` in every element of a tensor of ``like``'s type."""
        t = like.type if isinstance(like, SSAValue) else like
        assert isinstance(t, TensorType)
        scalar = self.op(graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(t.element_type, []), [value])))
        return scalar if not shape_of(t) else self.op(graph.BroadcastOp(scalar, shape_of(t)))

    def add_to(self, value: SSAValue, contribution: SSAValue | None) -> None:
        if contribution is None or not differentiable(value):
            return
        assert contribution.type == value.type, (value.type, contribution.type)
        old = self.sums.get(value)
        self.sums[value] = contribution if old is None else self.op(graph.AddOp(old, contribution))

    # graph ops by name, for the rules
    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(graph.AddOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(graph.SubOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(graph.MulOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(graph.DivOp(a, b))

    def neg(self, a: SSAValue) -> SSAValue:
        return self.op(graph.NegOp(a))

    def where(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(graph.SelectOp(cond, a, b))

    def cmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(graph.CmpOp(predicate, a, b))

    def unbroadcast(self, g: SSAValue, shape: Sequence[int]) -> SSAValue:
        """The sum of ``g`` over the axes a broadcast from ``shape`` added or stretched."""
        out = shape_of(g)
        lead = len(out) - len(shape)
        axes = [i for i in range(len(out)) if i < lead or (shape[i - lead] == 1 and out[i] != 1)]
        if axes:
            g = self.op(graph.ReduceOp("sum", g, axes))
        if shape_of(g) != tuple(shape):
            g = self.op(graph.ReshapeOp(g, list(shape)))
        return g

    def expand(self, g: SSAValue, reduced: Sequence[int], shape: Sequence[int], keepdims: bool) -> SSAValue:
        """``g`` of a reduction over ``reduced`` broadcast back to the operand's ``shape``."""
        kept = [1 if i in reduced else d for i, d in enumerate(shape)]
        if not keepdims and list(shape_of(g)) != kept:
            g = self.op(graph.ReshapeOp(g, kept))
        return g if tuple(kept) == tuple(shape) else self.op(graph.BroadcastOp(g, list(shape)))


#: op -> (its adjoint builder, the gradient of its only result) -> each operand's contribution
Rule = Callable[[Adjoints, Operation, SSAValue], Sequence[SSAValue | None]]
RULES: dict[type[Operation], Rule] = {}


def rule(*ops: type[Operation]) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for op in ops:
            RULES[op] = fn
        return fn

    return register


def _x(op: Operation) -> SSAValue:
    return op.operands[0]


def _out(op: Operation) -> SSAValue:
    return op.results[0]


@rule(graph.AddOp)
def _add(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return g, g


@rule(graph.SubOp)
def _sub(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return g, b.neg(g)


@rule(graph.MulOp)
def _mul(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    x, y = op.operands
    return b.mul(g, y), b.mul(g, x)


@rule(graph.DivOp)
def _div(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    x, y = op.operands
    gy = b.div(g, y)
    return gy, b.neg(b.mul(gy, _out(op)))


@rule(graph.NegOp)
def _neg(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return (b.neg(g),)


@rule(graph.PowOp)
def _pow(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    x, y = op.operands
    # d/dx = y * x**(y-1) (0 where y == 0, as JAX, also at x == 0); d/dy = out * log(x) (0 where x == 0)
    zero, one = b.const(0.0, x), b.const(1.0, x)
    dx = b.mul(g, b.mul(y, b.op(graph.PowOp(x, b.sub(y, one)))))
    dx = b.where(b.cmp("eq", y, zero), zero, dx)
    safe = b.where(b.cmp("eq", x, zero), one, x)
    dy = b.mul(g, b.mul(_out(op), b.op(graph.LogOp(safe))))
    return dx, b.where(b.cmp("eq", x, zero), zero, dy)


def _between(b: Adjoints, op: Operation, g: SSAValue, predicate: str) -> Sequence[SSAValue | None]:
    """maximum/minimum: the gradient goes to the operand chosen, to x on a tie (TensorFlow's)."""
    x, y = op.operands
    zero = b.const(0.0, g)
    pick_x = b.cmp(predicate, x, y)
    return b.where(pick_x, g, zero), b.where(pick_x, zero, g)


@rule(graph.MaximumOp, graph.FmaxOp)
def _maximum(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return _between(b, op, g, "ge")


@rule(graph.MinimumOp, graph.FminOp)
def _minimum(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return _between(b, op, g, "le")


@rule(graph.ReluOp)
def _relu(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    zero = b.const(0.0, g)
    return (b.where(b.cmp("gt", _x(op), zero), g, zero),)


@rule(graph.AbsOp)
def _abs(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return (b.mul(g, b.op(graph.SignOp(_x(op)))),)


def _unary(derivative: Callable[[Adjoints, SSAValue, SSAValue], SSAValue]) -> Rule:
    """A rule ``g * f'(x)``, ``f'`` given the operand and the result."""

    def build(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
        return (b.mul(g, derivative(b, _x(op), _out(op))),)

    return build


def _one_minus(b: Adjoints, v: SSAValue) -> SSAValue:
    return b.sub(b.const(1.0, v), v)


RULES.update({
    graph.ExpOp: _unary(lambda b, x, y: y),
    graph.Exp2Op: _unary(lambda b, x, y: b.mul(y, b.const(0.6931471805599453, y))),
    graph.Expm1Op: _unary(lambda b, x, y: b.add(y, b.const(1.0, y))),
    graph.LogOp: _unary(lambda b, x, y: b.op(graph.ReciprocalOp(x))),
    graph.Log2Op: _unary(lambda b, x, y: b.op(graph.ReciprocalOp(b.mul(x, b.const(0.6931471805599453, x))))),
    graph.Log10Op: _unary(lambda b, x, y: b.op(graph.ReciprocalOp(b.mul(x, b.const(2.302585092994046, x))))),
    graph.Log1pOp: _unary(lambda b, x, y: b.op(graph.ReciprocalOp(b.add(x, b.const(1.0, x))))),
    graph.SqrtOp: _unary(lambda b, x, y: b.div(b.const(0.5, y), y)),
    graph.CbrtOp: _unary(lambda b, x, y: b.div(b.const(1.0 / 3.0, y), b.mul(y, y))),
    graph.TanhOp: _unary(lambda b, x, y: _one_minus(b, b.mul(y, y))),
    graph.SigmoidOp: _unary(lambda b, x, y: b.mul(y, _one_minus(b, y))),
    graph.SinOp: _unary(lambda b, x, y: b.op(graph.CosOp(x))),
    graph.CosOp: _unary(lambda b, x, y: b.neg(b.op(graph.SinOp(x)))),
    graph.TanOp: _unary(lambda b, x, y: b.add(b.const(1.0, y), b.mul(y, y))),
    graph.SinhOp: _unary(lambda b, x, y: b.op(graph.CoshOp(x))),
    graph.CoshOp: _unary(lambda b, x, y: b.op(graph.SinhOp(x))),
    graph.ArctanOp: _unary(lambda b, x, y: b.op(graph.ReciprocalOp(b.add(b.const(1.0, x), b.mul(x, x))))),
    graph.ArcsinhOp: _unary(
        lambda b, x, y: b.op(graph.ReciprocalOp(b.op(graph.SqrtOp(b.add(b.mul(x, x), b.const(1.0, x))))))
    ),
    graph.ArcsinOp: _unary(lambda b, x, y: b.op(graph.ReciprocalOp(b.op(graph.SqrtOp(_one_minus(b, b.mul(x, x))))))),
    graph.ArccosOp: _unary(
        lambda b, x, y: b.neg(b.op(graph.ReciprocalOp(b.op(graph.SqrtOp(_one_minus(b, b.mul(x, x)))))))
    ),
    graph.ArctanhOp: _unary(lambda b, x, y: b.op(graph.ReciprocalOp(_one_minus(b, b.mul(x, x))))),
    graph.ReciprocalOp: _unary(lambda b, x, y: b.neg(b.mul(y, y))),
})


@rule(graph.FloorOp, graph.CeilOp, graph.TruncOp, graph.RintOp, graph.SignOp)
def _flat(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    """Piecewise constant: zero almost everywhere (TensorFlow and JAX give zero too)."""
    return (None,)


@rule(graph.BroadcastOp)
def _broadcast(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return (b.unbroadcast(g, shape_of(_x(op))),)


@rule(graph.ReshapeOp)
def _reshape(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return (b.op(graph.ReshapeOp(g, list(shape_of(_x(op))))),)


@rule(graph.TransposeOp)
def _transpose(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.TransposeOp)
    perm = list(op.perm.get_values())
    inverse = [perm.index(i) for i in range(len(perm))]
    return (b.op(graph.TransposeOp(g, inverse)),)


@rule(graph.SliceOp)
def _slice(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.SliceOp)
    zeros = b.const(0.0, _x(op))
    start, stride = list(op.start.get_values()), list(op.stride.get_values())
    return (b.op(graph.InsertSliceOp(g, zeros, start, list(shape_of(g)), stride)),)


@rule(graph.InsertSliceOp)
def _insert_slice(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.InsertSliceOp)
    offsets = _mixed(op.static_offsets.get_values(), op.offsets)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes)
    strides = list(op.strides.get_values())
    source = b.op(graph.DynamicSliceOp(g, offsets, sizes, strides))
    cleared = b.op(graph.InsertSliceOp(b.const(0.0, op.source), g, offsets, sizes, strides))
    return (source, cleared, *([None] * (len(op.operands) - 2)))


@rule(graph.DynamicSliceOp)
def _dynamic_slice(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.DynamicSliceOp)
    zeros = b.const(0.0, op.source)
    offsets = _mixed(op.static_offsets.get_values(), op.offsets)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes)
    inserted = b.op(graph.InsertSliceOp(g, zeros, offsets, sizes, list(op.strides.get_values())))
    return (inserted, *([None] * (len(op.operands) - 1)))


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[int | SSAValue]:
    """Static entries, with each dynamic marker replaced by the next operand."""
    values = iter(dynamic)
    return [next(values) if s == graph.DYNAMIC else s for s in static]


@rule(graph.ReduceOp)
def _reduce(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.ReduceOp)
    x, kind = _x(op), op.kind.data
    axes, keep = list(op.axes.get_values()), op.keepdims is not None
    shape = shape_of(x)
    spread = b.expand(g, axes, shape, keep)
    if kind == "sum":
        return (spread,)
    if kind == "mean":
        count = 1
        for a in axes:
            count *= shape[a]
        return (b.div(spread, b.const(float(count), spread)),)
    if kind == "prod":  # g * prod / x, exact where x has no zero; prod of the others where it has one
        return (b.div(b.mul(spread, b.expand(_out(op), axes, shape, keep)), x),)
    # max/min: shared equally by the elements that reached the extreme (TensorFlow and JAX)
    hit = b.cmp("eq", x, b.expand(_out(op), axes, shape, keep))
    ones = b.where(hit, b.const(1.0, x), b.const(0.0, x))
    count = b.expand(b.op(graph.ReduceOp("sum", ones, axes, keep)), axes, shape, keep)
    return (b.div(b.mul(spread, ones), count),)


@rule(graph.MatmulOp)
def _matmul(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    x, y = op.operands
    xs, ys = shape_of(x), shape_of(y)
    # promote 1-D operands as matmul does, so that the result is (..., n, m)
    x2 = x if len(xs) > 1 else b.op(graph.ReshapeOp(x, [1, xs[0]]))
    y2 = y if len(ys) > 1 else b.op(graph.ReshapeOp(y, [ys[0], 1]))
    out = list(graph.matmul_shape(shape_of(x2), shape_of(y2)))
    g2 = g if list(shape_of(g)) == out else b.op(graph.ReshapeOp(g, out))
    dx = b.op(graph.MatmulOp(g2, _swap_last(b, y2)))
    dy = b.op(graph.MatmulOp(_swap_last(b, x2), g2))
    # a 2-D operand of a batched product got the sum over the batch
    dx = _to_shape(b, dx, xs)
    dy = _to_shape(b, dy, ys)
    return dx, dy


def _swap_last(b: Adjoints, v: SSAValue) -> SSAValue:
    rank = len(shape_of(v))
    return b.op(graph.TransposeOp(v, [*range(rank - 2), rank - 1, rank - 2]))


def _to_shape(b: Adjoints, v: SSAValue, shape: Sequence[int]) -> SSAValue:
    """A matmul operand's gradient, summed over batch dims it did not have, in its shape."""
    have = shape_of(v)
    target_rank = max(len(shape), 2)
    if len(have) > target_rank:
        v = b.op(graph.ReduceOp("sum", v, list(range(len(have) - target_rank))))
    return v if shape_of(v) == tuple(shape) else b.op(graph.ReshapeOp(v, list(shape)))


@rule(graph.SelectOp)
def _select(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    cond = op.operands[0]
    zero = b.const(0.0, g)
    return None, b.where(cond, g, zero), b.where(cond, zero, g)


@rule(graph.CastOp)
def _cast(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    x = _x(op)
    return (b.op(graph.CastOp(g, element_of(x))) if differentiable(x) else None,)


@rule(graph.ConcatOp)
def _concat(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.ConcatOp)
    axis = op.axis.value.data
    parts: list[SSAValue | None] = []
    offset = 0
    for v in op.inputs:
        shape = list(shape_of(v))
        start = [0] * len(shape)
        start[axis] = offset
        parts.append(b.op(graph.SliceOp(g, start, shape, [1] * len(shape))))
        offset += shape[axis]
    return parts


def _no_gradient(op: Operation) -> bool:
    """Ops whose results never carry a gradient (tests, comparisons, integer-valued results)."""
    return not any(differentiable(r) for r in op.results)


def backprop(target: SSAValue, sources: Sequence[SSAValue], insert: Insert, seed: SSAValue | None = None,
             ) -> list[SSAValue | None]:
    """The gradient of ``sum(target)`` with respect to each of ``sources`` (None where the target
    does not depend on it through float values), built with ``insert`` after the ops that
    compute ``target``; ``seed`` is the target's gradient (default: ones)."""
    block = target.owner if isinstance(target.owner, Block) else target.owner.parent_block()
    assert block is not None
    path = _ops_between(block, target, sources)
    adjoints = Adjoints(insert)
    if not differentiable(target):
        raise AutodiffError(f"the gradient target is {target.type}: only float tensors have gradients")
    adjoints.sums[target] = seed if seed is not None else adjoints.const(1.0, target)
    for op in reversed(path):
        g = adjoints.sums.get(op.results[0]) if len(op.results) == 1 else None
        if g is None:
            continue
        fn = RULES.get(type(op))
        if fn is None:
            raise AutodiffError(
                f"{describe_location(op.location)}: {op.name} has no gradient (on the path from a source to the "
                "gradient's target)"
            )
        for operand, contribution in zip(op.operands, fn(adjoints, op, g), strict=True):
            adjoints.add_to(operand, contribution)
    return [adjoints.sums.get(s) for s in sources]


def _ops_between(block: Block, target: SSAValue, sources: Sequence[SSAValue]) -> list[Operation]:
    """The ops of ``block``, in order, on a float path from a source to ``target``."""
    reaches: set[SSAValue] = set(sources)
    on_path: list[Operation] = []
    for op in block.ops:
        if _no_gradient(op):
            continue
        if any(o in reaches for o in op.operands):
            if len(op.results) != 1 or op.regions:
                raise AutodiffError(
                    f"{describe_location(op.location)}: {op.name} has no gradient yet (on the path from a source)"
                )
            reaches.update(op.results)
            on_path.append(op)
        if target in op.results:
            break
    needed: set[SSAValue] = {target}
    kept: list[Operation] = []
    for op in reversed(on_path):
        if any(r in needed for r in op.results):
            kept.append(op)
            needed.update(op.operands)
    return kept[::-1]


@dataclass(frozen=True)
class GraphAutodiff(ModulePass):
    """Adds ``@<func>_grad``: ``func``'s one float result, then the gradient of its sum with
    respect to each argument in ``wrt``."""

    name = "graph-autodiff"

    func: str = ""
    wrt: tuple[int, ...] = (0,)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        found = [f for f in op.ops if isinstance(f, func.FuncOp) and f.sym_name.data == self.func]
        if not found:
            raise DiagnosticException(f"graph-autodiff: no function @{self.func} in the module")
        original = found[0]
        clone = original.clone()
        clone.sym_name = StringAttr(f"{self.func}_grad")
        op.body.block.add_op(clone)
        ret = clone.body.block.last_op
        assert isinstance(ret, func.ReturnOp)
        if len(ret.arguments) != 1:
            raise DiagnosticException(f"graph-autodiff: @{self.func} must have one result, it has {len(ret.arguments)}")
        args = clone.body.block.args
        if any(not 0 <= i < len(args) for i in self.wrt):
            raise DiagnosticException(f"graph-autodiff: wrt {list(self.wrt)} is out of range for {len(args)} arguments")
        sources = [args[i] for i in self.wrt]
        block = clone.body.block

        def insert(new: Operation) -> Operation:
            block.insert_op_before(new, ret)
            return new

        grads = backprop(ret.arguments[0], sources, insert)
        results = [ret.arguments[0]]
        for s, g in zip(sources, grads, strict=True):
            results.append(g if g is not None else Adjoints(insert).const(0.0, s))
        insert(func.ReturnOp(*results))
        ret.detach()
        ret.erase()
        clone.function_type = func.FunctionType.from_lists(list(block.arg_types), [r.type for r in results])
