"""The trace in progress: where traced ops go and which user line they come from.

Tracing appends ``graph`` ops to one block. Every op gets the location of the
innermost frame of the user's code (the first frame outside kiln and NumPy),
so verifier errors and diagnostics point at the user's file and line.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import TypeVar

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.dialects.builtin import LocationAttr, UnknownLoc

from kiln.dialects.ir_utils import describe_location  # noqa: F401  (re-exported)

_KILN_ROOT = str(Path(__file__).resolve().parent.parent)
_SKIP_PREFIXES: tuple[str, ...] = (_KILN_ROOT,)
try:  # frames inside NumPy (np.exp dispatching to __array_ufunc__) are not the user's
    import numpy

    _SKIP_PREFIXES += (str(Path(numpy.__file__).resolve().parent),)
except ImportError:  # pragma: no cover
    pass

OpT = TypeVar("OpT", bound=Operation)


#: kiln's folders of user code (tests, examples, benchmarks): their frames are the user's
_USER_DIRS = tuple(str(Path(_KILN_ROOT, d)) + "/" for d in ("tests", "examples", "bench"))


@functools.lru_cache(maxsize=1024)
def is_user_file(filename: str) -> bool:
    """Whether code from ``filename`` is the user's (not kiln's, NumPy's or an installed package's).
    Answered once per file: every traced op asks it of each frame up to the user's (ten a op)."""
    if filename.startswith(_USER_DIRS):
        return True
    return not filename.startswith(_SKIP_PREFIXES) and not filename.startswith("<frozen")


def user_location() -> LocationAttr:
    """Location of the innermost user frame on the stack (``loc(unknown)`` if none)."""
    frame = sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return frame_location(frame)
        frame = frame.f_back  # type: ignore[assignment]
    return UnknownLoc()


#: a trace's note: where the traced function is defined, set while its results are read after it returned
RETURNING = "kiln.trace.returning"
#: notes key: how the trace takes in a large trace-time array (``Captures.constant``; absent in
#: traces without variables, where arrays are embedded whatever their size)
LARGE_CONSTANTS = "kiln.trace.large_constants"


def here() -> str:
    """``file:line:col`` of the innermost user frame, for errors raised while tracing; after the
    traced function returned (its results being read), its definition's place."""
    ctx = current()
    if ctx is not None and RETURNING in ctx.notes:  # a user frame now is the caller's, outside the trace
        return f"{ctx.notes[RETURNING]} (the values {ctx.name} returns)"
    return describe_location(user_location())


#: code object id -> (the code object, its instruction positions); at most :data:`_POSITIONS_KEPT`
_positions_by_code: dict[int, tuple[CodeType, tuple[tuple[int | None, int | None, int | None, int | None], ...]]] = {}
_POSITIONS_KEPT = 512


def _positions(code: CodeType) -> tuple[tuple[int | None, int | None, int | None, int | None], ...]:
    """A code object's instruction positions, listed once (every traced op asks; a large converted
    function has thousands: listing them per op took 0.8 s of channel_flow's trace). Kept by the
    code object's identity: two functions of the same source in two files have equal code
    objects (equality ignores the file), and comparing them instruction by instruction on every
    lookup, as an ``lru_cache`` would, costs as much as the function is long."""
    kept = _positions_by_code.get(id(code))
    if kept is not None and kept[0] is code:
        return kept[1]
    if len(_positions_by_code) >= _POSITIONS_KEPT:
        _positions_by_code.clear()
    positions = tuple(code.co_positions())
    _positions_by_code[id(code)] = (code, positions)
    return positions


def frame_location(frame: FrameType) -> LocationAttr:
    """The user's place ``frame`` is at (line and column of its current instruction). The line
    comes from the listed positions: ``frame.f_lineno`` decodes the line table from the start
    of the code on every read, so in a long function (an unrolled program of 10^4 lines) tracing
    grew with the square of its length."""
    positions = _positions(frame.f_code)
    index = frame.f_lasti // 2
    if 0 <= index < len(positions):
        pos_line, _, pos_col, _ = positions[index]
        if pos_line is not None:
            return _location(frame.f_code.co_filename, pos_line, 0 if pos_col is None else pos_col + 1)
    return _location(frame.f_code.co_filename, frame.f_lineno, 0)


