"""Folding arithmetic on C index expressions (int for static values, str for runtime ones).

Static shapes must give constant index arithmetic (``a[i*8 + j]``) so gcc can
vectorize; these helpers fold constants and drop ``*1`` and ``+ 0``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

IndexExpr = int | str

_PRODUCT = re.compile(r"^[A-Za-z0-9_]+(\*[A-Za-z0-9_]+)*$")


def atom(e: IndexExpr) -> str:
    """Render an operand so it can sit inside a product."""
    if isinstance(e, int):
        return str(e) if e >= 0 else f"({e})"
    return e if _PRODUCT.match(e) else f"({e})"


def mul(a: IndexExpr, b: IndexExpr) -> IndexExpr:
    """a*b, folded."""
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 0 or b == 0:
        return 0
    if a == 1:
        return b
    if b == 1:
        return a
    if isinstance(a, int):
        a, b = b, a
    return f"{atom(a)}*{atom(b)}"


def add(a: IndexExpr, b: IndexExpr) -> IndexExpr:
    """a + b, folded."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    if isinstance(b, int) and b < 0:
        return f"{a} - {-b}"
    return f"{a} + {b}"


def product(items: Sequence[IndexExpr]) -> IndexExpr:
    """Product of all items (1 when empty)."""
    result: IndexExpr = 1
    for item in items:
        result = mul(result, item)
    return result


def linear(indices: Sequence[IndexExpr], strides: Sequence[IndexExpr]) -> IndexExpr:
    """sum(indices[k] * strides[k]): the element offset of a multi-index."""
    result: IndexExpr = 0
    for index, stride in zip(indices, strides, strict=True):
        result = add(result, mul(index, stride))
    return result

