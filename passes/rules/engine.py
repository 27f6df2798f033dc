"""Running checked rules: matching op DAGs, evaluating guards, building replacements.

Each rule becomes an xDSL ``RewritePattern`` (:class:`RulePattern`). Matching is a search that
backtracks (``|`` alternatives, a name used twice), written as generators of bindings; guards
and replacements are evaluated over the bindings of the first match that passes its guards.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from xdsl.context import Context
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, OperandDef, VerificationContext
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from kiln.passes.rules import natives
from kiln.passes.rules.check import Build, CheckedRule
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
    RuleError,
    Sequence_,
    Starred,
    Unary,
    Walrus,
    Wildcard,
)
from kiln.passes.rules.values import VALUE_ATTRS, op_attribute, same_literal, to_attribute, to_python, type_attr, value_attr

Env = dict[str, Any]


# --------------------------------------------------------------------------- matching


def match_root(p: Pattern, op: Operation, env: Env) -> Iterator[Env]:
    """Bindings under which the rule's pattern ``p`` matches ``op``."""
    if isinstance(p, OpPattern):
        if op.name == p.op:
            yield from _match_op(p, op, env)
    elif isinstance(p, OrPattern):
        for alternative in p.alternatives:
            yield from match_root(alternative, op, env)
    elif isinstance(p, AsPattern):
        bound = op.results[0] if len(op.results) == 1 else op
        for e in match_root(p.pattern, op, env):
            yield {**e, p.name: bound}


def _match_value(p: Pattern, v: SSAValue, env: Env) -> Iterator[Env]:
    if isinstance(p, Wildcard):
        yield env
    elif isinstance(p, Capture):
        old = env.get(p.name)
        if old is None:
            yield {**env, p.name: v}
        elif old is v:
            yield env
    elif isinstance(p, Literal):
        if same_literal(value_attr(v, "splat"), p.value):
            yield env
    elif isinstance(p, OpPattern):
        if isinstance(v.owner, Operation) and v.owner.name == p.op:
            yield from _match_op(p, v.owner, env)
    elif isinstance(p, OrPattern):
        for alternative in p.alternatives:
            yield from _match_value(alternative, v, env)
    elif isinstance(p, AsPattern):
        for e in _match_value(p.pattern, v, env):
            yield {**e, p.name: v}


def _match_op(p: OpPattern, op: Operation, env: Env) -> Iterator[Env]:
    operands = op.operands
    n = len(p.args)
    if len(operands) < n or (p.star is None and len(operands) != n):
        return
    for e in _match_operands(p.args, operands, 0, env):
        if p.star is not None and p.star != "_":
            e = {**e, p.star: tuple(operands[n:])}
        yield from _match_keywords(p, op, 0, e)


def _match_operands(ps: Sequence[Pattern], vs: Sequence[SSAValue], i: int, env: Env) -> Iterator[Env]:
    if i == len(ps):
        yield env
        return
    for e in _match_value(ps[i], vs[i], env):
        yield from _match_operands(ps, vs, i + 1, e)


def _match_keywords(p: OpPattern, op: Operation, i: int, env: Env) -> Iterator[Env]:
    if i == len(p.keywords):
        yield env
        return
    key, sub, _ = p.keywords[i]
    for e in _match_attr(sub, to_python(op_attribute(op, key)), env):
        yield from _match_keywords(p, op, i + 1, e)


def _match_attr(p: Pattern, value: Any, env: Env) -> Iterator[Env]:
    if isinstance(p, Wildcard):
        yield env
    elif isinstance(p, Literal):
        if same_literal(value, p.value):
            yield env
    elif isinstance(p, Capture):
        if p.name not in env:
            yield {**env, p.name: value}
        elif _eq(env[p.name], value):
            yield env
    elif isinstance(p, OrPattern):
        for alternative in p.alternatives:
            yield from _match_attr(alternative, value, env)
    elif isinstance(p, AsPattern):
        for e in _match_attr(p.pattern, value, env):
            yield {**e, p.name: value}


# --------------------------------------------------------------------------- expressions


