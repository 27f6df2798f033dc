"""Integer-array indexing (gather and scatter), ``ufunc.at``, constant boolean masks and the
uses of a traced ``x[mask]`` as an array, each compared with the same function run eagerly
on NumPy: the results and every argument after the call (writes reach the caller)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree

RNG = np.random.default_rng(11)


def check(fn: Callable[..., Any], *args: Any) -> None:
    eager = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compiled = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*eager)
    got = kiln.function(fn)(*compiled)
    got_leaves, got_tree = pytree.flatten(got) if got is not None else ([], None)
    want_leaves, want_tree = pytree.flatten(want) if want is not None else ([], None)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        w = np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    for i, (g, w) in enumerate(zip(compiled, eager)):
        if isinstance(w, np.ndarray):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=f"argument {i} after the call")


def rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, size=shape)


def ints(high: int, *shape: int) -> np.ndarray:
    return RNG.integers(-high, high, size=shape)


# ---------------------------------------------------------------------- reads


def take_rows(x, i):
    return x[i]


def take_2d_pairs(a, i, j):
    return a[i, j] * 2


def constant_indices(x):
    return x[np.array([4, 0, 4])] + x[[1, 2, 3]]


def slice_then_array(a, i):
    return a[1:, i]


def array_then_slice(a, i):
    return a[i, ::-1]


def separated_arrays(a, i, j):
    return a[i, :, j]  # NumPy puts the indexed axes first


def int_and_array_separated(a, j):
    return a[0, :, j]  # a plain integer counts as an indexed axis: first again


def ellipsis_and_array(a, j):
    return a[..., j]


def broadcast_indices(a):
    rows = np.array([[0], [2]])
    cols = np.array([1, 0, 1])
    return a[rows, cols]


def gather_in_staged_loop(x, idx):
    total = np.zeros(x.shape[1])
    for k in range(idx.shape[0]):
        total += x[idx[k]]
    return total


def sparse_rows(row_ptr, cols, vals, x):
    y = np.empty(row_ptr.size - 1)
    for i in range(row_ptr.size - 1):
        y[i] = vals[row_ptr[i]:row_ptr[i + 1]] @ x[cols[row_ptr[i]:row_ptr[i + 1]]]
    return y


def permute_by_argsort(x):
    return x[np.argsort(x)]


READS = [
    (take_rows, lambda: (rand(6, 3), ints(6, 5))),
    (take_rows, lambda: (rand(6), np.array([5, -6, 0, 0], dtype=np.int32))),
    (take_2d_pairs, lambda: (rand(4, 5), ints(4, 7), ints(5, 7))),
    (constant_indices, lambda: (rand(5),)),
    (slice_then_array, lambda: (rand(4, 6), ints(6, 2, 3))),
    (array_then_slice, lambda: (rand(4, 6), ints(4, 3))),
    (separated_arrays, lambda: (rand(3, 4, 5), ints(3, 2), ints(5, 2))),
    (int_and_array_separated, lambda: (rand(3, 4, 5), ints(5, 3))),
    (ellipsis_and_array, lambda: (rand(2, 3, 4), ints(4, 5))),
    (broadcast_indices, lambda: (rand(3, 2),)),
    (gather_in_staged_loop, lambda: (rand(4, 3), RNG.integers(0, 4, size=9))),
    (sparse_rows, lambda: (np.array([0, 2, 2, 5, 6]), np.array([0, 3, 1, 2, 3, 0]), rand(6), rand(4))),
    (permute_by_argsort, lambda: (rand(7),)),
]


@pytest.mark.parametrize("fn,args", READS, ids=[f.__name__ for f, _ in READS])
def test_integer_array_reads(fn: Callable[..., Any], args: Callable[[], tuple[Any, ...]]) -> None:
    check(fn, *args())


# ---------------------------------------------------------------------- writes


def set_rows(x, i, v):
    x[i] = v
    return x.sum()


def set_repeated_index_last_wins(x):
    x[np.array([1, 1, 1, 3])] = np.array([1.0, 2.0, 3.0, 4.0])


def add_in_place_repeated_once(x, i):
    x[i] += 1.0  # NumPy: a repeated index is incremented once


def set_columns_scalar(a, j):
    a[:, j] = -1.0


def set_through_view(a, i):
    v = a[1:]
    v[i, 0] = 7.0
    return a


def swap_pairs(a, i, j):
    a[i, j] = a[j, i]


def set_with_int_values(x, i):
    x[i] = 3  # cast into the array's dtype


def scatter_in_staged_loop(x, idx, n):
    for _ in range(n):
        x[idx] *= 2.0
    return x


def set_separated(a, i, j, v):
    a[i, :, j] = v


WRITES = [
    (set_rows, lambda: (rand(5, 3), ints(5, 4), rand(3))),
    (set_repeated_index_last_wins, lambda: (np.zeros(5),)),
    (add_in_place_repeated_once, lambda: (np.zeros(6), np.array([2, 2, 5, -1]))),
    (set_columns_scalar, lambda: (rand(3, 4), np.array([3, 0]))),
    (set_through_view, lambda: (rand(4, 3), np.array([2, 0]))),
    (swap_pairs, lambda: (rand(4, 4), np.array([0, 1, 2]), np.array([3, 2, 1]))),
    (set_with_int_values, lambda: (np.zeros(4, dtype=np.float32), np.array([0, 3]))),
    (scatter_in_staged_loop, lambda: (rand(6), np.array([1, 4]), 3)),
    (set_separated, lambda: (rand(3, 2, 4), np.array([0, 2]), np.array([3, 1]), rand(2, 2))),
]


@pytest.mark.parametrize("fn,args", WRITES, ids=[f.__name__ for f, _ in WRITES])
def test_integer_array_writes(fn: Callable[..., Any], args: Callable[[], tuple[Any, ...]]) -> None:
    check(fn, *args())


# ---------------------------------------------------------------------- ufunc.at


def add_at(x, i, v):
    np.add.at(x, i, v)


def subtract_at_scalar(x, i):
    np.subtract.at(x, i, 1.5)


def maximum_at(x, i, v):
    np.maximum.at(x, i, v)
    return x.sum()


def multiply_at_rows(a, i):
    np.multiply.at(a, (i, slice(None)), 2.0)


def add_at_int_counts(counts, v):
    np.add.at(counts, v, 1)


def add_at_float32_weak_scalar(x, i):
    np.add.at(x, i, 0.1)  # computed in float32, as NumPy's weak Python scalar


def add_at_basic_key(x):
    np.add.at(x, slice(1, 3), 5.0)


AT = [
    (add_at, lambda: (np.zeros(5), np.array([0, 4, 0, 0, 2]), rand(5))),
    (subtract_at_scalar, lambda: (rand(4), np.array([3, 3, -1]))),
    (maximum_at, lambda: (rand(4), np.array([1, 1, 2]), rand(3))),
    (multiply_at_rows, lambda: (rand(3, 2), np.array([0, 0, 2]))),
    (add_at_int_counts, lambda: (np.zeros(4, dtype=np.int32), np.array([0, 3, 3, 3, 1]))),
    (add_at_float32_weak_scalar, lambda: (np.zeros(3, dtype=np.float32), np.array([0, 0, 0, 2]))),
    (add_at_basic_key, lambda: (rand(4),)),
]


@pytest.mark.parametrize("fn,args", AT, ids=[f.__name__ for f, _ in AT])
def test_ufunc_at(fn: Callable[..., Any], args: Callable[[], tuple[Any, ...]]) -> None:
    check(fn, *args())


# ---------------------------------------------------------------------- masks


def constant_mask_read(x):
    keep = np.array([True, False, True, True, False])
    return x[keep] * 2


def constant_mask_write(a):
    a[np.array([False, True, True])] = 0.0


def sorted_selection(x):
    s = np.sort(x[x > 0])
    return s.sum() + s[0]


def selections_by_one_mask(x, y):
    m = x > 0
    return x[m] @ y[m]


def cumulative_selection(x):
    return np.cumsum(x[x > -1.0]).max()


def empty_selection(x):
    return np.sort(x[x > 100.0]).sum()


def mask_bitwise_updates(c, a, x):
    """kiln.fuzz 1132-1279: `x[mask] &= v` was a TypeError naming kiln's internal MaskedSelection."""
    c[np.logical_and(a > 0, c)] &= -3.5 != 1.75
    x[x > 0] |= 4
    x[x < 0] ^= 1
    return (~x[x > 2]).sum()


