"""Convolutions written as loops over output pixels (``graph-hoist-window-convs``): compiled
against eager NumPy (results and arguments, in-place writes included), and made one
``kernel.conv2d`` before the loops.

The inputs are integers held in floats, so every sum is exact in any order."""

from __future__ import annotations

import numpy as np
import pytest
from python_differential import differential

import kiln

RNG = np.random.default_rng(4343)


def whole(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return RNG.integers(-4, 5, size=shape).astype(dtype)


def pixels_by_rows(images: np.ndarray, filters: np.ndarray, bias: np.ndarray) -> np.ndarray:
    kh, kw, _, co = filters.shape
    rows, cols = images.shape[1] - kh + 1, images.shape[2] - kw + 1
    out = np.empty((images.shape[0], rows, cols, co), dtype=images.dtype)
    for r in range(rows):
        for c in range(cols):
            patch = images[:, r:r + kh, c:c + kw, :, np.newaxis]
            out[:, r, c, :] = np.sum(patch * filters[np.newaxis, :, :, :], axis=(1, 2, 3))
    return np.maximum(out + bias, 0)


def pixels_by_columns_into(images: np.ndarray, filters: np.ndarray, out: np.ndarray) -> None:
    """Columns outer, rows inner, the filters first in the product, the result in ``out``."""
    kh, kw = filters.shape[:2]
    for c in range(out.shape[2]):
        for r in range(out.shape[1]):
            out[:, r, c, :] = np.sum(filters * images[:, r:r + kh, c:c + kw, :, None], axis=(1, 2, 3))


def all_but_the_last_row(images: np.ndarray, filters: np.ndarray) -> np.ndarray:
    """A loop over part of the output: left as loops (the whole convolution would do more)."""
    kh, kw, _, co = filters.shape
    rows, cols = images.shape[1] - kh + 1, images.shape[2] - kw + 1
    out = np.zeros((images.shape[0], rows, cols, co), dtype=images.dtype)
    for r in range(rows - 1):
        for c in range(cols):
            out[:, r, c, :] = np.sum(images[:, r:r + kh, c:c + kw, :, None] * filters, axis=(1, 2, 3))
    return out


def _loops_text(fn: kiln.Function, *args: np.ndarray) -> str:
    return str(fn.get_concrete_function(*args).lowered("loops"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_loops_match_numpy_and_are_one_convolution(dtype: str) -> None:
    images, filters, bias = whole((3, 12, 11, 2), dtype), whole((3, 4, 2, 5), dtype), whole((5,), dtype)
    fn = differential(pixels_by_rows, (images, filters, bias))
    text = _loops_text(fn, images, filters, bias)
    assert text.count("kernel.conv2d") == 1, text


def test_loops_either_way_round_into_an_argument_match_numpy() -> None:
    images, filters = whole((2, 9, 10, 3), "float32"), whole((2, 3, 3, 4), "float32")
    out = np.zeros((2, 8, 8, 4), dtype="float32")
    fn = differential(pixels_by_columns_into, (images, filters, out))
    assert _loops_text(fn, images, filters, out).count("kernel.conv2d") == 1


def test_part_of_the_pixels_stays_loops_and_matches_numpy() -> None:
    images, filters = whole((2, 13, 11, 2), "float64"), whole((3, 3, 2, 3), "float64")
    fn = differential(all_but_the_last_row, (images, filters))
    assert "kernel.conv2d" not in _loops_text(fn, images, filters)
