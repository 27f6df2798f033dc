"""What one conversion knows and records: the function's names, new names, and unstageable constructs."""

from __future__ import annotations

import ast
import builtins
import itertools
import types
import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


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

    def note_unsupported(self, construct: str, node: ast.AST) -> None:
        self.unsupported.append(Unsupported(construct, self.filename, getattr(node, "lineno", 0)))

    def is_builtin(self, name: str) -> bool:
        """True when ``name`` means the builtin: not shadowed by a global or a closure variable."""
        return name not in self.namespace and hasattr(builtins, name)


def mark_init(node: ast.stmt) -> ast.stmt:
    """Marks a generated flag initialisation: the flag is local to the helper that contains it."""
    node.kiln_init = True  # type: ignore[attr-defined]
    return node


#: per file, the unstageable constructs found in its converted functions
_unsupported: defaultdict[str, set[Unsupported]] = defaultdict(set)
#: the code objects of converted functions (their frames are found by the staging hooks)
_converted_codes: weakref.WeakSet[types.CodeType] = weakref.WeakSet()


def record_converted(code: types.CodeType, filename: str, unsupported: Any) -> None:
    """Note a converted function's code and the unstageable constructs of its file (the
    transpiler does; staging asks :func:`is_converted_code` and :func:`unsupported_in`)."""
    _converted_codes.add(code)
    _unsupported[filename].update(unsupported)


def is_converted_code(code: types.CodeType) -> bool:
    """Whether ``code`` is a converted function's own code (not one of its generated helpers)."""
    return code in _converted_codes


def unsupported_in(filename: str) -> set[Unsupported]:
    """Unstageable constructs found in the converted functions of ``filename``."""
    return _unsupported.get(filename, set())
