"""``graph-autodiff``: reverse-mode differentiation as a transformation of the ``graph`` dialect.

:func:`backprop` walks the ops between some source values and a target backwards and builds,
with ``graph`` ops, the gradient of the target's sum with respect to each source: the
adjoint of every value the target depends on is the sum of what its uses contribute, each op
contributing through its rule in :data:`RULES`. ``kiln.grad``, ``kiln.value_and_grad`` and
``kiln.GradientTape`` call it while tracing, so a gradient is lowered and compiled by the same
pipeline as the rest of the program. The pass does the same on a module:
``graph-autodiff{func="f" wrt=0,1}`` adds ``@f_grad``, which returns ``f``'s result and its
gradient with respect to arguments 0 and 1.

A ``func.call`` (a kiln.function called while another was traced) is differentiated through its
callee, found by ``backprop``'s ``callees`` (a trace in progress has no module yet).

Only floating-point values carry gradients (integer and bool paths get none, as in
TensorFlow). An op on such a path without a rule is an error naming it and its location.
Shapes must be static.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, DenseIntOrFPElementsAttr, IntegerType, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import Pure, SymbolTable
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.dialects.graph import element_of, shape_of
from kiln.dialects.ir_utils import describe_location


class AutodiffError(DiagnosticException):
    """A value on the path to the target comes from an op that has no gradient."""


#: how a new op goes into the IR (appended where the gradient is built)
Insert = Callable[[Operation], Operation]

#: the function a ``func.call`` calls (None: not found)
Callees = Callable[[func.CallOp], func.FuncOp | None]


def module_callee(call: func.CallOp) -> func.FuncOp | None:
    """The callee of ``call`` in the module around it (how the pass finds callees)."""
    found = SymbolTable.lookup_symbol(call, call.callee)
    return found if isinstance(found, func.FuncOp) else None


def differentiable(value: SSAValue) -> bool:
    """Whether ``value`` can carry a gradient: a float tensor."""
    return isinstance(value.type, TensorType) and isinstance(element_of(value), AnyFloat)


@dataclass
class Adjoints:
    """Builds adjoint ops through ``insert`` and sums the contributions to each value."""

    insert: Insert
    sums: dict[SSAValue, SSAValue] = field(default_factory=dict)
    #: how a call's callee is found (a trace in progress has no module yet: it passes its own)
    callees: Callees = module_callee

    def nested(self, insert: Insert) -> Adjoints:
        """New adjoints built with ``insert`` (a region's body) that find callees as these do."""
        return Adjoints(insert, callees=self.callees)

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
    graph.ArccoshOp: _unary(
        lambda b, x, y: b.op(graph.ReciprocalOp(b.op(graph.SqrtOp(b.sub(b.mul(x, x), b.const(1.0, x))))))
    ),
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
    size = list(shape_of(g))
    if any(s < 0 for s in stride):  # insert_slice strides are positive: flip those axes of g
        flip = [(n - 1, -1) if s < 0 else (0, 1) for n, s in zip(size, stride, strict=True)]
        g = b.op(graph.SliceOp(g, [f[0] for f in flip], size, [f[1] for f in flip]))
        start = [b0 + (n - 1) * s if s < 0 else b0 for b0, n, s in zip(start, size, stride, strict=True)]
        stride = [abs(s) for s in stride]
    return (b.op(graph.InsertSliceOp(g, zeros, start, size, stride)),)


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


@rule(graph.GatherRowOp)
def _gather_row(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.GatherRowOp)
    return b.op(graph.ScatterRowOp(b.const(0.0, op.operand), op.index, g)), None


@rule(graph.ScatterRowOp)
def _scatter_row(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.ScatterRowOp)
    # by position, not by value: the operand and the row may be one value (x[i] = x)
    operand = b.op(graph.ScatterRowOp(g, op.index, b.const(0.0, op.row)))
    return operand, None, b.op(graph.GatherRowOp(g, op.index)) if differentiable(op.row) else None


@rule(graph.GatherOp)
def _gather(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.GatherOp)
    indices = list(op.indices)
    spread = b.op(graph.ScatterOp("add", b.const(0.0, op.operand), indices, g))  # repeated indices add up
    return [spread, *([None] * len(indices))]


@rule(graph.CompressOp)
def _compress(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    """Each selected value gets its element of the output's gradient back (the positions of the
    mask's nonzero elements, one each, in order); the others, and the mask, get none."""
    assert isinstance(op, graph.CompressOp)
    positions = b.op(graph.NonzeroOp(op.mask))
    return b.op(graph.ScatterOp("add", b.const(0.0, op.values), [positions], g)), None


@rule(graph.ScatterOp)
def _scatter(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.ScatterOp)
    kind, indices = op.kind.data, list(op.indices)
    if kind == "add":
        operand, updates = g, _updates_shaped(b, op, b.op(graph.GatherOp(g, indices)))
    elif kind == "set":
        # the positions written keep no gradient of the operand; an update gets its position's,
        # unless a later update to the same position overwrote it (the last write wins)
        operand = b.op(graph.ScatterOp("set", g, indices, b.const(0.0, op.updates)))
        updates = b.mul(_updates_shaped(b, op, b.op(graph.GatherOp(g, indices))), _last_writes(b, op, indices))
    else:
        raise AutodiffError(f"{describe_location(op.location)}: graph.scatter \"{kind}\" has no gradient yet")
    # by position (operands: updates, operand, indices), not by value: the operand and the updates
    # may be one value (y[idx] = y, np.add.at(y, idx, y)), and each contributes its own part
    return [updates if differentiable(op.updates) else None, operand if differentiable(op.operand) else None,
            *([None] * len(indices))]


def _updates_shaped(b: Adjoints, op: graph.ScatterOp, gathered: SSAValue) -> SSAValue:
    """Values gathered at a scatter's indices in the shape of its updates: the same sizes, static
    where the updates' are though the indices' length is known only at run time (``x[mask] = v``)."""
    if shape_of(gathered) == shape_of(op.updates):
        return gathered
    return b.op(graph.ReshapeOp(gathered, list(shape_of(op.updates))))


def _last_writes(b: Adjoints, op: graph.ScatterOp, indices: list[SSAValue]) -> SSAValue:
    """1.0 where an update of a ``set`` scatter is the last one to its position, else 0.0 (in
    the updates' type): each update's number scattered, then read back."""
    updates_shape = shape_of(op.updates)
    batch = updates_shape[: len(shape_of(indices[0]))]
    count = 1
    for d in batch:
        count *= d
    numbers = graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(
        graph.tensor_type(IntegerType(64), list(batch)), list(range(count))))
    serial = b.op(numbers)
    tail = list(shape_of(op.operand))[len(indices):]
    marks = b.op(graph.BroadcastOp(_i64(b, -1), list(shape_of(op.operand))[: len(indices)]))
    written = b.op(graph.ScatterOp("set", marks, indices, serial))
    read = b.op(graph.GatherOp(written, indices))
    if shape_of(read) != shape_of(serial):  # indices of a run-time length, updates of a static one
        read = b.op(graph.ReshapeOp(read, list(batch)))
    last = b.op(graph.CastOp(b.cmp("eq", read, serial), element_of(op.updates)))
    if tail:
        last = b.op(graph.BroadcastOp(b.op(graph.ReshapeOp(last, [*batch, *([1] * len(tail))])), [*batch, *tail]))
    return last


@rule(graph.ScanOp)
def _scan(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    assert isinstance(op, graph.ScanOp)
    if op.kind.data != "add":
        raise AutodiffError(f"{describe_location(op.location)}: graph.scan \"{op.kind.data}\" has no gradient yet")
    axis = op.axis.value.data
    return (_flip(b, b.op(graph.ScanOp("add", _flip(b, g, axis), axis)), axis),)


@rule(graph.SortOp)
def _sort(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    """``np.sort`` reads each line of its operand at the positions its stable argsort gives (a
    permutation of the line): each element's gradient goes back to the position it came from
    (equal elements as that argsort orders them, as JAX's sort does)."""
    assert isinstance(op, graph.SortOp)
    shape, axis = list(shape_of(op.operand)), op.axis.value.data
    if any(d < 0 for d in shape):
        raise AutodiffError(f"{describe_location(op.location)}: graph.sort of a size known only at run time has no gradient yet")
    indices = [b.op(graph.ArgsortOp(op.operand, axis)) if a == axis else _positions_along(b, shape, a)
               for a in range(len(shape))]
    return (b.op(graph.ScatterOp("add", b.const(0.0, op.operand), indices, g)),)


def _positions_along(b: Adjoints, shape: Sequence[int], axis: int) -> SSAValue:
    """Each element's index along ``axis``, in an i64 tensor of ``shape``."""
    line = b.op(graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(i64, [shape[axis]]), list(range(shape[axis])))))
    lined = b.op(graph.ReshapeOp(line, [d if a == axis else 1 for a, d in enumerate(shape)]))
    return lined if tuple(shape_of(lined)) == tuple(shape) else b.op(graph.BroadcastOp(lined, list(shape)))


def _flip(b: Adjoints, v: SSAValue, axis: int) -> SSAValue:
    shape = list(shape_of(v))
    start = [shape[a] - 1 if a == axis else 0 for a in range(len(shape))]
    return b.op(graph.SliceOp(v, start, shape, [-1 if a == axis else 1 for a in range(len(shape))]))


def _log_add(exp: type[Operation]) -> Rule:
    """logaddexp (``exp`` e**x) or logaddexp2 (2**x): each operand's share, ``exp(v - out)``."""

    def build(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
        out = _out(op)
        return tuple(b.mul(g, b.op(exp(b.sub(v, out)))) for v in op.operands)

    return build


RULES[graph.LogaddexpOp] = _log_add(graph.ExpOp)
RULES[graph.Logaddexp2Op] = _log_add(graph.Exp2Op)


@rule(graph.HypotOp)
def _hypot(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    x, y = op.operands
    scale = b.div(g, _out(op))
    return b.mul(scale, x), b.mul(scale, y)


@rule(graph.Arctan2Op)
def _arctan2(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    y, x = op.operands
    scale = b.div(g, b.add(b.mul(x, x), b.mul(y, y)))
    return b.mul(scale, x), b.neg(b.mul(scale, y))


@rule(graph.Conv2DOp)
def _conv2d(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    """One filter tap ``(i, j)`` at a time: the output is the sum over taps of a strided window
    of the (padded) input times the tap's ``Ci x Co`` matrix, so the input's gradient adds
    ``g @ w[i, j].T`` into that window, and the tap's gradient is ``window.T @ g``."""
    assert isinstance(op, graph.Conv2DOp)
    x, w = op.input, op.filter
    n, h, wd, ci = shape_of(x)
    kh, kw, _, co = shape_of(w)
    sh, sw = op.strides.get_values()
    _, oh, ow, _ = shape_of(g)
    if op.padding.data == "SAME":
        (top, bottom), (left, right) = graph.conv2d_same_padding(h, kh, sh), graph.conv2d_same_padding(wd, kw, sw)
    else:
        top = bottom = left = right = 0
    padded_shape = [n, h + top + bottom, wd + left + right, ci]
    padded = x
    if top or bottom or left or right:
        padded = b.op(graph.InsertSliceOp(x, b.const(0.0, graph.tensor_type(element_of(x), padded_shape)),
                                          [0, top, left, 0], [n, h, wd, ci], [1, 1, 1, 1]))
    g_rows = b.op(graph.ReshapeOp(g, [n * oh * ow, co]))
    d_padded = b.const(0.0, graph.tensor_type(element_of(x), padded_shape))
    taps: list[SSAValue] = []
    for i in range(kh):
        for j in range(kw):
            window = ([0, i, j, 0], [n, oh, ow, ci], [1, sh, sw, 1])
            tap = b.op(graph.ReshapeOp(b.op(graph.SliceOp(w, [i, j, 0, 0], [1, 1, ci, co], [1, 1, 1, 1])), [ci, co]))
            into = b.op(graph.ReshapeOp(b.op(graph.MatmulOp(g_rows, b.op(graph.TransposeOp(tap, [1, 0])))), [n, oh, ow, ci]))
            before = b.op(graph.DynamicSliceOp(d_padded, *window))
            d_padded = b.op(graph.InsertSliceOp(b.add(before, into), d_padded, *window))
            seen = b.op(graph.ReshapeOp(b.op(graph.SliceOp(padded, *window)), [n * oh * ow, ci]))
            d_tap = b.op(graph.MatmulOp(b.op(graph.TransposeOp(seen, [1, 0])), g_rows))
            taps.append(b.op(graph.ReshapeOp(d_tap, [1, ci, co])))
    d_w = b.op(graph.ReshapeOp(b.op(graph.ConcatOp(taps, 0)) if len(taps) > 1 else taps[0], [kh, kw, ci, co]))
    d_x = d_padded
    if top or bottom or left or right:
        d_x = b.op(graph.SliceOp(d_padded, [0, top, left, 0], [n, h, wd, ci], [1, 1, 1, 1]))
    return d_x, d_w


@rule(graph.CopysignOp)
def _copysign(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    """|x| with y's sign: x's gradient, negated where the sign changed; y gets none (almost everywhere)."""
    x, _ = op.operands
    kept = b.cmp("eq", b.op(graph.SignbitOp(x)), b.op(graph.SignbitOp(_out(op))))
    return b.where(kept, g, b.neg(g)), None


@rule(graph.FloorDivOp)
def _floordiv(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    return None, None  # piecewise constant


@rule(graph.ModOp, graph.FmodOp)
def _mod(b: Adjoints, op: Operation, g: SSAValue) -> Sequence[SSAValue | None]:
    """x - y * q with q = floor(x / y) (``%``) or trunc(x / y) (``fmod``), q piecewise constant."""
    x, y = op.operands
    quotient = b.op(graph.FloorDivOp(x, y)) if isinstance(op, graph.ModOp) else b.op(graph.TruncOp(b.div(x, y)))
    return g, b.neg(b.mul(g, quotient))


def _no_gradient(op: Operation) -> bool:
    """Ops whose results never carry a gradient (tests, comparisons, integer-valued results)."""
    return not any(differentiable(r) for r in op.results)


def backprop(target: SSAValue, sources: Sequence[SSAValue], insert: Insert, seed: SSAValue | None = None,
             callees: Callees = module_callee) -> list[SSAValue | None]:
    """The gradient of ``sum(target)`` with respect to each of ``sources`` (None where the target
    does not depend on it through float values), built with ``insert`` after the ops that
    compute ``target``; ``seed`` is the target's gradient (default: ones); ``callees`` finds
    the function each ``func.call`` on the path calls."""
    block = target.owner if isinstance(target.owner, Block) else target.owner.parent_block()
    assert block is not None
    if not differentiable(target):
        raise AutodiffError(f"the gradient target is {target.type}: only float tensors have gradients")
    path = _ops_between(block, target, sources)
    adjoints = Adjoints(insert, callees=callees)
    adjoints.sums[target] = seed if seed is not None else adjoints.const(1.0, target)
    _reverse(path, adjoints)
    return [adjoints.sums.get(s) for s in sources]


def _reverse(ops: Sequence[Operation], adjoints: Adjoints) -> None:
    """Add each op's contributions to its operands' adjoints, last op first."""
    for op in reversed(ops):
        grads = [adjoints.sums.get(r) for r in op.results]
        if all(g is None for g in grads):
            continue
        if not op.regions and not any(differentiable(o) for o in op.operands):
            continue  # a constant, or computed from integers only: nothing to pass back
        if isinstance(op, graph.CondOp):
            _reverse_cond(op, grads, adjoints)
            continue
        if isinstance(op, graph.WhileOp):
            _reverse_while(op, grads, adjoints)
            continue
        if isinstance(op, func.CallOp):
            _reverse_call(op, grads, adjoints)
            continue
        fn = RULES.get(type(op))
        if fn is None or len(op.results) != 1:
            raise AutodiffError(f"{describe_location(op.location)}: {op.name} has no gradient"
                                f"{' yet' if op.regions else ''} (on the path from a source to the gradient's target)")
        for operand, contribution in zip(op.operands, fn(adjoints, op, grads[0]), strict=True):
            adjoints.add_to(operand, contribution)


def _reverse_cond(op: graph.CondOp, grads: Sequence[SSAValue | None], adjoints: Adjoints) -> None:
    """A ``graph.cond`` on the same predicate whose branches differentiate the forward ones:
    each recomputes its branch's pure ops (the forward values inside a branch are not visible
    outside it) and yields the gradients of the values the branch uses from outside."""
    captured = [v for v in _captured(op) if differentiable(v)]
    if not captured:
        return

    def reverse(region: Region) -> Region:
        block = Block()

        def append(new: Operation) -> Operation:
            block.add_op(new)
            return new

        inner = adjoints.nested(append)
        cloned, ops = _clone_pure(region.block, append, adjoints.callees)
        terminator = region.block.last_op
        assert terminator is not None
        for value, g in zip(terminator.operands, grads, strict=True):
            if g is not None:
                _refuse_effect_result(value, cloned, region.block, adjoints.callees)
                inner.add_to(cloned.get(value, value), g)
        _reverse(ops, inner)
        block.add_op(graph.YieldOp(*[inner.sums.get(c) or inner.const(0.0, c) for c in captured]))
        return Region(block)

    rev = graph.CondOp(op.pred, [c.type for c in captured], reverse(op.then_region), reverse(op.else_region))
    rev.location = op.location
    adjoints.insert(rev)
    for c, r in zip(captured, rev.results, strict=True):
        adjoints.add_to(c, r)


def _reverse_call(op: func.CallOp, grads: Sequence[SSAValue | None], adjoints: Adjoints) -> None:
    """A call differentiated through its callee: the callee's pure ops are computed again on the
    call's operands where the gradient is built (``cse`` merges them with the call's own when
    ``graph-inline-calls`` inlines it; a callee kept a function computes them twice), and
    reversed onto the operands."""
    callee = adjoints.callees(op)
    if callee is None:
        raise AutodiffError(f"{describe_location(op.location)}: the gradient flows through a call of "
                            f"@{op.callee.string_value()}, which is not in the module")
    body = callee.body.block
    cloned, ops = _clone_pure(body, adjoints.insert, adjoints.callees, op.arguments)
    ret = body.last_op
    assert isinstance(ret, func.ReturnOp)
    for value, g in zip(ret.arguments, grads, strict=True):
        if g is None:
            continue
        if value not in cloned:
            raise AutodiffError(f"{describe_location(op.location)}: the gradient flows through a result of "
                                f"@{op.callee.string_value()} computed by an effect, which has no gradient")
        adjoints.add_to(cloned[value], g)
    _reverse(ops, adjoints)


def _refuse_effect_result(value: SSAValue, cloned: dict[SSAValue, SSAValue], block: Block, callees: Callees) -> None:
    """Refuse a branch result with a gradient that an op :func:`_clone_pure` left out computes from
    float values (a loop or ``if`` with an effect inside, kiln.fuzz grad 15480-9): its gradient
    would be lost. A variable read (from a handle) has none to pass back."""
    op = value.owner
    if value in cloned or not isinstance(op, Operation) or op.parent_block() is not block:
        return
    if not (op.regions or any(differentiable(o) for o in op.operands)):
        return
    if isinstance(op, graph.WhileOp):
        _check_loop(op, callees)
    raise AutodiffError(
        f"{describe_location(op.location)}: differentiating through a staged `if` whose branch yields the result "
        f"of {op.name} with an effect inside (a print, a variable read or write, a run-time check) is not supported yet"
    )


def _reverse_while(op: graph.WhileOp, grads: Sequence[SSAValue | None], adjoints: Adjoints) -> None:
    """A ``graph.while`` differentiated by keeping its forward states.

    Where the loop was, a copy of it that counts finds the trip count ``n``, and the loop is
    replaced by one that also writes its body's arguments at iteration ``k`` into row ``k`` of
    stacks of ``n`` rows (memory linear in the trip count). After the target, a reverse loop
    runs ``k = n-1 .. 0``: it reads state ``k``, recomputes the body from it and carries the
    adjoints of the loop state back, summing those of the values the loop uses from outside."""
    _check_loop(op, adjoints.callees)
    cond_term = op.cond_region.block.last_op
    assert cond_term is not None
    if not all(a is b for a, b in zip(cond_term.operands[1:], op.cond_region.block.args, strict=True)):
        raise AutodiffError(
            f"{describe_location(op.location)}: differentiating a loop whose condition changes the values it "
            "passes on is not supported"
        )
    block = op.parent_block()
    assert block is not None

    def before(new: Operation) -> Operation:
        new.location = op.location
        block.insert_op_before(new, op)
        return new

    pre = adjoints.nested(before)
    zero, one = _i64(pre, 0), _i64(pre, 1)
    count = before(_with_extra_carried(op, [zero], lambda body, extra: [_add_before_end(body, extra[0], one)])).results[-1]
    carried = list(op.body_region.block.args)
    recorded = before(_recording_loop(op, [zero, *(_zeros_rows(pre, count, a.type) for a in carried)], one))
    n = len(op.results)
    for old, new in zip(op.results, recorded.results[:n], strict=True):
        old.replace_all_uses_with(new)  # the loop itself stays for a value the caller still holds; else it is dead
    stacks = list(recorded.results[n + 1 : 2 * n + 1])

    b = adjoints
    float_state = [i for i, v in enumerate(carried) if differentiable(v)]
    captured = [v for v in _captured(recorded) if differentiable(v)]
    seeds = [grads[i] if grads[i] is not None else b.const(0.0, carried[i].type) for i in float_state]
    init = [b.sub(count, one), *seeds, *(b.const(0.0, c) for c in captured)]
    types = [v.type for v in init]

    cond_block = Block(arg_types=types)
    zero_in = _i64(adjoints.nested(_appender(cond_block)), 0)
    cond_block.add_op(pred := graph.CmpOp("ge", cond_block.args[0], zero_in))
    cond_block.add_op(graph.ConditionOp(pred.result, *cond_block.args))

    body = Block(arg_types=types)
    inner = adjoints.nested(_appender(body))
    k = body.args[0]
    states = [inner.op(graph.GatherRowOp(stack, k)) for stack in stacks]
    forward = recorded.body_region.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(forward.args[:n], states, strict=True))
    clones: list[Operation] = []
    for fop in forward.ops:
        if isinstance(fop, graph.ScatterRowOp) and fop.operand in forward.args[n:]:
            break  # the recording's own ops, after the forward body's
        clone = fop.clone(value_mapper=dict(mapping))
        body.add_op(clone)
        clones.append(clone)
        mapping.update(zip(fop.results, clone.results))
    terminator = forward.last_op
    assert terminator is not None
    for j, i in enumerate(float_state):
        inner.add_to(mapping.get(terminator.operands[i], terminator.operands[i]), body.args[1 + j])
    _reverse(clones, inner)
    outs = [inner.sub(k, _i64(inner, 1))]
    outs += [inner.sums.get(states[i]) or inner.const(0.0, states[i]) for i in float_state]
    for j, c in enumerate(captured):
        acc = body.args[1 + len(float_state) + j]
        new = inner.sums.get(c)
        outs.append(inner.add(acc, new) if new is not None else acc)
    body.add_op(graph.YieldOp(*outs))
    rev = graph.WhileOp(init, Region(cond_block), Region(body))
    rev.location = recorded.location
    b.insert(rev)
    for j, i in enumerate(float_state):
        b.add_to(recorded.init[i], rev.results[1 + j])
    for j, c in enumerate(captured):
        b.add_to(c, rev.results[1 + len(float_state) + j])


def _appender(block: Block) -> Insert:
    def append(new: Operation) -> Operation:
        block.add_op(new)
        return new

    return append


def _i64(b: Adjoints, value: int) -> SSAValue:
    return b.op(graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(graph.tensor_type(IntegerType(64), []), [value])))


def _check_loop(op: graph.WhileOp, callees: Callees) -> None:
    for region in op.regions:
        for inner in region.walk():
            if not (_pure(inner, callees) or isinstance(inner, (graph.YieldOp, graph.ConditionOp))):
                raise AutodiffError(
                    f"{describe_location(inner.location)}: differentiating a staged loop with an effect inside "
                    f"({inner.name}: a print, a variable read or write, a run-time check) is not supported yet"
                )


def _add_before_end(block: Block, a: SSAValue, c: SSAValue) -> SSAValue:
    add = graph.AddOp(a, c)
    block.insert_op_before(add, block.last_op)  # type: ignore[arg-type]
    return add.result


def _recording_loop(op: graph.WhileOp, extra: list[SSAValue], one: SSAValue) -> graph.WhileOp:
    """``op`` carrying a counter ``k`` and a stack per body argument (``extra``), writing the
    body's arguments at iteration ``k`` into row ``k``."""
    n = len(op.init)

    def record(body: Block, carried: list[SSAValue]) -> list[SSAValue]:
        k, stacks = carried[0], carried[1:]
        rows = []
        for stack, arg in zip(stacks, body.args[:n], strict=True):
            write = graph.ScatterRowOp(stack, k, arg)
            body.insert_op_before(write, body.last_op)  # type: ignore[arg-type]
            rows.append(write.result)
        return [_add_before_end(body, k, one), *rows]

    return _with_extra_carried(op, extra, record)


def _with_extra_carried(op: graph.WhileOp, extra_init: list[SSAValue],
                        update: Callable[[Block, list[SSAValue]], list[SSAValue]]) -> graph.WhileOp:
    """A copy of ``op`` carrying ``extra_init`` too, updated in the body by ``update``; the extra
    values come last among the results."""
    n = len(op.init)
    types = [*op.init.types, *(v.type for v in extra_init)]
    cond, body = Block(arg_types=types), Block(arg_types=types)
    for new, old in ((cond, op.cond_region.block), (body, op.body_region.block)):
        mapping: dict[SSAValue, SSAValue] = dict(zip(old.args, new.args[:n]))
        for inner in old.ops:
            if inner is old.last_op:
                break
            clone = inner.clone(value_mapper=dict(mapping))
            new.add_op(clone)
            mapping.update(zip(inner.results, clone.results))
        term = old.last_op
        assert term is not None
        operands = [mapping.get(v, v) for v in term.operands]
        if new is cond:
            new.add_op(graph.ConditionOp(operands[0], *operands[1:], *new.args[n:]))
        else:
            placeholder = graph.YieldOp(*operands)
            new.add_op(placeholder)
            extra = update(new, list(new.args[n:]))
            placeholder.detach()
            placeholder.erase()
            new.add_op(graph.YieldOp(*operands, *extra))
    loop = graph.WhileOp([*op.init, *extra_init], Region(cond), Region(body))
    loop.location = op.location
    return loop


def _zeros_rows(b: Adjoints, count: SSAValue, row: Attribute) -> SSAValue:
    """Zeros of shape ``(count, *row.shape)``, ``count`` known at run time."""
    assert isinstance(row, TensorType)
    shape = list(shape_of(row))
    index = b.op(graph.IotaOp(count))
    zeros = b.op(graph.CastOp(b.sub(index, index), row.element_type))
    if not shape:
        return zeros
    column = b.op(graph.ReshapeOp(zeros, [-1] + [1] * len(shape)))
    return b.op(graph.BroadcastOp(column, [-1, *shape]))


def _clone_pure(block: Block, append: Insert, callees: Callees, arguments: Sequence[SSAValue] = (),
                ) -> tuple[dict[SSAValue, SSAValue], list[Operation]]:
    """Clone ``block``'s pure ops (not its terminator) with ``append``, its arguments standing for
    ``arguments`` (a callee's: the call's operands): forward value -> clone, and the clones in order."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, arguments))
    clones: list[Operation] = []
    skipped: set[SSAValue] = set()
    for op in block.ops:
        if op is block.last_op:
            break
        if not _pure(op, callees):
            skipped.update(op.results)
            continue
        used = [o for nested in op.walk() for o in nested.operands]
        if bad := next((v for v in used if v in skipped), None):
            raise AutodiffError(
                f"{describe_location(op.location)}: differentiating through a staged `if` whose branch computes "
                f"with the result of {bad.owner.name if isinstance(bad.owner, Operation) else 'an effect'} "
                "(a variable read or other effect inside the branch) is not supported"
            )
        clone = op.clone(value_mapper=dict(mapping))
        append(clone)
        clones.append(clone)
        mapping.update(zip(op.results, clone.results))
    return mapping, clones


def _pure(op: Operation, callees: Callees) -> bool:
    """Whether the reverse pass may recompute ``op`` (clone it where the forward values are gone):
    an op without effects (its regions' ops, or a call's callee's, too), or a run-time check ordered
    by no token (an index in range: it passed in the forward run, and passes again on the same values)."""
    if isinstance(op, func.CallOp):
        callee = callees(op)
        return callee is not None and all(_pure(inner, callees) or isinstance(inner, func.ReturnOp)
                                          for inner in callee.body.block.ops)
    if op.regions:
        return all(_pure(inner, callees) or isinstance(inner, graph.YieldOp) for region in op.regions
                   for inner in region.walk())
    return op.has_trait(Pure) or (isinstance(op, graph.CheckOp) and op.tok_in is None and not op.results)


def _captured(op: Operation) -> list[SSAValue]:
    """The values ``op``'s regions use from outside them, in first-use order."""
    inside: set[SSAValue] = set()
    found: dict[SSAValue, None] = {}
    for region in op.regions:
        for inner in region.walk():
            inside.update(inner.results)
            for b in inner.regions:
                for blk in b.blocks:
                    inside.update(blk.args)
        for blk in region.blocks:
            inside.update(blk.args)
    for region in op.regions:
        for inner in region.walk():
            for v in inner.operands:
                if v not in inside:
                    found[v] = None
    return list(found)


def _ops_between(block: Block, target: SSAValue, sources: Sequence[SSAValue]) -> list[Operation]:
    """The ops of ``block``, in order, on a float path from a source to ``target``."""
    reaches: set[SSAValue] = set(sources)
    on_path: list[Operation] = []
    for op in block.ops:
        if _no_gradient(op):
            continue
        inputs = [*op.operands, *_captured(op)] if op.regions else list(op.operands)
        if any(o in reaches for o in inputs):
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
            if op.regions:
                needed.update(_captured(op))
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
