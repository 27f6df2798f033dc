"""Long list arguments of Python numbers of one type (issue 40; kiln.frontend.list_arrays.HeldList):
each is one array argument, so the trace does not grow with the list's length. Each compiled
function is compared with the same Python run eagerly on copies of the same arguments, results and
arguments after the call, Python types included (a list stays a list, a float a Python float)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from python_differential import differential

import kiln
from kiln.frontend.autograph.staging import KilnUnrollWarning


def histogram(data, bins):
    low, high = min(data), max(data)
    counts = [0] * (bins + 1)
    for v in data:
        counts[int(bins * (v - low) / (high - low))] += 1
    counts[-2] += counts[-1]
    counts.pop()
    return counts


def scaled_in_place(xs, factor):
    for i in range(len(xs)):
        xs[i] = xs[i] * factor
    xs[0] = 0.5
    return max(xs)


def int_folds(xs):
    total = 0
    for v in xs:
        total += v * v
    return total, sum(xs), min(xs), max(xs), xs[-1], len(xs)


def returned_as_is(xs):
    xs[3] = xs[2] + xs[1]
    return xs


def edges(image, cols, rows):
    out = list(range(len(image)))
    for i in range(rows):
        out[i * cols] = 255
        out[(i + 1) * cols - 1] = 255
    for y in range(1, rows - 1):
        for x in range(1, cols - 1):
            g = image[x - 1 + y * cols] * 2 - image[x + 1 + y * cols] * 2 + image[x + (y - 1) * cols]
            out[x + y * cols] = 255 - (255 & min(255, max(0, g)))
    return out


def copied(xs):
    ys = list(xs)
    for i in range(len(ys)):
        ys[i] = ys[i] + 1.5
    return ys, max(xs)


def grows(xs, other):
    xs[1] = other  # (a number of another type: the list becomes Python's)
    first = xs[0] + xs[-1]
    xs.append(first)
    xs.reverse()
    xs.insert(3, xs[5])
    return xs, xs.pop(), len(xs)


def range_list_reads(n):
    xs = list(range(n))
    width = xs[3]
    zeros = np.zeros(width)  # (a shape: a Python int while tracing)
    xs.append(len(zeros))
    return xs, width, xs[-2]


def _staged(fn, *calls):
    """``differential`` with no loop unrolled (the list is one array the staged loops read and write)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnUnrollWarning)
        return differential(fn, *calls)


def _same_trace(fn, make_args):
    """The traced IR of ``fn`` on arguments of two lengths is the same size: nothing per element."""
    f = kiln.function(fn)
    small, large = (f.get_concrete_function(*make_args(n)).ir for n in (100, 1000))
    assert len(small.splitlines()) == len(large.splitlines())
    assert abs(len(small) - len(large)) < 500  # (no constant per element either)


