"""kiln-write-transposed: an elementwise op over transposed arrays writes its result in their
layout; compiled against eager NumPy (arguments included), and the loops-stage IR shows the
transposed view its readers get (or its absence where a reader would pay for it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

RNG = np.random.default_rng(11)


def covariance(data):
    return np.cov(np.transpose(data))


def centred_gram(x):
    c = x.T - x.mean(axis=0)[:, None]
    return c @ c.T


def scaled_product(x, w, b):
    return (x.T * w) @ b  # w scales the columns of x.T: a broadcast row


def exp_gram(x):
    e = np.exp(x.T) * 0.5
    return e @ e.T


def transposed_back(x):
    y = x.T * 2.0
    return y.T + 1.0  # fused into one op reading x as it is: nothing to flip


def escapes(x):
    return x.T * 2.0  # the result leaves the function: its layout stays


def read_straight(x):
    y = x.T * 2.0
    return y + 1.0  # an elementwise reader of y as it is: kept


def _check(fn: Callable[..., Any], *args: np.ndarray) -> kiln.ConcreteFunction:
    want_args = [a.copy() for a in args]
    want = fn(*want_args)
    f = kiln.function(fn)
    got = f(*args)
    tol = 1e-5 if np.asarray(want).dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max())))
    assert np.asarray(got).dtype == np.asarray(want).dtype and np.shape(got) == np.shape(want)
    for a, w in zip(args, want_args):
        np.testing.assert_array_equal(a, w)
    return f.get_concrete_function(*args)


def _flipped(cf: kiln.ConcreteFunction, rows: int) -> bool:
    """Whether the loops-stage IR reads a buffer through a (rows x _) transposed view of it."""
    return f"strides: [1, {rows}] : memref<" in cf.lowered("loops")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 1), (7, 3), (33, 40), (130, 70)])
def test_covariance_of_a_transposed_matrix(dtype: str, shape: tuple[int, int]) -> None:
    x = RNG.normal(size=shape).astype(dtype)
    cf = _check(covariance, x)
    assert _flipped(cf, shape[1])
    got = kiln.function(covariance)(x)
    np.testing.assert_array_equal(got, got.T)  # still computed as a symmetric product


@pytest.mark.parametrize("fn,flipped", [(centred_gram, True), (exp_gram, True), (transposed_back, False),
                                        (escapes, False), (read_straight, False)])
def test_programs(fn: Callable[..., Any], flipped: bool) -> None:
    x = RNG.normal(size=(37, 21))
    cf = _check(fn, x)
    assert _flipped(cf, 21) == flipped


def test_broadcast_row_and_product() -> None:
    x, w, b = RNG.normal(size=(24, 17)), RNG.normal(size=(24,)), RNG.normal(size=(24, 5))
    assert _flipped(_check(scaled_product, x, w, b), 17)


def test_nan_and_inf_keep_their_places() -> None:
    x = RNG.normal(size=(12, 9))
    x[3, 4], x[7, 1] = np.nan, np.inf
    _check(transposed_back, x)
    _check(centred_gram, x)
