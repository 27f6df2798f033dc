"""Differential tests of NumPy functions scientific code reaches for beyond the everyday API:
quantiles (median, percentile, quantile), calculus helpers (trapezoid, gradient, interp,
cross, correlate, polyval, vander, sinc, heaviside, digitize) and gathers and orderings
(take, take_along_axis, put, lexsort, partition, rot90, kron). Each compiled function is
compared with NumPy's: dtype, shape, scalar type and values (``check``), arguments included
where the function writes them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_differential import arr, check
from test_numpy_api import with_nans

import kiln

FLOATS = ["float32", "float64"]
NUMERIC = ["int32", "int64", *FLOATS]


# --------------------------------------------------------------------------- quantiles


@pytest.mark.parametrize("dtype", NUMERIC)
def test_median(dtype: str) -> None:
    def f(x: Any) -> Any:
        return (np.median(x), np.median(x, axis=0), np.median(x, axis=1, keepdims=True), np.median(x, axis=(0, 2)),
                np.median(x[:, :3]), np.median(x[:1, 0, :1]))

    check(f, arr((4, 5, 3), dtype))
    check(f, arr((3, 4, 2), dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_median_of_slices_with_nan_is_nan(dtype: str) -> None:
    check(lambda x: (np.median(x), np.median(x, axis=0), np.median(x, axis=1)), with_nans((4, 5), dtype, every=7))


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint", "median_unbiased", "inverted_cdf"])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_quantile_methods(method: str, dtype: str) -> None:
    def f(x: Any) -> Any:
        return (np.quantile(x, 0.3, method=method), np.quantile(x, [0.0, 0.25, 0.5, 1.0], axis=0, method=method),
                np.percentile(x, 70, axis=1, method=method), np.percentile(x, np.array([10.0, 90.0]), axis=1, keepdims=True, method=method))

    check(f, arr((5, 6), dtype))
    check(f, arr((4, 7), dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_quantile_keeps_float32_for_a_python_q(dtype: str) -> None:
    """A Python float ``q`` is weak (the result keeps float32); an array ``q`` is float64."""
    check(lambda x: (np.quantile(x, 0.4), np.quantile(x, np.float64(0.4)), np.percentile(x, [40.0]), np.nanmean(x)), arr((9,), dtype))
    check(lambda x: (np.quantile(x, 0.4, axis=0), np.percentile(x, 55.5, axis=1)), with_nans((5, 4), dtype, every=6))


def test_quantile_errors() -> None:
    x = arr((4,), "float64")
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        kiln.function(lambda x: np.quantile(x, 1.5))(x)
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        kiln.function(lambda x: np.percentile(x, -1))(x)
    with pytest.raises(ValueError, match="is not a valid method"):
        kiln.function(lambda x: np.quantile(x, 0.5, method="bogus"))(x)
    with pytest.raises(NotImplementedError, match=r"test_numpy_more_api.py:\d+: np.quantile with q computed inside"):
        kiln.function(lambda x: np.quantile(x, x[0] / 10))(x)


# --------------------------------------------------------------------------- calculus


@pytest.mark.parametrize("dtype", NUMERIC)
def test_trapezoid_and_gradient(dtype: str) -> None:
    trap = getattr(np, "trapezoid", None) or np.trapz

    def f(y: Any, x: Any) -> Any:
        return (trap(y), trap(y, dx=0.5, axis=0), trap(y, x=x[0]), trap(y.T, x=x.T, axis=0),
                np.gradient(y[0]), np.gradient(y, 0.5), np.gradient(y, axis=1, edge_order=2), np.gradient(y, 2.0, 0.25))

    y = arr((4, 6), dtype)
    x = np.cumsum(np.abs(arr((4, 6), "float64")) + 0.1, axis=1)
    check(f, y, x)


def test_gradient_errors() -> None:
    with pytest.raises(ValueError, match="at least \\(edge_order \\+ 1\\) elements"):
        kiln.function(lambda y: np.gradient(y, edge_order=2))(np.ones(2))
    with pytest.raises(NotImplementedError, match="np.gradient with coordinate arrays"):
        kiln.function(lambda y: np.gradient(y, np.arange(5.0)))(np.ones(5))


@pytest.mark.parametrize("dtype", ["int64", *FLOATS])
def test_interp(dtype: str) -> None:
    xp = np.array([-3.0, -1.0, 0.5, 0.5, 2.0, 4.0])
    fp = arr((6,), dtype)

    def f(x: Any, xp: Any, fp: Any) -> Any:
        return (np.interp(x, xp, fp), np.interp(x, xp, fp, left=-9.0, right=9.0), np.interp(x[0], xp, fp),
                np.interp(x, xp[:1], fp[:1]), np.interp(xp, xp, fp))

    x = np.concatenate([arr((20,), "float64"), [-3.0, 4.0, 0.5, -10.0, 10.0]])
    check(f, x, xp, fp)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_cross_correlate_polyval_vander(dtype: str) -> None:
    def f(a: Any, b: Any) -> Any:
        return (np.cross(a[:, :3], b[:, 1:4]), np.cross(a[:, :2], b[:, :2]), np.cross(a[:3, 0], b[:3, 1]),
                np.cross(a[:3, :4], b[:3, :4], axis=0), np.correlate(a[0], b[1]), np.correlate(a[0], b[1, :3], "full"),
                np.correlate(a[0, :2], b[1], "same"), np.polyval([2.0, -1.0, 0.5], a), np.polyval(b[0], 1.5),
                np.vander(a[0]), np.vander(a[1], 3, increasing=True))

    check(f, arr((4, 5), dtype), arr((4, 5), dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_sinc_heaviside(dtype: str) -> None:
    x = arr((3, 4), dtype)
    x[0, :2] = 0
    x[1, 1] = np.nan
    check(lambda x: (np.sinc(x), np.heaviside(x, 0.5), np.heaviside(x, x[2]), np.heaviside(x, np.float64(0.25))), x)
    check(lambda n: np.heaviside(n, 2), arr((6,), "int32"))


def test_digitize() -> None:
    def f(x: Any, bins: Any) -> Any:
        return (np.digitize(x, [-1.0, 0.0, 2.5]), np.digitize(x, [3.0, 0.0, -2.0], right=True), np.digitize(x, bins),
                np.digitize(x, bins[::-1], right=True), np.digitize(x[0, 0], bins))

    check(f, arr((3, 4), "float64"), np.array([-2.0, 0.0, 0.0, 1.5, 4.0]))
    with pytest.raises(ValueError, match="bins must be monotonically increasing or decreasing"):
        kiln.function(lambda x: np.digitize(x, [1.0, 0.0, 2.0]))(np.ones(3))
    with pytest.raises(ValueError, match="bins must be monotonically increasing or decreasing"):
        kiln.function(lambda x, b: np.digitize(x, b))(np.ones(3), np.array([1.0, 0.0, 2.0]))


# --------------------------------------------------------------------------- gathers and orderings


@pytest.mark.parametrize("dtype", ["bool", *NUMERIC])
def test_take_and_take_along_axis(dtype: str) -> None:
    def f(x: Any, i: Any) -> Any:
        order = np.argsort(x, axis=1, kind="stable")
        return (np.take(x, [0, 5, 2]), np.take(x, i, axis=1), np.take(x, 7), np.take(x, [-1, 9], axis=0, mode="clip"),
                np.take(x, i - 3, axis=1, mode="wrap"), np.take_along_axis(x, order, axis=1),
                np.take_along_axis(x, order[:, :1], axis=1), np.take_along_axis(x, np.argsort(x, axis=0, kind="stable"), axis=0),
                np.take_along_axis(x[0], i, axis=None), x.take([1, 2]), x.take(i, axis=1))

    check(f, arr((4, 5), dtype), np.array([4, 0, 1, 1]))


def test_take_out_of_bounds_raises() -> None:
    with pytest.raises(IndexError):
        kiln.function(lambda x, i: np.take(x, i))(np.ones(4), np.array([1, 4]))


def test_put_writes_the_argument() -> None:
    def f(a: Any, v: Any) -> None:
        np.put(a, [0, 3, 7], v[:2])
        np.put(a, [-1], 5.0)
        np.put(a, [40, 1], [7.0, 8.0], mode="clip")

    a1, a2 = arr((3, 4), "float64"), None
    a2 = a1.copy()
    v = arr((3,), "float64")
    assert kiln.function(f)(a1, v) is None
    f(a2, v)
    np.testing.assert_array_equal(a1, a2)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_lexsort_partition_rot90_kron(dtype: str) -> None:
    def f(a: Any, b: Any) -> Any:
        last = np.partition(a[0], 2)
        return (np.lexsort((a[0], b[0])), np.lexsort(np.stack([a[1], b[1], a[0]])), last[2], np.sort(np.partition(a, 1, axis=0), axis=0),
                a[1][np.argpartition(a[1], 3)[3]] == np.partition(a[1], 3)[3],
                np.rot90(a), np.rot90(a, 2), np.rot90(a, -1), np.rot90(a[None], 1, axes=(1, 2)), np.kron(a[:2, :3], b[:3, :2]),
                np.kron(a[0], b[1, :2]), np.kron(a[:2, :2], 3))

    check(f, arr((4, 5), dtype, low=0, high=3), arr((4, 5), dtype, low=0, high=3))


def test_partition_methods() -> None:
    def f(a: Any) -> Any:
        b = a.copy()
        b.partition(2)
        return b[2], b[:2].max() <= b[2], b[3:].min() >= b[2], a.argpartition(1)[1] == np.argsort(a, kind="stable")[1]

    check(f, arr((7,), "float64"))


def test_rot90_is_a_view_that_writes_through() -> None:
    def f(a: Any) -> Any:
        r = np.rot90(a)
        r[0, 1] = 100.0
        return r.sum()

    a1 = arr((3, 4), "float64")
    a2 = a1.copy()
    np.testing.assert_allclose(kiln.function(f)(a1), f(a2))
    np.testing.assert_array_equal(a1, a2)


# --------------------------------------------------------------------------- NaN statistics


@pytest.mark.parametrize("dtype", FLOATS)
def test_nanvar_nanstd_nanarg(dtype: str) -> None:
    def f(x: Any) -> Any:
        return (np.nanvar(x), np.nanvar(x, axis=0), np.nanstd(x, axis=1, ddof=1), np.nanstd(x, keepdims=True),
                np.nanargmax(x), np.nanargmin(x, axis=1), np.nanargmax(x, axis=0))

    check(f, with_nans((4, 5), dtype, every=3))
    check(f, arr((3, 4), dtype))
    one = np.full((3, 2), np.nan, dtype)
    one[0, 0] = 1.0
    check(lambda x: np.nanvar(x, axis=0, ddof=1), one)


def test_nanargmax_of_an_all_nan_slice_raises() -> None:
    x = np.ones((2, 3))
    x[1] = np.nan
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        kiln.function(lambda x: np.nanargmax(x, axis=1))(x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nanmedian_nanquantile(dtype: str) -> None:
    def f(x: Any) -> Any:
        return (np.nanmedian(x), np.nanmedian(x, axis=0), np.nanmedian(x, axis=1, keepdims=True), np.nanquantile(x, 0.3, axis=1),
                np.nanpercentile(x, [0.0, 25.0, 50.0, 100.0], axis=0), np.nanquantile(x, np.float64(0.75)))

    x = with_nans((5, 6), dtype, every=4)
    x[2] = np.nan  # an all-NaN row: NaN, as NumPy (with its warning)
    with pytest.warns(RuntimeWarning):
        check(f, x)
    check(f, arr((4, 7), dtype))
    check(lambda x: (np.nanmedian(x), np.nanpercentile(x, 40.0)), arr((6,), "int64"))


# --------------------------------------------------------------------------- building arrays from pieces


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_append_insert_delete_resize(dtype: str) -> None:
    def f(a: Any, b: Any) -> Any:
        return (np.append(a, b), np.append(a, b[:1], axis=0), np.delete(a, 1, axis=0), np.delete(a, [0, 2], axis=1),
                np.delete(a, slice(1, 7, 2)), np.insert(a, 2, 9), np.insert(a, 1, b[0], axis=0), np.insert(a, [0, 2, 2], 7.5, axis=1),
                np.insert(a[0], [1, 3], b[1, :2]), np.insert(a, 3, [[5], [6], [7]], axis=1), np.resize(a, (3, 7)), np.resize(a[0], 2))

    check(f, arr((3, 4), dtype), arr((3, 4), dtype))


def test_block_broadcast_arrays_ediff1d() -> None:
    def f(a: Any, b: Any) -> Any:
        x, y = np.broadcast_arrays(a, b[0])
        return (np.block([[a, b], [b, a]]), np.block([a[0], b[0], 1.0]), np.block([[a], [b[:1]]]), x + y, y.shape,
                np.ediff1d(a), np.ediff1d(a[0], to_begin=-1, to_end=[8, 9]))

    check(f, arr((3, 4), "float64"), arr((3, 4), "float64"))


def test_fill_diagonal_writes_the_argument() -> None:
    def f(a: Any, b: Any, c: Any) -> None:
        np.fill_diagonal(a, 0.0)
        np.fill_diagonal(b, [1.0, 2.0], wrap=True)
        np.fill_diagonal(c, c[0, 0, 1])

    args = [arr((4, 3), "float64"), arr((7, 3), "float64"), arr((3, 3, 3), "float64")]
    copies = [a.copy() for a in args]
    kiln.function(f)(*args)
    f(*copies)
    for got, want in zip(args, copies):
        np.testing.assert_array_equal(got, want)


def test_triangle_indices_and_unravel_index() -> None:
    def f(a: Any) -> Any:
        return (a[np.tril_indices_from(a, -1)], a[np.triu_indices_from(a, 1)], np.unravel_index(np.argmax(a), a.shape),
                np.unravel_index(np.argsort(a[0]), (2, 2)), np.unravel_index(7, (3, 4)), np.unravel_index(np.argmin(a), a.shape, order="F"))

    check(f, arr((4, 4), "float64"))
    with pytest.raises(ValueError, match="index out of bounds for array with size 12"):
        kiln.function(lambda i: np.unravel_index(i, (3, 4)))(np.array([3, 12]))


# --------------------------------------------------------------------------- comparisons and choices


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_isin_select_fix(dtype: str) -> None:
    def f(a: Any, b: Any) -> Any:
        return (np.isin(a, [0, 1, 3]), np.isin(a, b[0], invert=True), np.isin(a[0, 0], b),
                np.select([a < 0, a > 2], [a, b], default=-1), np.select([a > 0], [a * 2], 0), np.select([a[0] > 0, a[1] > 0], [1.5, b[0]]),
                np.fix(a * 0.7), np.result_type(a, 1.5) == np.result_type(a.dtype, 1.5))

    check(f, arr((3, 4), dtype), arr((3, 4), dtype))


def test_array_equal_is_a_python_bool() -> None:
    def f(a: Any, b: Any) -> Any:
        return (np.array_equal(a, a), np.array_equal(a, b), np.array_equal(a, a[:2]), np.array_equal(a, a, equal_nan=True),
                np.array_equiv(a[0], a), np.array_equiv(a, b[:1]), np.array_equiv(a, b[:2, :3]))

    a = arr((3, 4), "float64")
    a[1, 1] = np.nan
    check(f, a, a.copy())
    check(f, a, arr((3, 4), "float64"))


@pytest.mark.parametrize("shapes", [[(3, 4), (4, 5), (5, 2)], [(6, 2), (2, 7), (7, 3)], [(4,), (4, 6), (6, 3), (3, 5), (5,)],
                                    [(2, 9), (9, 8), (8, 3), (3, 6)]])
def test_multi_dot(shapes: list[tuple[int, ...]]) -> None:
    args = [arr(s, "float64") for s in shapes]
    check(lambda *xs: np.linalg.multi_dot(list(xs)), *args)
