"""Python values keep their meaning in a kiln.function (issue 40, docs/python-semantics.md).

Each function runs eagerly in Python/NumPy and compiled on deep copies of the same arguments; the
results must match in type and value, and so must the arguments after the call (a list the
function writes is the caller's list). Each call is repeated, so the cached trace is checked too.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from python_differential import differential, same_value

import kiln


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


def complex_with_array_floats(v):
    z = 0j
    for x in v:
        z = z * (0.5 + 0.5j) + x
    return z, abs(z), 2j * v[0], v[0] * 2j, 1j - v[1], (1 + 1j) / v[2], v[1] + 1j, z ** 2


def test_a_python_complex_with_a_numpy_float64_on_its_right_stays_python() -> None:
    """np.float64 is a Python float subclass, so ``z + x`` of a Python complex ``z`` is Python's
    ``complex.__add__``, a Python complex; ``x + z`` is NumPy's, an np.complex128. np.float32 is
    no float subclass: NumPy's either way (np.complex64)."""
    differential(complex_with_array_floats, (np.array([0.5, -1.25, 2.0]),), (np.array([0.5, -1.25, 2.0], np.float32),),
                 rtol=1e-15)


def complex_carried_by_loops(v):
    z, w = 0j, 1j
    for _ in range(100):  # (a Python range staged as a loop)
        z = z * 0.5 + 1j
    for x in v:  # (a loop over an array's elements)
        w = w * 1j + x
    u = 0j
    for x in v:
        u = u + x * 1.0
    return z, w, u, v[0] * z


def test_a_python_complex_carried_by_a_loop_stays_python() -> None:
    """A loop carries a Python complex as it does a Python int or float: it comes back a Python
    complex (an np.complex128 before), and promotes as one (``float32 * z`` is complex64); where an
    iteration makes it a NumPy scalar (``w * 1j + np.float32``), NumPy's."""
    differential(complex_carried_by_loops, (np.array([0.5, -1.25, 2.0]),), (np.array([0.5, -1.25, 2.0], np.float32),),
                 rtol=1e-6)



def test_abs_of_a_python_complex_is_pythons_hypot() -> None:
    """``abs(z)`` of a Python complex is Python's ``hypot`` of its parts (1.8027756377319946 for
    1.5+1j), and so is ``abs`` of an np.complex128 scalar, where the ``np.abs`` ufunc gives
    1.8027756377319948: kiln gave the ufunc's for all three."""
    compiled = kiln.function(lambda a: (abs(complex(float(a[0]), float(a[1]))), abs(a[0] + 1j * a[1]),
                                        np.abs(a[0] + 1j * a[1])))
    for re, im in [(1.5, 1.0), (3.0, 4.0), (1e-300, 3e-300), (-2.5, 0.1), (0.0, -0.0)]:
        z = np.float64(re) + 1j * np.float64(im)
        got, want = compiled(np.array([re, im])), (abs(complex(re, im)), abs(z), np.abs(z))
        assert got == want and [type(g) for g in got] == [float, np.float64, np.float64], (re, im, got, want)

def weakly_promoted(xs, a):
    return a * xs[0], a + xs[1], xs[0] * xs[1]


def test_list_numbers_promote_as_python_numbers() -> None:
    differential(weakly_promoted, ([0.5, 2], np.ones(3, np.float32)), ([3, 4], np.arange(3, dtype=np.int32)))


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


# ---------------------------------------------------------------------- Python numbers on every path


def count_above(img, t):
    count = 0
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            if img[i, j] > t:
                count += 1
    return count


def count_nested(img, t):
    count = 0
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            count += 1
    return count


def zero_or_element(x):
    c = 0
    if x[0] > 0:
        c = x[1]
    return c


def int_to_float_in_loop(x):
    c = 0.0
    for i in range(x.shape[0]):
        if x[i] > 2:
            c = c + 1
    return c


IMG = np.array([[0.0, 3.0, 1.0], [4.0, 2.0, 5.0]])


def test_counter_stays_a_python_int_through_nested_loops() -> None:
    differential(count_above, (IMG, 2.0), (IMG, 9.0))
    differential(count_nested, (IMG, 2.0))


def test_python_number_keeps_its_type_on_every_path() -> None:
    differential(zero_or_element, (np.array([1.0, 2.5]),), (np.array([-1.0, 2.5]),))
    differential(int_to_float_in_loop, (np.arange(6.0),), (np.zeros(3),))


def operators_on_a_number_of_path_dependent_kind(x):
    c = 0.0
    if x[0] > 0.5:
        c += x[1]  # a NumPy float64 on this path, the Python float 0.0 on the other
    return c, c * 2, c + 0.5, -c, abs(c), c > 0, float(c), c * x[2], max(c, 1.0), min(0.5, c)


def counted_in_a_staged_loop(x):
    c = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            c += x[1]
    return c, c * 2, c > 0, max(c, 1.0)


def counted_in_a_staged_while(x, n):
    c = 0
    i = 0
    while i < n:
        if x[i % 3] > 0.5:
            c = c + x[1]
        i += 1
    return c


def kept_or_replaced_in_a_staged_loop(x):
    c = 1.5
    for i in range(x.shape[0]):
        if x[i] > 0:
            c = x[2]
    return c


def test_a_number_of_path_dependent_kind_keeps_it_through_loops_and_operators() -> None:
    """A staged `if` that makes the Python float ``c`` a NumPy float64 on one path only: the loops
    carry its run-time kind, and Python operators on it (and max/min) give a Python number where it
    is one, a NumPy scalar where it is not (kiln gave np.float64 on every path, and a 0-d array for
    `max(c, 1.0)`)."""
    xs = (-np.ones(6),), (np.array([1.0, 2.0, -3.0, 2.0, 0.7, 0.0]),), (np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),)
    differential(operators_on_a_number_of_path_dependent_kind, *xs)
    differential(counted_in_a_staged_loop, *xs)
    differential(kept_or_replaced_in_a_staged_loop, *xs)
    differential(counted_in_a_staged_while, (-np.ones(3), 4), (np.ones(3), 4), (np.ones(3), 0))


