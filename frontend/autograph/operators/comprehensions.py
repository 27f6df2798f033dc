"""The operators of a hoisted comprehension's loop (converters/comprehensions.py).

``comprehension_put`` adds an element: in a loop that stages, it writes the row at the position
the buffer counts (``graph.scatter_row`` into storage sized by the loop's trip count, made at the
first write, as a TensorArray's); in Python's loop (a short ``range``, a body with Python effects)
it appends to a Python list, so that the result is Python's list as written. With a filter,
``comprehension_next`` counts every element and ``comprehension_put`` marks the kept ones; the
result is then a :class:`StagedList` of the kept rows (a length known only when the call runs).
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Hashable
import sys
from types import FunctionType, MethodType, ModuleType
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import trace_context
from kiln.frontend.autograph import effects, staging
from kiln.frontend.autograph.context import is_converted_code
from kiln.frontend.autograph.counted_iterables import StackedItems
from kiln.frontend.autograph.comprehension_lists import NUMPY, PYTHON, Kind, StagedList
from kiln.frontend.autograph.state import EMPTY
from kiln.frontend.list_arrays import held
from kiln.frontend.tensor import Tensor, as_tensor, broadcast_to, cast, constant, emit
from kiln.frontend.variables import Variable

_NUMBERS = (bool, int, float, complex, np.generic)
#: the variable holding the buffer in the converted code (converters/comprehensions.py)
_BUFFER = "comp__"


@dataclass(eq=False)
class _Shared:
    """What every copy of one buffer shares (the staged loop copies it per probe): where the
    comprehension is, the loop depth it was started at, and what its elements are."""

    where: str
    depth: int
    regions: int
    kind: Kind = None
    filtered: bool = False
    python: list[Any] = field(default_factory=list)  # the elements Python's loop appended
    unstacked: str = ""  # why the loop became Python's: what elements kiln could not stack


class Buffer:
    """The comprehension's state in its loop: stored rows, kept-row mask, and the position."""

    def __init__(self, shared: _Shared, rows: Any = EMPTY, mask: Any = EMPTY, at: Any = 0):
        self.shared, self.rows, self.mask, self.at = shared, rows, mask, at

    def __kiln_flatten__(self) -> tuple[Hashable, list[tuple[str, Any]]]:
        return self.shared, [("rows", self.rows), ("mask", self.mask), ("at", self.at)]

    @classmethod
    def __kiln_unflatten__(cls, aux: Hashable, leaves: list[Any]) -> Buffer:
        return cls(aux, *leaves)  # type: ignore[arg-type]

    def staged(self) -> bool:
        """Whether the code being traced is a staged loop's body inside the comprehension."""
        return staging.loop_depth() > self.shared.depth

    def capacity(self) -> int:
        bound = staging.trip_bound_below(self.shared.depth)
        if bound is None:
            raise NotImplementedError(
                f"{self.shared.where}: a comprehension over a loop whose number of iterations is known only when "
                "the call runs is not supported inside kiln.function; write the loop, filling an array "
                "(np.empty(n)) by index"
            )
        return bound


def comprehension_iterable(iterable: Any) -> Any:
    """What the comprehension's loop runs over: a Python list or tuple holding traced values (or a
    ``zip``/``enumerate`` of such) as :class:`StackedItems` while tracing, which a ``for`` stages as
    a loop over its numbers' stack where they are Python numbers of one type (else Python's loop, where
    a filter on traced values is refused naming the line); ``iterable`` itself otherwise. A ``zip`` or
    ``enumerate`` taken is used up, as after Python's comprehension."""
    stacked = staging.stacked_items(iterable)
    if stacked is None:
        return iterable
    if not isinstance(iterable, (list, tuple)):
        collections.deque(iterable, maxlen=0)
    return stacked


def comprehension_stages(iterable: Any, free: Callable[[], tuple[Any, ...]] | None = None) -> bool:
    """Whether the comprehension over ``iterable`` runs as the loop kiln stages: over a tensor, a
    ``kiln.range``, or a Python ``range`` while tracing when the values its element and conditions
    read from outside it (``free``) reach a traced value (a short range is unrolled by the loop
    itself, and the result is then Python's list as written); else it runs as Python's: over a
    range, code on Python values alone adds nothing to the trace and keeps Python's values
    (``all(n % j > 0 for j in range(2, n))`` is a Python bool, not a traced one)."""
    if trace_context.current() is None:
        return False
    if staging.is_staged_iterable(iterable) or isinstance(iterable, StackedItems) or held(iterable):
        return True
    if type(iterable) is not range:
        return False
    if free is None:
        return True
    try:
        values = free()
    except NameError:  # (a name the comprehension would not reach: let the staged loop decide)
        return True
    return _reaches_traced(values, 4, set())


def _reaches_traced(value: Any, depth: int, seen: set[int]) -> bool:
    """Whether ``value`` is, holds or (a function's closure, a bound method's object) reaches a
    traced value or a kiln.Variable, looking ``depth`` levels deep."""
    if isinstance(value, (Tensor, StagedList, Variable)):
        return True
    if depth == 0 or id(value) in seen or isinstance(value, (*_NUMBERS, str, bytes, type, ModuleType, np.ndarray)):
        return False
    seen.add(id(value))
    if isinstance(value, dict):
        items: Any = value.values()
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = value
    elif isinstance(value, FunctionType):
        items = [*(c.cell_contents for c in value.__closure__ or () if _filled(c)), *(value.__defaults__ or ())]
    elif isinstance(value, MethodType):
        items = [value.__self__, value.__func__]
    else:
        items = list(getattr(value, "__dict__", {}).values())
    return any(_reaches_traced(v, depth - 1, seen) for v in items)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def comprehension_start() -> Buffer:
    ctx = trace_context.require()
    return Buffer(_Shared(staging.statement_location(), staging.loop_depth(), len(ctx.enclosing)))