def _floats(n):
    return [(i * 1.1 + (i // 7) * 2.3) % 10 for i in range(n)]


def test_a_loop_over_a_long_list_argument_is_one_staged_loop():
    _staged(histogram, (_floats(1000), 10), (_floats(700), 4))
    _same_trace(histogram, lambda n: (_floats(n), 10))


def test_writes_into_a_long_list_argument_reach_the_callers_list_as_floats():
    _staged(scaled_in_place, (_floats(500), 2.0), (_floats(500), 0.25))
    _same_trace(scaled_in_place, lambda n: (_floats(n), 2.0))


def test_a_long_int_list_argument_keeps_python_ints():
    _staged(int_folds, ([i * 3 - 700 for i in range(900)],))
    _same_trace(int_folds, lambda n: ([i * 3 - 700 for i in range(n)],))


def test_a_long_list_argument_returned_is_the_callers_list():
    _staged(returned_as_is, (_floats(300),), ([i - 100 for i in range(300)],))
    _same_trace(returned_as_is, lambda n: (_floats(n),))


def test_a_long_list_the_function_makes_from_a_range_is_written_in_staged_loops():
    cols, rows = 30, 20
    _staged(edges, ([x % 10 + y % 20 for x in range(cols) for y in range(rows)], cols, rows))
    _same_trace(edges, lambda n: ([x % 10 + x // 7 for x in range(n * 10)], n, 10))


def test_a_copy_of_a_long_list_argument_is_its_own_list():
    _staged(copied, (_floats(400),))
    _same_trace(copied, lambda n: (_floats(n),))


def test_a_long_list_argument_whose_length_changes_becomes_pythons_list():
    """Outside staged loops, a write of another type, ``append``, ``reverse``, ``insert`` and ``pop`` make it
    a Python list of its numbers, as before."""
    differential(grows, (_floats(100), 7), ([i % 7 for i in range(200)], 0.5))
    differential(range_list_reads, (100,))  # (the range's numbers, unwritten, are Python's ints)


def sums(xs, ints):
    return sum(xs), sum(xs, 0.25), sum(ints, 0.5), sum(ints)


def test_sum_of_a_long_list_adds_left_to_right_as_python_does():
    """Python's ``sum`` of floats rounds after each addition, from ``start``: not NumPy's pairwise sum."""
    xs = [((i * 7919) % 1000) * 0.1 + (1e15 if i % 97 == 0 else 0.0) for i in range(1000)]
    _staged(sums, (xs, [(i * 31337) % 2**40 * 1021 for i in range(300)]))


def sorted_in_place(xs, a):
    xs.sort()
    ys = [float(a[0]), float(a[1]), 0.5]
    ys.sort(reverse=True)
    return xs, ys, xs[0] + ys[-1]


def test_sort_in_place_sorts_the_callers_list():
    """``xs.sort()`` of a list argument of Python numbers (the caller's list is sorted after the
    call, its items of their type) and of a list of traced numbers, in reverse too."""
    differential(sorted_in_place, ([3.0, -1.5, 2.0, 0.25], np.array([2.0, -4.0])), ([3, 1, 2], np.array([0.5, 0.75])))


def sorted_by_key(xs):
    xs.sort(key=lambda v: np.full(2, v))  # (arrays: no order)
    return xs


def test_sort_with_a_key_that_is_no_number_is_refused_naming_the_line():
    with pytest.raises(NotImplementedError, match=r"test_list_arguments\.py:\d+"):
        kiln.function(sorted_by_key)([3.0, -4.0])


def searched(xs, a):
    ys = [int(a[0]), 5, int(a[1]), 5]
    return (xs.index(float(a[0])), xs.count(float(a[0])), xs.index(2.0), xs.count(3.0), ys.index(5), ys.count(5),
            [1, 2, 3].index(int(a[1])), ys.index(5, 2))


def removed(xs, a):
    xs.remove(float(a[0]))
    xs.sort(key=lambda v: -v)
    return xs


def test_index_count_and_remove_compare_traced_numbers_as_python():
    """``xs.index(v)``, ``xs.count(v)``, ``xs.remove(v)`` where items or ``v`` are traced: Python's
    answers, the caller's list changed by ``remove`` (later items moved down) and by ``sort(key=)``."""
    differential(searched, ([3.0, 2.0, 3.0, 1.0], np.array([3.0, 2.0])), ([3.0, 2.0, 3.0, 1.0], np.array([1.0, 3.0])))
    differential(removed, ([3.0, 2.0, 3.0, 1.0], np.array([3.0])), ([3.0, 2.0, 3.0, 1.0], np.array([1.0])))


def test_a_value_not_in_the_list_raises_when_the_call_runs():
    compiled = kiln.function(lambda xs, a: xs.index(float(a[0])))
    assert compiled([1.0, 2.0], np.array([2.0])) == 1
    with pytest.raises(ValueError, match=r"test_list_arguments\.py:\d+.*is not in list"):
        compiled([1.0, 2.0], np.array([5.0]))
