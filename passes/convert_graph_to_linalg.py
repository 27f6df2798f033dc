"""``convert-graph-to-linalg``: the graph dialect to the tensor level.

Expects: ``func.func``s over ``graph`` ops (as traced, or written by hand).
Produces: ``linalg.generic`` on tensors for every elementwise op, broadcast,
transpose, slice, reduction and matmul (one op per graph op, so that fusion at
this level sees plain indexing maps), ``tensor.empty`` for results,
``linalg.fill`` for reduction initial values, ``tensor.collapse_shape`` /
``tensor.expand_shape`` for reshapes and ``arith.constant`` for literals;
``graph.cond``/``graph.while`` become ``scf.if``/``scf.while`` (same regions, the
0-d ``tensor<i1>`` predicate extracted), ``graph.gather_row``/``scatter_row`` a
``tensor.extract_slice``/``insert_slice`` at a computed row offset, ``graph.concat`` a chain
of ``tensor.insert_slice``. Everything it produces passes xDSL's verifier. Tokens,
``graph.print``, ``graph.read`` and ``graph.assign`` stay: kiln-bufferize lowers them.
Locations are carried over from each graph op to everything it becomes. Integer types
come out signless; unsigned function arguments and results are marked ``kiln.unsigned``
(passes/_signless.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.dialects.ir_utils import defined_before, describe_location
from kiln.passes import _scalar_math  # noqa: F401  (registers the math ops' scalar bodies)
from kiln.passes._generic import build_generic
from kiln.passes._signless import erase_signedness
from kiln.passes._complex import BUILDERS as COMPLEX_BUILDERS, plain_mul
from kiln.passes._scalar import BINARY, UNARY, ScalarBuilder, builder, cast, compare, floordiv_pow2, in_f32, mod_pow2
from kiln.passes._scalar import scalar_constant


class _Emitter:
    """Collects the ops one graph op lowers to, all at the graph op's location."""

    def __init__(self, origin: Operation):
        self.origin = origin
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        op.location = self.origin.location
        self.ops.append(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def index(self, value: int) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def dim(self, source: SSAValue, axis: int) -> SSAValue:
        return self.add(tensor.DimOp(source, self.index(axis)))

    def empty(self, t: TensorType, dims_from: Callable[[int], SSAValue]) -> SSAValue:
        """``tensor.empty`` of type ``t``; ``dims_from(axis)`` gives each dynamic size."""
        dynamic = [dims_from(i) for i, d in enumerate(graph.shape_of(t)) if d < 0]
        return self.add(tensor.EmptyOp.create(operands=dynamic, result_types=[t]))

    def fill(self, value: complex | float | int | bool, init: SSAValue) -> SSAValue:
        """``init`` filled with ``value``: ``linalg.fill`` of a scalar constant, or (xDSL's fill
        takes no complex scalars) a generic yielding a ``complex.constant``."""
        t = init.type
        assert isinstance(t, TensorType)
        element = t.get_element_type()
        if not isinstance(element, ComplexType):
            return self.add(linalg.FillOp([self.add(scalar_constant(value, element))], [init], [t]))
        rank = len(t.get_shape())
        return self.generic([], init, [_identity(rank)], ["parallel"] * rank, lambda b, a: b.value(scalar_constant(value, element)))

    def generic(
        self,
        inputs: Sequence[SSAValue],
        init: SSAValue,
        maps: Sequence[AffineMap],
        iterators: Sequence[str],
        body: Callable[[ScalarBuilder, Sequence[SSAValue]], SSAValue],
    ) -> SSAValue:
        """One ``linalg.generic``: ``body(builder, [input scalars..., init scalar])`` yields the value."""
        out_t = init.type
        assert isinstance(out_t, TensorType)
        block = Block(
            arg_types=[_element(v) for v in inputs] + [out_t.get_element_type()]
        )
        value = body(ScalarBuilder(block), list(block.args))
        block.add_op(linalg.YieldOp.create(operands=[value]))
        for op in block.ops:
            op.location = self.origin.location
        return self.add(build_generic(inputs, [init], Region(block), maps, iterators, [out_t]))


def _element(v: SSAValue) -> Attribute:
    assert isinstance(v.type, TensorType)
    return v.type.get_element_type()


def _identity(rank: int) -> AffineMap:
    return AffineMap.identity(rank)


def _dims_like(em: _Emitter, source: SSAValue) -> Callable[[int], SSAValue]:
    return lambda axis: em.dim(source, axis)


def _fail(op: Operation, message: str) -> DiagnosticException:
    return DiagnosticException(f"{describe_location(op.location)}: {op.name}: {message}")


# --------------------------------------------------------------------------- patterns


class LowerElementwise(RewritePattern):
    """Binary, unary, comparison, select and cast ops become one parallel generic each."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        name = op.name
        shift = _power_of_two_divisor(op) if name in ("graph.floordiv", "graph.mod") else None
        if shift is not None:
            pow2 = floordiv_pow2 if name == "graph.floordiv" else mod_pow2
            body: Callable[[ScalarBuilder, Sequence[SSAValue]], SSAValue] = lambda b, a: pow2(b, a[0], shift)
        elif name in BINARY or name in UNARY or name in COMPLEX_BUILDERS:
            fn = builder(name)  # complex parts; float16 computes in f32, rounded after each op
            count = len(op.operands)
            body = lambda b, a: fn(b, *a[:count])
        elif isinstance(op, graph.ComplexOp):
            from xdsl.dialects import complex as cplx  # (loaded by the first complex value: ~5 ms)

            made = _element(op.result)
            body = lambda b, a: b.value(cplx.CreateOp(a[0], a[1], made))
        elif isinstance(op, graph.CmpOp):
            pred = op.predicate.data
            cmp = in_f32(lambda b, x, y: compare(b, pred, x, y))
            body = lambda b, a: cmp(b, a[0], a[1])
        elif isinstance(op, graph.SelectOp):
            body = lambda b, a: b.select(a[0], a[1], a[2])
        elif isinstance(op, graph.CastOp):
            to = _element(op.result)
            body = lambda b, a: cast(b, a[0], to)
        else:
            return
        result = op.results[0]
        assert isinstance(result.type, TensorType)
        em = _Emitter(op)
        rank = len(graph.shape_of(result))
        init = em.empty(result.type, _dims_like(em, op.operands[0]))
        em.generic(
            list(op.operands),
            init,
            [_identity(rank)] * (len(op.operands) + 1),
            ["parallel"] * rank,
            body,
        )
        rewriter.replace(op, em.ops)


def _power_of_two_divisor(op: Operation) -> int | None:
    """k when ``op``'s divisor is the integer constant 2**k (k >= 1, splat or through a
    broadcast), so ``//`` and ``%`` become a shift and a mask (``x % 2 == 0`` in a loop)."""
    divisor = op.operands[1]
    while True:  # through broadcasts, as traced or already lowered (a generic yielding its input)
        owner = divisor.owner
        if isinstance(owner, graph.BroadcastOp):
            divisor = owner.operand
        elif isinstance(owner, linalg.GenericOp) and len(owner.inputs) == 1 and _yields_input(owner):
            divisor = owner.inputs[0]
        else:
            break
    if isinstance(owner, graph.ConstantOp | arith.ConstantOp):  # lowered first when the walk met it first
        dense = owner.value
    else:
        return None
    if not isinstance(dense, DenseIntOrFPElementsAttr) or not isinstance(_element(divisor), IntegerType):
        return None
    if _element(divisor) == i1:
        return None
    values = set(dense.get_values())
    if len(values) != 1:
        return None
    (value,) = values
    return value.bit_length() - 1 if isinstance(value, int) and value >= 2 and value & (value - 1) == 0 else None


