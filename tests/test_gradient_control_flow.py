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


def long_loop(x: np.ndarray, n: Any) -> Any:
    s = x * 1.0
    i = 0
    while i < n:
        s = s * 0.99999 + 1e-6 * np.sin(s)
        i += 1
    return np.sum(s)


def test_a_loop_of_100000_iterations() -> None:
    """The forward states are kept (8 floats and 2 counters per iteration here): the gradient of
    10^5 iterations is right, and takes well under a second."""
    x = np.linspace(-1.0, 1.0, 8)
    g = kiln.grad(long_loop)(x, np.int64(100_000))
    eps = 1e-6
    for k in (0, 5):
        e = np.zeros(8)
        e[k] = eps
        want = (long_loop(x + e, 100_000) - long_loop(x - e, 100_000)) / (2 * eps)
        assert g[k] == pytest.approx(want, rel=1e-6)


def printing_loop(x: np.ndarray, n: Any) -> Any:
    s = x * 1.0
    for _ in range(n):
        s = np.sin(s)
        kiln.print(s)
    return np.sum(s)


def test_a_loop_with_an_effect_on_the_path_is_refused() -> None:
    with pytest.raises(NotImplementedError, match=r"test_gradient_control_flow.py:\d+:\d+: differentiating a staged loop "
                                                  r"with an effect inside \(graph.print"):
        kiln.grad(printing_loop)(np.ones(3), np.int64(2))
