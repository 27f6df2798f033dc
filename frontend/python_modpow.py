"""``pow(a, b, m)`` of Python ints some of which are computed at run time.

Python's three-argument ``pow`` is modular exponentiation of ints, exact at any size. kiln holds
Python ints in 64 bits, so it squares and multiplies modulo ``|m|`` (each product below ``m**2``)
and gives Python's answer where ``|m|`` is at most 3,037,000,499 (``m**2`` within int64); a larger
``m`` known while tracing is refused naming the line, and one known only at run time raises
``OverflowError`` naming it. The result has the sign of ``m``, as Python's ``%``; ``m == 0`` raises
Python's ``ValueError``. A negative exponent (Python's modular inverse) is refused naming the line
where known while tracing, and raises ``ValueError`` saying so where known only at run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend import index_facts, runtime_checks, trace_context
from kiln.frontend.python_division import python_kind
from kiln.frontend.tensor import Tensor, as_tensor, python_number

#: the largest modulus whose squares fit in int64
LARGEST_MODULUS = 3_037_000_499
#: bits of a non-negative int64 exponent
_BITS = 63


def _message(compute: Any) -> str:
    try:
        compute()
    except (ValueError, TypeError) as error:
        return str(error)
    raise AssertionError("no error")


_ZERO_MODULUS = _message(lambda: pow(2, 3, 0))
_NOT_INTS = _message(lambda: pow(2.0, 3, 5))


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
