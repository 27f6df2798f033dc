"""NumPy's set functions: ``unique`` (and NumPy 2's ``unique_all``, ``unique_counts``,
``unique_inverse``), ``union1d``, ``intersect1d``, ``setdiff1d`` and ``setxor1d``.

Each is NumPy's own steps on traced tensors: sort the flattened input, mark the first of each run
of equal neighbours, select with that mask. Every array that is returned beside the values (first
indices, counts) is computed at the input's length and selected with the same mask, so only
the final selections have a length the data decides, and those have a bound (the input's size):
they can be returned (graph-bound-results) or used inside the function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend import trace_context
from kiln.frontend.tensor import Tensor, as_tensor


def _refuse(why: str) -> None:
    raise NotImplementedError(f"{trace_context.here()}: {why} is not supported inside kiln.function")


def _flat(a: Any, name: str) -> Tensor:
    """``a`` flattened; a complex one refused naming ``name`` (kiln sorts no complex numbers)."""
    t = np.ravel(as_tensor(a))
    if t.dtype.kind == "c":
        _refuse(f"{name} of {t.dtype} arrays (it sorts them)")
    return t


def _firsts(s: Tensor, equal_nan: bool) -> Tensor:
    """For the sorted 1-D ``s``: True where an element differs from the one before it (the first of
    each run of equals). NaNs sort last; with ``equal_nan`` they are one run, as NumPy 2's."""
    differs = s[1:] != s[:-1]
    if equal_nan and s.dtype.kind == "f":
        differs = differs & ~(np.isnan(s[1:]) & np.isnan(s[:-1]))
    return np.concatenate([np.ones_like(s[:1], dtype=np.bool_), differs])


def _sorted(flat: Tensor, with_order: bool) -> tuple[Tensor, Tensor | None]:
    """``flat`` sorted, and (``with_order``) the stable order that sorts it, as NumPy's mergesort:
    the first of equal elements keeps the smallest index."""
    if not with_order:
        return np.sort(flat), None
    perm = np.argsort(flat, kind="stable")
    return flat[perm], perm


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,  # noqa: A002 (NumPy's name)
) -> Any:
    """``np.unique`` of the flattened array: the sorted distinct values, and as asked the index of
    each one's first occurrence, the index into the values of every input element (the input's
    shape, as NumPy 2's) and each value's count. ``axis`` is refused (its rows compare as wholes)."""
    if axis is not None:
        _refuse("np.unique(..., axis=) (rows compared as wholes; np.unique of the flattened array, axis=None, is)")
    if not sorted:
        _refuse("np.unique(..., sorted=False) (NumPy's order is its hash table's)")
    t = as_tensor(ar)
    flat = _flat(t, "np.unique")
    s, perm = _sorted(flat, return_index or return_inverse)
    first = _firsts(s, equal_nan)
    results: list[Tensor] = [s[first]]
    if return_index:
        results.append(perm[first].astype(np.intp))
    if return_inverse:
        inverse = np.copy(perm)  # (every element is written: a buffer of the input's size, a dynamic one too)
        inverse[perm] = np.cumsum(first, dtype=np.intp) - 1
        results.append(inverse if t.ndim == 1 else _reshaped(inverse, t))
    if return_counts:
        results.append(_run_lengths(s, equal_nan)[first])
    return results[0] if len(results) == 1 else tuple(results)


def _run_lengths(s: Tensor, equal_nan: bool) -> Tensor:
    """For the sorted 1-D ``s``: the length of each element's run of equals, by two binary searches
    (NaNs, sorted last, are one run; each its own without ``equal_nan``). At ``s``'s length, which a
    size known only at run time keeps (a count per run from the mask would lose it)."""
    lengths = (np.searchsorted(s, s, side="right") - np.searchsorted(s, s)).astype(np.intp)
    if not equal_nan and s.dtype.kind == "f":
        lengths = np.where(np.isnan(s), 1, lengths)
    return lengths


