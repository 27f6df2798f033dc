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


# The C routines work in panels of 8 columns, update 8 rows of U at a time and two rows of the
# result together, in column tiles of 2 KiB (256 doubles, 128 complex128): the sizes below end
# panels, row pairs and tiles part way.


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per size, meant
@pytest.mark.parametrize("n", [130, 260])
def test_routines_past_panels_and_tiles(n: int) -> None:
    dtype = "float64"
    b = RNG.standard_normal(n)
    bm = RNG.standard_normal((n, 3))
    check(all_routines, general(n, dtype), spd(n, dtype), b, bm, compiled=ALL_ROUTINES)


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per size, meant
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [33, 130])
def test_complex_routines_past_panels_and_tiles(n: int, dtype: str) -> None:
    a = (general(n, "float64") + 0.3j * RNG.standard_normal((n, n)) / np.sqrt(n)).astype(dtype)
    b = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(dtype)
    bm = (RNG.standard_normal((n, 2)) + 1j * RNG.standard_normal((n, 2))).astype(dtype)
    check(complex_routines, a, b, bm, compiled=COMPLEX_ROUTINES)


COMPLEX_ROUTINES = kiln.function(complex_routines)


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per case, meant
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("n", [7, 33, 130])
def test_pivoting_on_every_column(n: int, dtype: str) -> None:
    """Rows of a well-conditioned matrix in reverse order, its diagonal small: every column
    pivots, across panels; det's sign follows the swaps."""
    a = general(n, "float64")[::-1] * np.where(np.eye(n) > 0, 1e-3, 1.0)
    if dtype == "complex128":
        a = a + 0.2j * RNG.standard_normal((n, n)) / np.sqrt(n)
    a = np.ascontiguousarray(a, dtype=dtype)
    check(complex_routines, a, RNG.standard_normal(n).astype(dtype), RNG.standard_normal((n, 2)).astype(dtype),
          compiled=COMPLEX_ROUTINES)


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per case, meant
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solve_with_a_wide_right_hand_side(dtype: str) -> None:
    """300 columns: the substitutions pass through two column tiles and part of a third."""
    a = general(33, dtype) + (0.1j * np.eye(33) if dtype == "complex128" else 0)
    b = RNG.standard_normal((33, 300)).astype(dtype)
    check(lambda a, b: np.linalg.solve(a, b), np.ascontiguousarray(a, dtype=dtype), b)


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per case, meant
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize(("n", "m"), [(130, 70), (200, 45), (129, 130)])
def test_complex_substitutions_share_columns_among_threads(n: int, m: int, dtype: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 2^20 multiply-adds the columns of x (solve's right-hand sides, inv's identity) are
    substituted on threads in runs of 8: NumPy's answer, and the same bits on 1, 2 and 3 threads
    (each column is computed alone, whatever the split)."""
    a = (general(n, "float64") + 0.3j * RNG.standard_normal((n, n)) / np.sqrt(n)).astype(dtype)
    b = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(dtype)
    bm = (RNG.standard_normal((n, m)) + 1j * RNG.standard_normal((n, m))).astype(dtype)
    check(complex_routines, a, b, bm, compiled=COMPLEX_ROUTINES)
    results = []
    for threads in ["1", "2", "3"]:
        monkeypatch.setenv("KILN_NUM_THREADS", threads)
        results.append(COMPLEX_ROUTINES(a, b, bm))
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_array_equal(got, want)


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per case, meant
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize(("n", "where"), [(20, "column 13"), (130, "column 100"), (33, "row 5"), (9, "column 0")])
def test_exactly_singular_late_gives_nans(n: int, where: str, dtype: str) -> None:
    """A zero column makes that pivot exactly zero (in a later panel, not the first); a zero
    row, the last one. NumPy raises; kiln's solve and inv are all NaN and det is 0."""
    a = np.ascontiguousarray(general(n, "float64").astype(dtype))
    axis, index = where.split()
    if axis == "column":
        a[:, int(index)] = 0
    else:
        a[int(index)] = 0
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(a)
    inv, x, xm, det = COMPLEX_ROUTINES(a, np.ones(n, dtype), np.ones((n, 2), dtype))
    assert np.isnan(inv).all() and np.isnan(x).all() and np.isnan(xm).all()
    assert det == np.linalg.det(a) == 0


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # one trace per case, meant
@pytest.mark.parametrize(("n", "k"), [(20, 13), (33, 32), (130, 70)])
def test_not_positive_definite_late_gives_nans(n: int, k: int) -> None:
    """The leading k x k block is positive-definite, the leading (k+1) x (k+1) one is not: the
    factorization fails in a later panel, and the whole result is NaN."""
    s = spd(n, "float64")
    s[k, k] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(s)
    assert np.all(np.linalg.eigvalsh(s[:k, :k]) > 0)
    assert np.isnan(CHOLESKY(s)).all()


CHOLESKY = kiln.function(lambda a: np.linalg.cholesky(a))


def test_cholesky_reads_the_lower_triangle_and_may_overwrite_its_argument() -> None:
    """NumPy's cholesky ignores the upper triangle; NPBench's cholesky2 writes the factor back
    into the argument it was computed from."""

    def cholesky2(a: np.ndarray) -> None:
        a[:] = np.linalg.cholesky(a) + np.triu(a, k=1)

    s = spd(130, "float64")
    s[np.triu_indices(130, 1)] = RNG.standard_normal(130 * 129 // 2)  # not symmetric: only the lower part counts
    want, got = s.copy(), s.copy()
    cholesky2(want)
    kiln.function(cholesky2)(got)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12 * np.max(np.abs(want)))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_a_subnormal_pivot_is_divided_by(dtype: str) -> None:
    """Pivots scale by their reciprocal, as LAPACK's, except below the smallest normal number,
    where the reciprocal would overflow: 3e-310 x = 3e-310 still gives x = 1."""
    tiny = 3e-310 * (1j if dtype == "complex128" else 1)
    a = np.array([[2.0, 0.0], [0.0, tiny]], dtype)
    b = np.array([1.0, tiny], dtype)
    x = kiln.function(lambda a, b: np.linalg.solve(a, b))(a, b)
    np.testing.assert_allclose(x, [0.5, 1.0], rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_a_nan_pivot_is_not_a_zero_one(dtype: str) -> None:
    """LAPACK goes on past a NaN pivot: det is NaN (not 0, the singular answer), inv has NaNs."""
    a = np.eye(3, dtype=dtype)
    a[1, 1] = np.nan
    inv, det = kiln.function(lambda a: (np.linalg.inv(a), np.linalg.det(a)))(a)
    assert np.isnan(det) and np.isnan(np.linalg.det(a))
    assert np.isnan(inv).any()


# cholesky is blocked by 128 columns (the trailing update on the GEMM's micro-kernel, in
# MR x NR tiles, the diagonal ones stored in part): sizes that end blocks, 8-row panels and
# tiles part way, and one of a few whole blocks. One trace per size (static shapes only).
CHOLESKY_OF = {dtype: kiln.function(lambda a: np.linalg.cholesky(a)) for dtype in FLOATS}
RETRACES = pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # meant


@RETRACES
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 7, 63, 64, 65, 127, 128, 129, 200, 257, 513])
def test_cholesky_across_blocks(n: int, dtype: str) -> None:
    s = spd(n, dtype)
    l = check(np.linalg.cholesky, s, compiled=CHOLESKY_OF[dtype])(s)
    assert not np.triu(l, 1).any()  # the upper triangle is zeros, as NumPy's