def comprehension_next(buffer: Buffer) -> Buffer:
    """One more element is looked at (a comprehension with a filter): its row is masked out
    unless :func:`comprehension_put` keeps it."""
    buffer.shared.filtered = True
    if not buffer.staged():
        return buffer
    mask = buffer.mask
    if mask is EMPTY:
        mask = broadcast_to(constant(np.asarray(False)), (buffer.capacity(),))
    at = as_tensor(buffer.at).astype(np.int64)
    mask = emit(graph.ScatterRowOp(mask.value, at.value, constant(np.asarray(False)).value))
    return Buffer(buffer.shared, buffer.rows, mask, at + 1)


def comprehension_put(buffer: Buffer, value: Any) -> Buffer:
    """The element ``value`` is kept."""
    shared = buffer.shared
    if not buffer.staged():
        if len(trace_context.require().enclosing) > shared.regions:
            reason = staging.unroll_reason(shared.where)
            why = (f"its elements are {shared.unstacked}" if shared.unstacked else
                   f"it did not stage: {reason}" if reason else "it runs over a short range")
            raise NotImplementedError(
                f"{shared.where}: a comprehension with a condition on traced values that kiln runs as Python's "
                f"loop ({why}) is not supported inside kiln.function: the list's length would depend on the data; "
                "iterate over an array or a `kiln.range` with elements of one type and shape, or use np.where"
            )
        shared.python.append(value)
        return buffer
    kind, value = _element(shared, value)
    if shared.kind is None:
        shared.kind = kind
    elif shared.kind != kind:
        raise NotImplementedError(
            f"{shared.where}: this comprehension's elements are of different kinds on different paths "
            f"({shared.kind} and {kind}), which a staged loop cannot keep apart"
        )
    rows = buffer.rows
    if rows is EMPTY:
        rows = broadcast_to(constant(np.zeros((), value.dtype)), (buffer.capacity(), *value.shape))
    elif rows.shape[1:] != value.shape:
        raise NotImplementedError(
            f"{shared.where}: this comprehension's elements have different shapes ({rows.shape[1:]} and "
            f"{value.shape}); kiln stacks them in one array"
        )
    filtered = buffer.mask is not EMPTY
    at = as_tensor(buffer.at).astype(np.int64)
    index = at - 1 if filtered else at
    rows = emit(graph.ScatterRowOp(rows.value, index.value, cast(value, rows.dtype).value))
    if filtered:
        mask = emit(graph.ScatterRowOp(buffer.mask.value, index.value, constant(np.asarray(True)).value))
        return Buffer(shared, rows, mask, buffer.at)
    return Buffer(shared, rows, buffer.mask, at + 1)


def _element(shared: _Shared, value: Any) -> tuple[Kind, Tensor]:
    """What kind of element ``value`` is, and its tensor."""
    if isinstance(value, StagedList) and value.items_unmade():
        if value.mask is not None:
            value.refuse("a list of such lists")
        return ("list", value.kind), value.values
    if isinstance(value, Tensor) and value.kind_flag is None:
        return (PYTHON if value.weak and value.ndim == 0 else NUMPY), value
    if isinstance(value, _NUMBERS) and shared.filtered:  # (`sum([1 for v in x if v > 0])` counts)
        return (NUMPY if isinstance(value, np.generic) else PYTHON), as_tensor(value)
    # (a Python effect: the loop runs as Python's, unrolled, as a `for` loop appending to a list does)
    # (numbers known while tracing, `[0 for i in range(n)]`: Python's list is made at no cost, and may be written)
    what = "numbers whose type depends on the data" if isinstance(value, Tensor) else f"{type(value).__name__} values"
    shared.unstacked = what
    raise effects.PythonEffectError(
        f"{shared.where}: the comprehension makes {what}, which kiln cannot stack in one array", root=_BUFFER
    )


def comprehension_end(buffer: Buffer, returned: bool = False) -> Any:
    """The list the comprehension made; ``returned`` by a function the traced one calls, a Python
    list of its elements, which the caller may index and change (not a filtered one: refused then)."""
    shared = buffer.shared
    if buffer.rows is EMPTY:  # Python's loop ran (or a staged one kept nothing it traced)
        return list(shared.python)
    mask = buffer.mask if buffer.mask is not EMPTY else None
    made = StagedList(buffer.rows, shared.kind, mask, shared.where)
    return _python_list(made) if returned and mask is None and _in_a_callee() else made


def _python_list(lst: StagedList) -> list[Any]:
    return [_python_list(e) if isinstance(e, StagedList) else e for e in lst.items()]


def _in_a_callee() -> bool:
    """Whether the converted function running is called by another (not the traced function itself)."""
    frame, converted = sys._getframe(1), 0
    while frame is not None and converted < 2:
        converted += is_converted_code(frame.f_code)
        frame = frame.f_back
    return converted >= 2
