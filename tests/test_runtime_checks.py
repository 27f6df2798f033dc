"""Lengths known only at run time that NumPy requires to agree are checked when the call runs
(graph.check -> krt.check): a mismatch raises ValueError naming the line, as NumPy raises,
instead of computing with the wrong length. Each case is compared with the eager run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln


_COMPILED: dict[Callable[..., Any], kiln.Function] = {}


def _compiled(fn: Callable[..., Any]) -> kiln.Function:
    """One kiln.function per Python function (a 0-d t traces once for every value)."""
    return _COMPILED.setdefault(fn, kiln.function(fn))


def same_as_numpy(fn: Callable[..., Any], *args: Any) -> None:
    """The compiled call gives NumPy's result, or raises ValueError where NumPy does."""
    compiled = _compiled(fn)
    try:
        expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    except ValueError:
        with pytest.raises(ValueError, match=r"test_runtime_checks\.py:\d+"):
            compiled(*args)
        return
    np.testing.assert_array_equal(compiled(*args), expected)


def add_prefix(x, t):
    n = (x > t).sum()
    return (x[:n] + x).sum()


def multiply_two_slices(x, t):
    n = (x > t).sum()
    return (x[:n] * x[n:]).sum()


def dot_of_slices(x, t):
    n = (x > t).sum()
    return x[:n] @ x[n:]


def write_into_prefix(x, t):
    n = (x > t).sum()
    z = np.zeros(5)
    z[:n] = x[:3]
    return z


def write_prefix_into_whole(x, t):
    n = (x > t).sum()
    z = np.zeros(5)
    z[:] = x[:n]
    return z


X5 = np.arange(5.0)
X6 = np.arange(6.0)
DOWN5 = np.arange(5.0)[::-1].copy()

# (function, x, t): each run-time length differs from its partner or equals it, never 1 where
# NumPy would broadcast it (see test_a_runtime_length_of_one_is_not_broadcast_and_says_so)
CASES = [
    (add_prefix, X5, -1.0), (add_prefix, X5, 1.5), (add_prefix, X5, 10.0),
    (multiply_two_slices, X5, -1.0), (multiply_two_slices, X5, 1.5), (multiply_two_slices, X5, 2.5),
    (multiply_two_slices, X6, 2.5), (multiply_two_slices, X6, 1.5),
    (dot_of_slices, X6, 2.5), (dot_of_slices, X6, 1.5), (dot_of_slices, X5, 10.0),
    (write_into_prefix, DOWN5, 1.5), (write_into_prefix, DOWN5, 0.5), (write_into_prefix, DOWN5, -1.0),
    (write_prefix_into_whole, DOWN5, -1.0), (write_prefix_into_whole, DOWN5, 1.5),
]


@pytest.mark.parametrize(("fn", "x", "t"), CASES, ids=lambda v: getattr(v, "__name__", None))
def test_lengths_checked_when_the_call_runs(fn: Callable[..., Any], x: np.ndarray, t: float) -> None:
    same_as_numpy(fn, x, np.asarray(t))


def test_one_compiled_function_raises_and_then_runs_again() -> None:
    f = kiln.function(add_prefix)
    x = np.arange(5.0)
    with pytest.raises(ValueError, match=r"operands could not be broadcast together .* differs from 5"):
        f(x, np.asarray(1.0))
    assert f(x, np.asarray(-1.0)) == add_prefix(x, -1.0)  # the failure state was cleared
    with pytest.raises(ValueError):
        f(x, np.asarray(2.0))
    assert f.tracing_count == 1


def test_a_runtime_length_of_one_is_not_broadcast_and_says_so() -> None:
    f = _compiled(add_prefix)
    x = np.arange(5.0)
    assert add_prefix(x, 3.5) == 10.0  # NumPy broadcasts the length-1 prefix
    with pytest.raises(ValueError, match="kiln does not broadcast a run-time length of 1"):
        f(x, np.asarray(3.5))


def staged_loop(x, t):
    m = (x > t).sum()
    total = 0.0
    for i in range(3):
        n = (x > t + i).sum()
        total += (x[:n] * x[:m]).sum()
    return total


@pytest.mark.parametrize("x", [np.arange(5.0), np.array([10.0, 10.0, 10.0, 0.0, 0.0])])
def test_checked_inside_a_staged_loop(x: np.ndarray) -> None:
    same_as_numpy(staged_loop, x, np.asarray(0.5))  # arange: the lengths differ from i = 1 on


def test_print_before_a_failed_check_runs_and_none_after(capfd: pytest.CaptureFixture[str]) -> None:
    @kiln.function
    def f(x, t):
        kiln.print("before")
        n = (x > t).sum()
        y = x[:n] + x
        kiln.print("after")
        return y.sum()

    with pytest.raises(ValueError):
        f(np.arange(5.0), np.asarray(1.0))
    out = capfd.readouterr().out
    assert "before" in out and "after" not in out


def test_the_native_entry_and_ctypes_paths_both_raise() -> None:
    f = _compiled(add_prefix)
    x = np.arange(5.0)
    assert "kiln_failed" in f.get_concrete_function(x, np.asarray(1.0)).source
    for _ in range(3):  # the first call may run before the native entry is built
        with pytest.raises(ValueError, match="test_runtime_checks.py"):
            f(x, np.asarray(1.0))


def sum_rows_from_zero(x, n):
    s = 0
    for i in range(n):
        s = s + x[i]
    return s


def add_while_positive(x, t):
    s = 0.5
    while t > 0:
        s = s + x
        t = t - 1
    return s


