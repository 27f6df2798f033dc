"""NumPy's set functions (``np.unique`` and its options, NumPy 2's ``unique_all``/``unique_counts``/
``unique_inverse``, ``union1d``, ``intersect1d``, ``setdiff1d``, ``setxor1d``) traced as NumPy's
steps: each compiled function called on several data, so the results' lengths vary (empty input,
all equal, all distinct, NaNs), checked against NumPy run eagerly on the same data, both returned
and used inside the function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from test_changing_sizes import check  # one compiled function, NumPy's results and arguments on every call

RNG = np.random.default_rng(1129)
NAN = np.nan
#: each function is compiled once per test, the same lambda for several dtypes: on purpose
pytestmark = pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")


def data(dtype: Any, n: int = 9) -> list[tuple[np.ndarray]]:
    """Inputs of one size and dtype whose distinct values number 1, some and ``n``."""
    few = RNG.integers(0, 4, size=n).astype(dtype)
    return [(few,), (np.zeros(n, dtype),), (np.arange(n)[::-1].astype(dtype),), (few[::-1].copy(),)]


FLOATS_WITH_NAN = [(np.array([3.0, NAN, 1.0, 3.0, NAN, -0.0, 0.0]),), (np.full(7, NAN),),
                   (np.array([2.0, 1.0, NAN, 5.0, 4.0, 6.0, 7.0]),)]

UNIQUES = {
    "values": lambda x: np.unique(x),
    "index": lambda x: np.unique(x, return_index=True),
    "inverse": lambda x: np.unique(x, return_inverse=True),
    "counts": lambda x: np.unique(x, return_counts=True),
    "all": lambda x: np.unique(x, return_index=True, return_inverse=True, return_counts=True),
    "nan_apart": lambda x: np.unique(x, return_index=True, return_counts=True, equal_nan=False),
    "unique_all": lambda x: np.unique_all(x),
    "unique_counts": lambda x: np.unique_counts(x),
    "unique_inverse": lambda x: np.unique_inverse(x),
}


@pytest.mark.parametrize("fn", list(UNIQUES.values()), ids=list(UNIQUES))
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name)
def test_unique_returned(fn: Callable[..., Any], dtype: Any) -> None:
    check(fn, *data(dtype))


@pytest.mark.parametrize("fn", list(UNIQUES.values()), ids=list(UNIQUES))
def test_unique_with_nans(fn: Callable[..., Any]) -> None:
    check(fn, *FLOATS_WITH_NAN)


@pytest.mark.parametrize("fn", [UNIQUES["all"], UNIQUES["values"]], ids=["all", "values"])
def test_unique_of_an_empty_array(fn: Callable[..., Any]) -> None:
    check(fn, (np.zeros(0),))


def test_unique_inverse_has_the_input_shape() -> None:
    """NumPy 2: ``return_inverse`` of a 2-D array (axis=None) is 2-D, like the input."""
    x = RNG.integers(0, 5, size=(3, 4)).astype(np.float32)
    check(lambda a: np.unique(a, return_inverse=True), (x,), (np.ones((3, 4), np.float32),))
    check(lambda a: np.unique(a, return_inverse=True), (x.T.copy(),), (np.zeros((4, 3), np.float32),))


def test_unique_used_inside() -> None:
    """The unique values have a length the data decides: their count and sum are computed inside."""
    def fn(x):
        u = np.unique(x)
        return len(u), u.sum(), np.unique(x, return_counts=True)[1].max()

    check(fn, *data(np.float64))
    check(fn, *FLOATS_WITH_NAN)


def test_unique_of_rows_known_only_at_run_time() -> None:
    """An input of a dynamic size: the values, first indices and counts have its size as bound,
    the inverse its (run-time) shape."""
    def fn(x):
        return np.unique(x, return_index=True, return_inverse=True, return_counts=True)

    f = kiln.function(fn, input_signature=[kiln.TensorSpec([None, 3], "float64")])
    for x in [np.ones((2, 3)), np.arange(12.0).reshape(4, 3)[::-1] % 5, np.zeros((0, 3)),
              np.array([[3, 1, 3], [NAN, 2, NAN]]), np.array([[-0.0, 0, NAN], [NAN, NAN, NAN]])]:
        for got, want in zip(f(x), fn(x)):
            assert (got.dtype, got.shape) == (want.dtype, want.shape)
            np.testing.assert_array_equal(got, want)
    assert f.tracing_count == 1


@pytest.mark.parametrize(
    ("fn", "x", "what"),
    [
        (lambda x: np.unique(x, axis=0), np.zeros((2, 2)), r"np.unique\(\.\.\., axis=\)"),
        (lambda x: np.unique(x, sorted=False), np.zeros(2), r"np.unique\(\.\.\., sorted=False\)"),
        (lambda x: np.unique(x), np.zeros(2, np.complex128), r"np.unique of complex128"),
        (lambda x: np.setxor1d(x, x), np.zeros(2, np.complex128), r"np.setxor1d of complex128"),
    ],
    ids=["axis", "unsorted", "complex", "complex_setxor1d"],
)
def test_refusals_name_the_line(fn: Callable[..., Any], x: np.ndarray, what: str) -> None:
    with pytest.raises(NotImplementedError, match=rf"test_numpy_sets.py:\d+:\d+: {what}.* is not supported inside kiln.function"):
        kiln.function(fn)(x)


SETS = {
    "union1d": lambda a, b: np.union1d(a, b),
    "intersect1d": lambda a, b: np.intersect1d(a, b),
    "intersect1d_indices": lambda a, b: np.intersect1d(a, b, return_indices=True),
    "setdiff1d": lambda a, b: np.setdiff1d(a, b),
    "setdiff1d_unique": lambda a, b: np.setdiff1d(np.arange(6.0)[::-1] * a[0], b, assume_unique=True),
    "setxor1d": lambda a, b: np.setxor1d(a, b),
    "setxor1d_unique": lambda a, b: np.setxor1d(np.arange(6.0) * a[0], b[:3] - 1.0, assume_unique=True),
    "used_inside": lambda a, b: np.intersect1d(a, b).sum() + len(np.setxor1d(a, b)),
}

PAIRS = [
    (np.array([1.0, 3.0, 2.0, 3.0, 5.0, 1.0]), np.array([3.0, 4.0, 1.0, 1.0, 0.0])),
    (np.ones(6), np.ones(5)),
    (np.array([1.0, NAN, 2.0, NAN, 3.0, 2.0]), np.array([NAN, 2.0, 7.0, 7.0, 8.0])),
    (np.array([1.0, NAN, 2.0, 4.0, 3.0, 2.0]), np.array([5.0, 6.0, 7.0, 8.0, NAN])),
    (np.arange(6.0), np.arange(10.0, 15.0)),
]

#: an int array with a float one (NumPy's promotion of both)
MIXED = [(np.array([3, 1, 3, 2, 0, 1], np.int32), np.array([NAN, 2.0, 7.0, NAN, 1.0])),
         (np.array([5, 5, 5, 5, 5, 5], np.int32), np.array([1.5, 2.0, 3.0, 4.0, 5.0]))]


@pytest.mark.parametrize("fn", list(SETS.values()), ids=list(SETS))
def test_set_functions(fn: Callable[..., Any]) -> None:
    check(fn, *PAIRS)
    check(fn, *MIXED)


@pytest.mark.parametrize("fn", [SETS["union1d"], SETS["intersect1d_indices"], SETS["setdiff1d"], SETS["setxor1d"]],
                         ids=["union1d", "intersect1d_indices", "setdiff1d", "setxor1d"])
def test_set_functions_of_ints_and_empty_arrays(fn: Callable[..., Any]) -> None:
    a = RNG.integers(0, 6, size=(2, 4)).astype(np.int32)
    check(fn, (a, np.array([2, 3, 9], np.int64)), (a * 0, np.array([0, 0, 1], np.int64)), traces=1)
    check(fn, (np.zeros(0, np.int32), np.zeros(3, np.int64)), (np.zeros((0, 2)), np.zeros(0)), traces=2)
