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
from kiln.frontend.tensor import Tensor, as_tensor, require_rank


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
            tensors.append(tensor)
        else:
            parts.append(_escape(str(value)))
    ctx.emit(graph.PrintOp(_escape(sep).join(parts) + _escape(end), [t.value for t in tensors]))


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")
