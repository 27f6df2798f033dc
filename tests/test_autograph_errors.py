"""Every AutoGraph diagnostic at trace time names the user's file, line and variable."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend.autograph import effects

counter = 0


def _line_of(fn: Callable[..., Any], text: str) -> str:
    """``file:line`` of the first line of ``fn`` containing ``text``."""
    lines, first = inspect.getsourcelines(fn)
    offset = next(i for i, line in enumerate(lines) if text in line)
    return f"{inspect.getsourcefile(fn)}:{first + offset}"


def _raises(fn: Callable[..., Any], error: type[Exception], *args: Any, **options: Any) -> str:
    with pytest.raises(error) as info:
        kiln.function(fn, **options)(*args)
    return str(info.value)


def defined_in_one_branch(x):
    if x > 0:
        y = x * 2
    return y


def test_variable_defined_in_one_branch_and_used_after() -> None:
    message = _raises(defined_in_one_branch, UnboundLocalError, np.float64(1.0))
    assert message.startswith(_line_of(defined_in_one_branch, "if x > 0") + ":")
    assert "variable 'y' is defined only in the `if` branch" in message


def defined_in_one_branch_unused(x):
    if x > 0:
        y = x * 2
        x = y
    return x


def test_variable_defined_in_one_branch_but_unused_is_fine() -> None:
    assert kiln.function(defined_in_one_branch_unused)(np.float64(2.0)) == 4.0


def branch_dtypes_differ(x):
    if x > 0:
        y = x
    else:
        y = np.int64(1)
    return y


def test_branches_give_different_dtypes() -> None:
    message = _raises(branch_dtypes_differ, TypeError, np.float64(1.0))
    assert message.startswith(_line_of(branch_dtypes_differ, "if x > 0") + ":")
    assert "variable 'y' is a float64 tensor of shape () in the `if` branch but a NumPy int64" in message


def and_of_different_types(x):
    y = (x.sum() > 0) and -1
    return y


def test_an_and_whose_operands_differ_is_named_as_such() -> None:
    """The value of a staged `a and b` is no variable, nor an `if` statement: the message says what it is."""
    message = _raises(and_of_different_types, TypeError, np.ones(3))
    assert message.startswith(_line_of(and_of_different_types, "and -1") + ":")
    assert ("the value of `a and b` is the Python int -1 in the `b` branch but a bool tensor of shape () in the `a` "
            "branch of this `a and b` on a tensor") in message


def number_or_array(x):
    b = 6
    if x.sum() > 0:
        b = x * 2
    return b


def number_or_array_returned(x):
    if x.sum() > 0:
        return x * 2
    return 0.5


def number_or_0d_array(x):
    b = 6
    if x.sum() > 0:
        b = x.sum()
    return b


@pytest.mark.parametrize("fn, line", [(number_or_array, "if x.sum() > 0"), (number_or_array_returned, "if x.sum() > 0")])
def test_number_on_one_path_array_on_the_other(fn: Callable[..., Any], line: str) -> None:
    """NumPy gives a number on one path and an array on the other: kiln must not broadcast the
    number to the array's shape (a silent wrong shape on that path) but refuse, naming the `if`."""
    message = _raises(fn, TypeError, np.array([-1.0, -2.0, -3.0]))
    assert message.startswith(_line_of(fn, line) + ":")
    assert "float64 tensor of shape (3,)" in message and "would depend on the path" in message


def number_then_array_before_a_return(x, t):
    while t < 4:
        t = t + 1
        acc = 0
        for i in range(2):
            acc = acc + x
            if i >= 0:
                return acc * 2
    return x


def test_a_number_on_a_path_that_returned_is_not_read() -> None:
    """(kiln.fuzz 1220-750, reduced) The `for` runs each iteration under a staged `if` on the
    return flag; on the path that already returned `acc` is still the number, but nothing reads
    it there: merged with the array, not refused."""
    f = kiln.function(number_then_array_before_a_return)
    for t in (0, 9):
        np.testing.assert_array_equal(f(np.arange(3.0), np.int64(t)), number_then_array_before_a_return(np.arange(3.0), np.int64(t)))


def best_row(x, n):
    best = 0
    for i in range(n):
        if x[i].sum() > 3:
            best = x[i]
    return best


def test_a_number_or_a_row_in_a_loop_is_refused_as_written() -> None:
    """NumPy returns 0 when no row qualifies: refused, and the message shows the Python number as
    the user wrote it (not the int64 tensor a second probe of the loop types it as)."""
    message = _raises(best_row, TypeError, np.arange(12.0).reshape(3, 4), np.int64(3))
    assert message.startswith(_line_of(best_row, "if x[i].sum() > 3") + ":")
    assert "the Python int 0 in the `else` branch" in message


