"""Check one Python-value program: ``kiln.function`` against the same program run as Python.

The eager run is the program under ``run_functions_eagerly``. Compared: the result's structure
with its containers (a list is not a tuple), each leaf's kind (a Python ``float`` stays a float,
a NumPy bool stays one), dtype and value, every argument after the call (the list arguments
element by element, kinds included), and a raised exception: kiln must raise the type the
program raises, with its message (kiln may add the file and line). An eager error that the
program does not raise itself (``check K: ...``), nor Python raises on Python numbers
(``ZeroDivisionError``), makes the program ``invalid``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from kiln.fuzz.check import MODE_ORACLES, Outcome, classify_error, compare_values, compiled_call, result_kind


def _raised_by_program(e: BaseException) -> bool:
    """The program's own ``check K`` errors, a bare ``assert``'s, and Python's ``ZeroDivisionError``
    of Python numbers (NumPy's division by zero raises FloatingPointError in the eager run)."""
    return isinstance(e, ZeroDivisionError) or isinstance(e, (AssertionError, ValueError, RuntimeError)) and (
        str(e).startswith("check ") or (isinstance(e, AssertionError) and not str(e)))


def _eager(module: ModuleType) -> tuple[Any, BaseException | None, list[Any]]:
    from kiln import config

    args = module.inputs()
    was = config.functions_run_eagerly()
    config.run_functions_eagerly(True)
    try:
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            return module.f(*args), None, args
    except Exception as e:
        return None, e, args
    finally:
        config.run_functions_eagerly(was)


def check_pyvalues(module: ModuleType, path: str, lines: int, on_compile: Callable[[], None] | None = None,
                   compiler: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None) -> Outcome:
    """Classify one Python-value program (see the module's docstring); ``compiler`` defaults to
    ``kiln.function``."""
    start = time.perf_counter()
    want, want_error, want_args = _eager(module)
    if want_error is not None and not _raised_by_program(want_error):
        return Outcome("invalid", f"Python raised {type(want_error).__name__}: {want_error}"[:500], "invalid", "",
                       time.perf_counter() - start)
    try:
        got, got_args = compiled_call(module, compiler, on_compile)
    except Exception as e:
        out = _compare_error(want_error, e, path, lines)
    else:
        if want_error is not None:
            out = Outcome("mismatch", f"Python raises {type(want_error).__name__}({str(want_error)!r}); kiln returned {got!r}"[:500],
                          "mismatch: kiln returned where Python raises")
        else:
            out = compare_python(want, got, "result") or compare_python(want_args, got_args, "arguments after the call") \
                or Outcome("match")
    out.seconds = time.perf_counter() - start
    return out


def _compare_error(want: BaseException | None, got: Exception, path: str, lines: int) -> Outcome:
    if want is not None and type(got) is type(want) and str(want) in str(got):
        return Outcome("match")
    if _raised_by_program(got) or (want is None and isinstance(got, AssertionError)):
        told = f"raises {type(want).__name__}({str(want)!r})" if want is not None else "returns"
        return Outcome("mismatch", f"kiln raised {type(got).__name__}: {got}; Python {told}"[:500],
                       "mismatch: kiln raised what Python does not")
    return classify_error(got, path, lines)


def compare_python(want: Any, got: Any, where: str) -> Outcome | None:
    """A mismatch if ``got`` differs from ``want`` in containers, kinds, dtypes or values."""
    if isinstance(want, (list, tuple)):
        if type(got) is not type(want) or len(got) != len(want):
            return Outcome("mismatch", f"{where}: {type(got).__name__} of {len(got) if isinstance(got, (list, tuple)) else '-'}, "
                           f"Python gives {type(want).__name__} of {len(want)}", f"mismatch: container of {where.split(' ')[0]}",
                           f"Python: {want!r}\nkiln: {got!r}")
        for k, (w, g) in enumerate(zip(want, got)):
            bad = compare_python(w, g, f"{where} [{k}]")
            if bad:
                return bad
        return None
    if want is None or got is None:
        return None if want is got else Outcome("mismatch", f"{where}: {got!r}, Python gives {want!r}", f"mismatch: None in {where.split(' ')[0]}")
    if result_kind(got) != result_kind(want):
        return Outcome("mismatch", f"{where}: {result_kind(got)}, Python gives {result_kind(want)}",
                       f"mismatch: kind of {where.split(' ')[0]}", f"Python: {want!r}\nkiln: {got!r}")
    return compare_values(want, got, where)


MODE_ORACLES["python"] = lambda module, path, lines, on_compile: check_pyvalues(module, path, lines, on_compile=on_compile)
