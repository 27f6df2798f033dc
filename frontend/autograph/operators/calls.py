"""``call``: AutoGraph's ``converted_call``, the callee of every call in converted code."""

from __future__ import annotations

import types
from typing import Any

from kiln.frontend.autograph import transpiler


def call(func: Any) -> Any:
    """The converted version of ``func`` (library code and non-functions come back as they are)."""
    if isinstance(func, (types.FunctionType, types.MethodType)):
        return transpiler.convert(func)
    method = getattr(type(func), "__call__", None)
    if isinstance(method, types.FunctionType) and not isinstance(func, type):
        converted = transpiler.convert(method)
        return func if converted is method else types.MethodType(converted, func)
    return func
