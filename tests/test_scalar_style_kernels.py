"""Small kernels in the scalar-loop style of scientific Python written for Numba (issue 40).

Lists of floats as arguments (read, written, returned), Python counters in nested loops under
`if`s on array data, `assert`, `and`/`or`/chained comparisons, `raise` in loops, helpers returning
0 or a NumPy value, `functools.reduce`/`map` with `if`, `list.append`/`remove` under staged `if`s
and dicts of floats. Each runs eagerly in Python/NumPy and compiled on deep copies of the same
arguments: the results must match in value *and* type (an int is not a float, a Python float is
not a NumPy float64, a list is not an ndarray), and so must the arguments after the call, or both
raise the same exception. A construct kiln cannot keep is refused naming the line (see the end).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from python_differential import differential

import kiln


A = np.array([0.5, -1.25, 2.0, 0.75, -0.5, 3.0])
B = np.array([-0.25, 0.0, 1.5, -2.0, 0.25, 0.5])
IMG4 = np.array([[0.0, 3.0, 1.0, 0.5], [4.0, 5.0, 5.0, 1.0], [-1.0, 0.5, 2.5, 3.0], [1.0, 2.0, 0.0, 1.0]])
XS, YS = [0.5, 1.5, -2.0, 4.0], [1.0, -0.5, 0.25, 2.0]


# ---------------------------------------------------------------------- lists of floats


def dot_of_lists(xs, ys):
    s = 0.0
    for x, y in zip(xs, ys):
        s += x * y
    return s


def normalize_in_place(xs):
    total = 0.0
    for v in xs:
        total += abs(v)
    for i in range(len(xs)):
        xs[i] = xs[i] / total
    return xs


def running_mean(xs):
    out = []
    acc = 0.0
    for i, v in enumerate(xs):
        acc += v
        out.append(acc / (i + 1))
    return out


def clip_in_place(xs, a):
    hi = float(np.max(a)) * 0.5
    for i in range(len(xs)):
        if xs[i] > hi:
            xs[i] = hi
        elif xs[i] < -hi:
            xs[i] = -hi


def trapezoid(xs, ys):
    area = 0.0
    for i in range(1, len(xs)):
        area += 0.5 * (xs[i] - xs[i - 1]) * (ys[i] + ys[i - 1])
    return area


def horner(coeffs, a):
    out = np.zeros_like(a)
    for c in coeffs:
        out = out * a + c
    return out, coeffs[0] * 2


def best_of_list(xs):
    best, where = xs[0], 0
    for i in range(1, len(xs)):
        if xs[i] > best:
            best, where = xs[i], i
    return best, where


def bubble_sort(xs):
    n = len(xs)
    for i in range(n):
        for j in range(n - 1 - i):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]
    return xs


def cumulative_product(xs):
    out = [1.0] * len(xs)
    p = 1.0
    for i in range(len(xs)):
        p *= xs[i]
        out[i] = p
    return out


def row_sums(rows):
    return [sum(r) for r in rows], len(rows)


def complex_accumulate(zs, a):
    s = 0j
    for z in zs:
        s += z * 2
    if a[0] > 0:
        s = s + 1
    return s


def rounded_summary(xs):
    return round(xs[0], 2), round(xs[1]), round(xs[2] * 10, 1), sum(xs) / len(xs)


def mean_and_variance(xs):
    n = len(xs)
    mean = sum(xs) / n
    var = 0.0
    for v in xs:
        var += (v - mean) ** 2
    return mean, var / n


@pytest.mark.parametrize("fn, calls", [
    (dot_of_lists, [(XS, YS), ([1, 2, 3], [4, 5, 6]), ([0.5, 2], [1, 1])]),
    (normalize_in_place, [(list(XS),), ([1, -3],)]),
    (running_mean, [(XS,), ([1, 2, 4],)]),
    (clip_in_place, [(list(XS), A), (list(XS), A * 4)]),
    (trapezoid, [(XS, YS), ([0, 1, 2], [1, 1, 1])]),
    (horner, [([1.0, -2.0, 0.5], A), ([2, 0, 1], A)]),
    (best_of_list, [(XS,), ([3.0, 1.0, 2.0],), ([-1.0, -0.5, 4.5],)]),
    (bubble_sort, [(list(XS),), ([3.0, 2.0, 1.0],)]),
    (cumulative_product, [(XS,), ([2, 3, 4],)]),
    (row_sums, [([[1.0, 2.0], [3.5, 4.0]],), ([[1, 2, 3]],)]),
    (complex_accumulate, [([1 + 2j, -0.5j], A), ([1 + 2j, -0.5j], -A)]),
    (mean_and_variance, [(XS,), ([1, 2, 3, 4],)]),
    (rounded_summary, [([1.2345, -4.5, 3.75],), ([2, 3, 4],)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_list_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- counters under ifs on array data


def count_local_maxima(img, t):
    peaks = 0
    for i in range(1, img.shape[0] - 1):
        for j in range(1, img.shape[1] - 1):
            v = img[i, j]
            if v > t and v >= img[i - 1, j] and v >= img[i + 1, j] and v >= img[i, j - 1] and v >= img[i, j + 1]:
                peaks += 1
    return peaks


def signs(a):
    pos = neg = zero = 0
    for i in range(a.shape[0]):
        if a[i] > 0:
            pos += 1
        elif a[i] < 0:
            neg += 1
        else:
            zero += 1
    return pos, neg, zero


def count_in_band(a, lo, hi):
    c = 0
    for i in range(a.shape[0]):
        if lo <= a[i] <= hi and a[i] != 0:
            c += 1
    return c


def any_negative(a):
    found = False
    for i in range(a.shape[0]):
        if a[i] < 0:
            found = True
    return found, not found


def weighted_counter(a, b):
    c = 0.0
    for i in range(a.shape[0]):
        if a[i] > b[i] or b[i] > 1.0:
            c += 0.5
    return c, c * 2


def first_above(a, t):
    for i in range(a.shape[0]):
        if a[i] > t:
            return i
    return -1


def run_length(a):
    i = 0
    while i < a.shape[0] and a[i] > 0:
        i += 1
    return i


def newton_sqrt(a):
    x = 1.0
    it = 0
    while abs(x * x - a[0]) > 1e-12 and it < 60:
        x = 0.5 * (x + a[0] / x)
        it += 1
    return x, it


def flags_of(a):
    flags = []
    for i in range(3):
        flags.append(0 < a[i] < 1)
    return flags


def doubled_or_decremented(a, n):
    acc = 1
    for i in range(n):
        if a[i % 3] > 0:
            acc *= 2
        else:
            acc -= 1
    return acc, acc > 3


def flags_with_or(a):
    flags = [False] * 3
    for i in range(3):
        flags[i] = bool(a[i] > 0) or a[i + 1] < -1
    return flags


def doubled_or_halved(a):
    c = 1
    for i in range(a.shape[0]):
        if a[i] > 0:
            c = c * 2  # an int while every element so far was positive
        else:
            c = c * 0.5  # a float from the first one that was not
    return c, c * 3 - 1, -c, c > 4


def sum_of_positives_from_int_zero(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] if a[i] > 0 else 0  # the int 0 until a positive element makes it a NumPy float
    return s, s * 2, abs(s) + 1


def total_of_an_array(a):
    total = 0
    for v in a:
        total += v  # a NumPy float from the first iteration on: the int 0 where `a` is empty
    return total, total * 2, total > 0


def plain_total(a):
    total = 0
    for v in a:
        total += v  # (kiln returned np.float64(0.0) for an empty `a`)
    return total


def total_of_the_first(a, n):
    total, half = 0, 0
    for i in range(n):
        total += a[i]
        half += 0.5
    return total, half, total - half


@pytest.mark.parametrize("fn, calls", [
    (plain_total, [(A,), (A[:0],)]),
    (total_of_an_array, [(A,), (A[:0],), (A.astype(np.float32)[:0],)]),
    (total_of_the_first, [(A, np.array(3)), (A, np.array(0)), (A, np.array(1))]),
    (doubled_or_halved, [(A,), (np.abs(A),), (A[:0],)]),
    (sum_of_positives_from_int_zero, [(A,), (-np.abs(A),), (A.astype(np.float32),), (-np.abs(A).astype(np.float32),)]),
    (doubled_or_decremented, [(A, 4), (-np.abs(A), 4), (A, 0)]),
    (flags_with_or, [(A,), (-np.abs(A),)]),
    (count_local_maxima, [(IMG4, 0.5), (IMG4, 9.0)]),
    (signs, [(B,), (A,)]),
    (count_in_band, [(A, -1.0, 1.0), (B, 0, 2)]),
    (any_negative, [(A,), (np.abs(A),)]),
    (weighted_counter, [(A, B), (A - 10, B - 10)]),
    (first_above, [(A, 1.0), (A, 10.0)]),
    (run_length, [(np.abs(A),), (A,), (-A,)]),
    (newton_sqrt, [(np.array([2.0]),), (np.array([9.0]),)]),
    (flags_of, [(A,), (B,)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_counter_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- checks: assert, raise


def checked_mean(a):
    s = 0.0
    for i in range(a.shape[0]):
        assert a[i] >= -1.0, "value below -1"
        s += a[i]
    return "mean", s / a.shape[0]  # (a str result compared with a tolerance: the checker took it for a number)


def raise_in_loop(a, limit):
    total = 0.0
    for i in range(a.shape[0]):
        if a[i] > limit:
            raise ValueError("value over the limit")
        total += a[i]
    return total


def check_then_python_check(a, n):
    if a[0] > 2.0:
        raise RuntimeError("bad first value")
    if n < 0:
        raise ValueError("negative n")
    return a * n


@pytest.mark.parametrize("fn, calls", [
    (checked_mean, [(A,), (A - 1.0,)]),
    (raise_in_loop, [(A, 5.0), (A, 1.0)]),
    (check_then_python_check, [(A, 2), (A, -1), (A + 2.0, -1)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_check_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- helpers, reduce, map


def _positive_part(v):
    if v > 0:
        return v
    return 0


def sum_of_positive_parts(a):
    s = 0.0
    for i in range(a.shape[0]):
        s = s + _positive_part(a[i])
    return s


def reduce_with_if(xs, a):
    return functools.reduce(lambda acc, v: acc + v if v > a[0] else acc, xs, 0.0)


def map_with_if(xs, a):
    return list(map(lambda v: v * 2 if v > a[0] else 0.0, xs))


def reduce_to_max(xs):
    return functools.reduce(lambda acc, v: max(acc, v), xs, 0)


def map_with_round(xs, a):
    return list(map(lambda v: round(v * a[0], 1) if v > 0 else -1, xs))


def map_of_builtins(xs, a):
    """Builtins passed as callbacks run as their converted calls (``map(float, a)`` was refused:
    "float() needs the value of a traced kiln tensor")."""
    return list(map(float, a)), list(map(int, a * 10)), list(map(max, a, a[::-1])), sum(map(float, xs)), \
        sorted(map(float, a), reverse=True)


@pytest.mark.parametrize("fn, calls", [
    (map_of_builtins, [(XS, A), (XS, -A)]),
    (reduce_to_max, [(XS,), ([-1.5, -2.0],)]),
    (map_with_round, [(XS, A), (XS, -A)]),
    (sum_of_positive_parts, [(A,), (-np.abs(A),)]),
    (reduce_with_if, [(XS, A), (XS, -A)]),
    (map_with_if, [(XS, A), (XS, A - 5)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_helper_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- list methods under staged ifs, dicts


def append_on_both_paths(xs, a):
    if a[0] > 0:
        xs.append(a[1] * 2)
    else:
        xs.append(0.0)
    return xs


def int_on_one_path(xs, a):
    if a[0] > 0:
        xs[0] = 1
    return xs, xs[0] + 0.5


def remove_on_both_paths(xs, a):
    if a[0] > 0:
        xs.remove(xs[0])
    else:
        xs.pop()
    return xs


def append_then_pop_by_data(xs, a):
    xs.append(xs[-1] * 2)
    if a[0] > 0:
        xs.pop(0)
    else:
        xs.pop()
    return xs, len(xs)


def dict_of_extremes(xs, a):
    d = {"lo": 0.0, "hi": 0.0}
    for v in xs:
        d["lo"] = min(d["lo"], v)
        d["hi"] = max(d["hi"], v)
    return d["hi"] - d["lo"] + a[0], d


def dict_of_floats(params, a):
    out = params["scale"] * a + params["shift"]
    hits = params["hits"]
    if a[0] > 0:
        hits = hits + 1.0
    params["hits"] = hits
    params["last"] = float(out[-1])
    return out, params


def dict_written_under_a_staged_if(params, a):
    if a[0] > 0:
        params["hits"] = params["hits"] + 1.0
    return params


def tally_in_a_dict(a):
    d = {"n": 0, "total": 0.0, "seen": []}
    for i in range(4):
        if a[i] > 0:
            d["n"] += 1
            d["total"] = d["total"] + a[i]
            d["seen"].append(i)
        else:
            d["seen"].append(-1)
    return d


def key_set_on_both_paths(params, a):
    if a[0] > 0:
        params["last"] = a[1]
    else:
        params["last"] = 0.0
    return params, len(params)


def doubled_rows(a, out):
    for v in a:
        out.append(v * 2)  # each row, as Python's loop appends it (kiln refused the staged loop)
    return out


def histogram_of_rows(a):
    hist = [0] * 4
    for v in a:
        hist[int(abs(v)) % 4] += 1
    return hist


@pytest.mark.parametrize("fn, calls", [
    (doubled_rows, [(A, []), (IMG4, [1.5])]),
    (histogram_of_rows, [(A,), (B * 3,)]),
    (dict_written_under_a_staged_if, [({"hits": 0.0}, A), ({"hits": 0.0}, -A)]),
    (tally_in_a_dict, [(A,), (-A,), (B,)]),
    (key_set_on_both_paths, [({"scale": 2.0}, A), ({"scale": 2.0}, -A)]),
    (append_on_both_paths, [(list(XS), A), (list(XS), -A)]),
    (remove_on_both_paths, [(list(XS), A), (list(XS), -A)]),
    (int_on_one_path, [(list(XS), A), (list(XS), -A)]),
    (append_then_pop_by_data, [(list(XS), A), (list(XS), -A)]),
    (dict_of_extremes, [(XS, A), ([1.5, 2.0], A)]),
    (dict_of_floats, [({"scale": 2.0, "shift": -1.0, "hits": 0.0, "last": 0.0}, A),
                      ({"scale": 2.0, "shift": -1.0, "hits": 0.0, "last": 0.0}, -A)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_list_method_and_dict_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- refused, naming the line


def key_added_on_one_path(params, a):
    if a[0] > 0:
        params["hits"] = 1
    return params


SEEN: list[Any] = []


def rows_into_a_global_list(a):
    for v in a:
        SEEN.append(v)  # once per trace, not per call: not run as Python's loop
    return a


@pytest.mark.parametrize("fn, args, match", [
    (rows_into_a_global_list, (A,), r"`SEEN.append\(\.\.\.\)` puts a traced value into a Python list, which the function did not make"),
    (key_added_on_one_path, ({"scale": 2.0}, A), r"`params\['hits'\] = \.\.\.` changes the keys of the Python dict 'params' "
                                                 r"inside a staged `if` at .*test_scalar_style_kernels.py:\d+: it has the keys "
                                                 r"\['scale', 'hits'\] after the `if` branch and \['scale'\] after the `else` branch"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_kiln_cannot_keep_is_refused_naming_the_line(fn: Callable[..., Any], args: tuple[Any, ...], match: str) -> None:
    """A key added to a dict on one path of a staged `if`: kiln cannot give each path's Python
    value (the dict's keys would be known only per call), so it refuses, naming the line; so it does
    for a global list a loop over an array's rows appends to (left as it was)."""
    with pytest.raises((NotImplementedError, TypeError), match=match) as info:
        kiln.function(fn)(*copy.deepcopy(args))
    assert f"{__file__}:" in str(info.value)
    assert SEEN == []
