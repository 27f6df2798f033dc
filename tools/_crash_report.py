"""Where kiln-opt failed, read off an exception: the pass and the source location of the op it
was working on (for internal errors, errors in a user's pass and verifier errors), and, for an
internal error, the input kept in a file with the command and the traceback for a bug report,
instead of a Python traceback.

The pass and the op are read off the traceback's frames: the innermost ``ModulePass`` method
(``self``) is the pass, the innermost ``Operation`` local (``op`` first) is the op. An op's
location is its ``loc(...)``, else where the parser read it (kiln-opt records that), else that
of the nearest enclosing op that has one (ops made by a pass have none).
"""

from __future__ import annotations

import hashlib
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.utils.lexer import Span

from kiln.tools._opt_parser import OpSpans


def _frames(exc: BaseException) -> Iterator[FrameType]:
    """The frames of ``exc``'s traceback, innermost first."""
    frames: list[FrameType] = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return reversed(frames)


def failing_pass(exc: BaseException) -> str | None:
    """Name of the innermost pass running when ``exc`` was raised."""
    for frame in _frames(exc):
        this = frame.f_locals.get("self")
        if isinstance(this, ModulePass):
            return this.name
    return None


def failing_op(exc: BaseException) -> Operation | None:
    """The op the innermost frame that had one was working on."""
    for frame in _frames(exc):
        local = frame.f_locals
        candidates = [local.get("op"), local.get("self"), *local.values()]
        for value in candidates:
            if isinstance(value, Operation):
                return value
    return None


def parser_position(exc: BaseException, line_offset: int) -> str | None:
    """Where the parser was when ``exc`` was raised during parsing."""
    for frame in _frames(exc):
        this = frame.f_locals.get("self")
        if isinstance(this, Parser):
            return _span_location(this._current_token.span, line_offset)  # pyright: ignore[reportPrivateUsage]
    return None


def op_location(op: Operation, spans: OpSpans) -> str:
    """``file:line:col`` of ``op`` or of the nearest enclosing op with a known location, and the op's name."""
    where: Operation | None = op
    while where is not None:
        if not isinstance(where.location, UnknownLoc):
            return f"{where.location} ('{op.name}')"
        if where in spans:
            span, line_offset = spans[where]
            return f"{_span_location(span, line_offset)} ('{op.name}')"
        where = where.parent_op()
    return f"'{op.name}' (no location)"


def _span_location(span: Span[bytes], line_offset: int) -> str:
    loc = span.get_location()
    return f"{loc.file}:{loc.line + line_offset}:{loc.col}"


def keep_input(data: bytes, argv: Sequence[str], exc: BaseException) -> Path:
    """Write the input, then the command and the traceback as ``//`` comments, to a file named
    after its content in ``$TMPDIR/kiln-opt-crashes`` (the same crash twice: one file)."""
    trace = "".join(traceback.format_exception(exc))
    notes = [f"kiln-opt {' '.join(argv)}", *trace.splitlines()]
    text = data + b"\n// === kiln-opt internal error report (not part of the input) ===\n"
    text += "".join(f"// {line}\n" for line in notes).encode("utf-8", "replace")
    folder = Path(tempfile.gettempdir()) / "kiln-opt-crashes"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{hashlib.sha256(text).hexdigest()[:16]}.mlir"
    path.write_bytes(text)
    return path
