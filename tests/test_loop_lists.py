"""Python lists of numbers written inside staged loops (issue 40): a list that keeps its length is
carried through a ``while`` on array data as the loop's state (kiln.frontend.autograph.loop_lists),
so the list after the call, the caller's too, holds what Python leaves in it; a length that changes
with the data is refused naming the statement. Each function is checked against its eager run."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from python_differential import differential

import kiln


def insertion_sort(xs):
    for i in range(1, len(xs)):
        save = xs[i]
        j = i
        while j > 0 and xs[j - 1] > save:
            xs[j] = xs[j - 1]
            j -= 1
        xs[j] = save


def test_a_list_written_in_a_staged_while_is_carried() -> None:
    differential(insertion_sort, ([1.3, 5.6, -34.4, 34.4, 32.5, 1.2, 0.0, 3.4, 1.3],), ([2.0, 1.0],), ([7.0],))


def partition(xs, start, end):
    """Hoare-style partition around the last value: nested `while not done` loops that break."""
    pivot = xs[end]
    bottom, top, done = start - 1, end, 0
    while not done:
        while not done:
            bottom = bottom + 1
            if bottom == top:
                done = 1
                break
            if xs[bottom] > pivot:
                xs[top] = xs[bottom]
                break
        while not done:
            top = top - 1
            if top == bottom:
                done = 1
                break
            if xs[top] < pivot:
                xs[bottom] = xs[top]
                break
    xs[top] = pivot
    return top


def test_a_list_written_in_nested_staged_whiles_that_break_is_carried() -> None:
    differential(partition, ([3, 7, 1, 9, 4, 2, 8], 0, 6), ([5, 4, 3, 2, 1], 0, 4), ([0, 1, 2, 3], 1, 3))


def running_maximum(xs, x):
    """A list the function makes, written at a static and a run-time index in a `while` on data."""
    best = [0.0, 0.0, 0.0]
    i = 0
    while i < len(x) and x[i] > -10.0:
        k = int(abs(x[i])) % 3
        best[k] = max(best[k], float(x[i]))
        best[0] += 1.0
        xs[i % 2] = float(x[i])
        i += 1
    return best, i


def test_lists_made_and_taken_written_in_a_staged_while() -> None:
    differential(running_maximum, ([0.0, 0.0], np.array([1.5, 4.25, -20.0, 7.0])),
                 ([1.0, 2.0], np.array([2.5, 0.5, 8.0])))


def write_in_a_staged_loop(xs, x):
    i = 0
    while x[i] > 0:
        if x[i] > 1:
            xs[0] = x[i]
        i += 1
    return xs


def test_a_write_under_an_if_in_a_staged_while_reaches_the_caller() -> None:
    differential(write_in_a_staged_loop, ([0.0], np.array([1.0, 2.0, -1.0])), ([5.0], np.array([0.5, -1.0])))


def append_in_a_staged_while(xs, x):
    i = 0
    while x[i] > 0:
        xs.append(float(x[i]))
        i += 1
    return xs


def test_a_list_whose_length_changes_in_a_staged_while_is_refused_naming_the_line() -> None:
    xs = [1.0]
    with pytest.raises(NotImplementedError, match=r"test_loop_lists.py:\d+: `xs.append\(...\)` changes the length "
                                                  r"of the Python list 'xs' inside a staged `while` loop at "
                                                  r"\S+test_loop_lists.py:\d+"):
        kiln.function(append_in_a_staged_while)(xs, np.array([1.0, 2.0, -1.0]))
    assert xs == [1.0]


def swap(xs, i, j):
    if i != j:
        kept = xs[i]
        xs[i] = xs[j]
        xs[j] = kept


def middle_partition(xs):
    """A partition whose swaps are made by a function that staged `if`s and a staged `while` call."""
    size = len(xs)
    val = xs[size // 2]
    swap(xs, size // 2, size - 1)
    idx, i = size - 2, 0
    while i <= idx:
        if xs[i] > val:
            while xs[idx] > val and idx > i:
                idx = idx - 1
            if idx != i:
                swap(xs, i, idx)
                idx = idx - 1
            else:
                break
        i = i + 1
    swap(xs, i, size - 1)
    return i


def test_a_list_changed_by_a_function_a_staged_if_calls_is_carried() -> None:
    differential(middle_partition, ([5, 2, 9, 1, 7, 3],), ([4, 3, 2, 1],), ([1, 2, 3, 4, 5],))


def sort_range(xs, start, end):
    if start < end:
        split = partition(xs, start, end)
        sort_range(xs, start, split - 1)
        sort_range(xs, split + 1, end)


def test_recursion_under_a_staged_if_is_refused_naming_the_call() -> None:
    """Named: the first recursive call (line and column) and the user's staged `if` around it."""
    source, first = inspect.getsourcelines(sort_range)
    at = {line.strip(): first + n for n, line in enumerate(source)}
    xs = [3, 1, 2]
    with pytest.raises(RecursionError, match=rf"^\S+test_loop_lists.py:{at['sort_range(xs, start, split - 1)']}:9: sort_range "
                                             rf"calls itself inside the staged `if` or loop at "
                                             rf"\S+test_loop_lists.py:{at['if start < end:']},"):
        kiln.function(sort_range)(xs, 0, 2)
    assert xs == [3, 1, 2]


