"""Traced values that would escape into Python objects from outside the trace: refused at the statement.

A trace runs the function's Python once. A statement that puts a traced value into a Python
object that existed before the trace (a global list, a list reached through a closure or through
an argument's attribute: ``SEEN.append(x[i])``, ``self.history.append(loss)``, ``obj.last = v``,
``global g; g = v``) would leave kiln's tracer objects there, once per trace, where Python leaves
the values, once per call: a silent wrong answer (JAX raises ``UnexpectedTracerError`` when such a
tracer is used later; kiln refuses the statement). The function's own objects are not concerned:
those it makes while traced, and the copies of its list and dict arguments, which the trace
carries back to the caller (:mod:`kiln.frontend.argument_containers`). Nor are values known while
tracing (``SEEN.append(1)``, a trace counter), kiln arrays and variables.

:func:`outside` lists, before the trace runs the function, the Python objects it can reach from
outside: its globals and closure values, those of the user's functions among them, the objects
among its arguments that it does not own, and what they hold (bounded, as
:class:`kiln.frontend.autograph.effects.Watch`). The converted code's stores
(``ag__.call`` of a mutating method, ``ag__.store``, ``ag__.store_attribute``, ``ag__.store_global``)
ask :func:`refuse_escape` before they write.
"""

from __future__ import annotations

import collections
import functools
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc

from kiln.frontend import argument_containers, trace_context
from kiln.frontend.autograph.converters import python_effects
from kiln.frontend.autograph import effects  # (a module: effects imports the operators, which import this)
from kiln.frontend.list_arrays import held
from kiln.frontend.tensor import Tensor

#: trace notes key: the :class:`Outside` objects of the trace
NOTES_KEY = "kiln.autograph.outside"

_CONTAINERS = (list, dict, set, collections.deque, bytearray)


@dataclass
class Outside:
    """The Python objects a traced function can reach that existed before the trace."""

    #: kept alive while the trace runs, so that no object made in it takes one of their ids
    objects: list[Any] = field(default_factory=list)
    ids: set[int] = field(default_factory=set)

    def add(self, obj: Any) -> None:
        self.objects.append(obj)
        self.ids.add(id(obj))

    def __contains__(self, obj: Any) -> bool:
        return id(obj) in self.ids


def guarded(fn: Callable[..., Any], converted: Callable[..., Any]) -> Callable[..., Any]:
    """``converted`` (``fn`` converted, the traced body) with the objects from outside the trace
    noted (:func:`outside`) while it runs, for the stores of converted code to ask."""

    @functools.wraps(converted)
    def body(*args: Any, **kwargs: Any) -> Any:
        ctx = trace_context.require()
        enclosing = ctx.notes.get(NOTES_KEY)  # (a kiln.function traced inside another one's trace)
        ctx.notes[NOTES_KEY] = outside(fn, args, kwargs)
        try:
            return converted(*args, **kwargs)
        finally:
            ctx.notes[NOTES_KEY] = enclosing  # (the objects are not kept alive past the trace)

    return body


