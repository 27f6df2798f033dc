"""Results whose length only the data decides (``return x[x > 0.5]``, ``np.nonzero``, a slice
with traced bounds): returned in a buffer of their bound with the length beside it
(graph-bound-results), NumPy's array of the right length and dtype for every call of one
compiled function, checked against NumPy run eagerly on the same data."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend.concrete import KilnCompileError
from test_changing_sizes import check  # one compiled function, NumPy's results and arguments on every call

RNG = np.random.default_rng(2026)


def spread(*shape: int) -> list[np.ndarray]:
    """Data from which a selection keeps some, none and all elements."""
    x = RNG.uniform(0, 1, size=shape)
    return [x, np.zeros(shape), np.ones(shape), 1 - x]


# ---------------------------------------------------------------------- one result


def masked(a, m):
    return a[m > 0.5]


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")  # a trace per dtype, on purpose
def test_masked_selection_of_each_dtype() -> None:
    f = kiln.function(masked)
    for dtype in (np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_, np.complex128):
        before = f.tracing_count
        for m in spread(12):
            a = RNG.integers(0, 9, size=12).astype(dtype)
            got, want = f(a, m), masked(a, m)
            assert (got.dtype, got.shape) == (want.dtype, want.shape)
            np.testing.assert_array_equal(got, want)
        assert f.tracing_count == before + 1  # one compiled function for every length


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: np.nonzero(a > 0.5)[0],
        lambda a: np.flatnonzero(a > 0.5),
        lambda a: np.extract(a > 0.5, a),
        lambda a: np.compress(a > 0.5, a),
        lambda a: a[a > 0.5] * 2.0 + 1.0,
        lambda a: (a[a > 0.5] * 10).astype(np.int32),
        lambda a: a[np.nonzero(a > 0.5)[0]],
    ],
    ids=["nonzero", "flatnonzero", "extract", "compress", "arithmetic", "astype", "gather"],
)
def test_selections_of_a_vector(fn: Callable[..., Any]) -> None:
    check(fn, *[(x,) for x in spread(9)])


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: np.argwhere(m > 0.5),
        lambda m: np.where(m > 0.5)[1],
        lambda m: np.nonzero(m > 0.5),
        lambda m: m[m > 0.5],
        lambda m: np.stack(np.nonzero(m > 0.5), axis=1),
    ],
    ids=["argwhere", "where-1", "nonzero-tuple", "2d-mask", "stacked"],
)
def test_selections_of_a_matrix(fn: Callable[..., Any]) -> None:
    check(fn, *[(m,) for m in spread(3, 4)])


def test_rows_selected_by_a_mask() -> None:
    def by_mask(a, m):
        return a[m > 0.5]

    def by_column(a):
        return a[a[:, 0] > 0.5] * 2

    calls = [(np.arange(18.0).reshape(6, 3), m) for m in spread(6)]
    check(by_mask, *calls)
    check(by_column, *[(a.reshape(5, 2),) for a in spread(10)])


def test_rows_selected_from_a_matrix_of_run_time_rows() -> None:
    @kiln.function(input_signature=[kiln.TensorSpec([None, 3], "float64"), kiln.TensorSpec([None], "bool")])
    def f(a, m):
        return a[m]

    for n in (0, 1, 4, 9):
        a, m = RNG.uniform(size=(n, 3)), RNG.uniform(size=n) > 0.5
        got = f(a, m)
        assert (got.dtype, got.shape) == (a.dtype, a[m].shape)
        np.testing.assert_array_equal(got, a[m])
    assert f.tracing_count == 1


def test_a_selection_a_staged_if_changes() -> None:
    def f(a, c):
        r = a[a > 0.5]
        if c > 0:
            r = r * 2
        return r

    check(f, *[(x, np.float64(c)) for x, c in zip(spread(7), (1.0, -1.0, 1.0, -1.0))])


def test_slices_with_traced_bounds() -> None:
    def f(a, i, j):
        return a[i:j]

    a = np.arange(10.0)
    bounds = [(2, 7), (0, 10), (7, 2), (-3, 10), (4, 4), (-20, 20), (9, -1)]
    check(f, *[(a, np.int64(i), np.int64(j)) for i, j in bounds])


def test_slices_of_rows_and_of_both_axes() -> None:
    def rows(a, i, j):
        return a[i:j, :]

    def both(a, i, j):
        return a[i:j, j - i : 5]

    a = np.arange(30.0).reshape(6, 5)
    calls = [(a, np.int64(i), np.int64(j)) for i, j in [(1, 4), (0, 6), (3, 3), (5, 2), (2, 3)]]
    check(rows, *calls)
    check(both, *calls)


def test_dynamic_input_sizes() -> None:
    @kiln.function(input_signature=[kiln.TensorSpec([None], "float64")])
    def f(a):
        return a[a > 0.5]

    for n in (0, 1, 7, 100):
        x = RNG.uniform(0, 1, size=n)
        got = f(x)
        assert (got.dtype, got.shape) == (x.dtype, x[x > 0.5].shape)
        np.testing.assert_array_equal(got, x[x > 0.5])
    assert f.tracing_count == 1


def test_selections_joined_with_static_pieces() -> None:
    """Run lengths of sorted values (the start of each run, then the end): a concatenation of a
    nonzero's positions with a static piece is bounded by the positions' bound plus its size."""

    def runs(v):
        starts = np.concatenate(([1], np.diff(v)))
        edges = np.concatenate((np.where(starts)[0], [len(v)]))
        return v[edges[:-1]], np.diff(edges)

    def framed(a):
        return np.concatenate((a[:2], a[a > 0.5], np.zeros(3)))

    values = [np.sort(RNG.integers(0, k, size=9)).astype(np.uint32) for k in (1, 3, 20)] + [np.arange(9, dtype=np.uint32)]
    check(runs, *[(v,) for v in values])
    check(framed, *[(x,) for x in spread(8)])


# ---------------------------------------------------------------------- several results


def test_several_dynamic_results_and_a_static_one() -> None:
    def f(a):
        return a[a > 0.5], a.sum(), np.nonzero(a < 0.3)[0], a * 2

    check(f, *[(x,) for x in spread(11)])


def test_results_in_a_structure() -> None:
    def f(a, b):
        return {"big": a[a > b], "count": np.count_nonzero(a > b), "where": [np.nonzero(b > 0.5)[0]]}

    check(f, *[(x, y) for x, y in zip(spread(6), spread(6)[::-1])])


def test_the_same_selection_returned_twice() -> None:
    def f(a):
        r = a[a > 0.5]
        return r, r

    check(f, *[(x,) for x in spread(5)])


def long_chain(x):
    r = np.sort(x[x > 0.5])  # formed: the ops below are on an array of the selected length
    for _ in range(1500):  # unrolled (autograph=False): a chain deeper than Python's recursion limit
        r = r * 1.0
    return r


def test_a_selection_after_a_long_chain_of_ops() -> None:
    f = kiln.function(long_chain, autograph=False)
    for x in spread(6):
        np.testing.assert_array_equal(f(x), long_chain(x))


# ---------------------------------------------------------------------- memory


def test_a_small_result_keeps_no_large_buffer_alive() -> None:
    f = kiln.function(lambda a: a[a > 0.5])
    x = np.zeros(100_000)
    x[[3, 70_000]] = 1.0
    r = f(x)
    np.testing.assert_array_equal(r, [1.0, 1.0])
    assert r.base is None or r.base.nbytes <= 2 * r.nbytes  # a copy, not a view of the 100,000-element bound
    full = f(np.ones(10))
    assert full.flags.c_contiguous and full.shape == (10,)


def test_a_returned_selection_does_not_depend_on_the_arguments_layouts() -> None:
    """x[mask] flattens values, not NumPy's view of the memory: one trace serves strided
    arguments too, and calls keep the fast path (no layout checks per call)."""
    f = kiln.function(masked)
    a, m = RNG.uniform(size=(4, 6)), RNG.uniform(size=(4, 6))
    assert f.get_concrete_function(a, m).layout_arguments == ()
    for x, y in ((a, m), (np.asfortranarray(a), np.asfortranarray(m)), (a[:, ::2], m[:, ::2])):
        got = f(x, y)
        np.testing.assert_array_equal(got, masked(x, y))
    assert f.tracing_count == 2  # one per shape, (4, 6) and (4, 3); none per layout


# ---------------------------------------------------------------------- gradients


def test_gradient_and_selection_returned_together() -> None:
    @kiln.function
    def f(x):
        with kiln.GradientTape() as tape:
            tape.watch(x)
            loss = np.sum(x[x > 0.5] ** 2)
        return tape.gradient(loss, x), x[x > 0.5]

    for x in spread(7):
        grad, kept = f(x)
        np.testing.assert_allclose(grad, np.where(x > 0.5, 2 * x, 0.0), rtol=1e-15)
        np.testing.assert_array_equal(kept, x[x > 0.5])
        assert kept.shape == x[x > 0.5].shape
    assert f.tracing_count == 1


def test_grad_through_a_selection() -> None:
    g = kiln.grad(lambda x: np.sum(np.sin(x[x > 0.5])))
    for x in spread(6):
        np.testing.assert_allclose(g(x), np.where(x > 0.5, np.cos(x), 0.0), rtol=1e-15)


# ---------------------------------------------------------------------- still refused


def test_a_length_with_no_bound_is_refused_with_the_line() -> None:
    def f(n):
        return np.arange(n)  # no input size bounds n

    with pytest.raises(KilnCompileError, match=r"test_dynamic_results.py:\d+.*np.arange with a traced length"):
        kiln.function(f)(np.int64(3))


def test_an_array_a_loop_grows_is_refused_with_the_loop_line() -> None:
    def f(x, n):
        r = x[:0]
        i = 0
        while i < n:  # the line named
            r = np.concatenate((r, x[i : i + 1]))
            i += 1
        return r

    line = f.__code__.co_firstlineno + 3
    with pytest.raises(KilnCompileError, match=rf"test_dynamic_results.py:{line}:.*a loop that changes it"):
        kiln.function(f)(np.arange(5.0), np.int64(3))


def test_cuda_refuses_with_the_line() -> None:
    with pytest.raises(KilnCompileError, match=r"test_dynamic_results.py:\d+:.*target 'c' only, not 'cuda'"):
        kiln.function(lambda a: a[a > 0.5], target="cuda").get_concrete_function(np.ones(4))


# ---------------------------------------------------------------------- a selection is a copy


def selected_then_written(a):
    s = a[a > 0]
    a[0] = 5.0
    return s


def selected_then_scaled(a):
    s = a[a > 0]
    a *= 2
    return s.sum(), s.max(), np.sort(s)


def selected_then_mask_written(a):
    m = a > 0
    s = a[m]
    m[0] = False
    a[2] = 9.0
    return s * 2, s.sum()


def other_selected_then_cleared(a, b):
    s = b[a > 0]
    b[:] = 0
    return s


def selected_then_masked_write(a):
    s = a[a > 0]
    a[a > 0] = -1.0
    return s, a


@pytest.mark.parametrize("fn", [selected_then_written, selected_then_scaled, selected_then_mask_written,
                                other_selected_then_cleared, selected_then_masked_write])
def test_a_selection_is_a_copy_that_later_writes_leave_alone(fn: Callable[..., Any]) -> None:
    """NumPy's ``x[mask]`` is a copy: a write to ``x`` (or to the mask) after it does not show in it.
    kiln's lazy selection read the array's value when it was used, so each of these was a silent
    wrong answer (``s = a[a > 0]; a[0] = 5.0; return s`` gave 5 as s's first value)."""
    a = np.array([0.637, -1.532, 0.87, 1.794, 0.195, -0.838])
    args = (a, a * 3) if fn is other_selected_then_cleared else (a,)
    check(fn, args)


def selected_beside_a_written_argument_and_lists(a, lst, ints):
    kept = np.array([a[i] for i in range(6) if a[i] > 0])
    a[0], a[1] = a[1], a[0]
    return kept, lst[1] + ints[0]


def test_a_result_of_run_time_length_beside_an_argument_the_function_writes() -> None:
    """The written argument is a resource in the traced function; the sizes of the entry's arguments
    were matched to the arrays alone, so with one written before a list argument every call was
    refused ("arguments of shapes (6,), (4,), (3,) do not match"): kiln.fuzz 20710-711 and 20710-2403."""
    a = np.array([0.637, -1.532, 0.87, 1.794, 0.195, -0.838])
    f = kiln.function(selected_beside_a_written_argument_and_lists)
    for x in (a, -a, np.abs(a)):
        want_a, got_a = x.copy(), x.copy()
        want = selected_beside_a_written_argument_and_lists(want_a, [1.0, 0.5, 2.0, 0.0], [-3, 3, -1])
        got = f(got_a, [1.0, 0.5, 2.0, 0.0], [-3, 3, -1])
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1] and type(got[1]) is type(want[1])
        np.testing.assert_array_equal(got_a, want_a)


def primes_below(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            for j in range(i * i, n + 1, i):
                is_prime[j] = False
        i += 1
    return np.nonzero(is_prime)[0]


def test_a_result_of_run_time_length_from_python_values_only() -> None:
    """A sieve whose only argument is a Python int: the entry had no array to unpack and was
    generated as `, = args` (a SyntaxError on the first call)."""
    f = kiln.function(primes_below)
    for n in (50, 2, 97):
        want, got = primes_below(n), f(n)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
