"""Python's math functions of traced values (kiln.frontend.python_math), against Python itself:
the same float (to an ulp), the same int or bool, or the same error (ValueError, OverflowError)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend.python_math import TRACED

VALUES = [-1000.0, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 710.0, 1e308, math.inf, -math.inf, math.nan]
UNARY = sorted((f for f in TRACED if f not in (math.atan2, math.hypot, math.copysign, math.fmod, math.pow, math.isclose,
                                                math.gcd, math.lcm)),
               key=lambda f: f.__name__)
BINARY = [math.atan2, math.hypot, math.copysign, math.fmod, math.pow]
PAIRS = [(a, b) for a in (-2.0, -0.0, 0.0, 0.5, 3.0, 1e300, math.inf, math.nan) for b in (-3.0, -0.5, 0.0, 0.5, 2.0, 1e10, math.inf, math.nan)]


def _python(fn: Callable[..., Any], args: tuple[float, ...]) -> tuple[str, Any]:
    try:
        return "value", fn(*args)
    except (ValueError, OverflowError) as error:
        return type(error).__name__, None


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, bool) or isinstance(want, int):
        return type(got) in (bool, int) and got == want
    got = float(got)
    return (math.isnan(got) and math.isnan(want)) or got == want or abs(got - want) <= 4e-16 * abs(want)


def _check(fn: Callable[..., Any], compiled: Callable[..., Any], args: tuple[float, ...]) -> None:
    kind, want = _python(fn, args)
    if type(want) is int and not -2**63 <= want < 2**63:  # kiln's Python ints are int64: it says so
        kind = "OverflowError"
    arrays = [np.array([a]) for a in args]
    if kind != "value":
        with pytest.raises({"ValueError": ValueError, "OverflowError": OverflowError}[kind], match=r"test_python_math\.py:\d+"):
            compiled(*arrays)
        return
    got = compiled(*arrays)
    got = got.item() if isinstance(got, np.ndarray) else got
    assert _same(got, want), (fn.__name__, args, got, want)


@pytest.mark.parametrize("fn", UNARY, ids=lambda f: f.__name__)
def test_unary_math_functions_of_traced_values(fn: Callable[..., Any]) -> None:
    compiled = kiln.function(lambda x: fn(x[0]))
    for v in VALUES:
        _check(fn, compiled, (v,))


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_binary_math_functions_of_traced_values(fn: Callable[..., Any]) -> None:
    compiled = kiln.function(lambda x, y: fn(x[0], y[0]))
    for args in PAIRS:
        _check(fn, compiled, args)


def math_of_a_sum(x):
    return x * math.sqrt(x.sum()) + math.floor(x.sum() / 3)


def test_a_math_result_is_a_python_number_to_numpy() -> None:
    """math.sqrt's result is a Python float: `float32_array * math.sqrt(s)` stays float32; floor gives an int."""
    x = np.arange(1, 5, dtype=np.float32)
    got, want = kiln.function(math_of_a_sum)(x), math_of_a_sum(x)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


def math_with_python_numbers(x, n):
    return x * math.sqrt(n) + math.pi


def test_math_of_python_numbers_is_math() -> None:
    x = np.arange(3.0)
    np.testing.assert_array_equal(kiln.function(math_with_python_numbers)(x, 4), math_with_python_numbers(x, 4))


def two_argument_log(x):
    return math.log(x.sum(), 2)


def test_a_two_argument_log_of_a_traced_value_is_refused_with_advice() -> None:
    with pytest.raises(NotImplementedError, match=r"math\.log\(x\) / math\.log\(base\)"):
        kiln.function(two_argument_log)(np.arange(3.0))


def sqrt_of_a_row(x):
    return math.sqrt(x[0])


def test_math_of_an_array_that_is_not_0d_raises_like_python() -> None:
    with pytest.raises(TypeError):
        sqrt_of_a_row(np.ones((2, 2)))
    with pytest.raises(TypeError, match="only 0-dimensional arrays"):
        kiln.function(sqrt_of_a_row)(np.ones((2, 2)))


@pytest.mark.parametrize("tolerances", [{}, {"rel_tol": 0.5}, {"abs_tol": 1.0}, {"rel_tol": 0.0, "abs_tol": 0.0}], ids=str)
def test_isclose_of_traced_values_is_pythons(tolerances: dict[str, float]) -> None:
    """Equal values are close (infinities too), an infinity is close to nothing else, NaN to nothing."""
    compiled = kiln.function(lambda x, y: math.isclose(x[0], y[0], **tolerances))
    for a, b in [*PAIRS, (1.0, 1.0 + 1e-10), (1e-10, 0.0), (1.0, 1.5), (-1.0, -1.4)]:
        _check(lambda p, q: math.isclose(p, q, **tolerances), compiled, (a, b))


def test_isclose_with_negative_tolerances_raises_as_python() -> None:
    with pytest.raises(ValueError, match="tolerances must be non-negative"):
        kiln.function(lambda x: math.isclose(x[0], 1.0, rel_tol=-1.0))(np.array([1.0]))


def gcds(a):
    return (math.gcd(int(a[0]), int(a[1])), math.gcd(int(a[0]), 6), math.gcd(), math.gcd(int(a[0])),
            math.lcm(int(a[0]), int(a[1])), math.lcm(4, int(a[1]), 6), math.lcm())


def test_gcd_and_lcm_of_python_ints_are_pythons() -> None:
    """``math.gcd``/``math.lcm`` of ints computed at run time (Fibonacci neighbours: Euclid's longest
    run); an lcm beyond 64 bits raises OverflowError naming the line."""
    compiled = kiln.function(gcds)
    for v in ([12.0, -18.0], [0.0, 0.0], [-7.0, 0.0], [1134903170.0, 1836311903.0]):
        got, want = compiled(np.array(v)), gcds(np.array(v))
        assert got == want and all(type(g) is int for g in got), (v, got, want)
    with pytest.raises(OverflowError, match=r"test_python_math\.py:\d+"):
        compiled(np.array([2.0**40, 3.0**20]))
