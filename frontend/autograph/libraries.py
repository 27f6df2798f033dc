"""Which callables are library code, never converted: the standard library, NumPy, xDSL, kiln, installed packages."""

from __future__ import annotations

import functools
import inspect
import itertools
import sys
import sysconfig
import types
from typing import Any

import numpy as np

#: library callables that call a function they are given: calls to them go through ``ag__.call``,
#: which converts that function first (an ``if`` on a traced value inside it stages as anywhere)
HIGHER_ORDER = frozenset({
    map, filter, sorted, functools.reduce, itertools.accumulate, itertools.starmap, itertools.takewhile,
    itertools.dropwhile, itertools.filterfalse, itertools.groupby, np.apply_along_axis, np.piecewise,
})


def is_higher_order(func: Any) -> bool:
    """Whether ``func`` is one of :data:`HIGHER_ORDER` (an unhashable callable is not)."""
    try:
        return func in HIGHER_ORDER
    except TypeError:
        return False


_LIBRARIES = frozenset({"builtins", "numpy", "xdsl", "kiln"})
#: kiln's own folders that hold user code (tests, examples, benchmarks), converted like any user code
_KILN_USER_CODE = ("kiln.tests", "kiln.examples", "kiln.bench")
_INSTALL_DIRS = tuple({sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")})


def is_library_module(name: str) -> bool:
    """Whether the module called ``name`` is library code."""
    if name.startswith(_KILN_USER_CODE):
        return False
    top = name.split(".")[0]
    return top in _LIBRARIES or top in sys.stdlib_module_names


def library_reason(func: Any) -> str | None:
    """Why ``func`` is library code, or ``None`` when it is user code to convert."""
    if not isinstance(func, types.FunctionType):
        return f"{type(func).__name__} objects are not Python functions"
    module = func.__module__ or ""
    if is_library_module(module):
        return f"module {module!r} is library code"
    filename = inspect.getsourcefile(func) or func.__code__.co_filename
    if filename.startswith(_INSTALL_DIRS) and not module.startswith(_KILN_USER_CODE):  # kiln installed
        return f"{filename} is an installed package"
    return None