def _yields_input(generic: linalg.GenericOp) -> bool:
    body = generic.body.block
    yield_op = body.last_op
    return (isinstance(yield_op, linalg.YieldOp) and body.first_op is yield_op
            and list(yield_op.operands) == [body.args[0]])


class LowerConstant(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, graph.ConstantOp):
            em = _Emitter(op)
            em.add(arith.ConstantOp(op.value))
            rewriter.replace(op, em.ops)


def _size_witness(op: graph.BroadcastOp) -> SSAValue | None:
    """A value of the broadcast result's shape defined before it: another operand of an
    elementwise user (``x + 1`` with a dynamic ``x`` broadcasts ``1`` to ``x``'s size)."""
    shape = graph.shape_of(op.result)
    for use in op.result.uses:
        user = use.operation
        if isinstance(user, (graph.ElementwiseBinaryOp, graph.CmpOp, graph.SelectOp)):
            for other in user.operands:
                if other is not op.result and graph.shape_of(other) == shape and defined_before(other, op):
                    return other
    return None


def _scattered_size(op: graph.BroadcastOp, axis: int) -> tuple[SSAValue, int] | None:
    """(value, its axis) of the broadcast result's size ``axis`` when the result is the updates of a
    ``graph.scatter`` (``x[idx] = 1`` with ``idx`` of a length known only at run time): the
    updates' shape is the indices' shape, then the scattered operand's trailing sizes."""
    for use in op.result.uses:
        user = use.operation
        if isinstance(user, graph.ScatterOp) and user.updates is op.result and user.indices:
            batch = len(graph.shape_of(user.indices[0]))
            value, at = (user.indices[0], axis) if axis < batch else (user.operand, axis - batch + len(user.indices))
            if defined_before(value, op):
                return value, at
    return None


def _inserted_size(op: graph.BroadcastOp, axis: int) -> SSAValue | None:
    """The size of the broadcast result's dynamic dimension ``axis`` as the 0-d size operand of a
    ``graph.insert_slice`` that writes the result (``x[:n] = v`` with a traced ``n``), directly or
    through a reshape that only adds or drops unit axes (``y[:, 1] = v`` writes a column of shape
    ``?x1``), when that operand is defined before the broadcast."""
    for use in op.result.uses:
        user, written, at = use.operation, op.result, axis
        if isinstance(user, graph.ReshapeOp) and user.result.has_one_use():
            at = _unit_reshaped_axis(graph.shape_of(op.result), graph.shape_of(user.result), axis)
            written, user = user.result, user.result.get_user_of_unique_use()
        if at is not None and isinstance(user, graph.InsertSliceOp) and user.source is written:
            static = list(user.static_sizes.get_values())
            position = sum(1 for k in static[:at] if k == graph.DYNAMIC)
            size = user.sizes[position]
            if defined_before(size, op):
                return size
    return None


