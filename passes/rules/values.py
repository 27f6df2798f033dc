"""What a rule sees of the IR, as Python values: attributes of values and types (``x.shape``,
``x.kind``), op attributes as ints, floats, strings and tuples, and constant splats.

Rules compare Python values, so an op's ``perm = array<i64: 1, 0>`` reads as ``(1, 0)``; the
way back (a Python value to the attribute an op's property wants) is :func:`to_attribute`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BoolAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    Signedness,
    StringAttr,
    UnitAttr,
    AnyFloat,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.traits import ConstantLike

#: attributes every value has (``x.type``, ...); the same names work on a type (``x.type.shape``)
VALUE_ATTRS = ("type", "element", "dtype", "kind", "shape", "rank", "static", "splat", "uses", "op")

#: ops whose result is a splat of the same value when their operand is one (constants are traced
#: as a 0-d ``graph.constant`` and a ``graph.broadcast``)
SPLAT_PRESERVING = ("graph.broadcast", "graph.reshape", "graph.transpose")

_FLOAT_DTYPES = {16: "float16", 32: "float32", 64: "float64"}


def element_type(t: Attribute) -> Attribute:
    """The element type of a shaped type; any other type is its own element."""
    return t.get_element_type() if isinstance(t, ShapedType) else t


def kind_of(element: Attribute) -> str:
    """NumPy's kinds, in words: ``bool``, ``int``, ``uint``, ``float``, ``complex``, ``index``, ``other``."""
    if element == i1:
        return "bool"
    if isinstance(element, IntegerType):
        return "uint" if element.signedness.data == Signedness.UNSIGNED else "int"
    if isinstance(element, AnyFloat):
        return "float"
    if isinstance(element, ComplexType):
        return "complex"
    if isinstance(element, IndexType):
        return "index"
    return "other"


def dtype_of(element: Attribute) -> str | None:
    """The NumPy dtype name of an element type (``float32``, ``uint8``, ``complex128``), or None."""
    kind = kind_of(element)
    if kind == "bool":
        return "bool"
    if kind in ("int", "uint"):
        assert isinstance(element, IntegerType)
        return f"{kind}{element.width.data}"
    if kind == "float":
        return _FLOAT_DTYPES.get(element.bitwidth) if hasattr(element, "bitwidth") else None  # type: ignore[attr-defined]
    if kind == "complex":
        assert isinstance(element, ComplexType)
        part = dtype_of(element.element_type)
        return None if part is None else f"complex{2 * int(part[5:])}"
    return None


def shape_of(t: Attribute) -> tuple[int | None, ...] | None:
    """A shaped type's dims, None for a dynamic one; None for a type without a shape."""
    if not isinstance(t, ShapedType):
        return None
    return tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())


def type_attr(t: Attribute, name: str) -> Any:
    """``name`` (one of VALUE_ATTRS but ``splat``, ``uses`` and ``op``) of the type ``t``."""
    if name == "type":
        return t
    if name == "element":
        return element_type(t)
    if name == "dtype":
        return dtype_of(element_type(t))
    if name == "kind":
        return kind_of(element_type(t))
    shape = shape_of(t)
    if name == "shape":
        return shape
    if name == "rank":
        return None if shape is None else len(shape)
    if name == "static":
        return shape is not None and None not in shape
    raise KeyError(name)


def value_attr(v: SSAValue, name: str) -> Any:
    """``name`` (one of VALUE_ATTRS) of the value ``v``."""
    if name == "splat":
        return splat_of(v)
    if name == "uses":
        return v.uses.get_length()
    if name == "op":
        return v.owner.name if isinstance(v.owner, Operation) else None
    return type_attr(v.type, name)


# --------------------------------------------------------------------------- op attributes


def op_attribute(op: Operation, name: str) -> Attribute | None:
    """The property or attribute ``name`` of ``op`` (also by its Python accessor name), or None."""
    if name in op.properties:
        return op.properties[name]
    if name in op.attributes:
        return op.attributes[name]
    if isinstance(op, IRDLOperation):
        mapped = type(op).get_irdl_definition().accessor_names.get(name)
        if mapped is not None:
            return (op.properties if mapped[1] == "property" else op.attributes).get(mapped[0])
    return None


