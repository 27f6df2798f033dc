"""Chained comparisons, ``and``/``or``/``not``, ``assert`` and ``raise`` on traced values keep
Python's meaning (issue 40): each function is compiled and compared with the same Python run on
NumPy, failing calls included (the same exception type, and its message after the user's
``file:line``), and so is what ``kiln.print`` shows of the short-circuit.

PYTEST_DONT_REWRITE: the functions compiled here are run as Python too, and their ``assert``
must be Python's, not pytest's (which adds the values it compared to the message)."""

from __future__ import annotations

import functools
import itertools
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.dialects import graph

_COMPILED: dict[Callable[..., Any], kiln.Function] = {}

X = np.array([0.0, 0.25, 0.5, 0.75, 1.0, -0.5])


def _compiled(fn: Callable[..., Any]) -> kiln.Function:
    return _COMPILED.setdefault(fn, kiln.function(fn))


def _run(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, BaseException | None, list[Any]]:
    """``fn(*args)`` on copies of the arguments: its result or error, and the arguments after."""
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return fn(*copies), None, copies
    except Exception as error:  # the differential compares any error with Python's
        return None, error, copies


def same_as_python(fn: Callable[..., Any], *args: Any, staged: bool = True) -> BaseException | None:
    """The compiled call returns Python's result, or raises Python's exception type with Python's
    message; raised at run time (``staged``), the user's ``file:line`` comes as a note on it."""
    expected, expected_error, expected_args = _run(fn, args)
    got, error, got_args = _run(_compiled(fn), args)
    if expected_error is None:
        assert error is None, f"compiled call raised {error!r}"
        np.testing.assert_array_equal(got, expected)
    else:
        assert type(error) is type(expected_error), f"{error!r} where Python raised {expected_error!r}"
        assert str(error) == str(expected_error), (error, expected_error)
        if staged:
            assert any(note.startswith(f"raised at {__file__}:") for note in getattr(error, "__notes__", ())), error
    for a, b in zip(got_args, expected_args):
        np.testing.assert_array_equal(a, b)
    return error


# ---------------------------------------------------------------------- chained comparisons


def count_in_band(x):
    c = 0
    for i in range(x.shape[0]):
        if 0.2 <= x[i] <= 0.8:
            c += 1
    return c


def count_in_band_of_arguments(x, lo, hi):
    c = 0
    for i in range(x.shape[0]):
        if lo < x[i] < hi:
            c += 1
    return c


def count_rising_runs(x):
    c = 0
    for i in range(x.shape[0] - 1):
        if -1 < x[i] < x[i + 1] <= 1:
            c += 1
    return c


def count_mixed_operators(x):
    c = 0
    for i in range(x.shape[0]):
        if 0 != x[i] != 1 and x[i] is not None:
            c += 1
    return c


def python_chain(x, n):
    return x * 2 if 0 < n <= x.shape[0] != 3 else x


