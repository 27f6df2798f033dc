"""Constructs kiln refused though TF's AutoGraph or Numba handle them (issue 40), each compiled
and run eagerly on NumPy with copies of the same arguments: results and arguments must agree
(``test_mutation.check``). What stays refused is refused naming the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from test_mutation import check
from test_python_values import differential

RNG = np.random.default_rng(40)


# ---------------------------------------------------------------------- np.linalg.matrix_power


def matrix_powers(a):
    return (np.linalg.matrix_power(a, 0), np.linalg.matrix_power(a, 1), np.linalg.matrix_power(a, 2),
            np.linalg.matrix_power(a, 3), np.linalg.matrix_power(a, 6), np.linalg.matrix_power(a, 13))


def inverse_powers(a):
    return np.linalg.matrix_power(a, -1), np.linalg.matrix_power(a, -3)


def test_matrix_power_of_a_python_int_exponent() -> None:
    """NumPy's products in NumPy's order: integers exactly, floats to matmul's rounding; 0 is the
    identity in a's dtype, a negative exponent a power of the inverse, stacks of matrices too."""
    check(matrix_powers, RNG.integers(-3, 4, size=(3, 3)))
    check(matrix_powers, np.eye(4) + 0.1 * RNG.standard_normal((4, 4)))
    check(matrix_powers, np.eye(2) + 0.1 * RNG.standard_normal((3, 2, 2)).astype(np.float32))
    check(inverse_powers, np.eye(3) + 0.2 * RNG.standard_normal((3, 3)))


def traced_exponent(a, n):
    return np.linalg.matrix_power(a, int(n[0]))


def test_matrix_power_of_a_traced_exponent_is_refused_with_its_line() -> None:
    with pytest.raises(NotImplementedError, match=r"test_formerly_refused.py:\d+:\d+: np.linalg.matrix_power with an "
                                                  r"exponent known only at run time"):
        kiln.function(traced_exponent)(np.eye(2), np.array([2]))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        kiln.function(lambda a: np.linalg.matrix_power(a, 2))(np.ones((2, 3)))


# ---------------------------------------------------------------------- np.random.shuffle


def shuffle_global(x):
    np.random.shuffle(x)
    return x[0] + 0.0


GENERATOR = kiln.random.Generator(0)


def shuffle_generator(x):
    GENERATOR.shuffle(x)


def test_shuffle_permutes_in_place_and_a_seed_reproduces_it() -> None:
    """Not NumPy's stream (docs/random.md): checked by property. The argument after the call holds
    a permutation of its rows, the result reads the shuffled array, and a seed gives the same order."""
    f, g = kiln.function(shuffle_global), kiln.function(shuffle_generator)
    for x in (np.arange(50.0), RNG.integers(0, 9, size=(20, 3))):
        rows = sorted(map(tuple, x.reshape(len(x), -1)))
        shuffled = []
        for _ in range(3):
            kiln.random.seed(11)
            y = x.copy()
            np.testing.assert_array_equal(f(y), y[0])
            assert sorted(map(tuple, y.reshape(len(x), -1))) == rows and not np.array_equal(y, x)
            shuffled.append(y)
        np.testing.assert_array_equal(shuffled[0], shuffled[1])
        y = x.copy()
        f(y)  # not seeded again: the stream has moved on
        assert not np.array_equal(y, shuffled[0])
    GENERATOR.seed(5)
    y = np.arange(30)
    g(y)
    z = np.arange(30)
    kiln.random.Generator(5).shuffle(z)  # the same seed eagerly gives the same order
    np.testing.assert_array_equal(y, z)
    np.testing.assert_array_equal(np.sort(y), np.arange(30))


# ---------------------------------------------------------------------- lists and tuples of traced scalars


def rows_by_traced_scalars(m):
    i, j = np.argmax(m[:, 0]), np.argmin(m[:, 1])
    picked = m[[i, j]] + m[[j, 0, i], 1:].sum()
    m[[i, j], 0] = -1.0
    m[[j, 2]] += 10.0
    return picked


def tuple_into_slice(grad, x):
    a = x[0] * 2.0
    b = x[1] + x[2]
    grad[:] = a, b
    grad[::-1] = grad[0], grad[1] * 3
    return grad


def tuple_into_int_slice(counts, x):
    counts[1:] = x[0], x[1] * 2, 7  # floats into an int array: truncated, as NumPy casts
    return counts


def test_lists_and_tuples_of_traced_scalars_index_and_assign() -> None:
    """``M[[i, j]]`` (read, written, accumulated) with traced ``i``, ``j`` is one index array;
    ``grad[:] = a, b`` writes the stacked values, cast as NumPy casts a sequence."""
    check(rows_by_traced_scalars, RNG.standard_normal((5, 3)))
    check(tuple_into_slice, np.zeros(2), np.array([1.5, -2.0, 4.25]))
    check(tuple_into_int_slice, np.zeros(4, np.int32), np.array([3.7, -2.6]))


