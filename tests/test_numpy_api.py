"""Differential tests of the everyday NumPy API: each function compiled vs run eagerly on NumPy.

Covers reductions and scans (argmax, any, cumsum, var, nan*...), products (dot, einsum,
tensordot, norm, ufunc.outer/reduce/accumulate), shape and layout functions (tril, diag,
roll, pad, tile, split...), sorting and counting (sort, argsort, searchsorted, bincount,
histogram), ndarray methods, Python builtins on tensors and kiln.Variable in expressions.
Results must match NumPy's dtype and shape exactly, and its values (exactly for integers
and bools, to rounding for floats, where kiln may sum in another order).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_differential import arr, check

import kiln

NUMERIC = ["int32", "int64", "float32", "float64"]
ALL = ["bool", *NUMERIC]


def with_nans(shape: tuple[int, ...], dtype: str, every: int = 3) -> np.ndarray:
    a = arr(shape, dtype)
    a.reshape(-1)[::every] = np.nan
    return a


def ties(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Few distinct values, so that ties (first occurrence, stability) matter."""
    return arr(shape, dtype, low=0, high=2)


# --------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("dtype", ALL)
def test_argmax_argmin(dtype: str) -> None:
    def f(x: Any) -> Any:
        return (np.argmax(x), np.argmin(x), np.argmax(x, axis=0), np.argmin(x, axis=1), np.argmax(x, axis=-1, keepdims=True),
                x.argmax(), x.argmin(axis=0))

    check(f, ties((4, 5), dtype))
    check(f, arr((3, 6), dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_argmax_finds_the_first_nan(dtype: str) -> None:
    x = arr((4, 5), dtype)
    x[1, 3] = x[1, 4] = x[3, 0] = np.nan
    check(lambda x: (np.argmax(x), np.argmin(x), np.argmax(x, axis=1), np.argmin(x, axis=0)), x)


def test_argmax_of_0d_and_errors() -> None:
    check(lambda x: (np.argmax(x), np.argmin(x, axis=0)), np.float32(2.5) * np.ones((), np.float32))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        kiln.function(np.argmax)(np.zeros((0, 3), np.float32))


@pytest.mark.parametrize("dtype", ALL)
def test_any_all_count_nonzero(dtype: str) -> None:
    def f(x: Any) -> Any:
        return (np.any(x), np.all(x), np.any(x, axis=0), np.all(x, axis=1, keepdims=True), x.any(axis=(0, 1)), x.all(),
                np.count_nonzero(x), np.count_nonzero(x, axis=1))

    check(f, ties((3, 4), dtype))
    check(lambda x: (np.any(x, axis=0), np.all(x, axis=0), np.count_nonzero(x)), arr((0, 3), dtype))
    if dtype.startswith("float"):
        check(f, with_nans((3, 4), dtype))  # NaN is true


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_cumprod(dtype: str, axis: Any) -> None:
    check(lambda x: (np.cumsum(x, axis=axis), np.cumprod(x, axis=axis), x.cumsum(axis=axis)), arr((3, 5), dtype, -2, 2))


def test_cumsum_dtypes_and_shapes() -> None:
    x = arr((2, 3, 4), "int32")
    check(lambda x: (np.cumsum(x, axis=1, dtype=np.float32), np.cumprod(x, dtype=np.int32), np.cumsum(x, axis=2)), x)
    check(lambda x: (np.cumsum(x), np.cumsum(x, axis=0)), np.float64(3.5) * np.ones((), np.float64))
    check(lambda x: np.cumsum(x, axis=0), arr((0, 3), "float32"))
    check(lambda x: np.cumsum(x), with_nans((7,), "float64"))


def test_cumsum_is_numpys_sequential_sum() -> None:
    """NumPy adds left to right; so does the compiled scan (bit for bit, also in float32)."""
    x = arr((1000,), "float32", -1e3, 1e3)
    got = kiln.function(lambda x: np.cumsum(x))(x)
    np.testing.assert_array_equal(got, np.cumsum(x))


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": 1, "ddof": 1}, {"axis": (0, 1), "keepdims": True}, {"ddof": 2}])
def test_var_std(dtype: str, kwargs: dict[str, Any]) -> None:
    check(lambda x: (np.var(x, **kwargs), np.std(x, **kwargs), x.var(**kwargs), x.std(**kwargs)), arr((4, 6), dtype), rtol=1e-5)


def test_var_dtype_and_correction() -> None:
    x = arr((5, 3), "float32")
    check(lambda x: (np.var(x, dtype=np.float64), np.std(x, axis=0, correction=1), np.var(x, ddof=5, axis=0)), x, rtol=1e-5)
    check(lambda x: np.var(x, ddof=0.5), arr((6,), "int64"))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "complex128"])
