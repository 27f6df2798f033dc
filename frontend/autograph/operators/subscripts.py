"""``ag__.getitem``: ``obj[key]`` as Python evaluates it, except that a NumPy array indexed by
a key holding a traced value (``TABLE[i]``, ``np.mgrid[...][0][mask]``) is read as a constant
of the trace and indexed there, as ``np.asarray(TABLE)[i]`` would be by NumPy."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from kiln.frontend import trace_context
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
    return obj[key]
