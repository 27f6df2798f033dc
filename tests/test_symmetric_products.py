"""Products of a matrix's transpose with itself (``kiln-symmetric-products``), against eager
NumPy: ``x.T @ x`` and ``x @ x.T`` seen through views, casts and copies, square, tall and wide,
float32 and float64, odd sizes. The marked product computes half of C and mirrors it, so the
result is exactly symmetric, as NumPy's ``syrk`` is; where the operands are not each other's
transpose (another offset, a source written after its copy) the product stays a plain one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_matmul_shapes import DTYPES, arr, check

import kiln

pytestmark = pytest.mark.filterwarnings("ignore:kiln.function")  # many shapes: retracing is the point


def of_a_view(x: np.ndarray) -> np.ndarray:
    y = x[1:, 2:]
    return y.T @ y


def of_two_slices(x: np.ndarray) -> np.ndarray:
    return x[:, 1:].T @ x[:, 1:]


def of_strided_rows(x: np.ndarray) -> np.ndarray:
    return x[::2].T @ x[::2]


def rows_of_a_view(x: np.ndarray) -> np.ndarray:
    return x[1:, 2:] @ x[1:, 2:].T


def transpose_then_slice(x: np.ndarray) -> np.ndarray:
    return x.T[2:, 1:] @ x[1:, 2:]


def of_a_cast(x: np.ndarray) -> np.ndarray:
    y = x.astype(np.float32)
    return y.T @ y


def of_two_casts(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32).T @ x.astype(np.float32)


def of_centred(x: np.ndarray) -> np.ndarray:
    y = x - x.mean(axis=0)
    return y.T @ y / (x.shape[0] - 1)


def of_a_contiguous_copy(x: np.ndarray) -> np.ndarray:
    y = np.ascontiguousarray(x[:, 1:])
    return y.T @ y


SYMMETRIC = [of_a_view, of_two_slices, of_strided_rows, rows_of_a_view, transpose_then_slice, of_a_cast,
             of_two_casts, of_centred, of_a_contiguous_copy]


def shifted(x: np.ndarray) -> np.ndarray:
    return x[:, :-1].T @ x[:, 1:]  # the same buffer at another offset: not a transpose


def copy_then_write(x: np.ndarray) -> np.ndarray:
    y = x[1:, 2:]
    t = y.T.copy()
    y += 1.0  # t is the transpose of y before this write
    return t @ y


def casts_of_different_values(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32).T @ (x + 1.0).astype(np.float32)


NOT_SYMMETRIC = [shifted, copy_then_write, casts_of_different_values]

#: square, tall, wide and odd (where a plain product's edge tiles round C's halves differently);
#: the last past the threading threshold
SHAPES = [(40, 40), (131, 37), (29, 97), (61, 45), (150, 90), (300, 130)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", SYMMETRIC + NOT_SYMMETRIC)
def test_matches_numpy(dtype: str, fn: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_NUM_THREADS", "2")
    for shape in SHAPES:
        check(fn, arr(shape, dtype))


@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("fn", SYMMETRIC)
def test_exactly_symmetric(threads: str, fn: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Half of C computed and mirrored: the result equals its transpose bit for bit."""
    monkeypatch.setenv("KILN_NUM_THREADS", threads)
    for shape in SHAPES:
        for dtype in DTYPES:
            got = kiln.function(fn)(arr(shape, dtype))
            np.testing.assert_array_equal(got, got.T)


@pytest.mark.parametrize("fn", SYMMETRIC)
def test_marked(fn: Callable[..., Any]) -> None:
    assert ") symmetric {" in kiln.function(fn).get_concrete_function(arr((64, 80), "float64")).lowered("loops")


@pytest.mark.parametrize("fn", NOT_SYMMETRIC)
def test_not_marked(fn: Callable[..., Any]) -> None:
    assert ") symmetric {" not in kiln.function(fn).get_concrete_function(arr((64, 80), "float64")).lowered("loops")
