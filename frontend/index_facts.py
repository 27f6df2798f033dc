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
    """``lo <= value <= hi`` (None: unbounded), and ``base + offset <= value <= base + offset +
    spread`` when ``base`` is set (``spread`` 0: a constant away from it)."""

    lo: int | None = None
    hi: int | None = None
    base: int | None = None  # id() of the tensor this one is a constant (or a bounded amount) away from
    offset: int = 0
    spread: int = 0


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
                     facts.base, facts.offset, facts.spread)  # (its dtype's range where nothing narrower is known)
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
    base, offset, spread = None, 0, 0
    if ufunc in (np.add, np.subtract) and len(operands) == 2:
        sign = 1 if ufunc is np.add else -1
        a, b = of(operands[0]), of(operands[1])
        constant = b.lo == b.hi if a.base is not None else a.lo == a.hi
        if lo is None and not constant:  # (a bounded amount away, where the result is exact)
            pass
        elif a.base is not None and b.lo is not None and b.hi is not None:
            step = (b.lo, b.hi) if sign == 1 else (-b.hi, -b.lo)
            base, offset, spread = a.base, a.offset + step[0], a.spread + step[1] - step[0]
        elif b.base is not None and a.lo is not None and a.hi is not None and sign == 1:
            base, offset, spread = b.base, b.offset + a.lo, b.spread + a.hi - a.lo
    if lo is not None or base is not None:
        result.facts = Facts(lo, hi, base, offset, spread)


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
    if a.base is not None and a.base == b.base and a.spread == b.spread == 0:
        return a.offset - b.offset
    if a.lo is not None and a.lo == a.hi and b.lo is not None and b.lo == b.hi:
        return a.lo - b.lo
    return None


def within(x: Any, lo: int, hi: int) -> bool:
    """Whether ``lo <= x <= hi`` is known."""
    f = of(x)
    return f.lo is not None and f.hi is not None and f.lo >= lo and f.hi <= hi


def merged(result: Tensor, paths: list[Any]) -> None:
    """Facts of the 0-d integer ``result`` a staged ``if`` merged from what its ``paths`` left:
    the hull of their ranges, and where every path is its own base plus an amount, that base plus
    the hull of the amounts (``if x[i] > 0: count += 1``: ``count`` plus 0 or 1)."""
    if result.ndim != 0 or result.dtype.kind not in "iu" or not paths:
        return
    facts = [of(v) for v in paths]
    if any(f.lo is None or f.hi is None for f in facts):
        return
    lo, hi = min(f.lo for f in facts), max(f.hi for f in facts)  # type: ignore[type-var]
    base, offset, spread = facts[0].base, 0, 0
    if base is not None and all(f.base == base for f in facts):
        offset = min(f.offset for f in facts)
        spread = max(f.offset + f.spread for f in facts) - offset
    else:
        base = None
    result.facts = Facts(lo, hi, base, offset, spread)


def carried(value: Tensor, bound: tuple[int, int] | None) -> None:
    """A staged loop's carried 0-d integer as an iteration starts: its own base (what the
    iteration adds to it shows in what it leaves: :func:`step`), in ``bound`` where the loop
    proved one (:func:`induction`)."""
    lo, hi = bound if bound is not None else (None, None)
    value.facts = Facts(lo, hi, id(value), 0, 0)


def step(out: Any, entered: Any) -> tuple[int, int] | None:
    """What one iteration adds to the carried ``entered`` when it leaves ``out`` (None: not a
    bounded amount)."""
    if out is entered:
        return 0, 0
    f = of(out)
    if isinstance(entered, Tensor) and f.base == id(entered):
        return f.offset, f.offset + f.spread
    return None


def induction(initial: Any, steps: tuple[int, int], trips: int, dtype: np.dtype[Any]) -> tuple[int, int] | None:
    """The range of a value that starts as ``initial`` and changes by an amount in ``steps`` on
    each of at most ``trips`` iterations (None where its dtype cannot hold it all)."""
    f = of(initial)
    if f.lo is None or f.hi is None:
        return None
    lo, hi = f.lo + trips * min(steps[0], 0), f.hi + trips * max(steps[1], 0)
    info = np.iinfo(dtype)
    return (lo, hi) if info.min <= lo and hi <= info.max else None


def kept_within(initial: Any, out: Any, dtype: np.dtype[Any]) -> tuple[int, int] | None:
    """The range of a value that starts as ``initial`` and that each iteration sets to ``out``,
    where ``out``'s own facts bound it (``h = (h * 31 + x) % m``, ``crc = (...) & 0xFFFF``): the
    hull of both (None where that says nothing its dtype does not)."""
    f, o = of(initial), out.facts if isinstance(out, Tensor) and isinstance(out.facts, Facts) else Facts()
    if None in (f.lo, f.hi, o.lo, o.hi):
        return None
    info = np.iinfo(dtype)
    lo, hi = min(f.lo, o.lo), max(f.hi, o.hi)  # type: ignore[type-var]
    return (lo, hi) if info.min <= lo and hi <= info.max and (lo, hi) != (info.min, info.max) else None


def after_loop(result: Tensor, initial: Any, steps: tuple[int, int], trips: int, bound: tuple[int, int] | None) -> None:
    """Facts of a loop's result carried as in :func:`induction`: in ``bound`` where one is known,
    and ``initial``'s base plus at most ``trips`` steps where it has one (a counter of an enclosing
    loop, whose own range that loop learns from this)."""
    bound = bound if bound is not None else (None, None)  # type: ignore[assignment]
    f = of(initial)
    base, offset, spread = None, 0, 0
    if f.base is not None:
        down, up = trips * min(steps[0], 0), trips * max(steps[1], 0)
        base, offset, spread = f.base, f.offset + down, f.spread + up - down
    result.facts = Facts(bound[0], bound[1], base, offset, spread)
