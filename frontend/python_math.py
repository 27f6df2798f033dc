"""Python's ``math`` functions of traced values: ``math.sqrt(x.sum())`` inside a kiln.function.

``math.sqrt`` needs a real Python float, which a traced value does not have, so AutoGraph's
call hook routes these functions here while tracing (as it does NumPy's array-creation
functions). Each takes its arguments as ``float()`` does (a 0-d array only) and gives a 0-d
float64 standing for the Python float it returns, weak to NumPy's promotion
(``float32_array * math.sqrt(s)`` stays float32); ``floor``/``ceil``/``trunc`` give Python ints,
``isnan``/``isinf``/``isfinite``/``isclose`` bools. Python raises where NumPy gives NaN or infinity:
``math.sqrt(-1.0)`` is ``ValueError: math domain error``, ``math.exp(1000.0)`` is
``OverflowError: math range error``. kiln checks both at run time: a NaN result from inputs that
are not NaN is the domain error, an infinite one from finite inputs the range error (a
``ValueError`` too for the logarithms, ``atanh`` and ``0.0 ** negative``, as in Python).
Called with Python values, each is the ``math`` function itself.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend import python_modpow, runtime_checks
from kiln.frontend.tensor import Tensor, as_tensor, python_number

#: how an infinite result from finite arguments is reported: Python's error, or None (returned)
_OVERFLOW, _DOMAIN = "OverflowError", "ValueError"

#: math function -> (the NumPy ufunc computing it, its number of arguments, its infinite-result error)
_FLOAT_FUNCTIONS: dict[Callable[..., Any], tuple[np.ufunc, int, str | None]] = {
    math.sqrt: (np.sqrt, 1, None),
    math.exp: (np.exp, 1, _OVERFLOW),
    math.expm1: (np.expm1, 1, _OVERFLOW),
    math.log: (np.log, 1, _DOMAIN),
    math.log2: (np.log2, 1, _DOMAIN),
    math.log10: (np.log10, 1, _DOMAIN),
    math.log1p: (np.log1p, 1, _DOMAIN),
    math.sin: (np.sin, 1, None),
    math.cos: (np.cos, 1, None),
    math.tan: (np.tan, 1, None),
    math.asin: (np.arcsin, 1, None),
    math.acos: (np.arccos, 1, None),
    math.atan: (np.arctan, 1, None),
    math.sinh: (np.sinh, 1, _OVERFLOW),
    math.cosh: (np.cosh, 1, _OVERFLOW),
    math.tanh: (np.tanh, 1, None),
    math.asinh: (np.arcsinh, 1, None),
    math.acosh: (np.arccosh, 1, None),
    math.atanh: (np.arctanh, 1, _DOMAIN),
    math.fabs: (np.fabs, 1, None),
    math.degrees: (np.degrees, 1, None),
    math.radians: (np.radians, 1, None),
    math.atan2: (np.arctan2, 2, None),
    math.hypot: (np.hypot, 2, None),
    math.copysign: (np.copysign, 2, None),
    math.fmod: (np.fmod, 2, None),
    math.pow: (np.power, 2, _OVERFLOW),  # 0.0 ** negative: ValueError (below)
}

#: math functions that return Python ints, by the NumPy ufunc that rounds
_INT_FUNCTIONS: dict[Callable[..., Any], np.ufunc] = {math.floor: np.floor, math.ceil: np.ceil, math.trunc: np.trunc}

#: math predicates, returning Python bools
_PREDICATES: dict[Callable[..., Any], np.ufunc] = {math.isnan: np.isnan, math.isinf: np.isinf, math.isfinite: np.isfinite}


def _traced(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, Tensor) or hasattr(type(a), "__kiln_tensor__") for a in args)


def _scalar(value: Any, name: str) -> Tensor:
    """The traced ``value`` as a 0-d tensor: ``math`` converts only 0-d arrays, as ``float()`` does."""
    t = as_tensor(value)
    if t.ndim != 0:
        raise TypeError(f"only 0-dimensional arrays can be converted to Python scalars (math.{name} of {t!r})")
    return t


def _as_float(value: Any, name: str) -> Any:
    """``value`` as ``math`` takes it: a Python number stays, a traced value must be 0-d (as
    ``float()`` requires) and becomes float64."""
    if not _traced((value,)):
        return float(value)
    t = _scalar(value, name)
    if t.dtype.kind == "c":
        raise TypeError(f"must be real number, not complex (math.{name} of {t!r})")
    return t.astype(np.float64)


def _float_function(fn: Callable[..., Any], ufunc: np.ufunc, arity: int, on_infinite: str | None) -> Callable[..., Any]:
    name = fn.__name__

    def traced(*args: Any) -> Any:
        if not _traced(args):
            return fn(*args)
        if len(args) != arity:
            if fn is math.log and len(args) == 2:
                raise NotImplementedError(
                    "math.log(x, base) of a traced value is not supported inside kiln.function: write math.log(x) / math.log(base)"
                )
            raise TypeError(f"math.{name} takes {arity} argument{'s' if arity > 1 else ''} ({len(args)} given)")
        xs = [_as_float(a, name) for a in args]
        result = as_tensor(ufunc(*xs))
        _check_domain(result, xs)
        if on_infinite is not None:
            if fn is math.pow:  # 0.0 ** negative is a domain error in Python, an overflow otherwise
                base_zero = np.equal(xs[0], 0.0)
                _check_range(result, xs, base_zero, _DOMAIN)
                _check_range(result, xs, np.logical_not(base_zero), _OVERFLOW)
            else:
                _check_range(result, xs, None, on_infinite)
        return python_number(result)

    traced.__name__ = name
    traced.__doc__ = f"``math.{name}`` of traced values (see :mod:`kiln.frontend.python_math`)."
    return traced


def _check_domain(result: Tensor, xs: list[Any]) -> None:
    """NaN from arguments that are not NaN: Python's ``ValueError: math domain error``."""
    ok = functools.reduce(np.logical_or, [np.logical_not(np.isnan(result)), *(np.isnan(x) for x in xs)])
    runtime_checks.require(as_tensor(ok), "math domain error")