def test_number_on_one_path_0d_array_on_the_other_is_fine() -> None:
    f = kiln.function(number_or_0d_array)
    for x in (np.array([-1.0, -2.0]), np.array([1.0, 2.0])):
        assert f(x) == number_or_0d_array(x)


def loop_dtype_changes(x, n):
    i = np.int64(0)
    while i < n:
        i = i + x
    return i


def test_loop_carried_dtype_changes() -> None:
    message = _raises(loop_dtype_changes, TypeError, np.float64(0.5), np.int64(3))
    assert message.startswith(_line_of(loop_dtype_changes, "while i < n") + ":")
    assert "variable 'i' is an int64 tensor of shape () before this staged `while` loop" in message
    assert "a float64 tensor of shape () after an iteration" in message


def loop_shape_changes(v, n):
    acc = v[0]
    for i in kiln.range(n):
        acc = acc + v
    return acc


def test_loop_carried_shape_changes() -> None:
    message = _raises(loop_shape_changes, TypeError, np.ones(3), np.int64(2))
    assert message.startswith(_line_of(loop_shape_changes, "for i in") + ":")
    assert "variable 'acc' is a float64 tensor of shape () before" in message
    assert "shape (3,) after an iteration" in message


def tensor_if(x):
    if x > 0:
        return x
    return -x


def test_tensor_control_flow_without_autograph() -> None:
    message = _raises(tensor_if, TypeError, np.float64(1.0), autograph=False)
    assert message.startswith(_line_of(tensor_if, "if x > 0") + ":")
    assert "use autograph=True (the default)" in message


def try_in_staged_branch(x):
    if x > 0:
        try:
            x = x + 1
        except ValueError:
            pass
    return x


def test_try_inside_staged_code_runs_as_python() -> None:
    f = kiln.function(try_in_staged_branch)
    assert float(f(np.float64(1.0))) == 2.0 and float(f(np.float64(-1.0))) == -1.0


def checked_index_in_try(x, i):
    try:
        y = x[i]
    except IndexError:
        y = x[0]
    return y


def test_run_time_check_inside_try_is_refused() -> None:
    message = _raises(checked_index_in_try, NotImplementedError, np.arange(3.0), np.int64(1))
    assert message.startswith(_line_of(checked_index_in_try, "y = x[i]") + ":")
    assert f"inside the `try` at {_line_of(checked_index_in_try, 'try:')}" in message
    assert "IndexError: index out of bounds" in message


def global_in_staged_loop(x):
    global counter
    while x > 0:
        counter += 1
        x = x - 1
    return x


def test_global_inside_staged_code() -> None:
    message = _raises(global_in_staged_loop, NotImplementedError, np.float64(3.0))
    assert message.startswith(_line_of(global_in_staged_loop, "while x > 0") + ":")
    assert "`global` cannot be staged" in message
    assert "variable 'counter'" in message


class NegativeError(Exception):
    pass


def raise_in_staged_branch(x):
    if x < 0:
        raise NegativeError("negative")
    return x


def test_raise_of_a_user_exception_inside_staged_code() -> None:
    message = _raises(raise_in_staged_branch, NotImplementedError, np.float64(1.0))
    assert message.startswith(_line_of(raise_in_staged_branch, "raise NegativeError") + ":")
    assert "one of Python's builtin exceptions" in message and "NegativeError" in message


def generator(x):
    yield x


def test_yield_cannot_be_staged() -> None:
    message = _raises(generator, TypeError, np.float64(1.0))
    assert "`yield` cannot be staged" in message
    assert re.search(r"test_autograph_errors\.py:\d+", message)


def non_scalar_condition(v):
    if v > 0:
        v = v + 1
    return v


def test_condition_must_be_scalar() -> None:
    message = _raises(non_scalar_condition, ValueError, np.ones(3))
    assert message.startswith(_line_of(non_scalar_condition, "if v > 0") + ":")
    assert "shape (3,)" in message and ".any() / .all()" in message


def dynamic_tensor_array(x, n):
    ta = kiln.TensorArray(x.dtype, dynamic_size=True)
    i = 0
    while i < n:
        ta = ta.write(i, x)
        i += 1
    return ta.stack()


def test_dynamic_tensor_array_needs_a_bound() -> None:
    message = _raises(dynamic_tensor_array, ValueError, np.float64(1.0), np.int64(3))
    assert message.startswith(_line_of(dynamic_tensor_array, "ta = ta.write") + ":")
    assert "pass size=" in message


def staged_if_in_try(x):
    try:
        if x > 0:
            x = x + 1
    except ValueError:
        x = x - 1
    return x


def _staged_helper(x):
    while x > 1:
        x = x / 2
    return x


def staged_call_in_try(x):
    try:
        y = _staged_helper(x)
    except ZeroDivisionError:
        y = x
    return y


