"""A GEMM kernel that absorbs an elementwise epilogue whose output is allocated after the matmul
(passes/_kernel_common.hoist_alloc_before moves that allocation up): against eager NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from test_differential import arr, check

pytestmark = pytest.mark.filterwarnings("ignore:kiln.function")  # one lambda site, many shapes: retracing is the point


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [16, 7, 33])
def test_epilogue_result_feeds_another_matmul(dtype: str, n: int) -> None:
    x, w = arr((n, n), dtype, 0.0, 1.0), arr((n, n), dtype, 0.0, 1.0)  # no cancellation: a relative tolerance holds
    check(lambda x, w: (x @ w + 1.0) @ w, x, w, rtol=1e-5)


def exp_of_matmul_then_branch(x, y):  # noqa: ANN001, ANN201 (traced)
    z = np.exp(x @ y)
    if x.sum() > 0.5:
        z = z + 1
    return z


@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-1.0, 0.0)], ids=["branch taken", "branch not taken"])
def test_epilogue_then_branch_on_a_reduction(low: float, high: float) -> None:
    x, y = arr((16, 16), "float32", low, high), arr((16, 16), "float32", 0.0, 0.25)
    check(exp_of_matmul_then_branch, x, y, rtol=1e-5)


def matmul_times_a_later_reduction(a, b):  # noqa: ANN001, ANN201 (traced)
    """kiln.fuzz 1131-1788, minimized: the reduction the epilogue reads is computed between the
    matmul and its epilogue, so the epilogue cannot run with the kernel (it read the buffer unfilled)."""
    if b[b[..., 0].max(axis=0) % 5][np.min(b, axis=0).max(axis=0) % 1]:
        np.multiply(b % (np.abs(b) + 1), 2, out=b)
    return a @ np.full((1, 3), 3.0) * np.min(b, axis=0)


def conv_times_a_later_reduction(x, f, y):  # noqa: ANN001, ANN201 (traced)
    out = kiln.conv2d(x, f)
    return out * y.max()


def test_epilogue_operand_computed_between_kernel_and_epilogue() -> None:
    a, b = np.array([[2.25], [-1.5], [-3.0]]), np.array([[2], [-2], [-2], [6], [4]], dtype=np.int32)
    want_b, got_b = b.copy(), b.copy()
    want = matmul_times_a_later_reduction(a, want_b)
    np.testing.assert_array_equal(kiln.function(matmul_times_a_later_reduction)(a, got_b), want)
    np.testing.assert_array_equal(got_b, want_b)
    check(conv_times_a_later_reduction, arr((1, 6, 6, 2), "float64", -1.0, 1.0), arr((3, 3, 2, 4), "float64", -1.0, 1.0),
          arr((5,), "float64", -1.0, 1.0))