@functools.lru_cache(maxsize=4096)
def _location(filename: str, line: int, col: int) -> FileLineColLoc:
    """One location attribute per place (a loop traced again, a Python loop unrolled, the ops of
    one expression share it): building and verifying one was a sixth of the cost of tracing an op."""
    return FileLineColLoc(_file_name(filename), IntAttr(line), IntAttr(col))


def definition(code: CodeType) -> FileLineColLoc:
    """The location of the ``def`` (or first decorator) of ``code``'s function."""
    return _location(code.co_filename, code.co_firstlineno, 0)


@functools.lru_cache(maxsize=256)
def _file_name(filename: str) -> StringAttr:
    return StringAttr(filename)


@dataclass
class TraceContext:
    """Ops traced so far go at the end of ``block``; ``name`` is the function traced."""

    block: Block
    name: str
    #: everything the trace needs to remember by identity (e.g. constants it made)
    notes: dict[str, object] = field(default_factory=dict)
    #: the blocks whose ops enclose ``block`` (regions being traced), outermost first
    enclosing: list[Block] = field(default_factory=list)
    #: called with each op emitted and each of its operands (kiln.frontend.mutation refuses some reads)
    operand_checks: list[Callable[[Operation, SSAValue], None]] = field(default_factory=list)
    #: once the traced function returned: its definition's place, where the ops emitted then (its
    #: results' copies, write-backs, the return) are located; the innermost user frame is then the
    #: caller's, whose line would make the IR (and the plan cache's key) differ per call site
    returned_from: LocationAttr | None = None

    def emit(self, op: OpT) -> OpT:
        """Append ``op`` at the current position, located at the user's line."""
        op.location = user_location() if self.returned_from is None else self.returned_from
        self._check_visible(op)
        self.block.add_op(op)
        return op

    def _check_visible(self, op: Operation) -> None:
        """Refuse an operand defined in a region that is not around the current position (a
        branch traced before, a loop body that ended): the IR would be invalid. This happens
        when Python state carries a value out of a staged region without going through it."""
        for operand in op.operands:
            for check in self.operand_checks:
                check(op, operand)
            owner = operand.owner
            block = owner if isinstance(owner, Block) else owner.parent_block()
            if block is None or block is self.block or any(block is b for b in self.enclosing):
                continue
            defined = owner.location if isinstance(owner, Operation) else None
            raise NotImplementedError(
                f"{describe_location(op.location)}: this uses a value computed inside a staged `if` branch or loop "
                f"body that has ended (at {describe_location(defined) if defined else 'a block argument'}): "
                "a Python object (a list, dict or object attribute, or a variable rebound by a closure) kept it "
                "outside the region it belongs to. Keep values computed under a tensor condition or in a staged "
                "loop in local variables assigned in that `if` or loop"
            )


def visible(value: SSAValue) -> bool:
    """Whether ``value`` can be used where tracing is now: defined in the current block or one that
    encloses it (not in a branch traced before, a loop body that ended, or an abandoned probe).
    Outside a trace every value is."""
    ctx = current()
    if ctx is None:
        return True
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    return block is not None and (block is ctx.block or any(block is b for b in ctx.enclosing))


_state = threading.local()

_counting = threading.Lock()

#: traces in progress, on all threads: while there is one, kiln.Function calls skip their hot path
#: (a call inside a trace is traced into it, kiln.frontend.calls; Function._call tells which thread)
in_progress = 0


def current() -> TraceContext | None:
    """The innermost trace in progress on this thread, if any."""
    stack: list[TraceContext] = getattr(_state, "stack", [])
    return stack[-1] if stack else None


def require() -> TraceContext:
    ctx = current()
    if ctx is None:
        raise RuntimeError("kiln: a symbolic tensor was used outside of the kiln.function that traced it")
    return ctx


@contextmanager
def tracing(ctx: TraceContext) -> Iterator[TraceContext]:
    """Make ``ctx`` the current trace for the duration of the block."""
    global in_progress
    stack: list[TraceContext] = getattr(_state, "stack", None) or []
    _state.stack = stack
    stack.append(ctx)
    with _counting:
        in_progress += 1
    try:
        yield ctx
    finally:
        stack.pop()
        with _counting:
            in_progress -= 1


@contextmanager
def at_block(block: Block) -> Iterator[None]:
    """Temporarily trace into another block (a region of a structured op)."""
    ctx = require()
    saved = ctx.block
    ctx.enclosing.append(saved)
    ctx.block = block
    try:
        yield
    finally:
        ctx.block = saved
        ctx.enclosing.pop()
