"""Recursion inside a staged construct: refused at the call, naming it and the construct.

A function that calls itself from a branch of a staged ``if`` (or a staged loop's body), on a
condition known only when the compiled code runs (``if start < end: do_quicksort(xs, start,
split - 1)`` with ``split`` traced), cannot be traced: each traced call traces that branch again,
so the trace never ends (and with two such calls, it doubles at each level). Python's recursion
on Python values (``power(n - 1, x)`` under ``if n == 0``) is traced as Python runs it.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar

from kiln.frontend import trace_context

F = TypeVar("F", bound=Callable[..., Any])

#: id of the code of kiln's functions that trace a staged construct's user code -> that code, and how
#: the function names its construct. By id: every frame up the stack is looked up on each call of a
#: user function, and a code object hashes its constants, every nested helper's code among them (the
#: user's long converted function's per call: quadratic in its length)
_TRACERS: dict[int, tuple[types.CodeType, Callable[[dict[str, Any]], str]]] = {}


def traces_staged_code(where: Callable[[dict[str, Any]], str]) -> Callable[[F], F]:
    """Register the decorated function as one tracing a staged branch or body; ``where`` gives the
    construct's place from its frame's locals."""
    def register(f: F) -> F:
        _TRACERS[id(f.__code__)] = (f.__code__, where)  # (kiln's own functions: they live as long as the process)
        return f

    return register


def refuse(converted: Callable[..., Any]) -> None:
    """Refuse a call of ``converted`` (a converted user function) made inside a staged construct
    that an outer call of ``converted`` is tracing."""
    code = getattr(converted, "__code__", None)
    if code is None or not _TRACERS:
        return
    staged: str | None = None
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        tracer = _TRACERS.get(id(frame.f_code))
        if tracer is not None and tracer[0] is frame.f_code and staged is None:
            staged = tracer[1](frame.f_locals)
        elif frame.f_code is code and staged is not None:
            raise RecursionError(
                f"{trace_context.here()}: {code.co_name} calls itself inside the staged `if` or loop at {staged}, "
                "whose condition is only known when the compiled code runs: the trace would trace that call again "
                "without end, as recursion whose depth depends on traced values cannot be compiled. Write it as a "
                "loop (with an explicit stack of bounds in a kiln array), or make the condition Python values"
            )
        frame = frame.f_back