def mask_power_and_floor_division(x):
    x[x > 1.0] **= 2
    x[x < 0] //= 2


MASKS = [
    (mask_bitwise_updates, lambda: (np.array([True, False, True, True]), rand(4), np.array([3, -2, 0, 5], np.int32))),
    (mask_power_and_floor_division, lambda: (np.array([3.0, -2.5, 0.5, 1.5]),)),
    (constant_mask_read, lambda: (rand(5),)),
    (constant_mask_write, lambda: (rand(3, 2),)),
    (sorted_selection, lambda: (np.array([1.5, -2.0, 0.5, -1.0, 3.0]),)),
    (selections_by_one_mask, lambda: (rand(8), rand(8))),
    (cumulative_selection, lambda: (rand(9),)),
    (empty_selection, lambda: (rand(4),)),
]


@pytest.mark.parametrize("fn,args", MASKS, ids=[f.__name__ for f, _ in MASKS])
def test_mask_selections(fn: Callable[..., Any], args: Callable[[], tuple[Any, ...]]) -> None:
    check(fn, *args())


# ---------------------------------------------------------------------- errors


def out_of_range_constant(x):
    return x[np.array([5])]


def float_index_array(x):
    return x[np.array([0.0, 1.0])]


def mismatched_index_shapes(a):
    return a[np.array([0, 1]), np.array([0, 1, 2])]


