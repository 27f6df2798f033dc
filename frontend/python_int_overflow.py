"""Python ints computed at run time are int64 in compiled code: where one leaves int64, the call raises.

Python's int grows without bound; kiln holds a Python int that it computes when the call runs
(``int(a[i])``, a counter a staged loop carries) in 64 bits. Where the exact result of ``+``,
``-``, ``*``, unary ``-``, ``abs``, ``<<``, ``**`` or ``//`` on such ints leaves int64, kiln
cannot give Python's answer, so the call raises ``OverflowError`` naming the line (a
``graph.check``) rather than return NumPy's wrapped int64. NumPy's own int64 values keep
NumPy's wrapping: only values of Python-int kind (weak ints) are checked.

The check is a few scalar ops on the wrapped result; where the trace knows the operands' ranges
(:func:`kiln.frontend.index_facts.exact_range`: loop indices, masked or reduced values, products
of them) and the exact result fits, none is emitted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kiln.dialects import graph
from kiln.frontend import index_facts, runtime_checks
from kiln.frontend.tensor import Tensor, cast, constant, emit

INT64 = np.dtype(np.int64)
_MIN, _MAX = -(2**63), 2**63 - 1

Ops = Sequence[Tensor]


def _const(value: int | float, dtype: type = np.int64) -> Tensor:
    return constant(np.asarray(value, dtype=dtype))


def _cmp(predicate: str, a: Tensor, b: Tensor) -> Tensor:
    return emit(graph.CmpOp(predicate, a.value, b.value))


def _and(a: Tensor, b: Tensor) -> Tensor:
    return emit(graph.AndOp(a.value, b.value))


def _or(a: Tensor, b: Tensor) -> Tensor:
    return emit(graph.OrOp(a.value, b.value))


def _xor(a: Tensor, b: Tensor) -> Tensor:
    return emit(graph.XorOp(a.value, b.value))


def _select(c: Tensor, a: Tensor, b: Tensor) -> Tensor:
    return emit(graph.SelectOp(c.value, a.value, b.value))


def _sign_bit_clear(x: Tensor) -> Tensor:
    return _cmp("ge", x, _const(0))


def _add_fits(ops: Ops, r: Tensor) -> Tensor:
    """Two's complement: ``a + b`` overflowed iff ``r``'s sign differs from both operands'."""
    a, b = ops
    return _sign_bit_clear(_and(_xor(a, r), _xor(b, r)))


def _sub_fits(ops: Ops, r: Tensor) -> Tensor:
    """``a - b`` overflowed iff the operands' signs differ and ``r``'s differs from ``a``'s."""
    a, b = ops
    return _sign_bit_clear(_and(_xor(a, b), _xor(a, r)))


def _mul_fits(ops: Ops, r: Tensor) -> Tensor:
    """``r == a * b`` exactly iff ``r // a == b`` (a wrapped ``r`` is off by a multiple of 2**64,
    more than ``|a|``); ``a`` of 0 and -1 (whose division could trap) are decided apart."""
    a, b = ops
    zero, minus_one = _cmp("eq", a, _const(0)), _cmp("eq", a, _const(-1))
    divisor = _select(_or(zero, minus_one), _const(1), a)
    exact = _cmp("eq", emit(graph.FloorDivOp(r.value, divisor.value)), b)
    return _or(zero, _select(minus_one, _cmp("ne", b, _const(_MIN)), exact))


def _not_min(ops: Ops, r: Tensor) -> Tensor:
    """``-a`` and ``abs(a)`` leave int64 only for ``a`` = -2**63."""
    return _cmp("ne", ops[0], _const(_MIN))


def _floordiv_fits(ops: Ops, r: Tensor) -> Tensor:
    """``a // b`` leaves int64 only for -2**63 // -1."""
    a, b = ops
    return _or(_cmp("ne", a, _const(_MIN)), _cmp("ne", b, _const(-1)))


