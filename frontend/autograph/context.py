"""What one conversion knows and records: the function's names, new names, and unstageable constructs."""

from __future__ import annotations

import ast
import builtins
import itertools
import types
import weakref
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: what a converter decides from the function's globals and closure values: (namespace, root
#: name, attribute path) -> answer. Registered by name (:func:`rule`), so that a conversion kept
#: on disk can check that each of its decisions still comes out the same (autograph.code_cache).
Rule = Callable[[Mapping[str, Any], str, tuple[str, ...]], bool]
RULES: dict[str, Rule] = {}

#: a decision as recorded: (rule's name, root name, attribute path) -> answer
Decisions = dict[tuple[str, str, tuple[str, ...]], bool]


def rule(name: str) -> Callable[[Rule], Rule]:
    """Register a decision rule under ``name`` (see :meth:`ConversionContext.decide`)."""

    def register(function: Rule) -> Rule:
        RULES[name] = function
        return function

    return register


def decided_alike(decisions: Decisions, namespace: Mapping[str, Any]) -> bool:
    """Whether every recorded decision comes out the same in ``namespace``."""
    return all(RULES[name](namespace, root, path) == answer for (name, root, path), answer in decisions.items())


@dataclass(frozen=True)
class Unsupported:
    """A construct that runs as Python but cannot be staged under a tensor condition."""

    construct: str
    filename: str
    lineno: int

    def message(self) -> str:
        return f"`{self.construct}` cannot be staged ({self.filename}:{self.lineno})"


@dataclass(frozen=True)
class ConversionInfo:
    """Why and how a function was (or was not) converted; read by ``to_code`` and the staging hooks."""

    converted: bool
    reason: str | None = None
    source: str | None = None
    unsupported: tuple[Unsupported, ...] = ()


@dataclass
class ConversionContext:
    """State shared by the converters of one function."""

    filename: str
    namespace: dict[str, Any]
    """The function's globals and closure values: decides which calls are library calls."""
    used_names: set[str]
    unsupported: list[Unsupported] = field(default_factory=list)
    _counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    _helpers: dict[str, str] = field(default_factory=dict)
    records: list[tuple[str, Any]] = field(default_factory=list)
    """What the converters found for the staging hooks, by kind (:meth:`record`)."""
    decisions: Decisions = field(default_factory=dict)
    """Every answer the namespace gave the converters (:meth:`decide`)."""

    def decide(self, name: str, root: str, path: tuple[str, ...] = ()) -> bool:
        """The registered rule ``name`` on the namespace, recorded: the conversion depends on
        the namespace only through these answers."""
        answer = RULES[name](self.namespace, root, path)
        self.decisions[(name, root, path)] = answer
        return answer

    def new_name(self, base: str) -> str:
        """A name not used by the function: ``base`` itself, else ``base_``, ``base__`` ..."""
        name = base
        while name in self.used_names:
            name += "_"
        self.used_names.add(name)
        return name

    def helper_name(self, base: str) -> str:
        """The name every construct's ``base`` helper takes (``if_body``, ``get_state``): made
        unique once per function (see converters.control_flow on why not once per construct)."""
        if base not in self._helpers:
            self._helpers[base] = self.new_name(base)
        return self._helpers[base]

    def construct_id(self) -> int:
        """The number that suffixes one construct's flags (``break_3``, ``continue_3``)."""
        return next(self._counter)

    def numbered(self, base: str, n: int) -> str:
        """``base_n``, made unique by trailing underscores if the user took it."""
        name = f"{base}_{n}"
        while name in self.used_names:
            name += "_"
        self.used_names.add(name)
        return name

    def record(self, kind: str, item: Any) -> None:
        """Note ``item`` of ``kind`` about the function's file, kept per file once the function
        is converted (:func:`records_of`)."""
        self.records.append((kind, item))

    def note_unsupported(self, construct: str, node: ast.AST) -> None:
        self.unsupported.append(Unsupported(construct, self.filename, getattr(node, "lineno", 0)))

    def is_builtin(self, name: str) -> bool:
        """True when ``name`` means the builtin: not shadowed by a global or a closure variable."""
        return self.decide("builtin", name)


@rule("builtin")
def _is_builtin(namespace: Mapping[str, Any], name: str, path: tuple[str, ...]) -> bool:
    return name not in namespace and hasattr(builtins, name)


def mark_init(node: ast.stmt) -> ast.stmt:
    """Marks a generated flag initialisation: the flag is local to the helper that contains it."""
    node.kiln_init = True  # type: ignore[attr-defined]
    return node


#: per file, the unstageable constructs found in its converted functions
_unsupported: defaultdict[str, set[Unsupported]] = defaultdict(set)
#: per kind and file, what the converters recorded in its converted functions
_records: defaultdict[tuple[str, str], set[Any]] = defaultdict(set)
#: the code objects of converted functions (their frames are found by the staging hooks), by id:
#: a set of them hashed each code object asked about, and a code object's hash covers its
#: constants, every nested helper's code among them (a whole long function's per staged `if`:
#: quadratic, 13 of the 44 s of tracing a function of 3,333 staged ifs)
_converted_codes: dict[int, weakref.ref[types.CodeType]] = {}


def record_converted(code: types.CodeType, filename: str, unsupported: Any,
                     records: Sequence[tuple[str, Any]] = ()) -> None:
    """Note a converted function's code, the unstageable constructs of its file and what the
    converters recorded there (the transpiler does; staging asks :func:`is_converted_code`,
    :func:`unsupported_in` and :func:`records_of`)."""
    key = id(code)
    _converted_codes[key] = weakref.ref(code, lambda _, key=key: _forget(key))
    _unsupported[filename].update(unsupported)
    for kind, item in records:
        _records[kind, filename].add(item)


def records_of(kind: str, filename: str) -> set[Any]:
    """What the converters recorded of ``kind`` in the converted functions of ``filename``."""
    return _records.get((kind, filename), set())


def _forget(key: int) -> None:
    """Drop a collected code object's entry (unless its id was given to a newer one since)."""
    ref = _converted_codes.get(key)
    if ref is not None and ref() is None:
        del _converted_codes[key]


def is_converted_code(code: types.CodeType) -> bool:
    """Whether ``code`` is a converted function's own code (not one of its generated helpers)."""
    ref = _converted_codes.get(id(code))
    return ref is not None and ref() is code


def unsupported_in(filename: str) -> set[Unsupported]:
    """Unstageable constructs found in the converted functions of ``filename``."""
    return _unsupported.get(filename, set())
