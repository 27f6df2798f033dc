"""``kiln.print``: a print that runs every time the compiled function runs, in program order.

While tracing, the values become one ``graph.print``: Python values (strings,
numbers, NumPy arrays) are folded into its format string at trace time
(their braces doubled), and every tensor is a ``{}`` hole filled when the
function runs. Outside a trace it is Python's ``print`` (flushed), so eager
code and ``run_functions_eagerly`` print the same text.
"""

from __future__ import annotations

import builtins
from typing import Any

from kiln.dialects import graph
from kiln.frontend import trace_context
import numpy as np

from kiln.frontend.tensor import Tensor, as_tensor, cast, require_rank


def print(*values: Any, sep: str = " ", end: str = "\n") -> None:  # noqa: A001 - the public name is kiln.print
    """Print ``values`` separated by ``sep`` and followed by ``end``, on every call of a compiled function."""
    if not isinstance(sep, str) or not isinstance(end, str):
        raise TypeError("kiln.print: sep and end must be strings")
    ctx = trace_context.current()
    if ctx is None:
        builtins.print(*values, sep=sep, end=end, flush=True)
        return
    parts: list[str] = []
    tensors: list[Tensor] = []
    for value in values:
        if isinstance(value, Tensor) or hasattr(type(value), "__kiln_tensor__"):
            tensor = as_tensor(value)
            require_rank(tensor, "kiln.print")  # its flattened data would print as a vector
            parts.append("{}")
            tensors.append(_printable(tensor))
        else:
            parts.append(_escape(str(value)))
    ctx.emit(graph.PrintOp(_escape(sep).join(parts) + _escape(end), [t.value for t in tensors]))


def _printable(tensor: Tensor) -> Tensor:
    """The tensor in a dtype the print runtime formats: unsigned integers up to 32 bits as
    int64 (the same values, which NumPy prints the same way); others as they are. float16
    (which NumPy prints with float16's shortest digits) is refused."""
    if tensor.dtype == np.float16:
        raise NotImplementedError("kiln.print of a float16 tensor is not supported; print x.astype(np.float32)")
    if tensor.dtype.kind == "c":
        raise NotImplementedError(f"kiln.print of a {tensor.dtype} tensor is not supported; print x.real and x.imag")
    if tensor.dtype.kind == "u":
        if tensor.dtype.itemsize == 8:
            raise NotImplementedError(
                "kiln.print of a uint64 tensor is not supported (values above 2**63 - 1 have no int64 form); "
                "print x.astype(np.int64) or x.astype(np.float64)"
            )
        return cast(tensor, np.dtype(np.int64))
    return tensor


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")