def _check_range(result: Tensor, xs: list[Any], when: Any, error: str) -> None:
    """An infinite result from finite arguments (where ``when`` holds): Python's error ``error``."""
    bad = functools.reduce(np.logical_and, [np.isinf(result), *(np.isfinite(x) for x in xs), *([when] if when is not None else [])])
    message = "math range error" if error == _OVERFLOW else "math domain error"
    runtime_checks.require(as_tensor(np.logical_not(bad)), message, overflow=error == _OVERFLOW)


def _int_function(fn: Callable[..., Any], ufunc: np.ufunc) -> Callable[..., Any]:
    name = fn.__name__

    def traced(x: Any) -> Any:
        if not _traced((x,)):
            return fn(x)
        t = _scalar(x, name)
        if t.dtype.kind in "iub":
            return python_number(t.astype(np.int64))
        rounded = as_tensor(ufunc(_as_float(t, name)))
        runtime_checks.integral(rounded, f"math.{name}()")
        return python_number(rounded.astype(np.int64))

    traced.__name__ = name
    traced.__doc__ = f"``math.{name}`` of a traced value: a Python int (see :mod:`kiln.frontend.python_math`)."
    return traced


def _predicate(fn: Callable[..., Any], ufunc: np.ufunc) -> Callable[..., Any]:
    name = fn.__name__

    def traced(x: Any) -> Any:
        if not _traced((x,)):
            return fn(x)
        return python_number(as_tensor(ufunc(_as_float(x, name))))

    traced.__name__ = name
    traced.__doc__ = f"``math.{name}`` of a traced value: a Python bool (see :mod:`kiln.frontend.python_math`)."
    return traced


def _isclose(a: Any, b: Any, *, rel_tol: Any = 1e-09, abs_tol: Any = 0.0) -> Any:
    """``math.isclose`` of traced values: a Python bool, by Python's rule (equal values are close,
    infinities only to themselves, NaN to nothing; else ``|a - b|`` within ``rel_tol`` of either
    magnitude or within ``abs_tol``)."""
    if not _traced((a, b, rel_tol, abs_tol)):
        return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    if not _traced((rel_tol, abs_tol)) and (rel_tol < 0.0 or abs_tol < 0.0):
        raise ValueError("tolerances must be non-negative")
    x, y = _as_float(a, "isclose"), _as_float(b, "isclose")
    rel, tol = _as_float(rel_tol, "isclose"), _as_float(abs_tol, "isclose")
    diff = np.absolute(np.subtract(y, x))
    near = functools.reduce(np.logical_or, [np.less_equal(diff, np.absolute(np.multiply(rel, y))),
                                            np.less_equal(diff, np.absolute(np.multiply(rel, x))), np.less_equal(diff, tol)])
    finite = np.logical_not(np.logical_or(np.isinf(x), np.isinf(y)))
    return python_number(as_tensor(np.logical_or(np.equal(x, y), np.logical_and(finite, near))))


#: the math functions and their kiln versions inside a trace
TRACED: dict[Any, Callable[..., Any]] = {fn: _float_function(fn, *spec) for fn, spec in _FLOAT_FUNCTIONS.items()}
TRACED.update({fn: _int_function(fn, ufunc) for fn, ufunc in _INT_FUNCTIONS.items()})
TRACED.update({fn: _predicate(fn, ufunc) for fn, ufunc in _PREDICATES.items()})
TRACED[math.isclose] = _isclose
TRACED.update({math.gcd: python_modpow.gcd, math.lcm: python_modpow.lcm})  # (Python ints: exact)
