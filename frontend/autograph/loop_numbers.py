"""The Python numbers a staged loop carries, computed while tracing when nothing else decides them.

A ``while`` on Python counters (or a ``for`` over a Python ``range``) is staged as
a ``graph.while`` carrying its numbers as weak 0-d tensors, so the trace does not
grow with the trip count. After the loop, though, Python code often uses a
counter as a Python value: a slice bound, a shape, a list index. When the
loop's test and a number's updates depend only on numbers known while tracing
(constants and other such numbers), not on array data, the whole trajectory of
those numbers is a small Python program: :func:`fold_numbers` reads it from the
loop's regions and runs it with Python's own arithmetic (as the eager function
would), so the numbers come back out of the loop as Python numbers. The arrays
the loop computes stay staged.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, SSAValue
from xdsl.traits import is_side_effect_free

from kiln.dialects import graph
from kiln.frontend import dtypes, python_int_overflow

#: seconds of Python iterations spent at most on one loop's numbers (then they stay traced)
BUDGET_S = 2.0

Env = list[Any]
Eval = Callable[[Env], Any]

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    graph.AddOp: operator.add,
    graph.SubOp: operator.sub,
    graph.MulOp: operator.mul,
    graph.DivOp: operator.truediv,
    graph.FloorDivOp: operator.floordiv,
    graph.ModOp: operator.mod,
    graph.MaximumOp: max,
    graph.MinimumOp: min,
    graph.AndOp: operator.and_,
    graph.OrOp: operator.or_,
    graph.XorOp: operator.xor,
}

_UNARY: dict[type, Callable[[Any], Any]] = {
    graph.NegOp: operator.neg,
    graph.AbsOp: abs,
    graph.NotOp: lambda v: not v if isinstance(v, bool) else ~v,
}

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne,
}


class _Opaque(Exception):
    """A value the loop's numbers would depend on that is not a number known while tracing."""


def _python_type(ty: Any) -> type | None:
    """The Python type a 0-d value of ``ty`` stands for (None: not a plain number)."""
    if not isinstance(ty, TensorType) or graph.shape_of(ty):
        return None
    return {"b": bool, "i": int, "u": int, "f": float}.get(dtypes.from_element(ty.get_element_type()).kind)


def _compiler(args: dict[SSAValue, int]) -> Callable[[SSAValue], Eval]:
    """A compiler of values of the loop's region into Python closures over the carried numbers
    (``args``: the region's block arguments that are such numbers, by position)."""
    memo: dict[SSAValue, Eval] = {}

    def compile_value(value: SSAValue) -> Eval:
        found = memo.get(value)
        if found is None:
            found = memo[value] = _compile(value)
        return found

    def _compile(value: SSAValue) -> Eval:
        if isinstance(value, BlockArgument):
            if value not in args:
                raise _Opaque
            k = args[value]
            return lambda env: env[k]
        op = value.owner
        convert = _python_type(value.type)
        if convert is None:
            raise _Opaque
        if isinstance(op, graph.ConstantOp):
            const = _initial(value)
            return lambda env: const
        if isinstance(op, graph.CastOp):
            inner = compile_value(op.operands[0])
            return lambda env: convert(inner(env))
        if isinstance(op, graph.CmpOp):
            cmp = _COMPARE[op.predicate.data]
            lhs, rhs = compile_value(op.operands[0]), compile_value(op.operands[1])
            return lambda env: cmp(lhs(env), rhs(env))
        if type(op) in _BINARY and len(op.operands) == 2:
            fn = _BINARY[type(op)]
            lhs, rhs = compile_value(op.operands[0]), compile_value(op.operands[1])
            return lambda env: fn(lhs(env), rhs(env))
        if type(op) in _UNARY and len(op.operands) == 1:
            fn1 = _UNARY[type(op)]
            inner = compile_value(op.operands[0])
            return lambda env: fn1(inner(env))
        if isinstance(op, graph.SelectOp):
            c, a, b = (compile_value(o) for o in op.operands)
            return lambda env: a(env) if c(env) else b(env)
        if isinstance(op, graph.GatherRowOp) and isinstance(op.operand.owner, graph.ConstantOp):
            # `lst[i]` of a list of Python numbers at the staged index: its stack is a constant
            table = [convert(v) for v in np.asarray(op.operand.owner.value.get_values()).tolist()]
            row = compile_value(op.index)
            return lambda env: _row(table, row(env))
        if isinstance(op, graph.CondOp):
            # `a and b`, `if` on numbers: only the ops the yielded value depends on are run
            index = op.results.index(value)
            pred = compile_value(op.pred)
            then = compile_value(_yielded(op.then_region.block, index))
            other = compile_value(_yielded(op.else_region.block, index))
            return lambda env: then(env) if pred(env) else other(env)
        raise _Opaque

    return compile_value


