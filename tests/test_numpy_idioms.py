"""Differential tests of everyday NumPy idioms that kiln once refused: ``a.flat`` (read, written,
iterated), ``a.tolist()``, ``np.ndenumerate``/``np.ndindex``, reductions with ``where=`` and
``initial=``, ``np.piecewise``, ``np.apply_along_axis``, ``np.histogram2d``/``np.histogramdd``
and ``np.r_``/``np.c_``. Each compiled function is compared with NumPy's (``check``: dtype,
shape, scalar type and values), arguments included where it writes them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_differential import arr, check

import kiln

NUMERIC = ["int32", "int64", "float32", "float64"]


# --------------------------------------------------------------------------- a.flat, tolist, ndenumerate


@pytest.mark.parametrize("dtype", NUMERIC)
def test_flat_reads(dtype: str) -> None:
    def f(a: Any) -> Any:
        i = a.shape[0]
        return a.flat[5], a.flat[-1], a.flat[2:7], a.flat[[1, 3]], a.T.flat[5], a.flat[i], a.flat[np.argmax(a)], a.flat[np.argsort(a[0])]

    check(f, arr((3, 4), dtype, low=0))


def test_flat_writes_land_in_the_array_whatever_its_layout() -> None:
    def f(a: Any, b: Any) -> Any:
        a.flat[5] = 1.0
        a.flat[[0, 2, 4]] = np.array([7.0, 8.0])  # repeated to the positions' count, as NumPy's
        a.flat[-2:] = 2.5
        b.T.flat[1] = -3  # the transpose's second element: b[1, 0]
        b.flat[np.int64(2) + b[0, 0].astype(np.int64) % 3] = 9
        return a, b

    check(f, arr((3, 4), "float64"), arr((3, 4), "int32", low=0))


def test_iterating_flat_unrolls_the_elements() -> None:
    def f(a: Any) -> Any:
        s = 0.0
        for t in a.T.flat:
            s = s * 0.5 + t
        return s, len(a.flat)

    check(f, arr((3, 4), "float32"))


@pytest.mark.parametrize("dtype", [*NUMERIC, "bool"])
def test_tolist_is_nested_python_numbers(dtype: str) -> None:
    check(lambda a: (a.tolist(), a[0, 0].tolist(), a[1].tolist()), arr((3, 4), dtype))


def test_ndenumerate_and_ndindex_unroll_the_static_shape() -> None:
    def f(a: Any) -> Any:
        s, seen = 0.0, []
        for i, t in np.ndenumerate(a):
            s += t * i[0] - i[1]
            seen.append(i)
        for j in np.ndindex(a.shape):
            s += a[j]
        return s, seen

    check(f, arr((3, 4), "float64"))


def _nditer_sum(a: Any) -> Any:
    s = 0.0
    for v in np.nditer(a):
        s += v
    return s


def test_nditer_of_a_traced_array_is_refused_saying_what_to_write() -> None:
    """np.nditer's order follows the operand's memory layout and its items are writable 0-d views:
    refused naming the line (it raised NumPy's "cannot be written back to via WRITEBACKIFCOPY");
    over a NumPy array the function holds it is NumPy's own."""
    with pytest.raises(NotImplementedError, match=r"test_numpy_idioms.py:\d+: np.nditer of a traced array \(iterate over np.ndindex"):
        kiln.function(_nditer_sum)(arr((3, 4), "float64"))
    table = np.arange(4.0)
    check(lambda a: a * sum(float(v) for v in np.nditer(table)), arr((3,), "float64"))


def test_flat_index_out_of_bounds_raises_as_numpy() -> None:
    with pytest.raises(IndexError, match="index 12 is out of bounds for axis 0 with size 12"):
        kiln.function(lambda a: a.flat[12])(arr((3, 4), "float64"))


# --------------------------------------------------------------------------- where= and initial=


@pytest.mark.parametrize("dtype", [*NUMERIC, "bool"])
def test_reductions_with_where_and_initial(dtype: str) -> None:
    def f(a: Any) -> Any:
        m = a > 0 if a.dtype != np.bool_ else a
        return (np.sum(a, where=m), np.sum(a, axis=0, where=m, initial=2), np.prod(a, axis=1, where=[True, False, True, True]),
                np.max(a, where=m, initial=-1), np.min(a, axis=1, initial=3.5, keepdims=True), np.max(a, initial=7),
                np.mean(a, where=m), np.mean(a, axis=0, where=m), np.mean(a, axis=1, where=m, keepdims=True),
                np.sum(a, initial=2.5), np.amax(a, axis=0, where=m, initial=0), a.sum(where=m, axis=1), a.mean(where=m))

    check(f, arr((3, 4), dtype))


def test_max_with_where_needs_initial_as_numpy() -> None:
    with pytest.raises(ValueError, match="'maximum' does not have an identity"):
        kiln.function(lambda a: np.max(a, where=a > 0))(arr((3,), "float64"))


# --------------------------------------------------------------------------- piecewise, apply_along_axis


def _doubled_if_first_positive(v: Any) -> Any:
    if v[0] > 0:  # staged by AutoGraph: np.apply_along_axis converts the function it is given
        return v * 2
    return v - 1


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_apply_along_axis(dtype: str) -> None:
    def f(a: Any) -> Any:
        return (np.apply_along_axis(np.sum, 1, a), np.apply_along_axis(lambda v: v[::-1] * 2, 0, a),
                np.apply_along_axis(_doubled_if_first_positive, 1, a), np.apply_along_axis(lambda v: np.outer(v, v), 0, a[:, :2]),
                np.apply_along_axis(np.mean, -1, a), np.apply_along_axis(np.max, 0, a[0]))

    check(f, arr((3, 4), dtype))


def test_apply_along_axis_refuses_too_many_slices_naming_the_line() -> None:
    with pytest.raises(NotImplementedError, match=r"test_numpy_idioms.py:\d+: np.apply_along_axis over 4097 slices"):
        kiln.function(lambda a: np.apply_along_axis(np.sum, 0, a))(np.zeros((2, 4097)))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_piecewise(dtype: str) -> None:
    def f(a: Any) -> Any:
        return (np.piecewise(a, [a < 0, a >= 2], [lambda t: t * 2, lambda t: t + 1]),
                np.piecewise(a, [a < 0], [-1, lambda t: t ** 2]),  # the last function: "otherwise"
                np.piecewise(a, [a > 1], [2.5, 0]), np.piecewise(a, [a < 0, a > 3], [np.sin, 7, 1.5]),
                np.piecewise(a, [a > 0], [lambda t: t - t.mean(), lambda t: t.size]),  # of x[cond], as NumPy's
                np.piecewise(a, [a > 100], [lambda t: t * 2, -1]))  # an empty selection writes nothing

    check(f, arr((7,), dtype))
    check(f, arr((3, 4), dtype))
    check(lambda a: np.piecewise(a, a > 1, [lambda t: t * 3, 0.5]), arr((6,), dtype))  # one condition, not in a list


# --------------------------------------------------------------------------- histogram2d, histogramdd


@pytest.mark.parametrize("dtype", NUMERIC)
def test_histogram2d_and_histogramdd(dtype: str) -> None:
    def f(a: Any, w: Any) -> Any:
        return (np.histogram2d(a[0], a[1], bins=3, range=[[-5, 5], [-4, 4]]), np.histogram2d(a[0], a[1], bins=(2, 4)),
                np.histogram2d(a[0], a[1], bins=[np.array([-5.0, 0, 1, 5]), np.array([-3.0, 3])], weights=w),
                np.histogramdd(a.T, bins=(2, 3, 2), range=[(-5, 5), None, (0, 2)], density=True),
                np.histogramdd(a.T, bins=[np.array([-2, 0, 2]), 3, np.array([-5.0, 5.0])]),
                np.histogram2d(a[0], a[2], bins=np.array([-4.0, -1, 2, 4]), density=True))

    check(f, arr((3, 50), dtype), arr((50,), "float64"))


def test_histogramdd_edges_from_the_data_and_traced_edges() -> None:
    def f(a: Any, e: Any) -> Any:
        return np.histogramdd([a[0], a[1]], bins=[e, 4]), np.histogram2d(a[0], a[0] * 0.5, bins=[e, e])

    check(f, arr((2, 40), "float64"), np.array([-4.0, -2.0, 0.0, 3.0, 5.0]))


def test_histogramdd_errors_as_numpy() -> None:
    with pytest.raises(ValueError, match="max must be larger than min in range parameter"):
        kiln.function(lambda a: np.histogram2d(a[0], a[1], bins=3, range=[[1, 0], [0, 1]]))(arr((2, 5), "float64"))
    with pytest.raises(ValueError, match="must be monotonically increasing"):
        kiln.function(lambda a: np.histogramdd(a, bins=[[1.0, 0.0]]))(arr((5, 1), "float64"))


# --------------------------------------------------------------------------- np.r_, np.c_


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_r_and_c_with_traced_items(dtype: str) -> None:
    def f(a: Any, b: Any, m: Any) -> Any:
        s = a[0]
        return (np.r_[a, b], np.r_[a, 0:3], np.r_[1:4, a, 2.5], np.r_[a, 7], np.r_[s, a], np.r_[a[:2], -1, 0:10:4j],
                np.c_[a, b], np.c_[a, b, a * 2], np.c_[m, m], np.r_[m, m], np.r_["1", m, m], np.r_["0,2", a, b],
                np.r_["0,2,0", a, b], np.r_[np.float32(1.5), a], np.r_[a, float(a[1])])

    check(f, arr((5,), dtype), arr((5,), "float64"), arr((2, 3), dtype))


def test_r_refuses_the_matrix_directive() -> None:
    with pytest.raises(NotImplementedError, match=r"np.r_/np.c_ with the matrix directive 'r'"):
        kiln.function(lambda a: np.r_["r", a, a])(arr((3,), "float64"))
