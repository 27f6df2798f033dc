"""Staged loops over tensors whose sizes are known only at run time (``None`` in an input_signature):
``for`` over the rows reads the size with ``graph.dim``, ``len(x)`` is that size as a tensor."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.examples.sum_even


sum_even = kiln.examples.sum_even.FUNCTION.python_function  # the seed, as plain Python


def spec(*shape: int | None, dtype: str = "float32") -> kiln.TensorSpec:
    return kiln.TensorSpec(list(shape), dtype)


def collatz_steps(ns):
    """Total and longest Collatz step counts: a `while` on a tensor inside a `for` over dynamic rows."""
    total = 0
    longest = 0
    for n in ns:
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        total += steps
        longest = np.maximum(longest, steps)
    return total, longest


def count_rows_until(x, limit):
    """`while` bounded by len(x), with an early exit on the data."""
    i = 0
    total = 0.0
    while i < len(x) and total < limit:
        total += x[i].sum()
        i += 1
    return i, total


def test_sum_even_over_a_dynamic_vector() -> None:
    f = kiln.function(sum_even, input_signature=[spec(None, dtype="int32")])
    assert "graph.dim" in f.get_concrete_function().ir
    rng = np.random.default_rng(0)
    for size in (0, 1, 4, 1000):
        items = rng.integers(-50, 50, size, dtype=np.int32)
        assert int(f(items)) == sum_even(list(items))
    assert f.tracing_count == 1


def test_for_over_dynamic_rows_of_a_matrix() -> None:
    @kiln.function(input_signature=[spec(None, 3)])
    def row_max_sum(x):
        s = np.zeros(3, np.float32)
        for row in x:
            s = s + np.maximum(row, 0.0)
        return s

    for n in (0, 1, 7):
        x = np.linspace(-1, 1, n * 3, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(row_max_sum(x), np.maximum(x, 0).sum(axis=0), rtol=1e-6)
    assert row_max_sum.tracing_count == 1


def test_collatz_over_dynamic_sizes() -> None:
    f = kiln.function(collatz_steps, input_signature=[spec(None, dtype="int64")])
    for ns in (np.array([], np.int64), np.array([1], np.int64), np.arange(1, 30, dtype=np.int64)):
        assert tuple(int(r) for r in f(ns)) == tuple(int(r) for r in collatz_steps(list(ns)))
    assert f.tracing_count == 1


def test_len_of_a_dynamic_dimension_bounds_a_while_loop() -> None:
    f = kiln.function(count_rows_until, input_signature=[spec(None, 2), spec()])
    for n, limit in ((0, 1.0), (3, 100.0), (10, 20.0)):
        x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
        i, total = f(x, np.float32(limit))
        want_i, want_total = count_rows_until(x, np.float32(limit))
        assert int(i) == want_i and float(total) == pytest.approx(float(want_total))
    assert f.tracing_count == 1


def test_range_over_len_of_a_dynamic_vector() -> None:
    @kiln.function(input_signature=[spec(None)])
    def prefix_max(v):
        best = np.float32(-1e30)
        for i in range(len(v)):
            best = np.maximum(best, v[i])
        return best

    v = np.array([3, -1, 7, 2], np.float32)
    assert float(prefix_max(v)) == 7.0
    assert float(prefix_max(v[:1])) == 3.0


def test_len_of_a_static_dimension_stays_a_python_int() -> None:
    @kiln.function
    def f(x):
        assert isinstance(len(x), int)
        return x * len(x)

    np.testing.assert_array_equal(f(np.ones(3, np.float32)), np.full(3, 3, np.float32))
