"""Python objects changed inside a staged body: seen, undone, and refused by name.

A staged ``if`` traces both branches, and a staged loop traces its body once
(a few times while its carried types settle) instead of running it once per
iteration. A change to a Python object from outside the body (``stack.pop()``,
``d[k] = v``, ``obj.n += 1``, a closure rebinding its ``nonlocal``) would then
happen once per trace, whatever the condition or the trip count: a silent
wrong answer. Tensors are not concerned (kiln arrays carry their writes, see
:mod:`kiln.frontend.mutation`), and neither are the construct's own variables,
which its state carries.

:class:`Watch` snapshots, before a body is traced, the Python containers and
objects the body can reach: the values of its free variables and of the
globals it names, and what they hold (lists, dicts, sets, plain objects'
attributes, closures' variables). After each trace it compares; on a change
it puts every object back as it was (a caller may fall back to running the
loop as Python) and raises, quoting the statement that made the change when
the converter recorded one (:mod:`~kiln.frontend.autograph.converters.python_effects`).
"""

from __future__ import annotations

import collections
import dis
import functools
import sys
import sysconfig
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.frontend import trace_context
from kiln.frontend.list_arrays import held
from kiln.frontend.autograph.converters import python_effects
from kiln.frontend.autograph.operators.variables import Undefined

#: containers visited at most per snapshot (a bound on the cost; beyond it objects are not watched)
BUDGET = 10_000
MAX_DEPTH = 8
_MISSING = object()
ATOMS = (type(None), bool, int, float, complex, str, bytes, np.ndarray, np.generic, Undefined)
_LIBRARY_DIRS = tuple(sorted({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}))


@dataclass
class _Watched:
    """One object the body can reach, with what it held before the body was traced."""

    obj: Any
    #: how the message names it: the variable it was reached from, then the way to it
    path: str
    root: str
    saved: Any

    def changed(self) -> str | None:
        """What changed in the object (for the message), or ``None``."""
        obj, saved = self.obj, self.saved
        if isinstance(obj, dict):
            if len(obj) != len(saved) or any(obj.get(k, _MISSING) is not v for k, v in saved):
                return f"the Python {type(obj).__name__} '{self.path}'"
        elif isinstance(obj, (list, collections.deque)):
            if len(obj) != len(saved) or any(a is not b for a, b in zip(obj, saved)):
                return f"the Python {type(obj).__name__} '{self.path}'"
        elif isinstance(obj, (set, bytearray)):
            if obj != saved:
                return f"the Python {type(obj).__name__} '{self.path}'"
        elif isinstance(obj, types.FunctionType):
            for (name, cell), value in zip(free_cells(obj), saved):
                if _cell_value(cell) is not value:
                    return f"the variable '{name}' of the closure '{self.path}' (rebound with `nonlocal`)"
        else:
            attrs = vars(obj)
            names = [k for k, v in saved.items() if attrs.get(k, _MISSING) is not v] + [k for k in attrs if k not in saved]
            if names:
                return f"the attribute '{names[0]}' of the Python {type(obj).__name__} object '{self.path}'"
        return None

    def restore(self) -> None:
        obj, saved = self.obj, self.saved
        if isinstance(obj, dict):
            obj.clear()
            obj.update(saved)
        elif isinstance(obj, collections.deque):
            obj.clear()
            obj.extend(saved)
        elif isinstance(obj, (list, bytearray)):
            obj[:] = saved
        elif isinstance(obj, set):
            obj.clear()
            obj.update(saved)
        elif isinstance(obj, types.FunctionType):
            for (_, cell), value in zip(free_cells(obj), saved):
                if value is _MISSING:
                    if _cell_value(cell) is not _MISSING:
                        del cell.cell_contents
                else:
                    cell.cell_contents = value
        else:
            attrs = vars(obj)
            attrs.clear()
            attrs.update(saved)


