"""The positions of nonzero elements (``graph.nonzero``) and what NumPy builds on them:
``np.nonzero``, ``np.flatnonzero``, ``np.argwhere``, ``np.where(cond)``, ``x.nonzero()``,
``np.extract``, ``np.compress`` and ``x[mask]`` formed as an array. Each case runs compiled
and eagerly on NumPy (``check``: results and arguments after the call must agree).

Their lengths are known only at run time, so a function cannot return them: the cases
reduce them, scatter them into arrays of a fixed size (``out[p] = np.cumsum(p)`` pins the
order too) or index with them.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from test_mutation import check, rand

M2 = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


def with_specials(dtype: Any) -> np.ndarray:
    """A 2-D array of ``dtype`` with zeros and (for floats) NaN and -0.0 among other values."""
    if np.dtype(dtype).kind == "b":
        return M2.copy()
    if np.dtype(dtype).kind == "c":
        return np.array([[0, 1j, 0, 2], [0j, -1 + 0j, 0, 3j], [1e-30j, 0, 5, 0]], dtype)
    x = np.array([[0, 1, 0, 2], [0, 7, 0, 3], [4, 0, 5, 0]], np.float64)
    if np.dtype(dtype).kind == "f":
        x[0, 2], x[1, 0] = np.nan, -0.0
    return x.astype(dtype)


# ---------------------------------------------------------------------- flat positions


def flat_positions(x):
    p = np.flatnonzero(x)
    out = np.full(x.size, -1)
    out[p] = np.cumsum(p)
    return out, p.sum(), np.zeros(1, p.dtype)  # the last: p's dtype (int64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int32, np.int64, np.uint8, np.int8,
                                   np.bool_, np.complex128, np.complex64])
def test_flatnonzero_of_every_dtype(dtype: Any) -> None:
    """NaN is nonzero, -0.0 is zero, a complex number is nonzero when either part is."""
    check(flat_positions, with_specials(dtype))


@pytest.mark.parametrize("x", [np.zeros(7), np.ones(7), np.zeros((2, 3), bool), np.ones((2, 3, 2), bool),
                               np.array([np.nan] * 4), np.array([0.0]), np.array([3.0])],
                         ids=["empty", "all", "empty-2d", "all-3d", "all-nan", "one-zero", "one-nonzero"])
def test_flatnonzero_empty_and_full(x: np.ndarray) -> None:
    check(flat_positions, x)


def test_flatnonzero_of_a_long_strided_view() -> None:
    def strided(x):
        return flat_positions(x[::3, 1::2].T)

    check(strided, np.where(rand(300, 41) > 0.5, rand(300, 41), 0.0))


# ---------------------------------------------------------------------- np.nonzero, np.where(cond), argwhere


def indices_1d(x):
    (i,) = np.nonzero(x)
    out = np.full(x.shape, -1)
    out[i] = np.cumsum(i)
    return out, i.sum()


def indices_2d(x):
    i, j = np.nonzero(x)
    out = np.full(x.shape, -1)
    out[i, j] = np.cumsum(i * 100 + j)
    return out, i.sum(), j.sum()


def indices_3d(x):
    i, j, k = np.nonzero(x > 0)
    out = (x * 0).astype(np.int64) - 1  # np.full(x.shape, -1), also for sizes known only at run time
    out[i, j, k] = np.cumsum(i * 10000 + j * 100 + k)
    return out, (i + j + k).sum()


def where_one_argument(x):
    i, j = np.where(x)
    return (i * 100 + j).sum(), np.cumsum(j * 3 + i).sum()


def nonzero_method(x):
    i, j = (x > 0.5).nonzero()
    return (i * 7 + j * 3).sum()


@pytest.mark.parametrize(
    ("fn", "x"),
    [
        (indices_1d, np.array([0.0, 2.0, np.nan, 0.0, -1.0])),
        (indices_1d, np.zeros(4, np.int32)),
        (indices_2d, M2),
        (indices_2d, with_specials(np.float32)),
        (indices_2d, np.ones((3, 5), np.int64)),
        (indices_2d, np.zeros((3, 5), bool)),
        (indices_3d, rand(3, 5, 7)),
        (indices_3d, rand(2, 1, 9)),
        (where_one_argument, with_specials(np.complex128)),
        (nonzero_method, rand(6, 5)),
    ],
)
def test_nonzero_indices_per_axis(fn: Callable[..., Any], x: np.ndarray) -> None:
    check(fn, x)


def test_nonzero_with_sizes_known_only_at_run_time() -> None:
    """Strides from sizes known only when the function runs (``graph.dim``)."""
    f = kiln.function(indices_3d, input_signature=[kiln.TensorSpec([None, None, None], "float64")])
    for x in (rand(3, 5, 7), rand(4, 1, 6), rand(2, 9, 3)):
        for got, want in zip(f(x), indices_3d(x)):
            np.testing.assert_array_equal(got, want)
    assert f.tracing_count == 1


def rows_of_argwhere(x):
    a = np.argwhere(x)
    out = np.full(x.shape, -1)
    out[a[:, 0], a[:, 1]] = np.cumsum(a[:, 0] * 100 + a[:, 1])
    return out, a.sum(axis=0), np.zeros(1, a.dtype)


def argwhere_3d(x):
    a = np.argwhere(x > 0)
    return a.sum(axis=0), np.cumsum((a * np.array([10000, 100, 1])).sum(axis=1)).sum()


def argwhere_0d(x):
    a = np.argwhere(x)  # (1, 0) or (0, 0)
    return a.sum(axis=0), (a.sum(axis=1) + 1).sum()  # the count of rows: 1 or 0


@pytest.mark.parametrize(
    ("fn", "x"),
    [(rows_of_argwhere, M2), (rows_of_argwhere, with_specials(np.float64)), (rows_of_argwhere, np.zeros((2, 2))),
     (argwhere_3d, rand(3, 4, 5)), (argwhere_0d, np.float64(2.0)), (argwhere_0d, np.float64(0.0))],
)
def test_argwhere(fn: Callable[..., Any], x: Any) -> None:
    check(fn, x)


# ---------------------------------------------------------------------- the positions as index arrays


def gather_by_nonzero(x, m):
    return x[np.nonzero(m)].sum(), np.cumsum(x[np.where(m)]).sum()


def zero_by_flatnonzero(y, m):
    y[np.flatnonzero(m)] = 0
    return y.sum()


def add_by_nonzero(x, m):
    x[np.nonzero(m)] += 1.0


def rows_by_nonzero(x, v):
    (i,) = np.nonzero(v > 0)
    return x[i].sum(axis=0), x[:, i].sum(axis=1)


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (gather_by_nonzero, lambda: (rand(4, 5), rand(4, 5) > 0)),
        (gather_by_nonzero, lambda: (rand(4, 5), np.zeros((4, 5), bool))),
        (zero_by_flatnonzero, lambda: (np.arange(12.0).reshape(3, 4).ravel(), rand(12) > 0)),
        (zero_by_flatnonzero, lambda: (np.arange(6), np.array([1, 0, 2, 0, 0, 3]))),
        (add_by_nonzero, lambda: (rand(3, 4), rand(3, 4) > 0)),
        (rows_by_nonzero, lambda: (rand(6, 6), rand(6))),
    ],
)
def test_positions_as_index_arrays(fn: Callable[..., Any], args: Callable[[], tuple[Any, ...]]) -> None:
    check(fn, *args())


# ---------------------------------------------------------------------- x[mask] formed as an array


def sorted_selection(x):
    s = np.sort(x[x > 0])
    return s.sum() + np.cumsum(s).sum()


def selection_2d(x, m):
    s = x[m]
    return np.cumsum(s).sum(), s @ s


def selections_in_a_loop(x, n):
    total = 0.0
    for k in range(n):
        s = np.sort(x[x > k * 0.5])
        total += np.cumsum(s).sum()
    return total


def shrinking_in_a_loop(x, n):
    z = x
    for k in range(n):
        z = z[z > k * 0.25 - 1.0]
    return np.cumsum(z).sum()


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (sorted_selection, lambda: (rand(9),)),
        (sorted_selection, lambda: (-np.ones(5),)),
        (selection_2d, lambda: (rand(3, 4), rand(3, 4) > 0)),
        (selections_in_a_loop, lambda: (rand(20) * 2, np.int64(5))),
        (shrinking_in_a_loop, lambda: (rand(30), np.int64(6))),
    ],
)
def test_masked_selections_formed_as_arrays(fn: Callable[..., Any], args: Callable[[], tuple[Any, ...]]) -> None:
    check(fn, *args())


def selected_squares(x):
    s = x[x > 0]
    return s @ s + (x[np.nonzero(x > 0)] ** 2).sum() + np.extract(x > 0, x).sum()


def test_gradients_flow_through_the_gathered_values() -> None:
    """The positions carry no gradient; the gathered values pass theirs back to their elements."""
    x = np.array([1.0, -2.0, 3.0, 0.5, 0.0])
    np.testing.assert_allclose(kiln.grad(selected_squares)(x), np.where(x > 0, 4 * x + 1, 0.0))


# ---------------------------------------------------------------------- np.extract, np.compress


def extract_sum(c, x):
    e = np.extract(c, x)
    return e.sum(), np.cumsum(e).sum()


def extract_constant(x):
    return np.extract(np.array([[1, 0, 1], [0, 0, 1]]), x)  # a static length: returnable


def compress_axes(c, x):
    return (np.compress(c, x).sum(), np.compress(c[: x.shape[0]], x, axis=0).sum(axis=0),
            np.compress(c[: x.shape[1]], x, axis=1).sum(axis=1), np.cumsum(np.compress(c[: x.shape[1]], x, axis=-1), axis=1).sum(axis=1))


def compress_3d(c, x):
    return np.compress(c, x, axis=1).sum(axis=1), x.compress(c > 0.5, axis=1).sum(axis=1)


def compress_constant(x):
    return np.compress([True, False, True], x, axis=1), np.compress([0, 1], x, axis=0), x.compress([1, 0, 0, 1])


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (extract_sum, lambda: (rand(3, 4) > 0, rand(3, 4))),
        (extract_sum, lambda: (np.array([1.0, np.nan, 0.0, 2.0]), np.arange(4.0))),
        (extract_sum, lambda: (np.array([True, False, True]), rand(2, 4))),  # shorter: the first elements
        (extract_sum, lambda: (np.array([1, 0, 1, 0, 0, 0, 0]), rand(5))),  # longer, zero past the end
        (extract_sum, lambda: (np.zeros(6, bool), rand(6))),
        (extract_constant, lambda: (rand(2, 3),)),
        (compress_axes, lambda: (rand(12) > 0, rand(3, 4))),
        (compress_axes, lambda: (np.ones(12, bool), rand(3, 4))),
        (compress_3d, lambda: (rand(4), rand(2, 4, 3))),
        (compress_3d, lambda: (np.array([0.0, 1.0]), rand(2, 4, 3))),  # shorter: the first slices
        (compress_3d, lambda: (np.array([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]), rand(2, 4, 3))),  # longer, zeros past
        (compress_constant, lambda: (rand(2, 3),)),
    ],
)
def test_extract_and_compress(fn: Callable[..., Any], args: Callable[[], tuple[Any, ...]]) -> None:
    check(fn, *args())


def compress_rows(c, x):
    return np.compress(c, x, axis=0).sum(axis=0)


@pytest.mark.parametrize(
    ("fn", "c", "x", "message"),
    [
        (extract_sum, np.array([1, 0, 0, 0, 0, 1]), np.arange(5.0), "index 5 is out of bounds for axis 0 with size 5"),
        (compress_rows, np.array([0, 1, 0, 1]), rand(3, 2), "index 3 is out of bounds for axis 0 with size 3"),
    ],
)
def test_a_longer_condition_nonzero_past_the_end_raises_numpys_index_error(fn, c, x, message) -> None:
    with pytest.raises(IndexError, match=message):
        fn(c, x)
    f = kiln.function(fn)
    with pytest.raises(IndexError, match=r"test_nonzero.py:\d+.*out of bounds for axis 0 with size"):
        f(c, x)
    zero_tail = c.copy()
    zero_tail[x.shape[0]:] = 0
    np.testing.assert_allclose(f(zero_tail, x), fn(zero_tail, x))  # the same function, in range


def test_extract_of_sizes_known_only_at_run_time_checks_the_positions() -> None:
    spec = [kiln.TensorSpec([None], "int64"), kiln.TensorSpec([None], "float64")]
    f = kiln.function(extract_sum, input_signature=spec)
    for c, x in ((np.array([1, 0, 1, 1]), np.arange(6.0)), (np.array([1, 0, 1, 1, 0, 0, 0]), np.arange(6.0))):
        np.testing.assert_allclose(f(c, x), extract_sum(c, x))
    with pytest.raises(IndexError, match=r"test_nonzero.py:\d+.*out of bounds for axis 0 with size known only at run time"):
        f(np.array([1, 0, 1, 0, 0, 0, 1]), np.arange(6.0))


def compress_constant_too_long(x):
    return np.compress([1, 0, 0, 1], x, axis=1)


def compress_2d_condition(x):
    return np.compress(x > 0, x, axis=0).sum()


def compress_into_out(x):
    return np.compress(x > 0, x, out=x).sum()


@pytest.mark.parametrize(
    ("fn", "error", "message"),
    [
        (compress_constant_too_long, IndexError, "index 3 is out of bounds for axis 1 with size 3"),
        (compress_2d_condition, ValueError, "condition must be a 1-d array"),
    ],
)
def test_compress_raises_numpys_errors_while_tracing(fn: Callable[..., Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        fn(rand(2, 3))
    with pytest.raises(error, match=rf"test_nonzero.py:\d+.*{message}"):
        kiln.function(fn)(rand(2, 3))


# ---------------------------------------------------------------------- refused, with the user's line


def returns_positions(x):
    return np.nonzero(x > 0)[0]


def returns_extracted(x):
    return np.extract(x > 0, x)


def nonzero_0d(x):
    return np.nonzero(x.sum())[0].sum()


def where_with_x_only(x):
    return np.where(x > 0, x)


@pytest.mark.parametrize("fn", [returns_positions, returns_extracted])
def test_results_of_a_run_time_length_are_returned(fn: Callable[..., Any]) -> None:
    """Returned in a buffer of their bound, the length beside it (tests/test_dynamic_results.py)."""
    check(fn, rand(5))


@pytest.mark.parametrize(
    ("fn", "error", "message"),
    [
        (nonzero_0d, ValueError, "Calling nonzero on 0d arrays is not allowed"),
        (where_with_x_only, ValueError, "either both or neither of x and y should be given"),
        (compress_into_out, NotImplementedError, r"np.compress\(..., out=\) is not supported"),
    ],
)
def test_refused_like_numpy_with_the_line(fn: Callable[..., Any], error: type, message: str) -> None:
    if error is not NotImplementedError:
        with pytest.raises(error, match=message):
            fn(rand(4))
    with pytest.raises(error, match=rf"test_nonzero.py:\d+.*{message}"):
        kiln.function(fn)(rand(4))


# ---------------------------------------------------------------------- CUDA (compiled, not run)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_source_compiles_with_nvcc(tmp_path: Any) -> None:
    """kernel.nonzero runs in the CUDA host entry point (backends/cuda/host_algorithms.py)."""
    from kiln.backends.cuda.toolchain import nvcc_command, run_nvcc

    source = kiln.function(indices_2d, target="cuda").get_concrete_function(M2).source
    assert "kernel.nonzero: copy the result to the device" in source
    path = tmp_path / "nonzero.cu"
    path.write_text(source)
    run_nvcc(nvcc_command(path, path.with_suffix(".o"), compile_only=True), path)
    assert path.with_suffix(".o").exists()