def outside(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Outside:
    """The objects ``fn`` (the traced function) can reach from outside, with its traced arguments
    ``args``/``kwargs`` (their list and dict copies are the function's own; what they hold is not)."""
    found = Outside()
    own = argument_containers.containers(args, kwargs)
    seen = {id(c) for c in own}
    for obj in _functions(fn):
        _visit(obj, found, seen, 0)
    for obj in (*args, *kwargs.values(), *(item for c in own for item in _items(c))):
        _visit(obj, found, seen, 0)  # (the own containers among them are seen already)
    return found


def _functions(fn: Any) -> Iterator[Any]:
    """``fn``, what it wraps (``__wrapped__``), and a bound method's function and instance."""
    while fn is not None:
        if isinstance(fn, types.MethodType):
            yield fn.__self__
            fn = fn.__func__
        yield fn
        fn = getattr(fn, "__wrapped__", None)


def _items(obj: Any) -> list[Any]:
    if held(obj):
        return []  # (numbers only, read from its array where the function reads them)
    if isinstance(obj, dict):
        return list(obj.values())
    return list(obj) if isinstance(obj, (list, tuple, collections.deque)) else []


def _visit(obj: Any, found: Outside, seen: set[int], depth: int) -> None:
    if depth > effects.MAX_DEPTH or len(seen) >= effects.BUDGET or isinstance(obj, effects.ATOMS) or id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, (types.MethodType, types.BuiltinMethodType)):  # `push = SEEN.append`
        owner = getattr(obj, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            _visit(owner, found, seen, depth + 1)
        return
    if isinstance(obj, (tuple, *_CONTAINERS)):
        if not isinstance(obj, tuple):
            found.add(obj)
        for item in _items(obj) if not isinstance(obj, (set, bytearray)) else ():
            _visit(item, found, seen, depth + 1)
    elif isinstance(obj, types.FunctionType) and effects.is_user_file(obj.__code__.co_filename):
        for _, cell in effects.free_cells(obj):
            found.add(cell)  # a `nonlocal` of the function's is from outside the trace
            try:
                _visit(cell.cell_contents, found, seen, depth + 1)
            except ValueError:  # an empty cell
                pass
        for name in sorted(effects.globals_read(obj.__code__)):
            if name in obj.__globals__:
                _visit(obj.__globals__[name], found, seen, depth + 1)
    elif isinstance(obj, type) and effects.is_user_file(getattr(sys.modules.get(obj.__module__), "__file__", None) or ""):
        for value in list(vars(obj).values()):  # class attributes: `Model.registry.append(v)`
            _visit(value, found, seen, depth + 1)
    elif effects.is_plain_object(obj):
        found.add(obj)
        for value in list(vars(obj).values()):
            _visit(value, found, seen, depth + 1)


def holds_traced(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is a traced value or a Python container or object holding one."""
    if isinstance(value, Tensor) or hasattr(type(value), "__kiln_tensor__"):
        return True
    if depth > effects.MAX_DEPTH or isinstance(value, effects.ATOMS):
        return False
    if isinstance(value, dict):
        return any(holds_traced(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple, set, frozenset, collections.deque)):
        return any(holds_traced(v, depth + 1) for v in value)
    if effects.is_plain_object(value):
        return any(holds_traced(v, depth + 1) for v in vars(value).values())
    return False


def refuse_escape(target: Any, value: Any, what: str, statement: str | None = None) -> None:
    """Refuse naming the statement when ``value`` holds a traced value and ``target`` (the object it
    is written into) is a Python object from outside the trace; ``what`` names the object, and
    ``statement`` quotes the statement where the converter recorded none."""
    ctx = trace_context.current()
    reached = ctx.notes.get(NOTES_KEY) if ctx is not None else None
    if reached is None or target not in reached or not holds_traced(value):
        return
    raise TypeError(
        f"{trace_context.here()}: {statement or _statement()} puts a traced value into {what}, which the function did not "
        "make (a global's, a closure's or an argument's): the trace runs this statement once, so the Python "
        "object would keep kiln's tracer, not the value of each call. Return the value (or write it into an "
        "array argument, a kiln.Variable or a list the function makes), or put there only values known while tracing"
    )


def _statement() -> str:
    """The user's statement being traced, quoted (``SEEN.append(...)``) where the converter recorded it."""
    loc = trace_context.user_location()
    if isinstance(loc, FileLineColLoc):
        text = python_effects.statement_on(loc.filename.data, loc.line.data)
        if text is not None:
            return f"`{text}`"
    return "this statement"


def describe(obj: Any) -> str:
    """How a message names the object a traced value is written into."""
    return f"the Python {type(obj).__name__} object" if effects.is_plain_object(obj) else f"a Python {type(obj).__name__}"


def checked_method(func: Any) -> Any:
    """``func`` (a callee in converted code) checked by :func:`refuse_escape` when it is a mutating
    method of a Python container from outside the trace (``SEEN.append``)."""
    owner = getattr(func, "__self__", None)
    if not isinstance(func, types.BuiltinMethodType) or not isinstance(owner, _CONTAINERS):
        return func
    if getattr(func, "__name__", "") not in python_effects.MUTATING_METHODS:
        return func
    ctx = trace_context.current()
    reached = ctx.notes.get(NOTES_KEY) if ctx is not None else None
    if reached is None or owner not in reached:
        return func

    def mutating(*args: Any, **kwargs: Any) -> Any:
        refuse_escape(owner, (args, kwargs), describe(owner))
        return func(*args, **kwargs)

    return mutating
