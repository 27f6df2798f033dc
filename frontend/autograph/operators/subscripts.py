"""``ag__.getitem``: ``obj[key]`` as Python evaluates it, except that a NumPy array indexed by
a key holding a traced value (``TABLE[i]``, ``np.mgrid[...][0][mask]``) is read as a constant
of the trace and indexed there, as ``np.asarray(TABLE)[i]`` would be by NumPy, and a list or
tuple at a traced integer (``xs[int(x[0])]``) is read (and a list written) by :mod:`kiln.frontend.list_index`,
and ``np.r_[a, b]``/``np.c_[a, b]`` with traced items are made by :mod:`kiln.frontend.numpy_index_tricks`."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend import list_index, numpy_index_tricks, trace_context
from kiln.frontend.autograph import escapes  # (a module: escapes imports effects, which imports the operators)
from kiln.frontend.tensor import Tensor, as_tensor

slice_ = builtins.slice


def _holds_traced(key: Any) -> bool:
    if isinstance(key, Tensor) or hasattr(type(key), "__kiln_tensor__"):
        return True
    if isinstance(key, slice):
        return any(_holds_traced(k) for k in (key.start, key.stop, key.step))
    return isinstance(key, tuple) and any(_holds_traced(k) for k in key)


def getitem(obj: Any, key: Any) -> Any:
    """``obj[key]``; a plain NumPy array with a traced key is lifted into the trace first."""
    if type(obj) is np.ndarray and trace_context.current() is not None and _holds_traced(key):
        return as_tensor(obj)[key]
    if isinstance(obj, numpy_index_tricks.CONCATENATORS) and trace_context.current() is not None and _holds_traced(key):
        return numpy_index_tricks.concatenate(obj, key)  # np.r_[a, b], np.c_[a, b]: NumPy would ask a tensor for its value
    if isinstance(obj, (list, tuple)) and list_index.is_traced_index(key):
        return list_index.read(obj, key)
    return obj[key]


def _traced_value(value: Any) -> bool:
    if isinstance(value, Tensor) or hasattr(type(value), "__kiln_tensor__"):
        return True
    return isinstance(value, (list, tuple)) and any(_traced_value(v) for v in value)


def store(value: Any) -> Callable[[Any, Any], None]:
    """``ag__.store(v)(obj, key)``: ``obj[key] = v`` (``v`` evaluated before ``obj`` and ``key``,
    as Python does). A plain NumPy array cannot hold a traced value: while tracing, such a write is
    refused naming the line (NumPy's own error was "setting an array element with a sequence")."""

    def into(obj: Any, key: Any) -> None:
        if type(obj) is np.ndarray and trace_context.current() is not None and (_traced_value(value) or _holds_traced(key)):
            raise TypeError(
                f"{trace_context.here()}: this writes a traced value into a NumPy array that is not one of the "
                "function's arrays: one NumPy computed from constants (np.exp(W) of a global W) or a "
                "global itself, which a trace cannot change. Make it an array of the function where it is made "
                "(np.array(W) inside the function is a new array kiln traces), or compute it from the arguments"
            )
        escapes.refuse_escape(obj, value, escapes.describe(obj))
        if isinstance(obj, list) and list_index.is_traced_index(key):
            list_index.write(obj, key, value)
            return
        obj[key] = value

    return into


#: the in-place operators of ``a[k] op= v``, by the name of their ``ast.operator`` class
IN_PLACE: dict[str, Callable[[Any, Any], Any]] = {
    "Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul, "Div": operator.itruediv,
    "FloorDiv": operator.ifloordiv, "Mod": operator.imod, "Pow": operator.ipow, "MatMult": operator.imatmul,
    "BitAnd": operator.iand, "BitOr": operator.ior, "BitXor": operator.ixor, "LShift": operator.ilshift,
    "RShift": operator.irshift,
}


def store_augmented(obj: Any, key: Any, op: str, value: Callable[[], Any]) -> None:
    """``obj[key] op= value()`` as Python runs it: ``obj[key]`` read, the in-place operator applied,
    the result written back (each through :func:`getitem` and :func:`store`, so that a list element
    at a traced index, ``hist[b] += 1``, is read and written by :mod:`kiln.frontend.list_index`)."""
    store(IN_PLACE[op](getitem(obj, key), value()))(obj, key)
