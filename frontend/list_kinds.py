"""A list of Python ints and floats (and bools) read or written at an index known only at run time.

``xs[j - 1] > save`` over ``[1.3, 5.6, 32, 0, 0.0]`` reads an int or a float depending on ``j``,
and ``xs[j] = xs[j - 1]`` moves each element's type with its value. The elements are stacked as
float64 values beside an int8 array of their kinds (result_kinds' PYTHON_BOOL, PYTHON_INT,
PYTHON_FLOAT, or a per-call kind flag an element already carries): the element read is the value
with its kind as its ``kind_flag``, so it is the int or the float Python reads where the call runs
(operators on it follow Python's promotion per call, result_kinds.of_python_operator), and a
write makes each element the value and kind where the index names it, itself elsewhere. An int is
exact in a float64 below 2**53: a larger one raises ``ValueError`` naming the line when the call runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend import creation, list_numbers, result_kinds, runtime_checks
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor

_INT64 = np.iinfo(np.int64)
_KINDS = {bool: result_kinds.PYTHON_BOOL, int: result_kinds.PYTHON_INT, float: result_kinds.PYTHON_FLOAT}
_TRACED_KINDS = {"b": result_kinds.PYTHON_BOOL, "i": result_kinds.PYTHON_INT, "f": result_kinds.PYTHON_FLOAT}


def _kind(item: Any) -> Any:
    """The kind of ``item`` as :func:`applies` takes it (a static kind or a traced flag); None if it is none."""
    if type(item) in _KINDS:
        return None if type(item) is int and not _INT64.min <= item <= _INT64.max else _KINDS[type(item)]
    if isinstance(item, Tensor) and item.ndim == 0 and item.shape_source is None:
        if item.kind_flag is not None:
            return item.kind_flag if item.dtype == np.float64 else None
        if item.weak and item.immutable and item.dtype in (np.bool_, np.int64, np.float64):
            return _TRACED_KINDS[item.dtype.kind]
    return None


def is_number(item: Any) -> bool:
    """Whether ``item`` is a Python bool, int or float (traced or not, its kind maybe per call)."""
    return _kind(item) is not None


def applies(items: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``items`` are Python bools, ints and floats (traced or not, one's kind maybe per call)
    of more than one kind: what this module reads and writes (one kind is list_index's own)."""
    kinds = [_kind(item) for item in items]
    if not kinds or any(k is None for k in kinds):
        return False
    return any(isinstance(k, Tensor) for k in kinds) or len(set(kinds)) > 1


def stacked(items: list[Any]) -> tuple[Any, Any]:
    """The float64 values and int8 kinds of ``items``, with the run-time check that each int is exact."""
    kinds = [_kind(item) for item in items]
    values = creation.array([np.float64(x) if not isinstance(x, Tensor) else x for x in items], np.float64)
    flags = creation.array([np.int8(k) if not isinstance(k, Tensor) else k for k in kinds], np.int8)
    if any(isinstance(x, Tensor) and x.kind_flag is None and x.dtype == np.int64 for x in items):
        limit = 2.0 ** 53
        ints = np.less_equal(flags, np.int8(result_kinds.PYTHON_INT))
        exact = np.all(np.logical_or(np.logical_not(ints), np.less(np.absolute(values), limit)))
        runtime_checks.require(as_tensor(exact), "a Python int in a list of ints and floats read or written at an "
                               "index known only at run time is beyond 2**53, which the float64 kiln holds it in "
                               "cannot hold exactly")
    return values, flags


def _number(value: Any, flag: Any) -> Tensor:
    """The element ``value`` (0-d float64) of the per-call kind ``flag``: a Python number of that type."""
    out = list_numbers.python_number(as_scalar(value))
    out.kind_flag = as_tensor(flag)
    return out


def read(seq: list[Any] | tuple[Any, ...], key: Tensor) -> Tensor:
    """``seq[key]`` (``key`` in range, counted from the front) of a list :func:`applies` to."""
    values, flags = stacked(list(seq))
    return _number(values[key], flags[key])


def gathered(values: Any, flags: Any, indices: Tensor, count: int) -> list[Tensor]:
    """The items (:func:`stacked`: ``values`` and ``flags``) at the first ``count`` traced
    ``indices``, each keeping its kind: a sort's order, or the places a removal moves items to."""
    return [_number(values[indices[i]], flags[indices[i]]) for i in range(count)]


def write(seq: list[Any], at: Tensor, value: Any) -> None:
    """``seq[at] = value`` (``at`` in range, counted from the front) where ``seq`` with ``value`` is a
    list :func:`applies` to: each element is ``value`` where ``at`` names it, itself elsewhere."""
    values, flags = stacked([*seq, value])
    n = len(seq)
    here = np.equal(creation.array(list(range(n))), at)
    written = np.where(here, values[n], values[:n])
    kinds = np.where(here, flags[n], flags[:n])
    for i in range(n):
        seq[i] = _number(written[i], kinds[i])
