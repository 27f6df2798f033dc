"""kiln-elide-copies (a snapshot read in place, a result written in place) and the kernels'
epilogues that then write a buffer they also read: compiled against eager NumPy, arguments
and variables included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

RNG = np.random.default_rng(11)


def _check(fn: Callable[..., Any], *args: np.ndarray) -> None:
    eager, compiled = [a.copy() for a in args], [a.copy() for a in args]
    want = fn(*eager)
    got = kiln.function(fn)(*compiled)
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    for i, (g, w) in enumerate(zip(compiled, eager)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=f"argument {i} after the call")


def accumulate_product(acc, x, w):
    acc[:] = acc + x @ w


def subtract_scaled_product(acc, x, w):
    acc[:] = acc - 0.5 * (x.T @ w)


def accumulate_conv(acc, x, f):
    acc[:] = acc + kiln.conv2d(x, f)


@pytest.mark.parametrize("n", [3, 40, 130])
def test_an_argument_updated_with_a_product(n: int) -> None:
    """The product's kernel must not write the argument before the update reads it."""
    _check(accumulate_product, RNG.normal(size=(n, n)), RNG.normal(size=(n, n)), RNG.normal(size=(n, n)))
    _check(subtract_scaled_product, RNG.normal(size=(n, n)), RNG.normal(size=(n, n)), RNG.normal(size=(n, n)))


def scaled_gemm(alpha, beta, c, a, b):
    c[:] = alpha * a @ b + beta * c


def whole_update(c, g):
    c[:] = c * 2 + g


def shifted_update(c):
    c[1:] = c[:-1] + 1


def reversed_update(c):
    c[:] = c[::-1] + 1


def transposed_update(c, g):
    c[:] = c.T + g


@pytest.mark.parametrize("mnk", [(5, 7, 3), (70, 45, 33), (130, 97, 260)])
def test_an_argument_assigned_a_scaled_product_of_itself(mnk: tuple[int, int, int]) -> None:
    """``C[:] = alpha * A @ B + beta * C`` (NPBench's gemm): C is written in place by the
    product's epilogue, which reads each element of C before writing it."""
    m, n, k = mnk
    _check(scaled_gemm, np.float64(1.5), np.float64(1.2), RNG.normal(size=(m, n)), RNG.normal(size=(m, k)),
           RNG.normal(size=(k, n)))


def test_assignments_into_all_of_an_argument_read_where_they_write() -> None:
    """Only a view of all of the array, read at the element written, is updated in place: a
    shifted, reversed or transposed read must see the old values."""
    _check(whole_update, RNG.normal(size=(6, 5)), RNG.normal(size=(6, 5)))
    _check(shifted_update, RNG.normal(size=(6, 5)))
    _check(reversed_update, RNG.normal(size=(6, 5)))
    _check(transposed_update, RNG.normal(size=(5, 5)), RNG.normal(size=(5, 5)))


def test_an_argument_updated_with_a_convolution() -> None:
    _check(accumulate_conv, RNG.normal(size=(1, 6, 6, 4)), RNG.normal(size=(1, 8, 8, 2)), RNG.normal(size=(3, 3, 2, 4)))


def copy_then_write_source(a):
    y = a.copy()
    a[:] = a * 2
    return y + a


def copy_only_read(a):
    y = a.copy()
    return y * 2 + y.sum()


def update_reading_reversed(a):
    a[:] = a[::-1] + 1


def update_then_read_old(a, g):
    old = a.copy()
    a[:] = a - g
    return old * 3


@pytest.mark.parametrize("fn", [copy_then_write_source, copy_only_read, update_reading_reversed])
def test_copies_of_an_argument(fn: Callable[..., Any]) -> None:
    _check(fn, RNG.normal(size=(5, 7)))


def test_a_copy_taken_before_an_update_keeps_the_old_values() -> None:
    _check(update_then_read_old, RNG.normal(size=(64, 32)), RNG.normal(size=(64, 32)))