def test_ints_and_floats_moved_in_a_staged_while_keep_each_ones_type() -> None:
    """Each element keeps its Python type as the writes move it (kiln.frontend.list_kinds)."""
    differential(insertion_sort, ([1.3, 5.6, -34.4, 34.4, 32, 1.2, 0, 0.0, 3.4, 1.3],), ([3, 1.5, 2, True],))


def put_at(xs, x):
    k = int(x[0])
    xs[k] = 7
    xs[-1 - k] = xs[k] * 0.5
    return xs[k] + xs[0], xs


def test_an_int_written_at_a_run_time_index_into_floats_stays_an_int() -> None:
    differential(put_at, ([1.5, 2.5, 3.5], np.array([0.0])), ([1.5, 2.5, 3.5], np.array([2.0])),
                 ([1.5, 2.5, 3.5], np.array([5.0])), errors=True)


def test_an_int_beyond_what_a_float64_holds_exactly_raises_when_the_call_runs() -> None:
    with pytest.raises(ValueError, match=r"beyond 2\*\*53"):
        kiln.function(put_at)([2 ** 60, 2.5, 3.5], np.array([1.0]))


def histogram_over_range(x, nbins):
    counts = [0] * nbins
    lo, hi = x.min(), x.max()
    for i in range(x.shape[0]):
        b = int((x[i] - lo) / (hi - lo) * nbins)
        if b == nbins:
            b -= 1
        counts[b] += 1
    return counts


def histogram_over_values(x, nbins):
    counts = [0] * nbins
    for v in x:
        counts[min(int(v * nbins), nbins - 1)] += 1
    return counts


def weighted_counts_enumerated(x, nbins):
    sums = [0] * nbins
    for k, v in enumerate(x):
        sums[int(v * nbins) % nbins] += k
    return sums


def histogram_in_a_counted_while(x, nbins):
    counts = [0.0] * nbins
    i = 0
    while i < len(x):
        counts[int(x[i] * nbins) % nbins] += 1.0
        i += 1
    return counts


@pytest.mark.parametrize("kernel", [histogram_over_range, histogram_over_values, weighted_counts_enumerated,
                                    histogram_in_a_counted_while])
def test_a_list_a_long_python_loop_writes_is_carried_not_unrolled(kernel) -> None:
    """A histogram into a Python list over 2,000 values: the loop (over a range, an array's values,
    their enumeration, or a Python counter) carries the list; it unrolled 2,000 times (more than
    a minute) where it now traces one loop."""
    x = np.random.default_rng(5).random(2000)
    compiled = differential(kernel, (x, 7))
    assert len(compiled.get_concrete_function(x, 7).ir.splitlines()) < 800


def short_loop_moves(x):
    out = [0, 0.5, 2]
    for i in range(40):
        out[i % 3] = out[(i + 1) % 3]
    return out, x[0]


def test_a_short_python_loop_writing_a_list_still_unrolls_with_pythons_types() -> None:
    """40 iterations unroll as before: each element keeps the Python type Python leaves in it."""
    differential(short_loop_moves, (np.ones(2),))