def _unit_reshaped_axis(src: tuple[int, ...], dst: tuple[int, ...], axis: int) -> int | None:
    """Where axis ``axis`` of ``src`` stands in ``dst`` when the reshape only adds or drops axes of
    length 1 (the other sizes in order); None otherwise."""
    kept = [a for a, d in enumerate(src) if d != 1]
    placed = [a for a, d in enumerate(dst) if d != 1]
    if [src[a] for a in kept] != [dst[a] for a in placed] or axis not in kept:
        return None
    return placed[kept.index(axis)]


class LowerBroadcast(RewritePattern):
    """Size-1 and missing leading dims read index 0 / nothing: an indexing map, no copy logic."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.BroadcastOp):
            return
        src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
        lead = len(dst) - len(src)
        exprs = [
            AffineExpr.constant(0) if s == 1 and d != 1 else AffineExpr.dimension(lead + i)
            for i, (s, d) in enumerate(zip(src, dst[lead:]))
        ]
        em = _Emitter(op)

        def dims(axis: int) -> SSAValue:
            if axis < lead or src[axis - lead] == 1:
                witness = _size_witness(op)
                if witness is not None:
                    return em.dim(witness, axis)
                scattered = _scattered_size(op, axis)
                if scattered is not None:
                    return em.dim(*scattered)
                size = _inserted_size(op, axis)
                if size is None:
                    raise _fail(op, f"dynamic dimension {axis} of the broadcast result has no source")
                return em.add(arith.IndexCastOp(em.add(tensor.ExtractOp(size, [], _element(size))), IndexType()))
            return em.dim(op.operand, axis - lead)

        assert isinstance(op.result.type, TensorType)
        init = em.empty(op.result.type, dims)
        em.generic(
            [op.operand],
            init,
            [AffineMap(len(dst), 0, tuple(exprs)), _identity(len(dst))],
            ["parallel"] * len(dst),
            lambda b, a: a[0],
        )
        rewriter.replace(op, em.ops)


class LowerTranspose(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.TransposeOp):
            return
        perm = list(op.perm.get_values())
        rank = len(perm)
        # result[i0..] = operand[j..] with j[perm[k]] = i[k]
        inverse = [0] * rank
        for k, p in enumerate(perm):
            inverse[p] = k
        in_map = AffineMap(rank, 0, tuple(AffineExpr.dimension(inverse[j]) for j in range(rank)))
        em = _Emitter(op)
        assert isinstance(op.result.type, TensorType)
        init = em.empty(op.result.type, lambda axis: em.dim(op.operand, perm[axis]))
        em.generic([op.operand], init, [in_map, _identity(rank)], ["parallel"] * rank, lambda b, a: a[0])
        rewriter.replace(op, em.ops)


class LowerSlice(RewritePattern):
    """A positive-stride view (``tensor.extract_slice``); negative strides add a reversing generic.

    The view must be a real ``extract_slice``: a ``linalg.generic`` reading a larger
    input through a shifted map would take its loop bounds from the input's shape.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.SliceOp):
            return
        start, stride = op.start.get_values(), op.stride.get_values()
        sizes = graph.shape_of(op.result)
        # the same elements in increasing order: first index and a positive stride
        offsets = [b + (m - 1) * s if s < 0 and m > 0 else b for b, s, m in zip(start, stride, sizes)]
        em = _Emitter(op)
        assert isinstance(op.result.type, TensorType)
        view = em.add(
            tensor.ExtractSliceOp(op.operand, offsets, list(sizes), [abs(s) for s in stride], op.result.type)
        )
        if any(s < 0 for s in stride):
            rank = len(sizes)
            exprs = tuple(
                AffineExpr.dimension(i) * -1 + (m - 1) if s < 0 else AffineExpr.dimension(i)
                for i, (s, m) in enumerate(zip(stride, sizes))
            )
            init = em.empty(op.result.type, lambda axis: em.dim(view, axis))
            em.generic([view], init, [AffineMap(rank, 0, exprs), _identity(rank)], ["parallel"] * rank, lambda b, a: a[0])
        rewriter.replace(op, em.ops)


def _reduction_identity(kind: str, element: Attribute) -> complex | float | int | bool:
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    if isinstance(element, ComplexType):  # below (above) every value in NumPy's lexicographic order
        bound = float("-inf") if kind == "max" else float("inf")
        return complex(bound, bound)
    if isinstance(element, AnyFloat):
        return float("-inf") if kind == "max" else float("inf")
    assert isinstance(element, IntegerType)
    width = element.width.data
    if width == 1:
        return kind == "min"
    if graph.is_unsigned(element):
        return 0 if kind == "max" else 2**width - 1
    return -(2 ** (width - 1)) if kind == "max" else 2 ** (width - 1) - 1


_COMBINE: dict[str, str] = {
    "sum": "graph.add",
    "mean": "graph.add",
    "prod": "graph.mul",
    "max": "graph.maximum",
    "min": "graph.minimum",
}