@RETRACES
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bad", [0, 200, 299])
def test_cholesky_indefinite_in_a_later_block_gives_nans(bad: int, dtype: str) -> None:
    """A pivot that is not positive (NumPy raises) or NaN (NumPy's result has NaNs) in any
    block: the whole result is NaN, not a part of it."""
    s = spd(300, dtype)
    s[bad, bad] = -1e6
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(s)
    assert np.isnan(CHOLESKY_OF[dtype](s)).all()
    s[bad, bad] = np.nan
    assert np.isnan(np.linalg.cholesky(s)).any() and np.isnan(CHOLESKY_OF[dtype](s)).all()


def test_cholesky_reads_the_lower_triangle_of_a_view() -> None:
    """A transposed view (not contiguous) with junk above its diagonal: only the lower triangle counts."""
    s = spd(200, "float64")
    junk = s + np.tril(RNG.standard_normal((200, 200)), -1)  # its transpose has junk above the diagonal
    check(lambda a: np.linalg.cholesky(a.T), junk)


@RETRACES
@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_on_two_threads_is_the_same(dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads share columns of the solve and row blocks of the update: every element is summed
    in the same order, so the results are identical, bit for bit."""
    s = spd(700, dtype)
    monkeypatch.setenv("KILN_NUM_THREADS", "1")
    one = CHOLESKY_OF[dtype](s)
    monkeypatch.setenv("KILN_NUM_THREADS", "2")
    np.testing.assert_array_equal(CHOLESKY_OF[dtype](s), one)
    check(np.linalg.cholesky, s, compiled=CHOLESKY_OF[dtype])


# LU (solve, inv, det) is blocked by 128 columns too: each block's trailing update, and the
# substitutions' updates of the rows outside a block (when x has at least a GEMM tile's
# columns: inv, and solve with a wide b), run on the GEMM's micro-kernel.
def lu_routines(a: np.ndarray, b: np.ndarray, bw: np.ndarray) -> tuple[Any, ...]:
    return np.linalg.solve(a, b), np.linalg.solve(a, bw), np.linalg.inv(a), np.linalg.det(a)


LU_ROUTINES = kiln.function(lu_routines)


@RETRACES
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [127, 128, 129, 257, 400])
def test_lu_routines_across_blocks(n: int, dtype: str) -> None:
    b, bw = RNG.standard_normal(n).astype(dtype), RNG.standard_normal((n, 40)).astype(dtype)
    check(lu_routines, general(n, dtype), b, bw, compiled=LU_ROUTINES)


@RETRACES
def test_lu_pivots_on_every_column_across_blocks() -> None:
    a = np.ascontiguousarray(general(300, "float64")[::-1] * np.where(np.eye(300) > 0, 1e-3, 1.0))
    check(lu_routines, a, RNG.standard_normal(300), RNG.standard_normal((300, 40)), compiled=LU_ROUTINES)


@RETRACES
def test_lu_routines_on_two_threads_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, bw = general(700, "float64"), RNG.standard_normal(700), RNG.standard_normal((700, 300))
    monkeypatch.setenv("KILN_NUM_THREADS", "1")
    one = LU_ROUTINES(a, b, bw)
    monkeypatch.setenv("KILN_NUM_THREADS", "2")
    for got, want in zip(LU_ROUTINES(a, b, bw), one):
        np.testing.assert_array_equal(got, want)
