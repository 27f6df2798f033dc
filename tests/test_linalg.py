"""np.linalg.cholesky / solve / inv / det inside kiln.function against eager NumPy.

LAPACK blocks and reorders its sums, kiln's loop nests do not: results agree to a tolerance
(relative to the float type), dtypes and shapes exactly. Inputs are well conditioned:
``I + 0.3 * randn / sqrt(n)`` for solve/inv/det (determinants of order 1, no overflow), and
``m @ m.T + n * I`` (symmetric positive-definite) for cholesky.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree

RNG = np.random.default_rng(2026)
SIZES = [1, 2, 7, 33]
FLOATS = ["float32", "float64"]
TOL = {np.dtype("float32"): (2e-4, 2e-5), np.dtype("float64"): (1e-11, 1e-12),
       np.dtype("complex64"): (2e-4, 2e-5), np.dtype("complex128"): (1e-11, 1e-12)}


def general(n: int, dtype: str) -> np.ndarray:
    return (np.eye(n) + 0.3 * RNG.standard_normal((n, n)) / np.sqrt(n)).astype(dtype)


def spd(n: int, dtype: str) -> np.ndarray:
    m = RNG.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n)).astype(dtype)


def check(fn: Callable[..., Any], *args: Any, compiled: Any = None) -> Any:
    """Compile ``fn`` (unless given ``compiled``), compare its results with ``fn`` on NumPy: shape, dtype, values to LAPACK's rounding."""
    want = fn(*args)
    compiled = compiled or kiln.function(fn)
    got = compiled(*args)
    got_leaves, got_tree = pytree.flatten(got)
    want_leaves, want_tree = pytree.flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        w = np.asarray(w)
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        rtol, atol = TOL[w.dtype]
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * max(1.0, float(np.max(np.abs(w), initial=0))))
    return compiled


def all_routines(a: np.ndarray, s: np.ndarray, b: np.ndarray, bm: np.ndarray) -> tuple[Any, ...]:
    return np.linalg.cholesky(s), np.linalg.solve(a, b), np.linalg.solve(a, bm), np.linalg.inv(a), np.linalg.det(a)


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per size, meant
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_routines(n: int, dtype: str) -> None:
    b = RNG.standard_normal(n).astype(dtype)
    bm = RNG.standard_normal((n, 3)).astype(dtype)
    check(all_routines, general(n, dtype), spd(n, dtype), b, bm, compiled=ALL_ROUTINES)


ALL_ROUTINES = kiln.function(all_routines)


@pytest.mark.parametrize("dtype", FLOATS)
def test_routines_compose_with_other_ops(dtype: str) -> None:
    """Operands that are views or expressions (a transpose, a slice); results used further."""

    def f(a: np.ndarray, s: np.ndarray, b: np.ndarray) -> tuple[Any, ...]:
        l = np.linalg.cholesky(s[1:, 1:] * 2)
        x = np.linalg.solve(a.T, b[::2])
        return l @ l.T, x * 3 + 1, np.linalg.inv(a.T) @ a.T, np.linalg.det(a) + np.linalg.det(2 * a)

    check(f, general(7, dtype), spd(8, dtype), RNG.standard_normal(14).astype(dtype))


def test_solve_with_the_cholesky_factor_in_a_staged_loop() -> None:
    """Iterative refinement: the loop over a traced count becomes one graph.while."""

    def refine(a: np.ndarray, b: np.ndarray, steps: np.int64) -> np.ndarray:
        x = np.zeros_like(b)
        for _ in range(steps):
            x = x + np.linalg.solve(a, b - a @ x) + np.linalg.det(np.linalg.cholesky(a @ a.T)) * 0
        return x

    a, b = general(33, "float64"), RNG.standard_normal((33, 2))
    compiled = check(refine, a, b, np.int64(3))
    assert "graph.while" in compiled.get_concrete_function(a, b, np.int64(3)).ir
    np.testing.assert_allclose(compiled(a, b, np.int64(5)), refine(a, b, np.int64(5)), rtol=1e-11, atol=1e-12)
    assert compiled.tracing_count == 1