def int_or_float_counter(x):
    c = 0
    if x[0] > 0:
        c = c + 0.5
    d = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            d = d + 0.5
    return c, c + 0.5, c / 2, c > 0, d, d * 0.5


def test_a_python_int_on_one_path_and_a_float_on_the_other_keeps_its_type() -> None:
    """``c = 0``, then ``c = c + 0.5`` under an `if` on array data: the path that kept the int
    returns the int 0 (kiln carried one Python float and gave ``0.0``), in a staged loop too, and
    operators on it give Python's type for the path (``c * 2``: an int or a float, computed as a
    float64, the int checked to be exact). One whose dtype depends on the path (``c * int32_array``)
    is refused, and so is ``c // 2``, which floats do not compute exactly on ints."""
    differential(int_or_float_counter, (-np.ones(4),), (np.array([1.0, -1.0, 2.0, 0.0]),))
    differential(lambda x: int_or_float_counter(x)[0] * 2, (-np.ones(4),), (np.ones(4),))
    with pytest.raises(NotImplementedError, match=r"test_python_values.py:\d+:\d+: the dtype of np.multiply depends on the path"):
        kiln.function(lambda x: int_or_float_counter(x)[0] * np.ones(2, np.int32))(np.ones(4))
    with pytest.raises(NotImplementedError, match=r"test_python_values.py:\d+:\d+: floor_divide of a Python int whose operand"):
        kiln.function(lambda x: int_or_float_counter(x)[0] // 2)(np.ones(4))


def int_or_float_list_element(a, lst, ints, n):
    if -0.25 <= np.max(a) < 0.25:
        lst[3] = min(ints)  # a traced Python int on this path, a traced float on the other
    else:
        lst[3] += abs(lst[0])
    for _ in range(3):
        if a[0] < -1.0:
            lst[1] = ints[1] + n
    return lst, lst[3] / 2


def int_or_scaled(ints, a):
    c = ints[0]
    if a[0] > 0:
        c = c * 1.5
    return c


def test_a_traced_int_on_one_path_and_a_traced_float_on_the_other() -> None:
    """kiln.fuzz python 16400-63 and 16400-70, reduced: a list element that is a Python int (of the
    list ``ints``) on one path of a staged `if` and a float on the other was refused ("an int64
    tensor in the `if` branch but a float64 tensor"); it is carried as the float, the int's path
    giving back the int. An int a float64 cannot hold exactly fails when the call runs, naming the line."""
    a = np.array([0.1, 0.2, -0.1])
    differential(int_or_float_list_element, (a, [-1.5, -1.75, 1.0, 1.5], [-3, 0, 7], 2),
                 (a - 2, [-1.5, -1.75, 1.0, 1.5], [-3, 0, 7], 2), (a + 1, [0.5, 1.5, 2.5, 3.5], [4, 5, 6], 0))
    differential(int_or_scaled, ([7, 1], -np.ones(2)), ([7, 1], np.ones(2)), ([2**60, 1], np.ones(2)))
    with pytest.raises(ValueError, match=r"test_python_values.py:\d+:\d+: the Python int is beyond what a float64 holds"):
        kiln.function(int_or_scaled)([2**60 + 1, 1], -np.ones(2))


def int_into_a_list_of_floats(lst, ints):
    lst[0] = ints[0]
    least = min(lst)  # the int or a float, as the call's values say
    return lst, least, least * 2, max(lst) + ints[1], abs(least), least ** 2, least % 3, least / 2, -least


def int_or_float_by_data(lst, ints, a):
    c = ints[0]
    if a[0] > 0:
        c = lst[0]
    return c * 2


def test_an_int_in_a_list_of_floats_stays_an_int() -> None:
    """``lst[0] = ints[0]`` puts a Python int into a list of floats: where `min(lst)` is that int,
    Python's `*`, `abs`, `**`, `%` and `-` of it are ints (kiln gave floats: the operators on the
    per-call kind of `min`'s result took the float64 it is carried as). ``c * 2``, ``c`` a traced
    int on one path and a float on the other, is the int or the float; an int beyond 2**53 fails
    when the call runs, naming the line."""
    differential(int_into_a_list_of_floats, ([1.5, 2.5, 3.5], [-7, 2]), ([1.5, -22.5, 3.5], [-7, 2]))
    differential(int_or_float_by_data, ([1.5], [1], np.ones(2)), ([1.5], [3], -np.ones(2)))
    with pytest.raises(ValueError, match=r"test_python_values.py:\d+:\d+: the Python int is beyond what a float64 holds"):
        kiln.function(int_or_float_by_data)([1.5], [2**52 + 1], -np.ones(2))


def _positive_or_zero(x, i):
    if x[i] > 0:
        return x[i]  # a NumPy scalar on this path
    return 0  # the Python number 0 on this one


def sum_of_positive_parts(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + _positive_or_zero(x, i)
    return s


def scaled_by_a_helpers_value(x):
    return x * _positive_or_zero(x, 1), _positive_or_zero(x, 0)


def test_helper_returning_zero_on_one_path_and_a_numpy_value_on_the_other() -> None:
    xs = (np.array([1.5, -2.0, 3.0]),), (np.array([-1.0, 2.0, 0.5]),)
    differential(sum_of_positive_parts, *xs, (np.array([1, -2, 3], dtype=np.int32),))
    differential(scaled_by_a_helpers_value, *xs, (np.array([-1.0, 2.0], dtype=np.float32),))


# ---------------------------------------------------------------------- results kiln cannot return


def returns_function(x):
    return print


def returns_str(x):
    return "done", x * 2


def test_returning_a_str_and_refusing_a_function() -> None:
    differential(returns_str, (np.arange(3.0),))
    with pytest.raises(TypeError, match=r"test_python_values.py:\d+: kiln.function cannot return a builtin_function_or_method"):
        kiln.function(returns_function)(np.arange(3.0))


# ---------------------------------------------------------------------- dict arguments


def weighted(d):
    return d["a"] * 2 + d["b"]


def test_dict_key_order_retraces_saying_so() -> None:
    compiled = differential(weighted, ({"a": np.ones(2), "b": np.zeros(2)},), ({"b": np.zeros(2), "a": np.ones(2)},))
    assert compiled.tracing_count == 2  # iteration follows key order, which the function may see
    assert compiled.retrace_reasons[-1] == "argument `d`: dict key order changed ('a', 'b') → ('b', 'a')"


# ---------------------------------------------------------------------- gradients of an op whose operands are one value


def _central(f: Callable[..., Any], x: np.ndarray, w: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        out[idx] = (f(plus, w) - f(minus, w)) / (2 * eps)
    return out


def scatter_itself(x, w):
    y = x * 1.0
    y[np.array([2, 0, 1])] = y
    return np.sum(y * w)


def add_at_itself(x, w):
    y = x * 1.0
    np.add.at(y, np.array([2, 0, 1]), y)
    return np.sum(y * w)


def row_into_itself(x, w):
    y = x * 1.0
    for i in range(1):
        y[i + 1] = y[i]
    return np.sum(y * w)


SAME_OPERANDS = {
    "scatter": scatter_itself,
    "add.at": add_at_itself,
    "row": row_into_itself,
    "mul": lambda x, w: np.sum(x * x * w),
    "matmul": lambda x, w: np.sum((x.reshape(3, 1) @ x.reshape(1, 3)) * w),
    "where": lambda x, w: np.sum(np.where(x > 0, x, x) * w),
    "maximum": lambda x, w: np.sum(np.maximum(x, x) * w),
    "div": lambda x, w: np.sum(x / x * w + x),
    "power": lambda x, w: np.sum(np.abs(x) ** np.abs(x) * w),
    "hypot": lambda x, w: np.sum(np.hypot(x, x) * w),
    "arctan2": lambda x, w: np.sum(np.arctan2(x, x + 3.0) * w),
    "concatenate": lambda x, w: np.sum(np.concatenate([x, x]) * np.concatenate([w, w * 2])),
}


@pytest.mark.parametrize("name", sorted(SAME_OPERANDS))
def test_gradient_of_an_op_whose_operands_are_one_value(name: str) -> None:
    f = SAME_OPERANDS[name]
    x, w = np.array([0.7, -1.3, 2.1]), np.array([1.0, 2.0, 3.0])
    got = kiln.grad(f)(x, w)
    np.testing.assert_allclose(got, _central(f, x, w), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------- names of the C library


def _named(name: str) -> Callable[..., Any]:
    def fn(x):
        return x * 2 + 1

    fn.__name__ = fn.__qualname__ = name
    return fn


@pytest.mark.parametrize("name", ["pselect", "index", "select", "ffs", "bzero", "alloca", "strsep", "random",
                                  "kiln_take_error", "main"])
def test_functions_named_like_c_library_symbols(name: str) -> None:
    compiled = differential(_named(name), (np.arange(4.0),))
    cf = compiled.concrete_functions()[0]
    assert f"func.func public @{cf.name}(" in cf.ir  # the IR keeps the user's name (made a C identifier)
    assert f" kiln_user_{cf.name}(" in cf.source  # C has kiln's own symbol for it


def _chain(x):
    for _ in range(6):  # more graph ops than graph-inline-calls inlines: the callee stays a C function
        x = np.tanh(x * 1.0001 + 0.5) - x * 0.25 + 0.125
    return x


@pytest.mark.parametrize(("name", "c_name"), [("kiln_take_error", "kiln_user_kiln_take_error_call0"), ("main", "main_call0")])
def test_a_callee_named_like_a_c_or_kiln_symbol_gets_kilns_name(name: str, c_name: str) -> None:
    _chain.__name__ = _chain.__qualname__ = name
    inner = kiln.function(_chain, autograph=False)

    def select(x):
        return inner(x) + inner(x * 2.0)

    compiled = differential(select, (np.linspace(0.0, 1.0, 8),))
    cf = compiled.concrete_functions()[0]
    assert f"func.func private @{name}_call0(" in cf.ir
    assert f"static void {c_name}(" in cf.source  # kiln's prefix where C or kiln has the name
    assert " kiln_user_select(" in cf.source


# ---------------------------------------------------------------------- what kiln refuses rather than answer wrongly


def write_first(xs, ys):
    xs[0] = ys[0] + 1.0
    return ys[0]


def test_one_list_in_two_places_is_refused_when_written() -> None:
    compiled = kiln.function(write_first)
    xs = [1.0, 2.0]
    with pytest.raises(TypeError, match="passes one list or dict in two places"):
        compiled(xs, xs)
    assert xs == [1.0, 2.0]
    differential(write_first, ([1.0, 2.0], [3.0, 4.0]))  # distinct lists: Python's answer


def write_where_positive(xs, x):
    for i in range(x.shape[0]):
        if x[i] > 0:
            xs[i] = x[i]
    return xs


# ---------------------------------------------------------------------- lists changed under a staged `if`


def append_under_if(x):
    out = [x[0], x[1]]
    if x[2] > 0:
        out.append(x[2] * 2)
    else:
        out.append(-x[2])
    return out


def change_a_list_argument_under_if(xs, x):
    ys = xs
    if x[0] > 0:
        v = xs.pop()
        xs.insert(0, v * 2.0)
        xs[1] = x[1]
    else:
        del xs[0]
        xs.extend([x[1]])
    return ys


def python_numbers_in_a_list_under_if(x):
    counts = [0, 0]
    if x[0] > 0:
        counts[0] += 1
    else:
        counts.remove(0)
        counts.append(2)
    return counts


def kinds_per_path_and_inner_lists(x):
    inner = [1.0]
    rows = [inner, [0]]
    if x[0] > 0:
        rows[1][0] = x[1]
    else:
        rows[1][0] = 3
        inner[0] = x[0]
    inner.append(x[1])
    return rows, rows[0] is inner


def test_lists_changed_under_a_staged_if_keep_pythons_meaning() -> None:
    pos, neg = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 2.0, -3.0])
    differential(append_under_if, (pos,), (neg,))
    differential(change_a_list_argument_under_if, ([1.0, 2.0, 3.0], pos), ([1.0, 2.0, 3.0], neg))
    differential(python_numbers_in_a_list_under_if, (pos,), (neg,))
    differential(kinds_per_path_and_inner_lists, (pos,), (neg,))
    differential(write_where_positive, ([0.0, 0.0], np.array([1.0, -1.0])), ([0.0] * 8, np.arange(8.0) - 3))


def write_after_a_loop_that_may_raise(lst, x):
    k = 0
    while k < 5:
        k += 1
        if x[0] == 1.0:
            raise ValueError("bad x")
    lst[1] *= lst[2]
    return lst


def return_a_changed_list_in_a_tuple(lst, x):
    k = 0
    while k < 5:
        k += 1
        if x[0] == 1.0:
            raise ValueError("bad x")
    lst[0] = x[1]
    return (lst, k), lst


def test_a_list_changed_and_returned_after_a_staged_raise_returns_its_contents() -> None:
    """kiln.fuzz python 15720-107: the code after a loop whose staged ``if`` may raise runs under a
    staged ``if not raised``; a list changed there and returned was read for the result after it
    was put back for the other path (the write was lost from the result: 0.5 for 0.625). The
    result holds the branch's contents, and ``return lst`` is the caller's list, as in Python."""
    x = np.array([0.5, 3.0])
    differential(write_after_a_loop_that_may_raise, ([-1.75, 0.5, 1.25], x))
    differential(return_a_changed_list_in_a_tuple, ([1.0, 2.0], x))
    lst = [-1.75, 0.5, 1.25]
    assert kiln.function(write_after_a_loop_that_may_raise)(lst, x) is lst


def append_on_one_path(xs, x):
    if x[0] > 0:
        xs.append(1.0)
    return xs


def remove_a_traced_value(xs, x):
    if x[0] > 0:
        xs.remove(x[1])
    return xs


SEEN_SIGNS: list[Any] = [0.0]


def write_a_global_list(x):
    if x[0] > 0:
        SEEN_SIGNS[0] = 1.0
    return x


def test_lists_under_a_staged_if_refused_naming_the_lines() -> None:
    with pytest.raises(NotImplementedError, match=r"`SEEN_SIGNS\[0\] = \.\.\.` mutates the Python list 'SEEN_SIGNS'"):
        kiln.function(write_a_global_list)(np.array([1.0]))  # (it would change once per trace, not per call)
    assert SEEN_SIGNS == [0.0]
    compiled = kiln.function(append_on_one_path)
    xs = [1.0]
    line = append_on_one_path.__code__.co_firstlineno
    with pytest.raises(NotImplementedError, match=rf"test_python_values.py:{line + 2}: `xs.append\(\.\.\.\)` changes the "
                       rf"length of the Python list 'xs' inside a staged `if` at \S*test_python_values.py:{line + 1}: "
                       "it holds 2 items after the `if` branch and 1 after the `else` branch"):
        compiled(xs, np.array([1.0]))
    assert xs == [1.0]
    line = remove_a_traced_value.__code__.co_firstlineno
    with pytest.raises(NotImplementedError, match=rf"test_python_values.py:{line + 2}: `xs.remove\(\.\.\.\)` changes the "
                       "length of the Python list 'xs' inside a staged `if`"):  # (remove compares traced values since c69707f)
        kiln.function(remove_a_traced_value)([1.0, 2.0], np.array([1.0, 2.0]))


def mixed(xs):
    xs[0] = xs[1] * 2
    xs[2] = xs[0] + 1
    return xs[0], xs[1], xs[2]


def test_mixed_lists_keep_each_elements_type() -> None:
    differential(mixed, ([1, 2.5, 3],), ([1, 2, 3.5],), ([True, 2, 1j],))


def swap_in_order(xs, x):
    i, j = int(x[0]), int(x[1])
    if xs[i] > xs[j]:
        xs[i], xs[j] = xs[j], xs[i]
    return xs


def bubble_sort(xs):
    for i in range(len(xs)):
        for j in range(len(xs) - 1 - i):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]


def test_a_swap_at_traced_indices_under_a_staged_if_reads_both_before_writing() -> None:
    """`xs[i], xs[j] = xs[j], xs[i]` on a list at traced indices (it raised a TypeError: the
    unpacking wrote the list with Python's own `list[k] = v`)."""
    differential(swap_in_order, ([3.0, 1.0, 2.0], np.array([0.0, 1.0])), ([1, 2.5, 0], np.array([2.0, 0.0])),
                 (np.array([4, 1, 2]), np.array([0.0, 2.0])))
    differential(bubble_sort, ([3, 1.5, 2, 0, 7],), ([2.0, -1.0],))


def swap_rows(m, x):
    i, j = int(x[0]), int(x[1])
    if m[i, 0] > m[j, 0]:
        m[i], m[j] = m[j], m[i]
    return m


def swap_in_rows(a, x):
    k = int(x[0])
    for j in range(len(a)):
        if abs(a[j][k]) > abs(a[j][0]):
            a[j][0], a[j][k] = a[j][k], a[j][0]
    return a


def test_a_swap_of_rows_and_within_rows_at_traced_indices() -> None:
    """An ndarray's rows are views, so NumPy's row swap leaves both rows equal; a list of lists swaps."""
    differential(swap_rows, (np.array([[3.0, 1.0], [1.0, 2.0], [0.0, 5.0]]), np.array([0.0, 2.0])))
    differential(swap_in_rows, ([[1, -5, 2], [4, 3, -6]], np.array([2.0])),
                 ([[1j, 2 + 1j], [3.5j, -1j]], np.array([1.0])))


def unpack_in_order(xs, x):
    i = int(x[0])
    xs[i], i, xs[i] = xs[i] * 2, i + 1, xs[i]
    (xs[i], a), *rest = (xs[0], xs[i]), xs[i], 3
    return xs, i, a, rest


def test_unpacked_targets_are_assigned_left_to_right_after_the_whole_value() -> None:
    """Each target's index is read when it is assigned, after the targets before it (`i` in between)."""
    differential(unpack_in_order, ([1, 2.5, 3], np.array([0.0])), ([1, 2.5, 3], np.array([1.0])))


def long_sum(xs, ys):
    return np.dot(xs, ys) + sum(xs[:3]), xs[-1]


def test_a_long_list_is_one_argument() -> None:
    xs, ys = [float(i) for i in range(500)], [float(i % 7) for i in range(500)]
    compiled = differential(long_sum, (xs, ys))
    assert [spec.shape for spec in compiled.concrete_functions()[0].signature.specs] == [(500,), (500,)]


# ---------------------------------------------------------------------- sizes known only at run time


def sizes_of(x):
    n = x.shape[0]
    return n, n // 2, np.shape(x)[0], np.shape(x), np.size(x), np.size(x, 0), x.size, len(x), x * np.shape(x)[0]


def test_sizes_known_only_at_run_time_are_python_ints() -> None:
    compiled = kiln.function(sizes_of, input_signature=[kiln.TensorSpec([None, 3], "float32")])
    for rows in (2, 5):
        x = np.ones((rows, 3), np.float32)
        same_value(compiled(x), sizes_of(x), "sizes_of")


# ---------------------------------------------------------------------- traced values escaping into Python state


SEEN: list[Any] = []
TOTAL = 0.0
LAST = kiln.Variable(0.0)


class Model:
    """An object a function takes (hashable: a constant of the trace), with Python state of its own."""

    registry: list[Any] = []

    def __init__(self) -> None:
        self.history: list[Any] = []
        self.total = 0.0
        self.table: dict[str, Any] = {}


def appends_to_a_global_in_a_range_loop(m, x):
    for i in range(3):
        SEEN.append(x[i])  # escapes
    return x.sum()


def appends_to_an_arguments_attribute(m, x):
    loss = x.sum()
    m.history.append(loss)  # escapes
    return loss


def sets_an_arguments_attribute(m, x):
    m.last = x[0]  # escapes
    return x


def adds_to_an_arguments_attribute(m, x):
    m.total += x[0]  # escapes
    return x


def writes_a_dict_through_a_local_alias(m, x):
    table = m.table
    table["k"] = x[1]  # escapes
    return x


def unpacks_into_a_dict_through_a_local_alias(m, x):
    table = m.table
    table["a"], table["b"] = x[0], x[1]  # escapes
    return x


def appends_to_a_class_attribute(m, x):
    Model.registry.append([x[0], 1])  # escapes
    return x


def assigns_a_global(m, x):
    global TOTAL
    TOTAL = x[0] * 2  # escapes
    return x


def adds_to_a_global(m, x):
    global TOTAL
    TOTAL += x[0]  # escapes
    return x


def _closures() -> list[Callable[..., Any]]:
    """Functions changing the Python objects and variables of the enclosing function (outside the trace)."""
    seen: dict[str, Any] = {}
    found: set[Any] = set()
    last = 0.0

    def stores_into_a_closures_dict(m, x):
        seen["first"] = x[0]  # escapes
        return x

    def adds_to_a_closures_set(m, x):
        found.add(x[0])  # escapes
        return x

    def assigns_a_nonlocal(m, x):
        nonlocal last
        last = x[0]  # escapes
        return x

    return [stores_into_a_closures_dict, adds_to_a_closures_set, assigns_a_nonlocal]


ESCAPES = [appends_to_a_global_in_a_range_loop, appends_to_an_arguments_attribute, sets_an_arguments_attribute,
           adds_to_an_arguments_attribute, writes_a_dict_through_a_local_alias,
           unpacks_into_a_dict_through_a_local_alias, appends_to_a_class_attribute,
           assigns_a_global, adds_to_a_global, *_closures()]


def _escape_line(fn: Callable[..., Any]) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if line.endswith("# escapes\n"))


