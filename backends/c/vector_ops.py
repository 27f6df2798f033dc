"""vector-dialect ops, and arith/math ops on vector types, → C for the module's ISA table.

A ``vector<N x T>`` (T = f32/f64) is the C type ``kiln_vNT``: one native register of the
ISA, or a struct of k registers ``{ reg p[k]; }`` when N lanes fill k registers; every op is
then emitted once per register. Comparison results (``vector<N x i1>``) are the ISA's mask
type (``kiln_mNT``): they feed ``arith.select`` and the ISA's mask and/or. See backends/c/isa/ for the tables.
"""

from __future__ import annotations

import math as pymath
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.dialects import arith, math, vector
from xdsl.dialects.builtin import FloatAttr, Float32Type, Float64Type, ModuleOp, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.backends.c import vector_math
from kiln.backends.c.c_types import c_type, float_literal
from kiln.backends.c.dispatch import HANDLERS, Handler, handles
from kiln.backends.c.errors import CEmitError, op_error
from kiln.backends.c.index_expr import add, linear
from kiln.backends.c.isa import IsaTable, resolve_isa, table
from kiln.dialects import kvec
from kiln.dialects.contracts import STREAM_ATTR

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter

_DERIVED_CMP: dict[str, tuple[str, str | None]] = {  # predicate -> (base, combine with)
    "one": ("ogt", "olt"),
    "ord": ("uno", None),
    "ueq": ("one", None),
    "ugt": ("ole", None),
    "uge": ("olt", None),
    "ult": ("oge", None),
    "ule": ("ogt", None),
    "une": ("oeq", None),
}


def elem_name(ty: Attribute) -> str:
    """``f32`` or ``f64`` for a vector's element type; others are not vectorized."""
    elem = ty.get_element_type() if isinstance(ty, VectorType) else ty
    if isinstance(elem, Float32Type):
        return "f32"
    if isinstance(elem, Float64Type):
        return "f64"
    raise CEmitError(f"vectors of {elem} are not supported by the C backend (only f32, f64)")


#: calls of one vector math helper in a module past which it is defined out of line
#: (``noinline``): gcc inlined the 20-line tanh at each of the 1,140 calls of a fused 4,000-op
#: chain's loop body and took 21.9 s on it; out of line, 0.8 s. A loop with a few calls keeps
#: them inline (no call, no spills of the vector registers around it).
OUT_OF_LINE_CALLS = 64


class Simd:
    """Module-wide SIMD state: the ISA table, and the vector types and math helpers in use."""

    def __init__(self, module: ModuleOp, isa: str | None) -> None:
        self.table: IsaTable = table(resolve_isa(isa, module))
        self.math: list[tuple[str, str]] = []
        self.calls: Counter[str] = Counter()  # helper -> calls emitted (not those in other helpers)
        self.used = any(
            isinstance(v.type, VectorType) for op in module.walk() for v in (*op.results, *op.operands)
        )
        self.types: dict[str, str] = {}
        #: vector.create_mask result -> C int local holding its lane count (masked tails)
        self.mask_counts: dict[SSAValue, str] = {}
        if self.used:
            seen: set[Attribute] = set()  # a fused loop repeats a few vector types thousands of times
            for op in module.walk():
                for v in op.results:
                    if isinstance(v.type, VectorType) and v.type not in seen and not _is_mask(v.type):
                        seen.add(v.type)
                        try:
                            self._typedef(v.type)
                        except CEmitError as e:
                            raise op_error(op, str(e)) from None

    def parts(self, ty: VectorType, elem: str) -> int:
        """How many native registers hold ``ty``."""
        native = self.table.lanes(elem)
        lanes = ty.get_shape()[0] if ty.get_num_dims() == 1 else 0
        if ty.get_num_dims() != 1 or lanes <= 0 or lanes % native:
            raise CEmitError(
                f"{ty} is not a whole number of {self.table.name} registers ({native} x {elem}); "
                f"vectorize for this ISA (kiln-vectorize{{isa={self.table.name}}})"
            )
        return lanes // native

    def _typedef(self, ty: VectorType) -> None:
        elem = elem_name(ty)
        k = self.parts(ty, elem)
        for kind, name in (("vec", c_type(ty)), ("mask", mask_c_type(ty))):
            reg = self.table.types[elem][kind]
            self.types[name] = f"typedef {reg} {name};" if k == 1 else f"typedef struct {{ {reg} p[{k}]; }} {name};"

    def use_math(self, fn: str, elem: str, calls: int = 1) -> str:
        """Record that a vector math helper is needed (with its dependencies) for ``calls``
        more calls; returns its name."""
        for dep in vector_math.dependencies(fn, self.table, elem):
            self.use_math(dep, elem, calls=0)
        name = vector_math.helper_name(fn, elem)
        self.calls[name] += calls
        if all(n != name for n, _ in self.math):
            self.math.append((name, vector_math.helper(self.table, fn, elem)))
        return name

    def _definition(self, name: str, text: str) -> str:
        """``text``, the helper's definition, out of line when it is called many times."""
        if self.calls[name] > OUT_OF_LINE_CALLS:
            return text.replace("static inline ", "static __attribute__((noinline)) ", 1)
        return text

    def includes(self) -> list[str]:
        """Lines that must open the translation unit (before any other token: precompiled headers)."""
        return list(self.table.includes) if self.used else []

    def definitions(self) -> list[str]:
        """The ISA preamble, vector typedefs and math helpers, after the other includes."""
        if not self.used:
            return []
        return [f"/* SIMD: {self.table.name} */", self.table.preamble, *self.types.values(), "",
                *(self._definition(name, text) for name, text in self.math)]


