"""NumPy dtypes <-> ``graph`` element types, and NumPy 2's type promotion.

kiln supports bool, int8/16/32/64, uint8/16/32/64, float16/32/64 and
complex64/128 (element types i1, i8..i64 (signed), ui8..ui64 (unsigned), f16,
f32, f64, complex<f32>, complex<f64>); see
docs/numpy-semantics.md for the table. Promotion is NumPy's own (NEP 50), asked of
NumPy itself rather than re-implemented: arrays, NumPy scalars and tensors are
"strong", Python ``int``/``float``/``complex`` are "weak" and take the other operand's
kind when they can (``float32_tensor * 2.0`` stays float32).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ComplexType, Float16Type, Float32Type, Float64Type, IntegerType, Signedness, i1, i32, i64
from xdsl.ir import Attribute

_TO_ELEMENT: dict[np.dtype[Any], Attribute] = {
    np.dtype(np.bool_): i1,
    np.dtype(np.int32): i32,
    np.dtype(np.int64): i64,
    np.dtype(np.float32): Float32Type(),
    np.dtype(np.float64): Float64Type(),
}
# The small and unsigned integers: signless integers are signed (NumPy's intN), ``uiN`` is
# NumPy's uintN (docs/ir-reference.md, "Element types").
_TO_ELEMENT.update({np.dtype(f"int{w}"): IntegerType(w) for w in (8, 16)})
_TO_ELEMENT.update({np.dtype(f"uint{w}"): IntegerType(w, Signedness.UNSIGNED) for w in (8, 16, 32, 64)})
# float16: stored as 16 bits, computed in float32 and rounded after every op, as NumPy does
_TO_ELEMENT[np.dtype(np.float16)] = Float16Type()
# complex64 / complex128: pairs of float32 / float64
_TO_ELEMENT[np.dtype(np.complex64)] = ComplexType(Float32Type())
_TO_ELEMENT[np.dtype(np.complex128)] = ComplexType(Float64Type())
_FROM_ELEMENT: dict[Attribute, np.dtype[Any]] = {e: d for d, e in _TO_ELEMENT.items()}

SUPPORTED: tuple[np.dtype[Any], ...] = tuple(sorted(_TO_ELEMENT, key=lambda d: ("biufc".index(d.kind), d.itemsize)))
_SUPPORTED_NAMES = ", ".join(str(d) for d in SUPPORTED)

#: what a weak Python scalar stands for when NumPy resolves a ufunc's loop
WeakScalar = bool | int | float | complex
PromotionKey = np.dtype[Any] | type[int] | type[float] | type[complex]


def unsupported(dtype: object, what: str = "") -> TypeError:
    """The error for a dtype kiln cannot compile, naming the dtypes it can."""
    where = f" ({what})" if what else ""
    return TypeError(f"kiln does not support dtype {dtype}{where}; supported dtypes are {_SUPPORTED_NAMES}")


def unsupported_argument(dtype: object, name: str) -> TypeError:
    """The error for a function argument of a dtype kiln cannot compile, naming the argument."""
    return TypeError(f"argument {name} has dtype {dtype}, which kiln does not support; supported: {_SUPPORTED_NAMES}")


def canonical(dtype: Any) -> np.dtype[Any]:
    """``dtype`` (a name, a type, an ``np.dtype``) as a supported ``np.dtype``; ``TypeError`` otherwise."""
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"kiln: {dtype!r} is not a dtype; supported dtypes are {_SUPPORTED_NAMES}") from e
    if dt not in _TO_ELEMENT:
        raise unsupported(dt)
    return dt


def to_element(dtype: Any) -> Attribute:
    """The ``graph`` element type of a supported dtype."""
    return _TO_ELEMENT[canonical(dtype)]


def from_element(element: Attribute) -> np.dtype[Any]:
    """The NumPy dtype of a ``graph`` element type."""
    try:
        return _FROM_ELEMENT[element]
    except KeyError:
        raise TypeError(f"kiln: element type {element} has no NumPy dtype") from None


def is_integer(dtype: np.dtype[Any]) -> bool:
    """Signed integer dtypes (bool is not one, as in NumPy's ``issubdtype``)."""
    return dtype.kind == "i"


def is_any_integer(dtype: np.dtype[Any]) -> bool:
    """Signed or unsigned integer dtypes (not bool)."""
    return dtype.kind in "iu"


def weak_operand(value: WeakScalar) -> PromotionKey:
    """How a Python scalar takes part in promotion: ``int``/``float`` are weak, ``bool`` is ``np.bool_``."""
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, complex):
        return complex
    raise unsupported(type(value).__name__)


def resolve_ufunc(ufunc: np.ufunc, operands: Sequence[PromotionKey]) -> tuple[tuple[np.dtype[Any], ...], np.dtype[Any]]:
    """NumPy's loop for ``ufunc`` on these operand dtypes: (dtypes the inputs are cast to, result dtype).

    Raises NumPy's own ``TypeError`` when no loop exists (``-bool_tensor``) and
    kiln's when the loop computes in a dtype kiln lacks (``np.exp`` of bools is float16).
    """
    loop = ufunc.resolve_dtypes((*operands, None))
    for dt in loop:
        if dt not in _TO_ELEMENT:
            shown = ", ".join(o.__name__ if isinstance(o, type) else str(o) for o in operands)
            raise unsupported(dt, f"np.{ufunc.__name__} on ({shown}) computes in {dt} in NumPy")
    *inputs, result = loop
    return tuple(inputs), result


def result_type(*operands: np.dtype[Any] | WeakScalar) -> np.dtype[Any]:
    """``np.result_type`` (Python scalars weak), checked to be a supported dtype."""
    dt = np.result_type(*operands)
    if dt not in _TO_ELEMENT:
        raise unsupported(dt, "the promoted type of " + ", ".join(map(str, operands)))
    return dt


def sum_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype ``np.sum``/``np.prod`` accumulate and return in: bools and signed ints widen to
    int64, unsigned ints to uint64 (NumPy's add.reduce on the platform's long)."""
    if dtype.kind == "u":
        return np.dtype(np.uint64)
    return np.dtype(np.int64) if dtype.kind in "bi" else dtype


def mean_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype ``np.mean`` returns: float64 for bools and integers, else unchanged."""
    return np.dtype(np.float64) if dtype.kind in "biu" else dtype