def test_cov_corrcoef(dtype: str) -> None:
    """np.cov/np.corrcoef follow NumPy's steps (float64 at least, row means, X @ X.T.conj() * (1/fact))."""
    check(lambda x: (np.cov(x), np.cov(x.T), np.cov(x, rowvar=False, bias=True), np.cov(x, ddof=0)), arr((3, 6), dtype),
          rtol=1e-10)
    check(lambda x, y: (np.cov(x[0], y), np.cov(x[1]), np.cov(x, y, rowvar=True)), arr((2, 6), dtype), arr((6,), dtype),
          rtol=1e-10)
    if dtype != "complex128":
        check(lambda x: (np.corrcoef(x), np.corrcoef(x[0], x[1]), np.corrcoef(x[0]), np.cov(x, dtype=np.float32)),
              arr((3, 6), dtype), rtol=1e-5)


def test_cov_refuses_weights_by_name() -> None:
    with pytest.raises(NotImplementedError, match="fweights"):
        kiln.function(lambda x: np.cov(x, fweights=np.ones(4, np.int64)))(arr((2, 4), "float64"))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_ptp_average(dtype: str) -> None:
    x, w = arr((3, 4), dtype), arr((3, 4), "float32", 0, 3)
    check(lambda x: (np.ptp(x), np.ptp(x, axis=0), np.ptp(x, axis=1, keepdims=True)), x)
    check(lambda x: (np.average(x), np.average(x, axis=1), np.average(x, axis=0, keepdims=True)), x, rtol=1e-5)
    check(lambda x, w: (np.average(x, weights=w), np.average(x, axis=1, weights=w),
                        np.average(x, axis=1, weights=w[0], returned=True)), x, w, rtol=1e-5)
    check(lambda x: np.average(x, axis=0, returned=True), x, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_nan_reductions(dtype: str) -> None:
    x = with_nans((4, 5), dtype) if dtype.startswith("float") else arr((4, 5), dtype)
    if dtype.startswith("float"):
        x[2, :] = np.nan  # an all-NaN row: nanmax/nanmin give NaN
    check(lambda x: (np.nansum(x), np.nansum(x, axis=0), np.nanprod(x, axis=1), np.nanmax(x), np.nanmax(x, axis=1),
                     np.nanmin(x, axis=0, keepdims=True)), x, rtol=1e-5)
    if dtype.startswith("float"):
        check(lambda x: (np.nanmean(x, axis=0), np.nanmean(x)), with_nans((4, 5), dtype), rtol=1e-5)


def test_sum_mean_prod_with_dtype() -> None:
    x = arr((3, 4), "int32")
    check(lambda x: (np.sum(x, dtype=np.float32), np.mean(x, axis=0, dtype=np.float32), np.prod(x, axis=1, dtype=np.int32),
                     np.mean(x, dtype=np.float64)), x)


@pytest.mark.parametrize("dtype", ALL)
def test_ufunc_reduce(dtype: str) -> None:
    x = arr((3, 4), dtype, -2, 2)

    def f(x: Any) -> Any:
        out = [np.maximum.reduce(x), np.minimum.reduce(x, axis=1), np.logical_or.reduce(x, axis=1),
               np.logical_and.reduce(x, axis=None), np.add.reduce(x, axis=None), np.multiply.reduce(x, axis=1, keepdims=True)]
        return tuple(out)

    check(f, x)


@pytest.mark.parametrize("dtype", ALL)
def test_ufunc_accumulate(dtype: str) -> None:
    x = arr((3, 4), dtype, -2, 2)
    check(lambda x: (np.add.accumulate(x), np.multiply.accumulate(x, axis=1), np.maximum.accumulate(x, axis=1),
                     np.minimum.accumulate(x)), x)


def test_accumulate_max_propagates_nan() -> None:
    check(lambda x: (np.maximum.accumulate(x), np.minimum.accumulate(x)), np.array([1.0, 3.0, np.nan, 5.0, -1.0]))


# --------------------------------------------------------------------------- products


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.maximum, np.minimum, np.less, np.equal, np.true_divide])
def test_ufunc_outer(ufunc: np.ufunc) -> None:
    check(lambda a, b: (ufunc.outer(a, b), ufunc.outer(b, a)), arr((3,), "float32"), arr((2, 2), "int32", 1, 4))