def mask_c_type(ty: VectorType) -> str:
    """C type of the mask from comparing two ``ty`` vectors."""
    return f"kiln_m{ty.get_shape()[0]}{elem_name(ty)}"


def _is_mask(ty: Attribute) -> bool:
    return isinstance(ty, VectorType) and not isinstance(ty.get_element_type(), Float32Type | Float64Type)


def _part(name: str, j: int, k: int) -> str:
    return name if k == 1 else f"{name}.p[{j}]"


def _define(em: FunctionEmitter, value: SSAValue, ctype: str, k: int, part_expr: Callable[[int], str]) -> None:
    """Declare a vector local and set each of its k registers."""
    name = em.fresh(value.name_hint, "vec")
    if k == 1:
        em.line(f"{ctype} {name} = {part_expr(0)};")
    else:
        em.line(f"{ctype} {name};")
        for j in range(k):
            em.line(f"{name}.p[{j}] = {part_expr(j)};")
    em.bind(value, name)


def _shape(em: FunctionEmitter, ty: Attribute) -> tuple[str, int, IsaTable]:
    assert isinstance(ty, VectorType)
    elem = elem_name(ty)
    return elem, em.module.simd.parts(ty, elem), em.module.simd.table


def _lanewise(em: FunctionEmitter, result: SSAValue, like: SSAValue, operands: list[SSAValue],
              expr: Callable[[IsaTable, str, list[str]], str]) -> None:
    """Define ``result`` register by register from ``operands`` (vectors shaped like ``like``)."""
    elem, k, t = _shape(em, like.type)
    assert isinstance(like.type, VectorType)
    ctype = mask_c_type(like.type) if _is_mask(result.type) else c_type(result.type)
    names = [em.expr(v) for v in operands]
    _define(em, result, ctype, k, lambda j: expr(t, elem, [_part(n, j, k) for n in names]))


def cmp_expr(t: IsaTable, elem: str, pred: str, a: str, b: str) -> str:
    """A cmpf predicate on registers, derived from the table's basic ones where it has no entry."""
    if f"cmp.{pred}.{elem}" in t.ops:
        return t.op(f"cmp.{pred}", elem, a, b)
    if pred not in _DERIVED_CMP:
        raise CEmitError(f"cmpf {pred} on vectors is not supported")
    base, other = _DERIVED_CMP[pred]
    if other is not None:
        return t.op("mor", elem, cmp_expr(t, elem, base, a, b), cmp_expr(t, elem, other, a, b))
    return t.op("mnot", elem, cmp_expr(t, elem, base, a, b))


