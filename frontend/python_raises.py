"""A Python ``raise`` below run-time checks: it must come after them, as in Python.

``if x[0] > 0: raise ValueError(...)`` is a run-time check (a ``graph.check``); a ``raise`` on a
Python test below it raises while tracing, before any call could run that check. Where such an
exception ends the traced function after a run-time check or ``kiln.print``, the trace ends with
an unconditional run-time error of the same type and message instead: every call runs the checks
and prints above it first, and raises it where none fails (docs/python-semantics.md).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func

from kiln.dialects import graph
from kiln.frontend import calls, trace_context
from kiln.frontend.tensor import constant

#: trace notes: the exceptions Python ``raise`` statements raised while tracing (see :func:`raised_when_run`)
_PYTHON_RAISES = "kiln.python_raises"


def note_python_raise(error: BaseException, text: str | None) -> None:
    """Note that a Python ``raise`` at the user's line raises ``error`` while tracing; ``text`` is the
    message a run-time error of it would have (None: kiln cannot raise its type at run time)."""
    raised = trace_context.require().notes.setdefault(_PYTHON_RAISES, {})
    raised[id(error)] = (error, text, trace_context.user_location())  # type: ignore[index]


#: trace notes: the errors of :data:`_PYTHONS_OWN` CPython raised in the user's code while tracing
_PYTHONS_OWN_RAISED = "kiln.python_raises.own"
#: Python's own errors of a program's plain Python (a Python number divided by zero, a list or dict
#: indexed out of range): raised while tracing, they are the program's as a ``raise`` is
_PYTHONS_OWN = (ZeroDivisionError, OverflowError, IndexError, KeyError)


def note_pythons_own(error: BaseException) -> None:
    """Note ``error`` as a Python ``raise`` (see :func:`raised_when_run`) where CPython raised it in
    the user's code itself (its traceback ends in a user frame: ``divmod(t, 0.0)`` of Python
    numbers, ``lst[9]`` of a list): after a run-time check it is a run-time error after that check,
    as Python raises the check's error first (kiln.fuzz 20800-1800). kiln's own errors end in
    kiln's frames and stay trace-time errors."""
    if not isinstance(error, _PYTHONS_OWN) or raised_by_user(error) or len(error.args) > 1:
        return
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or not trace_context.is_user_file(tb.tb_frame.f_code.co_filename):
        return
    if isinstance(error, KeyError) and not (len(error.args) == 1 and isinstance(error.args[0], str)):
        return  # (a run-time KeyError takes a message: a str key is one)
    text = error.args[0] if isinstance(error, KeyError) else str(error)
    own = trace_context.require().notes.setdefault(_PYTHONS_OWN_RAISED, {})
    own[id(error)] = (error, text, trace_context.frame_location(tb.tb_frame))  # type: ignore[index]


def raised_by_user(error: BaseException) -> bool:
    """Whether a Python ``raise`` of the user's code raised ``error`` while tracing: its text is
    theirs, kept as they wrote it (Python's traceback shows the line)."""
    noted = trace_context.require().notes.get(_PYTHON_RAISES, {}).get(id(error))  # type: ignore[attr-defined]
    return noted is not None and noted[0] is error


def raised_when_run(error: BaseException) -> bool:
    """``error`` escaped the traced function. Where a Python ``raise`` raised it after a run-time check
    or print (a staged ``raise`` above it may fail first, as in Python), end the trace with a run-time
    error of it, which every call raises after those: whether so."""
    ctx = trace_context.require()
    noted = ctx.notes.get(_PYTHON_RAISES, {}).get(id(error)) or ctx.notes.get(_PYTHONS_OWN_RAISED, {}).get(id(error))  # type: ignore[attr-defined]
    if noted is None or noted[0] is not error or not _effects_before(ctx):
        return False
    _, text, location = noted
    where = trace_context.describe_location(location)
    if text is None:
        kind = type(error)
        raise NotImplementedError(
            f"{where}: this `raise` comes after run-time checks or prints of traced values, which the call runs "
            "first (as Python would), so it is a run-time error, which can be one of Python's builtin exceptions "
            f"that take a message (ValueError, RuntimeError, ...), not {kind.__module__}.{kind.__qualname__}"
        ) from None
    check = ctx.emit(graph.CheckOp(constant(np.asarray(False)).value,
                                   graph.users_message(graph.error_prefix(type(error)), text, where)))
    check.location = location
    return True


def _effects_before(ctx: trace_context.TraceContext) -> bool:
    """Whether the trace ``ctx`` (its callees too) holds a run-time check or print."""
    pending = [ctx.enclosing[0] if ctx.enclosing else ctx.block]
    seen: set[int] = set()
    while pending:
        for op in pending.pop().walk():
            if isinstance(op, (graph.CheckOp, graph.PrintOp)):
                return True
            callee = calls.callee_of(op) if isinstance(op, func.CallOp) else None
            if callee is not None and id(callee) not in seen:
                seen.add(id(callee))
                pending.append(callee.body.block)
    return False
