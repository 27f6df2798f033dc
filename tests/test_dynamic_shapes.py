"""input_signature with None dims: one compiled function for every size, result sizes computed
per call, size mismatches caught before the compiled code runs."""

from __future__ import annotations

import numpy as np
import pytest

import kiln


def spec(*shape: int | None, dtype: str = "float32") -> kiln.TensorSpec:
    return kiln.TensorSpec(list(shape), dtype)


def test_dynamic_through_every_level() -> None:
    @kiln.function(input_signature=[spec(None, 4)])
    def f(x):
        return x.sum(axis=1) * 2.0

    cf = f.get_concrete_function()
    assert "tensor<?x4xf32>" in cf.ir
    assert "memref<?x4xf32>" in cf.lowered("buffer")
    assert "memref.dim" in cf.lowered("loops") or "dim" in cf.lowered("loops")
    assert "x_d0" in cf.source  # the runtime size follows the pointer (docs/abi.md)
    for rows in (0, 1, 5, 33):
        x = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
        np.testing.assert_allclose(f(x), x.sum(axis=1) * 2)
    assert f.tracing_count == 1


def test_result_sizes_follow_the_inputs() -> None:
    @kiln.function(input_signature=[spec(None, None), spec(None, 3)])
    def f(a, b):
        return a @ b, a.T, (a + 1.0).max(axis=1, keepdims=True), b.sum(axis=0)

    rng = np.random.default_rng(1)
    for m, k in ((2, 5), (7, 1)):
        a, b = rng.random((m, k), dtype=np.float32), rng.random((k, 3), dtype=np.float32)
        got = f(a, b)
        want = (a @ b, a.T, (a + 1).max(axis=1, keepdims=True), b.sum(axis=0))
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5)
    assert f.tracing_count == 1


def test_scalar_operands_broadcast_to_dynamic_sizes() -> None:
    @kiln.function(input_signature=[spec(None)])
    def f(x):
        return np.where(x > 0.5, x * 3.0, 1.0 - x)

    x = np.linspace(0, 1, 11, dtype=np.float32)
    np.testing.assert_allclose(f(x), np.where(x > 0.5, x * 3, 1 - x), rtol=1e-6)


def test_mismatched_dynamic_sizes_raise_before_running() -> None:
    @kiln.function(input_signature=[spec(None), spec(None)])
    def f(x, y):
        return x + y

    np.testing.assert_array_equal(f(np.ones(3, np.float32), np.ones(3, np.float32)), np.full(3, 2.0))
    with pytest.raises(ValueError, match=r"x.shape\[0\] is 2 but y.shape\[0\] is 3"):
        f(np.ones(2, np.float32), np.ones(3, np.float32))


def test_static_dims_of_a_dynamic_signature_are_checked() -> None:
    @kiln.function(input_signature=[spec(None, 4)])
    def f(x):
        return x

    with pytest.raises(TypeError, match=r"dimension 1 is 5, not 4"):
        f(np.ones((2, 5), np.float32))
    with pytest.raises(TypeError, match=r"rank 1 is not 2"):
        f(np.ones(4, np.float32))


def test_python_values_convert_to_the_spec_dtype() -> None:
    @kiln.function(input_signature=[spec(None)])
    def f(x):
        return x * 2.0

    np.testing.assert_array_equal(f([1, 2, 3]), np.float32([2, 4, 6]))
    with pytest.raises(TypeError, match="dtype float64 is not float32"):
        f(np.ones(2))  # NumPy arrays must match exactly


def csr_matvec(indptr, indices, values, x):
    y = np.empty(indptr.size - 1, values.dtype)
    for i in range(indptr.size - 1):
        cols = indices[indptr[i]:indptr[i + 1]]
        y[i] = values[indptr[i]:indptr[i + 1]] @ x[cols]
    return y


def test_small_temporaries_kept_between_iterations_stay_right() -> None:
    """Per-iteration temporaries of at most 4 KiB come in power-of-two blocks, a few of each kept
    for the next kiln_alloc: row lengths 0-700 (int64 and float64 temporaries from 0 bytes past
    4 KiB, every block size, reused in any order), NumPy's answers."""
    rng = np.random.default_rng(5)
    lengths = rng.permutation(np.concatenate([np.arange(0, 40), [63, 64, 65, 255, 256, 511, 512, 513, 700]]))
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    indices = rng.integers(0, 300, indptr[-1]).astype(np.int32)
    values = rng.random(indptr[-1])
    x = rng.random(300)
    f = kiln.function(csr_matvec)
    assert "kiln_alloc(" in f.get_concrete_function(indptr, indices, values, x).source
    for _ in range(3):
        np.testing.assert_allclose(f(indptr, indices, values, x), csr_matvec(indptr, indices, values, x), rtol=1e-12)


def test_large_temporaries_kept_between_calls_stay_right() -> None:
    """Freed buffers of 128 KiB or more are kept for the next call's (kiln_free's cache): sizes that
    grow, shrink and come back, across the threshold, on the calling thread and on two, give
    NumPy's answers."""

    @kiln.function(input_signature=[spec(None, dtype="float64")])
    def f(x):
        z = np.cumsum(np.sort(x))
        return np.sort(-z) + z

    assert "kiln_free(" in f.get_concrete_function().source
    rng = np.random.default_rng(3)
    for n in (1 << 18, 3 << 17, 1 << 18, 5 << 17, 1 << 17, 1 << 13, 1 << 14, 3 << 12, 1 << 18):
        x = rng.random(n)
        z = np.cumsum(np.sort(x))
        np.testing.assert_allclose(f(x), np.sort(-z) + z)
