"""Loops over Python iterables of known length whose items are no traced values stay loops (issue 40).

``itertools.repeat(obj, n)``, ``np.ndindex(shape)``, ``itertools.product`` of ranges and a
range's iterator are staged as a counted loop, as a ``for`` over a Python ``range`` is, so the
trace does not grow with the trip count; ``zip`` of tensors whose length is known only at run time
(``zip(*np.where(m))``) is a staged loop over their rows. Each result is checked against the same
Python run eagerly, arguments included.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kiln


def _lines(fn: kiln.Function, *args: object) -> int:
    """How many lines the traced IR has: a proxy for how many ops were traced."""
    return len(fn.get_concrete_function(*args).ir.splitlines())


def _same(fn: kiln.Function, *args: object) -> object:
    """``fn``'s compiled result, checked against Python's (types too) and its arguments after."""
    eager_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn.python_function(*eager_args)
    got = fn(*args)
    _check(got, want)
    for a, b in zip(args, eager_args):
        _check(a, b)
    return got


def _check(got: object, want: object) -> None:
    assert type(got) is type(want)
    if isinstance(want, tuple):
        for g, w in zip(got, want):  # type: ignore[call-overload]
            _check(g, w)
    elif isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape  # type: ignore[attr-defined]
        np.testing.assert_allclose(got, want, rtol=1e-12)
    else:
        assert got == want


def _descent(x, d, mu, epochs):
    f = 2 / len(x)
    y = np.zeros(len(x))
    err = np.zeros(len(x))
    w = np.zeros(2)
    grad = np.empty(2)
    for _ in itertools.repeat(None, epochs):
        err[:] = d - y
        grad[:] = f * np.sum(err), f * np.dot(err, x)
        w += mu * grad
        y = w[0] + w[1] * x
    return w


def test_repeat_is_a_loop_whatever_its_count():
    x = np.linspace(0.0, 2.0, 50)
    d = 3 + 2 * x
    fn = kiln.function(_descent)
    for epochs in (7, 5000):
        _same(fn, x, d, 0.001, epochs)
    assert "graph.while" in fn.get_concrete_function(x, d, 0.001, 5000).ir
    assert _lines(fn, x, d, 0.001, 5000) == _lines(fn, x, d, 0.001, 7)


def test_repeat_of_an_array_gives_that_array_each_time():
    def f(a, n):
        total = np.zeros(3)
        for v in itertools.repeat(a * 2, n):
            total = total + v
        return total

    _same(kiln.function(f), np.array([1.0, 2.0, 3.0]), 40)


def test_repeat_whose_body_appends_runs_as_python():
    def f(a):
        out = []
        for v in itertools.repeat(a, 6):
            out.append(np.sum(v))
        return out[0] + out[5], len(out)

    _same(kiln.function(f), np.array([1.0, 2.5]))


def test_repeat_with_a_traced_break():
    def f(a, n):
        s = 0.0
        for _ in itertools.repeat(None, n):
            s = s + a[0]
            if s > 10:
                break
        return s

    _same(kiln.function(f), np.array([3.0]), 100)


def _wrap(pos, offset, bound):
    return (pos + offset) % bound


def _clamp(pos, offset, bound):
    return min(bound - 1, max(0, pos + offset))


def _local_maxima(data, mode):
    wsize = data.shape
    result = np.ones(data.shape, bool)
    for pos in np.ndindex(data.shape):
        mine = data[pos]
        for offset in np.ndindex(wsize):
            neighbor = tuple(mode(p, o - w // 2, w) for (p, o, w) in zip(pos, offset, wsize))
            result[pos] &= data[neighbor] <= mine
    return result


@pytest.mark.parametrize("mode", [_wrap, _clamp])
def test_ndindex_loops_are_nested_staged_loops(mode):
    def maxima(data):
        return _local_maxima(data, mode)

    fn = kiln.function(maxima)
    rng = np.random.default_rng(0)
    small, large = rng.random((2, 3, 2, 2)), rng.random((5, 4, 3, 2))
    for data in (small, large):
        _same(fn, data)
    assert _lines(fn, large) == _lines(fn, small)  # 14,400 inner iterations are one loop in the trace


def test_ndindex_of_separate_sizes_and_product_of_ranges():
    def f(a):
        out = np.zeros(a.shape)
        for i, j in np.ndindex(a.shape[0], a.shape[1]):
            out[i, j] = a[i, j] * (i + 2 * j)
        acc = 0.0
        for i, j in itertools.product(range(1, a.shape[0], 2), range(a.shape[1] - 1, -1, -1)):
            acc += a[i, j] - j
        return out, acc

    _same(kiln.function(f), np.arange(35.0).reshape(7, 5))


def test_reversed_range_is_a_loop():
    def f(a):
        acc = np.zeros(2)
        for k in reversed(range(len(a))):
            acc = acc * 0.5 + a[k]
        return acc

    fn = kiln.function(f)
    x = np.arange(40.0).reshape(20, 2)
    _same(fn, x)
    assert "graph.while" in fn.get_concrete_function(x).ir


def test_zip_over_where_of_run_time_length():
    def f(c):
        c = c.copy()
        rows, cols = np.where(c < 0)
        for i, j in zip(rows, cols):
            c[i, j] = 1e-6 * (i + j)
        return c

    _same(kiln.function(f), (np.arange(16.0) - 8.0).reshape(4, 4))


def test_zip_stops_at_the_shortest_run_time_length():
    def f(v):
        picked = np.where(v > 0)[0]
        s = 0
        count = 0
        for a, b in zip(picked, picked[1:]):
            s = s + (b - a) * v[a]
            count += 1
        return s, count

    fn = kiln.function(f)
    _same(fn, np.array([1, -2, 3, 4, -5, 6], dtype=np.int64))
    _same(fn, np.array([-1, -2, 7], dtype=np.int64))


def test_iterators_are_used_up_and_a_started_one_keeps_its_place():
    def f(a):
        cells = np.ndindex(a.shape)
        acc = 0.0
        for i, j in cells:
            acc += a[i, j] * (i - j)
        pairs = itertools.product(range(a.shape[0]), range(a.shape[1]))
        first = next(pairs)
        for i, j in pairs:
            acc -= a[i, j]
        return acc, next(cells, None) is None, first

    _same(kiln.function(f), np.arange(12.0).reshape(3, 4))


def test_indices_are_python_ints_that_a_step_rebinds():
    def f(a):
        out = np.zeros((a.shape[0] + 1, a.shape[1]))
        for pos in np.ndindex(a.shape):
            i, j = pos
            i += 1
            out[i, j] = a[pos] + i
        for k in reversed(range(a.shape[0])):
            k += 1
            out[k, 0] += k
        return out

    _same(kiln.function(f), np.arange(12.0).reshape(3, 4))


def test_enumerate_over_run_time_lengths():
    def f(v):
        picked = np.nonzero(v > 0)[0]
        s = 0.0
        for k, p in enumerate(picked, 1):
            s = s + k * v[p]
        for k, (a, b) in enumerate(zip(picked, picked[1:])):
            s = s - k * (b - a)
        for k, p in enumerate(picked):
            s = s + k
        return s

    fn = kiln.function(f)
    _same(fn, np.array([0.5, -1.0, 2.0, 3.0, -4.0, 1.5]))
    _same(fn, np.array([-0.5, -1.0]))


def test_zip_of_a_run_time_length_and_a_static_one():
    def f(v, w):
        s = np.zeros(2)
        for a, row in zip(np.extract(v > 0, v), w):
            s = s + a * row
        return s

    fn = kiln.function(f)
    w = np.arange(8.0).reshape(4, 2)
    for v in (np.array([1.0, -2.0, 3.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), np.array([-1.0])):
        _same(fn, v, w)