def _python_state(m: Model, fn: Callable[..., Any]) -> Any:
    cells = [c.cell_contents for c in fn.__closure__ or ()]
    return copy.copy(vars(m)), list(SEEN), TOTAL, list(Model.registry), [copy.copy(c) for c in cells]


@pytest.mark.parametrize("fn", ESCAPES, ids=lambda fn: fn.__name__)
def test_a_traced_value_escaping_into_python_state_is_refused_naming_the_line(fn: Callable[..., Any]) -> None:
    """A traced value put into a Python object from outside the trace (a global, a closure's, an
    argument's attribute) would be kiln's tracer, left once per trace, where Python leaves each
    call's value: refused at the statement, and the object is left as it was."""
    m = Model()
    before = _python_state(m, fn)
    with pytest.raises(TypeError, match=rf"test_python_values.py:{_escape_line(fn)}:\d+: `[^`]+` (puts|assigns) a traced value"):
        kiln.function(fn)(m, np.arange(4.0))
    assert _python_state(m, fn) == before


def appends_to_an_object_in_a_list_argument(rows, x):
    rows[0][0].history.append(x[0])  # escapes
    return x


def test_an_object_held_by_a_list_argument_is_from_outside_the_trace() -> None:
    """The trace's copy of a list argument is the function's own (carried to the caller); the
    objects it holds are the caller's: a traced value put into one is refused at the statement."""
    m = Model()
    line = _escape_line(appends_to_an_object_in_a_list_argument)
    with pytest.raises(TypeError, match=rf"test_python_values.py:{line}:\d+: `rows\[0\]\[0\].history.append\(...\)` puts"):
        kiln.function(appends_to_an_object_in_a_list_argument)([[m]], np.arange(4.0))
    assert m.history == []


