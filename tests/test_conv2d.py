"""``kiln.conv2d``: compiled (packed GEMM, implicit im2col) against the eager NumPy version and a naive loop."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln.dialects.graph import conv2d_same_padding


def _naive(x: np.ndarray, f: np.ndarray, strides: tuple[int, int], padding: str) -> np.ndarray:
    """Float64 loop reference: one output pixel at a time, TensorFlow's SAME padding."""
    x, f = x.astype(np.float64), f.astype(np.float64)
    if padding == "SAME":
        (top, bottom), (left, right) = (conv2d_same_padding(x.shape[1 + i], f.shape[i], strides[i]) for i in range(2))
        x = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    kh, kw, _, co = f.shape
    oh, ow = (x.shape[1] - kh) // strides[0] + 1, (x.shape[2] - kw) // strides[1] + 1
    out = np.zeros((x.shape[0], oh, ow, co))
    for i in range(oh):
        for j in range(ow):
            window = x[:, i * strides[0] : i * strides[0] + kh, j * strides[1] : j * strides[1] + kw, :]
            out[:, i, j, :] = np.tensordot(window, f, axes=([1, 2, 3], [0, 1, 2]))
    return out


def _conv(strides: int | tuple[int, int], padding: str) -> kiln.Function:
    @kiln.function
    def conv(x, f):
        return kiln.conv2d(x, f, strides=strides, padding=padding)

    return conv


CASES = [
    # (batch, h, w, ci), (kh, kw, co), strides
    ((1, 7, 6, 3), (3, 3, 4), 1),
    ((2, 9, 11, 5), (3, 2, 7), 2),
    ((2, 13, 8, 17), (5, 3, 19), (2, 1)),
    ((1, 4, 5, 1), (1, 1, 3), 1),
]


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one kiln.function per case
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("shape,window,strides", CASES)
def test_conv2d_matches_numpy(
    shape: tuple[int, ...], window: tuple[int, int, int], strides: int | tuple[int, int], padding: str, dtype: type
) -> None:
    rng = np.random.default_rng(sum(shape) + sum(window))
    x = rng.standard_normal(shape).astype(dtype)
    f = rng.standard_normal((window[0], window[1], shape[3], window[2])).astype(dtype)
    pair = (strides, strides) if isinstance(strides, int) else strides
    got = _conv(strides, padding)(x, f)
    eager = kiln.conv2d(x, f, strides=strides, padding=padding)
    ref = _naive(x, f, pair, padding)
    assert got.dtype == eager.dtype == dtype and got.shape == eager.shape == ref.shape
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(eager, ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def test_conv2d_uses_kernel_and_fuses_bias_relu() -> None:
    @kiln.function
    def layer(x, f, b):
        return kiln.relu(kiln.conv2d(x, f) + b)

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 10, 9, 8)).astype(np.float32)
    f = rng.standard_normal((3, 3, 8, 12)).astype(np.float32)
    b = rng.standard_normal(12).astype(np.float32)
    cf = layer.get_concrete_function(x, f, b)
    assert "kernel.conv2d" in cf.lowered("loops") and "&conv" in cf.source
    np.testing.assert_allclose(layer(x, f, b), np.maximum(_naive(x, f, (1, 1), "VALID") + b, 0), rtol=1e-4, atol=1e-4)


def test_conv2d_errors() -> None:
    x, f = np.zeros((1, 5, 5, 3), np.float32), np.zeros((3, 3, 2, 4), np.float32)
    with pytest.raises(ValueError, match="input has 3 channels but the filters expect 2"):
        kiln.conv2d(x, f)
    with pytest.raises(ValueError, match="input has 3 channels"):
        _conv(1, "VALID")(x, f)
    with pytest.raises(ValueError, match="padding must be 'VALID' or 'SAME'"):
        kiln.conv2d(x, f, padding="FULL")


def test_conv2d_seed_shape() -> None:
    """The seed's Conv2D(100, 3): 1x200x200x100 with 100 3x3 filters, VALID, checked at sampled pixels."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 200, 200, 100)).astype(np.float32)
    f = rng.standard_normal((3, 3, 100, 100)).astype(np.float32)
    got = _conv(1, "VALID")(x, f)
    assert got.shape == (1, 198, 198, 100)
    x64, f64 = x.astype(np.float64), f.astype(np.float64)
    for i, j in [(0, 0), (197, 197), (0, 197), (101, 3), (57, 150)]:
        ref = np.tensordot(x64[0, i : i + 3, j : j + 3, :], f64, axes=([0, 1, 2], [0, 1, 2]))
        np.testing.assert_allclose(got[0, i, j], ref, rtol=1e-4, atol=1e-3)
