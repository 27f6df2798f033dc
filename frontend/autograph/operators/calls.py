"""``call``: AutoGraph's ``converted_call``, the callee of every call in converted code."""

from __future__ import annotations

import types
from typing import Any

from kiln.frontend import creation, trace_context
from kiln.frontend.autograph import transpiler


def _hashable(func: Any) -> bool:
    try:
        hash(func)
    except TypeError:
        return False
    return True


def call(func: Any) -> Any:
    """The converted version of ``func`` (library code and non-functions come back as they are);
    while tracing, NumPy's array-creation functions make kiln arrays (kiln.frontend.creation)."""
    traced = creation.TRACED.get(func) if _hashable(func) else None
    if traced is not None and trace_context.current() is not None:
        return traced
    if isinstance(func, (types.FunctionType, types.MethodType)):
        return transpiler.convert(func)
    method = getattr(type(func), "__call__", None)
    if isinstance(method, types.FunctionType) and not isinstance(func, type):
        converted = transpiler.convert(method)
        return func if converted is method else types.MethodType(converted, func)
    return func
