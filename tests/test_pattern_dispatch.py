"""kiln.pattern_dispatch: a pattern written with ``op_type_rewrite_pattern`` is tried only on ops
of its class (an applier dispatches, a walker skips the rest), ``walked`` lists the ops in the
order of xDSL's ``walk``, and the rewrites are the ones xDSL makes."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest

from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.worklist import Worklist

from kiln import pattern_dispatch
from kiln.universe import build_pipeline, make_context

_NESTED = """
func.func @f(%a: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (f64) {
    %m = arith.mulf %acc, %two : f64
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%b = %m) -> (f64) {
      %t = arith.addf %b, %two : f64
      scf.yield %t : f64
    }
    scf.yield %s : f64
  }
  %z = arith.subf %r, %two : f64
  func.return %z : f64
}
"""


def _module(text: str = _NESTED) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


class _AddToSub(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddfOp, rewriter: PatternRewriter, /) -> None:
        rewriter.replace(op, arith.SubfOp(op.lhs, op.rhs))


class _MulOrSub(RewritePattern):
    seen: list[str]

    def __init__(self) -> None:
        self.seen = []

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MulfOp | arith.SubfOp, rewriter: PatternRewriter, /) -> None:
        self.seen.append(op.name)


class _Any(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        pass


def test_typed_classes_are_read_from_the_decorator() -> None:
    assert pattern_dispatch.typed_classes(_AddToSub()) == (arith.AddfOp,)
    assert pattern_dispatch.typed_classes(_MulOrSub()) == (arith.MulfOp, arith.SubfOp)
    assert pattern_dispatch.typed_classes(_Any()) is None
    typed = GreedyRewritePatternApplier([_AddToSub(), _MulOrSub()], dce_enabled=False)
    assert pattern_dispatch.typed_classes(typed) == (arith.AddfOp, arith.MulfOp, arith.SubfOp)
    # an applier that erases dead ops or folds acts on any op; so does one holding an untyped pattern
    assert pattern_dispatch.typed_classes(GreedyRewritePatternApplier([_AddToSub()])) is None
    assert pattern_dispatch.typed_classes(GreedyRewritePatternApplier([_AddToSub(), _Any()], dce_enabled=False)) is None


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("region_first", [False, True])
def test_walked_is_xdsls_walk(reverse: bool, region_first: bool) -> None:
    module = _module()
    for root in (module, module.body, module.body.block):
        expected = list(root.walk(reverse=reverse, region_first=region_first))
        got = pattern_dispatch.walked(root, reverse=reverse, region_first=region_first)
        assert len(got) == len(expected) == 13 - (root is not module)
        assert all(a is b for a, b in zip(got, expected))


def _typed_calls(run: Any) -> int:
    """How many times ``op_type_rewrite_pattern``'s wrapper is entered while ``run()`` runs."""
    calls = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call" and frame.f_code is pattern_dispatch._TYPED_CODE:  # noqa: SLF001
            calls += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


def test_an_applier_tries_only_the_patterns_of_the_ops_class() -> None:
    """Two typed patterns, six ops they could see (the module is walked once more after the
    rewrite): the add is rewritten to a sub, and each pattern is entered only for its own ops."""
    module = _module()
    collect = _MulOrSub()
    applier = GreedyRewritePatternApplier([_AddToSub(), collect], dce_enabled=False)
    calls = _typed_calls(lambda: PatternRewriteWalker(applier).rewrite_module(module))
    assert [op.name for op in module.walk() if op.name.startswith("arith.") and "constant" not in op.name] == [
        "arith.mulf", "arith.subf", "arith.subf"
    ]
    # round 1: add (rewritten), then the new sub, mul, sub; round 2: mul and both subs
    assert sorted(collect.seen) == ["arith.mulf", "arith.mulf", "arith.subf", "arith.subf", "arith.subf", "arith.subf"]
    assert calls == 7  # xDSL: both patterns on every op visited: 49


def test_a_walker_lists_only_the_ops_its_pattern_can_match(monkeypatch: pytest.MonkeyPatch) -> None:
    pushed: list[str] = []
    push = Worklist.push

    def recorded(self: Worklist[Operation], item: Operation) -> None:
        pushed.append(item.name)
        push(self, item)

    monkeypatch.setattr(Worklist, "push", recorded)
    module = _module()
    PatternRewriteWalker(_MulOrSub(), apply_recursively=False).rewrite_module(module)
    assert sorted(pushed) == ["arith.mulf", "arith.subf"]  # xDSL: all 12 ops


def test_canonicalize_folds_and_simplifies_as_xdsl_does() -> None:
    """Folding (a constant product), a canonicalization pattern (x + 0) and dead code."""
    module = _module("""
func.func @g(%a: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %six = arith.muli %c2, %c3 : i64
  %x = arith.addi %a, %c0 : i64
  %y = arith.addi %x, %six : i64
  %dead = arith.subi %y, %c2 : i64
  func.return %y : i64
}
""")
    build_pipeline("canonicalize").apply(make_context(), module)
    ops = [op for op in module.walk() if op.name.startswith("arith.")]
    assert [op.name for op in ops] == ["arith.constant", "arith.addi"]
    assert ops[0].value.value.data == 6  # type: ignore[attr-defined]
    assert ops[1].operands[0] is module.body.block.first_op.body.block.args[0]  # type: ignore[union-attr]
