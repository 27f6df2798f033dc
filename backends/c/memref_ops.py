"""memref ops → C: descriptors (pointer + per-dim size/stride expressions), loads, stores, views.

A memref value's pointer always points at its first element, so views
(subview, reshapes, casts) only move the pointer and rewrite sizes/strides.
"""

from __future__ import annotations

import sys

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.backends.c.c_types import bit_width, c_type, element_c_type, float_literal, int_literal
from kiln.backends.c.dispatch import handles
from kiln.backends.c.errors import CEmitError, op_error
from kiln.backends.c.index_expr import IndexExpr, add, atom, linear, mul, product

from kiln.backends.c.memref_desc import MemrefDesc

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter, ModuleEmitter


def _desc(ptr: str, ty: MemRefType, sizes: Sequence[IndexExpr], strides: Sequence[IndexExpr]) -> MemrefDesc:
    return MemrefDesc(ptr, element_c_type(ty), tuple(sizes), tuple(strides))


def _memref_type(value: SSAValue) -> MemRefType:
    ty = value.type
    if not isinstance(ty, MemRefType):
        raise CEmitError(f"unsupported memref type {ty} (unranked?)")
    return ty


def _shape_sizes(em: FunctionEmitter, ty: MemRefType, dynamic: Sequence[SSAValue]) -> list[IndexExpr]:
    """Sizes of a new memref: static dims from the type, '?' dims from operands in order."""
    values = iter(dynamic)
    return [d if d != DYNAMIC_INDEX else em.index(next(values)) for d in ty.get_shape()]


def _new_desc(em: FunctionEmitter, ptr: str, ty: MemRefType, sizes: list[IndexExpr]) -> MemrefDesc:
    """Descriptor of a freshly allocated buffer (its type must be contiguous)."""
    if not isinstance(ty.layout, NoneAttr):
        raise CEmitError(f"allocating {ty}: only the identity layout is supported")
    return em.row_major(ptr, ty, sizes)


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue], em: FunctionEmitter) -> list[IndexExpr]:
    """Merge static_* arrays with their dynamic operands (DYNAMIC_INDEX marks an operand)."""
    values = iter(dynamic)
    return [s if s != DYNAMIC_INDEX else em.index(next(values)) for s in static]


def _pointer(em: FunctionEmitter, hint: str | None, elem: str, base: str, offset: IndexExpr) -> str:
    """A new pointer local at base + offset (or base itself when the offset is 0)."""
    if offset == 0:
        return base
    name = em.fresh(hint)
    em.line(f"{elem} *{name} = {base} + {offset};")
    return name


@handles(memref.AllocOp)
def _alloc(em: FunctionEmitter, op: memref.AllocOp) -> None:
    ty = _memref_type(op.memref)
    elem = element_c_type(ty)
    sizes = _shape_sizes(em, ty, op.dynamic_sizes)
    name = em.fresh(op.memref.name_hint, "buf")
    helper = em.use_helper("kiln_alloc")
    count = product(sizes)
    bytes_ = count if count == 0 else f"{atom(count)}*(int64_t)sizeof({elem})"
    em.line(f"{elem} *{name} = ({elem} *){helper}({bytes_});")
    em.bind_memref(op.memref, _new_desc(em, name, ty, sizes))


@handles(memref.AllocaOp)
def _alloca(em: FunctionEmitter, op: memref.AllocaOp) -> None:
    ty = _memref_type(op.memref)
    elem = element_c_type(ty)
    sizes = _shape_sizes(em, ty, op.dynamic_sizes)
    count = product(sizes)
    name = em.fresh(op.memref.name_hint, "buf")
    if count == 1 and all(_plain_access(use.operation, op.memref) for use in op.memref.uses):
        # a loop-carried value or an if's result: a scalar, which gcc keeps in a register (a
        # one-element array it often does too, but not always: a bool one blocks vectorizing);
        # a scalar's C type, so a boolean is a bool, not element_c_type's byte
        em.line(f"{c_type(ty.get_element_type())} {name};")
        em.bind_memref(op.memref, replace(_new_desc(em, name, ty, sizes), scalar=True))
        return
    length = max(count, 1) if isinstance(count, int) else f"{count} > 0 ? {count} : 1"
    em.line(f"{elem} {name}[{length}] __attribute__((aligned(64)));")
    em.bind_memref(op.memref, _new_desc(em, name, ty, sizes))


