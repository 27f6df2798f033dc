"""``and_``, ``or_``, ``not_``, ``compare``: Python's short-circuit and operand-valued results, staged for tensors."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from kiln.frontend.autograph import staging
from kiln.frontend.list_arrays import held


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
    "In": lambda a, b: contains(b, a),
    "NotIn": lambda a, b: not_(contains(b, a)),
}


def contains(container: Any, item: Any) -> Any:
    """``item in container``: of a list or tuple of numbers where the item or an element is traced,
    Python's ``any(v is item or v == item for v in container)``, a traced Python bool (``3 in xs``
    of a list argument, ``k in (1, 2)`` of ``k = int(x[0])``); of a traced array, NumPy's
    ``(container == item).any()`` as a Python bool; Python's ``in`` elsewhere (a list held as one
    array has its own)."""
    if staging.is_tensor(container):  # NumPy's ndarray.__contains__, made a Python bool by `in`
        from kiln.frontend.autograph.operators.py_builtins import bool_

        return bool_((container == item).any())
    if not isinstance(container, (list, tuple)) or held(container) \
            or not (staging.is_tensor(item) or any(map(staging.is_tensor, container))):
        return item in container
    found: Any = False
    for value in container:
        if value is item:
            return True
        same = value == item
        if staging.is_tensor(same):
            if getattr(same, "ndim", 0) != 0:
                return item in container  # (an array's truth value: Python's ValueError)
            found = same if found is False else found | same
        elif same:
            return True
    if found is False:
        return False
    from kiln.frontend.autograph.operators.py_builtins import bool_

    return bool_(found)


def compare(left: Any, op: str, right: Callable[[], Any], *rest: Any) -> Any:
    """``left op right() op2 rest[1]() ...``, a chained comparison: Python's ``left op m and m op2 ...``
    with each operand evaluated once, and only while the comparisons before it held (staged for tensors)."""
    value = right()
    result = _COMPARISONS[op](left, value)
    if not rest:
        return result
    return and_(lambda: result, lambda: compare(value, *rest))
