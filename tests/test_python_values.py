"""Python values keep their meaning in a kiln.function (issue 40, docs/python-semantics.md).

Each function runs eagerly in Python/NumPy and compiled on deep copies of the same arguments; the
results must match in type and value, and so must the arguments after the call (a list the
function writes is the caller's list). Each call is repeated, so the cached trace is checked too.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree


def _same_value(got: Any, want: Any, what: str) -> None:
    got_leaves, got_tree = pytree.flatten(got)
    want_leaves, want_tree = pytree.flatten(want)
    assert got_tree == want_tree, (what, got, want)
    for g, w in zip(got_leaves, want_leaves):
        assert type(g) is type(w), (what, got, want)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=what)
        assert np.asarray(g).dtype == np.asarray(w).dtype, (what, got, want)


def differential(fn: Callable[..., Any], *calls: tuple[Any, ...]) -> kiln.Function:
    """Compare ``fn`` compiled with ``fn`` run eagerly, on each call's arguments (copied): results,
    the arguments afterwards, and whether the result is one of the arguments (``return xs``)."""
    compiled = kiln.function(fn)
    for args in calls:
        for _ in range(2):
            eager_args, kiln_args = copy.deepcopy(args), copy.deepcopy(args)
            want = fn(*eager_args)
            got = compiled(*kiln_args)
            _same_value(got, want, f"{fn.__name__} result")
            _same_value(kiln_args, eager_args, f"{fn.__name__} arguments after the call")
            for e, k in zip(eager_args, kiln_args):
                assert (want is e) == (got is k), f"{fn.__name__}: the result is an argument in Python"
    return compiled


# ---------------------------------------------------------------------- list arguments


def put(dst, v):
    dst[1] = v


def put_in_loop(dst, v):
    for i in range(len(dst)):
        dst[i] = v * i


def scale(xs, s):
    for i in range(len(xs)):
        xs[i] = xs[i] * s
    return xs


def dot(xs, ys):
    s = 0.0
    for x, y in zip(xs, ys):
        s += x * y
    return s


def test_write_into_a_list_reaches_the_caller() -> None:
    differential(put, ([0.0, 0.0], 3.0), ([1, 2, 3], 2.5))
    differential(put_in_loop, ([0.0, 0.0, 0.0], 3.0), ([5, 6], 2))


def test_returned_argument_list_is_the_callers_list() -> None:
    differential(scale, ([1.0, 2.0], 2.0), ([1, 2, 3], 3), ([1.5, 2], 2))


def test_list_elements_are_python_numbers() -> None:
    differential(dot, ([1.0, 2.0], [3.0, 4.0]), ([1, 2], [3, 4]), ([1.0 + 1j, 2.0], [3.0, 4.0]))


def test_list_values_keep_one_trace_per_structure() -> None:
    compiled = differential(dot, ([1.0, 2.0], [3.0, 4.0]), ([5.0, 6.0], [7.0, 8.0]))
    assert compiled.tracing_count == 1


def grow_and_swap(xs, x):
    xs.append(float(x.sum()))
    xs[0], xs[1] = xs[1], xs[0]
    return len(xs)


def nested(rows, x):
    rows[0][1] = rows[1][0] + x[0]
    return rows[0]


def in_dict(d, x):
    d["total"] = d["total"] + float(x.sum())
    d["items"][0] = x[1]
    return d


def test_appends_nested_lists_and_dicts() -> None:
    differential(grow_and_swap, ([1.0, 2.0], np.arange(3.0)))
    differential(nested, ([[1.0, 2.0], [3.0, 4.0]], np.array([0.5, 1.5])))
    differential(in_dict, ({"total": 1.0, "items": [0.0, 0.0]}, np.array([2.0, 5.0])))


def list_operators(xs, ys):
    return xs + ys, xs * 2, len(xs), xs[-1], xs[::-1]


def test_list_operators_are_pythons() -> None:
    differential(list_operators, ([1.0, 2.0], [3, 4]))


def array_of_list(xs, x):
    return np.asarray(xs) * x, sum(xs), max(xs)


def test_numpy_of_a_list_argument() -> None:
    differential(array_of_list, ([1.0, 2.0, 3.0], np.array([1.0, 0.5, 2.0])))


def numpy_functions_of_lists(xs, ys, x):
    return np.sum(xs), np.dot(xs, ys), np.sqrt(xs), np.add(xs, ys), x * xs, xs * x


def test_numpy_functions_take_list_arguments_as_numpy_does() -> None:
    differential(numpy_functions_of_lists, ([1.0, 2.0, 4.0], [3, 5, 7], np.array([0.5, 1.0, 2.0])))