# ---------------------------------------------------------------------- int(x) as a list index


def list_at_traced_index(xs, x):
    k = int(x[0])
    scaled = xs[k] * 2 + xs[-1 - k]
    return scaled, (3, 1, 4)[k], [x[1], x[2], x[0]][k], [True, False, True][k]


def mixed_at_traced_index(x):
    return [1, 2.5, 3][int(x[0])]


def python_and_numpy_at_traced_index(x):
    return [1.5, x[1]][int(x[0])]  # a Python float or a NumPy float64


def write_at_traced_index(xs, x):
    xs[int(x[0])] = 1.0
    return xs


def counts_by_traced_index(x, counts, sums):
    for i in range(x.shape[0]):
        b = int(abs(x[i])) % 3
        counts[b] += 1
        sums[-1 - b] += float(x[i])
    return counts, sums


def write_of_another_type_at_traced_index(xs, x):
    xs[int(x[0])] = x[1]  # a NumPy float64 into a list of Python floats


def test_int_of_a_traced_value_indexes_a_list() -> None:
    """A Python number comes out of a list of Python numbers (a list argument's, constants), a NumPy
    scalar out of a list of NumPy scalars; an index out of range is Python's IndexError when the
    call runs. A write at such an index of a value of the elements' type (``counts[b] += 1``)
    changes the element it names, in the caller's list too (kiln refused it); Python ints and floats
    read at such an index keep each one's type (kiln.frontend.list_kinds); Python and NumPy numbers
    together, and a write of another type, are refused naming the line."""
    differential(list_at_traced_index, ([1.5, 2.5, 4.0], np.array([0.0, 5.0, 6.0])),
                 ([1.5, 2.5, 4.0], np.array([2.9, 5.0, 6.0])), ([1.5, 2.5, 4.0], np.array([-2.0, 5.0, 6.0])))
    with pytest.raises(IndexError):
        kiln.function(list_at_traced_index)([1.5, 2.5, 4.0], np.array([3.0, 5.0, 6.0]))
    differential(mixed_at_traced_index, (np.array([0.0]),), (np.array([1.0]),), (np.array([-1.0]),))
    with pytest.raises(NotImplementedError, match=r"test_formerly_refused.py:\d+:\d+: a list read at an index known "
                                                  r"only at run time holds values of different types"):
        kiln.function(python_and_numpy_at_traced_index)(np.array([1.0, 2.0]))
    differential(write_at_traced_index, ([0.0, 0.0], np.array([1.0])), ([0.0, 0.0], np.array([-2.0])),
                 ([0.0, 0.0], np.array([2.0])), ([0.0, 0.0], np.array([-3.0])), errors=True)
    differential(counts_by_traced_index, (np.array([0.5, 1.5, -2.5, 4.0, 2.0]), [0, 0, 0], [0.0, 0.0, 0.0]))
    with pytest.raises(NotImplementedError, match=r"test_formerly_refused.py:\d+:\d+: `xs\[k\] = \.\.\.` writes a "
                                                  r"Python list at an index known only at run time, and the value is not of"):
        kiln.function(write_of_another_type_at_traced_index)([0.0, 0.0], np.array([1.0, 2.0]))


# ---------------------------------------------------------------------- x[mask] = array, x[mask] in reductions


def mask_gets_arrays(x, y):
    m = x > 0
    x[m] = y[y < 0.5]  # another mask: NumPy's array, whose length must be x's count
    z = np.zeros_like(y)
    z[y > 0] = np.sqrt(y[y > 0]) + x[: np.count_nonzero(y > 0)]
    w = np.full(4, -1.0)
    w[w < 0] = np.array([7.0])  # one value: broadcast to every selected element
    y[y > 0] += np.arange(5.0)  # an in-place operator with an array of the count
    y[y < 0] = [9.0]
    y[y > 4.5] *= x[:2]
    return z, w


def rows_by_mask(a, b):
    m = a[:, 0] > 0
    total, per_column = np.sum(a[m]), np.sum(a[m], axis=0)
    means, top = a[m].mean(axis=0), a[m].max(0)
    per_row = np.mean(a[m], axis=1).sum()  # a length known only at run time, reduced
    a[m] = np.arange(3.0)  # one row for every selected row
    a[~m] = b[b[:, 1] > 0] * 2  # the rows of another mask
    return total, per_column, means, top, per_row


