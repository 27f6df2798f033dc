"""The error the C backend raises for IR it cannot translate."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class CEmitError(DiagnosticException):
    """Unsupported op, type or ABI in the C backend; kiln-opt prints it as a diagnostic."""


def op_error(op: Operation, message: str) -> CEmitError:
    """A CEmitError naming the op and its source location (when it has one)."""
    loc = str(op.location)
    where = "" if loc == "loc(unknown)" else f" at {loc}"
    return CEmitError(f"C backend: '{op.name}'{where}: {message}")
