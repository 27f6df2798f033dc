"""What the trace knows about a traced integer that indexes: its range, and ``i + c`` forms.

A staged ``for i in range(a, b)`` with known bounds knows ``a <= i < b``; ``i + 1``
and ``i - k`` keep a range and remember that they are ``i`` plus a constant. Indexing
uses both (:mod:`kiln.frontend.indexing`): an index known to be in range needs no
wrap-around or clamping ops, and ``x[i:i + k]`` has the static size ``k``, so the
slice keeps a static shape instead of one known only at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.frontend.tensor import Tensor


@dataclass(frozen=True)
class Facts:
    """``lo <= value <= hi`` (None: unbounded), and ``value == base + offset`` when ``base`` is set."""

    lo: int | None = None
    hi: int | None = None
    base: int | None = None  # id() of the tensor this one is a constant away from
    offset: int = 0


def of(x: Any) -> Facts:
    """The facts of a traced integer, or of a Python int (exact)."""
    if isinstance(x, Tensor):
        return x.facts if isinstance(x.facts, Facts) else Facts()
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return Facts(int(x), int(x))
    return Facts()


def loop_index(i: Tensor, lo: int | None, hi: int | None) -> None:
    """Record that ``i`` is a loop index in ``[lo, hi]``: its own base."""
    i.facts = Facts(lo, hi, id(i), 0)


def derive(ufunc: np.ufunc, operands: list[Any], result: Tensor) -> None:
    """Facts of ``result = ufunc(*operands)`` for + and - with an integer result."""
    if result.dtype.kind not in "iu" or ufunc not in (np.add, np.subtract) or len(operands) != 2:
        return
    a, b = of(operands[0]), of(operands[1])
    sign = 1 if ufunc is np.add else -1
    blo, bhi = (b.lo, b.hi) if sign == 1 else (None if b.hi is None else -b.hi, None if b.lo is None else -b.lo)
    lo = None if a.lo is None or blo is None else a.lo + blo
    hi = None if a.hi is None or bhi is None else a.hi + bhi
    base, offset = None, 0
    b_const = isinstance(operands[1], (int, np.integer))
    a_const = isinstance(operands[0], (int, np.integer))
    if a.base is not None and b_const:
        base, offset = a.base, a.offset + sign * int(operands[1])
    elif b.base is not None and a_const and sign == 1:
        base, offset = b.base, b.offset + int(operands[0])
    if lo is not None or hi is not None or base is not None:
        result.facts = Facts(lo, hi, base, offset)


def difference(stop: Any, start: Any) -> int | None:
    """``stop - start`` when both are one traced integer plus constants (or both constants)."""
    a, b = of(stop), of(start)
    if a.base is not None and a.base == b.base:
        return a.offset - b.offset
    if a.lo is not None and a.lo == a.hi and b.lo is not None and b.lo == b.hi:
        return a.lo - b.lo
    return None


def within(x: Any, lo: int, hi: int) -> bool:
    """Whether ``lo <= x <= hi`` is known."""
    f = of(x)
    return f.lo is not None and f.hi is not None and f.lo >= lo and f.hi <= hi