@pytest.mark.parametrize("n", [4, 96])
def test_variable_updates_in_place_read_the_old_value(n: int) -> None:
    w0, x, g = RNG.normal(size=(n, n)), RNG.normal(size=(n, n)), RNG.normal(size=(n, n))

    def step(w: Any, x: np.ndarray, g: np.ndarray) -> Any:
        before = w.read_value()
        y = x @ w
        w.assign(w - 0.1 * (x.T @ g))
        w.assign_add(w * 0.5)
        return y + before.sum()

    w_eager, w_compiled = kiln.Variable(w0.copy()), kiln.Variable(w0.copy())
    want = step(w_eager, x, g)
    compiled = kiln.function(lambda x, g: step(w_compiled, x, g))
    np.testing.assert_allclose(compiled(x, g), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_compiled.numpy(), w_eager.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(compiled(x, g), step(w_eager, x, g), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_compiled.numpy(), w_eager.numpy(), rtol=1e-10, atol=1e-12)


def test_the_update_of_a_variable_is_one_pass() -> None:
    """w.assign(w - lr * g): no snapshot of w and no new buffer copied into it (the C reads
    and writes w in one loop)."""
    w = kiln.Variable(np.ones((64, 64), np.float32))

    @kiln.function
    def step(g: np.ndarray) -> None:
        w.assign(w - np.float32(0.1) * g)

    g = np.full((64, 64), 2.0, np.float32)
    buffer = step.get_concrete_function(g).lowered("buffer")
    assert "memref.alloc" not in buffer, buffer
    step(g)
    np.testing.assert_allclose(w.numpy(), np.full((64, 64), 0.8, np.float32), rtol=1e-6)


def test_a_variable_updated_with_a_convolution() -> None:
    v0, x, f = RNG.normal(size=(1, 6, 6, 4)), RNG.normal(size=(1, 8, 8, 2)), RNG.normal(size=(3, 3, 2, 4))
    v_eager, v_compiled = kiln.Variable(v0.copy()), kiln.Variable(v0.copy())

    def step(v: Any, x: np.ndarray, f: np.ndarray) -> None:
        v.assign(v * 0.5 + kiln.conv2d(x, f))

    step(v_eager, x, f)
    kiln.function(lambda x, f: step(v_compiled, x, f))(x, f)
    np.testing.assert_allclose(v_compiled.numpy(), v_eager.numpy(), rtol=1e-10, atol=1e-12)


def floyd_warshall_step(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))


def relax_through_first_row_and_column(d):
    d[:] = np.minimum(d, d[:, 0:1] + d[0:1, :])
    return d.sum()


def add_its_own_reverse(x):
    x[:] = x + x[::-1]  # a view as large as x: no snapshot, a temporary


def add_a_row_of_its_own(x):
    x[:] = x * 2.0 + x[3]  # one row, read after x's row 3 is rewritten: a snapshot


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
def test_an_update_reading_rows_and_columns_of_its_destination(dtype: str) -> None:
    """path[:] = f(path, path[:, k], path[k, :]) writes path in place, reading copies of the row
    and the column taken first: a negative diagonal (or a NaN) changes them during the update."""
    for n in (1, 7, 40):
        path = RNG.integers(-3, 60, (n, n)).astype(dtype)
        if dtype == "float64" and n > 3:
            path[2, 2], path[3, 1] = np.nan, np.inf
        _check(floyd_warshall_step, path)
        _check(relax_through_first_row_and_column, path)
    _check(add_its_own_reverse, RNG.standard_normal((9, 5)))
    _check(add_a_row_of_its_own, RNG.standard_normal((9, 5)))


def test_the_floyd_warshall_update_copies_two_rows_not_the_matrix() -> None:
    f = kiln.function(floyd_warshall_step)
    path = RNG.integers(0, 60, (64, 64)).astype(np.int32)
    buffers = f.get_concrete_function(path.copy()).lowered("buffer")
    assert "memref.alloc() : memref<64x64xi32>" not in buffers
    assert "memref.alloc() : memref<64x1xi32>" in buffers and "memref.alloc() : memref<64xi32>" in buffers
