"""Arrays whose sizes change in staged loops and differ between the paths of a staged ``if``
(``z = z[1:]``, ``z = z[mask]``, ``np.concatenate`` in a loop), checked against NumPy run
eagerly: the loop carries them with sizes known only at run time (``graph.relax_shape``), and
each iteration hands over a buffer of the new size (kiln-bufferize)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree
from kiln.frontend.autograph.staging import KilnUnrollWarning

RNG = np.random.default_rng(20261128)


def check(fn: Callable[..., Any], *calls: tuple[Any, ...], traces: int | None = 1) -> kiln.Function:
    """``fn`` compiled once gives NumPy's results, and leaves its array arguments as NumPy does,
    on every call; ``traces``: how many signatures the calls make."""
    f = kiln.function(fn)
    for args in calls:
        eager = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want, got = fn(*eager), f(*mine)
        want_leaves, want_tree = pytree.flatten(want)
        got_leaves, got_tree = pytree.flatten(got)
        assert got_tree == want_tree
        for g, w in zip(got_leaves, want_leaves):
            w = np.asarray(w)
            assert np.asarray(g).dtype == w.dtype and np.shape(g) == w.shape, (np.asarray(g).dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        for i, (g, w) in enumerate(zip(mine, eager)):
            if isinstance(w, np.ndarray):
                np.testing.assert_array_equal(g, w, err_msg=f"argument {i} after the call")
    if traces is not None:
        assert f.tracing_count == traces
    return f


def staged(f: kiln.Function, *args: Any) -> str:
    """The traced IR of ``f`` for ``args``, checked to hold a staged loop (not an unrolled one)."""
    ir = f.get_concrete_function(*args).ir
    assert "graph.while" in ir
    return ir


# ---------------------------------------------------------------------- loops


def test_a_slice_that_shrinks_in_a_loop_with_a_traced_bound() -> None:
    # the bug this file began with: the loop kept the slice's first length (sum(x[3:13]) for n=10)
    def f(x, n):
        z = x[:n]
        i = 0
        while i < n:
            z = z[1:]
            i += 3
        return z.sum(), np.float64(z.shape[0])

    x = np.arange(30.0)
    check(f, *[(x, np.int64(n)) for n in (10, 0, 1, 7, 30)])


def test_a_selection_that_shrinks_in_a_staged_for_loop() -> None:
    def f(x):
        z = x * 1.0
        for _ in range(9):
            z = z[z > 0.2] * 1.1
        return z.sum(), np.float64(len(z))

    f1 = check(f, (RNG.random(64),), (RNG.random(64),), (np.zeros(64),))
    staged(f1, RNG.random(64))


def test_an_array_that_grows_in_a_loop() -> None:
    def f(x, n):
        z = x[:3] * 1.0
        for _ in range(n):
            z = np.concatenate((z, z[-2:] * 0.5))
        return z.sum(), np.float64(z.size)

    check(f, *[(np.arange(5.0), np.int64(n)) for n in (0, 1, 6)])


def test_two_arrays_of_run_time_length_swapped_in_a_loop() -> None:
    def f(x, n):
        a, b = x[:n], x[n:]
        i = 0
        while i < 5:
            a, b = b, a * 2.0
            i += 1
        return a.sum() + 10.0 * b.sum(), np.float64(a.size)

    check(f, *[(np.arange(12.0), np.int64(n)) for n in (0, 4, 12)])


def test_nested_loops_each_shrink_their_array() -> None:
    def f(x, n):
        z, s, j = x[:n], 0.0, 0
        while j < 3:
            w, i = z, 0
            while i < 4:
                w = w[1:] + 1.0
                i += 1
            s += w.sum()
            z = z[:-1]
            j += 1
        return s

    check(f, *[(np.arange(20.0), np.int64(n)) for n in (20, 9, 5)])


def test_a_two_dimensional_array_loses_columns() -> None:
    def g(a, n):
        i = 0
        while i < n:
            a = a[:, 1:] - a[:, :-1]
            i += 1
        return a.sum(axis=1), np.float64(a.shape[1])

    check(g, *[(RNG.random((3, 10)), np.int64(n)) for n in (0, 4, 9)])


def test_a_python_range_that_changes_static_sizes_unrolls_and_keeps_them() -> None:
    # unrolled (every size static, so the result can be returned), as before sizes could vary
    def f(a):
        for _ in range(6):
            a = a[:, 1:] - a[:, :-1]
        return a

    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnUnrollWarning)  # (six copies: quietly, issue 39's 64)
        check(f, (RNG.random((3, 10)),))


def test_returning_an_array_whose_size_a_loop_changes_is_refused() -> None:
    def f(a, n):
        i = 0
        while i < n:
            a = a[1:]
            i += 1
        return a

    with pytest.raises(kiln.KilnCompileError, match=r"test_changing_sizes.py:\d+.*a loop that changes it"):
        kiln.function(f)(np.arange(5.0), np.int64(2))


def test_writes_into_an_array_whose_length_changes() -> None:
    def f(x, n):
        z = x[:n].copy()
        i = 0
        while i < 4:
            z[0] += 100.0  # written in place into the carried buffer
            z = z[1:] if z.shape[0] > 1 else z
            i += 1
        return z.sum()

    check(f, *[(np.arange(10.0), np.int64(n)) for n in (10, 2, 1)])


def test_emptied_arrays_keep_looping() -> None:
    def f(x):
        z = x * 1.0
        for i in range(8):
            z = z[z < 3.0 - i]
        return z.sum(), np.float64(len(z))

    check(f, (np.arange(6.0),))


def test_escape_time_loop_with_a_break_on_the_length() -> None:
    # the shape of NumPy's "keep the points that have not escaped" loops: compressed coordinates,
    # a 2-D scatter of the escape step, out= ufuncs on the shrinking array
    def f(c0, n):
        c = c0.copy()
        xi, yi = np.mgrid[0:6, 0:7]
        xi.shape = yi.shape = 42
        steps = np.zeros((6, 7), dtype=np.int64)
        last = np.zeros((6, 7), dtype=np.complex128)
        z = np.zeros(42, np.complex128)
        for i in range(n):
            if not len(z):
                break
            np.multiply(z, z, z)
            np.add(z, c, z)
            out = abs(z) > 2.0
            steps[xi[out], yi[out]] = i + 1
            last[xi[out], yi[out]] = z[out]
            np.logical_not(out, out)
            z = z[out]
            xi, yi = xi[out], yi[out]
            c = c[out]
        return last, steps

    c0 = (RNG.random(42) * 3 - 2) + 1j * (RNG.random(42) * 2.5 - 1.25)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnUnrollWarning)
        f1 = check(f, (c0, 12), (c0, 3), (c0 * 9.0, 12), traces=2)
    staged(f1, c0, 12)  # a loop, not unrolled: np.add(z, c, z) is no set's .add()


# ---------------------------------------------------------------------- staged if


def test_an_if_on_a_tensor_gives_slices_of_two_lengths() -> None:
    def f(x, c):
        z = x[:3] if c > 0 else x[:5]
        return z.sum(), np.float64(z.size)

    check(f, *[(np.arange(8.0), np.int64(c)) for c in (1, -1)])


def test_an_if_in_a_loop_shrinks_on_one_path() -> None:
    def f(x, n):
        z = x[:n].copy()
        i = 0
        while i < n:
            if z[0] > 3:
                z = z[1:]
            else:
                z = z * 2
            i += 1
        return z.sum()

    check(f, *[(np.arange(1.0, 13.0), np.int64(n)) for n in (10, 3)])


# ---------------------------------------------------------------------- x[mask] on such arrays


def test_len_of_a_selection_is_its_count() -> None:
    def f(x):
        return len(x[x > 0]) * 1.0, np.float64(len(x[x > 0]) + 1)

    check(f, (RNG.standard_normal(17),), (np.full(17, -1.0),))


def test_a_selection_of_a_selection_by_the_same_mask() -> None:
    def f(x, y):
        m = x > 0
        return x[m][y[m] > 0].sum(), (x[m] * 2)[y[m] < 0].sum()

    check(f, (RNG.standard_normal(30), RNG.standard_normal(30)))


def test_out_into_a_selection() -> None:
    def f(x):
        s = x[x > 0]
        np.multiply(s, 3.0, out=s)
        np.add(s, 1.0, s)
        return s.sum(), x.sum()  # x itself unchanged: x[mask] is a copy

    check(f, (RNG.standard_normal(25),))


def test_out_into_an_integer_selection_refuses_a_float_result() -> None:
    def f(x):
        s = x[x > 0]
        np.multiply(s, 1.5, out=s)
        return s.sum()

    x = np.arange(-3, 5)
    with pytest.raises(TypeError, match="same_kind") as want:
        f(x.copy())
    with pytest.raises(TypeError, match="same_kind"):
        kiln.function(f)(x)
    assert "Cannot cast ufunc 'multiply' output" in str(want.value)


def test_a_mask_of_another_run_time_length_raises_index_error() -> None:
    def f(x, n, k):
        z = x[:n]
        m = x[:k] > 0
        return z[m].sum()

    f1 = kiln.function(f)
    x = np.arange(1.0, 9.0)
    assert f1(x, np.int64(4), np.int64(4)) == f(x, np.int64(4), np.int64(4))
    with pytest.raises(IndexError, match="boolean index did not match"):
        f(x, np.int64(4), np.int64(3))
    with pytest.raises(IndexError, match=r"test_changing_sizes.py:\d+.*boolean index did not match"):
        f1(x, np.int64(4), np.int64(3))


def test_scatter_of_a_scalar_at_indices_of_run_time_length() -> None:
    def f(x, idx):
        out = np.zeros(12)
        out[idx[x > 0]] = 7.0
        out[idx[x < -1]] += 1.0
        return out

    check(f, (RNG.standard_normal(12), RNG.permutation(12)), (np.full(12, -2.0), np.arange(12)))


# ---------------------------------------------------------------------- .shape and .size as values


def test_shape_and_size_of_a_run_time_length_are_traced_ints() -> None:
    # Tensor.shape has None there; user code reads NumPy's int (np.float64(None) would be NaN)
    def f(x):
        n, m = x.shape
        total = 0.0
        for i in range(x.shape[0]):
            total += x[i, 0] * i
        return np.float64(n) + 0.5 * m, np.float64(x.size), total, np.float64(x[x > 0].shape[0] + x[x > 0].size)

    f1 = kiln.function(f, input_signature=[kiln.TensorSpec([None, 3], "float64")])
    for rows in (0, 1, 5):
        x = RNG.standard_normal((rows, 3))
        for g, w in zip(f1(x), f(x)):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    assert f1.tracing_count == 1


def test_shapes_of_run_time_lengths_compare_when_the_call_runs() -> None:
    def f(x, y):
        if x.shape == y.shape:
            return x.sum() * y.sum()
        return x.sum() - y.sum()

    spec = kiln.TensorSpec([None], "float64")
    f1 = kiln.function(f, input_signature=[spec, spec])
    for a, b in ((np.arange(3.0), np.arange(3.0)), (np.arange(3.0), np.arange(4.0)), (np.ones(0), np.ones(2))):
        assert f1(a, b) == f(a, b)
    assert f1.tracing_count == 1


def test_shape_assignment_and_np_shape_are_left_as_written() -> None:
    def f(x):
        y = x * 2.0
        y.shape = (2, 3)
        return y.sum(axis=0), np.float64(np.shape(x)[0]), np.float64(np.size(y))

    check(f, (np.arange(6.0),))


def test_a_reshape_of_an_array_a_loop_shrinks_is_checked_every_iteration() -> None:
    # checked once before the call (at the first iteration's size), this read past the buffer
    def f(x, n):
        z, w, i = x, x[:6].reshape(2, 3), 0
        while i < n:
            w = z.reshape(2, 3)
            z = z[1:]
            i += 1
        return w.sum()

    f1 = kiln.function(f)
    x = np.arange(6.0)
    assert f1(x, np.int64(1)) == f(x, np.int64(1))
    with pytest.raises(ValueError, match="cannot reshape"):
        f(x, np.int64(2))
    with pytest.raises(ValueError, match=r"test_changing_sizes.py:\d+.*cannot reshape"):
        f1(x, np.int64(2))


def test_a_carried_size_that_follows_a_changing_one_is_not_taken_as_fixed() -> None:
    def f(x, y, n):
        a, b, i = x, y, 0
        while i < n:
            b = a * 2.0
            a = a[1:]
            i += 1
        return b.sum() + 0.5 * b.shape[0], a.sum()

    spec = kiln.TensorSpec([None], "float64")
    f1 = kiln.function(f, input_signature=[spec, spec, kiln.TensorSpec([], "int64")])
    for n in (0, 1, 3):
        x = np.arange(6.0)
        for g, w in zip(f1(x, x.copy(), np.int64(n)), f(x, x.copy(), np.int64(n))):
            assert g == w


def test_constant_indices_into_an_array_a_loop_shrinks_are_checked_when_the_call_runs() -> None:
    # the gather clamped index 5 into the shorter array: a silent wrong answer before
    def f(x, n):
        z, i, s = x, 0, 0.0
        while i < n:
            s += z[np.array([5, 0])].sum()
            z = z[1:]
            i += 1
        return s

    f1 = kiln.function(f)
    x = np.arange(6.0)
    assert f1(x, np.int64(1)) == f(x, np.int64(1))
    with pytest.raises(IndexError):
        f(x, np.int64(2))
    with pytest.raises(IndexError, match=r"test_changing_sizes.py:\d+.*out of bounds for axis 0"):
        f1(x, np.int64(2))


def test_a_constant_index_into_an_axis_of_run_time_length_is_checked_when_the_call_runs() -> None:
    # z[1] of a one-element array read past it before (no check for a constant index)
    def f(x, n):
        z, i, s = x, 0, 0.0
        while i < n:
            s += z[:3].sum() + z[-2:].sum() * 10 + z[1] * 100 + z[-1]
            z = z[2:]
            i += 1
        return s

    f1 = kiln.function(f)
    x = np.arange(7.0)
    for n in (1, 2, 3):
        assert f1(x, np.int64(n)) == f(x, np.int64(n))
    with pytest.raises(IndexError):
        f(x, np.int64(4))
    with pytest.raises(IndexError, match=r"test_changing_sizes.py:\d+.*out of bounds for axis 0"):
        f1(x, np.int64(4))

    g = kiln.function(lambda v: v[2] + v[-3], input_signature=[kiln.TensorSpec([None], "float64")])
    assert g(np.arange(3.0)) == 2.0
    with pytest.raises(IndexError, match="out of bounds"):
        g(np.arange(2.0))


@pytest.mark.parametrize("name, body", [
    ("broadcast_to", lambda z, y: np.broadcast_to(z, (2, 6)).sum()),
    ("vstack", lambda z, y: np.vstack([z, y]).sum()),
    ("column_stack", lambda z, y: np.column_stack([z, y]).sum()),
    ("stack", lambda z, y: np.stack([z, y]).sum()),
    ("where", lambda z, y: np.where(y > 2, z, 0.0).sum()),
    ("dot", lambda z, y: np.dot(z, y)),
])
def test_lengths_that_must_agree_with_an_array_a_loop_shrinks(name: str, body: Callable[..., Any]) -> None:
    # broadcast_to, vstack and column_stack used the first iteration's length unchecked before
    def f(x, y, n):
        z, i, s = x, 0, 0.0
        while i < n:
            s += body(z, y)
            z = z[1:]
            i += 1
        return s

    f1 = kiln.function(f)
    x = np.arange(6.0)
    np.testing.assert_allclose(f1(x, x.copy(), np.int64(1)), f(x, x.copy(), np.int64(1)), rtol=1e-12)
    with pytest.raises(ValueError):
        f(x, x.copy(), np.int64(2))
    with pytest.raises(ValueError, match=r"test_changing_sizes.py:\d+"):
        f1(x, x.copy(), np.int64(2))
