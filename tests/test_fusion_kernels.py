"""Fusion and the matmul kernel against NumPy: fused chains, reductions, matmul sizes, epilogues."""

from __future__ import annotations

import numpy as np
import pytest

import kiln

RNG = np.random.default_rng(1234)


def _rand(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def test_chain_is_one_generic_and_exact() -> None:
    @kiln.function
    def chain(x):
        return kiln.relu(2 * x + 1) * kiln.sigmoid(x) - x / 3

    x = _rand((1000,), np.float32)
    cf = chain.get_concrete_function(x)
    assert cf.lowered("tensor").count("linalg.generic") == 1
    expected = np.maximum(2 * x + 1, 0) * (1 / (1 + np.exp(-x))) - x / 3
    np.testing.assert_allclose(chain(x), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("axis", [0, 1])
def test_reduction_with_producer(axis: int) -> None:
    @kiln.function
    def f(x):
        return kiln.reduce_sum(kiln.exp(x) * 2, axis=axis)

    x = _rand((37, 19), np.float32)
    assert f.get_concrete_function(x).lowered("tensor").count("linalg.generic") == 1
    np.testing.assert_allclose(f(x), (np.exp(x) * 2).sum(axis=axis), rtol=1e-5)


def test_broadcast_transpose_fused() -> None:
    @kiln.function
    def f(y, b):
        return kiln.tanh(kiln.transpose(y) + b)

    y, b = _rand((5, 7), np.float64), _rand((5,), np.float64)
    np.testing.assert_allclose(f(y, b), np.tanh(y.T + b), rtol=1e-12)


SIZES = [1, 7, 64, 100, 257]


@kiln.function
def _mm(a, b):
    return a @ b


@pytest.mark.filterwarnings("ignore:kiln.function")  # one function, many shapes: retracing is the point
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(m, k, n) for m in SIZES for k in SIZES for n in SIZES if len({m, k, n}) <= 2 or (m, k, n) == (7, 100, 257)])
def test_matmul_sizes(m: int, k: int, n: int, dtype: type) -> None:
    a, b = _rand((m, k), dtype), _rand((k, n), dtype)
    expected = a @ b
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(_mm(a, b), expected, rtol=tol, atol=tol * np.abs(expected).max(initial=1.0))


def test_matmul_uses_kernel() -> None:
    @kiln.function
    def mm(a, b):
        return a @ b

    a, b = _rand((128, 128), np.float32), _rand((128, 128), np.float32)  # past SMALL_PANEL_MAX_WORK: packed
    assert "kiln_gemm_f32_rows" in mm.get_concrete_function(a, b).source
    a, b = _rand((64, 64), np.float32), _rand((64, 40), np.float32)  # a ragged last panel: packed
    assert "kiln_gemm_f32_rows" in mm.get_concrete_function(a, b).source
    a, b = _rand((64, 64), np.float32), _rand((64, 64), np.float32)  # whole panels: A and B in place
    assert "kiln_gemm_f32_small(64, 64, 64" in mm.get_concrete_function(a, b).source
    a, b = _rand((8, 8), np.float32), _rand((8, 8), np.float32)
    assert "kiln_gemm_f32_small(8, 8, 8" in mm.get_concrete_function(a, b).source  # no packing


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 300, 257), (5, 301, 70), (8, 1000, 3000), (8, 9, 40000)])
def test_matmul_of_few_rows_streams_b_unpacked(m: int, k: int, n: int, dtype: type) -> None:
    """At most 8 rows: the skinny kernel (B never packed), its k tail (k % 8) and column tail
    (n % vector width) included; an inf in B's last row reaches only its own column, as in NumPy."""
    a, b = _rand((m, k), dtype), _rand((k, n), dtype)
    b[-1, 3] = np.inf
    assert f"kiln_gemm_{np.dtype(dtype).char == 'f' and 'f32' or 'f64'}_skinny({m}," in _mm.get_concrete_function(a, b).source
    expected = a @ b
    tol = 1e-5 if dtype == np.float32 else 1e-12
    got = _mm(a, b)
    assert np.isinf(got[:, 3]).all() and np.isfinite(np.delete(got, 3, axis=1)).all()
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * np.abs(expected[np.isfinite(expected)]).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batched_matmul(dtype: type) -> None:
    @kiln.function
    def bmm(a, b):
        return a @ b

    a, b = _rand((3, 17, 9), dtype), _rand((9, 5), dtype)
    np.testing.assert_allclose(bmm(a, b), a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 7, 100, 257])
def test_matmul_bias_relu(n: int) -> None:
    @kiln.function
    def linear(x, w, b):
        return kiln.relu(x @ w + b)

    x, w, b = _rand((n, 33), np.float32), _rand((33, n), np.float32), _rand((n,), np.float32)
    cf = linear.get_concrete_function(x, w, b)
    assert "kernel.matmul" in cf.lowered("loops")
    expected = np.maximum(x @ w + b, 0)
    np.testing.assert_allclose(linear(x, w, b), expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_matmul_single_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_NUM_THREADS", "1")

    @kiln.function
    def mm(a, b):
        return a @ b

    a, b = _rand((300, 200), np.float32), _rand((200, 150), np.float32)
    np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-5, atol=1e-4)


