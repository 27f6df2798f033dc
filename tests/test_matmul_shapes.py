"""Matrix products in the shapes that have kernels of their own, against eager NumPy: vector x
matrix and matrix x vector (kernel.vecmat / kernel.matvec), batched matmul (kernel.matmul on
batch slices, or on the collapsed rows when B has no batch), with odd sizes, single rows and
columns, broadcast batches, transposed and strided operands, dynamic shapes and two threads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

pytestmark = pytest.mark.filterwarnings("ignore:kiln.function")  # one lambda site, many shapes: retracing is the point

RNG = np.random.default_rng(7)
DTYPES = ["float32", "float64"]


def arr(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, size=shape).astype(dtype)


def check(fn: Callable[..., Any], *args: np.ndarray, input_signature: list[kiln.TensorSpec] | None = None) -> None:
    """``fn`` compiled and run eagerly on copies of ``args``: same results and same arguments
    after the call. The kernels reassociate sums, so the tolerance is relative to the largest
    magnitude of the result (cancellation makes single elements small)."""
    eager_args = [a.copy() for a in args]
    compiled_args = [a.copy() for a in args]
    want = fn(*eager_args)
    got = kiln.function(fn, input_signature=input_signature)(*compiled_args)
    gots, wants = _results(got), _results(want)
    assert len(gots) == len(wants) and (got is None) == (want is None), (got, want)
    for g, w in zip(gots, wants):
        assert type(g) is type(w), (type(g), type(w))  # a NumPy scalar where NumPy gives one
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        _close(g, w)
    for g, w in zip(compiled_args, eager_args):
        _close(g, w)


def _results(r: Any) -> tuple[Any, ...]:
    """A function's results as a tuple: none for None, one for a single result."""
    return () if r is None else r if isinstance(r, tuple) else (r,)


def _close(got: np.ndarray, want: np.ndarray) -> None:
    tol = 2e-5 if want.dtype == np.float32 else 1e-12
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def matmul(a: Any, b: Any) -> Any:
    return a @ b


# --------------------------------------------------------------------------- vector x matrix, matrix x vector