def _plain_access(user: Operation, buffer: SSAValue) -> bool:
    """``user`` only loads from or stores into ``buffer`` (the buffer's address does not escape)."""
    if isinstance(user, memref.LoadOp):
        return True
    return isinstance(user, memref.StoreOp) and user.value is not buffer


@handles(memref.DeallocOp)
def _dealloc(em: FunctionEmitter, op: memref.DeallocOp) -> None:
    em.use_helper("kiln_alloc")
    em.line(f"kiln_free({em.memref(op.memref).ptr});")


def _place(em: FunctionEmitter, memref_value: SSAValue, indices: Sequence[SSAValue]) -> str:
    """The C lvalue of one element of a memref."""
    desc = em.memref(memref_value)
    return desc.ptr if desc.scalar else f"{desc.ptr}[{linear([em.index(i) for i in indices], desc.strides)}]"


@handles(memref.LoadOp)
def _load(em: FunctionEmitter, op: memref.LoadOp) -> None:
    place = _place(em, op.memref, op.indices)
    if isinstance(op.res.type, ComplexType):
        from kiln.backends.c.complex_ops import load_parts  # (loaded by the first complex value: ~5 ms)

        if load_parts(em, op, place):
            return
    em.define(op.res, place)


@handles(memref.StoreOp)
def _store(em: FunctionEmitter, op: memref.StoreOp) -> None:
    place = _place(em, op.memref, op.indices)
    if isinstance(op.value.type, ComplexType):
        from kiln.backends.c.complex_ops import store_parts

        if store_parts(em, op, place):
            return
    em.line(f"{place} = {em.expr(op.value)};")


@handles(memref.DimOp)
def _dim(em: FunctionEmitter, op: memref.DimOp) -> None:
    desc = em.memref(op.source)
    index = em.index(op.index)
    if isinstance(index, int):
        if not 0 <= index < len(desc.sizes):
            raise op_error(op, f"dimension {index} of a rank-{len(desc.sizes)} memref")
        em.bind(op.result, str(desc.sizes[index]))
    else:
        table = ", ".join(str(s) for s in desc.sizes)
        em.define(op.result, f"((const int64_t[]){{{table}}})[{index}]")


@handles(memref.SubviewOp)
def _subview(em: FunctionEmitter, op: memref.SubviewOp) -> None:
    src = em.memref(op.source)
    res_ty = _memref_type(op.result)
    offsets = _mixed(op.static_offsets.get_values(), op.offsets, em)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes, em)
    steps = _mixed(op.static_strides.get_values(), op.strides, em)
    ptr = _pointer(em, op.result.name_hint, src.elem, src.ptr, linear(offsets, src.strides))
    kept = _kept_dims(sizes, res_ty.get_shape())
    em.bind_memref(
        op.result,
        _desc(ptr, res_ty, [sizes[d] for d in kept], [mul(src.strides[d], steps[d]) for d in kept]),
    )


def _kept_dims(sizes: Sequence[IndexExpr], result_shape: Sequence[int]) -> list[int]:
    """Which source dims a (possibly rank-reducing) subview keeps: drop unit dims greedily."""
    kept: list[int] = []
    r = 0
    for d, size in enumerate(sizes):
        remaining_src, remaining_res = len(sizes) - d, len(result_shape) - r
        if r < len(result_shape) and (
            remaining_src == remaining_res or size != 1 or result_shape[r] == 1
        ):
            kept.append(d)
            r += 1
    if len(kept) != len(result_shape):
        raise CEmitError("cannot match the subview's result shape to its sizes")
    return kept