def keeps_python_state_of_its_own(xs, d, x):
    out = []
    for i in range(3):
        out.append(x[i] * 2)
    xs.append(x[0])
    d["k"] = x[1]
    made = Model()
    made.total = x[2]
    made.history.append(x[3])
    x[0] = made.total + made.history[0]
    return out, made.total, d


def _counted() -> tuple[Callable[..., Any], list[str]]:
    traces: list[str] = []
    count = 0

    def counts_its_traces(x):
        nonlocal count
        count += 1
        traces.append(f"trace {count}")
        SEEN.append(len(x))
        kiln.print("x[0] =", x[0])
        LAST.assign(x[0])
        return x * 2

    return counts_its_traces, traces


def test_python_state_without_traced_values_and_the_functions_own_are_kept() -> None:
    """What does not leave a traced value in Python state from outside the trace still runs: the
    function's own lists, dicts and objects and its list and dict arguments (carried to the caller),
    writes into argument arrays, and trace-time effects of values known while tracing (a trace
    counter: run once per trace, as tf.function runs Python side effects)."""
    differential(keeps_python_state_of_its_own, ([1.0], {"a": 1.0}, np.arange(4.0)))
    counts_its_traces, traces = _counted()
    compiled = kiln.function(counts_its_traces)
    seen = len(SEEN)
    for _ in range(2):
        np.testing.assert_array_equal(compiled(np.arange(3.0)), np.arange(3.0) * 2)
    assert traces == ["trace 1"] and SEEN[seen:] == [3]
    compiled(np.array([5.0, 6.0, 7.0]))
    assert LAST.numpy() == 5.0


