"""Python ints computed at run time are int64 in kiln's compiled code: where the exact result of
+, -, *, unary -, abs, <<, ** or // leaves int64, the call raises OverflowError naming the line,
where Python's int would grow (issue 40, docs/python-semantics.md). NumPy's int64 keeps NumPy's
wrapping, and a check that a trace-time range analysis proves needless is not emitted."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from python_differential import differential

import kiln

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def rolling_hash(a):
    s = 0
    for i in range(a.shape[0]):
        s = s * 1000003 + int(a[i])  # OVERFLOWS
    return s


def _line_of(fn: Callable[..., Any], marker: str) -> int:
    """The line of ``fn``'s source that carries ``marker``."""
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, text in enumerate(lines) if marker in text)


def test_a_python_int_that_leaves_64_bits_raises_overflow_error_naming_the_line() -> None:
    a = np.arange(40, dtype=np.int64)
    assert rolling_hash(a) > INT64_MAX  # Python's int grows
    compiled = kiln.function(rolling_hash)
    line = _line_of(rolling_hash, "# OVERFLOWS")
    for _ in range(2):  # the trace, then the cached one
        with pytest.raises(OverflowError, match=rf"test_python_int_overflow\.py:{line}:\d+: .*this Python int does "
                                                r"not fit in 64 bits, which kiln's compiled code uses for Python ints"):
            compiled(a)


def test_a_python_int_that_stays_in_range_is_python_s_answer_and_type() -> None:
    compiled = differential(rolling_hash, (np.arange(3, dtype=np.int64),), (np.array([5, -7], dtype=np.int64),))
    assert type(compiled(np.arange(3, dtype=np.int64))) is int


def add(a):
    return int(a[0]) + int(a[1])


def sub(a):
    return int(a[0]) - int(a[1])


def mul(a):
    return int(a[0]) * int(a[1])


def neg(a):
    return -int(a[0])


def absolute(a):
    return abs(int(a[0]))


def shift(a):
    return int(a[0]) << int(a[1])


def power(a):
    return int(a[0]) ** int(a[1])


def floordiv(a):
    return int(a[0]) // int(a[1])


def iadd(a):
    s = int(a[0])
    s += int(a[1])
    return s


#: each operator with operands whose exact result fits int64 (at its edges) and operands whose result does not
CASES = [
    (add, [[INT64_MAX - 5, 5], [INT64_MIN + 5, -5], [-3, 4]], [[INT64_MAX - 5, 6], [INT64_MIN, -1], [2**62, 2**62]]),
    (sub, [[INT64_MIN + 5, 5], [INT64_MAX - 1, -1], [-1, INT64_MAX]], [[INT64_MIN, 1], [INT64_MAX, -1], [-2, INT64_MAX]]),
    (mul, [[2**31, 2**31], [-(2**62), 2], [-1, INT64_MAX], [0, INT64_MIN], [3037000499, 3037000499]],
     [[2**62, 2], [-1, INT64_MIN], [INT64_MIN, -1], [3037000500, 3037000500], [2**32, 2**32], [-(2**62), -2]]),
    (neg, [[INT64_MAX], [INT64_MIN + 1], [0]], [[INT64_MIN]]),
    (absolute, [[INT64_MIN + 1], [-5]], [[INT64_MIN]]),
    (shift, [[1, 62], [-1, 63], [3, 0], [0, 100], [-(2**61), 2]], [[1, 63], [3, 62], [1, 64], [-1, 64], [5, 200], [-(2**61) - 1, 2]]),
    (power, [[3, 39], [-2, 63], [2, 62], [-3, 39], [7, 0], [0, 5], [-1, 2**40]], [[3, 40], [2, 63], [-3, 40], [2**32, 2], [10, 19]]),
    (floordiv, [[INT64_MIN, 1], [INT64_MAX, -1], [INT64_MIN, 2]], [[INT64_MIN, -1]]),
    (iadd, [[1, 2]], [[INT64_MAX, 1]]),
]


@pytest.mark.parametrize("fn, fits, leaves", CASES, ids=[c[0].__name__ for c in CASES])
def test_each_operator_on_python_ints_raises_only_where_python_s_int_leaves_64_bits(
    fn: Callable[..., Any], fits: list[list[int]], leaves: list[list[int]],
) -> None:
    differential(fn, *((np.array(v, dtype=np.int64),) for v in fits))
    compiled = kiln.function(fn)
    for values in leaves:
        a = np.array(values, dtype=np.int64)
        exact = fn(a)
        assert not INT64_MIN <= exact <= INT64_MAX, (fn.__name__, values)
        with pytest.raises(OverflowError, match=r"test_python_int_overflow\.py:\d+:\d+: .*does not fit in 64 bits"):
            compiled(a)


def numpy_wraps(a):
    s = a[0]  # a NumPy int64, not a Python int
    for i in range(a.shape[0]):
        s = s * np.int64(1000003) + a[i]
    return s, -a[0], a[0] << a[1], (a * a)[2]


def test_numpy_int64_keeps_numpy_s_wrapping() -> None:
    a = np.array([INT64_MIN, 63, 2**40, 99] + list(range(30)), dtype=np.int64)
    with np.errstate(over="ignore"):
        compiled = differential(numpy_wraps, (a,))
    assert "graph.check" not in compiled.get_concrete_function(a).ir


