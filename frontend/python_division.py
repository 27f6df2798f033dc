"""Python's division of Python numbers computed at run time: ``ZeroDivisionError``, complex powers, complex quotients.

Python raises ``ZeroDivisionError`` for ``/``, ``//``, ``%`` and ``divmod`` of Python numbers by
zero, and for zero to a negative power; NumPy gives ``inf``, ``nan`` or ``0`` with a warning. kiln
holds a Python number it computes when the call runs (``float(a[i])``, a counter a staged loop
carries) as a weak 0-d tensor. Where a Python operator meets only such numbers, the call checks
the divisor and raises Python's error, with Python's message and the user's line (a
``graph.check``). A negative Python number to a finite non-integral float power is a complex in
Python: kiln cannot give a result whose type the data decides, so the call raises ``ValueError``
saying so, and so does a Python int to a negative int power (a float in Python) where the exponent
is computed at run time. NumPy's values (``a[i]`` of a float64 array, ``np.float64(x)``) keep NumPy's meaning:
``np.float64(1.0) / 0.0`` is ``inf``. A quotient of Python numbers one of which is a complex is
CPython's own Smith division (:func:`python_quotient`), not NumPy's, which rounds differently.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend import index_facts, result_kinds, runtime_checks
from kiln.dialects import graph
from kiln.frontend.tensor import Tensor, as_tensor, emit, python_number

#: Python number kinds, by a weak tensor's dtype kind
_KINDS = {"b": int, "i": int, "u": int, "f": float, "c": complex}


def python_kind(x: Any) -> type | None:
    """``int``, ``float`` or ``complex`` for a Python number (a literal, or a traced one: weak, 0-d,
    the same kind on every path); None for anything else (NumPy's values, arrays)."""
    if isinstance(x, Tensor):
        if x.weak and x.ndim == 0 and x.kind_flag is None and x.path_promotions is None:
            return _KINDS.get(x.dtype.kind)
        return None
    if type(x) in (bool, int):
        return int
    return type(x) if type(x) in (float, complex) else None


def python_message(compute: Callable[[], object], error: type[Exception] = ZeroDivisionError) -> str:
    """The message of the ``error`` ``compute`` raises in this Python (its words differ between versions)."""
    try:
        compute()
    except error as raised:
        return str(raised)
    raise AssertionError(f"no {error.__name__}")


#: Python's messages, by ufunc and the kind of the wider operand (``divmod(1.0, 0.0)``: "float divmod()")
_MESSAGES: dict[tuple[np.ufunc, type], str] = {
    (ufunc, kind): python_message(lambda: compute(kind(1), kind(0)))  # type: ignore[misc]
    for ufunc, compute, kinds in [
        (np.true_divide, lambda a, b: a / b, (int, float, complex)),
        (np.floor_divide, lambda a, b: a // b, (int, float)),
        (np.remainder, lambda a, b: a % b, (int, float)),
        (np.divmod, divmod, (int, float)),
    ]
    for kind in kinds
}
_ZERO_POWER = {kind: python_message(lambda: kind(0) ** -1) for kind in (int, float, complex)}  # type: ignore[misc]

#: the power whose result Python makes a float
_NEGATIVE_INT_POWER = (
    "a Python int to a negative int power is a float in Python, and here the exponent is negative when the "
    "call runs; kiln cannot give a result whose type the data decides. Write float(base) ** exponent for "
    "Python's float"
)

#: the power whose result Python makes complex
_COMPLEX_POWER = (
    "a negative Python number to a non-integral power is a complex number in Python, and here the base is "
    "negative when the call runs; kiln cannot give a result whose type the data decides. Write "
    "complex(base) ** exponent for Python's complex, or np.power(base, exponent) for NumPy's nan"
)


#: the ufuncs Python's operators raise on
CHECKED = frozenset({np.true_divide, np.floor_divide, np.remainder, np.divmod, np.power})

#: how many checked operators are being traced (their own ufuncs, divmod's parts, are not checked again)
_DEPTH = [0]


class checked:  # noqa: N801 (used as a function: ``with checked(ufunc, inputs):``)
    """Trace the Python operator ``ufunc`` of ``inputs`` (in the body) after Python's checks, where
    they are all Python numbers, at least one traced (Python itself computes the rest); an operand
    that is a Python number on some paths only (a kind flag) is checked on those. A class, not a
    generator: the checks' line is the user's, found past kiln's own frames."""

    def __init__(self, ufunc: np.ufunc, inputs: Sequence[Any]) -> None:
        self.ufunc, self.inputs = ufunc, inputs

    def __enter__(self) -> None:
        inputs = self.inputs
        if _DEPTH[0] == 0 and self.ufunc in CHECKED and len(inputs) == 2 and any(isinstance(x, Tensor) for x in inputs):
            codes = [_code(x) for x in inputs]
            if None not in codes:
                _Paths(codes).check(self.ufunc, inputs[0], inputs[1])  # type: ignore[arg-type]
        _DEPTH[0] += 1

    def __exit__(self, *exc: object) -> None:
        _DEPTH[0] -= 1


_CODES = {int: result_kinds.PYTHON_INT, float: result_kinds.PYTHON_FLOAT, complex: result_kinds.PYTHON_COMPLEX}


def _code(x: Any) -> Any:
    """``x``'s Python kind (result_kinds' code), its kind flag where that is per path; None for a NumPy value."""
    if isinstance(x, Tensor) and x.kind_flag is not None and x.ndim == 0:
        return x.kind_flag
    kind = python_kind(x)
    return None if kind is None else _CODES[kind]


def _static(x: Any) -> bool:
    return not isinstance(x, Tensor)


class _Paths:
    """Where the operator is Python's, and the Python type of its widest operand (a bool counts
    as an int): known while tracing, or per path from kind flags (then tensors)."""

    def __init__(self, codes: list[Any]) -> None:
        self.codes = codes
        flags = [c for c in codes if isinstance(c, Tensor)]
        self.python = functools.reduce(np.logical_and, [np.greater_equal(f, result_kinds.PYTHON_BOOL) for f in flags], True)
        self.widest = functools.reduce(np.maximum, codes, result_kinds.PYTHON_INT)

    def on(self, kind: type) -> Any:
        """Where the operator is Python's on ``kind`` numbers (a bool while tracing, else a tensor)."""
        return np.logical_and(self.python, np.equal(self.widest, _CODES[kind]))

    def check(self, ufunc: np.ufunc, a: Any, b: Any) -> None:
        if ufunc is np.power:
            self._power(a, b)
            return
        if _static(b) and b != 0:
            return
        for kind in (int, float, complex):
            if (ufunc, kind) in _MESSAGES:
                _fails(self.on(kind), lambda: np.equal(b, 0), ZeroDivisionError, _MESSAGES[ufunc, kind])

    def _power(self, base: Any, exponent: Any) -> None:
        """Zero to a negative (or complex) power raises; an int to a negative int power is a float
        and a negative real to a finite non-integral float power a complex: types the data decides.
        Literals that rule a case out spare its check."""
        if not _static(base) or base == 0:
            for kind in (int, float, complex):
                negative = (lambda: np.logical_or(np.less(np.real(exponent), 0), np.not_equal(np.imag(exponent), 0))) \
                    if kind is complex else (lambda: np.less(exponent, 0))
                if _static(exponent) and not negative():
                    continue
                _fails(self.on(kind), lambda: np.logical_and(np.equal(base, 0), negative()), ZeroDivisionError,
                       _ZERO_POWER[kind])
        if not _static(exponent) and not index_facts.within(exponent, 0, 2**63 - 1):
            _fails(self.on(int), lambda: np.less(exponent, 0), ValueError, _NEGATIVE_INT_POWER)
        if any(isinstance(x, complex) for x in (base, exponent)) or (_static(base) and not base < 0) \
                or (_static(exponent) and not _fractional(exponent)):
            return
        _fails(np.logical_and(self.on(float), np.equal(self.codes[1], result_kinds.PYTHON_FLOAT)),
               lambda: np.logical_and(np.less(base, 0), _fractional(exponent)), ValueError, _COMPLEX_POWER)


def _fractional(x: Any) -> Any:
    """A finite number that is not an integer (Python's power of a negative base is then complex)."""
    return np.logical_and(np.isfinite(x), np.not_equal(x, np.floor(x)))


def _fails(where: Any, bad: Callable[[], Any], error: type[Exception], message: str) -> None:
    """Raise ``error(message)`` at run time where ``where`` and ``bad()`` hold; nothing where
    ``where`` is false while tracing."""
    if _static(where) and not where:
        return
    runtime_checks.raises(as_tensor(np.logical_not(np.logical_and(where, bad()))), error, message)


def python_quotient(inputs: Sequence[Any]) -> Tensor | None:
    """``a / b`` as Python computes it where one of the Python numbers ``inputs`` is a complex and
    one is traced: CPython's Smith division (``_Py_c_quot``), whose roundings differ from NumPy's
    complex division in the last bit for about two quotients in five; None for other operands."""
    if len(inputs) != 2 or not any(isinstance(x, Tensor) for x in inputs):
        return None
    kinds = [python_kind(x) for x in inputs]
    if complex not in kinds or None in kinds:
        return None
    (ar, ai), (br, bi) = (_parts(x) for x in inputs)
    if not isinstance(inputs[1], Tensor):  # b written in the code: CPython's branch is known now
        re, im = _by_real(ar, ai, br, bi) if abs(br) >= abs(bi) and br != 0 else \
            _by_imag(ar, ai, br, bi) if abs(bi) >= abs(br) and bi != 0 else \
            (np.multiply(ar, np.nan), np.multiply(ai, np.nan))  # (a NaN part, or zero: raised above)
        return python_number(emit(graph.ComplexOp(as_tensor(re).value, as_tensor(im).value)))
    (re1, im1), (re2, im2) = _by_real(ar, ai, br, bi), _by_imag(ar, ai, br, bi)
    by_real = np.greater_equal(np.absolute(br), np.absolute(bi))
    by_imag = np.greater_equal(np.absolute(bi), np.absolute(br))  # (neither: a part of b is NaN)
    re = np.where(by_real, re1, np.where(by_imag, re2, np.nan))
    im = np.where(by_real, im1, np.where(by_imag, im2, np.nan))
    return python_number(emit(graph.ComplexOp(as_tensor(re).value, as_tensor(im).value)))


def _by_real(ar: Any, ai: Any, br: Any, bi: Any) -> tuple[Any, Any]:
    """Smith's quotient with top and bottom divided by ``b.real`` (CPython's branch where
    ``|b.real| >= |b.imag|``). Only the branch CPython takes is computed for a ``b`` written in
    the code: the other would divide by its zero part while tracing (a NumPy RuntimeWarning)."""
    ratio = np.true_divide(bi, br)
    denom = np.add(br, np.multiply(bi, ratio))
    return (np.true_divide(np.add(ar, np.multiply(ai, ratio)), denom),
            np.true_divide(np.subtract(ai, np.multiply(ar, ratio)), denom))


def _by_imag(ar: Any, ai: Any, br: Any, bi: Any) -> tuple[Any, Any]:
    """Smith's quotient with top and bottom divided by ``b.imag`` (the other branch)."""
    ratio = np.true_divide(br, bi)
    denom = np.add(np.multiply(br, ratio), bi)
    return (np.true_divide(np.add(np.multiply(ar, ratio), ai), denom),
            np.true_divide(np.subtract(np.multiply(ai, ratio), ar), denom))


def _parts(x: Any) -> tuple[Any, Any]:
    """A Python number's real and imaginary parts as floats (Python makes an int or float complex)."""
    if python_kind(x) is complex:
        return np.real(x), np.imag(x)
    return (as_tensor(x).astype(np.float64) if isinstance(x, Tensor) else float(x)), 0.0
