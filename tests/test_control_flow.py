"""AutoGraph end to end: Python control flow on tensors, compiled, against the same Python run on NumPy.

The corpus below is plain Python; each function is compiled with
``kiln.function`` and its results compared with calling it directly on
NumPy values (``kiln.range``, ``kiln.TensorArray`` and ``kiln.print`` run
eagerly there). The seed programs also check that new values reuse the trace.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
import kiln.examples.fizzbuzz
import kiln.examples.square_if_positive
import kiln.examples.square_if_positive_naive
import kiln.examples.sum_even
from kiln import examples

i64, f64, f32 = np.int64, np.float64, np.float32
V = np.array([3.0, -1.0, 4.0, -1.5, 5.0, 9.0, -2.0, 6.0])
W = np.array([-2.0, -7.0, 1.0, 8.0, -2.5, 3.0, 0.0, 4.0])
IV = np.array([10, 12, 15, 20, 7, 8, 3, 1])
IW = np.array([1, 3, 5, 7, 2, 4, 6, 9])


# ---------------------------------------------------------------------- conditionals


def if_else(x):
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y


def if_no_else(x):
    y = x
    if x < 0:
        y = x * x
    return y


def elif_chain(x):
    if x > 10:
        r = 3
    elif x > 5:
        r = 2
    elif x > 0:
        r = 1
    else:
        r = 0
    return r


def nested_if(x, y):
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
    else:
        if y > x:
            r = y
        else:
            r = x * y
    return r


def if_two_vars(x):
    a, b = x, x
    if x > 1:
        a = x + 1
        b = x - 1
    return a * b


def if_python_cond(x, flag):
    if flag:
        x = x + 1
    if x > 2:
        x = x * 10
    return x


def if_on_reduction(v):
    if v.sum() > 0:
        return v * 2
    return -v


def if_on_array_mean(v):
    if np.mean(v) > 1.0:
        out = v - np.mean(v)
    else:
        out = v + 1.0
    return out


def if_exp(x):
    return x * 3 if x > 1 else x - 3


def if_exp_nested(x):
    return 1.0 if x > 5 else (2.0 if x > 0 else 3.0)


def and_or(x, y):
    if x > 0 and y > 0:
        r = 1
    elif x > 0 or y > 0:
        r = 2
    else:
        r = 3
    return r


def not_cond(x):
    if not x > 2:
        x = x + 100
    return x


def bool_value(x, y):
    return (x > y) and (x > 0)


def int_condition(n):
    if n % 2:
        n = n * 3
    return n


def early_return_if(x):
    if x > 0:
        return x + 1
    x = x * 2
    return x - 1


def early_return_nested(x, y):
    if x > 0:
        if y > 0:
            return x + y
        return x
    return y


# ---------------------------------------------------------------------- while loops


def while_count(n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s


def while_float(x):
    steps = 0
    while x > 1.0:
        x = x / 2.0
        steps += 1
    return x, steps


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def while_select_mask(n):
    """Both branches run and a conditional move picks one (passes/kiln_if_to_select.py)."""
    v, steps = n, 0
    while v > 0:
        v = v - 7 if v & 4 != 0 else v - 3
        steps += 1
    return steps, v


def while_select_two_locals(n):
    a, b, i = 0, 1, 0
    while i < n:
        if i % 3 == 0:
            a, b = a + b, b - 1
        else:
            a, b = a - 1, b + a * 2
        i += 1
    return a * 1000 + b


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def while_break(n):
    i = 0
    while i < 100:
        if i * i > n:
            break
        i += 1
    return i


def while_continue(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


def while_return(n):
    i = 1
    while i < 1000:
        if i * 7 % 10 == n:
            return i
        i += 1
    return -1


def while_nested(n):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


def while_nested_break(n):
    i = 0
    hits = 0
    while i < n:
        j = 0
        while True:
            if j >= i:
                break
            hits += 1
            j += 1
        i += 1
    return hits


def while_and_condition(x, n):
    i = 0
    while i < n and x > 1.0:
        x = x * 0.5
        i += 1
    return x, i


def while_python_then_tensor(x):
    i = 0
    while i < 3:  # Python: unrolled
        x = x + i
        i += 1
    while x < 100:  # tensor: staged
        x = x * 2
    return x


def while_vector_state(v, n):
    i = 0
    while i < n:
        v = v * 0.5 + 1.0
        i += 1
    return v


def while_else_return(n):
    i = 0
    while i < n:
        if i == 4:
            return i * 100
        i += 1
    return i


# ---------------------------------------------------------------------- for loops


sum_even = examples.sum_even.FUNCTION.python_function  # the seed, as plain Python


def for_tensor_sum(v):
    s = 0.0
    for x in v:
        s += x
    return s


def for_tensor_break(v):
    s = 0.0
    for x in v:
        if x < 0:
            break
        s += x
    return s


def for_tensor_return(v):
    for x in v:
        if x > 4:
            return x
    return -1.0


def for_tensor_max(v):
    best = v[0]
    for x in v:
        if x > best:
            best = x
    return best


def for_tensor_count(v, t):
    n = 0
    for x in v:
        if x > t:
            n += 1
    return n


def for_rows(m):
    acc = np.zeros(3)
    for row in m:
        acc = acc + row * row
    return acc


def for_rows_python_init(m):
    acc = 0.0
    for row in m:
        acc = acc + row
    return acc


def for_kiln_range(n):
    s = 0
    for i in kiln.range(n):
        s += i * i
    return s


def for_kiln_range_start_step(a, b):
    s = 0
    for i in kiln.range(a, b, 3):
        s += i
    return s


def for_kiln_range_negative_step(n):
    s = 0
    for i in kiln.range(n, 0, -2):
        s = s * 2 + i
    return s


def for_range_tensor_bound(n):
    s = 0
    for i in range(n):
        if i % 2 == 0:
            s += i
    return s


def early_return_in_range(v, t):
    for i in kiln.range(len(v)):
        if v[i] > t:
            return i
    return -1


def for_index_read(v):
    s = 0.0
    for i in kiln.range(v.shape[0]):
        s = s + v[i] * i
    return s


def for_python_range_tensor_cond(v):
    s = 0.0
    for i in range(4):  # Python loop, tensor condition in the body
        if v[i] > 0:
            s += v[i]
    return s


def for_python_range_break(v):
    s = 0.0
    for i in range(6):  # the `break` flag becomes a tensor: the rest runs under staged ifs
        if v[i] < 0:
            break
        s += v[i]
    return s


def for_python_list(x):
    for scale in [1.0, 2.0, 3.0]:
        if x > scale:
            x = x - scale
    return x


def for_nested_range(n, m):
    s = 0
    for i in kiln.range(n):
        for j in kiln.range(m):
            s += i * j
    return s


def for_nested_break(n):
    s = 0
    for i in kiln.range(n):
        for j in kiln.range(n):
            if j > i:
                break
            s += 1
    return s


def for_nested_continue_outer(v):
    s = 0.0
    for x in v:
        if x < 0:
            continue
        for y in v:
            if y > x:
                continue
            s += y
    return s


def for_return_depth3(n):
    for i in kiln.range(n):
        for j in kiln.range(n):
            if i * j > 6:
                if i > j:
                    return i * 10 + j
    return -1


def for_break_in_else_branch(v):
    n = 0
    for x in v:
        if x > 0:
            n += 1
        else:
            if x < -1.2:
                break
            n += 10
    return n


def for_else(v):
    found = -1.0
    for x in v:
        if x > 100:
            found = x
            break
    else:
        found = 0.5
    return found


def for_tensor_and_flag(v):
    seen = False
    for x in v:
        if x < 0 and not seen:
            seen = True
    return seen


def last_item(v):
    for x in v:
        pass
    return x


def tensor_array(x):
    result = kiln.TensorArray(x.dtype, size=len(x))
    for i in kiln.range(len(x)):
        if x[i] > 0:
            result = result.write(i, x[i] ** 2)
        else:
            result = result.write(i, x[i])
    return result.stack()


def tensor_array_rows(m):
    ta = kiln.TensorArray(m.dtype, size=m.shape[0])
    i = 0
    for row in m:
        ta = ta.write(i, row * 2.0)
        i += 1
    return ta.stack()


def tensor_array_dynamic(v):
    ta = kiln.TensorArray(v.dtype, dynamic_size=True)
    for i in kiln.range(4):
        ta = ta.write(i, v[i] + 1.0)
    return ta.stack()


def tensor_array_read(v):
    ta = kiln.TensorArray(v.dtype, size=4)
    for i in kiln.range(4):
        ta = ta.write(i, v[i] * 3.0)
    s = 0.0
    for i in kiln.range(4):
        s += ta.read(i)
    return s


def _helper_clip(x):
    if x > 5:
        return 5.0 * np.ones_like(x)
    return x


def calls_converted_helper(v):
    s = 0.0
    for x in v:
        s += _helper_clip(x)
    return s


def augmented_ops(x):
    y = x
    if x > 0:
        y -= 1
        y *= 3
        y /= 2
    else:
        y += 10
    return y


def mixed_python_and_tensor(x, n):
    out = x
    for k in [1, 2]:
        if n > k:
            out = out + k
        else:
            out = out - k
    return out


def walk(v):
    i = 0
    pos = 0.0
    while i < 8:
        step = v[i]
        if step > 0:
            pos = pos + step
        elif step < -1.6:
            break
        else:
            i += 1
            continue
        i += 1
    return pos, i


def count_sign_changes(v):
    changes = 0
    prev = v[0]
    for x in v:
        if (x > 0) != (prev > 0):
            changes += 1
        prev = x
    return changes


def vector_if(v):
    if v.max() > 5:
        v = np.maximum(v, 0.0)
    else:
        v = np.minimum(v, 0.0)
    return v


def shrink_by_mask(v):
    # a staged loop carrying an array whose length changes (a buffer handed over per iteration)
    z = v * 1.0
    for i in range(6):
        z = z[z > i - 2.0] * 1.5
    return z.sum() + len(z)


def shrink_by_slice(v, n):
    z = v[:n]
    i = 0
    while i < n:
        z = z[1:] if z[0] < 0 else z[:-1] * 2.0
        i += 2
    return z.sum()


CORPUS: list[tuple[Callable[..., Any], list[tuple[Any, ...]]]] = [
    (if_else, [(f64(3.0),), (f64(-2.0),)]),
    (if_no_else, [(f64(3.0),), (f64(-2.0),)]),
    (elif_chain, [(i64(12),), (i64(7),), (i64(3),), (i64(-1),)]),
    (nested_if, [(f64(1.0), f64(2.0)), (f64(1.0), f64(-2.0)), (f64(-1.0), f64(2.0)), (f64(-1.0), f64(-2.0))]),
    (if_two_vars, [(f64(3.0),), (f64(0.5),)]),
    (if_python_cond, [(f64(1.5), True), (f64(1.5), False)]),
    (if_on_reduction, [(V,), (-V,)]),
    (if_on_array_mean, [(V,), (W,)]),
    (if_exp, [(f64(2.0),), (f64(0.0),)]),
    (if_exp_nested, [(f64(6.0),), (f64(1.0),), (f64(-1.0),)]),
    (and_or, [(i64(1), i64(1)), (i64(1), i64(-1)), (i64(-1), i64(-1))]),
    (not_cond, [(f64(1.0),), (f64(3.0),)]),
    (bool_value, [(f64(2.0), f64(1.0)), (f64(-2.0), f64(-3.0)), (f64(0.0), f64(1.0))]),
    (int_condition, [(i64(3),), (i64(4),)]),
    (early_return_if, [(f64(2.0),), (f64(-2.0),)]),
    (early_return_nested, [(f64(1.0), f64(2.0)), (f64(1.0), f64(-2.0)), (f64(-1.0), f64(5.0))]),
    (while_count, [(i64(10),), (i64(0),)]),
    (while_float, [(f64(100.0),), (f64(0.5),)]),
    (collatz, [(i64(27),), (i64(1),), (i64(6),)]),
    (while_select_mask, [(i64(1000),), (np.int32(77),), (i64(-5),)]),
    (while_select_two_locals, [(i64(20),), (np.int32(7),), (i64(0),)]),
    (gcd, [(i64(48), i64(18)), (i64(17), i64(5))]),
    (while_break, [(i64(50),), (i64(0),)]),
    (while_continue, [(i64(10),)]),
    (while_return, [(i64(3),), (i64(11),)]),
    (while_nested, [(i64(5),)]),
    (while_nested_break, [(i64(5),)]),
    (while_and_condition, [(f64(100.0), i64(3)), (f64(3.0), i64(10))]),
    (while_python_then_tensor, [(f64(1.0),), (f64(200.0),)]),
    (while_vector_state, [(V, i64(3))]),
    (while_else_return, [(i64(3),), (i64(9),)]),
    (sum_even, [(IV,), (IW,), (IV.astype(np.int32),), (V.astype(f32),)]),  # s = 0 takes the data's dtype
    (for_tensor_sum, [(V,)]),
    (for_tensor_break, [(V,), (np.abs(V),)]),
    (for_tensor_return, [(V,), (-np.abs(V),)]),
    (for_tensor_max, [(V,), (W,)]),
    (for_tensor_count, [(V, f64(0.0)), (W, f64(2.0))]),
    (for_rows, [(V[:6].reshape(2, 3),)]),
    (for_rows_python_init, [(V[:6].reshape(3, 2),)]),
    (for_kiln_range, [(i64(5),), (i64(0),)]),
    (for_kiln_range_start_step, [(i64(2), i64(20)), (i64(5), i64(3))]),
    (for_kiln_range_negative_step, [(i64(9),), (i64(4),)]),
    (for_range_tensor_bound, [(i64(7),)]),
    (early_return_in_range, [(V, f64(4.5)), (V, f64(100.0))]),
    (for_index_read, [(V,)]),
    (for_python_range_tensor_cond, [(V,), (W,)]),
    (for_python_range_break, [(V,), (np.abs(V),)]),
    (for_python_list, [(f64(10.0),), (f64(1.5),)]),
    (for_nested_range, [(i64(3), i64(4))]),
    (for_nested_break, [(i64(4),)]),
    (for_nested_continue_outer, [(V,)]),
    (for_return_depth3, [(i64(5),), (i64(2),)]),
    (for_break_in_else_branch, [(V,), (W,)]),
    (for_else, [(V,), (V * 100,)]),
    (for_tensor_and_flag, [(V,), (np.abs(V),)]),
    (last_item, [(V,)]),
    (tensor_array, [(V.astype(f32),)]),
    (tensor_array_rows, [(V[:6].reshape(3, 2),)]),
    (tensor_array_dynamic, [(V,)]),
    (tensor_array_read, [(V,)]),
    (calls_converted_helper, [(V,)]),
    (augmented_ops, [(f64(3.0),), (f64(-3.0),)]),
    (mixed_python_and_tensor, [(f64(1.0), i64(3)), (f64(1.0), i64(1))]),
    (walk, [(V,), (W,)]),
    (count_sign_changes, [(V,), (W,)]),
    (vector_if, [(V,), (W,)]),
    (shrink_by_mask, [(V,), (W,)]),
    (shrink_by_slice, [(V, i64(8)), (W, i64(3))]),
]


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 60


@pytest.mark.parametrize("fn, calls", CORPUS, ids=[fn.__name__ for fn, _ in CORPUS])
def test_compiled_matches_python(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    compiled = kiln.function(fn)
    for args in calls:
        want, got = fn(*args), compiled(*args)
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-6)
        assert np.asarray(got).dtype == np.asarray(want).dtype, "the eager result's dtype"


# ---------------------------------------------------------------------- the seed programs, traced once


# Fresh kiln.Functions over the examples' Python functions, so tracing counts start at zero.
square_if_positive = kiln.function(examples.square_if_positive.FUNCTION.python_function)
seed_sum_even = kiln.function(examples.sum_even.FUNCTION.python_function)
fizzbuzz = kiln.function(examples.fizzbuzz.FUNCTION.python_function)
square_if_positive_naive = kiln.function(examples.square_if_positive_naive.FUNCTION.python_function)


class CustomModel:
    """The Keras-style model of the seed: a decorated method branching on a reduction."""

    @kiln.function
    def call(self, x):
        if kiln.reduce_mean(x) > 0:
            return x
        return -x


def test_square_if_positive() -> None:
    assert square_if_positive(f32(3.0)) == 9.0
    assert square_if_positive(f32(-2.0)) == 0.0
    assert square_if_positive.tracing_count == 1


def test_sum_even() -> None:
    assert seed_sum_even(np.array([10, 12, 15, 20])) == 42
    assert seed_sum_even(np.array([1, 2, 3, 4])) == 6
    assert seed_sum_even.tracing_count == 1


def test_fizzbuzz_prints_on_every_call(capfd: pytest.CaptureFixture[str]) -> None:
    assert fizzbuzz(i64(15)) == 15
    expected = "Fizz 1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14".split()
    assert capfd.readouterr().out.split() == expected
    assert fizzbuzz(i64(6)) == 6
    assert capfd.readouterr().out.split() == expected[:6]
    assert fizzbuzz.tracing_count == 1


@kiln.function
def _printed_plus_one(x):
    kiln.print("x =", x)
    return x + 1


def test_print_writes_to_python_stdout_on_every_call() -> None:
    """kiln.print goes to Python's ``sys.stdout`` (docs/printing.md), so ``redirect_stdout`` and
    pytest's capsys see it; the native entry's own ``dlopen`` used to keep C's stdout, so from
    the second call on the output bypassed ``sys.stdout``."""
    x = np.array([1.0, 2.0])
    for _ in range(3):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            np.testing.assert_array_equal(_printed_plus_one(x), x + 1)
        assert out.getvalue() == "x = [1. 2.]\n"


@kiln.function
def _printed_sum(x):
    kiln.print("sum", x.sum())
    return x * 2


def test_prints_go_through_the_entry_extension_s_sink_in_order() -> None:
    """The native entry's libraries print through the extension's own sink (its ``write_hook``; a
    ctypes callback cost ~0.6 us a print, two thirds of fizzbuzz's call), to ``sys.stdout`` in
    order with Python's prints, also from a kernel that runs without the GIL (a large one)."""
    from kiln.backends import loader
    from kiln.backends.c import pyext

    x, big = np.array([1.0, 2.0]), np.ones(40000)
    for _ in range(3):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            print("a")
            _printed_plus_one(x)
            print("b")
            np.testing.assert_array_equal(_printed_sum(big), big * 2)
        assert out.getvalue() == f"a\nx = [1. 2.]\nb\nsum {big.sum()}\n"
    sinks = set()
    for lib in loader._LIBRARIES.values():
        try:
            sinks.add(ctypes.c_void_p.in_dll(lib, loader.WRITE_HOOK).value)
        except ValueError:
            continue  # a library that does not print
    assert sinks == {pyext.module().write_hook()}


def test_keras_style_method() -> None:
    model = CustomModel()
    np.testing.assert_array_equal(model.call(V), V)
    np.testing.assert_array_equal(model.call(-np.abs(V)), np.abs(V))
    assert CustomModel.call.tracing_count == 1


def test_square_if_positive_naive() -> None:
    x = np.array([-1.0, 2.0, -3.0, 4.0], f32)
    np.testing.assert_array_equal(square_if_positive_naive(x), [-1.0, 4.0, -3.0, 16.0])
    np.testing.assert_array_equal(square_if_positive_naive(-x), [1.0, -2.0, 9.0, -4.0])
    assert square_if_positive_naive.tracing_count == 1


def test_collatz_early_return_and_break_are_staged_once() -> None:
    compiled = kiln.function(collatz)
    assert [compiled(i64(n)) for n in (27, 1, 6, 97)] == [collatz(n) for n in (27, 1, 6, 97)]
    assert compiled.tracing_count == 1
    assert "graph.while" in compiled.get_concrete_function(i64(5)).ir

    first = kiln.function(early_return_in_range)
    for t in (4.5, 100.0, -10.0):
        assert first(V, f64(t)) == early_return_in_range(V, t)
    assert first.tracing_count == 1

    stop = kiln.function(for_tensor_break)
    for v in (V, np.abs(V), -V):
        assert stop(v) == for_tensor_break(v)
    assert stop.tracing_count == 1
    assert "graph.gather_row" in stop.get_concrete_function(V).ir


def test_python_conditions_run_as_python() -> None:
    compiled = kiln.function(if_python_cond)
    ir = compiled.get_concrete_function(f64(1.0), True).ir
    assert ir.count("graph.cond") == 1  # `if flag` ran at trace time; `if x > 2` is staged


def test_run_functions_eagerly_runs_the_python() -> None:
    kiln.config.run_functions_eagerly(True)
    try:
        assert square_if_positive_naive(np.array([-1.0, 3.0], f32)).tolist() == [-1.0, 9.0]
    finally:
        kiln.config.run_functions_eagerly(False)
