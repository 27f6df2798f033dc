"""Rule files as syntax trees: the nodes (:mod:`.reader` reads them from a rule file).

Every node keeps its position (``Pos``), so that the checks of :mod:`.check` and the run-time
errors of :mod:`.engine` point at ``file:line:col`` of the rule file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.utils.exceptions import DiagnosticException


@dataclass(frozen=True)
class Source:
    """A rule file's name and text, for error messages."""

    name: str
    text: str

    def line(self, number: int) -> str:
        lines = self.text.splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else ""


@dataclass(frozen=True)
class Pos:
    """Where a node starts in its rule file (1-based line and column)."""

    source: Source
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"


class RuleError(DiagnosticException):
    """An error in a rule file, or a rule's failure while it runs: ``file:line:col: message``,
    then the line and a caret under the column."""

    def __init__(self, pos: Pos, message: str):
        self.pos = pos
        self.message = message
        text = pos.source.line(pos.line)
        caret = f"\n    {text}\n    {' ' * (pos.column - 1)}^" if text.strip() else ""
        super().__init__(f"{pos}: {message}{caret}")


# --------------------------------------------------------------------------- patterns


@dataclass(frozen=True)
class Pattern:
    pos: Pos


@dataclass(frozen=True)
class Wildcard(Pattern):
    """``_``: anything."""


@dataclass(frozen=True)
class Capture(Pattern):
    """``x``: binds a value; a name used twice means the same value both times."""

    name: str


@dataclass(frozen=True)
class Literal(Pattern):
    """``0``, ``-0.0``, ``"lt"``, ``[1, 0]``: an operand that is a constant splat of this value, or a
    keyword (attribute) equal to it. Float zeros compare with their sign."""

    value: Any


@dataclass(frozen=True)
class OpPattern(Pattern):
    """``graph.add(x, 1, key=pattern, *rest)``: an op by name, its operands and its attributes."""

    op: str
    args: tuple[Pattern, ...]
    keywords: tuple[tuple[str, Pattern, Pos], ...]
    star: str | None = None


@dataclass(frozen=True)
class AsPattern(Pattern):
    """``pattern as name``: binds the op (or value) the pattern matched."""

    pattern: Pattern
    name: str


@dataclass(frozen=True)
class OrPattern(Pattern):
    """``p | q``: the first alternative that matches; each binds the same names."""

    alternatives: tuple[Pattern, ...]


# --------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    pos: Pos


@dataclass(frozen=True)
class Name(Expr):
    name: str


@dataclass(frozen=True)
class Const(Expr):
    value: Any


@dataclass(frozen=True)
class GetAttr(Expr):
    obj: Expr
    attr: str


@dataclass(frozen=True)
class GetItem(Expr):
    obj: Expr
    index: Expr


@dataclass(frozen=True)
class Call(Expr):
    """``native(a, b)`` (a function registered by name), or, with a dotted name, an op built by
    a replacement: ``graph.add(x, y)``."""

    func: str
    args: tuple[Expr, ...]
    keywords: tuple[tuple[str, Expr, Pos], ...]

    @property
    def is_op(self) -> bool:
        return "." in self.func


@dataclass(frozen=True)
class Annotated(Expr):
    """``expr : type``: the result type of the op ``expr`` builds."""

    expr: Expr
    type: Expr


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # "not", "-"
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    op: str  # "+", "-", "*", "//", "%"
    left: Expr
    right: Expr


@dataclass(frozen=True)
class BoolOp(Expr):
    op: str  # "and", "or"
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class Compare(Expr):
    first: Expr
    rest: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class Sequence_(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Starred(Expr):
    """``*rest`` in a call's arguments: the values of a sequence, one argument each."""

    value: Expr


@dataclass(frozen=True)
class Walrus(Expr):
    name: str
    value: Expr


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rule:
    """``rule NAME [benefit N]: PATTERN [if GUARD]... => REPLACEMENT``; ``replacement`` is empty
    for ``=> erase``."""

    name: str
    benefit: int
    pattern: Pattern
    guards: tuple[Expr, ...]
    replacement: tuple[Expr, ...]
    pos: Pos
    erase: bool = False


@dataclass(frozen=True)
class RuleFile:
    source: Source
    rules: tuple[Rule, ...] = field(default=())
