"""``assert_``, ``raise_``: Python's ``assert`` and ``raise`` on Python values; run-time checks
(``graph.check``) where a traced value decides whether they fail.

A message is made while tracing, as Python makes it. A traced value in it (``{x[i]}`` in an
f-string, a tensor given as the message) has no value then: it shows as
``<x[i], known only at run time>`` (:func:`run_time_text`).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from kiln.frontend import calls, python_raises
from kiln.frontend.autograph import staging

#: ``raise_``'s ``cause`` when the ``raise`` has no ``from`` (``from None`` is a cause)
_NO_CAUSE = object()


class _RunTimeValue:
    """A traced value in a message: shown as its source text, said to be known only at run time."""

    def __init__(self, source: str):
        self.text = f"<{source}, known only at run time>"

    def __format__(self, spec: str) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


def run_time_text(value: Any, source: str) -> Any:
    """What an f-string in a message formats for ``value`` (written ``source``): itself, or a
    traced value's source text."""
    return _RunTimeValue(source) if staging.is_tensor(value) else value


def assert_(test: Any, message: Callable[[], Any] | None, source: str) -> None:
    """``assert test, message()`` (``source``: the test as written). A Python ``test`` is Python's
    ``assert``; a tensor one is a run-time check raising AssertionError in the caller, its message
    made while tracing (Python would make it only on failure, which is known only at run time)."""
    if staging.is_tensor(test):
        staging.staged_assert(test, _shown(message(), "the message") if message is not None else "", source)
    elif not test:
        raise_(AssertionError(message()) if message is not None else AssertionError())


def raise_(exc: Any, cause: Any = _NO_CAUSE) -> None:
    """``raise exc from cause``: Python's ``raise``, except in a staged region (a branch or loop body
    on a tensor, which runs only on the calls that reach it), where it is a run-time error of the same
    builtin exception and message whenever that path runs; other exceptions are refused there.
    Raised while tracing, it is noted: where it ends the trace after a run-time check or print, it
    becomes a run-time error after them (python_raises.raised_when_run)."""
    error = exc() if isinstance(exc, type) and issubclass(exc, BaseException) else exc
    where = staging.statement_location()
    if not isinstance(error, BaseException):
        raise TypeError(f"{where}: exceptions must derive from BaseException (got {type(error).__name__})")
    kind = type(error)
    text = str(kind(*(_shown(a, "an argument") if staging.is_tensor(a) else a for a in error.args))) \
        if _builtin_with_message(kind) else None
    if not staging.in_staged_region():
        if calls.in_callee():
            calls.trace_into_caller()  # (the caller's trace says whether a run-time check comes before)
        python_raises.note_python_raise(error, text)
        if cause is _NO_CAUSE:
            raise error
        raise error from cause
    if text is None:
        raise NotImplementedError(
            f"{where}: this `raise` is in code staged under a tensor condition, so it is a run-time error, which "
            f"can be one of Python's builtin exceptions that take a message (ValueError, TypeError, IndexError, "
            f"RuntimeError, ZeroDivisionError, AssertionError, ...), not {kind.__module__}.{kind.__qualname__}. "
            "Raise a builtin exception there, or make the condition a Python value."
        )
    staging.staged_raise(kind, text)


def _builtin_with_message(kind: type[BaseException]) -> bool:
    """Whether the native entry can raise ``kind`` by name with a message (graph.error_prefix)."""
    if getattr(builtins, kind.__name__, None) is not kind or not issubclass(kind, Exception):
        return False
    try:
        kind("")
    except Exception:
        return False
    return True


def _shown(value: Any, what: str) -> str:
    """A message's text: ``str(value)``; a traced ``value`` (``what`` it is) is known only at run time."""
    return repr(_RunTimeValue(what)) if staging.is_tensor(value) else str(value)