def _chain(x: np.ndarray) -> np.ndarray:
    return np.maximum(2 * x + 1, 0) * (1 / (1 + np.exp(-x))) - x / 3


@pytest.mark.parametrize("threads", ["1", "2"])
def test_parallel_loops_same_results(monkeypatch: pytest.MonkeyPatch, threads: str) -> None:
    """Large elementwise and row-reduction nests run as OpenMP loops; results do not depend on
    the thread count (each element is computed by one thread, in the same order)."""
    monkeypatch.setenv("KILN_NUM_THREADS", threads)
    chain, rows = kiln.function(_chain), kiln.function(lambda m: m.sum(axis=1))
    x = _rand((1 << 18) + 13, np.float32)
    m = _rand((1000, 517), np.float32)
    assert "#pragma omp parallel for" in chain.get_concrete_function(x).source
    assert "#pragma omp parallel for" in rows.get_concrete_function(m).source
    np.testing.assert_allclose(chain(x), _chain(x), rtol=1e-5, atol=1e-6)
    monkeypatch.setenv("KILN_NUM_THREADS", "1")
    sequential = rows(m)
    monkeypatch.setenv("KILN_NUM_THREADS", threads)
    np.testing.assert_array_equal(rows(m), sequential)
    np.testing.assert_allclose(sequential, m.sum(axis=1), rtol=1e-5, atol=1e-4)


def test_output_pool_reuses_freed_buffers() -> None:
    """A large output comes from the pool once the previous result was dropped, never while
    it lives; the pool stays bounded and results are unchanged."""
    from kiln.backends.c import pyext

    pool = pyext.module()
    pool.pool_clear()  # the pool is per process: start from what earlier tests left there
    chain = kiln.function(_chain)
    x = _rand(1 << 19, np.float32)  # 2 MiB outputs: pooled
    expected = _chain(x)
    first = chain(x)
    address = first.ctypes.data
    assert first.flags.owndata and address % 64 == 0
    np.testing.assert_allclose(first, expected, rtol=1e-5, atol=1e-6)
    del first
    hits = pool.pool_stats()[0]
    for _ in range(3):
        out = chain(x)
        assert out.ctypes.data == address
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
        del out
    assert pool.pool_stats()[0] == hits + 3
    live = [chain(x) for _ in range(8)]
    assert len({a.ctypes.data for a in live}) == 8
    for a in live:
        np.testing.assert_allclose(a, expected, rtol=1e-5, atol=1e-6)
    del live, a
    _, _, blocks, cached, _ = pool.pool_stats()
    assert blocks <= 4 and cached <= 4 * (x.nbytes + 4096)
    pool.pool_clear()
    assert pool.pool_stats()[2:4] == (0, 0)


def test_output_pool_makes_room_for_the_sizes_in_use() -> None:
    """Buffers freed long ago give way to the sizes a program makes now: once the pool's slots
    hold four sizes no longer made, a fifth size is still served from the pool on later calls."""
    from kiln.backends.c import pyext

    pool = pyext.module()
    pool.pool_clear()
    chain = kiln.function(_chain)
    old_sizes = [_rand((1 << 19) + k * 4096, np.float32) for k in range(1, 5)]
    held = [chain(x) for x in old_sizes]
    del held  # four freed buffers of sizes that will not come back fill the four slots
    assert pool.pool_stats()[2] == 4
    x = _rand(1 << 19, np.float32)
    expected = _chain(x)
    out = chain(x)
    address = out.ctypes.data
    del out
    hits, evictions = pool.pool_stats()[0], pool.pool_stats()[4]
    for _ in range(3):
        out = chain(x)
        assert out.ctypes.data == address
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
        del out
    stats = pool.pool_stats()
    assert stats[0] == hits + 3 and stats[2] == 4 and stats[4] == evictions
    assert evictions >= 1
    pool.pool_clear()


def _unrolled_escape_step(copies: int):
    """A Mandelbrot escape step written out ``copies`` times (values shared across the copies)."""

    def step(cr, ci, zr, zi, count):
        for _ in range(copies):
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            inside = zr * zr + zi * zi < 4.0
            count = np.where(inside, count + 1, count)
            zr = np.where(inside, zr, 2.0)
            zi = np.where(inside, zi, 2.0)
        return zr, zi, count

    return step


def test_fusion_grows_linearly_with_an_unrolled_body() -> None:
    """A cheap value shared by several readers is copied only when it reads no other generic's
    result: the tensor-level IR of a body written 8 times is about 8 times that of one copy."""
    x = np.linspace(-2, 1, 16)
    cr, ci = np.meshgrid(x, x)
    args = (cr, ci, np.zeros_like(cr), np.zeros_like(cr), np.zeros(cr.shape, np.int64))
    sizes = []
    for copies in (1, 8):
        step = _unrolled_escape_step(copies)
        f = kiln.function(step, autograph=False)
        out = f(*args)
        for got, want in zip(out, step(*args)):
            np.testing.assert_allclose(got, want)
        sizes.append(f.get_concrete_function(*args).lowered("tensor").count("\n"))
    assert sizes[1] <= 10 * sizes[0], sizes