class Watch:
    """The Python objects the staged bodies ``functions`` (closures over the construct's variables) can reach."""

    def __init__(self, where: str, construct: str, functions: Sequence[Callable[..., Any] | None]):
        self.where = where
        self.construct = construct
        #: a wrapper's wrapped functions (``__wrapped__``, as ``functools.wraps`` sets it) are bodies too
        self.functions = [g for f in functions for g in _wrapped_chain(f) if isinstance(g, types.FunctionType)]
        #: the construct's own variables: its state carries them, so their rebinding is not a change
        self.owned = {id(cell) for f in self.functions for _, cell in free_cells(f)}
        self.watched: list[_Watched] = []
        #: the watched objects the construct carries (loop_lists, branch_lists): their change is no effect
        self.carried: list[Any] = []
        #: the roots that are globals the bodies name
        self.globals: set[str] = set()
        seen: set[int] = set()
        for name, value in self._roots():
            self._visit(value, name, name, 0, seen)

    def _roots(self) -> Iterator[tuple[str, Any]]:
        for f in self.functions:
            for name, cell in free_cells(f):
                value = _cell_value(cell)
                if value is not _MISSING and name != "ag__":
                    yield name, value
            for name in sorted(globals_read(f.__code__)):
                if name in f.__globals__:
                    self.globals.add(name)
                    yield name, f.__globals__[name]

    def _visit(self, obj: Any, path: str, root: str, depth: int, seen: set[int]) -> None:
        if depth > MAX_DEPTH or len(seen) >= BUDGET or isinstance(obj, ATOMS) or id(obj) in seen:
            return
        if isinstance(obj, (types.MethodType, types.BuiltinMethodType)):  # `push = stack.append`
            owner = getattr(obj, "__self__", None)
            if owner is not None and not isinstance(owner, types.ModuleType):
                self._visit(owner, path, root, depth + 1, seen)
            return
        if held(obj):  # (its numbers are an array's, whose writes the construct carries)
            return
        if isinstance(obj, (tuple, list, collections.deque)):
            seen.add(id(obj))
            if not isinstance(obj, tuple):
                self.watched.append(_Watched(obj, path, root, list(obj)))
            for i, item in enumerate(obj):
                self._visit(item, f"{path}[{i}]", root, depth + 1, seen)
        elif isinstance(obj, dict):
            seen.add(id(obj))
            self.watched.append(_Watched(obj, path, root, list(obj.items())))
            for key, item in obj.items():
                self._visit(item, f"{path}[{key!r}]", root, depth + 1, seen)
        elif isinstance(obj, (set, bytearray)):
            seen.add(id(obj))
            self.watched.append(_Watched(obj, path, root, obj.copy()))
        elif isinstance(obj, types.FunctionType) and is_user_file(obj.__code__.co_filename):
            seen.add(id(obj))
            cells = free_cells(obj)
            if any(id(cell) not in self.owned for _, cell in cells):
                self.watched.append(_Watched(obj, path, root, [_cell_value(cell) for _, cell in cells]))
            for name, cell in cells:
                if id(cell) not in self.owned:
                    self._visit(_cell_value(cell), f"{path}.<{name}>", root, depth + 1, seen)
        elif is_plain_object(obj):
            seen.add(id(obj))
            attrs = vars(obj)
            self.watched.append(_Watched(obj, path, root, dict(attrs)))
            for key, item in list(attrs.items()):
                self._visit(item, f"{path}.{key}", root, depth + 1, seen)

    @contextmanager
    def tracing(self) -> Iterator[None]:
        """Trace one body (or branch) under watch: a change is undone and refused, also when the
        body raised (the change is then the likely cause, as when ``pop`` empties a list)."""
        try:
            yield
        except Exception as error:
            problem = self._changed()
            if problem is None:
                raise
            self.restore()
            raise self._error(*problem) from error
        problem = self._changed()
        if problem is not None:
            self.restore()
            raise self._error(*problem)

    def _error(self, watched: _Watched, what: str) -> PythonEffectError:
        return PythonEffectError(self._message(watched, what), watched.root, watched.root in self.globals, watched.obj)

    def restore(self) -> None:
        for watched in self.watched:
            try:
                watched.restore()
            except Exception:  # pragma: no cover - an object that refuses: the error still names it
                pass

    def _changed(self) -> tuple[_Watched, str] | None:
        for watched in self.watched:
            if any(watched.obj is obj for obj in self.carried):
                continue
            what = watched.changed()
            if what is not None:
                return watched, what
        return None

    def _message(self, watched: _Watched, what: str) -> str:
        construct = f"staged `{self.construct}`" + (" loop" if self.construct in ("for", "while") else "")
        loop = self.construct in ("for", "while")
        if loop:
            why = "the body is traced to build the loop, not run once per iteration, so the change would not repeat"
        else:
            why = "both branches are traced, and which one runs is only known when the compiled code runs"
        fix = (
            "Keep such values in kiln arrays (np.zeros(n) written with x[i] = v), a kiln.TensorArray, or variables "
            f"assigned in the {'loop' if loop else 'branches'} (which it carries); or make the "
            f"{'loop bounds' if loop else 'condition'} Python values"
        )
        site = self.site(watched.root)
        if site is not None:
            return (f"{site[0]}: `{site[1]}` mutates {what} inside a {construct} at {self.where}: {why}. {fix}")
        return (f"{self.where}: {what} is changed while this {construct} is traced (by code its body calls): "
                f"{why}. {fix}")

    def lists_written_in_bodies(self, outer: frozenset[str], also: Sequence[Any] = ()) -> list[_Watched]:
        """The watched Python lists and dicts reachable from a variable that a statement of the bodies
        changes in place (``out.append(v)``, ``xs[0] = v``, ``del rows[1][0]``, ``d['k'] = v``), and
        the objects ``also`` (which a function the bodies call changed): a staged ``if`` carries them.
        Not those reached from a global or from ``outer`` (variables from outside the traced function):
        a change there would happen once per trace, not once per call."""
        roots = {w.root for w in self.watched} - outer - self.globals
        written = {root for root in roots if self.site(root) is not None}
        return [w for w in self.watched if isinstance(w.obj, (list, dict)) and w.root in roots
                and (w.root in written or any(w.obj is obj for obj in also))]

    def site_changing(self, obj: Any, root: str) -> tuple[str, str] | None:
        """Like :meth:`site`, for the object ``obj`` reached from ``root``: a statement changing a
        variable that names ``obj`` itself comes first (``inner.append(v)`` where ``rows`` holds ``inner``)."""
        for name, value in self._roots():
            if value is obj and (found := self.site(name)) is not None:
                return found
        return self.site(root)

    def site(self, root: str) -> tuple[str, str] | None:
        """``(file:line, text)`` of the first recorded statement in the bodies that changes ``root``'s object."""
        for f in self.functions:
            lines = list(code_lines(f.__code__))
            if not lines:
                continue
            found = python_effects.sites_in(f.__code__.co_filename, min(lines), max(lines), root)
            if found:
                return f"{f.__code__.co_filename}:{found[0].lineno}", found[0].text
        return None