def _min_max(t: IsaTable, elem: str, a: str, b: str, is_max: bool) -> str:
    """IEEE maximum/minimum like arith.maximumf: NaN propagates, -0 < +0."""
    name = "maximum" if is_max else "minimum"
    if f"{name}.{elem}" in t.ops:
        return t.op(name, elem, a, b)
    tie = t.op("band" if is_max else "bor", elem, a, b)  # equal: same bits, or +0 and -0
    keep = "maxkeep" if is_max else "minkeep"
    if f"{keep}.{elem}" in t.ops:  # gives b on NaN and on ties: fix a NaN in a, and the zero tie
        picked = t.op("select", elem, t.op("cmp.oeq", elem, a, b), tie, t.op(keep, elem, a, b))
        return t.op("select", elem, t.op("cmp.uno", elem, a, a), a, picked)
    first, second = ("ogt", "olt") if is_max else ("olt", "ogt")
    picked = t.op("select", elem, t.op(f"cmp.{first}", elem, a, b), a,
                  t.op("select", elem, t.op(f"cmp.{second}", elem, a, b), b, tie))
    return t.op("select", elem, t.op("cmp.uno", elem, a, b), t.op("add", elem, a, b), picked)


def _splat_constant(value: SSAValue) -> float | None:
    """The float a vector operand is a broadcast of, when it is a constant."""
    owner = value.owner
    if isinstance(owner, vector.BroadcastOp) and isinstance(owner.source.owner, arith.ConstantOp):
        attr = owner.source.owner.value
        if isinstance(attr, FloatAttr):
            return attr.value.data
    return None


def _min_max_constant(t: IsaTable, elem: str, value: float, is_max: bool) -> Callable[[str, str], str] | None:
    """max/min(a, c) for a constant c in 1-2 ops instead of ~6, as (a, c) -> C: x86's
    ``maxps(c, a)`` already returns a on NaN, and the ±0 tie only matters when c is a zero:
    max(a, +0) = maxps(+0, a) + 0 (-0 + +0 = +0); max(a, -0) and min(a, +0) need nothing.
    None: no short form (min(a, -0), a NaN constant, no maxps in the table)."""
    keep = "maxkeep" if is_max else "minkeep"
    if f"{keep}.{elem}" not in t.ops or value != value:
        return None
    negative_zero = value == 0.0 and pymath.copysign(1.0, value) < 0
    if value != 0.0 or negative_zero == is_max:
        return lambda a, c: t.op(keep, elem, c, a)
    if is_max:
        return lambda a, c: t.op("add", elem, t.op(keep, elem, c, a), c)
    return None


def _neg_zero(t: IsaTable, elem: str) -> str:
    return t.op("broadcast", elem, float_literal(-0.0, Float32Type() if elem == "f32" else Float64Type()))


_BINARY: dict[type, Callable[[IsaTable, str, list[str]], str]] = {
    arith.AddfOp: lambda t, e, o: t.op("add", e, *o),
    arith.SubfOp: lambda t, e, o: t.op("sub", e, *o),
    arith.MulfOp: lambda t, e, o: t.op("mul", e, *o),
    arith.DivfOp: lambda t, e, o: t.op("div", e, *o),
    arith.MaximumfOp: lambda t, e, o: _min_max(t, e, *o, is_max=True),
    arith.MinimumfOp: lambda t, e, o: _min_max(t, e, *o, is_max=False),
    arith.NegfOp: lambda t, e, o: t.op("bxor", e, o[0], _neg_zero(t, e)),
    math.AbsFOp: lambda t, e, o: t.op("bxor", e, o[0], t.op("band", e, o[0], _neg_zero(t, e))),
    math.SqrtOp: lambda t, e, o: t.op("sqrt", e, *o),
    math.FmaOp: lambda t, e, o: t.op("fma", e, *o),
    kvec.SelectOp: lambda t, e, o: t.op("select", e, *o),
}
_MATH_FN: dict[type, str] = {
    math.ExpOp: "exp", math.LogOp: "log", math.TanhOp: "tanh",
    math.SinOp: "sin", math.CosOp: "cos", math.AtanOp: "atan", math.Atan2Op: "atan2",
}
_MASK_LOGIC: dict[type, str] = {arith.AndIOp: "mand", arith.OrIOp: "mor"}


