"""``and_``, ``or_``, ``not_``: Python's short-circuit and operand-valued results, staged for tensors."""

from __future__ import annotations

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
