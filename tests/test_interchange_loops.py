"""kiln-interchange-loops: reductions over transposed views read rows, with NumPy's answers
(compiled against eager NumPy; the IR after the loops stage shows the contiguous inner loop)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

RNG = np.random.default_rng(5)


def transposed_sum(x):
    return x.T.sum(axis=1)


def transposed_mean_keepdims(x):
    return np.mean(x.T, axis=1, keepdims=True)


def transposed_max(x):
    return np.max(np.transpose(x), axis=1)


def covariance(data):
    return np.cov(np.transpose(data))


def batched_transposed_sum(x):
    return x.transpose(0, 2, 1).sum(axis=2)


def _check(fn: Callable[..., Any], *args: np.ndarray) -> None:
    want = fn(*[a.copy() for a in args])
    got = kiln.function(fn)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.asarray(got).dtype == np.asarray(want).dtype


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (64, 130), (300, 257)])
def test_reductions_over_transposed_views(shape: tuple[int, int]) -> None:
    x = RNG.normal(size=shape)
    _check(transposed_sum, x)
    _check(transposed_mean_keepdims, x)
    _check(transposed_max, x)
    _check(transposed_sum, x.astype(np.float32))


def test_nan_in_a_transposed_max_propagates() -> None:
    x = RNG.normal(size=(9, 5))
    x[4, 2] = np.nan
    _check(transposed_max, x)


def test_covariance_of_a_transposed_matrix() -> None:
    _check(covariance, RNG.normal(size=(90, 40)))


def test_three_dimensions() -> None:
    _check(batched_transposed_sum, RNG.normal(size=(3, 17, 40)))


def test_the_column_walk_becomes_a_row_walk() -> None:
    """The loops stage reads x by rows: the innermost loop indexes x's last dimension."""
    loops = kiln.function(transposed_sum).get_concrete_function(np.ones((8, 16))).lowered("loops")
    body = loops[loops.index("scf.for"):]
    assert "vector.load %x[" in body, body


def radix2_butterfly(x):
    r = 2
    i, j = np.mgrid[0:r, 0:r]
    dft = np.exp(-2.0j * np.pi * i * j / r)
    return dft @ np.reshape(x, (r, x.size // r))


def small_complex_products(a, x):
    return a @ x, (a @ x).sum(axis=1)


@pytest.mark.parametrize("n", [2, 64, 4096])
def test_short_complex_reductions(n: int) -> None:
    """(2, 2) @ (2, n) and (3, 3) @ (3, n) complex (no kernel): the reduction of 2 or 3 moves
    out, the long row inward; bit for bit NumPy's order of terms."""
    x = RNG.normal(size=2 * n) + 1j * RNG.normal(size=2 * n)
    _check(radix2_butterfly, x)
    a = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))
    y = RNG.normal(size=(3, n)) + 1j * RNG.normal(size=(3, n))
    want = small_complex_products(a.copy(), y.copy())
    got = kiln.function(small_complex_products)(a, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)

