"""Clock reads inside a kiln.function (``t0 = time()``, ``time.perf_counter()``) run while tracing.

A clock is a Python call on no traced value: it runs once, while the function is traced, and the
compiled function computes with the time read then on every call (``time() - t0`` is the tracing
time between the two reads, whatever the call takes). That is not an answer kiln can check, so a
:class:`KilnTraceTimeWarning` names the line, once per trace, rather than let it pass silently.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc

from kiln.frontend import trace_context

#: the clocks of the ``time`` module: each reads the time when it is called
CLOCKS = frozenset({
    time.time, time.time_ns, time.perf_counter, time.perf_counter_ns, time.process_time, time.process_time_ns,
    time.monotonic, time.monotonic_ns, time.thread_time, time.thread_time_ns,
})

_WARNED = "kiln.clock_calls.warned"


class KilnTraceTimeWarning(UserWarning):
    """A clock read inside a kiln.function runs once, while tracing, not on each call."""


def warn_if_clock(func: Any) -> None:
    """Warn (once per line and trace) when the converted code calls a clock while tracing."""
    ctx = trace_context.current()
    if ctx is None or not is_clock(func):
        return
    loc = trace_context.user_location()
    where = trace_context.describe_location(loc)
    warned = ctx.notes.setdefault(_WARNED, set())
    if where in warned:
        return
    warned.add(where)
    warnings.warn_explicit(
        f"{where}: `{func.__module__}.{func.__name__}()` runs once, while tracing: the compiled function uses the "
        "time read then on every call, so differences of such reads are not the call's duration. Time the call "
        "from outside the kiln.function",
        KilnTraceTimeWarning,
        loc.filename.data if isinstance(loc, FileLineColLoc) else "<unknown>",
        loc.line.data if isinstance(loc, FileLineColLoc) else 0,
    )


def is_clock(func: Any) -> bool:
    """Whether ``func`` is one of :data:`CLOCKS`."""
    try:
        return func in CLOCKS
    except TypeError:  # (an unhashable callable is no clock)
        return False
