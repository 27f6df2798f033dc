"""Patterns tried only on the op classes they match, for every pass that walks with xDSL's
``PatternRewriteWalker`` (installed with kiln's universe, as :mod:`kiln.xdsl_patches`).

xDSL's walker calls its pattern on every op of the module, and ``GreedyRewritePatternApplier``
calls each of its patterns in turn; a pattern written with ``op_type_rewrite_pattern`` then
returns at once unless the op is of its class. A compile made ~80,000 such calls for ~35,000
that could match (8 fuzz programs), each after the walker reset its rewriter on the op. The
class a pattern matches is read from ``op_type_rewrite_pattern``'s closure (a pattern written
otherwise matches any op); then

* an applier tries on an op only the patterns that can match its class, in their order;
* a walker whose pattern can match only some classes (a typed pattern, or an applier of typed
  patterns that neither folds nor erases dead ops) puts only ops of those classes on its
  worklist, and skips the others that rewrites add, as the pattern would;
* the walker collects the ops of a round in one pass over the linked lists (:func:`walked`)
  instead of xDSL's three nested generators per op, in the same order.

Both are exact: a skipped call is one that would have returned without touching the op or the
rewriter (xDSL's ``impl``: ``if isinstance(op, expected_type): func(...)``).
"""

from __future__ import annotations

import functools
from types import CodeType, UnionType
from typing import Any, Union, get_args, get_origin

import xdsl.transforms.canonicalize as _canonicalize
import xdsl.transforms.dead_code_elimination as _dce
from xdsl.folder import Folder
from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import ConstantLike, HasCanonicalizationPatternsTrait, HasFolder


class _Typed(RewritePattern):
    """A typed pattern, for the code object of ``op_type_rewrite_pattern``'s wrapper."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        pass


_TYPED_CODE: CodeType = _Typed.match_and_rewrite.__code__


def typed_classes(pattern: RewritePattern) -> tuple[type[Operation], ...] | None:
    """The op classes ``pattern`` can act on, or None when it may act on any op."""
    method = type(pattern).match_and_rewrite
    if method is _greedy_match_and_rewrite:
        assert isinstance(pattern, GreedyRewritePatternApplier)
        if pattern.dce_enabled or pattern.folding_enabled:
            return None
        classes: list[type[Operation]] = []
        for inner in pattern.rewrite_patterns:
            if (inner_classes := typed_classes(inner)) is None:
                return None
            classes.extend(inner_classes)
        return tuple(classes)
    if getattr(method, "__code__", None) is not _TYPED_CODE:
        return None
    cells = dict(zip(method.__code__.co_freevars, method.__closure__ or ()))
    expected: Any = cells["expected_type"].cell_contents
    return get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)


def _patterns_for(applier: GreedyRewritePatternApplier, op_class: type[Operation]) -> tuple[RewritePattern, ...]:
    """The applier's patterns that can match an op of ``op_class``, in order (kept per applier:
    its list is not changed once built, by xDSL or kiln)."""
    table: dict[type[Operation], tuple[RewritePattern, ...]] | None = applier.__dict__.get("_kiln_by_class")
    if table is None:
        table = applier.__dict__["_kiln_by_class"] = {}
    patterns = table.get(op_class)
    if patterns is None:
        patterns = table[op_class] = tuple(
            p for p in applier.rewrite_patterns
            if (classes := typed_classes(p)) is None or issubclass(op_class, classes)
        )
    return patterns


def _greedy_match_and_rewrite(self: GreedyRewritePatternApplier, op: Operation, rewriter: PatternRewriter) -> None:
    """xDSL's ``GreedyRewritePatternApplier.match_and_rewrite``, trying only the patterns that can
    match ``op``'s class."""
    if self.dce_enabled and _dce.is_trivially_dead(op):
        rewriter.erase(op)
        return
    if self.folding_enabled and _folds(type(op)):
        if self.ctx is None:
            raise ValueError("Context is required for folding")
        folded = Folder(self.ctx).try_fold(op)
        if folded is not None:
            folded_values, folded_ops = folded
            rewriter.replace(op, new_ops=folded_ops, new_results=folded_values)
            return
    for pattern in _patterns_for(self, type(op)):
        pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action:
            return


@functools.cache
def _folds(op_class: type[Operation]) -> bool:
    """xDSL's test for folding an op, per class (``has_trait`` asks the class, and nothing adds
    traits once a compile runs): it has a folder and is no constant (a constant would fold to
    itself forever)."""
    return op_class.has_trait(HasFolder, value_if_unregistered=False) and not op_class.has_trait(
        ConstantLike, value_if_unregistered=True
    )