def bools_as_ints(a):
    t = bool(a[0] > 0)
    u = a[1] > 5  # a NumPy bool: NumPy's arithmetic
    return t + t, t - t, t * 3, t * t, t + True, t ** 2, t // True, t % True, t << 2, u + u, np.add(t, t), sum([t, t, t])


def test_python_bools_add_as_ints() -> None:
    """Python's ``True + True`` is 2 and ``True - True`` 0; kiln applied NumPy's bool arithmetic to
    traced Python bools (``np.add``: or, so 1 where Python gives 2; ``np.subtract`` refused)."""
    differential(bools_as_ints, (np.array([0.37, 0.81]),), (np.array([-0.37, 9.0]),))


def types_of_values(a, n):
    k = int(a[0] * 10)
    s = a.sum()
    return (isinstance(k, int), isinstance(float(a[0]), float), isinstance(a[0], np.floating),
            isinstance(bool(a[0] > 0), bool), isinstance(k, (int, float)), isinstance(a, np.ndarray),
            isinstance(s, float), isinstance(s, np.float64), isinstance(n, int), isinstance(a, (list, tuple)),
            type(k) is int, type(a) is np.ndarray, type(s).__name__, isinstance(a[a > 0], np.ndarray))


def test_isinstance_and_type_see_the_value_a_tensor_stands_for() -> None:
    """``isinstance(int(x[0]), int)`` is True in Python; of a traced value it was False (the
    tracer's Tensor is no int, nor an ndarray), so code that branches on a type took the wrong branch."""
    differential(types_of_values, (np.array([0.37, 0.81]), 3))


