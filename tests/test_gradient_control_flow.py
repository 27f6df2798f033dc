"""kiln.grad through staged control flow (tests/gradient_programs.py: 31 functions with tensor
ifs, while loops with data-dependent trip counts, break, continue, early return, nesting and
in-place writes) against central finite differences in float64."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from gradient_programs import PROGRAMS


def _fd(f: Callable[..., Any], args: list[Any], i: int, eps: float = 1e-6) -> np.ndarray:
    base = [np.array(a, dtype=np.float64) if k < 2 else a for k, a in enumerate(args)]
    out = np.zeros_like(base[i])
    for idx in np.ndindex(base[i].shape):
        plus, minus = list(base), list(base)
        plus[i], minus[i] = base[i].copy(), base[i].copy()
        plus[i][idx] += eps
        minus[i][idx] -= eps
        out[idx] = (f(*plus) - f(*minus)) / (2 * eps)
    return out


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_gradient_matches_finite_differences(program: Callable[..., Any]) -> None:
    g = kiln.value_and_grad(program, argnums=(0, 1))
    for seed in range(3):
        rng = np.random.default_rng(seed)
        x, y = rng.uniform(-1.5, 1.5, 3), rng.uniform(-1.5, 1.5, 3)
        n = np.int64(3 + seed)
        value, (gx, gy) = g(x, y, n)
        assert value == pytest.approx(program(x, y, n), rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(gx, _fd(program, [x, y, n], 0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gy, _fd(program, [x, y, n], 1), rtol=1e-5, atol=1e-6)
    assert g.tracing_count == 1
