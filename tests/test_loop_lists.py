"""Python lists of numbers written inside staged loops (issue 40): a list that keeps its length is
carried through a ``while`` on array data as the loop's state (kiln.frontend.autograph.loop_lists),
so the list after the call, the caller's too, holds what Python leaves in it; a length that changes
with the data is refused naming the statement. Each function is checked against its eager run."""

from __future__ import annotations

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