def _row(table: list[Any], k: int) -> Any:
    """``table[k]`` as the staged ``graph.gather_row`` reads it after its ``graph.check``: out of
    range is the call's IndexError, so the loop's numbers stay traced (ArithmeticError, below)."""
    if not -len(table) <= k < len(table):
        raise ArithmeticError(f"row {k} of {len(table)}")
    return table[k]


def _yielded(block: Block, index: int) -> SSAValue:
    last = block.last_op
    assert isinstance(last, graph.YieldOp)
    return last.operands[index]


def _initial(value: SSAValue) -> Any:
    """The Python number ``value`` is, if it is a 0-d constant (else None)."""
    op = value.owner
    convert = _python_type(value.type)
    if not isinstance(op, graph.ConstantOp) or convert is None:
        return None
    return convert(np.asarray(op.value.get_values()[0]).item())


def fold_numbers(loop: graph.WhileOp) -> dict[int, Any]:
    """The final values of the numbers ``loop`` carries that nothing but numbers known while tracing
    decide, by result position (empty when its test depends on anything else, or when running its
    numbers takes longer than :data:`BUDGET_S`)."""
    cond, body = loop.cond_region.block, loop.body_region.block
    condition, yielded = cond.last_op, body.last_op
    if not isinstance(condition, graph.ConditionOp) or not isinstance(yielded, graph.YieldOp):
        return {}
    inits = [_initial(v) for v in loop.init]
    known = {k for k, v in enumerate(inits) if v is not None and condition.values[k] is cond.args[k]}
    while True:  # drop the numbers whose update needs something else, until the rest agree
        step = _compiler({body.args[k]: k for k in known})
        kept = set()
        for k in known:
            try:
                step(yielded.operands[k])
                kept.add(k)
            except _Opaque:
                pass
        if kept == known:
            break
        known = kept
    if not known:
        return {}
    try:
        test = _compiler({cond.args[k]: k for k in known})(condition.pred)
    except _Opaque:
        return {}
    updates = [(k, step(yielded.operands[k])) for k in sorted(known)]
    env: Env = list(inits)
    deadline = time.perf_counter() + BUDGET_S
    try:
        trips = 0
        while test(env):
            env = _next(env, updates)
            trips += 1
            if not trips % 4096 and time.perf_counter() > deadline:
                return {}
    except (ArithmeticError, ValueError):  # (a division by zero: the staged loop gives NumPy's answer)
        return {}
    return {k: env[k] for k in known}


def effect_free(loop: graph.WhileOp) -> bool:
    """Whether ``loop`` only computes its results (no check, raise or print in it, but the checks
    that its Python ints fit 64 bits, which guard only values of the loop): once none of them is
    used, dropping it changes nothing the call does."""
    return all(is_side_effect_free(op) or isinstance(op, (graph.YieldOp, graph.ConditionOp)) or op.regions
               or python_int_overflow.guards_only_its_value(op) for op in loop.walk() if op is not loop)


def _next(env: Env, updates: list[tuple[int, Eval]]) -> Env:
    new = list(env)
    for k, update in updates:
        new[k] = update(env)
    return new