@pytest.mark.parametrize(
    "sa,sb",
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 3, 4), (4,)), ((2, 3, 4), (4, 5)),
     ((2, 3, 4), (5, 4, 6)), ((), (3,)), ((2, 3), ())],
)
@pytest.mark.parametrize("types", [("float32", "float32"), ("float64", "int32"), ("int64", "int64"), ("bool", "bool")])
def test_dot(sa: tuple[int, ...], sb: tuple[int, ...], types: tuple[str, str]) -> None:
    check(lambda a, b: np.dot(a, b), arr(sa, types[0]), arr(sb, types[1]), rtol=1e-5)


def test_dot_method() -> None:
    check(lambda a, b: (a.dot(b), b.T.dot(a.T)), arr((2, 3), "float32"), arr((3, 4), "int32"), rtol=1e-5)


def test_inner_outer_vdot() -> None:
    a, b, c = arr((2, 3), "float32"), arr((4, 3), "float64"), arr((3,), "int32")
    check(lambda a, b, c: (np.inner(a, b), np.inner(c, c), np.inner(a, c), np.inner(a, 2.0), np.outer(a, c), np.outer(c, b),
                           np.vdot(a, a), np.vdot(c, c)), a, b, c, rtol=1e-5)
    check(lambda a, b: np.outer(a, b), arr((3,), "bool"), arr((2,), "bool"))


