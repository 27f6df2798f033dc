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


@dataclass(frozen=True)
class _BoolRange:
    min: int = 0
    max: int = 1


_BOOL = _BoolRange()


def of(x: Any) -> Facts:
    """The facts of a traced integer (within its dtype's range), or of a Python int (exact)."""
    if isinstance(x, Tensor):
        facts = x.facts if isinstance(x.facts, Facts) else Facts()
        if x.dtype.kind not in "iub":
            return facts
        info = np.iinfo(x.dtype) if x.dtype.kind != "b" else _BOOL
        return Facts(info.min if facts.lo is None else facts.lo, info.max if facts.hi is None else facts.hi,
                     facts.base, facts.offset)  # (its dtype's range where nothing narrower is known)
    if isinstance(x, (int, np.integer, np.bool_)):
        return Facts(int(x), int(x))
    return Facts()


def loop_index(i: Tensor, lo: int | None, hi: int | None) -> None:
    """Record that ``i`` is a loop index in ``[lo, hi]``: its own base."""
    i.facts = Facts(lo, hi, id(i), 0)


def derive(ufunc: np.ufunc, operands: list[Any], result: Tensor, exact: tuple[int, int] | None = None) -> None:
    """Facts of the 0-d integer ``result = ufunc(*operands)``: its range where the exact result's
    range (:func:`exact_range`, or ``exact`` where the caller has it) lies in its dtype's (else it may
    wrap, so nothing is known), and for + and - the ``i + c`` form."""
    if result.dtype.kind not in "iu":
        return
    info = np.iinfo(result.dtype)
    lo, hi = exact if exact is not None else exact_range(ufunc, operands)
    if lo is None or hi is None or lo < info.min or hi > info.max:
        lo = hi = None
    base, offset = None, 0
    if ufunc in (np.add, np.subtract) and len(operands) == 2:
        sign = 1 if ufunc is np.add else -1
        a, b = of(operands[0]), of(operands[1])
        b_const = isinstance(operands[1], (int, np.integer))
        a_const = isinstance(operands[0], (int, np.integer))
        if a.base is not None and b_const:
            base, offset = a.base, a.offset + sign * int(operands[1])
        elif b.base is not None and a_const and sign == 1:
            base, offset = b.base, b.offset + int(operands[0])
    if lo is not None or base is not None:
        result.facts = Facts(lo, hi, base, offset)


Range = tuple[int | None, int | None]


def _hull(values: list[int]) -> Range:
    return min(values), max(values)


def _add(a: Facts, b: Facts) -> Range:
    return (None if a.lo is None or b.lo is None else a.lo + b.lo, None if a.hi is None or b.hi is None else a.hi + b.hi)


def _corners(a: Facts, b: Facts, op: Any) -> Range:
    """The hull of ``op`` at the corners of two bounded ranges (exact for an op monotone in each operand)."""
    if None in (a.lo, a.hi, b.lo, b.hi):
        return None, None
    return _hull([op(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)])


def _bounded(f: Facts) -> bool:
    return f.lo is not None and f.hi is not None


def _negated(f: Facts) -> Facts:
    return Facts(None if f.hi is None else -f.hi, None if f.lo is None else -f.lo)


def _bitwise(ufunc: np.ufunc, a: Facts, b: Facts) -> Range:
    """``&``, ``|``, ``^``: of non-negative values below ``2**k``, below ``2**k``; ``x & m`` with
    ``0 <= m``, in ``[0, m]``."""
    nonneg = [f for f in (a, b) if f.lo is not None and f.lo >= 0 and f.hi is not None]
    if ufunc is np.bitwise_and and nonneg:
        return 0, min(f.hi for f in nonneg)  # type: ignore[type-var]
    if len(nonneg) == 2:
        return 0, (1 << max(f.hi for f in nonneg).bit_length()) - 1  # type: ignore[union-attr]
    return None, None


def _power(a: Facts, b: Facts) -> Range:
    """``a ** k`` for a bounded ``a`` and a small non-negative bounded ``k``."""
    if not (_bounded(a) and _bounded(b)) or b.lo < 0 or b.hi > 64 \
            or max(abs(a.lo), abs(a.hi)) > 1 and max(abs(a.lo), abs(a.hi)).bit_length() * b.hi > 256:  # type: ignore[operator]
        return None, None
    bases = [a.lo, a.hi, *([0, 1, -1] if a.lo < 0 < a.hi else [])]  # type: ignore[operator]
    return _hull([x**k for x in bases for k in range(b.lo, b.hi + 1) if a.lo <= x <= a.hi])  # type: ignore[arg-type,operator]


def exact_range(ufunc: np.ufunc, operands: list[Any]) -> Range:
    """The range of the exact (unbounded) result of ``ufunc`` on integer operands of known
    ranges, by interval arithmetic: cheap, and enough for loop indices bounded by trip counts,
    values masked ``& 0xFFFF`` or taken ``% m``, and products of such."""
    fs = [of(x) for x in operands]
    if len(fs) == 1:
        (a,) = fs
        if ufunc is np.negative:
            n = _negated(a)
            return n.lo, n.hi
        if ufunc is np.positive:
            return a.lo, a.hi
        if ufunc is np.absolute and _bounded(a):
            return (0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))), max(abs(a.lo), abs(a.hi))  # type: ignore[arg-type]
        if ufunc is np.invert:
            n = _negated(a)
            return None if n.lo is None else n.lo - 1, None if n.hi is None else n.hi - 1
        return None, None
    if len(fs) != 2:
        return None, None
    a, b = fs
    if ufunc is np.add:
        return _add(a, b)
    if ufunc is np.subtract:
        return _add(a, _negated(b))
    if ufunc is np.multiply:
        return _corners(a, b, lambda x, y: x * y)
    if ufunc is np.remainder and _bounded(b) and (b.lo > 0 or b.hi < 0):  # type: ignore[operator]
        if b.lo > 0:  # type: ignore[operator]
            return (0, b.hi - 1) if a.lo is None or a.lo < 0 or a.hi is None or a.hi >= b.lo else (a.lo, a.hi)  # type: ignore[operator]
        return b.lo + 1, 0  # type: ignore[operator]
    if ufunc is np.floor_divide and _bounded(b) and (b.lo > 0 or b.hi < 0):  # type: ignore[operator]
        return _corners(a, b, lambda x, y: x // y)
    if ufunc in (np.right_shift, np.left_shift) and _bounded(b) and b.lo >= 0:  # type: ignore[operator]
        if ufunc is np.right_shift:
            return _corners(a, Facts(b.lo, min(b.hi, 64)), lambda x, y: x >> y)  # type: ignore[type-var]
        return _corners(a, b, lambda x, y: x << y) if b.hi <= 128 else (None, None)  # type: ignore[operator]
    if ufunc in (np.bitwise_and, np.bitwise_or, np.bitwise_xor):
        return _bitwise(ufunc, a, b)
    if ufunc is np.power:
        return _power(a, b)
    return None, None


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