def _eq(a: Any, b: Any) -> bool:
    """Python's ``==``, but an attribute equals the string of its MLIR spelling (``x.element == "f32"``)
    and lists equal tuples."""
    if isinstance(a, Attribute) and isinstance(b, str):
        return str(a) == b
    if isinstance(b, Attribute) and isinstance(a, str):
        return str(b) == a
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, (tuple, list)):
        return any(_eq(item, x) for x in container)
    return item in container


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": _eq,
    "!=": lambda a, b: not _eq(a, b),
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda a, b: _contains(b, a),
    "not in": lambda a, b: not _contains(b, a),
}

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}


class Evaluator:
    """Evaluates one rule's expressions over one match's bindings."""

    def __init__(self, checked: CheckedRule, ctx: Context, env: Env):
        self.checked = checked
        self.ctx = ctx
        self.env = env

    def fail(self, pos: Pos, message: str) -> RuleError:
        return RuleError(pos, f"rule {self.checked.rule.name}: {message}")

    def eval(self, e: Expr) -> Any:
        try:
            return self._eval(e)
        except RuleError:
            raise
        except Exception as err:  # noqa: BLE001 (a guard or a native failed: point at the rule)
            raise self.fail(e.pos, f"{type(err).__name__}: {err}") from err

    def _eval(self, e: Expr) -> Any:
        if isinstance(e, Const):
            return e.value
        if isinstance(e, Name):
            return self.env[e.name]
        if isinstance(e, GetAttr):
            return self.attribute(self._eval(e.obj), e.attr, e.pos, self.checked.op_attributes.get(id(e), False))
        if isinstance(e, GetItem):
            return self._eval(e.obj)[self._eval(e.index)]
        if isinstance(e, Call):
            args: list[Any] = []
            for a in e.args:
                if isinstance(a, Starred):
                    args.extend(self._eval(a.value))
                else:
                    args.append(self._eval(a))
            kwargs = {k: self._eval(a) for k, a, _ in e.keywords}
            if e.func in natives.BUILTINS:
                return natives.BUILTINS[e.func](*args, **kwargs)
            native = natives.lookup(e.func)
            assert native is not None  # checked at load time
            return native.fn(*args, **kwargs)
        if isinstance(e, Unary):
            value = self._eval(e.operand)
            return (not value) if e.op == "not" else -value
        if isinstance(e, Binary):
            return _BINARY[e.op](self._eval(e.left), self._eval(e.right))
        if isinstance(e, BoolOp):
            result: Any = e.op == "and"
            for v in e.values:
                result = self._eval(v)
                if (e.op == "and") != bool(result):
                    return result
            return result
        if isinstance(e, Compare):
            left = self._eval(e.first)
            for op, right_expr in e.rest:
                right = self._eval(right_expr)
                if not _COMPARE[op](left, right):
                    return False
                left = right
            return True
        if isinstance(e, Sequence_):
            return tuple(self._eval(v) for v in e.items)
        if isinstance(e, Walrus):
            value = self._eval(e.value)
            self.env[e.name] = value
            return value
        raise self.fail(e.pos, "this expression cannot be evaluated here")

    def attribute(self, obj: Any, name: str, pos: Pos, of_op: bool = False) -> Any:
        """``obj.name`` for a value, an op (multi-result root) or a type; ``of_op``: the name is
        the op's own property or attribute (checked at load time), not a value attribute."""
        if isinstance(obj, SSAValue):
            if name in VALUE_ATTRS and not of_op:
                return value_attr(obj, name)
            owner = obj.owner
            if isinstance(owner, Operation) and (attr := op_attribute(owner, name)) is not None:
                return to_python(attr)
            if isinstance(owner, Operation):
                return None  # an optional attribute the op does not have
            raise self.fail(pos, f"a block argument has no attribute {name!r}")
        if isinstance(obj, Operation):
            if (attr := op_attribute(obj, name)) is not None:
                return to_python(attr)
            raise self.fail(pos, f"{obj.name} (with {len(obj.results)} results) has no attribute {name!r}")
        if isinstance(obj, Attribute) and name in VALUE_ATTRS and name not in ("splat", "uses", "op"):
            return type_attr(obj, name)
        raise self.fail(pos, f"{type(obj).__name__} value has no attribute {name!r}")

    # ---------------------------------------------------------------- replacements

    def values(self, e: Expr, builder: natives.RuleBuilder) -> list[SSAValue]:
        """The values the replacement expression ``e`` stands for, building ops on the way."""
        annotation = None
        if isinstance(e, Annotated):
            annotation, e = e.type, e.expr
        if isinstance(e, Starred):
            return self._as_values(self.eval(e.value), e.pos)
        if isinstance(e, Call) and not e.is_op and (native := natives.lookup(e.func)) is not None and native.rewrite:
            return self._native_rewrite(e, builder)
        if not (isinstance(e, Call) and e.is_op):
            return self._as_values(self.eval(e), e.pos)
        build = self.checked.builds[id(e)]
        operands = [v for a in e.args for v in self.values(a, builder)]
        try:
            op = self._build(e, build, operands, annotation, builder)
        except RuleError:
            raise
        except (VerifyException, ValueError, TypeError, AssertionError, KeyError, IndexError) as err:
            raise self.fail(e.pos, f"cannot build {e.func}: {type(err).__name__}: {err}") from err
        builder.insert(op)
        return list(op.results)

    def _as_values(self, obj: Any, pos: Pos) -> list[SSAValue]:
        """IR values: a value, an op's results, or a sequence of values."""
        if isinstance(obj, SSAValue):
            return [obj]
        if isinstance(obj, Operation):
            return list(obj.results)
        if isinstance(obj, (tuple, list)) and all(isinstance(v, SSAValue) for v in obj):
            return list(obj)
        raise self.fail(pos, f"{obj!r} is not a value of the IR")

    def _native_rewrite(self, e: Call, builder: natives.RuleBuilder) -> list[SSAValue]:
        native = natives.lookup(e.func)
        assert native is not None and native.rewrite
        args = [self.eval(a) for a in e.args]
        kwargs = {k: self.eval(a) for k, a, _ in e.keywords}
        try:
            result = native.fn(builder, *args, **kwargs)
        except DiagnosticException:
            raise
        except Exception as err:  # noqa: BLE001 (the native's failure, pointed at the rule)
            raise self.fail(e.pos, f"native rewrite {e.func} raised {type(err).__name__}: {err}") from err
        if result is None:
            raise _Declined()
        if isinstance(result, Operation):
            return list(result.results)
        if isinstance(result, SSAValue):
            return [result]
        return list(result)

    def _build(
        self, e: Call, build: Build, operands: list[SSAValue], annotation: Expr | None, builder: natives.RuleBuilder
    ) -> Operation:
        cls = build.info.cls
        if build.how == "init":
            assert build.info.operand_names is not None
            kwargs = dict(zip(build.info.operand_names, operands))
            kwargs.update({k: self.eval(a) for k, a, _ in e.keywords})
            return cls(**kwargs)
        props: dict[str, Attribute] = {}
        attrs: dict[str, Attribute] = {}
        for key, expr, pos in e.keywords:
            kind, constr = build.info.attrs[key]
            value = self.eval(expr)
            attr = to_attribute(value, constr)
            if attr is None:
                raise self.fail(pos, f"{value!r} is not a valid {key!r} for {e.func}")
            (props if kind == "property" else attrs)[_attr_key(cls, key)] = attr
        if build.how == "annotated":
            assert annotation is not None
            result_types = self._types(annotation)
        elif build.how == "infer":
            result_types = _infer_results(cls, operands)
        else:  # "root": the types of the op being replaced
            result_types = [r.type for r in builder.root.results]
        if issubclass(cls, IRDLOperation):
            return cls.build(operands=_group(cls, operands), result_types=result_types, properties=props, attributes=attrs)
        return cls.create(operands=operands, result_types=result_types, properties=props, attributes=attrs)

    def _types(self, annotation: Expr) -> list[Attribute]:
        parsed = self.checked.types.get(id(annotation))
        value = parsed if parsed is not None else self.eval(annotation)
        items = value if isinstance(value, (tuple, list)) else [value]
        types: list[Attribute] = []
        for t in items:
            if isinstance(t, str):
                try:
                    t = Parser(self.ctx, t).parse_type()
                except ParseError as err:
                    raise self.fail(annotation.pos, f"not a type: {t!r} ({err.msg})") from None
            if not isinstance(t, Attribute):
                raise self.fail(annotation.pos, f"{t!r} is not a type")
            types.append(t)
        return types