def _reassociation(op: memref.CollapseShapeOp | memref.ExpandShapeOp) -> list[list[int]]:
    groups = op.reassociation
    assert isinstance(groups, ArrayAttr)
    return [[i.value.data for i in group.data] for group in groups.data]  # type: ignore[union-attr]


@handles(memref.CollapseShapeOp)
def _collapse(em: FunctionEmitter, op: memref.CollapseShapeOp) -> None:
    src = em.memref(op.src)
    sizes: list[IndexExpr] = []
    strides: list[IndexExpr] = []
    shape = _memref_type(op.src).get_shape()
    for group in _reassociation(op):
        sizes.append(product([src.sizes[d] for d in group]))
        # a contiguous group's innermost stride; of a strided source's group, the stride of its
        # one dimension that is not a static 1 (kiln-bufferize collapses nothing else strided)
        moving = [d for d in group if shape[d] != 1]
        strides.append(src.strides[moving[-1] if moving else group[-1]] if group else 1)
    em.bind_memref(op.result, _desc(src.ptr, _memref_type(op.result), sizes, strides))


@handles(memref.ExpandShapeOp)
def _expand(em: FunctionEmitter, op: memref.ExpandShapeOp) -> None:
    src = em.memref(op.src)
    res_ty = _memref_type(op.result)
    sizes = _mixed(op.static_output_shape.get_values(), op.output_shape, em)
    strides: list[IndexExpr] = [0] * len(sizes)
    for src_dim, group in enumerate(_reassociation(op)):
        stride = src.strides[src_dim]
        for d in reversed(group):
            strides[d] = stride
            stride = mul(stride, sizes[d])
    em.bind_memref(op.result, _desc(src.ptr, res_ty, sizes, strides))


@handles(memref.CastOp)
def _cast(em: FunctionEmitter, op: memref.CastOp) -> None:
    src = em.memref(op.source)
    res_ty = _memref_type(op.dest)
    sizes = [d if d != DYNAMIC_INDEX else s for d, s in zip(res_ty.get_shape(), src.sizes, strict=True)]
    em.bind_memref(op.dest, _desc(src.ptr, res_ty, sizes, src.strides))


@handles(memref.ReinterpretCastOp)
def _reinterpret(em: FunctionEmitter, op: memref.ReinterpretCastOp) -> None:
    """Offsets are relative to the source's base pointer, so undo the source's static offset."""
    src = em.memref(op.source)
    src_offset = _memref_type(op.source).get_offset()
    if src_offset is None:
        raise CEmitError("reinterpret_cast of a memref with a dynamic offset is not supported")
    (offset,) = _mixed(op.static_offsets.get_values(), op.offsets, em)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes, em)
    strides = _mixed(op.static_strides.get_values(), op.strides, em)
    ptr = _pointer(em, op.result.name_hint, src.elem, src.ptr, add(offset, -src_offset) if src_offset else offset)
    em.bind_memref(op.result, _desc(ptr, _memref_type(op.result), sizes, strides))


@handles(memref.GetGlobalOp)
def _get_global(em: FunctionEmitter, op: memref.GetGlobalOp) -> None:
    ty = _memref_type(op.memref)
    cname = em.module.globals.get(op.name_.string_value())
    if cname is None:
        raise CEmitError(f"unknown global @{op.name_.string_value()}")
    elem = element_c_type(ty)
    name = em.fresh(op.memref.name_hint, cname)
    em.line(f"{elem} *{name} = ({elem} *){cname};")
    em.bind_memref(op.memref, em.row_major(name, ty, list(ty.get_shape())))