@functools.cache
def _canonicalization_patterns(op_class: type[Operation]) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns of an op class's traits (xDSL makes them anew on every op
    visited; they hold no state)."""
    traits = op_class.get_traits_of_type(HasCanonicalizationPatternsTrait)
    return tuple(pattern for trait in traits for pattern in trait.get_patterns(op_class))


def _canonicalize_op(self: _canonicalize.CanonicalizationRewritePattern, op: Operation, rewriter: PatternRewriter, /) -> None:
    """xDSL's ``CanonicalizationRewritePattern.match_and_rewrite`` with the op class's patterns
    made once; several are tried as xDSL's applier of them would (a dead op erased first)."""
    patterns = _canonicalization_patterns(type(op))
    if len(patterns) == 1:
        patterns[0].match_and_rewrite(op, rewriter)
        return
    if not patterns:
        return
    if _dce.is_trivially_dead(op):
        rewriter.erase(op)
        return
    for pattern in patterns:
        pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action:
            return


def walked(root: Operation | Region | Block, *, reverse: bool, region_first: bool) -> list[Operation]:
    """The ops xDSL's ``root.walk(reverse=..., region_first=...)`` yields, in its order, as a list
    (``root`` included when it is an op)."""
    out: list[Operation] = []
    append = out.append

    def block_ops(block: Block) -> None:
        op = block._last_op if reverse else block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            if op.regions:
                visit(op)
            else:
                append(op)
            op = op._prev_op if reverse else op._next_op  # pyright: ignore[reportPrivateUsage]

    def region_blocks(region: Region) -> None:
        block = region._last_block if reverse else region._first_block  # pyright: ignore[reportPrivateUsage]
        while block is not None:
            block_ops(block)
            block = block._prev_block if reverse else block._next_block  # pyright: ignore[reportPrivateUsage]

    def visit(op: Operation) -> None:
        if not region_first:
            append(op)
        for region in reversed(op.regions) if reverse else op.regions:
            region_blocks(region)
        if region_first:
            append(op)

    if isinstance(root, Operation):
        visit(root)
    elif isinstance(root, Region):
        region_blocks(root)
    else:
        block_ops(root)
    return out


def _matcher(pattern: RewritePattern) -> dict[type[Operation], bool] | None:
    """A memo of whether ``pattern`` can match an op class (filled by :func:`_can_match`), or
    None when it may act on any op."""
    return None if typed_classes(pattern) is None else {}


def _can_match(pattern: RewritePattern, memo: dict[type[Operation], bool], op_class: type[Operation]) -> bool:
    hit = memo.get(op_class)
    if hit is None:
        classes = typed_classes(pattern)
        hit = memo[op_class] = classes is None or issubclass(op_class, classes)
    return hit


def _populate_worklist(self: PatternRewriteWalker, root: Operation | Region | Block) -> None:
    """xDSL's ``PatternRewriteWalker._populate_worklist``: the ops under ``root``, in the walker's
    order, less those its pattern cannot match."""
    push = self._worklist.push  # pyright: ignore[reportPrivateUsage]
    memo = _matcher(self.pattern)
    for op in walked(root, reverse=not self.walk_reverse, region_first=not self.walk_regions_first):
        if memo is None or _can_match(self.pattern, memo, type(op)):
            push(op)


def _process_worklist(self: PatternRewriteWalker, listener: PatternRewriterListener) -> bool:
    """xDSL's ``PatternRewriteWalker._process_worklist``, less the ops its pattern cannot match."""
    worklist = self._worklist  # pyright: ignore[reportPrivateUsage]
    memo = _matcher(self.pattern)
    rewriter: PatternRewriter | None = None
    done = False
    while worklist:
        op = worklist.pop()
        if memo is not None and not _can_match(self.pattern, memo, type(op)):
            continue
        if rewriter is None:
            rewriter = PatternRewriter(op)
            rewriter.extend_from_listener(listener)
        rewriter.has_done_action = False
        rewriter.current_operation = op
        rewriter.insertion_point = InsertPoint.before(op)
        rewriter.name_hint = None
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        except Exception as err:
            op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
        done |= rewriter.has_done_action
    return done


def apply() -> None:
    """Install the dispatch (idempotent)."""
    GreedyRewritePatternApplier.match_and_rewrite = _greedy_match_and_rewrite  # type: ignore[method-assign]
    _canonicalize.CanonicalizationRewritePattern.match_and_rewrite = _canonicalize_op  # type: ignore[method-assign]
    PatternRewriteWalker._populate_worklist = _populate_worklist  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
    PatternRewriteWalker._process_worklist = _process_worklist  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
