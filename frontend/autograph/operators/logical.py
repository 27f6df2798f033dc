"""``and_``, ``or_``, ``not_``, ``compare``: Python's short-circuit and operand-valued results, staged for tensors."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from kiln.frontend.autograph import staging


def and_(first: Callable[[], Any], *rest: Callable[[], Any]) -> Any:
    value = first()
    if not rest:
        return value
    if staging.is_tensor(value):
        return staging.staged_and(value, lambda: and_(*rest))
    return and_(*rest) if value else value


def or_(first: Callable[[], Any], *rest: Callable[[], Any]) -> Any:
    value = first()
    if not rest:
        return value
    if staging.is_tensor(value):
        return staging.staged_or(value, lambda: or_(*rest))
    return value if value else or_(*rest)


def not_(value: Any) -> Any:
    if staging.is_tensor(value):
        return staging.staged_not(value)
    return not value


#: the comparison operators, by the name of their ``ast.cmpop`` class
_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "Eq": operator.eq,
    "NotEq": operator.ne,
    "Lt": operator.lt,
    "LtE": operator.le,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Is": operator.is_,
    "IsNot": operator.is_not,
    "In": lambda a, b: a in b,
    "NotIn": lambda a, b: a not in b,
}


def compare(left: Any, op: str, right: Callable[[], Any], *rest: Any) -> Any:
    """``left op right() op2 rest[1]() ...``, a chained comparison: Python's ``left op m and m op2 ...``
    with each operand evaluated once, and only while the comparisons before it held (staged for tensors)."""
    value = right()
    result = _COMPARISONS[op](left, value)
    if not rest:
        return result
    return and_(lambda: result, lambda: compare(value, *rest))
