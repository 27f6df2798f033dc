"""``graph.compress``: ``x[mask]`` formed as an array (one pass storing the selected values, a
contiguous byte mask eight bytes at a time), checked against NumPy run eagerly.

The mask patterns exercise each way of the word path (a zero word skipped, a word of ones
copied at once, a mixed word byte by byte) and the bytes after the last whole word; the
selections' lengths are known only at run time, so the cases scatter them back to the selected
positions (which pins every value and its order) or reduce them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import kiln
from test_mutation import check

RNG = np.random.default_rng(20261129)
SIZES = (0, 1, 7, 8, 9, 63, 64, 65, 1000)
DTYPES = (np.bool_, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64, np.complex128)


def masks(n: int) -> dict[str, np.ndarray]:
    """All true, all false, alternating, runs longer than a word (of lengths 1..40), and random."""
    runs = np.repeat(np.arange(n) % 2 == 0, RNG.integers(1, 40, size=n))[:n]
    return {"all": np.ones(n, bool), "none": np.zeros(n, bool), "alternating": np.arange(n) % 2 == 0,
            "runs": runs, "random": RNG.random(n) < 0.5}


def values(dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Distinct nonzero values (so a misplaced one shows), of any dtype."""
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "b":
        return (np.arange(n) % 3 != 0).reshape(shape)
    v = (np.arange(n) % 120 + 1).astype(np.float64)
    if np.dtype(dtype).kind == "c":
        return (v - 2j * v[::-1]).astype(dtype).reshape(shape)
    return v.astype(dtype).reshape(shape)


def scattered_back(x, m):
    """The selection written back at the selected positions, zeros elsewhere (a selection of
    another length than the positions' fails the scatter's length check)."""
    s = x[m]
    out = np.ravel(x * False)  # zeros of x's size and dtype
    out[np.flatnonzero(m)] = s
    return out


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_length_and_mask(dtype: Any) -> None:
    """One compiled function (lengths known only at run time) over every length and mask."""
    f = kiln.function(scattered_back, input_signature=[kiln.TensorSpec([None], dtype), kiln.TensorSpec([None], "bool")])
    for n in SIZES:
        x = values(dtype, (n,))
        for name, m in masks(n).items():
            got, want = f(x.copy(), m.copy()), scattered_back(x, m)
            np.testing.assert_array_equal(got, want, err_msg=f"n={n} mask={name}")
            assert got.dtype == want.dtype


@pytest.mark.parametrize("n", [7, 8, 9, 64, 65])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float16, np.bool_], ids=lambda d: np.dtype(d).name)
def test_static_lengths(dtype: Any, n: int) -> None:
    for m in masks(n).values():
        check(scattered_back, values(dtype, (n,)), m)


def by_ints(x, m):
    """A mask of ints (nonzero = != 0) through np.extract: one graph.compress for one static length."""
    s = np.extract(m, x)
    out = np.zeros_like(x)
    out[np.flatnonzero(m)] = s
    return out, np.compress(m != 0, x, axis=0).sum()


@pytest.mark.parametrize("n", [9, 65])
def test_extract_by_an_int_mask(n: int) -> None:
    m = (RNG.integers(-2, 3, size=n) * (np.arange(n) % 11 > 3)).astype(np.int32)
    check(by_ints, values(np.float64, (n,)), m)


@pytest.mark.parametrize("shape", [(3, 4), (20, 33)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.int32], ids=lambda d: np.dtype(d).name)
def test_selection_of_a_2d_array(dtype: Any, shape: tuple[int, int]) -> None:
    x = values(dtype, shape)
    check(scattered_back, x, RNG.random(shape) < 0.6)
    check(scattered_back, x, np.ones(shape, bool))


def shrinking(x, t):
    """``z = z[z > t]`` in a loop, each selection's values and positions kept (mandelbrot2's way)."""
    z = x
    where = np.arange(x.size)
    last = np.zeros(x.size, np.int64)
    for k in range(6):
        keep = z > t * k
        z = z[keep]
        where = where[keep]
        last[where] = k + 1
    out = np.zeros_like(x)
    out[where] = z
    return out, last


@pytest.mark.parametrize("n", [1, 9, 64, 1000])
def test_selections_in_a_loop(n: int) -> None:
    check(shrinking, RNG.uniform(-1, 6, size=n), np.float64(0.9))


def escape_counts(c, horizon):
    """NPBench's mandelbrot2, small: the points still iterating are kept by a mask that is mostly
    true, in long runs; a complex selection, an index selection and a scatter per step."""
    n = np.zeros(c.shape, np.int64)
    zs = np.zeros(c.shape, np.complex128)
    idx = np.arange(c.size)
    z = np.zeros(c.shape, np.complex128)
    cc = c
    for i in range(8):
        z = z * z + cc
        out = np.abs(z) > horizon
        n[idx[out]] = i + 1
        zs[idx[out]] = z[out]
        keep = np.logical_not(out)
        z = z[keep]
        idx = idx[keep]
        cc = cc[keep]
    return n, zs


def test_escape_counts() -> None:
    re, im = np.meshgrid(np.linspace(-2, 0.5, 37), np.linspace(-1.25, 1.25, 29))
    check(escape_counts, (re + 1j * im).ravel(), np.float64(2.0))


def selected_square_sum(x):
    s, e = x[x > 0], np.extract(x < 0, x)
    return s @ s + e @ e


def test_gradient_scatters_back_to_the_selected_elements() -> None:
    """Each selected element gets its value's gradient back; the others (here 0.0) get none."""
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]])
    np.testing.assert_allclose(kiln.grad(selected_square_sum)(x), 2 * x)
