"""Rectangular lists of lists of Python numbers read and written at staged indices (issue 40;
kiln.frontend.list_arrays): each compiled function is compared with the same Python run eagerly
on copies of the same arguments, results and arguments after the call, Python types included."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from python_differential import differential

import kiln
from kiln.frontend.autograph.staging import KilnUnrollWarning


def matrix_product(a, b):
    out = [[0 for _ in range(len(b[0]))] for _ in range(len(a))]
    for i in range(len(a)):
        for j in range(len(b[0])):
            r = 0
            for k in range(len(b)):
                r += a[i][k] * b[k][j]
            out[i][j] = r
    return out


def distances(x):
    n = len(x)
    d = [[0 for _ in range(n)] for _ in range(n)]
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(len(x[0])):
                t = x[i][k] - x[j][k]
                s += t * t
            d[i][j] = math.sqrt(s)
    return d


def near_sums(points, limit, n):
    grid = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            s = 0
            for p in points:
                if abs(p[0] - i) + abs(p[1] - j) < limit:
                    s += p[2]
            grid[i][j] = s
    return grid


def correlate(imgs, filters):
    n, rows, width = len(imgs), len(imgs[0]), len(filters[0])
    out = [[[0 for _ in range(rows - width + 1)] for _ in range(len(filters))] for _ in range(n)]
    for a in range(n):
        for r in range(rows - width + 1):
            for f in range(len(filters)):
                for w in range(width):
                    for c in range(len(imgs[0][0])):
                        out[a][f][r] += imgs[a][r + w][c] * filters[f][w][c]
    return out


def _staged(fn, *calls):
    """``differential`` with no loop unrolled (each list is one array the staged loops carry)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnUnrollWarning)
        return differential(fn, *calls)


def test_lists_of_lists_read_and_written_at_staged_indices():
    a = [[float(i + 2 * j) for i in range(7)] for j in range(6)]
    b = [[float(i - j) for i in range(5)] for j in range(7)]
    _staged(matrix_product, (a, b), ([[1.5] * 6 for _ in range(6)], [[2.0] * 6 for _ in range(6)]))
    ints = [[i + j for i in range(6)] for j in range(6)]
    _staged(matrix_product, (ints, [[i * j for i in range(6)] for j in range(6)]))
    _staged(distances, ([[i / 10.0 + j for i in range(9)] for j in range(8)],))


def test_each_element_keeps_its_python_type():
    """An int list written with floats at some indices only holds ints and floats, as Python's."""
    points = [[float(i % 7), float(i % 5), i / 4.0] for i in range(9)]
    _staged(near_sums, (points, 2.0, 7), (points, 0.5, 6))
    _staged(near_sums, ([[i % 7, i % 5, i] for i in range(9)], 3, 7))  # ints: ints everywhere


def test_four_levels_accumulated_in_place():
    imgs = [[[i + j + k for i in range(3)] for j in range(7)] for k in range(2)]
    filters = [[[i + 2 * j - k for i in range(3)] for j in range(3)] for k in range(5)]
    _staged(correlate, (imgs, filters))
    _staged(correlate, ([[[float(x) for x in row] for row in img] for img in imgs], filters))


def written_through_an_alias(n):
    d = [[0.0] * n for _ in range(n)]
    e = d
    for i in range(n):
        for j in range(n):
            d[i][j] = float(i * j)
    return e, e is d


def a_row_held_elsewhere(n):
    d = [[0.0] * n for _ in range(n)]
    first = d[0]
    for i in range(n):
        d[i][i] = 1.0
    return first, d


def test_identity_and_aliases_are_pythons():
    _staged(written_through_an_alias, (6,))
    differential(a_row_held_elsewhere, (6,))  # (a row held elsewhere: the list stays Python's)


def fill_from_an_array(x):
    n = x.shape[0]
    d = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            d[i][j] = x[j]
    return d


def test_a_numpy_value_in_a_list_of_floats_keeps_pythons_meaning():
    """A NumPy float64 written at a staged index would make the element's type depend on the index:
    the loop runs as Python's, saying so past 64 copies of its body (9 x 9 here)."""
    with pytest.warns(KilnUnrollWarning, match="into a list of floats at an index known only at run time"):
        differential(fill_from_an_array, (np.arange(9.0),))


def grow_a_row(n):
    d = [[0.0] * n for _ in range(n)]
    for i in range(n):
        d[i][0] = 1.0
        d[0].append(float(i))
    return d


def test_a_row_whose_length_changes_stays_a_python_list():
    differential(grow_a_row, (6,))


def test_a_list_argument_of_lists_is_one_argument():
    compiled = kiln.function(matrix_product)
    a = [[float(i) for i in range(6)] for _ in range(6)]
    concrete = compiled.get_concrete_function(a, a)
    assert concrete.ir.count("tensor<6x6xf64>") >= 2
    assert "tensor<6xf64>, %" not in concrete.ir.split("{", 1)[0]


def scale_rows(x, s):
    for i in range(len(x)):
        for j in range(len(x[0])):
            x[i][j] = x[i][j] * s
    return x


def test_writes_into_an_argument_list_of_lists_reach_the_caller():
    """An argument's row read at a traced index is a read-only view: the loop runs as Python's
    and the writes reach the caller's lists, which the function returns (saying so past 64 copies)."""
    with pytest.warns(KilnUnrollWarning, match="a row read at an index known only at run time from an argument list"):
        differential(scale_rows, ([[float(i + j) for i in range(2)] for j in range(65)], 0.5))


def row_sums_after(n):
    d = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            d[i][j] = float(i + j)
    return [sum(row) for row in d if row], [max(d[1]), d[2][::-1], len(d[3])], np.sum(d[1])


def test_rows_after_the_loop_are_python_lists():
    _staged(row_sums_after, (6,))


def test_another_shape_retraces_saying_so():
    compiled = kiln.function(matrix_product)
    compiled([[1.0, 2.0]], [[3.0], [4.0]])
    compiled([[1.0, 2.0, 3.0]], [[3.0], [4.0], [5.0]])
    assert "1x2 list of lists of Python floats" in compiled.retrace_reasons[-1]
    assert "1x3 list of lists of Python floats" in compiled.retrace_reasons[-1]
