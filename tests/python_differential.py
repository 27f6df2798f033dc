"""Differential checks of Python values (issue 40): a function compiled by kiln.function against the
same function run eagerly in Python/NumPy, on deep copies of the same arguments. Results must match
in type as well as value (an int is not a float, a Python float is not a NumPy float64, a list is
not an ndarray), and so must the arguments after the call, or both calls raise the same error."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

import kiln
from kiln.frontend import pytree

#: the errors a compared function may raise (eagerly, and at run time compiled)
RAISED = (ValueError, RuntimeError, AssertionError, IndexError, ZeroDivisionError)


def same_value(got: Any, want: Any, what: str, rtol: float = 0.0) -> None:
    """``got`` has ``want``'s structure, and each leaf its type, dtype and value (within ``rtol``)."""
    got_leaves, got_tree = pytree.flatten(got)
    want_leaves, want_tree = pytree.flatten(want)
    assert got_tree == want_tree, (what, got, want)
    for g, w in zip(got_leaves, want_leaves):
        assert type(g) is type(w), (what, got, want)
        if g is None:
            continue
        if rtol and np.asarray(w).dtype.kind in "biufc":  # (a str is compared exactly)
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, err_msg=what)
        else:
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=what)
        assert np.asarray(g).dtype == np.asarray(w).dtype, (what, got, want)


def _run(fn: Callable[..., Any], args: tuple[Any, ...], errors: bool) -> tuple[Any, BaseException | None]:
    if not errors:
        return fn(*args), None
    try:
        return fn(*args), None
    except RAISED as error:
        return None, error


def differential(fn: Callable[..., Any], *calls: tuple[Any, ...], rtol: float = 0.0, errors: bool = False) -> kiln.Function:
    """Compare ``fn`` compiled with ``fn`` run eagerly on each call's arguments (copied), twice (the
    second call reuses the trace): results, the arguments afterwards, whether the result is one of
    the arguments (``return xs``), and with ``errors`` the error each raises (the compiled one names
    the line first; an eager ``assert``'s message, which pytest rewrites, is compared by its first line)."""
    compiled = kiln.function(fn)
    for args in calls:
        for _ in range(2):
            eager_args, kiln_args = copy.deepcopy(args), copy.deepcopy(args)
            want, want_error = _run(fn, eager_args, errors)
            got, got_error = _run(compiled, kiln_args, errors)
            if want_error is not None:
                assert type(got_error) is type(want_error), (fn.__name__, got_error, want_error)
                assert str(got_error).endswith(str(want_error).splitlines()[0]), (fn.__name__, got_error, want_error)
            else:
                assert got_error is None, (fn.__name__, got_error)
                same_value(got, want, f"{fn.__name__} result", rtol)
                for e, k in zip(eager_args, kiln_args):
                    assert (want is e) == (got is k), f"{fn.__name__}: the result is an argument in Python"
            same_value(kiln_args, eager_args, f"{fn.__name__} arguments after the call", rtol)
    return compiled
