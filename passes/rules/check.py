"""Load-time checks of a rule file against the registered dialects.

Every op a rule names must exist, with as many operands as the pattern gives and the
attributes its keywords name; every name a guard or a replacement uses must be bound; every
function must be a builtin or a registered native; every op a replacement builds must have a
way to know its result types. What passes is a :class:`CheckedRule`, ready for the engine.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, OperandDef, ResultDef, VarOperandDef, OptOperandDef
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from kiln.passes.rules import natives
from kiln.passes.rules.syntax import (
    Annotated,
    AsPattern,
    Binary,
    BoolOp,
    Call,
    Capture,
    Compare,
    Const,
    Expr,
    GetAttr,
    GetItem,
    Literal,
    Name,
    OpPattern,
    OrPattern,
    Pattern,
    Pos,
    Rule,
    RuleError,
    Sequence_,
    Starred,
    Unary,
    Walrus,
    Wildcard,
)
from kiln.passes.rules.values import VALUE_ATTRS


@dataclass(frozen=True)
class OpInfo:
    """What the rule language knows of an op: its class, operands and attribute names."""

    name: str
    cls: type[Operation]
    #: operand names in order when every operand is a single one (else None: variadic)
    operand_names: tuple[str, ...] | None
    #: the fewest operands an instance has
    min_operands: int
    #: property / attribute name (and accessor name) -> (kind, the IRDL constraint)
    attrs: dict[str, tuple[str, Any]]
    #: one single result per result definition, and how many
    result_count: int | None
    #: the result types follow from the operand types (IRDL constraint variables)
    infers_results: bool

    @property
    def fixed_operands(self) -> bool:
        return self.operand_names is not None


def op_info(ctx: Context, name: str, pos: Pos) -> OpInfo:
    """The registered op ``name``; an unknown one is an error at ``pos``."""
    cls = ctx.get_optional_op(name)
    if cls is None:
        hint = did_you_mean(name, known_ops(ctx, name.split(".")[0]))
        raise RuleError(pos, f"unknown op {name!r} (no registered dialect defines it){hint}")
    if not issubclass(cls, IRDLOperation):
        return OpInfo(name, cls, None, 0, {}, None, False)
    d = cls.get_irdl_definition()
    single = all(type(o) is OperandDef for _, o in d.operands)
    attrs: dict[str, tuple[str, Any]] = {}
    for key, prop in d.properties.items():
        attrs[key] = ("property", prop.constr)
    for key, attr in d.attributes.items():
        attrs[key] = ("attribute", attr.constr)
    for accessor, (key, kind) in d.accessor_names.items():
        table = d.properties if kind == "property" else d.attributes
        if key in table:
            attrs.setdefault(accessor, (kind, table[key].constr))
    variables: set[str] = set()
    for _, o in d.operands:
        variables |= o.constr.variables()
    single_results = all(type(r) is ResultDef for _, r in d.results)
    infers = single and single_results and all(r.constr.can_infer(variables, length_known=True) for _, r in d.results)
    return OpInfo(
        name,
        cls,
        tuple(n for n, _ in d.operands) if single else None,
        sum(1 for _, o in d.operands if not isinstance(o, (VarOperandDef, OptOperandDef))),
        attrs,
        len(d.results) if single_results else None,
        infers,
    )


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``; did you mean A or B?`` for the names of ``known`` close to a misspelled ``name`` ("" if none)."""
    import difflib  # (only for a misspelled name: ~1 ms of a first call's rule import otherwise)

    close = difflib.get_close_matches(name, list(known), n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def known_ops(ctx: Context, dialect: str) -> list[str]:
    """The op names ``dialect`` defines (none if it is not registered or fails to load)."""
    try:
        d = ctx.get_optional_dialect(dialect)
    except Exception:  # noqa: BLE001 (a dialect that fails to load suggests nothing)
        return []
    return [op.name for op in d.operations] if d is not None else []


# --------------------------------------------------------------------------- checked rules


@dataclass
class Binding:
    """What a name stands for: a value (from an op pattern in ``ops``, or any), the values of a
    ``*rest``, or a Python value (an attribute, a guard's ``:=``)."""

    kind: str  # "value", "values", "python"
    ops: tuple[OpInfo, ...] = ()
    pos: Pos | None = None


@dataclass(frozen=True)
class Build:
    """How a replacement builds an op: ``annotated`` (the rule gives the result types),
    ``infer`` (from the operand types, by the op's IRDL constraints), ``init`` (the op's Python
    constructor, whose parameters the operands and keywords name), ``root`` (the types of the
    op it replaces)."""

    info: OpInfo
    how: str


@dataclass
class CheckedRule:
    rule: Rule
    #: op names the pattern's root can have
    roots: frozenset[str]
    #: how each op of the replacement is built, by id() of its Call node
    builds: dict[int, Build] = field(default_factory=dict)
    #: the natives the rule calls (for cache keys)
    natives: set[str] = field(default_factory=set)
    #: type strings of annotations, parsed once, by id() of their Const node
    types: dict[int, Attribute] = field(default_factory=dict)
    #: the ``name.attr`` nodes (by id()) that read an op's own property or attribute
    op_attributes: dict[int, bool] = field(default_factory=dict)


def check_rule(rule: Rule, ctx: Context) -> CheckedRule:
    """Check ``rule`` against the dialects of ``ctx``; errors point into the rule file."""
    return _Checker(rule, ctx).run()


class _Checker:
    def __init__(self, rule: Rule, ctx: Context):
        self.rule = rule
        self.ctx = ctx
        self.checked = CheckedRule(rule, frozenset())

    def run(self) -> CheckedRule:
        rule = self.rule
        roots = self._roots(rule.pattern)
        scope = self._pattern(rule.pattern, {}, root=True)
        self.checked.roots = frozenset(roots)
        for guard in rule.guards:
            self._expr(guard, scope, replacement=False)
        for item in rule.replacement:
            self._replacement(item, scope, top=len(rule.replacement) == 1)
        return self.checked

    # ---------------------------------------------------------------- patterns

    def _roots(self, p: Pattern) -> set[str]:
        if isinstance(p, OpPattern):
            return {p.op}
        if isinstance(p, AsPattern):
            return self._roots(p.pattern)
        if isinstance(p, OrPattern):
            return set().union(*(self._roots(a) for a in p.alternatives))
        raise RuleError(p.pos, "a rule's pattern is an op (such as graph.neg(x)), not a value")

    def _pattern(self, p: Pattern, scope: dict[str, Binding], root: bool = False) -> dict[str, Binding]:
        """The names ``p`` binds, added to ``scope``."""
        if isinstance(p, Wildcard | Literal):
            return scope
        if isinstance(p, Capture):
            old = scope.get(p.name)
            if old is not None and old.kind != "value":
                raise RuleError(p.pos, f"{p.name!r} is already bound to something other than a value")
            return scope if old is not None else {**scope, p.name: Binding("value", (), p.pos)}
        if isinstance(p, AsPattern):
            inner = self._pattern(p.pattern, scope, root)
            if p.name in inner or p.name == "_":
                raise RuleError(p.pos, f"{p.name!r} is bound twice in the pattern")
            return {**inner, p.name: Binding("value", self._ops_of(p.pattern), p.pos)}
        if isinstance(p, OrPattern):
            scopes = [self._pattern(a, scope, root) for a in p.alternatives]
            names = set(scopes[0])
            for a, s in zip(p.alternatives[1:], scopes[1:]):
                if set(s) != names:
                    raise RuleError(
                        a.pos, f"the alternatives of '|' must bind the same names: {sorted(names)} vs {sorted(set(s))}"
                    )
            merged = dict(scopes[0])
            for s in scopes[1:]:
                for n, b in s.items():
                    if merged[n].kind != b.kind:
                        raise RuleError(p.pos, f"{n!r} is bound to different kinds of things by the alternatives")
                    merged[n] = Binding(b.kind, (*merged[n].ops, *b.ops), merged[n].pos)
            return merged
        assert isinstance(p, OpPattern)
        info = op_info(self.ctx, p.op, p.pos)
        n = len(p.args)
        if info.fixed_operands and (n != info.min_operands if p.star is None else n > info.min_operands):
            assert info.operand_names is not None
            raise RuleError(
                p.pos,
                f"{p.op} takes {_count(info.min_operands, 'operand')} ({', '.join(info.operand_names)}), "
                f"the pattern gives {n}{' and *' + p.star if p.star else ''}",
            )
        for arg in p.args:
            scope = self._pattern(arg, scope)
        if p.star is not None and p.star != "_":
            if p.star in scope:
                raise RuleError(p.pos, f"{p.star!r} is bound twice in the pattern")
            scope = {**scope, p.star: Binding("values", (), p.pos)}
        for key, sub, pos in p.keywords:
            self._attr_name(info, key, pos)
            scope = self._keyword_pattern(sub, scope)
        return scope

    def _keyword_pattern(self, p: Pattern, scope: dict[str, Binding]) -> dict[str, Binding]:
        if isinstance(p, Wildcard | Literal):
            return scope
        if isinstance(p, Capture):
            old = scope.get(p.name)
            if old is not None and old.kind != "python":
                raise RuleError(p.pos, f"{p.name!r} is already bound to a value, not an attribute")
            return scope if old is not None else {**scope, p.name: Binding("python", (), p.pos)}
        if isinstance(p, OrPattern):
            for a in p.alternatives:
                if not isinstance(a, Literal | Wildcard):
                    raise RuleError(a.pos, "the alternatives of an attribute pattern are literals")
            return scope
        if isinstance(p, AsPattern):
            if p.name in scope:
                raise RuleError(p.pos, f"{p.name!r} is bound twice in the pattern")
            return {**self._keyword_pattern(p.pattern, scope), p.name: Binding("python", (), p.pos)}
        raise RuleError(p.pos, "an attribute is matched by a literal, a name or _, not by an op")

    def _ops_of(self, p: Pattern) -> tuple[OpInfo, ...]:
        if isinstance(p, OpPattern):
            return (op_info(self.ctx, p.op, p.pos),)
        if isinstance(p, AsPattern):
            return self._ops_of(p.pattern)
        if isinstance(p, OrPattern):
            found = [self._ops_of(a) for a in p.alternatives]
            return sum(found, ()) if all(found) else ()
        return ()

    def _attr_name(self, info: OpInfo, key: str, pos: Pos) -> None:
        if info.attrs or issubclass(info.cls, IRDLOperation):
            if key not in info.attrs:
                names = ", ".join(sorted(info.attrs)) or "none"
                raise RuleError(pos, f"{info.name} has no property or attribute {key!r} (it has: {names})")

    # ---------------------------------------------------------------- expressions

    def _expr(self, e: Expr, scope: dict[str, Binding], replacement: bool) -> None:
        """Check a guard's (or an op attribute's) expression; ``:=`` adds to ``scope`` in place."""
        if isinstance(e, Const):
            return
        if isinstance(e, Name):
            self._bound(e, scope)
        elif isinstance(e, GetAttr):
            self._expr(e.obj, scope, replacement)
            if isinstance(e.obj, Name):
                self.checked.op_attributes[id(e)] = self._attribute(scope[e.obj.name], e.obj.name, e.attr, e.pos)
        elif isinstance(e, GetItem):
            self._expr(e.obj, scope, replacement)
            self._expr(e.index, scope, replacement)
        elif isinstance(e, Call):
            if e.is_op:
                raise RuleError(e.pos, f"{e.func}(...) builds an op: ops are built only after '=>'")
            native = self._function(e)
            if native is not None and native.rewrite:
                raise RuleError(e.pos, f"{e.func} is a native rewrite: it can only be the replacement after '=>'")
            for a in e.args:
                self._expr(a, scope, replacement)
            for _, a, _ in e.keywords:
                self._expr(a, scope, replacement)
        elif isinstance(e, Unary):
            self._expr(e.operand, scope, replacement)
        elif isinstance(e, Binary):
            self._expr(e.left, scope, replacement)
            self._expr(e.right, scope, replacement)
        elif isinstance(e, BoolOp):
            for v in e.values:
                self._expr(v, scope, replacement)
        elif isinstance(e, Compare):
            self._expr(e.first, scope, replacement)
            for _, v in e.rest:
                self._expr(v, scope, replacement)
        elif isinstance(e, Sequence_):
            for v in e.items:
                self._expr(v, scope, replacement)
        elif isinstance(e, Starred):
            self._expr(e.value, scope, replacement)
        elif isinstance(e, Walrus):
            if replacement:
                raise RuleError(e.pos, "':=' belongs in a guard ('if'), not in the replacement")
            self._expr(e.value, scope, replacement)
            if e.name in scope and scope[e.name].kind != "python":
                raise RuleError(e.pos, f"{e.name!r} is bound by the pattern; choose another name")
            scope[e.name] = Binding("python", (), e.pos)
        elif isinstance(e, Annotated):
            raise RuleError(e.pos, "': type' gives the result type of an op built after '=>'")
        else:  # pragma: no cover (the parser makes no other node)
            raise RuleError(e.pos, "unexpected expression")

    def _bound(self, e: Name, scope: dict[str, Binding]) -> Binding:
        b = scope.get(e.name)
        if b is None:
            hint = " (it is a function: call it)" if natives.lookup(e.name) or e.name in natives.BUILTINS else ""
            raise RuleError(e.pos, f"name {e.name!r} is not bound by the pattern or a guard{hint}")
        return b

    def _attribute(self, b: Binding, name: str, attr: str, pos: Pos) -> bool:
        """Check ``name.attr``; whether it reads the op's own attribute (which wins over a value
        attribute of the same name: ``s.kind`` of a ``graph.scan``)."""
        if b.kind == "python":
            return False
        if b.ops and all(attr in info.attrs for info in b.ops):
            return True
        if attr in VALUE_ATTRS:
            return False
        if b.kind == "values":
            raise RuleError(pos, f"{name!r} holds several values (*{name}); it has no attribute {attr!r}")
        if not b.ops:
            raise RuleError(
                pos,
                f"{name!r} is any value, so it has only {', '.join(VALUE_ATTRS)}; to read an op's attribute, "
                f"match the op: `graph.transpose(...) as {name}`",
            )
        for info in b.ops:
            if info.attrs and attr not in info.attrs:
                names = ", ".join([*VALUE_ATTRS, *sorted(info.attrs)])
                raise RuleError(pos, f"{name!r} (a result of {info.name}) has no attribute {attr!r} (it has: {names})")
        return True

    def _function(self, e: Call) -> natives.Native | None:
        if e.func in natives.BUILTINS:
            return None
        native = natives.lookup(e.func)
        if native is None:
            raise RuleError(
                e.pos,
                f"unknown function {e.func!r}: not a builtin ({', '.join(sorted(natives.BUILTINS))}) and no native "
                "of that name is registered (kiln.register_rule_native)",
            )
        self.checked.natives.add(e.func)
        return native

    # ---------------------------------------------------------------- replacements

    def _replacement(self, e: Expr, scope: dict[str, Binding], top: bool) -> None:
        """Check an expression that stands for values: a bound name, a built op, a native rewrite."""
        annotation = None
        if isinstance(e, Annotated):
            annotation, e = e.type, e.expr
            if not (isinstance(e, Call) and e.is_op):
                raise RuleError(e.pos, "': type' follows an op built by the replacement, such as graph.cast(x)")
            self._expr(annotation, scope, replacement=True)
            if isinstance(annotation, Const):
                self.checked.types[id(annotation)] = self._parse_type(annotation)
        if isinstance(e, Name):
            self._bound(e, scope)
            if scope[e.name].kind == "python":
                raise RuleError(e.pos, f"{e.name!r} is not a value of the IR, so it cannot replace one")
            return
        if isinstance(e, Const):
            raise RuleError(e.pos, "a constant is not a value of the IR: build one, e.g. graph.constant(value=splat(0, x.type))")
        if isinstance(e, Call) and not e.is_op and (native := self._function(e)) is not None and native.rewrite:
            for a in e.args:
                self._expr(a, scope, replacement=True)
            for _, a, _ in e.keywords:
                self._expr(a, scope, replacement=True)
            return
        if not (isinstance(e, Call) and e.is_op):  # `rest[0]`, `*rest`, a native's value: IR values when it runs
            self._expr(e, scope, replacement=True)
            return
        info = op_info(self.ctx, e.func, e.pos)
        for a in e.args:
            self._replacement(a, scope, top=False)
        for _, a, _ in e.keywords:
            self._expr(a, scope, replacement=True)
        n = len(e.args)
        single_valued = all(self._single_valued(a, scope) for a in e.args)
        if info.fixed_operands and single_valued and n != info.min_operands:
            raise RuleError(e.pos, f"{e.func} takes {_count(info.min_operands, 'operand')}, the replacement gives {n}")
        self.checked.builds[id(e)] = Build(info, self._how(e, info, annotation is not None, top))

    def _single_valued(self, e: Expr, scope: dict[str, Binding]) -> bool:
        if isinstance(e, Annotated):
            e = e.expr
        if isinstance(e, Name):
            return scope[e.name].kind == "value"
        return not isinstance(e, Starred) and not (isinstance(e, Call) and not e.is_op)

    def _how(self, e: Call, info: OpInfo, annotated: bool, top: bool) -> str:
        bad = [(k, pos) for k, _, pos in e.keywords if k not in info.attrs]
        if annotated and bad:
            raise RuleError(bad[0][1], f"{e.func} has no property or attribute {bad[0][0]!r}")
        if annotated:
            return "annotated"
        if info.infers_results and not bad:
            return "infer"
        if self._init_takes(e, info):
            return "init"
        if top and not bad:
            return "root"
        if bad:
            raise RuleError(
                bad[0][1], f"{e.func} has no property or attribute {bad[0][0]!r}, and its constructor does not take it"
            )
        raise RuleError(
            e.pos,
            f"cannot tell the result type of {e.func}: its constraints do not give it and its constructor "
            f"does not take these operands and keywords; write it: `{e.func}(...) : x.type`",
        )

    def _init_takes(self, e: Call, info: OpInfo) -> bool:
        """Whether the op's own Python constructor takes the operands (by their names) and keywords."""
        if info.operand_names is None or len(e.args) > len(info.operand_names):
            return False
        if info.cls.__init__ is IRDLOperation.__init__:
            return False
        try:
            params = list(inspect.signature(info.cls.__init__).parameters.values())[1:]
        except (TypeError, ValueError):
            return False
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            return False
        given = {*info.operand_names[: len(e.args)], *(k for k, _, _ in e.keywords)}
        names = {p.name for p in params}
        required = {p.name for p in params if p.default is p.empty}
        return required <= given <= names

    def _parse_type(self, c: Const) -> Attribute:
        if isinstance(c.value, str):
            try:
                return Parser(self.ctx, c.value).parse_type()
            except ParseError as err:
                raise RuleError(c.pos, f"not a type: {c.value!r} ({err.msg})") from None
        raise RuleError(c.pos, "a result type is a type such as x.type, or a string such as \"tensor<4xf32>\"")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