def diff_of_a_traced_slice(x, k):
    n = int(k[0])
    return np.sum(np.diff(x[:n]) ** 2), np.mean(np.diff(x[:n], n=2)), np.std(x[:n])


def masked_diff_returned(x):
    return np.diff(x[x > 0])


def grown_in_a_loop(x, n):
    r = x[:1]
    i = 0
    while i < n:
        r = np.concatenate((r, x[i : i + 1]))
        i += 1
    return r


def test_a_result_of_a_length_known_only_at_run_time_names_the_line_that_made_it() -> None:
    """``np.diff(x[x > 0])`` is returned (in a buffer of its bound, its length beside it); a length
    with no bound (grown by a staged loop) is refused naming the user's line of the op that made it,
    not the line calling the function, where tracing had started."""
    for x in (np.array([1.0, -2.0, 3.0]), np.array([-1.0, 2.0, 3.0, 7.5]), np.array([-1.0])):
        np.testing.assert_array_equal(kiln.function(masked_diff_returned)(x), masked_diff_returned(x))
    line = grown_in_a_loop.__code__.co_firstlineno + 3
    with pytest.raises(kiln.KilnCompileError, match=rf"test_formerly_refused.py:{line}:\d+: grown_in_a_loop: dimension 0 "
                                                    r"of result 0 has a length known only at run time"):
        kiln.function(grown_in_a_loop)(np.arange(5.0), np.int64(3))


def masked_statistics(x):
    m = x > 0
    return (np.std(x[m]), np.var(x[m], ddof=1), np.mean(np.diff(x[m])), np.var(x[m].astype(np.int64)),
            np.average(x[x < 0]), np.sum(np.diff(x[m], n=2) ** 2))


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:Degrees of freedom", "ignore:invalid value")
def test_mask_assignment_of_arrays_and_masked_reductions() -> None:
    """``x[mask] = array`` scatters an array of the count (checked when the call runs); a mask of
    the leading axes selects rows (reduced whole or along the first axis without forming them);
    var, std, average, diff and mean of lengths known only at run time work."""
    x = np.array([1.0, -2.0, 3.0, -4.0, 5.0, 0.5])
    y = np.array([0.25, 0.75, -1.0, 0.1, 2.0, 0.3])
    check(mask_gets_arrays, x, y)
    a = np.array([[1.0, 2.0, 3.0], [-1.0, 5.0, 6.0], [7.0, 8.0, -9.0], [-3.0, 0.5, 2.0]])
    b = np.array([[1.0, 1.0, 1.0], [2.0, -2.0, 2.0], [3.0, 3.0, 3.0], [4.0, -4.0, 4.0]])
    check(rows_by_mask, a, b)
    check(masked_statistics, RNG.standard_normal(40))
    check(masked_statistics, np.array([-1.0, 2.0, 3.5, -0.5, 9.0, 4.0]))
    f = check(diff_of_a_traced_slice, x, np.array([5]))
    for n in (0, 1, 3):
        np.testing.assert_allclose(f(x, np.array([n])), diff_of_a_traced_slice(x, np.array([n])), rtol=1e-12)


def masked_loss(x, v, a):
    y = x * 1.0
    y[x > 0] = v[:3] * 2.0
    m = a[:, 0] > 0
    return np.sum(y * y * v[0]) + np.sum(a[m] ** 2, axis=0).sum() + np.std(a[m])


def test_gradients_through_mask_assignment_and_row_masks() -> None:
    """``kiln.grad`` of the scattered values and of a row selection against central differences."""
    args = (np.array([1.0, -2.0, 3.0, 4.0, -1.0]), np.array([0.5, 1.5, -2.0, 7.0]),
            np.array([[1.0, 2.0], [-1.0, 3.0], [2.0, -4.0]]))
    grads = kiln.grad(masked_loss, argnums=(0, 1, 2))(*args)
    for k, got in enumerate(grads):
        want = np.zeros_like(args[k])
        for i in np.ndindex(args[k].shape):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[k][i] += 1e-6
            down[k][i] -= 1e-6
            want[i] = (masked_loss(*up) - masked_loss(*down)) / 2e-6
        np.testing.assert_allclose(got, want, atol=1e-5)


def mask_gets_wrong_length(x):
    x[x > 0] = np.arange(3.0)


def mask_of_wrong_shape(x, m):
    return np.sum(x[m])