def test_dtypes_follow_numpy() -> None:
    """Integers compute in float64; float32 stays float32 only when every operand is float32."""
    ai = np.array([[4, 1], [2, 3]], np.int64)
    a32 = ai.astype(np.float32)
    b64 = np.array([1.0, 2.0])
    check(lambda a: (np.linalg.inv(a), np.linalg.det(a), np.linalg.cholesky(a @ a.T)), ai)
    check(lambda a, b: np.linalg.solve(a, b), a32, b64)
    check(lambda a, b: np.linalg.solve(a, b), ai.astype(np.int32), b64.astype(np.float32))


@pytest.mark.parametrize("dtype", FLOATS)
def test_singular_and_indefinite_give_nans(dtype: str) -> None:
    """NumPy raises LinAlgError; compiled code returns all-NaN results (det of a singular matrix is 0, as in NumPy)."""
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], dtype)
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]], dtype)
    f = kiln.function(lambda a, s, b: (np.linalg.inv(a), np.linalg.solve(a, b), np.linalg.det(a), np.linalg.cholesky(s)))
    inv, x, det, l = f(singular, indefinite, np.ones(2, dtype))
    assert np.isnan(inv).all() and np.isnan(x).all() and np.isnan(l).all()
    assert det == np.linalg.det(singular) == 0
    for routine, arg in ((np.linalg.inv, singular), (np.linalg.cholesky, indefinite)):
        with pytest.raises(np.linalg.LinAlgError):
            routine(arg)


def test_errors_name_the_construct() -> None:
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        kiln.function(lambda a: np.linalg.inv(a))(np.ones((2, 3)))
    with pytest.raises(NotImplementedError, match=r"test_linalg.py:\d+:\d+: np.linalg.det on stacks of matrices \(3-D arrays\) is not"):
        kiln.function(lambda a: np.linalg.det(a))(np.ones((2, 3, 3)))
    with pytest.raises(NotImplementedError, match=r"np.linalg.cholesky\(..., upper=True\)"):
        kiln.function(lambda a: np.linalg.cholesky(a, upper=True))(np.eye(2))
    with pytest.raises(ValueError, match="b needs 3 rows"):
        kiln.function(lambda a, b: np.linalg.solve(a, b))(np.eye(3), np.ones(2))
    with pytest.raises(NotImplementedError, match="np.linalg.qr is not supported inside kiln.function"):
        kiln.function(lambda a: np.linalg.qr(a))(np.eye(2))


def complex_routines(a: np.ndarray, b: np.ndarray, bm: np.ndarray) -> tuple[Any, ...]:
    return np.linalg.solve(a, b), np.linalg.solve(a, bm), np.linalg.inv(a), np.linalg.det(a)


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per size, meant
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 3, 9])
def test_complex_routines(n: int, dtype: str) -> None:
    """solve/inv/det of complex matrices pivot on the modulus, in complex64 or complex128 as LAPACK's."""
    a = (general(n, "float64") + 0.3j * RNG.standard_normal((n, n))).astype(dtype)
    b = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(dtype)
    bm = (RNG.standard_normal((n, 2)) + 1j * RNG.standard_normal((n, 2))).astype(dtype)
    check(complex_routines, a, b, bm)


def test_complex_solve_with_a_real_right_hand_side_promotes() -> None:
    a = general(4, "float64") + 0.5j * np.eye(4)
    check(lambda a, b: np.linalg.solve(a, b), a, RNG.standard_normal(4).astype(np.float32))
    check(lambda a, b: np.linalg.solve(a, b), a.real.copy(), a[:, 0].copy())


def test_complex_cholesky_is_refused_by_name() -> None:
    with pytest.raises(NotImplementedError, match=r"test_linalg.py:\d+:\d+: np.linalg.cholesky on complex128 arrays"):
        kiln.function(lambda a: np.linalg.cholesky(a))(np.eye(2, dtype=np.complex128))
