"""NumPy's array-creation functions inside kiln.function make kiln arrays that can be written.

np.eye/identity/tri/arange/linspace/logspace/indices called with Python numbers (and np.linspace
with traced 0-d bounds) return new arrays: writes into them are traced, as NumPy would run them.
Each case is compared with the same function run eagerly (results and arguments).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend.autograph.converters.call_trees import _NUMPY_CREATION
from kiln.frontend.creation import SCALAR_TYPES, TRACED
from test_mutation import check, rand


def eye_written_in_loop(data, m):
    corr = np.eye(m, dtype=data.dtype)
    for i in range(m - 1):
        corr[i + 1:m, i] = corr[i, i + 1:m] = data[:, i] @ data[:, i + 1:m]
    return corr


def eye_forms(x):
    return np.eye(3) * x[0], np.eye(3, 4, k=1, dtype=np.int32), np.eye(4, 2, k=-1, dtype=bool), np.identity(2) + x[1]


def tri_forms(x):
    t = np.tri(4, 3, k=-1)
    t[0, 0] = x[0]
    return t, np.tri(3, dtype=np.int64), np.tri(2, 5, 2)


def arange_written(x):
    a = np.arange(6.0)
    a[2:4] = x[:2]
    a[a > 3] *= 2
    return a, np.arange(1, 10, 3, dtype=np.int32) + 1


def linspace_of_python_numbers(x):
    grid = np.linspace(-1.0, 1.0, 5)
    grid[0] = x[0]
    return grid, np.linspace(0, 1, 4, endpoint=False), np.logspace(0, 2, 3), np.linspace(2, 3, 1)


def linspace_of_traced_bounds(x):
    return (
        np.linspace(x.min(), x.max(), 7),
        np.linspace(x[0], x[1], 4, endpoint=False),
        np.linspace(0.0, x[2], 3, dtype=np.float32),
        np.linspace(x[0], x[0], 1),
    )


def linspace_retstep(x):
    samples, step = np.linspace(x[0], x[1], 5, retstep=True)
    return samples, step


def complex_grid_masked(n):
    xs = np.linspace(-2.0, 0.5, n)
    ys = np.linspace(-1.0, 1.0, n)
    c = xs + ys[:, None] * 1j
    z = np.zeros(c.shape, dtype=np.complex128)
    count = np.zeros(c.shape, dtype=np.int64)
    for k in range(6):
        inside = np.less(abs(z), 2.0)
        count[inside] = k
        z[inside] = z[inside] ** 2 + c[inside]
    return z, count


def indices_written(x):
    rows, cols = np.indices((3, 4))
    rows[0, 0] = 9
    return rows * x[0] + cols


@pytest.mark.parametrize("m", [1, 2, 9])
def test_eye_written_in_a_loop(m: int) -> None:
    check(eye_written_in_loop, rand(6, m), m)


@pytest.mark.parametrize("fn", [eye_forms, tri_forms, arange_written, linspace_of_python_numbers, indices_written])
def test_creation_by_python_numbers(fn: Any) -> None:
    check(fn, rand(4))


@pytest.mark.parametrize("fn", [linspace_of_traced_bounds, linspace_retstep])
def test_linspace_of_traced_bounds(fn: Any) -> None:
    check(fn, rand(4))
    check(fn, np.array([1.0, 1.0, 1.0, 1.0]))


def test_complex_grid_with_masked_writes() -> None:
    check(complex_grid_masked, 7)


def test_a_large_eye_is_not_a_large_constant() -> None:
    """np.eye(n) is a comparison of two ranges: the traced IR grows with n, not n * n."""
    def big_eye(x):
        return np.eye(300) @ x

    f = kiln.function(big_eye)
    x = rand(300)
    np.testing.assert_allclose(f(x), x)
    assert len(f.get_concrete_function(x).lowered("graph")) < 20_000  # 300 * 300 doubles would be 720 kB


def traced_size_eye(x, n):
    return np.eye(n) * x


def test_traced_sizes_are_refused_by_name() -> None:
    with pytest.raises(NotImplementedError, match=r"np.eye / np.identity / np.tri with a traced size"):
        kiln.function(traced_size_eye)(rand(2, 2), np.int64(2))

    def traced_indices(x, n):
        return np.indices((n, 2))

    with pytest.raises(NotImplementedError, match=r"np.indices with a traced argument"):
        kiln.function(traced_indices)(rand(2), np.int64(2))


def test_every_traced_creation_function_is_routed_by_autograph() -> None:
    """The call converter leaves library calls as written except these, so the lists agree: the
    creation functions by name, np.random's staged ones (kiln.frontend.random_numbers) by what
    the call names."""
    from kiln.frontend.autograph.converters.call_trees import _staged_random
    from kiln.frontend.random_numbers import STAGED

    staged = {f for f in TRACED if f in STAGED or getattr(f, "__kiln_wrapped__", False)}
    assert {f.__name__ for f in TRACED if f not in SCALAR_TYPES and f not in staged} == set(_NUMPY_CREATION)
    for f in staged:
        assert _staged_random(np, ("random", f.__name__)), f.__name__


# ---------------------------------------------------------------------- arange with traced bounds


def arange_to_traced_stop(x, n):
    return (np.arange(n) * 2.0).sum() + x


def arange_with_step(x, n):
    return np.arange(1, n, 3).sum() + x


def arange_descending(x, n):
    return np.arange(n, 0, -2).sum() + x


def arange_in_staged_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.arange(i, x.shape[0]).sum() * x[i]
    return s


def arange_float_bounds(x, lo):
    return np.arange(lo, 2.5, 0.5).sum() + x


def arange_as_indices(x, n):
    return x[np.arange(n)].sum()


@pytest.mark.parametrize("fn,args", [
    (arange_to_traced_stop, lambda: (rand(3), np.int64(5))),
    (arange_to_traced_stop, lambda: (rand(3), np.int64(-2))),  # empty
    (arange_with_step, lambda: (rand(3), np.int64(11))),
    (arange_descending, lambda: (rand(3), np.int64(9))),
    (arange_in_staged_loop, lambda: (rand(6),)),
    (arange_float_bounds, lambda: (rand(2), np.float64(0.25))),
    (arange_as_indices, lambda: (np.arange(10.0), np.int64(4))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_arange_with_traced_bounds(fn: Any, args: Any) -> None:
    check(fn, *args())


def arange_returned(x, n):
    return np.arange(n)


def arange_traced_step(x, n):
    return np.arange(0, 10, n).sum()


def test_arange_results_of_run_time_length_and_traced_steps_are_refused() -> None:
    with pytest.raises(kiln.KilnCompileError, match=r"test_creation.py:\d+.*known only at run time"):
        kiln.function(arange_returned)(rand(2), np.int64(3))
    with pytest.raises(NotImplementedError, match=r"test_creation.py:\d+.*traced step"):
        kiln.function(arange_traced_step)(rand(2), np.int64(3))


TABLE = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def fill_a_copy_of_a_global(x):
    r = TABLE.copy()
    r[1, 1] = x.sum()
    s = np.copy(TABLE[0])
    s[0] = x[0]
    return r, s


def write_into_numpy_result_of_a_global(x):
    r = np.exp(TABLE)
    r[0, 0] = x.sum()
    return r


def write_into_a_global(x):
    TABLE[0, 0] = x.sum()
    return x


def constant_write_into_numpy_result(x):
    r = np.exp(TABLE)
    r[0, 0] = 1.0
    return x + r[0, 0]


def test_a_copy_of_a_global_array_is_an_array_of_the_function() -> None:
    """`W.copy()` and `np.copy(W)` of a global NumPy array make kiln arrays inside a trace, so the
    function can write traced values into them, as NumPy code does; the global is unchanged."""
    x = np.arange(3.0)
    before = TABLE.copy()
    for got, want in zip(kiln.function(fill_a_copy_of_a_global)(x), fill_a_copy_of_a_global(x)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(TABLE, before)


@pytest.mark.parametrize("fn", [write_into_numpy_result_of_a_global, write_into_a_global])
def test_a_traced_value_written_into_a_plain_numpy_array_is_refused_clearly(fn: Any) -> None:
    """NumPy's own error here was "setting an array element with a sequence"."""
    with pytest.raises(TypeError, match=r"test_creation\.py:\d+:\d+: this writes a traced value into a NumPy array "
                                        r"that is not one of the function's arrays"):
        kiln.function(fn)(np.arange(3.0))


def test_a_constant_written_into_a_numpy_result_is_plain_numpy() -> None:
    x = np.arange(3.0)
    np.testing.assert_array_equal(kiln.function(constant_write_into_numpy_result)(x), constant_write_into_numpy_result(x))
