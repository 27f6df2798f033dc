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


def zeros_read_in_nested_ifs(x: np.ndarray, w: np.ndarray) -> Any:
    """kiln.fuzz grad 19000-2837, reduced: the reverse ``if`` yields one array of zeros as the
    gradient of ``w`` (no path inside) and, updated through the inner ``if``, as that of ``y``
    (a constant: that result is dead)."""
    y = np.zeros(5)
    s = 0.0
    if np.sum(w) > -100.0:
        if np.dot(y, w) > -1.0:
            s = s + np.sum(y[::-1] * x)
    return np.sum(x * w) + s


def fuzz_19000_2837(x: np.ndarray, w: np.ndarray, m: np.ndarray, g: np.ndarray) -> Any:
    """kiln.fuzz grad 19000-2837 as the issue reduced it by hand."""
    s = 0.0
    y1 = np.zeros(5)
    y2 = x * 1.0
    if np.tanh(np.sum(w[::-1])) > -2.0:
        if np.dot(np.maximum(y1, -0.5), np.concatenate([w[2:], w[:2]])) > -1.0:
            s = s + np.sum(np.cumsum(y1[::-1] * x[g]) * 0.5)
        k3 = 0
        while np.sum(y2 * y2) < 23.0 and k3 < 2:
            k3 += 1
            y2 = y2 * 1.25 + np.tanh(m.max(axis=0) / (1.0 + x ** 2))
            y2[1] = np.mean(np.sum(m, axis=0) * m.max(axis=0))
    y2[y2 > 0.75] *= np.min(w[g])
    return np.sum(y2 * w) + s


def test_one_array_yielded_for_two_gradients_of_a_nested_if() -> None:
    """Two results of the reverse ``if`` made from one array of zeros each keep their own buffer
    (kiln-bufferize gave both that array's, so the dead one's copy overwrote ``w``'s gradient)."""
    x = np.array([1.8873, -0.5494, 0.6399, -1.1695, -0.5084])
    w = np.array([-1.5882, -0.5899, -1.2971, -1.0953, 1.2991])
    np.testing.assert_allclose(kiln.grad(zeros_read_in_nested_ifs, argnums=1)(x, w),
                               _fd(zeros_read_in_nested_ifs, [x, w], 1), rtol=1e-6, atol=1e-8)
    m = np.array([[-0.8588, 0.9677, 0.8175, -0.5360, 0.3858], [-1.0276, 0.1913, -0.6579, -0.1412, 0.1329],
                  [1.7328, -1.4960, -1.4812, 1.1142, -0.9543]])
    g = np.array([1, 3, 2, 4, 0])
    args = [x, w, m, g]
    value, grads = kiln.value_and_grad(fuzz_19000_2837, argnums=(0, 1, 2))(*args)
    assert value == pytest.approx(fuzz_19000_2837(*args), rel=1e-12)
    for i, got in enumerate(grads):
        np.testing.assert_allclose(got, _fd(fuzz_19000_2837, args, i), rtol=1e-6, atol=1e-6, err_msg=f"argument {i}")


def rows_written_after_a_loop(w: np.ndarray, m: np.ndarray) -> Any:
    y = m.max(axis=0)
    k = 0
    while np.sum(y * y) < 32.0 and k < 4:
        k += 1
        y = y * 1.25 + np.tanh(m.T @ (m @ w))
    for i in range(5):
        y[2:4] = np.tanh(m.max(axis=0))[2:4]
    return np.sum(y * np.tanh(y))


def test_the_reverse_sweep_reads_forward_values_written_since() -> None:
    """The reverse sweep reads the forward values each op used, so an array written later on some
    paths of a staged loop (which a user's read must refuse) is no reason to refuse the gradient
    (it was, naming the caller's line: kiln.fuzz grad 19100-188)."""
    rng = np.random.default_rng(0)
    w, m = rng.standard_normal(5), rng.standard_normal((3, 5))
    np.testing.assert_allclose(kiln.grad(rows_written_after_a_loop, argnums=1)(w, m),
                               _fd(rows_written_after_a_loop, [w, m], 1), rtol=1e-6, atol=1e-7)