def _reshaped(flat: Tensor, like: Tensor) -> Tensor:
    """``flat`` in the shape of ``like``, whose one size known only at run time is the rest."""
    dims = [-1 if d is None else d for d in like.shape]
    if dims.count(-1) > 1:
        _refuse("np.unique(..., return_inverse=True) of an array with several sizes known only at run time")
    return np.reshape(flat, dims)


def unique_all(x: Any) -> Any:
    """NumPy 2's ``unique_all``: values, first indices, inverse and counts, NaNs each their own."""
    return np.lib._arraysetops_impl.UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


def unique_counts(x: Any) -> Any:
    """NumPy 2's ``unique_counts``: values and counts, NaNs each their own."""
    return np.lib._arraysetops_impl.UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x: Any) -> Any:
    """NumPy 2's ``unique_inverse``: values and the inverse, NaNs each their own."""
    return np.lib._arraysetops_impl.UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def union1d(ar1: Any, ar2: Any) -> Tensor:
    """``np.union1d``: the distinct values of both arrays, sorted."""
    return unique(np.concatenate([_flat(ar1, "np.union1d"), _flat(ar2, "np.union1d")]))


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False) -> Any:
    """``np.intersect1d``: the distinct values of ``ar1`` that ``ar2`` holds (NaN never does), and
    with ``return_indices`` the first index of each in both. Marked in ``ar1`` sorted before the one
    selection; with ``assume_unique`` and repeated elements NumPy's result differs (its contract:
    the inputs are unique)."""
    a, b = _flat(ar1, "np.intersect1d"), _flat(ar2, "np.intersect1d")
    dtype = np.result_type(a.dtype, b.dtype)
    s, perm = _sorted(a, return_indices)
    keep = _firsts(s, False) & np.isin(s, b)
    values = s[keep].astype(dtype)
    if not return_indices:
        return values
    first = perm[keep].astype(np.intp)
    if b.shape[0] == 0:  # (nothing is kept; no position in ``b`` to read)
        return values, first, first
    s2, perm2 = _sorted(b, True)
    at = np.minimum(np.searchsorted(s2, s), b.shape[0] - 1)  # (clamped where ``b`` lacks the value: not kept)
    return values, first, perm2[at][keep].astype(np.intp)


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Tensor:
    """``np.setdiff1d``: the distinct values of ``ar1`` not in ``ar2``, sorted; with
    ``assume_unique``, ``ar1``'s elements not in ``ar2`` in ``ar1``'s order, as NumPy's."""
    a, b = _flat(ar1, "np.setdiff1d"), _flat(ar2, "np.setdiff1d")
    if assume_unique:
        return a[~np.isin(a, b)]
    s = np.sort(a)
    return s[_firsts(s, True) & ~np.isin(s, b)]


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Tensor:
    """``np.setxor1d``: the sorted values in exactly one of the arrays. NumPy's steps (the elements
    of the sorted concatenation of both arrays' unique values equal to neither neighbour) without
    forming the unique values: a distinct value is kept when exactly one array holds it, and a NaN
    (NaN equals no neighbour) once for each array that holds one."""
    a, b = _flat(ar1, "np.setxor1d"), _flat(ar2, "np.setxor1d")
    aux = np.sort(np.concatenate([a, b]))
    if assume_unique:
        lone = np.concatenate([np.ones_like(aux[:1], dtype=np.bool_), aux[1:] != aux[:-1]])
        after = np.concatenate([aux[1:] != aux[:-1], np.ones_like(aux[:1], dtype=np.bool_)])
        return aux[lone & after]
    keep = _firsts(aux, True) & (np.isin(aux, a) != np.isin(aux, b))
    if aux.dtype.kind == "f":
        nan = np.isnan(aux)
        nans = sum(np.any(np.isnan(t)).astype(np.intp) for t in (a, b) if t.dtype.kind == "f")
        rank = np.cumsum(nan, dtype=np.intp) - 1
        keep = np.where(nan, rank < nans, keep)
    return aux[keep]


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.unique: unique,
    np.unique_all: unique_all,
    np.unique_counts: unique_counts,
    np.unique_inverse: unique_inverse,
    np.union1d: union1d,
    np.intersect1d: intersect1d,
    np.setdiff1d: setdiff1d,
    np.setxor1d: setxor1d,
}
