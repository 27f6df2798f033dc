"""A GEMM kernel that absorbs an elementwise epilogue whose output is allocated after the matmul
(passes/_kernel_common.hoist_alloc_before moves that allocation up): against eager NumPy."""

from __future__ import annotations

import numpy as np
import pytest
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