def _compared(mask: SSAValue) -> SSAValue:
    """A float vector of the comparison a mask comes from (the mask's type follows its width)."""
    owner = mask.owner
    while isinstance(owner, arith.AndIOp | arith.OrIOp):
        owner = owner.lhs.owner
    if not isinstance(owner, kvec.CmpfOp):
        raise CEmitError(f"mask logic on {mask.type} that no kvec.cmpf computes")
    return owner.lhs


def _vector_arith(em: FunctionEmitter, op: arith.AddfOp) -> None:
    result = op.results[0]
    operands = list(op.operands)
    if isinstance(op, kvec.CmpfOp):
        pred = op.predicate.data
        _lanewise(em, result, op.lhs, operands, lambda t, e, o: cmp_expr(t, e, pred, *o))
    elif isinstance(op, arith.MaximumfOp | arith.MinimumfOp) and _constant_min_max(em, op):
        return
    elif type(op) in _MASK_LOGIC:
        name = _MASK_LOGIC[type(op)]
        _lanewise(em, result, _compared(result), operands, lambda t, e, o: t.op(name, e, *o))
    elif type(op) in _MATH_FN:
        elem = elem_name(result.type)
        helper = em.module.simd.use_math(_MATH_FN[type(op)], elem, calls=em.module.simd.parts(result.type, elem))
        _lanewise(em, result, result, operands, lambda t, e, o: f"{helper}({', '.join(o)})")
    else:
        _lanewise(em, result, result, operands, _BINARY[type(op)])


