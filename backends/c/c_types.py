"""Mapping of MLIR scalar types to C types, and C literals for constants."""

from __future__ import annotations

import math
import struct

from xdsl.dialects.builtin import (
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute

from kiln.backends.c.errors import CEmitError

_INT_WIDTHS = (1, 8, 16, 32, 64)


def is_float(ty: Attribute) -> bool:
    """True for the float types the C backend supports (f16 is a storage type: ``_Float16``,
    which only ever converts to and from other types, see passes/_scalar.py ``in_f32``)."""
    return isinstance(ty, Float16Type | Float32Type | Float64Type)


def is_int(ty: Attribute) -> bool:
    """True for signless integers (i1..i64) and index."""
    return isinstance(ty, IndexType) or (
        isinstance(ty, IntegerType) and ty.width.data in _INT_WIDTHS
    )


def bit_width(ty: Attribute) -> int:
    """Width in bits of a supported scalar type (index is 64)."""
    if isinstance(ty, IndexType):
        return 64
    if isinstance(ty, IntegerType):
        return ty.width.data
    if isinstance(ty, Float16Type):
        return 16
    if isinstance(ty, Float32Type):
        return 32
    if isinstance(ty, Float64Type):
        return 64
    raise CEmitError(f"unsupported type {ty} in the C backend")


def c_type(ty: Attribute) -> str:
    """The C spelling of a scalar MLIR type; raises on anything else."""
    if isinstance(ty, IndexType):
        return "int64_t"
    if isinstance(ty, IntegerType) and ty.width.data in _INT_WIDTHS:
        return "bool" if ty.width.data == 1 else f"int{ty.width.data}_t"
    if isinstance(ty, Float16Type):
        return "_Float16"
    if isinstance(ty, ComplexType) and isinstance(ty.element_type, Float32Type | Float64Type):
        return f"{c_type(ty.element_type)} _Complex"
    if isinstance(ty, Float32Type):
        return "float"
    if isinstance(ty, Float64Type):
        return "double"
    if isinstance(ty, VectorType) and isinstance(ty.get_element_type(), Float32Type | Float64Type):
        # typedef'd per ISA by backends/c/vector_ops.py
        return f"kiln_v{ty.get_shape()[0]}{'f32' if isinstance(ty.get_element_type(), Float32Type) else 'f64'}"
    raise CEmitError(f"unsupported type {ty} in the C backend")


def unsigned_c_type(ty: Attribute) -> str:
    """The unsigned C type of the same width, for unsigned integer ops."""
    width = bit_width(ty)
    return "bool" if width == 1 else f"uint{width}_t"


def element_c_type(ty: MemRefType) -> str:
    """C type of a memref's elements: a boolean array's are ``uint8_t`` (NumPy's one byte, 0 or
    1), since gcc 12 vectorizes no loop that loads or stores C ``bool``s ("no vectype": a mask
    ``N[I] = n`` over int64 stayed scalar); scalars stay ``bool``."""
    elem = ty.get_element_type()
    if isinstance(elem, IntegerType) and elem.width.data == 1:
        return "uint8_t"
    return c_type(elem)


def int_literal(value: int, ty: Attribute) -> str:
    """A C literal of the right type for an integer constant (wrapped to its width)."""
    width = bit_width(ty)
    if width == 1:
        return "true" if value & 1 else "false"
    value &= (1 << width) - 1
    if value >= 1 << (width - 1):
        value -= 1 << width
    if width == 64 and not -(2**31) <= value < 2**31:
        return "INT64_MIN" if value == -(2**63) else f"INT64_C({value})"
    if width == 64:
        return str(value)
    return str(value) if width == 32 else f"(({c_type(ty)}){value})"


def float_literal(value: float, ty: Attribute) -> str:
    """A C literal that reproduces the constant exactly (shortest round-trip form); an f16 one
    is the double literal converted once (``(_Float16)0.1``, a constant expression)."""
    if isinstance(ty, Float16Type):
        return f"((_Float16){float_literal(value, Float64Type())})"
    f32 = isinstance(ty, Float32Type)
    if math.isnan(value):
        return "NAN" if f32 else "(double)NAN"
    if math.isinf(value):
        text = "INFINITY" if f32 else "(double)INFINITY"
        return f"-{text}" if value < 0 else text
    if f32:
        value = struct.unpack("f", struct.pack("f", value))[0]
        text = _shortest_f32(value)
        return f"{text}f"
    return repr(value)


def _shortest_f32(value: float) -> str:
    """Shortest decimal that rounds back to the same float32."""
    packed = struct.pack("f", value)
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if struct.pack("f", float(text)) == packed:
            break
    if "e" not in text and "." not in text and "n" not in text:
        text += ".0"
    return text