def sieve(n):
    flags = [True] * (n + 1)
    flags[0] = flags[1] = False
    for i in range(2, int(n ** 0.5) + 1):
        if flags[i]:
            for j in range(i * i, n + 1, i):
                flags[j] = False
    return [i for i in range(n + 1) if flags[i]]


def test_a_loop_that_cannot_carry_its_list_unrolls_on_the_list_as_it_was() -> None:
    """The sieve's inner loop, 24 iterations inside 6 unrolled ones, tries to carry ``flags`` (a
    list of bools, which a loop does not carry) and unrolls instead: on the list as it was before the
    try, not on the try's traced values (that was refused: "a value computed inside a ... loop body
    that has ended")."""
    differential(sieve, (50,), (300,))


def table_then_filter(x):
    flags = [False] * 100
    for i in range(100):
        flags[i] = i % 3 == 0
    return [i for i in range(100) if flags[i]], x.sum()


def test_a_carried_list_of_numbers_known_while_tracing_stays_python() -> None:
    differential(table_then_filter, (np.ones(3),))


def seen_buckets(x):
    seen = [False] * 3
    for v in x:
        seen[int(v * 3) % 3] = True
    return seen


def test_a_long_loop_over_values_whose_list_cannot_be_carried_unrolls() -> None:
    """100 values written into a list of bools (which a loop does not carry): the loop unrolls as
    a shorter one does, with a watch of its own (the carrying try's took the list as carried, and
    the loop was staged with the list's writes lost: refused at the return)."""
    differential(seen_buckets, (np.random.default_rng(2).random(100),))


def grow_over_range(x):
    out = np.zeros(0)
    counts = [0, 0]
    for i in range(100):
        out = np.append(out, x[i % 3] * i)
        counts[int(x[i % 3] > 0.5)] += 1
    return out, counts


def grow_in_a_counted_while(x):
    out = np.zeros(0)
    counts = [0, 0]
    i = 0
    while i < 100:
        out = np.append(out, x[i % 3])
        counts[int(x[i % 3] > 0.5)] += 1
        i += 1
    return out, counts


def grow_in_a_counted_while_alone(x):
    out = np.zeros(0)
    i = 0
    while i < 100:
        out = np.append(out, x[i % 3])
        i += 1
    return out


@pytest.mark.parametrize("kernel", [grow_over_range, grow_in_a_counted_while, grow_in_a_counted_while_alone])
def test_a_long_loop_on_python_values_that_grows_an_array_unrolls_with_static_sizes(kernel) -> None:
    """Carrying a long loop's lists does not stage a body that changes an array's static size: the
    loop unrolls, so the result's size stays static and it can be returned (a `while` on a Python
    counter growing an array was refused: "a length known only at run time")."""
    differential(kernel, (np.array([0.25, 0.75, 1.5]),))


def _shuffle_in_place(e, t, t2):
    for _ in range(6):
        e[0] = (e[0] + e[1] + e[2] - e[3]) * t
        e[1] = (e[0] + e[1] - e[2] + e[3]) * t
        e[2] = (e[0] - e[1] + e[2] + e[3]) * t
        e[3] = (-e[0] + e[1] + e[2] + e[3]) / t2


def list_carried_by_two_loops(loopstart):
    t, t2 = 0.499975, 2.0
    e = [1.0, -1.0, -1.0, -1.0]
    for _ in range(1, 12 * loopstart + 1):
        e[0] = (e[0] + e[1] + e[2] - e[3]) * t
        e[1] = (e[0] + e[1] - e[2] + e[3]) * t
        e[2] = (e[0] - e[1] + e[2] + e[3]) * t
        e[3] = (-e[0] + e[1] + e[2] + e[3]) * t
    for _ in range(1, 14 * loopstart + 1):
        _shuffle_in_place(e, t, t2)
    return e


def test_a_list_a_folded_loop_carried_takes_its_numbers() -> None:
    """Pythran's whetstone (stone.py), reduced: a loop on Python numbers that carries a list, all of
    whose results are known while tracing, is folded and taken out of the trace; its variables
    became Python numbers again but the list's items stayed its results, which the next loop used:
    the traced IR failed the verifier. The list's items are Python numbers again too."""
    differential(list_carried_by_two_loops, (2,), (3,))