def band_as_value(x):
    return 0.2 <= x.sum() <= 2.0


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (count_in_band, (X,)),
        (count_in_band_of_arguments, (X, 0.0, 0.8)),
        (count_in_band_of_arguments, (X, np.float64(0.0), np.float64(0.8))),
        (count_rising_runs, (X,)),
        (count_mixed_operators, (X,)),
        (python_chain, (X, 2)),
        (python_chain, (X, 0)),
        (band_as_value, (X,)),
        (band_as_value, (X * 4,)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_chained_comparison(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    same_as_python(fn, *args)


def loud(v):
    kiln.print("evaluated")
    return v


def middle_once(x):
    c = 0
    for i in range(x.shape[0]):
        if 0.2 <= loud(x[i]) <= 0.8:
            c += 1
    return c


def last_only_when_needed(x):
    c = 0
    for i in range(x.shape[0]):
        if 0.2 <= x[i] <= loud(0.8):
            c += 1
    return c


@pytest.mark.parametrize("fn", [middle_once, last_only_when_needed])
def test_chained_comparison_evaluates_each_operand_once_and_short_circuits(
    fn: Callable[..., Any], capfd: pytest.CaptureFixture[str]
) -> None:
    expected = fn(X.copy())
    printed = capfd.readouterr().out
    assert _compiled(fn)(X.copy()) == expected
    assert capfd.readouterr().out == printed  # as many "evaluated" lines as Python printed


def chain_of_an_array(x):
    return 0 < x < 1


def test_chained_comparison_of_an_array_is_ambiguous_as_in_numpy() -> None:
    with pytest.raises(ValueError, match="ambiguous"):
        chain_of_an_array(X)
    with pytest.raises(ValueError, match="ambiguous"):
        _compiled(chain_of_an_array)(X)


# ---------------------------------------------------------------------- and, or, not


def and_or_not(x, t):
    c = 0
    for i in range(x.shape[0]):
        if x[i] > t and x[i] < 0.9 or not x[i] > -0.1:
            c += 1
    return c


def and_value(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] and x[i] * 2
    return s


def or_default(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] or 0.5
    return s


@pytest.mark.parametrize(("fn", "args"), [(and_or_not, (X, 0.3)), (and_value, (X,)), (or_default, (X,))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_and_or_not(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    same_as_python(fn, *args)


# ---------------------------------------------------------------------- assert


def assert_in_loop(x):
    for i in range(x.shape[0]):
        assert x[i] >= 0, "negative"
    return x.sum()


def assert_on_a_sum(x, k):
    assert x.sum() > 0, f"row {k} sums to nothing"
    return x * 2


def assert_without_message(x):
    assert x.max() < 0.9
    return x - 1


def assert_in_a_branch(x):
    y = x * 1.0
    if x[0] > 0:
        assert x[1] > x[0], "not rising"
        y = y * 2
    return y


def assert_on_a_shape(x):
    assert x.shape[0] > 10, "too short"
    return x


@pytest.mark.parametrize(
    ("fn", "args", "staged"),
    [
        (assert_in_loop, (np.abs(X),), True),
        (assert_in_loop, (X,), True),
        (assert_on_a_sum, (X, 3), True),
        (assert_on_a_sum, (-np.abs(X), 3), True),
        (assert_without_message, (X * 0.5,), True),
        (assert_without_message, (X,), True),
        (assert_in_a_branch, (X + 1.0,), True),
        (assert_in_a_branch, (X[::-1] + 1.0,), True),
        (assert_in_a_branch, (X - 1.0,), True),
        (assert_on_a_shape, (X,), False),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_assert(fn: Callable[..., Any], args: tuple[Any, ...], staged: bool) -> None:
    same_as_python(fn, *args, staged=staged)


def test_a_failed_assert_without_message_shows_its_test() -> None:
    error = same_as_python(assert_without_message, X)
    assert error.__notes__[-1].endswith("`assert x.max() < 0.9` failed (a run-time check of a kiln.function)")


def assert_message_of_traced_values(x):
    for i in range(x.shape[0]):
        assert x[i] >= 0, f"x[{i}] = {x[i]:.2f} is negative"
    return x.sum()


def test_assert_message_with_a_traced_value_says_it_is_known_at_run_time() -> None:
    with pytest.raises(AssertionError, match="is negative") as info:
        _compiled(assert_message_of_traced_values)(np.resize(X, 40))
    assert "<x[i], known only at run time>" in str(info.value)


def assert_message_made_only_on_failure(x):
    assert x.shape[0] > 0, 1 / 0
    return x + 1


def test_assert_message_is_made_only_where_python_makes_it() -> None:
    same_as_python(assert_message_made_only_on_failure, X)


def assert_of_an_array(x):
    assert x > 0
    return x


def test_assert_of_an_array_is_ambiguous_as_in_numpy() -> None:
    with pytest.raises(ValueError, match="ambiguous"):
        assert_of_an_array(X)
    with pytest.raises(ValueError, match="ambiguous"):
        _compiled(assert_of_an_array)(X)


def test_assert_has_a_gradient_of_its_function() -> None:
    def f(x):
        assert x.sum() > 0, "empty"
        return (x * x).sum()

    np.testing.assert_allclose(kiln.grad(f)(np.abs(X)), 2 * np.abs(X))
    with pytest.raises(AssertionError, match="empty"):
        kiln.grad(f)(-np.abs(X))


def test_python_dash_o_skips_asserts() -> None:
    source = textwrap.dedent(
        """
        import numpy as np, kiln
        @kiln.function
        def f(x):
            assert x.sum() > 100, "skipped under -O"
            return x * 2
        print(f(np.arange(3.0)).tolist())
        """
    )
    with open("/dev/null") as stdin:
        done = subprocess.run([sys.executable, "-O", "-c", source], capture_output=True, text=True, stdin=stdin, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0.0, 2.0, 4.0]"


# ---------------------------------------------------------------------- raise


def raise_when_too_big(x):
    if x.sum() > 10:
        raise ValueError("too big")
    return x * 2


def raise_in_else(x):
    if x.sum() > 1:
        y = x * 3
    else:
        raise IndexError("too small")
    return y


def raise_in_loop(x):
    i = 0
    while x[i] > 0:
        i += 1
        if i >= x.shape[0]:
            raise RuntimeError("no zero found")
    return i


def raise_in_for(x, limit):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > limit:
            raise ZeroDivisionError(f"over the limit {limit}") from None
        s += x[i]
    return s


def _checked(v):
    if v < 0:
        raise TypeError("a negative value")
    return v * 2


def raise_in_a_helper(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += _checked(x[i])
    return s


def raise_assertion(x):
    if x.min() < -0.25:
        raise AssertionError("below -0.25")
    return x


def python_assert_in_a_branch(x, n):
    if x.sum() > 0:
        assert n < 3, "n too large here"
        return x * n
    return x


def raise_decided_by_python(x, n):
    if n > 3:
        raise ValueError(f"n = {n} is too large")
    return x * n


def raise_every_iteration_reaches(x, n):
    # kiln.fuzz python 20400-1445: the staged loop's body always raises (a Python test), so no
    # iteration ends; kiln said "cannot return a _NotReturned" where Python raises
    c = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            c -= 1
        if n > 0.75:
            raise RuntimeError("check 1: bad data")
    return x * c


def python_raise_after_a_staged_raise(x, n):
    if x[0] > 0:
        raise ValueError("positive start")
    raise RuntimeError(f"n = {n}")


def _python_check(n):
    if n > 3:
        raise ValueError(f"n = {n} is too large")
    return n


def python_raise_in_a_helper_after_a_staged_assert(x, n):
    assert x[0] <= 0, "positive start"
    return x * _python_check(n)


@kiln.function
def _compiled_python_check(x, n):
    if n > 3:
        raise ValueError(f"n = {n} is too large")
    return x * n


def python_raise_in_a_kiln_function_after_a_staged_assert(x, n):
    assert x[0] <= 0, "positive start"
    return _compiled_python_check(x, n) + 1


def python_assert_after_a_staged_raise(x, n):
    if x[0] > 0:
        raise ValueError("positive start")
    assert n < 3, "n too large"
    return x


def python_raise_caught_after_a_staged_raise(x, n):
    if x[0] > 0:
        raise ValueError("positive start")
    try:
        _python_check(n)
    except ValueError:
        n = 0
    return x + n


@pytest.mark.parametrize(
    ("fn", "args", "staged"),
    [
        (python_raise_after_a_staged_raise, (X + 1, 2), True),
        (python_raise_after_a_staged_raise, (-X, 2), True),
        (python_raise_in_a_helper_after_a_staged_assert, (X + 1, 5), True),
        (python_raise_in_a_helper_after_a_staged_assert, (-X, 5), True),
        (python_raise_in_a_helper_after_a_staged_assert, (-X, 2), True),
        (python_assert_after_a_staged_raise, (X + 1, 5), True),
        (python_assert_after_a_staged_raise, (-X, 5), True),
        (python_raise_caught_after_a_staged_raise, (X + 1, 5), True),
        (python_raise_caught_after_a_staged_raise, (-X, 5), True),
        (raise_when_too_big, (X,), True),
        (raise_when_too_big, (X * 10,), True),
        (raise_in_else, (X,), True),
        (raise_in_else, (X * 0.1,), True),
        (raise_in_loop, (np.array([3.0, 2.0, 0.0, 1.0]),), True),
        (raise_in_loop, (np.array([3.0, 2.0, 4.0, 1.0]),), True),
        (raise_in_for, (np.resize(X, 20), 2.0), True),
        (raise_in_for, (np.resize(X, 20), 0.5), True),
        (raise_in_a_helper, (np.abs(X),), True),
        (raise_in_a_helper, (X,), True),
        (raise_assertion, (X,), True),
        (raise_assertion, (X * 0.1,), True),
        (python_assert_in_a_branch, (X, 5), True),
        (python_assert_in_a_branch, (-np.abs(X), 5), True),
        (python_assert_in_a_branch, (X, 2), True),
        (raise_decided_by_python, (X, 2), False),
        (raise_decided_by_python, (X, 5), False),
        (raise_every_iteration_reaches, (X, 2), True),
        (raise_every_iteration_reaches, (X, 0), True),
        (raise_every_iteration_reaches, (X[:0], 2), True),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_raise(fn: Callable[..., Any], args: tuple[Any, ...], staged: bool) -> None:
    """A Python ``raise`` (a Python test, a helper's, a Python ``assert``) below a staged ``raise`` or
    ``assert`` is a run-time error after it, as in Python: the staged one, where it fails, comes first."""
    same_as_python(fn, *args, staged=staged)


def pythons_own_division_below_a_staged_raise(x, t):
    # kiln.fuzz python 20800-1800, reduced: CPython's ZeroDivisionError raised while tracing came
    # before the staged check above it, which Python raises first where it fails
    if np.any(x > -0.25):
        raise RuntimeError("check 1: out of range")
    return divmod(t, 0.0)[0]


def pythons_own_index_error_below_a_staged_assert(x, lst):
    assert x[0] <= 0, "positive start"
    return lst[7] * x


def pythons_own_key_error_after_a_print(x, d):
    kiln.print(x)
    return d["y"] * x


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (pythons_own_division_below_a_staged_raise, (-np.abs(X) - 1, 0.75)),
        (pythons_own_division_below_a_staged_raise, (X, 0.75)),
        (pythons_own_index_error_below_a_staged_assert, (-np.abs(X), [1.0, 2.0])),
        (pythons_own_index_error_below_a_staged_assert, (np.abs(X) + 1, [1.0, 2.0])),
        (pythons_own_key_error_after_a_print, (X, {"x": 1.0})),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_pythons_own_errors_come_after_the_checks_above_them(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """An error CPython raises in the function's own code while tracing (a Python number divided by
    zero, a list or dict indexed out of range) below a run-time check or print is, like a Python
    ``raise`` there, a run-time error after them: the check's error where it fails, else Python's."""
    same_as_python(fn, *args)


def test_a_python_raise_in_a_kiln_function_comes_after_its_callers_staged_check() -> None:
    """A kiln.function callee is traced on its own: its Python ``raise`` would run while tracing it,
    before the caller's staged ``assert``; it is traced into its caller instead, where it comes after."""
    fn = _compiled(python_raise_in_a_kiln_function_after_a_staged_assert)
    with pytest.raises(AssertionError) as info:
        fn(X + 1, 5)
    assert str(info.value) == "positive start"
    assert re.match(r"raised at .*test_python_constructs.py:\d+:\d+: `assert x\[0\] <= 0` failed", info.value.__notes__[-1])
    with pytest.raises(ValueError) as info:
        fn(-X, 5)
    assert str(info.value) == "n = 5 is too large"
    assert re.match(r"raised at .*test_python_constructs.py:\d+:\d+ \(", info.value.__notes__[-1])
    np.testing.assert_array_equal(fn(-X, 2), -X * 2 + 1)


def print_around_a_raise(x):
    kiln.print("before")
    if x.sum() > 10:
        raise ValueError("too big")
    kiln.print("after")
    return x


@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_nothing_after_a_raise_runs(scale: float, capfd: pytest.CaptureFixture[str]) -> None:
    same_as_python(print_around_a_raise, X * scale)
    out = capfd.readouterr().out
    half = len(out) // 2
    assert out[:half] == out[half:] and out.startswith("before")  # Python's lines, then the same compiled


class _OwnError(Exception):
    pass


def raise_own_error(x):
    if x.sum() > 0:
        raise _OwnError("mine")
    return x


def raise_own_error_after_a_staged_raise(x):
    if x[0] > 0:
        raise ValueError("positive start")
    raise _OwnError("mine")


@pytest.mark.parametrize("fn", [raise_own_error, raise_own_error_after_a_staged_raise])
def test_raise_of_another_exception_is_refused_naming_the_line(fn: Callable[..., Any]) -> None:
    with pytest.raises(NotImplementedError, match="builtin exceptions") as info:
        _compiled(fn)(-X)
    assert str(info.value).startswith(f"{__file__}:")
    assert "_OwnError" in str(info.value)


def test_a_check_message_names_its_builtin_exception() -> None:
    for kind in (ValueError, IndexError, AssertionError, ZeroDivisionError, RuntimeError):
        error = graph.check_error(graph.error_prefix(kind) + "f.py:3: text")
        assert type(error) is kind and str(error) == "f.py:3: text"
    assert type(graph.check_error("MyError: f.py:3: text")) is ValueError
    with pytest.raises(ValueError, match="builtin exceptions only"):
        graph.error_prefix(_OwnError)


def raise_on_both_paths(x):
    y = x * 2
    if x.sum() > 0:
        if x[0] > 0:
            raise ValueError("positive start")
        else:
            raise RuntimeError("no positive start")
        y = y + 1
    return y


def raise_in_one_branch_of_two(x, t):
    if x[0] > t:
        if x[1] > t:
            raise ValueError("both above")
        y = x * 2
    else:
        y = x - 1
    return y


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (raise_on_both_paths, (X,)),
        (raise_on_both_paths, (X + 1.0,)),
        (raise_on_both_paths, (-X - 1.0,)),
        (raise_in_one_branch_of_two, (X, 0.1)),
        (raise_in_one_branch_of_two, (X, -1.0)),
        (raise_in_one_branch_of_two, (X[::-1], 0.5)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_raise_ends_its_path(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    same_as_python(fn, *args)


def test_a_path_that_raises_yields_nothing_and_sets_no_flag() -> None:
    ir = _compiled(raise_when_too_big).get_concrete_function(X).ir
    assert ir.count("graph.cond") == 1 and "graph.cond %" in ir and "-> (" not in ir.split("graph.cond")[1].split("\n")[0]


# ---------------------------------------------------------------------- try

_WEIGHTS = {"a": 2.0}


def weighted_positive_sum(x, name):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            try:
                w = _WEIGHTS[name]
            except KeyError:
                w = 1.0
            s += w * x[i]
    return s


@pytest.mark.parametrize("name", ["a", "b"])
def test_try_around_python_code_in_staged_code_runs_as_python(name: str) -> None:
    same_as_python(weighted_positive_sum, X, name)


def assert_in_try(x):
    try:
        assert x.sum() > 0, "empty"
    except AssertionError:
        return x
    return x * 2


def test_a_staged_assert_inside_try_is_refused() -> None:
    with pytest.raises(NotImplementedError, match="`try` around staged code cannot be staged") as info:
        _compiled(assert_in_try)(X)
    assert str(info.value).startswith(f"{__file__}:")


# --- functions handed to map, filter, functools.reduce, sorted ... are converted too --------------


def _signed_step(acc, v):
    if v > 0:
        return acc + v
    return acc - 2 * v


def _doubled_if_positive(v):
    if v > 0:
        return v * 2
    return -v


def reduce_with_a_branch(x):
    return functools.reduce(_signed_step, [x[0], x[1], x[2], x[5]], 0.0)


def map_with_a_branch(x):
    return sum(map(_doubled_if_positive, [x[1], x[5], x[3]]))


def map_of_a_lambda(x):
    return sum(map(lambda v: v if v > 0.3 else 0.0 * v, [x[1], x[2], x[3]]))


def reduce_of_a_partial(x, scale):
    return functools.reduce(functools.partial(_scaled_step, scale), [x[4], x[5]], x[0])


def _scaled_step(scale, acc, v):
    if v < 0:
        return acc * scale
    return acc + v


def accumulate_with_a_branch(x):
    return list(itertools.accumulate([x[0], x[5], x[2]], _signed_step))[-1]


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (reduce_with_a_branch, (X,)),
        (reduce_with_a_branch, (-X,)),
        (map_with_a_branch, (X,)),
        (map_of_a_lambda, (X,)),
        (reduce_of_a_partial, (X, 3.0)),
        (accumulate_with_a_branch, (X,)),
    ],
)
def test_a_branch_in_a_function_given_to_a_library_call_is_staged(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """issue 40: an ``if`` on a traced value inside a function called through ``functools.reduce``
    or ``map`` failed ("Python control flow on a traced kiln tensor"): only functions called by
    the user's code were converted, not those handed to a library that calls them."""
    same_as_python(fn, *args)
    assert "graph.cond" in _compiled(fn).get_concrete_function(*args).ir