def staged_expression_in_try(x):
    try:
        y = x if x > 0 else -x
    finally:
        pass
    return y


def staged_if_in_except(x):
    try:
        y = x
    except ValueError:
        if x > 0:
            y = -x
    finally:
        if x > 1:
            y = y * 2
    return y


def test_try_around_staged_code() -> None:
    message = _raises(staged_if_in_try, NotImplementedError, np.float64(1.0))
    assert message.startswith(_line_of(staged_if_in_try, "if x > 0") + ":")
    assert f"`try` around staged code cannot be staged ({_line_of(staged_if_in_try, 'try:')})" in message
    assert "`except` clauses" in message
    message = _raises(staged_call_in_try, NotImplementedError, np.float64(4.0))
    assert message.startswith(_line_of(_staged_helper, "while x > 1") + ":")
    assert f"({_line_of(staged_call_in_try, 'try:')})" in message
    message = _raises(staged_expression_in_try, NotImplementedError, np.float64(1.0))
    assert "this `a if cond else b` depends on a tensor" in message


def test_staged_code_in_except_and_finally_is_fine() -> None:
    f = kiln.function(staged_if_in_except)
    assert float(f(np.float64(2.0))) == 4.0 and float(f(np.float64(0.5))) == 0.5


def indexed_by_an_array(x):
    y = x + 1
    return y[np.array([[0, 1], [1, 0]]), None]  # an integer array with np.newaxis is refused


def reshaped_wrongly(x):
    return x.reshape(7)


@pytest.mark.parametrize(
    "fn, error, text",
    [(indexed_by_an_array, NotImplementedError, "y[np.array"), (reshaped_wrongly, ValueError, "x.reshape(7)")],
)
def test_errors_from_inside_kiln_name_the_users_line(fn: Callable[..., Any], error: type[Exception], text: str) -> None:
    """A refusal or NumPy error raised deep in kiln while tracing starts with the user's file:line."""
    message = _raises(fn, error, np.ones(4))
    assert message.startswith(_line_of(fn, text) + ":"), message


def index_in_the_branch_not_taken(x):
    if x.sum() > 100:
        y = x[5]
    else:
        y = x[0]
    return y


def reshape_in_the_branch_not_taken(x):
    if x.sum() > 100:
        y = x.reshape(2, 2)
    else:
        y = x
    return y.sum()


@pytest.mark.parametrize("fn, error", [(index_in_the_branch_not_taken, IndexError),
                                       (reshape_in_the_branch_not_taken, ValueError)])
def test_a_numpy_error_in_a_branch_numpy_does_not_take_says_why_it_is_raised(fn: Callable[..., Any], error: type) -> None:
    """NumPy runs only the branch taken (no error on this input); kiln traces both and raises
    NumPy's error of the other, now saying that it was raised while tracing that branch."""
    fn(np.arange(3.0))
    with pytest.raises(error, match=r"test_autograph_errors\.py:\d+.*raised while kiln traced the `if` branch of the "
                                    r"staged `if` at .*test_autograph_errors\.py:\d+: kiln traces both branches"):
        kiln.function(fn)(np.arange(3.0))


def kept_until_break(xs, t):
    out = [xs[0]]
    k = 0
    while k < 3:
        k += 1
        if k == 2:
            t = t + 1
        elif xs[k] > t:
            break
        out.append(xs[k])
    return out


def test_code_after_a_staged_break_is_refused_naming_the_users_if() -> None:
    """AutoGraph guards the statements after a `break` with `if not break_:`; a refusal of that guard
    names the user's `elif` holding the `break`, not the guarded statement (it named the append)."""
    message = _raises(kept_until_break, effects.PythonEffectError, np.array([1.0, 2.0, 9.0, 3.0]), 4.0)
    assert message.startswith(_line_of(kept_until_break, "out.append") + ":"), message
    assert f"inside a staged `if` at {_line_of(kept_until_break, 'elif xs[k] > t')}:" in message, message


def appends_unless_broken(xs, t):
    out = [0.0]
    for k in range(3):
        if xs[k] > t:
            break
    else:
        out.append(1.0)
    return out


def test_a_loop_else_after_a_staged_break_is_refused_naming_the_users_if() -> None:
    """The `else` of a loop is guarded by a flag the `break` clears; that guard names the `if`
    holding the `break` (it named the `else`'s first statement, the append itself)."""
    message = _raises(appends_unless_broken, effects.PythonEffectError, np.array([1.0, 2.0, 9.0]), 4.0)
    assert message.startswith(_line_of(appends_unless_broken, "out.append") + ":"), message
    assert f"inside a staged `if` at {_line_of(appends_unless_broken, 'if xs[k] > t')}:" in message, message
