"""Python's number theory of ints computed at run time: ``pow(a, b, m)``, ``math.gcd``, ``math.lcm``.

Python's three-argument ``pow`` is modular exponentiation of ints, exact at any size. kiln holds
Python ints in 64 bits, so it squares and multiplies modulo ``|m|`` (each product below ``m**2``)
and gives Python's answer where ``|m|`` is at most 3,037,000,499 (``m**2`` within int64); a larger
``m`` known while tracing is refused naming the line, and one known only at run time raises
``OverflowError`` naming it. The result has the sign of ``m``, as Python's ``%``; ``m == 0`` raises
Python's ``ValueError``. A negative exponent (Python's modular inverse) is refused naming the line
where known while tracing, and raises ``ValueError`` saying so where known only at run time.

``math.gcd`` and ``math.lcm`` take Python ints (any number of them, as Python 3.9's): Euclid's
algorithm unrolled to the 92 steps that end it for every int64, the result non-negative; an lcm
that leaves int64 raises ``OverflowError`` naming the line (kiln.frontend.python_int_overflow), as
does ``-2**63``, whose magnitude int64 cannot hold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend import index_facts, runtime_checks, trace_context
from kiln.frontend.python_division import python_kind, python_message
from kiln.frontend.tensor import Tensor, as_tensor, python_number

#: the largest modulus whose squares fit in int64
LARGEST_MODULUS = 3_037_000_499
#: bits of a non-negative int64 exponent
_BITS = 63


_ZERO_MODULUS = python_message(lambda: pow(2, 3, 0), ValueError)
_NOT_INTS = python_message(lambda: pow(2.0, 3, 5), TypeError)


def modpow(base: Any, exponent: Any, modulus: Any) -> Any:
    """Python's ``pow(base, exponent, modulus)``, one of them traced."""
    where = trace_context.here()
    if any(python_kind(x) is not int for x in (base, exponent, modulus)):
        raise TypeError(f"{where}: {_NOT_INTS}")
    if not isinstance(modulus, Tensor):
        if modulus == 0:
            raise ValueError(_ZERO_MODULUS)
        if abs(modulus) > LARGEST_MODULUS:
            raise NotImplementedError(f"{where}: pow(a, b, m) with |m| > {LARGEST_MODULUS}: kiln's compiled Python ints "
                                      "are 64 bits, and the products it reduces modulo m would not fit")
    else:
        runtime_checks.raises(as_tensor(np.not_equal(modulus, 0)), ValueError, _ZERO_MODULUS)
        runtime_checks.raises(as_tensor(np.less_equal(np.absolute(modulus), LARGEST_MODULUS)), OverflowError,
                              f"pow(a, b, m) with |m| > {LARGEST_MODULUS}: kiln's compiled Python ints are 64 bits, "
                              "and the products it reduces modulo m would not fit")
    if not isinstance(exponent, Tensor):
        if exponent < 0:
            raise NotImplementedError(f"{where}: pow(a, b, m) with b < 0 (a modular inverse) is not supported inside "
                                      "kiln.function")
        bits = [bool(exponent >> k & 1) for k in range(max(exponent.bit_length(), 1))]
    else:
        if not index_facts.within(exponent, 0, 2**63 - 1):
            runtime_checks.raises(as_tensor(np.greater_equal(exponent, 0)), ValueError,
                                  "pow(a, b, m) with b < 0 (a modular inverse) is not supported inside kiln.function")
        e = as_tensor(exponent).astype(np.int64)
        bits = [np.not_equal(np.bitwise_and(np.right_shift(e, k), 1), 0) for k in range(_BITS)]
    m = np.absolute(as_tensor(modulus).astype(np.int64))
    square = np.remainder(as_tensor(base).astype(np.int64), m)
    result = np.remainder(np.int64(1), m)
    for k, bit in enumerate(bits):
        if bit is not False:
            product = np.remainder(np.multiply(result, square), m)
            result = product if bit is True else np.where(bit, product, result)
        if k + 1 < len(bits):
            square = np.remainder(np.multiply(square, square), m)
    return python_number(as_tensor(np.remainder(result, as_tensor(modulus).astype(np.int64))))


#: Euclid's steps that reduce every pair of int64 magnitudes to (gcd, 0): F(93) > 2**63
_EUCLID_STEPS = 92


def _int_operands(name: str, values: tuple[Any, ...]) -> list[Any]:
    for v in values:
        if python_kind(v) is not int:
            raise TypeError(f"{trace_context.here()}: math.{name}(): {type(v).__name__!r} object cannot be interpreted as an integer")
    return list(values)


def _magnitude(x: Any) -> Any:
    """``abs(x)`` of an int64 Python int, refusing ``-2**63`` (its magnitude is not an int64)."""
    if not isinstance(x, Tensor):
        if x == -(2**63):
            raise NotImplementedError(f"{trace_context.here()}: the magnitude of -2**63 does not fit in 64 bits")
        return abs(x)
    t = as_tensor(x).astype(np.int64)
    if not index_facts.within(x, -(2**63) + 1, 2**63 - 1):
        runtime_checks.raises(as_tensor(np.not_equal(t, np.int64(-(2**63)))), OverflowError,
                              "the magnitude of -2**63 does not fit in 64 bits, which kiln's compiled code uses for Python ints")
    return np.absolute(t)


def _gcd2(a: Any, b: Any) -> Any:
    a, b = _magnitude(a), _magnitude(b)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        import math
        return math.gcd(a, b)
    a, b = as_tensor(a).astype(np.int64), as_tensor(b).astype(np.int64)
    for _ in range(_EUCLID_STEPS):
        going = np.not_equal(b, 0)
        a, b = np.where(going, b, a), np.where(going, np.remainder(a, np.where(going, b, 1)), 0)
    return python_number(as_tensor(a))


def gcd(*integers: Any) -> Any:
    """``math.gcd(*integers)`` of Python ints, some traced: non-negative, 0 of none."""
    values = _int_operands("gcd", integers)
    result: Any = 0
    for v in values:
        result = _gcd2(result, v)
    return result


def lcm(*integers: Any) -> Any:
    """``math.lcm(*integers)`` of Python ints, some traced: non-negative, 1 of none, 0 where one is 0."""
    values = _int_operands("lcm", integers)
    result: Any = 1
    for v in values:
        g = _gcd2(result, v)
        if not isinstance(g, Tensor):
            result = abs(result // g * v) if g else 0
            continue
        zero = np.equal(g, 0)
        safe = python_number(as_tensor(np.where(zero, 1, g)))
        scaled = python_number(as_tensor(_magnitude(result))) // safe * python_number(as_tensor(_magnitude(v)))
        result = python_number(as_tensor(np.where(zero, 0, scaled)))
    return result