def _shift_fits(ops: Ops, r: Tensor) -> Tensor:
    """``a << k`` is exact iff shifting back gives ``a`` (a count of 64 or more keeps only 0)."""
    a, k = ops
    back = emit(graph.RightShiftOp(r.value, k.value))
    return _or(_cmp("eq", a, _const(0)), _and(_cmp("lt", k, _const(64)), _cmp("eq", back, a)))


def _power_fits(ops: Ops, r: Tensor) -> Tensor:
    """``a ** k``: ``|a| ** k`` in float64 is within 2**-50 of the exact value, so below 2**62 it
    fits and from 2**64 on it does not; in between, the wrapped ``r`` has the exact value's sign
    only if it fits (a wrap there moves it by 2**64, across zero)."""
    a, k = ops
    f64 = np.dtype(np.float64)
    magnitude = emit(graph.PowOp(emit(graph.AbsOp(cast(a, f64).value)).value, cast(k, f64).value))
    odd = _cmp("ne", _and(k, _const(1)), _const(0))
    negative = _and(_cmp("lt", a, _const(0)), odd)
    sign_kept = _cmp("eq", _cmp("lt", r, _const(0)), negative)
    small = _cmp("lt", magnitude, _const(2.0**62, np.float64))
    near = _and(_cmp("lt", magnitude, _const(2.0**64, np.float64)), sign_kept)
    return _or(small, near)


#: the Python operators whose exact result on int64 operands may leave int64, and its test
FITS: dict[np.ufunc, Callable[[Ops, Tensor], Tensor]] = {
    np.add: _add_fits,
    np.subtract: _sub_fits,
    np.multiply: _mul_fits,
    np.negative: _not_min,
    np.absolute: _not_min,
    np.floor_divide: _floordiv_fits,
    np.left_shift: _shift_fits,
    np.power: _power_fits,
}

_SHOWN = {np.add: "+", np.subtract: "-", np.multiply: "*", np.negative: "unary -", np.absolute: "abs()",
          np.floor_divide: "//", np.left_shift: "<<", np.power: "**"}


def check(ufunc: np.ufunc, operands: Sequence[object], tensors: Ops, result: Tensor) -> tuple[int, int]:
    """Raise at run time where ``result``, a Python int ``ufunc`` made of ``operands`` (``tensors``
    as the ufunc took them: int64), is not the exact value; nothing where their ranges prove it is.
    Returns the range the result is then known to lie in (int64's where it is checked)."""
    lo, hi = index_facts.exact_range(ufunc, list(operands))
    if lo is not None and hi is not None and _MIN <= lo and hi <= _MAX:
        return lo, hi
    # (emitted inside a `try` body too: Python itself raises nothing here, its int grows, so no
    # `except` clause the user wrote is meant for it; the error says kiln cannot compute Python's answer)
    if ufunc is np.left_shift and not index_facts.within(operands[1], 0, _MAX):
        runtime_checks.emit_check(_sign_bit_clear(tensors[1]), "negative shift count", "")
    fits = FITS[ufunc](tensors, result)
    runtime_checks.emit_check(fits, f"{_SHOWN[ufunc]} of Python ints: {_DOES_NOT_FIT}, which kiln's compiled code uses for Python ints; "
                "Python's would grow. Keep it in range (`% m`, `& mask`), or compute it outside the kiln.function",
          graph.OVERFLOW_ERROR)
    return _MIN, _MAX


#: what the message of every check of this module says
_DOES_NOT_FIT = "this Python int does not fit in 64 bits"


def guards_only_its_value(op: object) -> bool:
    """Whether ``op`` is a check of this module: it fails only where a value kiln computes is not
    Python's, which Python itself never raises on; once nothing uses that value (a loop whose
    results are all unused), dropping the check with it changes nothing the call does."""
    return isinstance(op, graph.CheckOp) and op.message.data.startswith(graph.OVERFLOW_ERROR) \
        and f": {_DOES_NOT_FIT}," in op.message.data


def applies(ufunc: np.ufunc, result: Tensor) -> bool:
    """Whether ``result`` is a Python int computed by an operator that may leave int64."""
    return result.weak and result.ndim == 0 and result.dtype == INT64 and ufunc in FITS
