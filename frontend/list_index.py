"""``xs[k]`` of a Python list or tuple at an index known only at run time (``xs[int(x[0])]``).

Python reads one element; a trace cannot pick it, so the elements are stacked into one array
and the element is read from it at ``k`` (negative counts from the end; out of range is an
``IndexError`` when the call runs, as Python raises). The element read has the elements' type:
a Python number when they are Python numbers of one type (a list argument's numbers, constants,
``float(x)``), a NumPy scalar when they are NumPy scalars of one dtype; Python ints and floats
together keep each one's type (:mod:`kiln.frontend.list_kinds`). Python and NumPy numbers together,
or arrays (which a list holds as objects that a write must reach), are refused naming the line: the
result's type, or its identity, would depend on the index.

A write at such an index (``hist[b] += 1``) makes every element the value where the index names
it and itself elsewhere, so the list after the call holds what Python leaves in it; an index out
of range is an ``IndexError`` when the call runs. The value must be of the elements' one type
(an int into a list of ints), or a Python number into Python numbers (list_kinds): a NumPy value
into Python numbers would make the element's type depend on the index, and is refused naming the line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend import creation, list_arrays, list_kinds, list_numbers, runtime_checks, trace_context
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor

_PYTHON_KINDS: dict[type, str] = {bool: "b", int: "i", float: "f", complex: "c"}
_INT64 = np.iinfo(np.int64)


def is_traced_index(key: Any) -> bool:
    """A 0-d traced integer: a key a list cannot take without its value."""
    return isinstance(key, Tensor) and key.ndim == 0 and key.dtype.kind in "iu"


def _element_type(item: Any) -> tuple[str, Any] | None:
    """``("python", kind)`` for a Python number (or a traced one), ``("numpy", dtype)`` for a NumPy
    scalar (or a traced one); None for anything else."""
    if type(item) in _PYTHON_KINDS:
        if type(item) is int and not _INT64.min <= item <= _INT64.max:
            return None
        return ("python", _PYTHON_KINDS[type(item)])
    if isinstance(item, np.generic):
        return ("numpy", item.dtype)
    if isinstance(item, Tensor) and item.ndim == 0 and item.immutable:
        if item.kind_flag is not None or item.path_promotions is not None:
            return None  # (its type is decided when the call runs: list_kinds keeps it)
        return ("python", item.dtype.kind) if item.weak else ("numpy", item.dtype)
    return None


def _items(values: Tensor, count: int, kind: str) -> list[Any]:
    """The first ``count`` elements of the 1-D ``values`` as a list's items of ``kind`` (Python
    numbers stay Python numbers, NumPy scalars NumPy scalars)."""
    elements = [as_scalar(values[i]) for i in range(count)]
    return [list_numbers.python_number(e) for e in elements] if kind == "python" else elements


def number_types(seq: Any) -> int:
    """How many types of numbers the list or tuple ``seq`` holds, some of them traced (0: it holds
    something else, or nothing traced): the items of a sort of several would take types by
    position that the data decide."""
    if not isinstance(seq, (list, tuple)) or not any(isinstance(item, Tensor) for item in seq):
        return 0
    kinds = {_element_type(item) for item in seq}
    return 0 if None in kinds else len(kinds)


def sorted_numbers(seq: Any, reverse: bool) -> list[Any] | None:
    """``sorted(seq)`` of a list or tuple of numbers of one type, some traced: their values sorted
    (``np.sort``), each element of that type, Python numbers staying Python numbers; of Python ints
    and floats (and bools) together, each keeps its type where the call puts it (list_kinds, in
    Python's stable order); None for other contents (Python and NumPy numbers, or NumPy numbers of
    several dtypes, whose types by position would depend on the data; no traced number)."""
    if not isinstance(seq, (list, tuple)) or not seq or not any(isinstance(item, Tensor) for item in seq):
        return None
    if list_kinds.applies(seq):  # Python ints and floats: ordered by value, each keeping its type
        values, flags = list_kinds.stacked(list(seq))
        return list_kinds.gathered(values, flags, _stable_order(values, len(seq), reverse), len(seq))
    kinds = {_element_type(item) for item in seq}
    if len(kinds) != 1 or None in kinds:
        return None
    (kind, which), = kinds
    if kind == "python" and which == "c":
        return None  # (Python refuses to order complex numbers: its TypeError, from its own sorted())
    values = np.sort(creation.array(list(seq)))
    if reverse:
        values = values[::-1]
    return _items(values, len(seq), kind)


def sorted_by_keys(seq: Any, keys: list[Any], reverse: bool) -> list[Any] | None:
    """``sorted(seq, key=f)`` given the keys ``f`` made, some traced: Python's stable order (with
    ``reverse``, equal keys keep their order too: the reversed stable sort of the reversed list),
    a NaN key last as NumPy sorts it; the items numbers of one type, each of it, or Python ints and
    floats, each keeping its type (list_kinds). None for other items."""
    if not seq or any(_element_type(k) is None and not list_kinds.is_number(k) for k in keys):
        return None
    n = len(seq)
    if list_kinds.applies(seq):
        values, flags = list_kinds.stacked(list(seq))
        return list_kinds.gathered(values, flags, _stable_order(creation.array(list(keys)), n, reverse), n)
    kinds = {_element_type(item) for item in seq}
    if len(kinds) != 1 or None in kinds:
        return None
    (kind, which), = kinds
    values = creation.array(list(seq))
    return _items(values[_stable_order(creation.array(list(keys)), n, reverse)], n, kind)


def _stable_order(ranks: Tensor, n: int, reverse: bool) -> Tensor:
    """The positions of the ``n`` items ranked ``ranks`` in Python's stable order (with ``reverse``,
    equal ranks keep their order too: the reversed stable sort of the reversed ranks)."""
    if reverse:
        return np.subtract(n - 1, np.argsort(ranks[::-1], kind="stable"))[::-1]
    return np.argsort(ranks, kind="stable")


def shifted_down(seq: list[Any], at: Tensor) -> list[Any] | None:
    """``seq`` without its item at the traced position ``at`` (``del seq[at]``: each later item one
    place down), for numbers of one type, each of it, or Python ints and floats, each keeping its
    type (list_kinds); None for other items."""
    n = len(seq)
    if list_kinds.applies(seq):
        values, flags = list_kinds.stacked(list(seq))
        below = creation.array(list(range(n - 1)))
        return list_kinds.gathered(values, flags, np.where(np.less(below, at), below, below + 1), n - 1)
    kinds = {_element_type(item) for item in seq}
    if len(kinds) != 1 or None in kinds:
        return None
    (kind, _), = kinds
    values = creation.array(list(seq))
    moved = np.where(np.less(creation.array(list(range(n - 1))), at), values[: n - 1], values[1:])
    return _items(moved, n - 1, kind)


def read(seq: list[Any] | tuple[Any, ...], key: Tensor) -> Any:
    """``seq[key]`` for the traced integer ``key``."""
    row = list_arrays.row_at(seq, key)  # (a list held as one array: kiln.frontend.list_arrays)
    if row is not None:
        return row
    if list_kinds.applies(seq):
        _check_in_range(key, len(seq), f"{type(seq).__name__} index out of range")
        return list_kinds.read(seq, np.where(np.less(key, 0), key + len(seq), key))
    kinds = {_element_type(item) for item in seq}
    if None in kinds or len(kinds) > 1:
        raise NotImplementedError(
            f"{trace_context.here()}: a {type(seq).__name__} read at an index known only at run time holds "
            + ("values of different types" if None not in kinds else "arrays or other objects")
            + ", so the value's type (or which object it is) would depend on the index; kiln reads such an "
            "index from a list of numbers of one type. Make the values one array (np.array(xs)[k])"
        )
    if not seq:
        raise IndexError(f"{type(seq).__name__} index out of range")
    (kind, _), = kinds
    element = as_scalar(creation.array(list(seq))[key])
    return list_numbers.python_number(element) if kind == "python" else element


def write(seq: list[Any], key: Tensor, value: Any) -> None:
    """``seq[key] = value`` for the traced integer ``key``: each element is ``value`` where ``key``
    names it, itself elsewhere (see the module doc)."""
    if list_arrays.held(seq):
        seq[key] = value
        return
    n = len(seq)
    if list_kinds.applies([*seq, value]):
        _check_in_range(key, n, "list assignment index out of range")
        list_kinds.write(seq, np.where(np.less(key, 0), key + n, key), value)
        return
    kinds = {_element_type(item) for item in seq}
    if len(kinds) != 1 or None in kinds or {_element_type(value)} != kinds or (
        isinstance(value, Tensor) and (value.kind_flag is not None or value.path_promotions is not None)
    ):
        raise NotImplementedError(
            f"{trace_context.here()}: `xs[k] = ...` writes a Python list at an index known only at run time, and the "
            "value is not of the one type of the list's elements (or they are of several types, or not numbers), so "
            "the type of each element after the write would depend on the index. Write a value of the elements' "
            "type (float(v) into a list of floats), or keep such values in an array (a = np.array(xs); a[k] = v)"
        )
    _check_in_range(key, n, "list assignment index out of range")
    at = np.where(np.less(key, 0), key + n, key)
    (kind, _), = kinds
    written = np.where(np.equal(creation.array(list(range(n))), at), value, creation.array(list(seq)))
    for i in range(n):
        element = as_scalar(written[i])
        seq[i] = list_numbers.python_number(element) if kind == "python" else element


def _check_in_range(key: Tensor, n: int, message: str) -> None:
    """An ``IndexError`` with Python's ``message`` when the call runs, where ``key`` is outside a list of ``n``."""
    runtime_checks.raises(as_tensor(np.logical_and(np.greater_equal(key, -n), np.less(key, n))), IndexError, message)
