"""Rule files parsed: lark's LALR(1) parser reads ``rules.lark``, a transformer builds the nodes
of :mod:`.syntax`. Imported only when a rule file's syntax tree is not in the store of files
parsed before (``syntax.parse``): lark and its grammar take ~30 ms of a first call to load.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lark
from lark import Token, Transformer, v_args

from kiln.passes.rules import syntax

_GRAMMAR = Path(__file__).with_name("rules.lark")


@functools.cache
def _parser() -> lark.Lark:
    return lark.Lark(
        _GRAMMAR.read_text(), parser="lalr", lexer="basic", propagate_positions=True, maybe_placeholders=True, cache=True
    )


def parse_text(source: syntax.Source) -> syntax.RuleFile:
    """The rules of ``source``; a syntax error raises :class:`syntax.RuleError`."""
    text = source.text
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        raise syntax.RuleError(syntax.Pos(source, e.line, e.column), _describe_syntax_error(e)) from None
    try:
        return syntax.RuleFile(source, tuple(_Build(source).transform(tree).children))
    except lark.exceptions.VisitError as e:  # a syntax.RuleError raised while building the nodes
        if isinstance(e.orig_exc, syntax.RuleError):
            raise e.orig_exc from None
        raise


def _describe_syntax_error(e: lark.exceptions.UnexpectedInput) -> str:
    if isinstance(e, lark.exceptions.UnexpectedCharacters):
        return f"unexpected character {e.char!r}"
    if isinstance(e, lark.exceptions.UnexpectedToken):
        got = "end of file" if e.token.type == "$END" else repr(str(e.token))
        expected = sorted({_terminal_text(t) for t in e.expected})
        shown = ", ".join(expected[:12]) + (", ..." if len(expected) > 12 else "")
        return f"unexpected {got}; expected {shown}"
    return "syntax error"


def _terminal_text(name: str) -> str:
    words = {"NAME": "a name", "OPNAME": "a dotted name", "INT": "an integer", "FLOAT": "a number", "STRING": "a string"}
    if name in words:
        return words[name]
    if name == "$END":
        return "the end of the file"
    try:
        pattern = _parser().get_terminal(name).pattern
    except KeyError:
        return name
    return repr(pattern.value) if isinstance(pattern, lark.lexer.PatternStr) else name


def _int(token: Token) -> int:
    return int(str(token))


@v_args(meta=True)
class _Build(Transformer):
    """Parse tree -> the nodes of :mod:`.syntax`."""

    def __init__(self, source: syntax.Source):
        super().__init__()
        self.source = source

    def _pos(self, meta: Any) -> syntax.Pos:
        return syntax.Pos(self.source, getattr(meta, "line", 1), getattr(meta, "column", 1))

    def _tok(self, token: Token) -> syntax.Pos:
        return syntax.Pos(self.source, token.line or 1, token.column or 1)

    # ---- rules
    def rule(self, meta: Any, c: list[Any]) -> syntax.Rule:
        name, benefit, pattern, *guards, (erase, replacement) = c
        return syntax.Rule(str(name), 1 if benefit is None else benefit, _pattern(pattern), tuple(guards), replacement,
                    self._pos(meta), erase)

    def benefit(self, meta: Any, c: list[Any]) -> int:
        return _int(c[0])

    def guard(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return _expr(c[0])

    def erase(self, meta: Any, c: list[Any]) -> tuple[bool, tuple[syntax.Expr, ...]]:
        return True, ()

    def values(self, meta: Any, c: list[Any]) -> tuple[bool, tuple[syntax.Expr, ...]]:
        return False, tuple(_expr(x) for x in c)

    # ---- patterns
    def or_pattern(self, meta: Any, c: list[Any]) -> syntax.Pattern:
        return syntax.OrPattern(self._pos(meta), tuple(_pattern(x) for x in c))

    def as_pattern(self, meta: Any, c: list[Any]) -> syntax.Pattern:
        return syntax.AsPattern(self._pos(meta), _pattern(c[0]), str(c[1]))

    def capture(self, meta: Any, c: list[Any]) -> syntax.Pattern:
        pos = self._tok(c[0])
        return syntax.Wildcard(pos) if str(c[0]) == "_" else syntax.Capture(pos, str(c[0]))

    def op_pattern(self, meta: Any, c: list[Any]) -> syntax.Pattern:
        opname, *args = c
        positional: list[syntax.Pattern] = []
        keywords: list[tuple[str, syntax.Pattern, syntax.Pos]] = []
        star: str | None = None
        for arg in args:
            if arg is None:
                continue
            if star is not None:
                raise syntax.RuleError(self._pos(meta), f"*{star} must be the last argument of {opname}(...)")
            if isinstance(arg, tuple) and arg[0] == "*":
                star = arg[1]
            elif isinstance(arg, tuple):
                keywords.append(arg)
            elif keywords:
                raise syntax.RuleError(arg.pos, "an operand pattern cannot follow a keyword pattern")
            else:
                positional.append(_pattern(arg))
        return syntax.OpPattern(self._pos(meta), opname, tuple(positional), tuple(keywords), star)

    def keyword_pattern(self, meta: Any, c: list[Any]) -> tuple[str, syntax.Pattern, syntax.Pos]:
        return str(c[0]), _pattern(c[1]), self._tok(c[0])

    def star_pattern(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return "*", str(c[0])

    def opname(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    # ---- literals (patterns and expressions)
    def int(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, _int(c[0]))

    def float(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, float(str(c[0])))

    def neg_int(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, -_int(c[0]))

    def neg_float(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, -float(str(c[0])))

    def string(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, ast.literal_eval(str(c[0])))

    def true(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, True)

    def false(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, False)

    def none(self, meta: Any, c: list[Any]) -> Any:
        return self._literal(meta, None)

    def _literal(self, meta: Any, value: Any) -> _Lit:
        return _Lit(self._pos(meta), value)

    def list(self, meta: Any, c: list[Any]) -> Any:
        items = [x for x in c if x is not None]
        if all(isinstance(x, _Lit) for x in items):
            return _Lit(self._pos(meta), tuple(x.value for x in items))
        return syntax.Sequence_(self._pos(meta), tuple(_expr(x) for x in items))

    def tuple(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Sequence_(self._pos(meta), tuple(_expr(x) for x in c if x is not None))

    # ---- expressions
    def name(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Name(self._tok(c[0]), str(c[0]))

    def dotted(self, meta: Any, c: list[Any]) -> syntax.Expr:
        """``x.type.shape`` (one token): a name and attribute accesses (or an op's name, when called)."""
        first, *attrs = str(c[0]).split(".")
        pos = self._tok(c[0])
        node: syntax.Expr = syntax.Name(pos, first)
        for attr in attrs:
            node = syntax.GetAttr(pos, node, attr)
        return node

    def getattr(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.GetAttr(self._pos(meta), _expr(c[0]), str(c[1]))

    def getitem(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.GetItem(self._pos(meta), _expr(c[0]), _expr(c[1]))

    def call(self, meta: Any, c: list[Any]) -> syntax.Expr:
        func, *args = c
        name = _dotted(func)
        if name is None:
            raise syntax.RuleError(self._pos(meta), "only a function or an op can be called, by name")
        positional: list[syntax.Expr] = []
        keywords: list[tuple[str, syntax.Expr, syntax.Pos]] = []
        for arg in args:
            if arg is None:
                continue
            if isinstance(arg, tuple):
                keywords.append(arg)
            elif keywords:
                raise syntax.RuleError(_expr(arg).pos, "a positional argument cannot follow a keyword argument")
            else:
                positional.append(_expr(arg))
        return syntax.Call(self._pos(meta), name, tuple(positional), tuple(keywords))

    def starred(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Starred(self._pos(meta), _expr(c[0]))

    def keyword(self, meta: Any, c: list[Any]) -> tuple[str, syntax.Expr, syntax.Pos]:
        return str(c[0]), _expr(c[1]), self._tok(c[0])

    def annotated(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Annotated(self._pos(meta), _expr(c[0]), _expr(c[1]))

    def walrus(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Walrus(self._tok(c[0]), str(c[0]), _expr(c[1]))

    def or_(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.BoolOp(self._pos(meta), "or", tuple(_expr(x) for x in c))

    def and_(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.BoolOp(self._pos(meta), "and", tuple(_expr(x) for x in c))

    def not_(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Unary(self._pos(meta), "not", _expr(c[0]))

    def neg(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Unary(self._pos(meta), "-", _expr(c[0]))

    def compare(self, meta: Any, c: list[Any]) -> syntax.Expr:
        first, *rest = c
        pairs = tuple((rest[i], _expr(rest[i + 1])) for i in range(0, len(rest), 2))
        return syntax.Compare(self._pos(meta), _expr(first), pairs)

    def comp_op(self, meta: Any, c: list[Any]) -> str:
        return " ".join(str(t) for t in c)

    def add(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Binary(self._pos(meta), "+", _expr(c[0]), _expr(c[1]))

    def sub(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Binary(self._pos(meta), "-", _expr(c[0]), _expr(c[1]))

    def mul(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Binary(self._pos(meta), "*", _expr(c[0]), _expr(c[1]))

    def floordiv(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Binary(self._pos(meta), "//", _expr(c[0]), _expr(c[1]))

    def mod(self, meta: Any, c: list[Any]) -> syntax.Expr:
        return syntax.Binary(self._pos(meta), "%", _expr(c[0]), _expr(c[1]))


@dataclass(frozen=True)
class _Lit:
    """A literal before it is known to be a pattern or an expression."""

    pos: syntax.Pos
    value: Any


def _expr(node: Any) -> syntax.Expr:
    return syntax.Const(node.pos, node.value) if isinstance(node, _Lit) else node


def _dotted(node: syntax.Expr) -> str | None:
    """``a.b.c`` for a chain of plain names, else None."""
    if isinstance(node, syntax.Name):
        return node.name
    if isinstance(node, syntax.GetAttr):
        inner = _dotted(node.obj)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _pattern(node: Any) -> syntax.Pattern:
    """A literal in a pattern position is a :class:`syntax.Literal` pattern."""
    if isinstance(node, _Lit):
        return syntax.Literal(node.pos, node.value)
    if not isinstance(node, syntax.Pattern):
        raise syntax.RuleError(node.pos, "a list in a pattern holds literals only")
    return node
