"""``round(x, n)`` of a Python float computed at run time, correctly rounded as Python's.

Python rounds the float's exact binary value to ``n`` decimals, half to even, and returns the
float nearest the decimal: ``round(2.675, 2)`` is ``2.67``, as 2.675 is stored as
2.67499999999999982... NumPy scales by ``10**n``, rounds the rounded product and scales back:
``np.round(2.675, 2)`` is ``2.68``, since ``2.675 * 100`` rounds to ``267.5``, a tie. kiln keeps
NumPy's for NumPy values (``round(a[i], 2)`` of a float64 array is NumPy's) and gives Python's
for Python floats: the product's rounding error, exact by Dekker's two-product (kiln's C is
compiled without fma contraction), says on which side of a tie the exact value lies; the
quotient ``r / 10**n`` is then the float nearest the decimal, ``10**n`` being exact for
``|n| <= 22``. Other ``n`` are refused naming the line.
"""

from __future__ import annotations

import numpy as np

from kiln.frontend import trace_context
from kiln.frontend.tensor import Tensor, as_tensor, implements, python_number

#: the largest ``|n|`` whose ``10.0**n`` is exact
EXACT_DIGITS = 22
#: Dekker's splitter for doubles, 2**27 + 1
_SPLITTER = 134217729.0
#: from here on every double is an integer
_INTEGERS = 2.0**52


def _split(a: Tensor) -> tuple[Tensor, Tensor]:
    """``a`` as a high and a low half of 26 bits each (their sum exactly ``a``)."""
    c = np.multiply(_SPLITTER, a)
    high = np.subtract(c, np.subtract(c, a))
    return high, np.subtract(a, high)


def _product_error(a: Tensor, b: float, p: Tensor) -> Tensor:
    """``a * b - p`` exactly, where ``p`` is the rounded ``a * b`` (Dekker's two-product)."""
    ah, al = _split(a)
    bh, bl = _split(as_tensor(np.float64(b)))
    return np.add(np.add(np.add(np.subtract(np.multiply(ah, bh), p), np.multiply(ah, bl)), np.multiply(al, bh)),
                  np.multiply(al, bl))


@implements
def python_round(x: Tensor, ndigits: int) -> Tensor:
    """Python's ``round(x, ndigits)`` of the traced Python float ``x`` (a Python float)."""
    if not -EXACT_DIGITS <= ndigits <= EXACT_DIGITS:
        raise NotImplementedError(
            f"{trace_context.here()}: round(x, {ndigits}) of a Python float computed at run time: kiln rounds as "
            f"Python does for |ndigits| <= {EXACT_DIGITS} only"
        )
    scale = 10.0 ** abs(ndigits)
    x = as_tensor(x).astype(np.float64)
    if ndigits >= 0:
        p = np.multiply(x, scale)
        above = _product_error(x, scale, p)  # the exact x * scale is p + above
    else:
        p = np.true_divide(x, scale)
        back = np.multiply(p, scale)
        above = np.subtract(np.subtract(x, back), _product_error(p, scale, back))  # x - p * scale, exactly (times scale: the sign)
    low = np.floor(p)
    tie = np.equal(np.subtract(p, low), 0.5)
    r = np.where(np.logical_and(tie, np.greater(above, 0)), np.add(low, 1.0),
                 np.where(np.logical_and(tie, np.less(above, 0)), low, np.rint(p)))
    out = np.true_divide(r, scale) if ndigits >= 0 else np.multiply(r, scale)
    exact = np.logical_and(np.isfinite(x), np.less(np.absolute(p), _INTEGERS))  # (else x has no digits to drop)
    return python_number(as_tensor(np.copysign(np.where(exact, out, x), x)))