class _Declined(Exception):
    """A native rewrite returned None: the rule does not apply."""


def _attr_key(cls: type[Operation], key: str) -> str:
    """The stored name of a property or attribute given by its name or its Python accessor."""
    if issubclass(cls, IRDLOperation):
        mapped = cls.get_irdl_definition().accessor_names.get(key)
        if mapped is not None:
            return mapped[0]
    return key


def _group(cls: type[IRDLOperation], operands: list[SSAValue]) -> list[SSAValue | list[SSAValue]]:
    """Operands as IRDL's ``build`` wants them: one entry per definition; a single variadic
    definition takes what the others leave."""
    defs = cls.get_irdl_definition().operands
    variadic = [i for i, (_, d) in enumerate(defs) if type(d) is not OperandDef]
    if not variadic:
        return list(operands)
    if len(variadic) > 1:
        raise ValueError(f"{cls.name} has several variadic operand groups; build it with a native rewrite")
    k = variadic[0]
    extra = len(operands) - (len(defs) - 1)
    if extra < 0:
        raise ValueError(f"{cls.name} needs at least {len(defs) - 1} operands")
    return [*operands[:k], list(operands[k : k + extra]), *operands[k + extra :]]


def _infer_results(cls: type[Operation], operands: list[SSAValue]) -> list[Attribute]:
    """The result types IRDL's constraint variables give, from the operand types."""
    assert issubclass(cls, IRDLOperation)
    d = cls.get_irdl_definition()
    context = VerificationContext()
    for (_, odef), v in zip(d.operands, operands, strict=True):
        odef.constr.verify([v.type], context)
    return [rdef.constr.infer(context, length=1)[0] for _, rdef in d.results]