@pytest.mark.parametrize("fn", [out_of_range_constant, float_index_array, mismatched_index_shapes])
def test_bad_index_arrays_raise_numpys_index_error_with_the_line(fn: Callable[..., Any]) -> None:
    with pytest.raises(IndexError, match=r"test_advanced_indexing.py:\d+"):
        kiln.function(fn)(rand(5, 3))


def test_traced_indices_out_of_range_raise_numpys_index_error() -> None:
    """A traced index array is checked at run time: NumPy's IndexError, with the line."""
    f = kiln.function(take_rows)
    np.testing.assert_array_equal(f(np.arange(4.0), np.array([3, -4, -1])), [3.0, 0.0, 3.0])
    for bad in ([9, 0, 1], [0, -5, 1]):
        with pytest.raises(IndexError, match=r"test_advanced_indexing.py:\d+.*out of bounds for axis 0 with size 4"):
            f(np.arange(4.0), np.array(bad))


def row_and_element(x, i, j):
    x[j, i] = -1.0
    return x[i], x.reshape(-1)[i * 5 + j]


def test_traced_integer_indices_out_of_range_raise_numpys_index_error() -> None:
    """``x[i]`` and ``x[j, i] = v`` with traced integers: NumPy's IndexError at run time (they were clamped)."""
    f = kiln.function(row_and_element)
    x = np.arange(20.0).reshape(4, 5)
    want = row_and_element(x.copy(), np.int64(3), np.int64(-4))
    got = f(x.copy(), np.int64(3), np.int64(-4))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    for i, j in ((4, 0), (0, 5), (-5, 0), (0, -6)):
        with pytest.raises(IndexError):
            row_and_element(x.copy(), np.int64(i), np.int64(j))
        with pytest.raises(IndexError, match=r"test_advanced_indexing.py:\d+.*out of bounds for axis"):
            f(x.copy(), np.int64(i), np.int64(j))


def sorts(a):
    return np.sort(a), np.argsort(a, kind="stable"), np.searchsorted(np.sort(a), a)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.float16, np.bool_])
def test_sorting_small_and_unsigned_dtypes(dtype: Any) -> None:
    check(sorts, (np.array([5, 3, 250, 7, 1, 0, 9, 130]) % (2 if dtype == np.bool_ else 256)).astype(dtype))


# --- NumPy arrays that are not kiln arrays, indexed by traced values (AutoGraph's getitem)

_TABLE = np.array([10.0, 20.0, 30.0, 40.0, 50.0])


def _table_lookup(i):
    return _TABLE[i] * 2.0


def _table_masked(x):
    return _TABLE[x > 0.5].sum() + _TABLE[1:3].sum()


def _table_slice(x):
    n = (x > 0.5).sum()
    return (_TABLE[:n] * 2.0).sum()


def _grid_by_selection(x):
    rows, cols = np.mgrid[0:2, 0:3]
    rows.shape = cols.shape = 6
    keep = x > 0.5
    out = np.zeros((2, 3))
    out[rows[keep], cols[keep]] = x[keep]
    return out


@pytest.mark.parametrize(
    ("fn", "arg"),
    [
        (_table_lookup, np.array([4, 0, 2, 2])),
        (_table_lookup, np.int64(3)),
        (_table_masked, np.array([0.9, 0.1, 0.7, 0.2, 0.6])),
        (_table_slice, np.array([0.9, 0.1, 0.7, 0.2, 0.6])),
        (_grid_by_selection, np.array([0.9, 0.1, 0.7, 0.2, 0.6, 0.8])),
    ],
)
def test_numpy_arrays_indexed_by_traced_values(fn, arg) -> None:
    """A global table or np.mgrid's result indexed by a traced index, mask, selection or bound is
    read as a constant of the trace (kiln.function converts the read to ag__.getitem)."""
    expected = fn(arg.copy() if isinstance(arg, np.ndarray) else arg)
    np.testing.assert_array_equal(kiln.function(fn)(arg), expected)


def test_getitem_conversion_leaves_literal_keys_as_written() -> None:
    code = kiln.autograph.to_code(_table_slice)
    assert "ag__.getitem(_TABLE, ag__.slice_(None, n, None))" in code
    assert "ag__.getitem" not in kiln.autograph.to_code(_literal_keys)


def _literal_keys(x):
    return x[1:3, ::2].sum() + x[..., -1].sum()