class PythonEffectError(NotImplementedError):
    """A Python object changed while a staged construct was traced (the body has a Python side
    effect: a range loop runs unrolled instead, as the loop rule says). ``root``: the variable
    the object was reached from, ``global_root``: whether that is a global the body names,
    ``changed``: the object (a staged loop may carry a list, see loop_lists)."""

    def __init__(self, message: str, root: str | None = None, global_root: bool = False, changed: Any = None) -> None:
        super().__init__(message)
        self.root = root
        self.global_root = global_root
        self.changed = changed


def is_plain_object(obj: Any) -> bool:
    """An instance of a user's class (or a SimpleNamespace) whose attributes are its state. Library
    objects are not watched: they may keep caches of their own (a logger's, say)."""
    if isinstance(obj, types.SimpleNamespace):
        return True
    if isinstance(obj, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)):
        return False
    if not isinstance(getattr(obj, "__dict__", None), dict):
        return False
    module = sys.modules.get(getattr(type(obj), "__module__", "") or "")
    filename = getattr(module, "__file__", None)
    return module is not None and (filename is None or is_user_file(filename))


def is_user_file(filename: str) -> bool:
    """Code of the user's (not kiln's, NumPy's, the standard library's or an installed package's)."""
    return trace_context.is_user_file(filename) and not filename.startswith(_LIBRARY_DIRS)