def int_powers(a):
    k = int(abs(a[0]) * 3) + 1
    return k ** 2, 2 ** k, k ** -1, (-k) ** 3, k ** -2, 2 ** -3


def test_a_python_int_to_a_negative_power_is_a_float() -> None:
    """Python's ``k ** -1`` is a float; kiln raised NumPy's "Integers to negative integer powers are
    not allowed" (which NumPy's integer arrays keep: tests/test_ufuncs)."""
    differential(int_powers, (np.array([0.37, 0.81]),), (np.array([-2.5, 0.0]),))


def extremes_with_nan(a):
    x = float(a[0]) * float("nan")
    k = int(a[1] * 10)
    return (max(x, 1.0), min(1.0, x), max(1.0, x), min(x, 1.0), max(k, 2.5), min(a), max(a),
            max(a * np.nan), min(np.array([1.0, np.nan, 0.5]) * a[0]))


def test_python_max_and_min_keep_the_first_unless_a_later_one_compares_beyond() -> None:
    """Python's ``min(1.0, nan)`` is 1.0 (``nan < 1.0`` is false), and ``max`` of a sequence passes
    over a NaN after its first element; kiln took NumPy's NaN-propagating maximum/minimum."""
    differential(extremes_with_nan, (np.array([0.37, 0.81, 0.2]),))


def extreme_of_a_numpy_int_and_a_float(a, t):
    c = 0 + (a[2] > 1.75)  # a NumPy int64 (a Python int plus a NumPy bool)
    return min(c, t)


def extremes_of_one_type(a, t):
    c = 0 + (a[2] > 1.75)
    return min(a[0], a[1]), max(a[0], t), min(c, 3), max(c, np.int64(2)), max(0.5, float(c))


def test_max_and_min_of_numpy_values_of_two_types_are_refused_naming_the_line() -> None:
    """kiln.fuzz python 20800-4266: Python's ``min(np.int64(0), 0.75)`` is the int64, ``min(np.int64(1),
    0.75)`` the float: the type the call returns depends on the data. kiln merged both into float64
    and returned ``np.float64(0.0)``; it refuses, naming the line, where a NumPy value's own dtype is
    not the merged one (a Python number's type is kept per call, as before)."""
    with pytest.raises(TypeError, match=r"test_python_values.py:\d+:\d+: min\(\) of an int64 NumPy value"):
        kiln.function(extreme_of_a_numpy_int_and_a_float)(np.array([0.5, 1.0, 2.5]), 0.75)
    differential(extremes_of_one_type, (np.array([0.5, 1.0, 2.5]), 0.75), (np.array([1.5, -1.0, 0.5]), 2.75))


def memberships(a, lst):
    k = int(abs(a[0]) * 10) % 5
    hits = 0
    for v in lst:
        if v in (2, 3):
            hits += 1
    return k in lst, 3 in lst, float(a[1]) in [0.5, 1.0], k not in (1, 2), 7 in lst, 2 in [1, 2], hits


def test_in_of_traced_numbers_is_pythons() -> None:
    """``3 in xs`` of a list argument (its numbers are traced) and ``k in (1, 2)`` of a traced int
    needed the truth value of each comparison and were refused; they are Python's ``in``."""
    differential(memberships, (np.array([0.37, 0.5]), [1, 2, 3]), (np.array([0.9, 0.25]), [4, 0, 9]))


