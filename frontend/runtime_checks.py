"""Run-time checks for what NumPy raises on but tracing cannot decide.

An array whose length is known only at run time (``x[:n]`` with a traced ``n``, a mask's
``x[m]``, ``np.nonzero``) may meet another array whose length it must equal. NumPy raises
``ValueError`` when it does not; kiln emits a ``graph.check`` of the lengths, and the call
raises ``ValueError`` with the user's file:line (docs/abi.md, "Run-time errors") instead of
computing with the wrong length. A run-time length of 1 is not broadcast: kiln's shapes are
fixed when it traces, so that case raises too, saying so.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kiln.dialects import graph
from kiln.frontend import index_facts, trace_context
from kiln.frontend.tensor import Tensor, as_tensor, cast, constant, emit, implements, shape_of


def _length(t: Tensor, axis: int) -> Tensor:
    return emit(graph.DimOp(t.value, axis))


def _require(cond: Tensor, message: str, error: str = "", *, theirs: str | None = None) -> None:
    """Emit the check, refused inside a ``try`` body: the error it raises when the call runs is
    not a Python exception there, so no ``except`` clause could catch it."""
    from kiln.frontend.autograph.converters.unsupported import try_in_trace

    where = trace_context.here()
    around = try_in_trace()
    if around is not None:
        raise NotImplementedError(
            f"{where}: this is checked when the call runs ({error.removesuffix(': ') or 'ValueError'}: {message}), "
            f"inside the `try` at {around}, whose `except` clauses cannot catch an error of compiled code. "
            "Move it out of the `try`."
        )
    emit_check(cond, message, error, theirs=theirs)


def emit_check(cond: Tensor, message: str, error: str = "", *, theirs: str | None = None) -> None:
    """The ``graph.check`` of the 0-d bool ``cond``, its message starting with ``error`` (an
    exception's prefix) and the user's line. ``theirs`` (not None): the message is the user's own,
    raised as they wrote it, and the line, with ``theirs`` after it, is a note on the exception.
    :func:`_require` says where one is refused."""
    where = trace_context.here()
    if theirs is not None:
        text = graph.users_message(error, message, where, theirs)
    else:
        text = f"{error}{where}: {message}"
    trace_context.require().emit(graph.CheckOp(cond.value, text))


def require(cond: Tensor, message: str, *, overflow: bool = False) -> None:
    """Check at run time that the 0-d bool ``cond`` holds, raising ``ValueError`` (``OverflowError``
    with ``overflow``) with ``message`` and the user's line otherwise."""
    _require(cond, message, graph.OVERFLOW_ERROR if overflow else "")


def raises(cond: Tensor, kind: type[Exception], message: str, *, theirs: str | None = None) -> None:
    """Check at run time that the 0-d bool ``cond`` holds, raising ``kind(message)`` (one of
    Python's builtin exceptions) with the user's line otherwise. ``theirs`` (not None): ``message``
    is the user's (a staged ``assert``, or a ``raise`` under a tensor condition, ``cond`` false: it
    fails whenever its region runs), so the exception's text is exactly it, as in Python, and the
    line, with ``theirs`` after it, is a note on it."""
    _require(cond, message, graph.error_prefix(kind), theirs=theirs)


@implements
def integral(x: Tensor, what: str) -> None:
    """Check at run time that the 0-d float ``x`` is finite before ``int(x)`` / ``round(x)`` makes
    a Python int of it: Python raises ValueError for NaN, OverflowError for infinity. An int beyond
    int64 (``int(1e30)``), exact in Python, is an OverflowError too, saying why."""
    if x.dtype.kind != "f":
        return
    _require(as_tensor(np.logical_not(np.isnan(x))), f"{what}: cannot convert float NaN to integer")
    _require(as_tensor(np.logical_not(np.isinf(x))), f"{what}: cannot convert float infinity to integer", graph.OVERFLOW_ERROR)
    # Python's int would be exact at any size; kiln's traced Python ints are int64
    wide = x.astype(np.float64)
    fits = np.logical_and(np.greater_equal(wide, -(2.0**63)), np.less(wide, 2.0**63))
    _require(as_tensor(np.logical_or(fits, np.isinf(wide))),
             f"{what}: the Python int is beyond int64, which kiln's traced Python ints are", graph.OVERFLOW_ERROR)


@implements
def python_int_fits(t: Tensor, dtype: np.dtype) -> None:
    """``t``, a Python int as kiln traces it (weak int64), made a value of an integer ``dtype``
    that cannot hold every int64: NumPy raises OverflowError where it does not fit
    (``int32_array + n``, ``a[0] = n``, NEP 50), where a cast would wrap. Checked at run time,
    unless the trace knows its range (a loop index over a static range)."""
    info, held = np.iinfo(dtype), np.iinfo(t.dtype)
    if (info.min <= held.min and info.max >= held.max) or index_facts.within(t, int(info.min), int(info.max)):
        return
    fits = np.greater_equal(t, int(max(info.min, held.min)))
    if info.max < held.max:
        fits = np.logical_and(fits, np.less_equal(t, int(info.max)))
    _require(as_tensor(fits), f"Python integer out of bounds for {dtype} (a traced Python int)", graph.OVERFLOW_ERROR)


def ran_once(ran: Tensor, message: str) -> None:
    """Check at run time that a staged loop ran at least once (``ran``, its carried flag), raising
    ``ValueError(message)`` otherwise: a value it carries has no meaning kiln can give after zero
    iterations (a Python number before the loop, an array after an iteration)."""
    ctx = trace_context.require()
    ctx.emit(graph.CheckOp(ran.value, message))


def _within(index: Tensor, n: Tensor) -> Tensor:
    """``-n <= index < n`` elementwise, in int64 (NumPy's range for an index of an axis of length ``n``)."""
    i = cast(index, np.dtype(np.int64))
    return as_tensor(np.logical_and(np.greater_equal(i, np.negative(n)), np.less(i, n)))


def _length_and_shown(size: int | Tensor) -> tuple[Tensor, int | str]:
    """An axis length as an int64 tensor, and as a message shows it."""
    if isinstance(size, Tensor):
        return cast(size, np.dtype(np.int64)), "known only at run time"
    return constant(np.int64(size)), size


def in_bounds(index: Tensor, size: int | Tensor, axis: int) -> None:
    """Check at run time that the traced integer ``index`` is within an axis of length ``size``
    (``-size <= index < size``), raising NumPy's IndexError otherwise; nothing when index facts
    already know it (a loop index, or one offset from it by a constant)."""
    if isinstance(size, int) and index_facts.within(index, -size, size - 1):
        return
    n, shown = _length_and_shown(size)
    _require(_within(index, n), f"index out of bounds for axis {axis} with size {shown} (a traced index)", graph.INDEX_ERROR)


def all_in_bounds(indices: Tensor, size: int | Tensor, axis: int) -> None:
    """Check at run time that every element of the traced integer array ``indices`` is within an
    axis of length ``size`` (static, or a 0-d integer tensor), raising NumPy's IndexError otherwise."""
    n, shown = _length_and_shown(size)
    ok = np.all(_within(indices, n))
    _require(as_tensor(ok), f"index out of bounds for axis {axis} with size {shown} (in a traced index array)",
             graph.INDEX_ERROR)


def _equal(a: Tensor, b: Tensor) -> Tensor:
    return emit(graph.CmpOp("eq", a.value, b.value))


def _shown(shapes: Sequence[Sequence[int]]) -> str:
    return " ".join("(" + ",".join("?" if d < 0 else str(d) for d in s) + ("," if len(s) == 1 else "") + ")"
                    for s in shapes)


def broadcastable(tensors: Sequence[Tensor], shape: Sequence[int]) -> None:
    """Check at run time that the dynamic dimensions of ``tensors`` fit ``shape``, their
    broadcast shape as tracing computed it (a static size there wins over a dynamic one)."""
    shapes = [shape_of(t) for t in tensors]
    rank = len(shape)
    for axis in range(rank):
        dynamic = [(t, axis - rank + len(s)) for t, s in zip(tensors, shapes)
                   if axis - rank + len(s) >= 0 and s[axis - rank + len(s)] < 0]
        if not dynamic or (shape[axis] < 0 and len({t.value for t, _ in dynamic}) < 2):
            continue
        target = constant(np.int64(shape[axis])) if shape[axis] >= 0 else _length(*dynamic[0])
        for t, a in dynamic if shape[axis] >= 0 else dynamic[1:]:
            _require(
                _equal(_length(t, a), target),
                f"operands could not be broadcast together with shapes {_shown(shapes)}: "
                f"a length known only at run time (shown as ?) differs from "
                + (f"{shape[axis]}" if shape[axis] >= 0 else "another one")
                + " (kiln does not broadcast a run-time length of 1)",
            )


def same_length(a: Tensor, axis_a: int, b: Tensor, axis_b: int, message: str, error: str = "") -> None:
    """Check at run time that ``a.shape[axis_a] == b.shape[axis_b]`` where either is dynamic
    (``error``: the exception's prefix, graph.INDEX_ERROR say; ValueError without)."""
    sa, sb = shape_of(a)[axis_a], shape_of(b)[axis_b]
    if sa >= 0 and sb >= 0:
        return
    la = _length(a, axis_a) if sa < 0 else constant(np.int64(sa))
    lb = _length(b, axis_b) if sb < 0 else constant(np.int64(sb))
    _require(_equal(la, lb), message, error)