def _wrapped_chain(f: Callable[..., Any] | None) -> Iterator[Callable[..., Any]]:
    """``f`` and the functions it wraps, outermost first."""
    while f is not None:
        yield f
        f = getattr(f, "__wrapped__", None)


def free_cells(f: types.FunctionType) -> list[tuple[str, types.CellType]]:
    return list(zip(f.__code__.co_freevars, f.__closure__ or ()))


def _cell_value(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


@functools.lru_cache(maxsize=1024)
def globals_read(code: types.CodeType) -> frozenset[str]:
    """Global names ``code`` (and the code nested in it) reads (once per code: asked per staged construct)."""
    names = set(global_names(code, _LOADS))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= globals_read(const)
    return frozenset(names)


_LOADS = frozenset({dis.opmap["LOAD_GLOBAL"]})
#: opcode -> shift of its argument to its index in ``co_names`` (3.11+: LOAD_GLOBAL's low bit
#: says whether it pushes a NULL too)
_NAME_SHIFT = {dis.opmap["LOAD_GLOBAL"]: 1, dis.opmap["STORE_GLOBAL"]: 0, dis.opmap["DELETE_GLOBAL"]: 0}


def global_names(code: types.CodeType, opcodes: frozenset[int]) -> list[str]:
    """The ``co_names`` entries that ``code``'s instructions of ``opcodes`` (global loads, stores,
    deletes) name, read off the bytecode: ``dis.get_instructions`` builds an object per
    instruction, a tenth of a warm start's trace of a loop (issue 39). Checked against ``dis``
    once per process (:func:`_bytecode_as_dis_reads`); where they differ, ``dis`` is used."""
    if _bytecode_as_dis_reads():
        return _scan(code, opcodes)
    names = {dis.opname[op] for op in opcodes}
    return [ins.argval for ins in dis.get_instructions(code) if ins.opname in names]


def _scan(code: types.CodeType, opcodes: frozenset[int]) -> list[str]:
    raw, co_names, found, extended = code.co_code, code.co_names, [], 0
    for i in range(0, len(raw), 2):
        op, arg = raw[i], raw[i + 1] | extended
        extended = arg << 8 if op == dis.EXTENDED_ARG else 0
        if op in opcodes:
            found.append(co_names[arg >> _NAME_SHIFT[op]])
    return found


@functools.cache
def _bytecode_as_dis_reads() -> bool:
    """Whether :func:`_scan` names what ``dis`` names on a small body loading globals (called and
    not), storing and deleting one (a tenth of a millisecond; tests/test_bytecode_names.py checks
    every function of kiln and NumPy, and EXTENDED_ARG)."""
    scope: dict[str, Any] = {}
    exec(compile("def f():\n    global a\n    b = c\n    d(b)\n    a = b\n    del a\n", "<kiln>", "exec"), scope)  # noqa: S102
    code = scope["f"].__code__
    wanted = [ins.argval for ins in dis.get_instructions(code) if ins.opcode in _NAME_SHIFT]
    return _scan(code, frozenset(_NAME_SHIFT)) == wanted


def code_lines(code: types.CodeType) -> Iterable[int]:
    """The source lines of ``code`` and of the code nested in it."""
    for _, _, line in code.co_lines():
        if line is not None:
            yield line
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_lines(const)