def to_python(attr: Attribute | None) -> Any:
    """An attribute as a Python value: ints, floats, bools, strings, tuples; other attributes
    (types, affine maps, ...) stay attributes."""
    if attr is None:
        return None
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        return bool(value) if attr.type == i1 else value
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return tuple(to_python(a) for a in attr.data)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return tuple(_scalar(attr.get_element_type(), v) for v in attr.get_values())
    return attr


def to_attribute(value: Any, accepts: Any) -> Attribute | None:
    """``value`` as an attribute that the constraint ``accepts`` (an IRDL ``AttrConstraint``, or
    None for anything) takes: the first of the usual spellings that verifies; None if none does."""
    for attr in _spellings(value):
        if accepts is None or accepts.verifies(attr):
            return attr
    return None


def _spellings(value: Any) -> list[Attribute]:
    if isinstance(value, Attribute):
        return [value]
    if isinstance(value, bool):
        return [BoolAttr.from_bool(value), *([UnitAttr()] if value else [])]
    if isinstance(value, int):
        return [IntegerAttr(value, i64), IntegerAttr(value, i32), IntegerAttr(value, IndexType())]
    if isinstance(value, float):
        return [FloatAttr(value, f64), FloatAttr(value, f32)]
    if isinstance(value, str):
        return [StringAttr(value)]
    if isinstance(value, (tuple, list)):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return [
                DenseArrayBase.from_list(i64, list(value)),
                DenseArrayBase.from_list(i32, list(value)),
                ArrayAttr([IntegerAttr(v, i64) for v in value]),
            ]
        parts = [_spellings(v) for v in value]
        if all(parts):
            return [ArrayAttr([p[0] for p in parts])]
    return []


# --------------------------------------------------------------------------- constants

_NO_SPLAT = object()


def splat_of(v: SSAValue) -> Any:
    """The value of every element of ``v`` when it is a constant splat (a ``ConstantLike`` op,
    through SPLAT_PRESERVING ops), else None. Elements compare by their bits, so ``-0.0`` and
    ``0.0`` are different splats."""
    found = _splat(v, depth=0)
    return None if found is _NO_SPLAT else found


def _splat(v: SSAValue, depth: int) -> Any:
    op = v.owner
    if not isinstance(op, Operation) or depth > 8:
        return _NO_SPLAT
    if op.name in SPLAT_PRESERVING and op.operands:
        return _splat(op.operands[0], depth + 1)
    if not op.has_trait(ConstantLike):
        return _NO_SPLAT
    attr = op_attribute(op, "value")
    if isinstance(attr, IntegerAttr):
        return to_python(attr)
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, DenseIntOrFPElementsAttr):
        data, n = attr.data.data, len(attr)
        if n == 0 or len(data) % n:
            return _NO_SPLAT
        width = len(data) // n
        if data != data[:width] * n:
            return _NO_SPLAT
        element = attr.get_element_type()
        return _scalar(element, element.unpack(data[:width], 1)[0])
    return _NO_SPLAT


def _scalar(element: Attribute, raw: Any) -> Any:
    if element == i1:
        return bool(raw)
    if isinstance(raw, tuple):  # complex
        return complex(*raw)
    return raw


def same_literal(actual: Any, literal: Any) -> bool:
    """Whether an attribute's or a splat's Python value is the literal of a pattern: bools match
    bools, numbers match numbers of equal value and, for zeros, of the same sign; NaN matches nothing."""
    if isinstance(literal, bool) or isinstance(actual, bool):
        return isinstance(literal, bool) and isinstance(actual, bool) and literal == actual
    if isinstance(literal, (int, float)) and isinstance(actual, (int, float, complex)):
        if isinstance(actual, complex):
            return actual.imag == 0 and math.copysign(1, actual.imag) > 0 and same_literal(actual.real, literal)
        if actual != literal:
            return False
        return actual != 0 or math.copysign(1, float(actual)) == math.copysign(1, float(literal))
    if isinstance(literal, tuple) and isinstance(actual, Sequence) and not isinstance(actual, str):
        return len(actual) == len(literal) and all(same_literal(a, b) for a, b in zip(actual, literal))
    return type(actual) is type(literal) and actual == literal