@pytest.mark.parametrize(
    "sa,sb,axes",
    [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 5), 1), ((2, 3), (4,), 0), ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])),
     ((3, 4), (4, 3), ([1], [0])), ((3, 4), (3, 4), ([0, 1], [0, 1]))],
)
def test_tensordot(sa: tuple[int, ...], sb: tuple[int, ...], axes: Any) -> None:
    check(lambda a, b: np.tensordot(a, b, axes=axes), arr(sa, "float64"), arr(sb, "float64"))
    check(lambda a, b: np.tensordot(a, b, axes=axes), arr(sa, "int32"), arr(sb, "int64"))


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ii->", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(3, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i", [(5,), (5,)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("ijk,jl->ikl", [(2, 3, 4), (3, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
    ("ij,ik->jk", [(3, 2), (3, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("ab,b,c->ac", [(2, 3), (3,), (4,)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUMS, ids=[s for s, _ in EINSUMS])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_einsum(spec: str, shapes: list[tuple[int, ...]], dtype: str) -> None:
    check(lambda *xs: np.einsum(spec, *xs), *[arr(s, dtype) for s in shapes], rtol=1e-5)


def test_einsum_promotes_and_accepts_optimize() -> None:
    check(lambda a, b: (np.einsum("ij,jk->ik", a, b, optimize=True), np.einsum("i,i->", b[0], b[0], dtype=np.float64)),
          arr((2, 3), "int32"), arr((3, 3), "float32"), rtol=1e-5)
    check(lambda a, b: np.einsum("ij,jk->ik", a, b), arr((2, 3), "bool"), arr((3, 2), "bool"))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_linalg_norm(dtype: str) -> None:
    v, m, t = arr((5,), dtype), arr((3, 4), dtype), arr((2, 3, 4), dtype)
    check(lambda v: tuple(np.linalg.norm(v, ord=o) for o in (None, 1, 2, np.inf, -np.inf, 0, 3, 0.5)), v, rtol=1e-5)
    check(lambda m: tuple(np.linalg.norm(m, ord=o) for o in (None, "fro", 1, -1, np.inf, -np.inf)), m, rtol=1e-5)
    check(lambda m, t: (np.linalg.norm(m, axis=0), np.linalg.norm(m, axis=1, keepdims=True), np.linalg.norm(t, axis=(1, 2)),
                        np.linalg.norm(t, ord=1, axis=(2, 0)), np.linalg.norm(t, ord=np.inf, axis=(0, 1), keepdims=True),
                        np.linalg.norm(m, keepdims=True)), m, t, rtol=1e-5)


# --------------------------------------------------------------------------- shape and layout


@pytest.mark.parametrize("dtype", ALL)
def test_triangles_and_diagonals(dtype: str) -> None:
    m, s, t, v = arr((4, 5), dtype), arr((4, 4), dtype), arr((2, 3, 4), dtype), arr((3,), dtype)
    check(lambda m, s, t, v: (np.tril(m), np.triu(m), np.tril(m, -1), np.triu(m, 2), np.tril(t, 1), np.triu(v),
                              np.diag(m), np.diag(m, 1), np.diag(m, -2), np.diag(v), np.diag(v, 2), np.diag(v, -1),
                              np.diagonal(t), np.diagonal(t, 1, 1, 2), np.diagonal(t, -1, 2, 0), m.diagonal(-1)),
          m, s, t, v)


@pytest.mark.parametrize("dtype", ALL)
def test_trace(dtype: str) -> None:
    check(lambda m, t: (np.trace(m), np.trace(m, 1), np.trace(t, 0, 1, 2), m.trace(offset=-1), np.trace(m, dtype=np.float64)),
          arr((4, 5), dtype), arr((2, 3, 3), dtype))


def test_axes_and_flips() -> None:
    t = arr((2, 3, 4), "float32")
    check(lambda t: (np.swapaxes(t, 0, 2), t.swapaxes(1, -1), np.moveaxis(t, 0, -1), np.moveaxis(t, [0, 1], [-1, 0]),
                     np.flip(t), np.flip(t, 1), np.flip(t, (0, 2)), np.fliplr(t), np.flipud(t), np.flip(t[0, 0])), t)


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_roll(dtype: str) -> None:
    t = arr((3, 4), dtype)
    check(lambda t: (np.roll(t, 1), np.roll(t, -2), np.roll(t, 5, axis=1), np.roll(t, 1, axis=0), np.roll(t, (1, -1), axis=(0, 1)),
                     np.roll(t, (2, 3), axis=(1, 1)), np.roll(t, 0), np.roll(t, 12)), t)


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
def test_pad(dtype: str) -> None:
    t, v = arr((3, 4), dtype), arr((5,), dtype)
    check(lambda t, v: (np.pad(t, 1), np.pad(t, ((1, 2), (0, 3))), np.pad(t, (2, 1), constant_values=7),
                        np.pad(t, 1, constant_values=((1, 2), (3, 4))), np.pad(v, (2, 3), mode="edge"),
                        np.pad(t, ((1, 0), (2, 2)), mode="edge"), np.pad(t, 2, mode="wrap"), np.pad(t, ((2, 1), (3, 2)), mode="reflect"),
                        np.pad(t, (1, 3), mode="symmetric"), np.pad(v, 0)), t, v)


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32"])
def test_tile_repeat(dtype: str) -> None:
    t, v = arr((2, 3), dtype), arr((3,), dtype)
    check(lambda t, v: (np.tile(t, 2), np.tile(t, (2, 1)), np.tile(v, (2, 2, 2)), np.tile(t, (1, 1, 3)), np.tile(v, 0),
                        np.repeat(t, 2), np.repeat(t, 3, axis=0), np.repeat(t, [1, 0, 2], axis=1), t.repeat(2, axis=-1),
                        np.repeat(v, [2, 1, 3])), t, v)


def test_stacking() -> None:
    a, b, s = arr((2, 3), "float32"), arr((2, 3), "int32"), arr((), "float64")
    v, w = arr((3,), "int64"), arr((3,), "float32")
    check(lambda a, b, v, w, s: (np.vstack([a, b]), np.vstack((v, w)), np.vstack([a, v]), np.hstack([a, b]), np.hstack([v, w, s[None]]),
                                 np.column_stack([v, w]), np.column_stack([a.T, v]), np.dstack([a, b]), np.dstack([v, w]),
                                 np.stack([v, w], axis=1), np.vstack([v], dtype=np.float64)), a, b, v, w, s)


def test_split() -> None:
    t = arr((6, 4), "float32")
    check(lambda t: (np.split(t, 3), np.split(t, 2, axis=1), np.split(t, [1, 4]), np.split(t, [-1, 9], axis=0),
                     np.array_split(t, 4), np.array_split(t, 3, axis=1), np.array_split(t, [2, 1]),
                     np.hsplit(t, 2), np.vsplit(t, [3]), np.hsplit(t[0], 2)), t)
    with pytest.raises(ValueError, match="array split does not result in an equal division"):
        kiln.function(lambda t: np.split(t, 4))(t)


def test_atleast_and_ravel() -> None:
    s, v, m, t = arr((), "float32"), arr((3,), "int32"), arr((2, 3), "bool"), arr((2, 3, 4), "float64")
    check(lambda s, v, m, t: (np.atleast_1d(s), np.atleast_2d(s), np.atleast_2d(v), np.atleast_3d(s), np.atleast_3d(v),
                              np.atleast_3d(m), np.atleast_3d(t), np.atleast_1d(v, m), np.ravel(t), np.ravel(s), t.ravel()), s, v, m, t)


def test_meshgrid() -> None:
    x, y, z = arr((3,), "float32"), arr((4,), "int32"), arr((2,), "float64")
    check(lambda x, y, z: (np.meshgrid(x, y), np.meshgrid(x, y, indexing="ij"), np.meshgrid(x, y, z),
                           np.meshgrid(x, y, sparse=True), np.meshgrid(x)), x, y, z)


def test_creation_with_python_bounds() -> None:
    def f(x: Any) -> Any:
        n = x.shape[0]
        return (np.eye(n) @ x, np.eye(n, 4, k=1, dtype=np.int32), np.identity(n, dtype=bool), np.linspace(0, 1, n) + x[:, 0],
                np.linspace(-1.0, 2.0, 5, endpoint=False), np.arange(n) * x[:, 1], np.arange(1.5, 4.0, 0.5), np.arange(2, 11, 3),
                np.full((2, n), 7, dtype=np.float32), np.zeros(n, dtype=np.int64) + 1, np.ones((n, 2), dtype=bool),
                np.empty((2, 2)).shape, np.tri(3, 4, -1), np.zeros_like(x, dtype=np.int32), np.full_like(x, 2.5))

    check(f, arr((3, 3), "float32"))


# --------------------------------------------------------------------------- sorting and counting


@pytest.mark.parametrize("dtype", ALL)
def test_sort_argsort(dtype: str) -> None:
    x = ties((4, 6), dtype)
    check(lambda x: (np.sort(x), np.sort(x, axis=0), np.sort(x, axis=None), np.argsort(x, kind="stable"),
                     np.argsort(x, axis=0, kind="stable"), np.argsort(x, axis=None, stable=True), x.argsort(axis=0, kind="stable")), x)
    check(lambda x: (np.sort(x), np.argsort(x, kind="mergesort")), arr((37,), dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sort_puts_nan_last(dtype: str) -> None:
    x = with_nans((5, 7), dtype, every=4)
    x[0, 0] = -np.inf
    x[2, 1] = np.inf
    check(lambda x: (np.sort(x), np.sort(x, axis=0), np.argsort(x, kind="stable"), np.argsort(x, axis=0, kind="stable")), x)


def test_sort_large_and_strided() -> None:
    x = arr((3, 1000), "float64")
    check(lambda x: (np.sort(x[:, ::2]), np.argsort(x[:, ::-3], kind="stable"), np.sort(x.T, axis=0)), x)
    y = ties((2000,), "int32")
    check(lambda y: np.argsort(y, kind="stable"), y)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype: str, side: str) -> None:
    a = np.sort(ties((9,), dtype))
    v = arr((3, 4), dtype, -1, 3)
    check(lambda a, v: (np.searchsorted(a, v, side=side), np.searchsorted(a, 1, side=side), a.searchsorted(v[0], side=side),
                        np.searchsorted(a, 1.5, side=side)), a, v)


def test_searchsorted_nan_and_empty() -> None:
    a = np.array([-1.0, 0.0, 2.0, np.nan, np.nan])
    check(lambda a, v: (np.searchsorted(a, v), np.searchsorted(a, v, side="right")), a, np.array([np.nan, -np.inf, 2.0, 5.0]))
    check(lambda a, v: np.searchsorted(a, v), np.zeros(0, np.float32), arr((3,), "float32"))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64"])
def test_bincount(dtype: str) -> None:
    x, w = arr((20,), dtype, 0, 6), arr((20,), "float32")
    check(lambda x, w: (np.bincount(x, minlength=7), np.bincount(x, weights=w, minlength=9), np.bincount(x[:0], minlength=3)), x, w)


def test_bincount_of_constant_values_and_traced_weights() -> None:
    idx = np.array([0, 3, 3, 1])
    check(lambda w: (np.bincount(idx, weights=w), np.bincount(idx, weights=w, minlength=6)), arr((4,), "int32"))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_histogram(dtype: str) -> None:
    x, w = arr((5, 8), dtype, -1, 5), arr((5, 8), "float64", 0, 2)
    check(lambda x, w: (np.histogram(x, bins=4, range=(0, 4)), np.histogram(x, 5, range=(-0.5, 3.25), weights=w),
                        np.histogram(x, bins=[-1, 0, 0.5, 2, 6]), np.histogram(x, bins=3, range=(0, 5), density=True),
                        np.histogram(x, bins=np.array([0.0, 1.0, 4.0]), weights=w.astype(np.float32))), x, w, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
def test_histogram_edges_from_the_data(dtype: str) -> None:
    """``bins=<int>`` without ``range=``: NumPy's edges from the data's min and max, at run time."""
    check(lambda x, w: (np.histogram(x, bins=7), np.histogram(x), np.histogram(x, 4, density=True),
                        np.histogram(x, 3, weights=w)), arr((5, 8), dtype, -1, 5), arr((5, 8), "float64", 0, 2))
    check(lambda x: np.histogram(x, bins=3), np.full(6, 2.5, dtype if dtype != "bool" else "float64"))


def test_histogram_edges_and_nan() -> None:
    x = np.array([0.0, 1.0, 1.0, 2.0, 3.0, np.nan, -0.5, 3.5, 2.9999999])
    check(lambda x: (np.histogram(x, bins=3, range=(0, 3)), np.histogram(x, bins=[0.0, 1.0, 3.0])), x)



@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_histogram_equal_bins_on_their_edges(dtype: str) -> None:
    """Equal bins find the bin arithmetically and correct it by the edges, as NumPy does: values
    exactly on every edge (the last one in the last bin), just beside them, NaN, out of ``range=``,
    and edges that are not exact in binary (0.1 steps, float32 edges from float64 arithmetic)."""
    edges = np.linspace(0.0, 1.0, 11)
    near = np.concatenate([edges, np.nextafter(edges, -1.0), np.nextafter(edges, 2.0)])
    x = np.concatenate([near, [np.nan, -0.0, 1.5, -2.0, 0.3, 0.7, 0.6]]).astype(dtype)
    w = np.arange(x.size, dtype=dtype)
    check(lambda x, w: (np.histogram(x, 10, range=(0.0, 1.0)), np.histogram(x, 10, range=(0.0, 1.0), weights=w),
                        np.histogram(x, 7, range=(0.1, 0.7)), np.histogram(x, 3, range=(0.5, 0.5)),
                        np.histogram(x, 10, range=(0, 1), weights=w.astype(np.int64))), x, w)
    finite = np.nan_to_num(x, nan=0.25)
    check(lambda x, w: (np.histogram(x, 10), np.histogram(x, 13, weights=w)), finite, w)


def test_histogram_ratio_with_empty_bins() -> None:
    """NPBench's azimint_hist: weighted counts over counts, 0/0 in the empty bins (NaN, as NumPy)."""
    rng = np.random.default_rng(3)
    radius, data = rng.random(500), rng.random(500)
    with np.errstate(invalid="ignore", divide="ignore"):
        check(lambda d, r: np.histogram(r, 1000, weights=d)[0] / np.histogram(r, 1000)[0], data, radius)
        check(lambda d, r: np.histogram(r, 7, range=(0.2, 1.4), weights=d)[0] / np.histogram(r, 7, range=(0.2, 1.4))[0],
              data.astype(np.float32), radius.astype(np.float32))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_histogram_sums_exactly_as_numpy_over_blocks(dtype: str) -> None:
    """One-pass histograms (``graph.histogram``) of more elements than NumPy's 65536-element blocks:
    the weights' sums are NumPy's to the last bit (per-block sums added in the weights' type), the
    counts and the edges too; two histograms of the same data (NPBench's azimint_hist) share a pass."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(200_003).astype(dtype)
    x[::997] = np.nan
    w = (rng.random(x.size) * 10.0 ** rng.integers(-8, 8, x.size)).astype(dtype)

    def f(x: Any, w: Any) -> Any:
        counts, edges = np.histogram(x[~np.isnan(x)], 101)
        x64 = x.astype(np.float64)  # range= on float32 data takes the general path (its sums are not blocked)
        return (counts, edges, np.histogram(x64, 7, range=(-1.5, 2.25), weights=w), np.histogram(x64, 1000, range=(-2.0, 2.0)),
                np.histogram(x[~np.isnan(x)], 333, weights=w[~np.isnan(x)])[0], np.histogram(x64, 5, range=(0.0, 0.0), weights=w.astype(np.float32)))

    want, got = f(x, w), kiln.function(f)(x, w)
    for g, v in zip(_leaves(got), _leaves(want), strict=True):
        assert g.dtype == v.dtype
        np.testing.assert_array_equal(g, v)


def _leaves(tree: Any) -> list[np.ndarray[Any, Any]]:
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [np.asarray(tree)]


def test_two_histograms_of_the_same_data_are_one_pass() -> None:
    """The counts and the weighted sums of the same data and bins come from one ``graph.histogram``."""
    rng = np.random.default_rng(8)
    radius, data = rng.random(70_000), rng.random(70_000)

    def azimint(data: Any, radius: Any) -> Any:
        return np.histogram(radius, 1000, weights=data)[0] / np.histogram(radius, 1000)[0]

    with np.errstate(invalid="ignore", divide="ignore"):
        want = azimint(data, radius)
    cf = kiln.function(azimint).get_concrete_function(data, radius)
    np.testing.assert_array_equal(cf(data, radius), want)
    assert cf.lowered("tensor").count("kalgo.histogram") == 1


# --------------------------------------------------------------------------- builtins and methods


def test_python_builtins_on_tensors() -> None:
    def f(x: Any, s: Any, t: Any, i: Any) -> Any:
        return (float(s) * 2, int(s), int(i) + 1, bool(s), bool(i), abs(x), max(x), min(x), sum(x), sum(x, 10), len(x),
                max(s, t), min(t, s, 0.5), max([s, t]), min([x[0], x[1]]), sum(x.reshape(2, -1)), float(x[1]))

    check(f, arr((6,), "float32"), np.array(-2.75), np.array(1.25), np.array(3, np.int32))

    def g(x: Any) -> Any:
        return sum(x), max(x), min(x), sum(x, np.int64(1))

    check(g, arr((5,), "int32"))
    check(g, arr((5,), "bool"))


def test_builtin_max_of_mixed_dtypes_is_refused_naming_the_line() -> None:
    """Python's max(a, b) returns one of its operands, whose type depends on the values: here the
    int32 where it wins, the float64 where it does not. kiln gave np.maximum's value in the promoted
    dtype (a float64 where Python gives the int32); it refuses, naming the line. Operands of one
    dtype keep working."""

    def f(s: Any, i: Any) -> Any:
        return max(s, i), min(s, i)

    with pytest.raises(TypeError, match=r"test_numpy_api.py:\d+:\d+: max\(\) of an int32 NumPy value"):
        kiln.function(f)(np.array(-2.75), np.array(3, np.int32))
    got = kiln.function(f)(np.array(-2.75), np.array(3.0))
    assert [g.dtype for g in got] == [np.float64, np.float64]
    assert [float(g) for g in got] == [3.0, -2.75]


def test_builtins_on_tensors_that_python_refuses() -> None:
    def f(x: Any) -> Any:
        return float(x) * 2

    with pytest.raises(TypeError, match=r"x\.astype\(np\.float64\)"):
        kiln.function(f, autograph=False)(np.array(2.0))

    def g(x: Any) -> Any:
        return max(x)

    with pytest.raises(ValueError, match="ambiguous"):
        kiln.function(g)(arr((2, 3), "float32"))

    def h(x: Any) -> Any:
        return float(x)

    with pytest.raises(TypeError, match="only 0-dimensional arrays can be converted"):
        kiln.function(h)(arr((2,), "float32"))


def test_ndarray_methods() -> None:
    x = arr((3, 4), "float32")
    check(lambda x: (x.argmax(axis=1), x.any(), x.all(axis=0), x.cumprod(axis=1), x.var(ddof=1), x.std(axis=0),
                     x.argsort(kind="stable"), x.trace(), x.diagonal(1), x.swapaxes(0, 1), x.repeat(2, axis=0),
                     x.dot(x.T), x.clip(-1, 1), x.itemsize, x.nbytes), x, rtol=1e-5)

    def sort_in_place(y: Any) -> Any:  # x.sort() sorts the argument itself
        y.sort(axis=1)
        return y * 1

    eager, compiled = x.copy(), x.copy()
    np.testing.assert_array_equal(kiln.function(sort_in_place)(compiled), sort_in_place(eager))
    np.testing.assert_array_equal(compiled, eager)


def test_variables_in_expressions() -> None:
    v = kiln.Variable(arr((2, 3), "float32"))
    w = kiln.Variable(arr((3,), "float64"))

    def f(x: Any) -> Any:
        return (v.T, v @ x, x.T @ v.T, v[1], v[:, 0], v.shape, v.ndim, v.size, np.sum(v, axis=0), np.stack([w, w]),
                v.mean(axis=1), np.argmax(v), v.reshape(3, 2), np.dot(v, w), np.einsum("ij,j->i", v, w), float(w[0]), max(w))

    x = arr((3, 4), "float32")
    want = f(x)
    for got in (kiln.function(f)(x), f(x)):
        for g, e in zip(got, want):
            assert np.asarray(g).dtype == np.asarray(e).dtype
            np.testing.assert_allclose(g, e, rtol=1e-6)


def test_dynamic_shapes() -> None:
    def f(x: Any, a: Any) -> Any:
        return (np.cumsum(x, axis=0), np.sort(x, axis=0), np.argsort(x, axis=1, kind="stable"), np.searchsorted(a, x),
                np.sort(a), np.bincount((x > 0).ravel(), minlength=2), np.cumprod(a))

    fn = kiln.function(f, input_signature=[kiln.TensorSpec((None, 3), "float64"), kiln.TensorSpec((None,), "float64")])
    for n in (1, 5, 17):
        x, a = arr((n, 3), "float64"), np.sort(arr((n + 2,), "float64"))
        for g, e in zip(fn(x, a), f(x, a)):
            assert g.dtype == e.dtype
            np.testing.assert_allclose(g, e)
    assert fn.tracing_count == 1


# --------------------------------------------------------------------------- what stays unsupported


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda t: np.bincount(t.astype(np.int64).ravel()), "np.bincount(x) without minlength="),
        (lambda t: np.histogram(t, bins="auto"), "np.histogram(..., bins='auto')"),
        (lambda t: np.cumsum(t, out=t), "np.cumsum(..., out=)"),
        (lambda t: np.argmax(t, out=t), "np.argmax(..., out=)"),
        (lambda t: np.any(t, where=t > 0), "np.any(..., where=)"),
        (lambda t: np.var(t, mean=t), "np.var(..., mean=)"),
        (lambda t: np.sort(t.ravel(), order="x"), "np.sort(..., order=)"),
        (lambda t: np.searchsorted(t[0], t, sorter=t[0]), "np.searchsorted(..., sorter=)"),
        (lambda t: np.pad(t, 1, mode="maximum"), "np.pad(..., mode='maximum')"),
        (lambda t: np.pad(t, 1, mode="edge", constant_values=3), "np.pad(..., mode='edge', constant_values=)"),
        (lambda t: np.einsum("...i->...", t), "'...'"),
        (lambda t: np.einsum(t, [0, 1]), "(operand, sublist, ...)"),
        (lambda t: np.linalg.norm(t, ord="nuc"), "np.linalg.norm(..., ord='nuc')"),
        (lambda t: np.add.reduceat(t, [0]), "np.add.reduceat"),
        (lambda t: np.subtract.accumulate(t), "np.subtract.accumulate"),
        (lambda t: np.add.outer(t, t, dtype=np.float64), "np.add.outer(..., dtype=)"),
        (lambda t: np.unique_values(t), "np.unique_values"),
    ],
)
def test_unsupported_says_what(call: Any, name: str) -> None:
    with pytest.raises(NotImplementedError, match="not supported inside kiln.function") as info:
        kiln.function(call)(arr((2, 3), "float32"))
    assert name in str(info.value)


def _uses_byteswap(x):
    return x.byteswap()


def _uses_a_typo(x):
    return x.summ()


def test_missing_array_attributes_name_the_construct_and_line() -> None:
    """An ndarray method kiln lacks, or a name ndarray does not have, is an AttributeError naming
    it and the user's file:line (never a bare one about kiln's Tensor)."""
    with pytest.raises(AttributeError, match=r"test_numpy_api\.py:\d+:\d+: ndarray\.byteswap is not supported"):
        kiln.function(_uses_byteswap)(np.ones(4))
    with pytest.raises(AttributeError, match=r"test_numpy_api\.py:\d+:\d+: 'numpy.ndarray' object has no attribute 'summ'"):
        kiln.function(_uses_a_typo)(np.ones(4))


def reduction_methods_with_numpy_arguments(x):
    return (x.mean(dtype=np.float32), x.sum(0, np.float32), x.prod(keepdims=True), x.max(axis=0, keepdims=True),
            x.min(0), x.round(1), x.reshape(2, 2).mean(1, np.float32))


def test_reduction_methods_take_numpy_arguments() -> None:
    """``x.mean(dtype=)``, ``x.sum(axis, dtype)`` positionally, ``keepdims``: NumPy's method signatures."""
    check(reduction_methods_with_numpy_arguments, np.array([1.25, 2.5, 3.75, -1.0]))