class LowerReduce(RewritePattern):
    """Fill with the identity, accumulate in a reduction generic; mean divides afterwards."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.ReduceOp):
            return
        kind = op.kind.data
        axes = list(op.axes.get_values())
        keep = op.keepdims is not None
        src = graph.shape_of(op.operand)
        rank = len(src)
        element = _element(op.operand)
        out_exprs = tuple(
            AffineExpr.constant(0) if i in axes else AffineExpr.dimension(i)
            for i in range(rank)
            if keep or i not in axes
        )
        kept = [i for i in range(rank) if keep or i not in axes]
        em = _Emitter(op)
        assert isinstance(op.result.type, TensorType)
        init = em.empty(op.result.type, lambda axis: em.dim(op.operand, kept[axis]))
        filled = em.fill(_reduction_identity(kind, element), init)
        # NumPy's complex product reduction multiplies without fused operations
        combine = plain_mul if kind == "prod" and isinstance(element, ComplexType) else builder(_COMBINE[kind])
        acc = em.generic(
            [op.operand],
            filled,
            [_identity(rank), AffineMap(rank, 0, out_exprs)],
            ["reduction" if i in axes else "parallel" for i in range(rank)],
            lambda b, a: combine(b, a[1], a[0]),
        )
        if kind == "mean":
            count = em.add(scalar_constant(self._count(op, axes, src), element))
            divide = builder("graph.div")
            out_rank = len(graph.shape_of(op.result))
            init2 = em.empty(op.result.type, lambda axis: em.dim(acc, axis))
            em.generic(
                [acc],
                init2,
                [_identity(out_rank)] * 2,
                ["parallel"] * out_rank,
                lambda b, a: divide(b, a[0], count),
            )
        rewriter.replace(op, em.ops)

    @staticmethod
    def _count(op: graph.ReduceOp, axes: list[int], src: tuple[int, ...]) -> float:
        if any(src[a] < 0 for a in axes):
            raise _fail(op, "mean over a dynamic dimension is not supported yet")
        n = 1
        for a in axes:
            n *= src[a]
        return float(n)


class LowerMatmul(RewritePattern):
    """NumPy matmul as one generic: dims (batch..., m, n, k); 1-D operands drop m or n."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.MatmulOp):
            return
        a, b = graph.shape_of(op.lhs), graph.shape_of(op.rhs)
        batch = max(len(a), len(b), 2) - 2
        d = AffineExpr.dimension
        # loop dims: batch..., m (if lhs is a matrix), n (if rhs is a matrix), k
        m = batch if len(a) != 1 else None
        n = batch + (m is not None) if len(b) != 1 else None
        k = batch + (m is not None) + (n is not None)
        nd = k + 1

        def batch_exprs(rank: int) -> list[AffineExpr]:
            own = rank - 2
            return [d(batch - own + i) for i in range(own)] if own > 0 else []

        lhs = [d(k)] if m is None else [*batch_exprs(len(a)), d(m), d(k)]
        rhs = [d(k)] if n is None else [*batch_exprs(len(b)), d(k), d(n)]
        out = [d(i) for i in range(nd - 1)]
        em = _Emitter(op)
        assert isinstance(op.result.type, TensorType)

        def dims(axis: int) -> SSAValue:
            # result dims are (batch..., m?, n?)
            if axis < batch:
                src = op.lhs if len(a) - 2 >= batch - axis else op.rhs
                rank = len(graph.shape_of(src))
                return em.dim(src, rank - 2 - (batch - axis))
            if axis == m:
                return em.dim(op.lhs, len(a) - 2)
            return em.dim(op.rhs, len(b) - 1)

        init = em.empty(op.result.type, dims)
        filled = em.fill(0, init)
        mul, add = builder("graph.mul"), builder("graph.add")
        em.generic(
            [op.lhs, op.rhs],
            filled,
            [AffineMap(nd, 0, tuple(lhs)), AffineMap(nd, 0, tuple(rhs)), AffineMap(nd, 0, tuple(out))],
            ["parallel"] * (nd - 1) + ["reduction"],
            lambda bld, v: add(bld, v[2], mul(bld, v[0], v[1])),
        )
        rewriter.replace(op, em.ops)