SIZES = [(1, 1), (1, 7), (7, 1), (3, 5), (17, 33), (64, 64), (129, 257), (300, 1000)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k,n", SIZES)
def test_vector_times_matrix(dtype: str, k: int, n: int) -> None:
    check(matmul, arr((k,), dtype), arr((k, n), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k", SIZES)
def test_matrix_times_vector(dtype: str, m: int, k: int) -> None:
    check(matmul, arr((m, k), dtype), arr((k,), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "fn,shapes",
    [
        (lambda a, x: a.T @ x, [(40, 23), (40,)]),  # the transposed matrix read along its rows: vecmat
        (lambda x, a: x @ a.T, [(23,), (40, 23)]),  # matvec
        (lambda a, x: a[::2] @ x, [(40, 23), (23,)]),  # rows of a strided view
        (lambda a, x: a[:, ::2] @ x, [(40, 46), (23,)]),  # no unit stride in either axis
        (lambda x, a: x[::2] @ a, [(46,), (23, 40)]),  # a strided vector in the axpy form
        (lambda a, x: a @ x[::3], [(40, 23), (69,)]),  # a strided vector in the dot form
        (lambda x, a: x @ a[:, 3:30], [(23,), (23, 40)]),  # a column window: row stride 40, 27 columns
        (lambda x, a: np.maximum(x @ a + 0.5, 0.0), [(23,), (23, 40)]),
        (lambda a, x, b: np.maximum(a @ x + b, 0.0), [(40, 23), (23,), (40,)]),
        (lambda a, x: (a @ x) @ a, [(40, 40), (40,)]),  # one's result feeds the other
    ],
    ids=["aT@x", "x@aT", "a[::2]@x", "a[:,::2]@x", "x[::2]@a", "a@x[::3]", "x@a[:,3:30]", "relu(x@a+c)",
         "relu(a@x+b)", "(a@x)@a"],
)
def test_matrix_vector_views_and_epilogues(dtype: str, fn: Callable[..., Any], shapes: list[tuple[int, ...]]) -> None:
    check(fn, *(arr(s, dtype) for s in shapes))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_vector_product_into_a_column_of_an_argument(dtype: str) -> None:
    def f(a: Any, x: Any, out: Any) -> Any:
        out[:, 1] = a @ x  # a strided output
        out[2, :] = x[:3] @ a[:3, :2]
        return out.sum()

    check(f, arr((9, 5), dtype), arr((5,), dtype), arr((9, 2), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_vector_dynamic_shapes(dtype: str) -> None:
    spec = [kiln.TensorSpec([None], dtype), kiln.TensorSpec([None, None], dtype)]
    for k, n in [(5, 9), (130, 70), (5, 0), (0, 4)]:  # and no outputs, or no terms (zeros)
        check(matmul, arr((k,), dtype), arr((k, n), dtype), input_signature=spec)
        check(lambda x, a: a.T @ x, arr((k,), dtype), arr((k, n), dtype), input_signature=spec)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_vector_on_two_threads(dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the threading threshold (GEMV_PARALLEL_MIN_WORK, 2^16 multiply-adds) the output is split
    among threads: large, just past it, and np.cov's shrinking column blocks x @ A[:, i:]."""
    monkeypatch.setenv("KILN_NUM_THREADS", "2")
    check(matmul, arr((1500,), dtype), arr((1500, 1501), dtype))
    check(matmul, arr((1501, 1500), dtype), arr((1500,), dtype))
    check(matmul, arr((300,), dtype), arr((300, 227), dtype))
    check(matmul, arr((227, 300), dtype), arr((300,), dtype))
    x = arr((300,), dtype)
    assert "#pragma omp parallel for num_threads(gemv_threads" in kiln.function(matmul).get_concrete_function(
        x, arr((300, 227), dtype)).source

    def shrinking(a: Any) -> Any:
        out = np.zeros((a.shape[1], a.shape[1]), dtype=a.dtype)
        for i in range(a.shape[1]):
            out[i, i:] = a[:, i] @ a[:, i:]
        return out

    check(shrinking, arr((400, 250), dtype))


def sgd_update(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    w[:] = w - 0.1 * (a.T @ b)
    return w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("threads", ["2", "3"])
def test_matrix_products_on_several_threads(dtype: str, threads: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the threshold the rows are cut into even blocks, a multiple of the thread count, and
    B's column panels are packed by the threads together; an update epilogue that reads its own
    output (an optimizer's w - lr * (x.T @ g) into w) runs on each block of the product."""
    monkeypatch.setenv("KILN_NUM_THREADS", threads)
    for m, k, n in [(128, 784, 256), (130, 700, 97), (25, 3000, 40)]:
        check(matmul, arr((m, k), dtype), arr((k, n), dtype))
        check(sgd_update, arr((m, k), dtype), arr((m, n), dtype), arr((k, n), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [769, 1537, 2400, 3001])
def test_deep_products_in_slices(dtype: str, k: int) -> None:
    """A K longer than the GEMM's slice (KC, 768 on AVX-512, 384 below) is cut into even slices
    (kiln_gemm.h's kstep: 2400 as 4 x 600), each C tile written by the first and added to by the
    others; B packed slice by slice must meet A packed the same way, plain, transposed and in the
    symmetric x @ x.T, whose lower triangle is mirrored."""
    for m, n in [(37, 45), (130, 70)]:
        check(matmul, arr((m, k), dtype), arr((k, n), dtype))
    check(lambda x, y: x.T @ y, arr((k, 30), dtype), arr((k, 50), dtype))
    check(lambda x: x @ x.T, arr((50, k), dtype))


# --------------------------------------------------------------------------- batched


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "a,b",
    [
        ((8, 64, 32), (8, 32, 64)),
        ((5, 13, 17), (5, 17, 11)),  # odd sizes
        ((3, 1, 5), (3, 5, 7)),  # one row
        ((3, 6, 1), (3, 1, 7)),  # k = 1
        ((2, 5, 4), (2, 4, 1)),  # one column
        ((1, 6, 5), (4, 5, 3)),  # broadcast batch of A
        ((4, 6, 5), (1, 5, 3)),  # broadcast batch of B
        ((4, 6, 5), (5, 3)),  # B without batch: one GEMM on the collapsed rows
        ((6, 5), (4, 5, 3)),  # A without batch
        ((2, 3, 6, 5), (2, 3, 5, 4)),  # two batch dims
        ((2, 1, 6, 5), (1, 3, 5, 4)),  # two batch dims, both broadcast
        ((2, 3, 6, 5), (5, 4)),  # two batch dims collapsed
        ((4, 6, 5), (5,)),  # batched matrix x vector
        ((5,), (4, 5, 3)),  # vector x batched matrix
    ],
)
def test_batched(dtype: str, a: tuple[int, ...], b: tuple[int, ...]) -> None:
    check(matmul, arr(a, dtype), arr(b, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "m,k,n",
    [(64, 32, 64), (12, 7, 16), (66, 3, 32), (70, 9, 48), (7, 256, 64), (128, 64, 128), (4, 1, 16)],
    ids=["4-row-edge", "one-tile", "6-row-edge", "10-row-edge", "7-rows", "128x64x128", "k=1"],
)
def test_unpacked_products(dtype: str, m: int, k: int, n: int) -> None:
    """Static products up to SMALL_PANEL_MAX_WORK with whole 16-column panels read A and B in place
    (kiln_gemm.h's small and, on AVX-512, small_tile: 12-row tiles and a half tile at M's edge);
    plain, with A transposed and strided, with a NaN and an infinity in A's last row (rows past
    M repeat it: they must not leak into C), and into the top rows of larger items."""
    a, b = arr((3, m, k), dtype), arr((3, k, n), dtype)
    assert "_small(" in kiln.function(matmul).get_concrete_function(a, b).source
    check(matmul, a, b)
    check(lambda x, y: x.transpose(0, 2, 1) @ y, arr((3, k, m), dtype), b)
    check(lambda x, y: x[:, ::2, ::3] @ y, arr((3, 2 * m, 3 * k), dtype), b)
    a[:, -1, 0], a[:, -1, -1] = np.nan, np.inf
    check(matmul, a, b)

    def into_rows(x: Any, y: Any, out: Any) -> Any:  # rows past each item's M are left alone
        out[:, :m] = x @ y
        return out[0, 0, 0]

    check(into_rows, a, b, arr((3, m + 6, n), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "fn,shapes",
    [
        (lambda a, b: a @ b.transpose(0, 2, 1), [(3, 6, 5), (3, 4, 5)]),
        (lambda a, b: a.transpose(0, 2, 1) @ b, [(3, 5, 6), (3, 5, 4)]),
        (lambda a, b: a[:, ::2] @ b[::2], [(3, 12, 5), (6, 5, 4)]),  # strided slices
        (lambda a, b: a[:, :, 1:] @ b, [(3, 6, 6), (5, 4)]),  # A not contiguous: no collapse
        (lambda a, b, c: np.maximum(a @ b + c, 0.0), [(3, 6, 5), (3, 5, 4), (4,)]),
        (lambda a, b: (a @ b).sum(axis=0), [(3, 6, 5), (3, 5, 4)]),
    ],
    ids=["a@bT", "aT@b", "strided", "a[:,:,1:]@b", "relu(a@b+c)", "sum(a@b)"],
)
def test_batched_views_and_epilogues(dtype: str, fn: Callable[..., Any], shapes: list[tuple[int, ...]]) -> None:
    check(fn, *(arr(s, dtype) for s in shapes))


@pytest.mark.parametrize("dtype", DTYPES)
def test_batched_into_a_slice_of_an_argument(dtype: str) -> None:
    def f(a: Any, b: Any, out: Any) -> Any:
        out[1:] = a @ b
        return out[0, 0, 0]

    check(f, arr((3, 4, 5), dtype), arr((3, 5, 6), dtype), arr((4, 4, 6), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_batched_dynamic_shapes(dtype: str) -> None:
    spec3 = [kiln.TensorSpec([None, None, None], dtype)] * 2
    check(matmul, arr((3, 6, 5), dtype), arr((3, 5, 4), dtype), input_signature=spec3)
    check(matmul, arr((2, 33, 9), dtype), arr((2, 9, 40), dtype), input_signature=spec3)
    spec_collapse = [kiln.TensorSpec([None, None, 7], dtype), kiln.TensorSpec([7, None], dtype)]
    check(matmul, arr((3, 6, 7), dtype), arr((7, 4), dtype), input_signature=spec_collapse)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batched_on_two_threads(dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch loop runs in parallel past the threshold; big items thread their own GEMM."""
    monkeypatch.setenv("KILN_NUM_THREADS", "2")
    check(matmul, arr((16, 128, 64), dtype), arr((16, 64, 128), dtype))
    check(matmul, arr((2, 256, 160), dtype), arr((2, 160, 256), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "a,b",
    [((0,), (0, 5)), ((5, 0), (0,)), ((0, 5), (5,)), ((4,), (4, 0)), ((3, 0, 4), (3, 4, 5)), ((3, 4, 0), (3, 0, 5)),
     ((0, 4, 5), (0, 5, 6)), ((2, 4, 0), (0, 6))],
)
def test_empty_dimensions(dtype: str, a: tuple[int, ...], b: tuple[int, ...]) -> None:
    """An empty contracted axis gives zeros; an empty output axis, an empty result."""
    check(matmul, arr(a, dtype), arr(b, dtype))



def second_layer_loss(w1: np.ndarray, w2: np.ndarray, x: np.ndarray) -> Any:
    h = np.maximum(x @ w1, np.float32(0))
    logits = h @ w2
    return np.sum(logits * logits)


def test_transposed_intermediates_in_products() -> None:
    """kiln-fold-transposes reads a transposed intermediate through a strided view: the
    intermediate (a 128x256 heap buffer here, h) must live until the product has read it. It was
    freed right after the copy the view replaced, and the gradient of the second layer, h.T @ g,
    came out 10^15 times too large."""
    rng = np.random.default_rng(3)
    w1 = (rng.normal(size=(784, 256)) * 0.05).astype(np.float32)
    w2 = (rng.normal(size=(256, 10)) * 0.05).astype(np.float32)
    x = rng.normal(size=(128, 784)).astype(np.float32)
    got = kiln.grad(second_layer_loss, argnums=1)(w1, w2, x)
    h = np.maximum(x @ w1, 0)
    want = h.T @ (2 * (h @ w2))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


# --------------------------------------------------------------------------- symmetric products


def gram_rows(x: np.ndarray) -> np.ndarray:
    return x @ x.T


def gram_columns(x: np.ndarray) -> np.ndarray:
    return x.T @ x


def gram_relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x @ x.T - 0.5, 0.0)


def covariance(x: np.ndarray) -> np.ndarray:
    return np.cov(np.transpose(x))


def not_symmetric(x: np.ndarray) -> np.ndarray:
    return x[:, :-1].T @ x[:, 1:]  # same buffer, different elements: an ordinary product


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("threads", ["1", "2", "3"])
@pytest.mark.parametrize("fn", [gram_rows, gram_columns, gram_relu, covariance, not_symmetric])
def test_symmetric_products(dtype: str, threads: str, fn: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """``x @ x.T``, ``x.T @ x`` and ``np.cov`` compute half of C and mirror it (kernel.matmul
    symmetric): sizes off the register tile, below and past the threading threshold, a fused
    epilogue, and exactly symmetric results, as NumPy's syrk gives."""
    monkeypatch.setenv("KILN_NUM_THREADS", threads)
    for shape in [(37, 300), (130, 700), (300, 29), (1, 5), (97, 1)]:
        x = arr(shape, dtype)
        check(fn, x)
        if fn is not not_symmetric:
            got = kiln.function(fn)(x)
            np.testing.assert_array_equal(got, got.T)


def test_symmetric_product_is_marked() -> None:
    x = arr((64, 80), "float64")
    assert ") symmetric {" in kiln.function(gram_rows).get_concrete_function(x).lowered("loops")
    assert "syrk_rows(" in kiln.function(gram_columns).get_concrete_function(x).source
    assert ") symmetric {" not in kiln.function(not_symmetric).get_concrete_function(x).lowered("loops")


# --------------------------------------------------------------------------- scalar factors (kiln:matmul-scale)


def gemm_update(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    c[:] = 1.5 * a @ b + 0.5 * c


def two_products(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return 0.25 * a @ b @ (c * 3.0)


def scaled_and_kept(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = 2.0 * a
    return s @ b, s


def batched_scaled(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * -0.5) @ b


def vector_scaled(y: np.ndarray, m: np.ndarray) -> np.ndarray:
    return (3.0 * y) @ m


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "fn,shapes",
    [
        (gemm_update, [(37, 29), (37, 41), (41, 29)]),
        (gemm_update, [(300, 260), (300, 270), (270, 260)]),
        (two_products, [(33, 40), (40, 21), (21, 17)]),
        (scaled_and_kept, [(20, 30), (30, 10)]),
        (batched_scaled, [(3, 9, 12), (3, 12, 7)]),
        (vector_scaled, [(50,), (50, 70)]),
    ],
)
def test_scalar_factors_of_products(dtype: str, fn: Callable[..., Any], shapes: list[tuple[int, ...]]) -> None:
    check(fn, *(arr(s, dtype) for s in shapes))


def test_scalar_factor_moves_onto_the_product() -> None:
    """``1.5 * a @ b`` scales the product in the matmul's epilogue: no scaled copy of ``a``; a
    scaled array used elsewhere too is still made once."""
    a, b, c = arr((40, 30), "float64"), arr((30, 20), "float64"), arr((40, 20), "float64")
    moved = kiln.function(gemm_update).get_concrete_function(c.copy(), a, b).lowered("tensor")
    assert "tensor<40x30xf64>) outs" not in moved  # no generic writes a 40x30 scaled a
    kept = kiln.function(scaled_and_kept).get_concrete_function(a, a.T.copy()).lowered("tensor")
    assert "tensor<40x30xf64>) outs" in kept
