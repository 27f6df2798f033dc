"""Which NumPy array types kiln takes: plain ``ndarray`` (and ``memmap``, plain data in a file).

A subclass may carry meaning that kiln's compiled code, which sees only the
data buffer, would silently lose: a masked array's mask, ``np.matrix``'s
``*`` (a matrix product), a user subclass's overridden operators. Such arrays
are refused by name, as arguments and as constants, rather than computed on
as plain data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.frontend import trace_context

#: subclasses with nothing but an ndarray's meaning
_PLAIN = (np.ndarray, np.memmap)


def check_plain_array(value: Any, what: str) -> None:
    """Raise a TypeError naming ``what`` (e.g. "argument 'x' of f") when ``value`` is an ndarray subclass."""
    cls = type(value)
    if not isinstance(value, np.ndarray) or cls in _PLAIN:
        return
    where = trace_context.here()
    name = f"{cls.__module__}.{cls.__qualname__}"
    if isinstance(value, np.ma.MaskedArray):
        lost, fix = "its mask", "x.filled(value) for the data with masked entries replaced, or np.asarray(x) for the raw data"
    elif isinstance(value, np.matrix):
        lost, fix = "np.matrix's semantics (`*` is a matrix product, results stay 2-D)", "np.asarray(x)"
    else:
        lost, fix = "what the subclass adds", "np.asarray(x) if its plain data is what you mean"
    raise TypeError(
        f"{where}: {what} is a {name}, a subclass of numpy.ndarray: kiln computes on plain arrays and would lose "
        f"{lost}. Pass {fix}"
    )