def test_mask_assignment_of_another_length_raises_numpys_error() -> None:
    f = kiln.function(mask_gets_wrong_length)
    for x in (np.array([1.0, -2.0, 3.0, 4.0, 5.0]), np.array([1.0, -2.0, 3.0, -4.0, -5.0])):
        before = x.copy()
        with pytest.raises(ValueError, match=r"test_formerly_refused.py:\d+:\d+: NumPy boolean array indexing "
                                             r"assignment cannot"):
            f(x)
        np.testing.assert_array_equal(x, before)
    y = np.array([1.0, -2.0, 3.0, 4.0, -5.0])
    f(y)
    np.testing.assert_array_equal(y, [0.0, -2.0, 1.0, 2.0, -5.0])
    with pytest.raises(IndexError, match="boolean index did not match indexed array along axis 0; size of axis is 3 "
                                         "but size of corresponding boolean axis is 2"):
        kiln.function(mask_of_wrong_shape)(np.ones((3, 2)), np.array([True, False]) == np.array([True, True]))


# ---------------------------------------------------------------------- arrays of a size known only at run time


def compact_positive(x):
    """Numba's way to keep the positive values: an array of their count, filled in a loop."""
    m = x > 0
    out = np.empty(np.count_nonzero(m))
    k = 0
    for i in range(x.shape[0]):
        if m[i]:
            out[k] = x[i]
            k += 1
    return np.sum(out * out), k, len(out), np.mean(out[:k])


def made_of_masked_lengths(x):
    rows = np.empty((len(x[x > 0]), 2))
    rows[:] = 3.0
    rows[0] = -1.0
    rows[:, 1] = 5.0  # a column of a run-time length: the constant sized by the write
    flags = np.ones(int(x[1]), dtype=bool)
    signs = np.full(np.count_nonzero(x < 0), -0.0)
    return rows.sum(), flags.all(), np.sum(np.signbit(signs)), np.zeros_like(x[x > 0]).sum() + 1


def test_arrays_of_a_size_known_only_at_run_time() -> None:
    """``np.empty`` / ``zeros`` / ``ones`` / ``full`` / ``zeros_like`` of a count or a masked length:
    used inside the function (a result's size must follow from the inputs'); ``len`` of one is an int."""
    x = np.array([1.0, 3.0, -2.0, 3.0, -4.0, 5.0, 7.5])
    differential(compact_positive, (x,))  # exact types: len() and the counter are Python ints
    differential(made_of_masked_lengths, (x,))
    with pytest.raises(ValueError, match=r"test_formerly_refused.py:\d+:\d+: negative dimensions are not allowed"):
        kiln.function(made_of_masked_lengths)(np.array([1.0, -3.0]))
    with pytest.raises(NotImplementedError, match=r"test_formerly_refused.py:\d+:\d+: kiln cannot yet build an array of "
                                                  r"several sizes known only at run time \(shape \(None, None\)\)"):
        kiln.function(two_traced_sizes)(np.array([2.0, 3.0]))


def two_traced_sizes(x):
    return np.zeros((int(x[0]), int(x[1]))).sum()


def shuffle_a_list(x):
    xs = [x[0], x[1]]
    np.random.shuffle(xs)
    return xs[0]


def test_shuffling_a_list_is_refused_with_its_line() -> None:
    with pytest.raises(NotImplementedError, match=r"test_formerly_refused.py:\d+:\d+: kiln.random shuffles arrays in "
                                                  r"place, not a list"):
        kiln.function(shuffle_a_list)(np.array([1.0, 2.0]))


def selection_across_a_staged_loop(x):
    sel = x[x > 0]  # formed as NumPy's array before the loop: a length known only at run time
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            s += sel.mean() + np.mean(sel[1:] * 2.0)
    return s


def test_mean_of_a_formed_selection_in_a_staged_loop() -> None:
    """``graph.reduce "mean"`` had no lowering over a run-time length: the mean is its sum over
    the run-time count."""
    check(selection_across_a_staged_loop, np.array([1.0, -2.0, 3.0, -4.0, 5.0, 0.5]))
    check(selection_across_a_staged_loop, np.array([1.0, -2.0, 3.0, 2.0, 5.0, 0.25]).astype(np.float32))


@kiln.function
def convolutions(x, w, ints, bools):
    return (np.convolve(x, w), np.convolve(x, w, mode="same"), np.convolve(w, x, mode="valid"),
            np.convolve(ints, ints[:3]), np.convolve(bools, bools[:2], mode="same"))


def test_convolve_of_vectors_in_every_mode() -> None:
    rng = np.random.default_rng(7)
    x, w = rng.normal(size=9).astype(np.float32), rng.normal(size=4).astype(np.float32)
    ints, bools = rng.integers(-9, 9, 7), rng.random(6) > 0.5
    for got, want in zip(convolutions(x, w, ints, bools), convolutions.python_function(x, w, ints, bools)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_convolve_of_a_matrix_raises_numpys_error() -> None:
    with pytest.raises(ValueError, match="object too deep for desired array"):
        kiln.function(lambda a: np.convolve(a, a))(np.ones((2, 2)))