@handles(memref.CopyOp)
def _copy(em: FunctionEmitter, op: memref.CopyOp) -> None:
    """memcpy when both sides are contiguous (identity layouts), else a loop nest."""
    src, dst = em.memref(op.source), em.memref(op.destination)
    src_ty, dst_ty = _memref_type(op.source), _memref_type(op.destination)
    if isinstance(src_ty.layout, NoneAttr) and isinstance(dst_ty.layout, NoneAttr):
        count = f"{atom(product(src.sizes))}*sizeof({src.elem})"
        em.line(f"memcpy({dst.ptr}, {src.ptr}, {count});")
        return
    ivs = [em.fresh(f"i{d}") for d in range(len(src.sizes))]
    for iv, size in zip(ivs, src.sizes, strict=True):
        em.open(f"for (int64_t {iv} = 0; {iv} < {size}; {iv}++) {{")
    em.line(f"{dst.ptr}[{linear(ivs, dst.strides)}] = {src.ptr}[{linear(ivs, src.strides)}];")
    for _ in ivs:
        em.close()


#: constants of at least this many bytes are emitted as a string of their bytes (see ``_bytes_literal``)
BLOB_BYTES = 1 << 16
#: each byte in a C string: itself when printable and harmless, else a 3-digit octal escape (which
#: ends by itself, so any character may follow; ``?`` is escaped against trigraphs); as a
#: ``str.translate`` table over the bytes read as latin-1
_BYTE_TEXT = {
    b: chr(b) if 0x20 <= b < 0x7F and chr(b) not in '\\"?' else f"\\{b:03o}" for b in range(256)
}


def _bytes_literal(init: DenseIntOrFPElementsAttr, ty: MemRefType[Attribute], count: int) -> str | None:
    """A large constant's raw little-endian bytes as C string literals, or None (small, splat, bool,
    or a big-endian host). gcc reads a string far faster than as many number literals: NPBench's
    stockham_fft holds 30 x 32768 doubles, 8.9 s of gcc as numbers, 2 s as strings."""
    data = init.data.data
    element = ty.get_element_type()
    if len(data) < BLOB_BYTES or sys.byteorder != "little" or (isinstance(element, IntegerType) and element.width.data == 1):
        return None
    if len(data) != count * bit_width(element) // 8:
        return None
    text = bytes(data).decode("latin-1")
    return "\n".join(f'"{text[i : i + 64].translate(_BYTE_TEXT)}"' for i in range(0, len(text), 64))


def emit_global(module: ModuleEmitter, op: memref.GlobalOp) -> str:
    """A memref.global as a static C array (``static const`` when marked constant)."""
    ty = op.type
    if not isinstance(ty, MemRefType) or not ty.has_static_shape():
        raise op_error(op, "globals need a static memref type")
    elem = element_c_type(ty)
    name = module.globals[op.sym_name.data]
    count = max(product(list(ty.get_shape())), 1)
    const = "const " if op.constant is not None else ""
    decl = f"static {const}{elem} {name}[{count}] __attribute__((aligned(64), unused))"
    init = op.initial_value
    if isinstance(init, UnitAttr):
        if const:
            raise op_error(op, "a constant global needs an initial value")
        return decl + ";"
    if not isinstance(init, DenseIntOrFPElementsAttr):
        raise op_error(op, "external globals (no initializer) are not supported")
    blob = _bytes_literal(init, ty, count) if const else None
    if blob is not None:
        size = len(init.data.data)
        return (
            f"static const union {{ unsigned char bytes[{size}]; {elem} values[{count}]; }} {name}_blob "
            f"__attribute__((aligned(64), unused)) = {{\n{blob}\n}};\n#define {name} ({name}_blob.values)"
        )
    raw = list(init.get_values())  # plain numbers: an attribute per element costs ~100 us each
    if len(raw) == 1 and count > 1:
        raw *= count
    element = ty.get_element_type()
    literal = float_literal if isinstance(element, AnyFloat) else lambda v, t: int_literal(int(v), t)
    values = [literal(v, element) for v in raw]
    body = ",\n  ".join(", ".join(values[i : i + 8]) for i in range(0, len(values), 8))
    return f"{decl} = {{\n  {body}\n}};"
