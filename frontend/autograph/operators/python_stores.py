"""``ag__.store_attribute``, ``ag__.store_global``, ``ag__.store_nonlocal``: Python's stores, refusing
a traced value written into Python state from outside the trace (:mod:`kiln.frontend.autograph.escapes`)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from kiln.frontend import trace_context
from kiln.frontend.autograph import escapes  # (a module: escapes imports effects, which imports the operators)
from kiln.frontend.autograph.operators.subscripts import IN_PLACE


def store_attribute(value: Any) -> Callable[[Any, str], None]:
    """``ag__.store_attribute(v)(obj, 'name')``: ``obj.name = v`` (``v`` evaluated first, as Python does)."""

    def into(obj: Any, name: str) -> None:
        escapes.refuse_escape(obj, value, f"the attribute '{name}' of {escapes.describe(obj)}")
        setattr(obj, name, value)

    return into


def store_attribute_augmented(obj: Any, name: str, op: str, value: Callable[[], Any]) -> None:
    """``obj.name op= value()`` as Python runs it: read, the in-place operator, written back."""
    store_attribute(IN_PLACE[op](getattr(obj, name), value()))(obj, name)


def in_place(op: str, current: Any, value: Any) -> Any:
    """``current op= value``'s new value (for a ``global`` or ``nonlocal`` name, stored after)."""
    return IN_PLACE[op](current, value)


def store_global(value: Any, name: str) -> Any:
    """``global name; name = value``: refused while tracing when ``value`` holds a traced value
    (a module's global outlives the trace); else ``value``, which the assignment stores."""
    if trace_context.current() is not None and escapes.holds_traced(value):
        raise TypeError(
            f"{trace_context.here()}: `{name} = ...` assigns a traced value to the global '{name}': the trace runs this "
            "statement once, so the global would keep kiln's tracer, not the value of each call. Return the "
            "value (or write it into an array argument or a kiln.Variable), or assign only values known while tracing"
        )
    return value


def store_nonlocal(value: Any, name: str, reader: types.FunctionType) -> Any:
    """``nonlocal name; name = value``: refused when ``name``'s cell (that of ``reader``, a
    ``lambda: name`` made where the store is) is from outside the trace and ``value`` is traced."""
    cell = (reader.__closure__ or (None,))[0]
    escapes.refuse_escape(cell, value, f"the variable '{name}' of an enclosing function (`nonlocal`)", f"`{name} = ...`")
    return value