class LowerRelaxShape(RewritePattern):
    """``graph.relax_shape`` is ``tensor.cast`` to the relaxed type (the same buffer, sizes dynamic)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.RelaxShapeOp):
            return
        if op.operand.type == op.result.type:
            rewriter.replace(op, [], [op.operand])
            return
        assert isinstance(op.result.type, TensorType)
        rewriter.replace(op, [tensor.CastOp(op.operand, op.result.type)])


class LowerReshape(RewritePattern):
    """Row-major reshape = collapse to 1-D, then expand (either step skipped when trivial).

    A dynamic source collapses to ``tensor<?xT>``; the one dynamic result size (the frontend
    never makes more: ``-1`` is the only unknown) is the runtime element count divided by the
    static result sizes, an ``output_shape`` operand of the expand. That the division is exact
    is checked before the function runs (kiln.frontend.dynamic_shapes). A static result of a
    dynamic source goes through a ``tensor.cast`` of the flat tensor to its static size."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.ReshapeOp):
            return
        src, dst = graph.shape_of(op.operand), graph.shape_of(op.result)
        if src == dst:
            rewriter.replace(op, [], [op.operand])
            return
        if dst.count(-1) > 1:
            raise _fail(op, "reshape to more than one dynamic dimension: the sizes are not determined")
        em = _Emitter(op)
        element = _element(op.operand)
        assert isinstance(op.result.type, TensorType)
        value = op.operand
        n = -1 if -1 in src else _product(src)
        if len(src) != 1:
            value = self._flatten(em, value, graph.tensor_type(element, [n]))
        if -1 not in dst and n < 0:  # a static result: the runtime count is checked before the call
            n = _product(dst)
            value = em.add(tensor.CastOp(value, graph.tensor_type(element, [n])))
        if len(dst) == 1:
            if value.type != op.result.type:
                value = em.add(tensor.CastOp(value, op.result.type))
        elif not dst:
            value = em.add(
                tensor.CollapseShapeOp.create(
                    operands=[value], result_types=[op.result.type], properties={"reassociation": ArrayAttr([])}
                )
            )
        else:
            dynamic: list[SSAValue] = []
            if -1 in dst:
                rest = _product([d for d in dst if d >= 0])
                total = em.dim(value, 0) if n < 0 else em.index(n)
                dynamic.append(em.add(arith.DivUIOp(total, em.index(rest))) if rest != 1 else total)
            assoc = ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in range(len(dst))])])
            static = [DYNAMIC_INDEX if d < 0 else d for d in dst]
            value = em.add(tensor.ExpandShapeOp(value, dynamic, assoc, static, op.result.type))
        rewriter.replace(op, em.ops, [value])

    @staticmethod
    def _flatten(em: _Emitter, value: SSAValue, flat_t: TensorType) -> SSAValue:
        """``value`` as the 1-D ``flat_t``: one collapse of every axis (a 0-d value is copied into
    one element)."""
        rank = len(graph.shape_of(value))
        if not rank:  # a one-element generic: xDSL's expand_shape refuses a 0-d source (MLIR's takes it)
            init = em.empty(graph.tensor_type(flat_t.get_element_type(), [1]), lambda axis: em.index(1))
            return em.generic([value], init, [AffineMap(1, 0, ()), _identity(1)], ["parallel"], lambda b, v: v[0])
        assoc = ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in range(rank)])])
        return em.add(
            tensor.CollapseShapeOp.create(operands=[value], result_types=[flat_t], properties={"reassociation": assoc})
        )


def _product(sizes: Sequence[int]) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