def counter_products(a):
    n = a.shape[0]
    s = 0
    for i in range(n):
        for j in range(n):
            t = i * j + (i << 3) - j ** 2 + abs(i - j) - (-i)
            h = (int(a[i]) & 0xFFFF) * 31 + t
            m = int(a[j]) % 1000
            s = s + ((h * m) // 7 + (h >> 2) * (m - 500))
    return s


def test_checks_the_range_analysis_proves_needless_are_not_emitted() -> None:
    """Loop indices bounded by a static trip count, products of bounded values, a value masked with
    `& 0xFFFF`, `% m` with a small m, a sum of such over two counted loops: no graph.check."""
    a = np.arange(-20, 20, dtype=np.int64) * 997
    compiled = differential(counter_products, (a,))
    assert "graph.check" not in compiled.get_concrete_function(a).ir


def counters(a):
    count = 0
    total = 0
    for i in range(a.shape[0]):
        if a[i] > 0:
            count += 1
        elif a[i] < -5:
            count -= 2
        for j in range(3):
            total += i - j
    return count, total, count * total


def test_a_counter_in_a_counted_loop_is_not_checked() -> None:
    """A counter changed by a bounded amount under a staged `if`, and a sum over nested counted
    loops, stay within trip count x step of their start: no graph.check, Python's ints."""
    a = np.arange(-500, 500, dtype=np.int64)
    compiled = differential(counters, (a,))
    assert "graph.check" not in compiled.get_concrete_function(a).ir


def unbounded_counter(a, n):
    count = 0
    while count < n:
        count += int(a[0])
    return count


def test_a_counter_of_a_loop_without_a_trip_count_is_checked() -> None:
    a, n = np.array([2**62], dtype=np.int64), np.int64(2**63 - 1)
    with pytest.raises(OverflowError, match=r"does not fit in 64 bits"):
        kiln.function(unbounded_counter)(a, n)
    differential(unbounded_counter, (np.array([3], dtype=np.int64), np.int64(100)))


def index_arithmetic(a):
    out = 0
    for i in range(a.shape[0]):
        k = (i * 7 + 3) % a.shape[0]
        out = out ^ (int(a[k]) & 0xFF) << (i % 8)
    return out


def test_index_arithmetic_and_masked_values_need_no_check() -> None:
    a = np.arange(50, dtype=np.int64) * 12345
    compiled = differential(index_arithmetic, (a,))
    assert "graph.check" not in compiled.get_concrete_function(a).ir


def test_the_check_is_in_the_trace_where_the_range_is_unknown() -> None:
    a = np.arange(400, dtype=np.int64)  # a long range: a staged loop
    ir = kiln.function(rolling_hash).get_concrete_function(a).ir
    assert len(re.findall(r"graph\.check .*OverflowError: ", ir)) == 2, ir  # the product and the sum


def test_a_negative_shift_count_raises_value_error_as_in_python() -> None:
    differential(shift, (np.array([5, -1], dtype=np.int64),), (np.array([5, 3], dtype=np.int64),), errors=True)


def numpy_int8_counter(a):
    c = np.int8(0)
    for i in range(a.shape[0]):
        c += np.int8(1)
    return c, c + 1


def test_a_numpy_counter_that_wraps_keeps_numpy_s_wrapping() -> None:
    """The loop's range analysis holds only where no value can wrap: an int8 counter over 300
    iterations wraps as NumPy's does, unchecked."""
    with np.errstate(over="ignore"):
        compiled = differential(numpy_int8_counter, (np.zeros(300, dtype=np.int64),))
    assert "graph.check" not in compiled.get_concrete_function(np.zeros(300, dtype=np.int64)).ir


def masked_hash(a):
    h = 7
    i = 0
    while i < a.shape[0]:
        h = ((h * 31) ^ (int(a[i]) & 0xFF)) & 0xFFFF
        i += 1
    return h * 65537


def test_a_value_each_iteration_masks_is_not_checked_in_any_loop() -> None:
    """A carried value each iteration sets `& 0xFFFF` stays in [0, 0xFFFF] (its start included),
    without a trip count: its product with a constant needs no check; the `while` counter keeps one."""
    a = np.arange(1000, dtype=np.int64) * 7919
    compiled = differential(masked_hash, (a,))
    ir = compiled.get_concrete_function(a).ir
    assert len(re.findall(r"graph\.check .*OverflowError: ", ir)) == 1, ir  # `i += 1`


def product_in_try(a):
    try:
        s = int(a[0]) * int(a[1])
    except OverflowError:  # Python's int never raises here
        s = -1
    return s


def test_the_check_is_made_inside_a_try_too() -> None:
    """Python raises nothing there, so no `except` is meant for kiln's error: the product is
    computed and checked, not refused for being inside a `try`."""
    differential(product_in_try, (np.array([3, -4], dtype=np.int64),))
    with pytest.raises(OverflowError, match=r"does not fit in 64 bits"):
        kiln.function(product_in_try)(np.array([2**40, 2**40], dtype=np.int64))


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def test_a_python_int_past_64_bits_made_while_tracing_is_returned_as_python_s() -> None:
    """fib(100) of a Python ``n`` is computed by Python while tracing (its loop is on Python values
    only): it was refused ("cannot return a int ... dtype object"); such an int is the same for
    every call of the trace, so it is returned as the Python int it is, as are ints just past
    int64 either side."""
    f = kiln.function(fibonacci)
    for n in (90, 93, 100):
        got = f(n)
        assert got == fibonacci(n) and type(got) is int
    got = kiln.function(lambda x: (x * 2, 2**63 + 5, -(2**64), [2**63 - 1]))(np.ones(2))
    assert got[1:] == (2**63 + 5, -(2**64), [2**63 - 1]) and type(got[3][0]) is int