# --------------------------------------------------------------------------- patterns


class RulePattern(RewritePattern):
    """One rule as an xDSL rewrite pattern."""

    def __init__(self, checked: CheckedRule, ctx: Context):
        self.checked = checked
        self.ctx = ctx

    @property
    def name(self) -> str:
        return self.checked.rule.name

    @property
    def benefit(self) -> int:
        return self.checked.rule.benefit

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name in self.checked.roots:
            self.apply(op, rewriter)

    def apply(self, op: Operation, rewriter: PatternRewriter) -> bool:
        """Rewrite ``op`` with the first match that passes the guards; whether it did."""
        rule = self.checked.rule
        for env in match_root(rule.pattern, op, {}):
            evaluator = Evaluator(self.checked, self.ctx, dict(env))
            if all(evaluator.eval(g) for g in rule.guards):
                return self._rewrite(op, rewriter, evaluator)
        return False

    def _rewrite(self, op: Operation, rewriter: PatternRewriter, evaluator: Evaluator) -> bool:
        rule = self.checked.rule
        if rule.erase:
            if any(r.uses for r in op.results):
                raise evaluator.fail(rule.pos, f"cannot erase {op.name}: its results are used")
            rewriter.erase(op)
            return True
        builder = natives.RuleBuilder(rewriter, op)
        try:
            new = [v for item in rule.replacement for v in evaluator.values(item, builder)]
        except BaseException as err:
            _discard(builder.ops)
            if isinstance(err, _Declined):
                return False
            raise
        if any(v in op.results for v in new):
            _discard(builder.ops)
            raise evaluator.fail(rule.pos, f"the replacement of {op.name} uses the op's own result")
        old_types = [r.type for r in op.results]
        new_types = [v.type for v in new]
        if old_types != new_types:
            _discard(builder.ops)
            raise evaluator.fail(
                rule.replacement[0].pos,
                f"the replacement has type(s) {', '.join(map(str, new_types)) or 'none'} but the replaced "
                f"{op.name} has {', '.join(map(str, old_types)) or 'none'}; add a guard such as `if x.type == r.type`",
            )
        rewriter.replace(op, builder.ops, new)
        return True


def _discard(ops: list[Operation]) -> None:
    """Drop ops built for a replacement that is not made (they hold uses of matched values)."""
    for op in reversed(ops):
        op.erase(safe_erase=False)