class LowerConcat(RewritePattern):
    """Each operand is a ``tensor.insert_slice`` into the result at the sum of the sizes before
    it along the axis (a constant, or computed at run time where a size is dynamic); the
    inserts chain through their destination. A generic writing only part of its ``outs``
    (through a shifted output map) gives the same C but is not valid linalg: its loop ranges,
    read off the operands, disagree with the output's size, and the verifier refuses it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.ConcatOp):
            return
        axis = op.axis.value.data
        em = _Emitter(op)
        dims: dict[tuple[SSAValue, int], SSAValue] = {}

        def dim(value: SSAValue, d: int) -> SSAValue:
            if (value, d) not in dims:
                dims[value, d] = em.dim(value, d)
            return dims[value, d]

        offsets: list[int | SSAValue] = [0]
        for value in op.inputs:
            before, size = offsets[-1], graph.shape_of(value)[axis]
            if isinstance(before, int) and size >= 0:
                offsets.append(before + size)
            else:
                known = dim(value, axis) if size < 0 else em.index(size)
                if before == 0:
                    offsets.append(known)
                else:
                    start = em.index(before) if isinstance(before, int) else before
                    offsets.append(em.add(arith.AddiOp(start, known)))
        total = offsets.pop()

        def size_of_result(d: int) -> SSAValue:
            if d != axis:
                return dim(op.inputs[0], d)
            return em.index(total) if isinstance(total, int) else total

        assert isinstance(op.result.type, TensorType)
        acc = em.empty(op.result.type, size_of_result)
        for value, offset in zip(op.inputs, offsets):
            shape = graph.shape_of(value)
            if 0 in shape:
                continue
            static_offsets = [0] * len(shape)
            static_offsets[axis] = offset if isinstance(offset, int) else DYNAMIC_INDEX
            acc = em.add(
                tensor.InsertSliceOp.get(
                    value,
                    acc,
                    [DYNAMIC_INDEX if s < 0 else s for s in shape],
                    static_offsets=static_offsets,
                    offsets=[] if isinstance(offset, int) else [offset],
                    sizes=[dim(value, d) for d, s in enumerate(shape) if s < 0],
                )
            )
        rewriter.replace(op, em.ops, [acc])


class LowerConv2D(RewritePattern):
    """NHWC x HWIO convolution as one generic over (n, oh, ow, co, kh, kw, ci) accumulating into
    a zero fill; SAME padding first inserts the input into a zero-filled larger tensor (an
    ``insert_slice``, as concat's), so the convolution itself is always VALID."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.Conv2DOp):
            return
        x_shape, (kh, kw, _, _) = graph.shape_of(op.input), graph.shape_of(op.filter)
        if -1 in x_shape[1:]:
            raise _fail(op, "convolution over dynamic spatial or channel sizes is not supported yet")
        sh, sw = op.strides.get_values()
        element = _element(op.input)
        em = _Emitter(op)
        d = AffineExpr.dimension
        zero = em.add(scalar_constant(0, element))
        x = op.input
        if op.padding.data == "SAME":
            (top, bottom), (left, right) = (
                graph.conv2d_same_padding(x_shape[1 + i], (kh, kw)[i], (sh, sw)[i]) for i in range(2)
            )
            if top or bottom or left or right:
                n, h, w, c = x_shape
                padded_t = graph.tensor_type(element, [n, h + top + bottom, w + left + right, c])
                padded = em.add(linalg.FillOp([zero], [em.empty(padded_t, _dims_like(em, x))], [padded_t]))
                x = em.add(tensor.InsertSliceOp.get(x, padded, list(x_shape), static_offsets=[0, top, left, 0]))
        assert isinstance(op.result.type, TensorType)
        init = em.empty(op.result.type, _dims_like(em, op.input))
        filled = em.add(linalg.FillOp([zero], [init], [op.result.type]))
        mul, add = builder("graph.mul"), builder("graph.add")
        em.generic(
            [x, op.filter],
            filled,
            [
                AffineMap(7, 0, (d(0), d(1) * sh + d(4), d(2) * sw + d(5), d(6))),
                AffineMap(7, 0, (d(4), d(5), d(6), d(3))),
                AffineMap(7, 0, (d(0), d(1), d(2), d(3))),
            ],
            ["parallel"] * 4 + ["reduction"] * 3,
            lambda bld, v: add(bld, v[2], mul(bld, v[0], v[1])),
        )
        rewriter.replace(op, em.ops)


# --------------------------------------------------------------------------- control flow


def _predicate(em: _Emitter, value: SSAValue) -> SSAValue:
    """The i1 held by a 0-d ``tensor<i1>``."""
    return em.add(tensor.ExtractOp(value, [], _element(value)))


def _lower_terminator(term: Operation, rewriter: PatternRewriter) -> None:
    """``graph.yield`` -> ``scf.yield``; ``graph.condition`` -> extract + ``scf.condition``."""
    em = _Emitter(term)
    if isinstance(term, graph.ConditionOp):
        em.add(scf.ConditionOp(_predicate(em, term.pred), *term.values))
    else:
        assert isinstance(term, graph.YieldOp)
        em.add(scf.YieldOp(*term.values))
    rewriter.replace(term, em.ops, [])


class LowerCond(RewritePattern):
    """``graph.cond`` -> ``scf.if`` on the extracted predicate; the regions move over as they are."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.CondOp):
            return
        for region in op.regions:
            assert region.block.last_op is not None
            _lower_terminator(region.block.last_op, rewriter)
        em = _Emitter(op)
        pred = _predicate(em, op.pred)
        em.add(scf.IfOp(pred, list(op.res.types), op.detach_region(0), op.detach_region(0)))
        rewriter.replace(op, em.ops)


class LowerWhile(RewritePattern):
    """``graph.while`` -> ``scf.while`` with the same carried values and regions."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.WhileOp):
            return
        for region in op.regions:
            assert region.block.last_op is not None
            _lower_terminator(region.block.last_op, rewriter)
        types = list(op.res.types)
        em = _Emitter(op)
        em.add(scf.WhileOp(list(op.init), types, op.detach_region(0), op.detach_region(0)))
        rewriter.replace(op, em.ops)


# --------------------------------------------------------------------------- dynamic rows


def _row_index(em: _Emitter, source: SSAValue, index: SSAValue) -> SSAValue:
    """Row ``index`` of axis 0 as an ``index`` value: negative counts from the end, then
    clamped to ``[0, n-1]`` (a traced index cannot raise; docs/footguns)."""
    element = _element(index)
    raw = em.add(arith.IndexCastOp(em.add(tensor.ExtractOp(index, [], element)), IndexType()))
    n = graph.shape_of(source)[0]
    rows = em.index(n) if n >= 0 else em.dim(source, 0)
    zero = em.index(0)
    wrapped = em.add(
        arith.SelectOp(em.add(arith.CmpiOp(raw, zero, "slt")), em.add(arith.AddiOp(raw, rows)), raw)
    )
    last = em.add(arith.SubiOp(rows, em.index(1)))
    return em.add(arith.MinSIOp(em.add(arith.MaxSIOp(wrapped, zero)), last))


def _row_sizes(em: _Emitter, source: SSAValue) -> list[SSAValue | int]:
    """Sizes of a one-row slice of ``source``: 1, then every other dimension whole."""
    shape = graph.shape_of(source)
    return [1, *(d if d >= 0 else em.dim(source, i) for i, d in enumerate(shape) if i > 0)]


class LowerGatherRow(RewritePattern):
    """``x[i]`` -> a rank-reducing ``tensor.extract_slice`` at a dynamic row offset."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.GatherRowOp):
            return
        em = _Emitter(op)
        row = _row_index(em, op.operand, op.index)
        rank = len(graph.shape_of(op.operand))
        sizes = _row_sizes(em, op.operand)
        em.add(tensor.ExtractSliceOp(op.operand, [row, *[0] * (rank - 1)], sizes, [1] * rank, op.result.type))
        rewriter.replace(op, em.ops)


class LowerScatterRow(RewritePattern):
    """``TensorArray.write`` -> ``tensor.insert_slice`` of the row at a dynamic row offset."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.ScatterRowOp):
            return
        em = _Emitter(op)
        row = _row_index(em, op.operand, op.index)
        rank = len(graph.shape_of(op.operand))
        sizes = _row_sizes(em, op.operand)
        static_sizes = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        em.add(
            tensor.InsertSliceOp.get(
                op.row,
                op.operand,
                static_sizes,
                static_offsets=[DYNAMIC_INDEX, *[0] * (rank - 1)],
                offsets=[row],
                sizes=[s for s in sizes if not isinstance(s, int)],
            )
        )
        rewriter.replace(op, em.ops)


def _mixed_indices(em: _Emitter, static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[SSAValue | int]:
    """The offsets or sizes of a graph slice op as ``index`` values (dynamic) and ints (static)."""
    operands = iter(dynamic)
    out: list[SSAValue | int] = []
    for value in static:
        if value != graph.DYNAMIC:
            out.append(value)
            continue
        scalar = next(operands)
        out.append(em.add(arith.IndexCastOp(em.add(tensor.ExtractOp(scalar, [], _element(scalar))), IndexType())))
    return out


def _split(values: Sequence[SSAValue | int]) -> tuple[list[int], list[SSAValue]]:
    return [v if isinstance(v, int) else DYNAMIC_INDEX for v in values], [v for v in values if not isinstance(v, int)]


class LowerDynamicSlice(RewritePattern):
    """``graph.dynamic_slice`` -> ``tensor.extract_slice`` with SSA offsets and sizes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.DynamicSliceOp):
            return
        em = _Emitter(op)
        offsets = _mixed_indices(em, op.static_offsets.get_values(), op.offsets)
        sizes = _mixed_indices(em, op.static_sizes.get_values(), op.sizes)
        assert isinstance(op.result.type, TensorType)
        em.add(tensor.ExtractSliceOp(op.source, offsets, sizes, list(op.strides.get_values()), op.result.type))
        rewriter.replace(op, em.ops)


class LowerInsertSlice(RewritePattern):
    """``graph.insert_slice`` -> ``tensor.insert_slice`` (in place once bufferized when the old value is dead)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.InsertSliceOp):
            return
        em = _Emitter(op)
        static_offsets, offsets = _split(_mixed_indices(em, op.static_offsets.get_values(), op.offsets))
        static_sizes, sizes = _split(_mixed_indices(em, op.static_sizes.get_values(), op.sizes))
        em.add(
            tensor.InsertSliceOp.get(
                op.source, op.dest, static_sizes, static_offsets=static_offsets,
                static_strides=list(op.strides.get_values()), offsets=offsets, sizes=sizes,
            )
        )
        rewriter.replace(op, em.ops)


class LowerDim(RewritePattern):
    """``graph.dim`` -> ``tensor.dim``, cast to i64 and filled into a 0-d tensor (``linalg.fill``
    bufferizes like any linalg op; ``tensor.from_elements`` would need its own handler)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.DimOp):
            return
        em = _Emitter(op)
        size = em.add(arith.IndexCastOp(em.dim(op.operand, op.axis.value.data), i64))
        assert isinstance(op.result.type, TensorType)
        em.add(linalg.FillOp([size], [em.add(tensor.EmptyOp([], op.result.type))], [op.result.type]))
        rewriter.replace(op, em.ops)


class LowerPadToBound(RewritePattern):
    """``graph.pad_to_bound`` -> ``tensor.insert_slice`` of the value at offset 0 into a
    ``tensor.empty`` of the bound's sizes (a function's result: the caller's buffer, bufferized)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.PadToBoundOp):
            return
        em = _Emitter(op)
        axes = list(op.axes.get_values())
        assert isinstance(op.result.type, TensorType)
        dest = em.empty(op.result.type, lambda d: _mixed_indices(em, [graph.DYNAMIC], [op.sizes[axes.index(d)]])[0]
                        if d in axes else em.dim(op.value, d))
        shape = graph.shape_of(op.value)
        em.add(tensor.InsertSliceOp.get(
            op.value, dest, [DYNAMIC_INDEX if d < 0 else d for d in shape], static_offsets=[0] * len(shape),
            static_strides=[1] * len(shape), sizes=[em.dim(op.value, a) for a, d in enumerate(shape) if d < 0],
        ))
        rewriter.replace(op, em.ops)


def _count_nonzero(em: _Emitter, x: SSAValue) -> SSAValue:
    """The number of nonzero elements of the 1-D ``x`` (``x != 0`` as i64, summed by a reduction
    generic into a 0-d tensor), as an i64 scalar."""
    count_t = TensorType(i64, [])
    zero = em.fill(0, em.add(tensor.EmptyOp([], count_t)))
    count = em.generic(
        [x], zero, [_identity(1), AffineMap(1, 0, ())], ["reduction"],
        lambda b, a: b.value(arith.AddiOp(a[1], cast(b, cast(b, a[0], i1), i64))),
    )
    return em.add(tensor.ExtractOp(count, [], i64))


class LowerAlgorithm(RewritePattern):
    """``graph.scan``/``argreduce``/``sort``/``argsort``/``bincount``/``histogram``/``searchsorted``/``gather``/``iota``/
    ``nonzero``/``compress`` -> the ``kalgo`` op of the same name writing into a ``tensor.empty`` (``nonzero``'s and
    ``compress``'s sized by a count of the nonzero elements of the operand or the mask), ``graph.scatter`` ->
    ``kalgo.scatter`` writing into its operand (sequential algorithms linalg cannot express)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        build: Callable[[SSAValue], Operation]
        if isinstance(op, graph.ScanOp):
            build = lambda init: kalgo.ScanOp(op.kind.data, op.operand, init, op.axis.value.data)
        elif isinstance(op, graph.ArgReduceOp):
            build = lambda init: kalgo.ArgReduceOp(op.kind.data, op.operand, init, op.axis.value.data)
        elif isinstance(op, graph.SortOp):
            build = lambda init: kalgo.SortOp(op.operand, init, op.axis.value.data)
        elif isinstance(op, graph.ArgsortOp):
            build = lambda init: kalgo.ArgsortOp(op.operand, init, op.axis.value.data)
        elif isinstance(op, graph.BincountOp):
            build = lambda init: kalgo.BincountOp(op.operand, op.weights, init)
        elif isinstance(op, graph.SearchsortedOp):
            build = lambda init: kalgo.SearchsortedOp(op.side.data, op.sorted, op.values, init)
        elif isinstance(op, graph.ScatterOp):
            build = lambda init: kalgo.ScatterOp(op.kind.data, op.updates, list(op.indices), init)
        elif isinstance(op, graph.GatherOp):
            build = lambda init: kalgo.GatherOp(op.operand, list(op.indices), init)
        elif isinstance(op, graph.IotaOp):
            build = lambda init: kalgo.IotaOp(init)
        elif isinstance(op, graph.NonzeroOp):
            build = lambda init: kalgo.NonzeroOp(op.operand, init)
        elif isinstance(op, graph.CompressOp):
            build = lambda init: kalgo.CompressOp(op.values, op.mask, init)
        elif not isinstance(op, graph.HistogramOp):
            return
        from kiln.dialects import kalgo  # (loaded by the first algorithm, not by every program: ~2 ms)

        em = _Emitter(op)
        assert isinstance(op.results[0].type, TensorType)
        if isinstance(op, graph.HistogramOp):  # several outputs, each of a static length
            inits = [em.empty(r.type, lambda d: em.index(0)) for r in op.results]
            em.add(kalgo.HistogramOp(list(op.operands), inits))
            rewriter.replace(op, em.ops)
            return
        if isinstance(op, graph.ArgReduceOp):  # the result's dims are the operand's without the axis
            axis = op.axis.value.data
            dims: Callable[[int], SSAValue] = lambda d: em.dim(op.operand, d + (d >= axis))
        elif isinstance(op, graph.IotaOp):  # the count, negative counts as 0
            count = em.add(arith.IndexCastOp(em.add(tensor.ExtractOp(op.count, [], i64)), IndexType()))
            size = em.add(arith.MaxSIOp(count, em.index(0)))
            dims = lambda d: size
        elif isinstance(op, graph.NonzeroOp | graph.CompressOp):  # the count of nonzero elements (of the mask), by one reduction
            counted = op.operand if isinstance(op, graph.NonzeroOp) else op.mask
            size = em.add(arith.IndexCastOp(_count_nonzero(em, counted), IndexType()))
            dims = lambda d: size
        elif isinstance(op, graph.GatherOp):  # the index arrays' dims, then the operand's trailing ones
            batch, skipped = len(graph.shape_of(op.indices[0])), len(op.indices)
            dims = lambda d: em.dim(op.indices[0], d) if d < batch else em.dim(op.operand, d - batch + skipped)
        else:
            dims = _dims_like(em, op.values if isinstance(op, graph.SearchsortedOp) else op.operand)
        if isinstance(op, graph.ScatterOp):  # the operand itself is the destination (in place when dead)
            em.add(build(op.operand))
            rewriter.replace(op, em.ops)
            return
        em.add(build(em.empty(op.results[0].type, dims)))
        rewriter.replace(op, em.ops)


#: graph ops that stay at the tensor level: the bufferizer lowers them (tokens, effects)
KEPT = (graph.TokenOp, graph.PrintOp, graph.CheckOp, graph.ReadOp, graph.AssignOp)


@dataclass(frozen=True)
class ConvertGraphToLinalg(ModulePass):
    """Lower every ``graph`` op to linalg-on-tensors, tensor, arith and math."""

    name = "convert-graph-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    LowerConstant(),
                    LowerElementwise(),
                    LowerBroadcast(),
                    LowerTranspose(),
                    LowerSlice(),
                    LowerReduce(),
                    LowerMatmul(),
                    LowerReshape(),
                    LowerRelaxShape(),
                    LowerConcat(),
                    LowerConv2D(),
                    LowerCond(),
                    LowerWhile(),
                    LowerGatherRow(),
                    LowerScatterRow(),
                    LowerDynamicSlice(),
                    LowerInsertSlice(),
                    LowerDim(),
                    LowerPadToBound(),
                    LowerAlgorithm(),
                ],
                dce_enabled=False,
            ),
            apply_recursively=False,
        ).rewrite_module(op)
        leftover = [o for o in op.walk() if o.dialect_name() == "graph" and not isinstance(o, KEPT)]
        if leftover:
            raise _fail(leftover[0], "no lowering to the tensor level")
        for o in op.walk():
            if isinstance(o, graph.PrintOp) and any(graph.is_unsigned(_element(v)) for v in o.values):
                raise _fail(o, "printing unsigned integers is not supported (kiln.print widens them to int64)")
        erase_signedness(op)