@handles(kvec.ExpGroupOp)
def _exp_group(em: FunctionEmitter, op: kvec.ExpGroupOp) -> None:
    """All the exps of the group, with one test of all their inputs for exp's fast path where
    the ISA has one: one branch instead of one per register, and the fast paths side by side
    in one basic block, where the compiler interleaves them. The results are those of
    separate calls."""
    elem, k, t = _shape(em, op.outputs[0].type)
    simd = em.module.simd
    if not vector_math.has_exp_fast_path(t, elem):
        full = simd.use_math("exp", elem, calls=len(op.inputs) * k)
        for x, result in zip(op.inputs, op.outputs, strict=True):
            _lanewise(em, result, result, [x], lambda t, e, o: f"{full}({o[0]})")
        return
    full, near, far = (simd.use_math(fn, elem, calls=len(op.inputs) * k) for fn in ("exp", "exp_near", "exp_far"))
    ins = [[_part(em.expr(x), j, k) for j in range(k)] for x in op.inputs]
    tests = [f"{far}({x})" for regs in ins for x in regs]
    while len(tests) > 1:
        tests = [t.op("mor", elem, a, b) for a, b in zip(tests[::2], tests[1::2], strict=False)] + tests[len(tests) // 2 * 2:]
    outs = [em.fresh(r.name_hint, "vec") for r in op.outputs]
    for r, name in zip(op.outputs, outs, strict=True):
        em.line(f"{c_type(r.type)} {name};")
        em.bind(r, name)
    em.open(f"if (!{t.op('any', elem, tests[0])}) {{")
    for name, regs in zip(outs, ins, strict=True):
        for j, x in enumerate(regs):
            em.line(f"{_part(name, j, k)} = {near}({x});")
    em.depth -= 1
    em.open("} else {")
    for name, regs in zip(outs, ins, strict=True):
        for j, x in enumerate(regs):
            em.line(f"{_part(name, j, k)} = {full}({x});")
    em.close()


def _constant_min_max(em: FunctionEmitter, op: arith.MaximumfOp | arith.MinimumfOp) -> bool:
    """Emit max/min with a constant operand in its short form; False when it has none.

    Instruction selection, so it stays here rather than in a pass: the IR op already says
    what is computed (``arith.maximumf``: NaN propagates, -0 < +0), and whether a constant
    operand makes it one instruction depends on the ISA's table (x86's ``maxps``, whose NaN
    and tie rules only agree with maximumf when the other operand is not NaN). LLVM makes
    the same choice in its x86 instruction selection (operands known never NaN / never zero)."""
    for a, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        value = _splat_constant(c)
        if value is None:
            continue
        elem, _, t = _shape(em, op.result.type)
        form = _min_max_constant(t, elem, value, isinstance(op, arith.MaximumfOp))
        if form is None:
            return False
        _lanewise(em, op.result, op.result, [a, c], lambda t, e, o: form(o[0], o[1]))
        return True
    return False


def _on_vectors(scalar: Handler) -> Handler:
    """The scalar handler, or the vector one when the op's operands are vectors."""

    def handler(em: FunctionEmitter, op: arith.AddfOp) -> None:
        if any(isinstance(v.type, VectorType) for v in op.operands):
            _vector_arith(em, op)
        else:
            scalar(em, op)

    return handler


for _cls in (*_BINARY, *_MATH_FN, *_MASK_LOGIC):
    if _cls is not kvec.SelectOp:
        handles(_cls)(_on_vectors(HANDLERS[_cls]))
handles(kvec.CmpfOp, kvec.SelectOp)(_vector_arith)


def _pointer(em: FunctionEmitter, base: SSAValue, indices: list[SSAValue], lanes: int, j: int) -> str:
    desc = em.memref(base)
    return f"&{desc.ptr}[{add(linear([em.index(i) for i in indices], desc.strides), j * lanes)}]"


@handles(vector.LoadOp)
def _load(em: FunctionEmitter, op: vector.LoadOp) -> None:
    elem, k, t = _shape(em, op.result.type)
    lanes = t.lanes(elem)
    idx = list(op.indices)
    _define(em, op.result, c_type(op.result.type), k, lambda j: t.op("load", elem, _pointer(em, op.base, idx, lanes, j)))


@handles(vector.StoreOp)
def _store(em: FunctionEmitter, op: vector.StoreOp) -> None:
    """A store; one marked ``kiln.stream`` (kiln-stream-stores) in a loop that measures whether
    to stream (backends/c/parallel_ops.py) is a streaming store when that loop's flag says so and
    the address is aligned to the register (the ISA's streaming stores require it)."""
    elem, k, t = _shape(em, op.vector.type)
    lanes, value, idx = t.lanes(elem), em.expr(op.vector), list(op.indices)
    flag = em.stream_flag if STREAM_ATTR in op.attributes and f"stream.{elem}" in t.ops else None
    for j in range(k):
        ptr, part = _pointer(em, op.base, idx, lanes, j), _part(value, j, k)
        if flag:
            em.line(f"if ({flag} && ((uintptr_t)({ptr}) & {t.native_bytes - 1}) == 0) {t.op('stream', elem, ptr, part)};"
                    f" else {t.op('store', elem, ptr, part)};")
        else:
            em.line(t.op("store", elem, ptr, part) + ";")


def streams(loop: Operation) -> bool:
    """Whether ``loop`` holds a store that the emitter makes a streaming store."""
    return any(isinstance(o, vector.StoreOp) and STREAM_ATTR in o.attributes for o in loop.walk())


def stream_fence(em: FunctionEmitter) -> str | None:
    """The statement that ends a loop nest's streaming stores (None: the ISA has none)."""
    t = em.module.simd.table
    return t.op("fence", "f32") + ";" if "fence.f32" in t.ops else None


def _mask_vector_type(mask: SSAValue) -> VectorType:
    """The float vector type a ``vector<N x i1>`` mask applies to (from its users)."""
    for use in mask.uses:
        user = use.operation
        if isinstance(user, vector.MaskedLoadOp):
            return user.result.type  # type: ignore[return-value]
        if isinstance(user, vector.MaskedStoreOp):
            return user.value_to_store.type  # type: ignore[return-value]
        if isinstance(user, kvec.SelectOp):
            return user.result.type  # type: ignore[return-value]
    raise CEmitError("vector.create_mask is supported only feeding masked loads/stores and kvec.select")


def _clamp(x: str, hi: int) -> str:
    return f"({x} < 0 ? 0 : {x} > {hi} ? {hi} : {x})"


@handles(vector.CreateMaskOp)
def _create_mask(em: FunctionEmitter, op: vector.CreateMaskOp) -> None:
    """The first ``count`` lanes: the count (clamped to [0, N]) in an int, then the ISA mask."""
    if len(op.mask_dim_sizes) != 1:
        raise CEmitError("vector.create_mask: only 1-D masks are supported")
    ty = _mask_vector_type(op.mask_vector)
    elem, k, t = _shape(em, ty)
    lanes = t.lanes(elem)
    count = em.fresh("count")
    em.line(f"int {count} = (int){_clamp(str(em.index(op.mask_dim_sizes[0])), lanes * k)};")
    em.module.simd.mask_counts[op.mask_vector] = count
    users = [use.operation for use in op.mask_vector.uses]
    needed = any(isinstance(u, kvec.SelectOp) or (isinstance(u, vector.MaskedLoadOp) and f"maskload.{elem}" in t.ops)
                 or (isinstance(u, vector.MaskedStoreOp) and f"maskstore.{elem}" in t.ops) for u in users)
    if not needed or f"mask_first.{elem}" not in t.ops:
        return  # masked loads/stores go through a buffer; a select on it fails to emit
    part = (lambda j: count) if k == 1 else (lambda j: _clamp(f"({count} - {j * lanes})" if j else count, lanes))
    _define(em, op.mask_vector, mask_c_type(ty), k, lambda j: t.op("mask_first", elem, part(j)))


def _zero_fill(op: vector.MaskedLoadOp, t: IsaTable) -> bool:
    """A masked load whose pass-through is +0.0, the ISA's masked load fills (nothing to blend)."""
    fill = _splat_constant(op.pass_thru)
    return (fill == 0.0 and pymath.copysign(1.0, fill) > 0
            and f"maskload.{elem_name(op.result.type)}" in t.ops)


def _mask_count(em: FunctionEmitter, mask: SSAValue) -> str:
    try:
        return em.module.simd.mask_counts[mask]
    except KeyError:
        raise CEmitError(f"{em.module.simd.table.name} has no masked loads/stores: "
                         "their mask must come from vector.create_mask") from None


@handles(vector.MaskedLoadOp)
def _masked_load(em: FunctionEmitter, op: vector.MaskedLoadOp) -> None:
    """Masked-off lanes are not read and take ``pass_thru``; without masked loads in the
    table, the first ``count`` elements are copied into a buffer holding ``pass_thru``."""
    ty = op.result.type
    elem, k, t = _shape(em, ty)
    lanes, idx, ctype = t.lanes(elem), list(op.indices), c_type(ty)
    if f"maskload.{elem}" in t.ops:
        mask = em.expr(op.mask)
        pass_thru = None if _zero_fill(op, t) else em.expr(op.pass_thru)

        def part(j: int) -> str:
            loaded = t.op("maskload", elem, _pointer(em, op.base, idx, lanes, j), _part(mask, j, k))
            return loaded if pass_thru is None else t.op("select", elem, _part(mask, j, k), loaded, _part(pass_thru, j, k))

        _define(em, op.result, ctype, k, part)
        return
    count, fill_vec = _mask_count(em, op.mask), em.expr(op.pass_thru)
    buf, i = em.fresh("tail"), em.fresh("l")
    em.line(f"{c_type(ty.get_element_type())} {buf}[{lanes * k}] __attribute__((aligned(64)));")  # type: ignore[union-attr]
    for j in range(k):
        em.line(t.op("store", elem, f"&{buf}[{j * lanes}]", _part(fill_vec, j, k)) + ";")
    em.line(f"for (int {i} = 0; {i} < {count}; {i}++) {buf}[{i}] = ({_pointer(em, op.base, idx, lanes, 0)})[{i}];")
    _define(em, op.result, ctype, k, lambda j: t.op("load", elem, f"&{buf}[{j * lanes}]"))


@handles(vector.MaskedStoreOp)
def _masked_store(em: FunctionEmitter, op: vector.MaskedStoreOp) -> None:
    """Only the mask's lanes are written (through a buffer when the table has no masked stores)."""
    ty = op.value_to_store.type
    elem, k, t = _shape(em, ty)
    lanes, idx, value = t.lanes(elem), list(op.indices), em.expr(op.value_to_store)
    if f"maskstore.{elem}" in t.ops:
        mask = em.expr(op.mask)
        for j in range(k):
            em.line(t.op("maskstore", elem, _pointer(em, op.base, idx, lanes, j), _part(mask, j, k), _part(value, j, k)) + ";")
        return
    count = _mask_count(em, op.mask)
    buf, i = em.fresh("tail"), em.fresh("l")
    em.line(f"{c_type(ty.get_element_type())} {buf}[{lanes * k}] __attribute__((aligned(64)));")  # type: ignore[union-attr]
    for j in range(k):
        em.line(t.op("store", elem, f"&{buf}[{j * lanes}]", _part(value, j, k)) + ";")
    em.line(f"for (int {i} = 0; {i} < {count}; {i}++) ({_pointer(em, op.base, idx, lanes, 0)})[{i}] = {buf}[{i}];")


@handles(vector.BroadcastOp)
def _broadcast(em: FunctionEmitter, op: vector.BroadcastOp) -> None:
    if isinstance(op.source.type, VectorType):
        raise CEmitError("vector.broadcast of a vector is not supported")
    elem, k, t = _shape(em, op.vector.type)
    users = [use.operation for use in op.vector.uses]
    if users and all(isinstance(u, vector.MaskedLoadOp) and u.pass_thru is op.vector and _zero_fill(u, t) for u in users):
        return  # only the +0.0 fill of masked loads, which need no register
    src = em.expr(op.source)
    _define(em, op.vector, c_type(op.vector.type), k, lambda j: t.op("broadcast", elem, src))


@handles(vector.FMAOp)
def _fma(em: FunctionEmitter, op: vector.FMAOp) -> None:
    _lanewise(em, op.res, op.res, [op.lhs, op.rhs, op.acc], lambda t, e, o: t.op("fma", e, *o))


_REDUCE: dict[str, str] = {  # vector.kind -> C combining a and b (scalars)
    "add": "{a} + {b}",
    "mul": "{a} * {b}",
    "maximumf": "kiln_maximum{s}({a}, {b})",
    "minimumf": "kiln_minimum{s}({a}, {b})",
    "maxnumf": "fmax{s}({a}, {b})",
    "minnumf": "fmin{s}({a}, {b})",
}


@handles(vector.ReductionOp)
def _reduction(em: FunctionEmitter, op: vector.ReductionOp) -> None:
    """Spill to an aligned array and fold lane by lane (runs once per loop, after it)."""
    kind = op.kind.data.value
    if kind not in _REDUCE:
        raise CEmitError(f"vector.reduction <{kind}> is not supported")
    elem, k, t = _shape(em, op.vector.type)
    lanes, scalar = t.lanes(elem), c_type(op.dest.type)
    suffix = "f" if elem == "f32" else ""
    if kind in ("maximumf", "minimumf"):
        em.use_helper(f"kiln_{kind[:7]}{suffix}")
    src = em.expr(op.vector)
    buf = em.fresh(f"{src}_lanes")
    total = lanes * k
    em.line(f"{scalar} {buf}[{total}] __attribute__((aligned(64)));")
    for j in range(k):
        em.line(t.op("store", elem, f"&{buf}[{j * lanes}]", _part(src, j, k)) + ";")
    acc = em.fresh(op.dest.name_hint, "red")
    em.line(f"{scalar} {acc} = {em.expr(op.acc) if op.acc is not None else buf + '[0]'};")
    first = 0 if op.acc is not None else 1
    i = em.fresh("l")
    em.line(f"for (int {i} = {first}; {i} < {total}; {i}++) "
            f"{acc} = {_REDUCE[kind].format(a=acc, b=f'{buf}[{i}]', s=suffix)};")
    em.bind(op.dest, acc)