def sorted_values(a, lst, ints):
    xs = [float(a[i]) for i in range(4)]
    return (sorted(xs), sorted(lst), sorted(ints, reverse=True), sorted(a), sorted(a[:3], reverse=True),
            sorted([3, 1, 2]), sorted(xs)[1] + 1)


def test_sorted_of_traced_numbers_is_a_list_of_them_in_order() -> None:
    """``sorted(xs)`` of a list argument (its numbers traced) or of ``[float(x[i]) ...]`` needed the
    truth value of each comparison and was refused; it is the list Python gives, of the same types."""
    differential(sorted_values, (np.array([0.37, 0.81, -0.2, 0.55, 0.95]), [2.5, 1.0, 3.0], [3, 1, 2]))


def sort_of_ints_and_floats(a, lst, ints):
    lst[2] = min(ints)  # a Python int among the list's floats
    lst.sort()
    return lst


def sorts_of_ints_and_floats_after_a_staged_write(a, lst):
    lst.append(-3)  # a Python int after the floats
    for v in a:  # a staged loop writing at positions the data pick: each item's type is kept per call
        lst[int(abs(v)) % 4] += float(v)
    by_value, by_size = sorted(lst), sorted(lst, key=abs, reverse=True)
    lst.sort(key=abs)
    lst.remove(lst[1])  # (a match known only at run time: the later items move down)
    return by_value, by_size


def test_sorting_python_ints_and_floats_keeps_each_ones_type() -> None:
    """kiln.fuzz python 20804-4720: ``lst.sort(key=abs)`` of floats and an int a staged loop's
    writes left typed per call made every item a float (``-3`` came back ``-3.0``): the sort read
    the values without their kinds. Sorts (with or without a key, ``reverse=``) and ``remove`` of
    Python ints and floats now move each item's kind with its value. kiln.fuzz python 20800-130's
    ``lst.sort()`` of floats and a traced int, refused before, is Python's too."""
    differential(sort_of_ints_and_floats, (np.array([0.5]), [1.0, -1.5, -1.75], [-1, 2]),
                 (np.array([0.5]), [1.0, -1.0, 2.0], [-1, 2]))
    differential(sorts_of_ints_and_floats_after_a_staged_write,
                 (np.array([1.671, -1.636, -0.627]), [1.75, 0.75, -0.5, 1.75]),
                 (np.array([3.5, 2.25]), [1.0, -4.0, 2.0, 3.0]))


def sort_of_a_numpy_and_a_python_number(a):
    return sorted([a[0], 1])


def test_sorting_numpy_and_python_numbers_together_is_refused_naming_the_line() -> None:
    """Which position holds the NumPy float64 and which the Python int depends on the data."""
    with pytest.raises(NotImplementedError, match=r"test_python_values.py:\d+:\d+: sorted\(\) \(or list.sort\(\)\) of numbers of several types"):
        kiln.function(sort_of_a_numpy_and_a_python_number)(np.array([0.5]))


def argmax_by_key(a, xs):
    best = max(range(a.shape[0]), key=lambda i: a[i])
    nearest = min(range(len(xs)), key=lambda i: abs(xs[i] - a[0]))
    return best, nearest, max(xs, key=abs), min(xs, key=lambda v: v * v), a[best] + xs[nearest]


def test_max_and_min_with_a_key_of_traced_values_are_pythons_scan() -> None:
    """``max(range(n), key=lambda i: a[i])`` (Python's argmax idiom) and ``min(xs, key=...)``: the
    first item whose key compares greater (less) than every earlier one's, a NaN key first kept."""
    differential(argmax_by_key, (np.array([0.5, 3.0, 3.0, np.nan, 1.0]), [3.0, -4.0, 2.0, 4.0]),
                 (np.array([np.nan, 3.0, 1.0, 2.0]), [1.0, -1.0]), (np.array([2.0, -1.0]), [-3, 3, 2]))


def extremes_with_a_default(a, xs):
    empty = a[:0]
    return (min((v for v in a if True), default=0.0), max(a, default=-1.0), max(xs, key=abs, default=None),
            min(empty, default=7), max([], default=a[0]), min((v * 2 for v in xs), default=0))


def filtered_extremes_with_a_default(a):
    return (min((v for v in a if v > 0), default=0.0), max([float(v) for v in a if v > 1], default=-1.0),
            min((int(v) for v in a if v < 0), default=0), max((v for v in a if v > 0.4), default=a[0]))


def default_of_another_dtype(a):
    return min((v for v in a if v > 0), default=0)


def test_max_and_min_with_a_default_are_pythons() -> None:
    """``default=`` is read only for an empty iterable: over a generator of an array's items, an array
    or a list whose length tracing knows it is passed over (was refused: "min(tensor, default=)").
    Over items a filter on traced values keeps, the default is returned where none is kept, as its
    own type (a NumPy float64 item or the Python float default: a kind decided per call)."""
    differential(extremes_with_a_default, (np.array([0.5, -3.0, 2.0]), [3.0, -4.0, 2.0]),
                 (np.array([np.nan, 1.0]), [1, -1]))
    differential(filtered_extremes_with_a_default, (np.array([0.5, -3.0, 2.0]),), (np.array([-0.5, -3.0]),),
                 (np.array([0.5, 0.25]),))
    with pytest.raises(NotImplementedError, match=r"test_python_values.py:\d+:\d+: min\(\.\.\., default=\) of a list whose length the data decide"):
        kiln.function(default_of_another_dtype)(np.array([0.5, -3.0]))


def best_pair_by_key(a):
    pairs = [(i, float(a[i]), a[i] * 2) for i in range(a.shape[0])]
    return max(pairs, key=lambda p: p[1]), min(pairs, key=lambda p: p[2])[0]


def pair_of_an_int_or_a_float(a):
    return max([(0, 1.0), (1.5, 2.0)], key=lambda p: a[int(p[1]) - 1])


