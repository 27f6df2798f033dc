"""Call forms: the structure of a call with keywords, lists or tuples of arrays and Python constants,
as a native entry checks it itself (kiln.backends.targets.Backend.call_form).

A form is what the flat cache key of such a call says (kiln.frontend.function._structured_key):
so many positional arguments, the keywords in their order, and per argument an exact array, a NumPy
scalar, an exact list or tuple of so many exact arrays, or a Python constant keyed by its type and
value (kiln.frontend.signature.constant_key). A call of another form gets NotImplemented from the
form's entry and takes the Python path, which may retrace; so a form never changes which trace a
call runs, and a list argument stays the caller's list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.backends.targets import PART_ARRAY, PART_CONSTANT, PART_LIST, PART_SCALAR, PART_TUPLE
from kiln.frontend.signature import constant_key

#: Python values that a form holds as constants (the trace cache keys them by type and value)
_CONSTANTS = frozenset({bool, int, float, complex, str, type(None)})


@dataclass(frozen=True)
class CallForm:
    """One form of call: ``n_args`` positional arguments, then the keywords ``kwnames``; ``parts``,
    one ``(PART_*, length or constant)`` per argument."""

    n_args: int
    kwnames: tuple[str, ...]
    parts: tuple[tuple[int, Any], ...]


def _part(x: Any) -> tuple[int, Any] | None:
    kind = type(x)
    if kind is np.ndarray:
        return PART_ARRAY, None
    if kind is list or kind is tuple:
        if any(type(v) is not np.ndarray for v in x):
            return None
        return (PART_LIST if kind is list else PART_TUPLE), len(x)
    if kind in _CONSTANTS:
        # a complex zero or NaN is keyed by its repr: not checked natively
        return None if kind is complex and constant_key(x) is not x else (PART_CONSTANT, x)
    if isinstance(x, np.generic):
        return PART_SCALAR, None
    return None


def form_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> CallForm | None:
    """The form of a call, or None for one a form cannot check (nesting, dicts, lists holding
    Python numbers, other objects): those keep the Python path."""
    parts = []
    for x in (*args, *kwargs.values()):
        part = _part(x)
        if part is None:
            return None
        parts.append(part)
    return CallForm(len(args), tuple(kwargs), tuple(parts))
