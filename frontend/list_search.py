"""``xs.index(v)``, ``xs.count(v)`` and ``xs.remove(v)`` of a Python list where an item or ``v`` is traced.

Python compares ``v`` with each item (``item is v or item == v``); where a comparison is traced,
the answer is known when the call runs: ``index`` is the first position whose comparison holds (a
Python int), a ``ValueError`` when the call runs where none does; ``count`` the number that hold;
``remove`` drops the first such item, each later item moving down one place (the items must then
be numbers of one type, each kept of it: kiln.frontend.list_index). Comparisons known while tracing
decide there, as in Python. Lists and values that are not numbers keep Python's own methods.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend import list_index, runtime_checks, trace_context
from kiln.frontend.tensor import Tensor, as_tensor, python_number


def _traced(x: Any) -> bool:
    return isinstance(x, Tensor)


def applies(seq: list[Any], value: Any) -> bool:
    """Whether Python's method would compare traced values: an item or ``value`` is a 0-d tensor."""
    return any(_traced(x) for x in (*seq, value))


def _matches(seq: list[Any], value: Any) -> list[Any]:
    """Per item, Python's ``item is value or item == value``: a bool, or a traced bool."""
    out: list[Any] = []
    for item in seq:
        if item is value:
            out.append(True)
            continue
        if (_traced(item) and as_tensor(item).ndim) or (_traced(value) and as_tensor(value).ndim):
            raise NotImplementedError(
                f"{trace_context.here()}: a list search compares an array with `==`, whose truth value is ambiguous "
                "(as in NumPy); search a list of numbers"
            )
        same = item == value
        out.append(same if _traced(same) else bool(same))
    return out


def _not_found(value: Any, what: str) -> str:
    shown = "the value" if _traced(value) else repr(value)
    return f"{shown} is not in list" if what == "index" else "list.remove(x): x not in list"


def _first(matches: list[Any], value: Any, what: str) -> Any:
    """The first position whose match holds: an int where tracing decides it, else a traced int
    (checked when the call runs); ValueError as Python's where none can hold."""
    staged: Any = None
    for i in reversed(range(len(matches))):
        m = matches[i]
        if m is True:
            staged = i
        elif m is not False:
            staged = as_tensor(np.where(m, i, len(matches) if staged is None else staged))
    if staged is None:
        raise ValueError(_not_found(value, what))
    if isinstance(staged, int):
        return staged
    runtime_checks.raises(as_tensor(np.less(staged, len(matches))), ValueError, _not_found(value, what))
    return python_number(staged.astype(np.int64))


def index(seq: list[Any], value: Any, start: int = 0, stop: int = 2**63 - 1) -> Any:
    """``seq.index(value, start, stop)`` (``start``/``stop`` Python ints, as slice bounds)."""
    lo, hi, _ = slice(start, stop).indices(len(seq))
    found = _first(_matches(seq[lo:hi], value), value, "index")
    return found + lo if lo else found


def count(seq: list[Any], value: Any) -> Any:
    """``seq.count(value)``: a Python int, traced where a comparison is."""
    total: Any = 0
    for m in _matches(seq, value):
        total = total + (as_tensor(m).astype(np.int64) if _traced(m) else int(m))
    return python_number(as_tensor(total)) if _traced(total) else total


def remove(seq: list[Any], value: Any) -> None:
    """``seq.remove(value)``: the first matching item dropped, the later ones moving down."""
    at = _first(_matches(seq, value), value, "remove")
    if isinstance(at, int):
        del seq[at]
        return
    kept = list_index.shifted_down(seq, at)
    if kept is None:
        raise NotImplementedError(
            f"{trace_context.here()}: `xs.remove(v)` whose match is known only at run time moves the later items down; "
            "kiln does so for a list of numbers of one type, or of Python ints and floats, each keeping its type"
        )
    seq[:] = kept