def test_max_with_a_key_over_tuples_picks_each_position_as_its_own_type() -> None:
    """``max(pairs, key=lambda p: p[1])`` of (index, value) tuples: the winning tuple, the index a
    Python int (it was merged with the floats into an array: 0.0 for Python's 0); a position whose
    items differ in type between tuples is refused naming the line."""
    differential(best_pair_by_key, (np.array([0.5, 3.0, 3.0, -1.0]),), (np.array([np.nan, 1.0, 2.0]),))
    with pytest.raises(NotImplementedError, match=r"test_python_values.py:\d+:\d+: max\(\.\.\., key=\) whose keys are traced"):
        kiln.function(pair_of_an_int_or_a_float)(np.array([1.0, 2.0]))


def max_by_key_of_ints_and_floats_typed_per_call(a, lst):
    lst.append(-3)
    for v in a:  # a staged loop's writes at positions the data pick: each item's type is kept per call
        lst[int(abs(v)) % 4] += float(v)
    return max(lst, key=abs)


def test_max_with_a_key_over_items_typed_per_call_is_refused_naming_the_line() -> None:
    """Items whose type each call decides (a Python int or float, list_kinds) are not numbers of one
    kind: ``max(..., key=)`` refuses them with its message, not Python's "unhashable type: 'Tensor'"."""
    with pytest.raises(NotImplementedError, match=r"test_python_values.py:\d+:\d+: max\(\.\.\., key=\) whose keys are traced"):
        kiln.function(max_by_key_of_ints_and_floats_typed_per_call)(np.array([1.671, -1.636]), [1.75, 0.75, -0.5, 1.75])


def sorted_by_key(a, xs):
    order = sorted(range(a.shape[0]), key=lambda i: a[i])
    down = sorted(range(a.shape[0]), key=lambda i: a[i], reverse=True)
    return order, down, sorted(xs, key=abs), sorted(xs, key=lambda v: -v, reverse=True), [a[i] for i in order]


def test_sorted_with_a_key_of_traced_values_is_pythons_stable_order() -> None:
    """``sorted(range(n), key=lambda i: a[i])`` (Python's argsort idiom) and ``sorted(xs, key=abs)``:
    Python's stable order, equal keys in their order with ``reverse=True`` too."""
    differential(sorted_by_key, (np.array([0.5, 3.0, 3.0, -1.0, 1.0]), [3.0, -4.0, 2.0, 4.0, -3.0]),
                 (np.array([2.0, 2.0, 1.0, 2.0]), [1, -1, 2]))


def count_by_value(xs):
    counts = {}
    for v in xs:
        counts[v] = counts.get(v, 0) + 1
    return counts


def test_a_run_time_value_as_a_dict_key_is_refused_saying_why() -> None:
    """An item of a list argument is known only at run time: as a dict key it was refused with
    Python's bare "unhashable type: 'Tensor'"; now the message says what kiln's dicts are."""
    with pytest.raises(TypeError, match=r"test_python_values.py:\d+: unhashable type: 'Tensor' \(a value known only "
                                        r"when the compiled code runs.*cannot be a dict key or a set item"):
        kiln.function(count_by_value)([1, 2, 2])


def scaled_and_its_dtype(x):
    y = x * 2.5 + 1
    return y, y.dtype, x.dtype.itemsize


def test_a_dtype_is_returned_as_numpy_s() -> None:
    """``y.dtype`` is known while tracing: it was refused ("cannot return a Float32DType")."""
    x = np.arange(3, dtype=np.float32)
    got, want = kiln.function(scaled_and_its_dtype)(x), scaled_and_its_dtype(x)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[0].dtype == want[0].dtype and got[1:] == want[1:] and type(got[1]) is type(want[1])


def sum_below(x, t):
    s = 0.0
    i = 0
    while (v := x[i]) < t:
        s += v
        i += 1
    return s, v, i


def sum_below_else(x, t):
    s, i = 0.0, 0
    while (v := x[i % x.shape[0]]) < t:
        i += 1
        if v < 0:
            continue
        s += v
        if s > 100:
            break
    else:
        s = -s
    return s, i


def test_a_name_the_while_test_binds_is_read_by_the_body_and_after_the_loop() -> None:
    """A staged while passed on the state its iteration began with, so the name a walrus in its
    test binds kept the first test's value: sum_below gave 3.0 where Python gives 4.5
    (kiln.frontend.autograph.converters.while_tests)."""
    x = np.array([1.0, 1.5, 2.0, 4.0, 0.5])
    differential(sum_below, (x, 3.0), (x, 1.2), (x, 0.5))
    differential(sum_below_else, (np.array([1.0, -2.0, 3.0, 9.0]), 5.0), (np.array([60.0, -2.0, 50.0]), 99.0))


def membership_in_arrays(x, v, ids):
    c = 0
    for k in range(6):
        if k in ids:
            c += 1
    return v in x, 0.5 in x, v not in x, x[0] in x[1:], c


def test_in_of_a_traced_array_is_numpy_s_membership() -> None:
    """``v in x`` of an array is NumPy's ``(x == v).any()``, a Python bool; kiln refused it ("needs
    the truth value of a traced tensor"), Python's ``in`` iterating the array."""
    differential(membership_in_arrays, (np.arange(5.0), 3.0, np.array([1, 4, 9])), (np.arange(5.0), 3.5, np.array([7])))


def sum_below_within(x, t):
    s, i, n = 0.0, 0, x.shape[0]
    while i < n and (v := x[i]) < t and v > -5.0:
        s += v
        i += 1
    else:
        s = -s
    return s, i


def test_a_name_an_and_of_the_while_test_binds() -> None:
    """``while i < n and (v := x[i]) < t:`` with a traced ``i``: the `and` kept Python's (a lambda would
    bind ``v`` in its own scope) and was refused ("needs the truth value"); each operand is now
    tested in turn at the top of the body."""
    differential(sum_below_within, (np.array([1.0, 2.0, 9.0, 0.5]), 5.0), (np.array([1.0, 2.0]), 5.0),
                 (np.array([1.0, -7.0, 2.0]), 5.0))
