"""Loops whose iteration ``i`` computes row ``i`` of a matrix product (``graph-hoist-row-products``):
compiled against eager NumPy (results and arguments, in-place writes included), and the product
made once, before the loop, by the GEMM kernel (symmetric when it is ``x.T @ x``).

The inputs are integers held in floats, so every sum is exact in any order: the GEMM's
reassociated sums and NumPy's give the same bits."""

from __future__ import annotations

import numpy as np
import pytest
from python_differential import differential

import kiln

RNG = np.random.default_rng(43)


def whole(shape: tuple[int, ...], dtype: str = "float64") -> np.ndarray:
    return RNG.integers(-4, 5, size=shape).astype(dtype)


def centred_columns(rows: int, cols: int) -> np.ndarray:
    """Integer data whose column means are integers (rows in +d / -d pairs around them), so that
    ``x - x.mean(axis=0)`` is exact."""
    d = whole((rows // 2, cols))
    return np.concatenate([d, -d]) + whole((1, cols))


def upper_triangle(m: int, n: float, x: np.ndarray) -> np.ndarray:
    """A covariance filled a row and a column at a time, centred in place (x is changed)."""
    x -= np.mean(x, axis=0)
    c = np.zeros((m, m), dtype=x.dtype)
    for i in range(m):
        c[i:m, i] = c[i, i:m] = x[:, i] @ x[:, i:m] / (n - 1.0)
    return c


def strict_upper_triangle(x: np.ndarray) -> np.ndarray:
    """A correlation's loop: ones on the diagonal, the rest a row and a column at a time."""
    m = x.shape[1]
    c = np.eye(m, dtype=x.dtype)
    for i in range(m - 1):
        c[i + 1:m, i] = c[i, i + 1:m] = x[:, i] @ x[:, i + 1:m]
    return c


def rows_of_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = 2.0 * (a[i] @ b)
    return out


def columns_times(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """Row i of a.T @ b, written into the caller's array."""
    for i in range(a.shape[1]):
        out[i, :] = a[:, i] @ b


def window(x: np.ndarray) -> np.ndarray:
    """Two columns per row: not a row of a product worth computing whole."""
    m = x.shape[1] - 2
    out = np.zeros((m, 2), dtype=x.dtype)
    for i in range(m):
        out[i] = x[:, i] @ x[:, i:i + 2]
    return out


def _products(fn: kiln.Function, *args: np.ndarray) -> list[str]:
    """The ``kernel.*`` product ops of the compiled loops."""
    text = str(fn.get_concrete_function(*args).lowered("loops"))
    return [line.split()[0] for line in text.splitlines() if line.strip().startswith("kernel.") and "yield" not in line]


@pytest.mark.parametrize(("rows", "cols"), [(40, 33), (64, 16), (10, 100)])
def test_covariance_triangle_matches_numpy_and_is_one_symmetric_gemm(rows: int, cols: int) -> None:
    """``c[i:, i] = c[i, i:] = x[:, i] @ x[:, i:]`` per i is ``x.T @ x`` made once, half of it."""
    x = centred_columns(rows, cols)
    fn = differential(upper_triangle, (cols, float(rows), x))
    text = str(fn.get_concrete_function(cols, float(rows), x).lowered("loops"))
    assert "kernel.matmul" in text and " symmetric " in text, text
    assert "kernel.vecmat" not in text


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_strict_triangle_over_m_minus_one_rows_matches_numpy(dtype: str) -> None:
    x = whole((21, 30), dtype)
    fn = differential(strict_upper_triangle, (x,))
    assert _products(fn, x) == ["kernel.matmul"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_of_a_product_match_numpy(dtype: str) -> None:
    a, b = whole((37, 20), dtype), whole((20, 45), dtype)
    fn = differential(rows_of_product, (a, b))
    assert _products(fn, a, b) == ["kernel.matmul"]


def test_columns_times_a_matrix_into_an_argument_match_numpy() -> None:
    a, b = whole((30, 26)), whole((30, 19))
    out = np.zeros((26, 19))
    fn = differential(columns_times, (a, b, out))
    assert _products(fn, a, b, out) == ["kernel.matmul"]


def test_a_window_of_columns_stays_a_product_per_row() -> None:
    x = whole((24, 12))
    fn = differential(window, (x,))
    assert "kernel.matmul" not in _products(fn, x)