@pytest.mark.parametrize("fn", [sum_rows_from_zero, add_while_positive])
def test_a_number_widened_to_an_array_by_a_loop_that_ran_no_iterations(fn: Callable[..., Any]) -> None:
    """`s = 0` before a staged loop, an array after an iteration: NumPy's `s` after zero iterations
    is still the number, kiln's would be an array of zeros (a silent wrong shape). The call raises,
    naming the loop and the variable; loops that run give NumPy's array."""
    x = np.arange(12.0).reshape(3, 4)
    compiled = _compiled(fn)
    for n in (1, 3):
        np.testing.assert_array_equal(compiled(x, np.int64(n)), fn(x, np.int64(n)))
    assert np.ndim(fn(x, np.int64(0))) == 0
    with pytest.raises(ValueError, match=r"test_runtime_checks\.py:\d+: variable 's' is the Python (int 0|float 0.5) "
                                         r"before this staged `(for|while)` loop .* ran no iterations"):
        compiled(x, np.int64(0))


def int_of_a_sum(x):
    return int(x.sum())


def round_of_a_sum(x):
    return round(x.sum())


@pytest.mark.parametrize("fn", [int_of_a_sum, round_of_a_sum])
def test_int_of_nan_or_infinity_raises(fn: Callable[..., Any]) -> None:
    """Python raises for int(nan) and int(inf) (ValueError, OverflowError): so does kiln, at run
    time, naming the line, instead of returning whatever the C cast gives."""
    compiled = _compiled(fn)
    assert compiled(np.array([1.25, 2.0])) == fn(np.array([1.25, 2.0]))
    for bad, error, what in ((np.nan, ValueError, "NaN"), (np.inf, OverflowError, "infinity"), (-np.inf, OverflowError, "infinity")):
        with pytest.raises(error):
            fn(np.array([bad]))
        with pytest.raises(error, match=rf"test_runtime_checks\.py:\d+.*cannot convert float {what} to integer"):
            compiled(np.array([bad]))
    # exact in Python at any size, beyond the int64 kiln's traced Python ints are: kiln says so
    assert fn(np.array([1e30])) == 10**30 or fn(np.array([1e30])) > 2**63
    with pytest.raises(OverflowError, match=r"test_runtime_checks\.py:\d+.*beyond int64"):
        compiled(np.array([1e30]))
    assert compiled(np.array([-2.0**63])) == fn(np.array([-2.0**63]))


def add_int_of_sum(x, y):
    return x + int(y.sum())


def set_int_of_sum(x, y):
    x[0] = int(y.sum())
    return x


def add_int_carried_by_a_loop(x, y):
    n = 0
    for v in y:
        n = n + int(v)
    return x * n


def full_of_int_of_sum(x, y):
    return np.full(3, int(y.sum()), dtype=x.dtype)


@pytest.mark.parametrize("fn", [add_int_of_sum, set_int_of_sum, add_int_carried_by_a_loop, full_of_int_of_sum])
@pytest.mark.parametrize("dtype", ["int32", "uint8"])
def test_a_traced_python_int_beyond_an_integer_dtype_raises(fn: Callable[..., Any], dtype: str) -> None:
    """A Python int made at run time (int(...), a loop's sum of them) converted to a narrower
    integer dtype: NumPy raises OverflowError where it does not fit (NEP 50); kiln wrapped it.
    Both call paths raise, naming the line; values that fit give NumPy's answer."""
    compiled = _compiled(fn)
    x = np.arange(3, dtype=dtype)
    for y in (np.array([3, 4]), np.array([100, 27])):
        np.testing.assert_array_equal(compiled(x.copy(), y), fn(x.copy(), y))
    for y in (np.array([2**40, 5]), np.array([-2**40, 5])):
        with pytest.raises(OverflowError):
            fn(x.copy(), y)
        for _ in range(2):  # the ctypes path, then the native entry
            with pytest.raises(OverflowError, match=rf"test_runtime_checks\.py:\d+:\d+: Python integer out of bounds for {dtype}"):
                compiled(x.copy(), y)


def add_loop_index(x):
    for i in range(3):
        x = x + i
    return x


def test_a_loop_index_known_to_fit_is_not_checked() -> None:
    """A loop index over a static range fits int8: no run-time check in the trace."""
    compiled = _compiled(add_loop_index)
    x = np.arange(3, dtype=np.int8)
    np.testing.assert_array_equal(compiled(x), add_loop_index(x))
    assert "graph.check" not in compiled.get_concrete_function(x).ir


@pytest.mark.parametrize("fn", [
    lambda x, y: np.where(x > 1, x, int(y.sum())),
    lambda x, y: np.clip(x, 0, int(y.sum())),
    lambda x, y: np.clip(x, int(y.sum()), 100),
    lambda x, y: np.clip(x, -int(y.sum()), 100),
    lambda x, y: x == int(y.sum()),
    lambda x, y: x < int(y.sum()),
    lambda x, y: int(y.sum()) >= x,
    lambda x, y: x.astype(np.uint64) > -int(y.sum()),
    lambda x, y: x.astype(np.int64) + int(y.sum()),
])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_a_traced_python_int_where_numpy_does_not_convert_it(fn: Callable[..., Any], dtype: str) -> None:
    """Where NumPy does not convert the Python int into the array's dtype, no OverflowError:
    np.where casts it (1000 into int8: -24), np.clip ignores a bound beyond the range on its own
    side (and raises beyond the other), comparisons are exact."""
    compiled = _compiled(fn)
    x = np.arange(4, dtype=dtype)
    for y in (np.array([3]), np.array([1000]), np.array([2**40])):
        try:
            want = fn(x.copy(), y)
        except OverflowError:
            with pytest.raises(OverflowError, match=r"test_runtime_checks\.py:\d+"):
                compiled(x.copy(), y)
            continue
        got = compiled(x.copy(), y)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)
