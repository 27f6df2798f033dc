"""The staging hooks: what each operator calls when a condition or iterable is a tensor.

The operators in :mod:`kiln.frontend.autograph.operators` run plain Python
for Python values and call these hooks for kiln tensors; the hooks build
``graph.cond`` / ``graph.while`` (written by the frontend's tracer, not here).

Conventions shared by the hooks:

- ``get_state() -> tuple``: the current values of the construct's state
  variables, in ``symbol_names`` order; a variable not bound yet is an
  :class:`~kiln.frontend.autograph.operators.variables.Undefined`.
- ``set_state(values: tuple) -> None``: rebinds them (the generated code
  declares them ``nonlocal``).
- ``symbol_names: tuple[str, ...]``: their names, for error messages such as
  "variable 'x' is defined in only one branch". Generated names may appear:
  ``break_N``/``continue_N`` (loop flags), ``do_return`` and ``retval_`` (an
  early ``return`` and its value).
- Bodies and tests are closures over those variables; calling one once, in
  the region being traced, traces it. Bodies return nothing: their effect is
  on the state.
- :func:`unstageable` lists the constructs inside a body that cannot be
  staged (``try``, ``with``, ``global`` ...), to be raised as errors.
"""

from __future__ import annotations

import dis
import functools
import inspect
import sys
import types
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import CodeType, FrameType, ModuleType
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FileLineColLoc, TensorType, i1
from xdsl.ir import Block, Operation, Region, SSAValue

# Defined before kiln's imports: the operators import them from here while this module loads.
GetState = Callable[[], tuple[Any, ...]]
SetState = Callable[[tuple[Any, ...]], None]

from kiln.dialects import graph
from kiln.frontend import dtypes, index_facts, list_arrays, mutation, pytree, result_kinds, run_time_shape, runtime_checks, trace_context
from kiln.frontend.abstract_value import PLAIN, AbstractValue, abstract_of, join_paths
from kiln.frontend.autograph import effects, escapes, loop_numbers, staged_recursion
from kiln.frontend.autograph.branch_lists import BranchLists
from kiln.frontend.autograph.counted_iterables import Item, StackedItems, StagedRows
from kiln.frontend.autograph.loop_lists import LoopLists
from kiln.frontend.autograph.context import Unsupported, is_converted_code, unsupported_in
from kiln.frontend.autograph.result_groups import ResultGroups
from kiln.frontend.autograph.operators.variables import NOT_RETURNED, Undefined
from kiln.frontend.autograph.state import (
    BranchUndefined,
    JumpBound,
    NotCarried,
    align_placeholders,
    Tree,
    describe,
    flatten_state,
    is_jump_flag,
    is_number,
    is_strong_constant,
    may_be_placeholder,
    same_python_value,
    unflatten_state,
)
from kiln.frontend import shape_sources
from kiln.frontend.masked import MaskedSelection
from kiln.frontend.tensor import Tensor, as_tensor, broadcast_to, cast, constant, emit, is_scalar_like, layout_of, merge_layout, require_rank
from kiln.frontend.tensor import Rows, path_promotions, python_number

_LOOP_BOUNDS = "kiln.autograph.loop_bounds"


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a kiln tensor (which decides staging over running Python)."""
    return isinstance(value, Tensor)


def is_staged_iterable(value: Any) -> bool:
    """Whether a ``for`` loop over ``value`` is staged: a tensor, ``kiln.range`` while tracing, or a
    ``zip`` or ``enumerate`` of tensors of run-time length."""
    from kiln.frontend.range import StagedRange

    return isinstance(value, (Tensor, StagedRange, StagedRows))


# ---------------------------------------------------------------------- where, and what cannot be staged


def statement_location() -> str:
    """``file:line`` of the user's statement being staged (the innermost user frame)."""
    loc = trace_context.user_location()
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}"
    return "<unknown location>"


def _check_not_in_try(where: str, construct: str) -> None:
    """Refuse staged code inside a ``try`` body (of any function the trace is in): the compiled code
    raises no Python exception, so the ``except`` clauses could never run for it."""
    from kiln.frontend.autograph.converters.unsupported import try_in_trace

    around = try_in_trace()
    if around is not None:
        raise NotImplementedError(
            f"{where}: `try` around staged code cannot be staged ({around}): this `{construct}` depends on a "
            "tensor, so it runs as compiled code, which raises no Python exception for the `except` clauses to "
            "catch. Move the staged code out of the `try`, or make the condition a Python value."
        )


def _check_stageable(where: str, construct: str, *bodies: Callable[..., Any] | None) -> None:
    """Refuse a staged body holding constructs that would run once at trace time instead of every run."""
    _check_not_in_try(where, construct)
    found = sorted({u for body in bodies if body is not None for u in unstageable(body)}, key=lambda u: u.lineno)
    problems = [u.message() for u in found]
    problems += [
        f"`global` cannot be staged: variable '{name}' is a global assigned in the staged code"
        for name in sorted({n for body in bodies if body is not None for n in _globals_stored(inspect.unwrap(body).__code__)})
    ]
    if problems:
        raise NotImplementedError(
            f"{where}: this `{construct}` depends on a tensor, so its body is staged, but "
            + "; ".join(problems)
            + ". Move it out of the staged code, or make the condition a Python value."
        )


_GLOBAL_WRITES = frozenset({dis.opmap["STORE_GLOBAL"], dis.opmap["DELETE_GLOBAL"]})


@functools.lru_cache(maxsize=1024)
def _globals_stored(code: CodeType) -> frozenset[str]:
    """Names a body (or a function nested in it) assigns with ``global`` (once per code: each
    staged construct asks of its bodies, and the bytecode walk was a tenth of a small trace)."""
    names = set(effects.global_names(code, _GLOBAL_WRITES))
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _globals_stored(const)
    return frozenset(names)


# ---------------------------------------------------------------------- types of leaves


def _describe_tensor(dtype: np.dtype[Any], shape: tuple[int | None, ...]) -> str:
    article = "an" if str(dtype)[0] in "aeiou" else "a"
    return f"{article} {dtype} tensor of shape {shape}"


def _show(value: Any) -> str:
    if isinstance(value, Tensor) and value.shape_source is not None:
        return f"a {value.dtype} tensor of the shape of {shape_sources.describe(value.shape_source)} (unknown rank)"
    if isinstance(value, Tensor):
        return _describe_tensor(value.dtype, value.shape)
    if is_strong_constant(value):
        return f"a NumPy {np.asarray(value).dtype} value of shape {np.shape(value)}"
    if isinstance(value, Undefined):
        return "not defined"
    if value is NOT_RETURNED:
        return "not returned yet"
    if value is None:
        return "None"
    return f"the Python {type(value).__name__} {value!r}"


def _type_of(value: Any) -> TensorType | None:
    """The tensor type a tensor or NumPy constant has (``None`` for Python values); ``x[mask]``'s
    is NumPy's 1-D array of a length known only at run time."""
    if isinstance(value, Tensor):
        return value.type
    if isinstance(value, MaskedSelection):
        return graph.tensor_type(dtypes.to_element(value.dtype), (-1,))
    if is_strong_constant(value):
        array = np.asarray(value)
        return graph.tensor_type(dtypes.to_element(dtypes.canonical(array.dtype)), array.shape)
    return None


def _dtype(ty: TensorType) -> np.dtype[Any]:
    return dtypes.from_element(ty.get_element_type())


def _scalar_type(value: Any) -> TensorType:
    """The type a Python number becomes on its own (NumPy's: int64, float64, bool)."""
    return graph.tensor_type(dtypes.to_element(dtypes.canonical(np.asarray(value).dtype)), ())


def _number_fits(value: Any, ty: TensorType) -> bool:
    """Whether a Python number takes ``ty``'s dtype in NumPy's promotion (``0`` fits float32, ``0.5`` not int64)."""
    dt = _dtype(ty)
    return np.result_type(dt, value) == dt


def _joined(a: TensorType, b: TensorType) -> TensorType | None:
    """The type both ``a`` and ``b`` relax to when they differ only in sizes: each size they
    disagree on dynamic (a loop-carried ``z = z[1:]``, or ``x[:3]`` on one path and ``x[:5]``
    on the other); ``None`` for another element type or rank."""
    if a.get_element_type() != b.get_element_type():
        return None
    sa, sb = graph.shape_of(a), graph.shape_of(b)
    if len(sa) != len(sb):
        return None
    return graph.tensor_type(a.get_element_type(), [x if x == y else -1 for x, y in zip(sa, sb)])


def _relaxed(value: SSAValue, ty: TensorType) -> SSAValue:
    """``value`` as ``ty``, which may forget some of its static sizes (``graph.relax_shape``)."""
    if value.type == ty:
        return value
    return emit(graph.RelaxShapeOp(value, graph.shape_of(ty))).value


def _materialize(value: Any, ty: TensorType) -> Tensor:
    """``value`` as a tensor of type ``ty``, emitted where the trace is (types were checked before)."""
    if isinstance(value, MaskedSelection):
        value = value.compressed()
    if isinstance(value, Tensor):
        if value.dtype != _dtype(ty):  # a Python number a staged `if` made a tensor, which a loop retyped
            value = cast(value, _dtype(ty))
        return value if value.type == ty else Tensor(_relaxed(value.value, ty), value.shape_source)
    shape = graph.shape_of(ty)
    if is_strong_constant(value):
        t = as_tensor(value)
        return t if t.type == ty else Tensor(_relaxed(t.value, ty))
    if -1 in shape:
        raise NotImplementedError(f"a value of dynamic shape {ty} cannot be made from {value!r} yet")
    fill = 0 if value is None or not is_number(value) else value  # placeholders (unwritten, not returned yet) are zeros
    return broadcast_to(constant(np.asarray(fill, dtype=_dtype(ty))), shape)


def _selections_formed(values: tuple[Any, ...], names: Sequence[str], set_state: SetState | None = None) -> tuple[Any, ...]:
    """The state with each ``x[mask]`` formed as NumPy's array (and set with ``set_state``): before a
    staged ``if`` or loop, since a lazy selection is a Python object that ``out=`` and in-place
    operators change, which the paths traced one after another must not share; and at the end of
    a branch, whose merged values are arrays."""
    leaves, _, trees = flatten_state(values, names)
    formed = [isinstance(leaf, MaskedSelection) and trace_context.visible(leaf.values.value) and trace_context.visible(leaf.mask.value)
              for leaf in leaves]  # (one a loop's abandoned probe left in a variable bound later is dead)
    if not any(formed):
        return values
    values = unflatten_state(trees, [v.compressed() if f else v for v, f in zip(leaves, formed)])
    if set_state is not None:
        set_state(values)
    return values


def _predicate(cond: Any, where: str, construct: str) -> Tensor:
    """The scalar ``tensor<i1>`` a staged ``construct`` branches on (nonzero numbers are true)."""
    if not isinstance(cond, Tensor):
        return constant(np.asarray(bool(cond)))
    require_rank(cond, f"{where}: the condition of this `{construct}`")
    if cond.ndim != 0:
        raise ValueError(
            f"{where}: the condition of this `{construct}` is a tensor of shape {cond.shape}, whose truth value "
            "is ambiguous (as in NumPy); reduce it to a scalar first, e.g. with .any() / .all() or kiln.reduce_max"
        )
    return cond if cond.dtype == np.bool_ else np.not_equal(cond, 0)


# ---------------------------------------------------------------------- graph.cond


@dataclass
class _Branch:
    """One traced branch of a staged ``if``: its block and the leaves it left."""

    block: Block
    leaves: list[Any]
    #: the value each tensor leaf had at the end of the branch (a view's base may change after)
    seen: dict[int, SSAValue]
    #: the arrays from before the ``if`` that the branch wrote, with their values at its end
    wrote: dict[mutation.Storage, SSAValue]
    #: where the ``return`` statements the branch traced are, in order (see returning)
    returns: list[str] = field(default_factory=list)

    def value(self, leaf: Any, ty: TensorType) -> SSAValue:
        if not isinstance(leaf, Tensor):
            return _materialize(leaf, ty).value
        seen = Tensor(self.seen[id(leaf)])
        return _relaxed(seen.value if seen.dtype == _dtype(ty) else _exact_number(seen, _dtype(ty)).value, ty)


@dataclass
class _Paths:
    """The two branches of a staged ``if`` once traced, and what merging them needs."""

    branches: tuple[_Branch, _Branch]
    leaf_names: list[str]
    tree: list[Tree]
    #: storages older than this serial are arrays from before the ``if``
    boundary: int
    #: the arrays already refused for reading (stale) before the ``if``
    stale_before: frozenset[mutation.Storage]
    #: the arrays from before the ``if`` that a branch wrote, with their values before it
    entry: dict[mutation.Storage, SSAValue]
    #: arrays a branch may have written through a MaybeAlias: stale after the ``if``
    marks: dict[mutation.Storage, str]

    @property
    def storages(self) -> list[mutation.Storage]:
        """The arrays from before the ``if`` that a branch wrote, in the order they were made."""
        return sorted(self.entry, key=lambda storage: storage.serial)


@dataclass
class _Merge:
    """How a staged ``if`` merges each leaf: ``merged`` holds the leaves known while tracing (None
    for the others), ``staged`` the indices of those its op yields, with their types and shape sources."""

    merged: list[Any] = field(default_factory=list)
    staged: list[int] = field(default_factory=list)
    types: list[TensorType] = field(default_factory=list)
    sources: list[int | None] = field(default_factory=list)
    #: leaves bound only on the path that jumped: leaf index -> (its jump flag's leaf index, that path's label)
    jump_bound: dict[int, tuple[int, str]] = field(default_factory=dict)


@dataclass
class _Sameness:
    """For the merged arrays that may be arrays from before a staged ``if``: the (leaf index, outer
    array) ``candidates``, each path's flag saying whether the leaf is that array there, and the
    candidates whose flag a path traced (``yielded`` by the op; the others follow from the predicate)."""

    candidates: list[tuple[int, mutation.Storage]]
    path_flags: list[list[_Flag]]
    yielded: list[int]


def _cond(
    pred: Tensor,
    branches: tuple[Callable[[], tuple[Any, ...]], Callable[[], tuple[Any, ...]]],
    names: Sequence[str],
    where: str,
    labels: tuple[str, str] = ("`if`", "`else`"),
    jumped: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
    watch: effects.Watch | None = None,
    kept_after_return: frozenset[str] | None = None,
) -> tuple[Any, ...]:
    """Trace each branch into its region, merge what each gives for ``names``, emit ``graph.cond``.
    ``jumped``: the jump flags certainly set before each branch; ``watch``: the Python objects the
    branches must not change; ``kept_after_return``: the variables a ``return`` does not end (the
    function's ``nonlocal`` ones), when known: the others are dead on a path that returned."""
    paths = _trace_branches(branches, names, where, labels, watch)
    then, orelse = paths.branches
    flags = [before | _flags_set(branch.leaves, paths.leaf_names) for before, branch in zip(jumped, paths.branches)]
    raised = [_raised(branch.block) for branch in paths.branches]  # (a path that raised at run time ends there)
    if all(raised):
        _mark_raised()
    returned = [_RETURN_FLAG in f for f in flags]
    merge = _merge_leaves(paths, [bool(f) for f in flags], returned, raised, where, labels, kept_after_return)
    sameness = _sameness(paths, merge)
    # a 0-d value that is a NumPy scalar on one path and a 0-d array or Python number on the other
    kinds = [i for i, ty, source in zip(merge.staged, merge.types, merge.sources) if not ty.get_shape() and source is None
             and not is_jump_flag(paths.leaf_names[i]) and result_kinds.differ(then.leaves[i], orelse.leaves[i])]
    results = _emit_cond(pred, paths, merge, sameness, kinds)
    merged_flags = _merged_flags(sameness, pred, results["flags"])
    construct = "`if`" if labels[0] == "`if`" else "conditional expression"
    _merged_results(paths, merge, results["values"], dict(zip(kinds, results["kinds"])), where, construct)
    for storage, result in zip(paths.storages, results["storages"]):
        mutation.write(storage, result, shared=False)
    for storage, marked_at in paths.marks.items():
        mutation.mark_stale(storage, marked_at)
    for i in merge.staged:
        _mark_alias(merge.merged[i], (then.leaves[i], orelse.leaves[i]), paths.boundary, where, construct,
                    paths.stale_before, merged_flags.get(i), _return_variable(paths.leaf_names[i]))
    _mark_shared_results(merge.merged, merge.staged, (then.leaves, orelse.leaves), where, construct)
    if all(flags):
        _note_jump_group(merge.merged, paths.leaf_names)
    for i, (g, label) in merge.jump_bound.items():
        if isinstance(merge.merged[g], Tensor):
            merge.merged[i] = JumpBound(paths.leaf_names[i], where, label, merge.merged[i], merge.merged[g])
    return unflatten_state(paths.tree, merge.merged)


def _trace_branches(
    branches: tuple[Callable[[], tuple[Any, ...]], Callable[[], tuple[Any, ...]]],
    names: Sequence[str],
    where: str,
    labels: tuple[str, str],
    watch: effects.Watch | None,
) -> _Paths:
    """Trace each branch of a staged ``if`` into its own block from the state before it (the arrays
    a branch wrote are restored after it), and align what they leave: a ``return`` on one path only
    gives the other's ``NOT_RETURNED`` the returned structure."""
    boundary, stale_before = mutation.serial_now(), mutation.stale_now()
    marks: dict[mutation.Storage, str] = {}
    entry: dict[mutation.Storage, SSAValue] = {}
    traced: list[tuple[Block, tuple[Any, ...], dict[int, SSAValue], dict[mutation.Storage, SSAValue], list[str]]] = []
    tracing_returns: list[list[str]] = trace_context.require().notes.setdefault(_RETURNS_TRACED, [])  # type: ignore[assignment]
    for fn in branches:
        block, returns = Block(), []
        tracing_returns.append(returns)
        with mutation.region() as scope:
            try:
                with trace_context.at_block(block), watch.tracing() if watch else nullcontext():
                    values = _run_branch(fn, where, labels[len(traced)])
                    values = _selections_formed(values, names)  # (in the branch's block)
                    leaves, _, _ = flatten_state(values, names)
                    wrote = {storage: storage.value for storage in scope.saved}
                    seen = {id(leaf): leaf.value for leaf in leaves if isinstance(leaf, Tensor)}
            finally:
                entry.update(scope.saved)
                marks.update({storage: at for storage, (at, _) in scope.marked.items()})
                scope.restore()
                tracing_returns.pop()
        traced.append((block, values, seen, wrote, returns))
    aligned = [align_placeholders(a, b) for a, b in zip(traced[0][1], traced[1][1])]
    out: list[_Branch] = []
    trees: list[list[Tree]] = []
    for (block, _, seen, wrote, returns), values in zip(traced, ([a for a, _ in aligned], [b for _, b in aligned])):
        leaves, leaf_names, tree = flatten_state(values, names)
        out.append(_Branch(block, leaves, seen, wrote, returns))
        trees.append(tree)
    if trees[0] != trees[1]:
        bad = next(n for n, a, b in zip(names, trees[0], trees[1]) if a != b)
        if _return_variable(bad) is not None:
            k = list(names).index(bad)
            returned = [(_show_returned(values[k]), _returned_at(branch, values[k])) for (_, values, *_), branch in zip(traced, out)]
            raise _returns_differ(where, returned, "values of one structure on every path (a tuple of the same length)")
        raise TypeError(f"{where}: {describe(bad)} has a different structure in the two branches of this `if` on a tensor")
    return _Paths((out[0], out[1]), leaf_names, trees[0], boundary, stale_before, entry, marks)


@staged_recursion.traces_staged_code(lambda names: names["where"])
def _run_branch(fn: Callable[[], tuple[Any, ...]], where: str, label: str) -> tuple[Any, ...]:
    """Trace one branch; a Python or NumPy error raised there says it was raised in a staged branch."""
    try:
        return fn()
    except (AttributeError, ArithmeticError, LookupError, ValueError, TypeError, NotImplementedError) as error:
        if isinstance(error, (AttributeError, ArithmeticError, LookupError)):
            _branch_error(error, where, label)
        _note_branch(error, where, label)
        raise


#: what _known_after_if gives for a leaf the op must yield
_STAGED = object()


def _merge_leaves(
    paths: _Paths, jumped: list[bool], returned: list[bool], raised: list[bool], where: str,
    labels: tuple[str, str], kept_after_return: frozenset[str] | None,
) -> _Merge:
    """Decide how a staged ``if`` merges each leaf: known while tracing (see _known_after_if), or a
    result of its op, whose type and shape source are checked here. ``jumped``, ``returned``,
    ``raised``: per path, whether it certainly jumped, returned or raised (it reads nothing after)."""
    then, orelse = paths.branches
    merge = _Merge()
    for i, (a, b, name) in enumerate(zip(then.leaves, orelse.leaves, paths.leaf_names)):
        ended = [r or (ret and _dead_after_return(name, kept_after_return)) for r, ret in zip(raised, returned)]
        if ended[0] != ended[1]:
            # the path that returned (or raised) reads it no more: the other path's value, as it is when it is from before
            live = b if ended[0] else a
            if isinstance(live, Tensor) and live.storage.serial < paths.boundary:
                merge.merged.append(live)
                continue
            a, b = (NOT_RETURNED, b) if ended[0] else (a, NOT_RETURNED)
            then.leaves[i], orelse.leaves[i] = a, b  # what each branch yields
        kept = a if isinstance(a, JumpBound) and b is a.value else b if isinstance(b, JumpBound) and a is b.value else None
        if kept is not None and isinstance(kept.flag, Tensor) and kept.flag.storage.serial < paths.boundary:
            merge.merged.append(kept)  # (read as its value on the path that knows its flag set, from before the `if`)
            continue
        bound = _bound_where_jumped(paths, i, jumped)
        if bound is not None:
            k, g = bound
            a, b = then.leaves[i], orelse.leaves[i]
            merge.jump_bound[i] = (g, labels[k])
        # a path that jumped does not read what it left unbound: a placeholder
        a = NOT_RETURNED if jumped[0] and isinstance(a, Undefined) and not isinstance(b, Undefined) else a
        b = NOT_RETURNED if jumped[1] and isinstance(b, Undefined) and not isinstance(a, Undefined) else b
        known = _known_after_if(a, b, name, where, labels)
        merge.merged.append(None if known is _STAGED else known)
        if known is _STAGED:
            dead = tuple(r and _dead_after_return(name, kept_after_return) for r in returned)
            returned_at = (_returned_at(then, a), _returned_at(orelse, b)) if _return_variable(name) else (None, None)
            merge.types.append(_branch_type(a, b, name, where, labels, dead, returned_at))
            merge.sources.append(_branch_source(a, b, name, where, labels))
            merge.staged.append(i)
    return merge


def _bound_where_jumped(paths: _Paths, i: int, jumped: list[bool]) -> tuple[int, int] | None:
    """Leaf ``i`` bound on the one path of a staged ``if`` that set a jump flag (``found = i; break``)
    and unbound on the other, where that flag is false: (the binding path, the flag's leaf index), with
    the unbound path's leaf made what it yields (a placeholder, or its value where the flag was set),
    so that after the ``if`` the variable is a :class:`JumpBound` on the merged flag; else None.
    The unbound path's flag is Python False or its value from before the ``if``: a converted
    statement sees a jump flag as a tensor only where it is false (after a possible jump, the
    jump guard makes it Python False), so the variable is bound exactly where the merged flag is set."""
    branches = paths.branches
    leaves = (branches[0].leaves[i], branches[1].leaves[i])
    for k, j in ((0, 1), (1, 0)):
        value, other = leaves[k], leaves[j]
        if not jumped[k] or jumped[j] or isinstance(value, Undefined):
            continue
        if not (type(other) is Undefined or isinstance(other, JumpBound)):
            continue
        for g, name in enumerate(paths.leaf_names):
            flag = branches[j].leaves[g]
            before = flag is False or isinstance(flag, Tensor) and flag.storage.serial < paths.boundary
            if not is_jump_flag(name) or branches[k].leaves[g] is not True or not before:
                continue
            if isinstance(other, JumpBound):
                if other.flag is not flag:
                    continue
                if isinstance(other.value, Tensor):
                    branches[j].seen[id(other.value)] = other.value.value
            branches[j].leaves[i] = other.value if isinstance(other, JumpBound) else NOT_RETURNED
            return k, g
    return None


def _known_after_if(a: Any, b: Any, name: str, where: str, labels: tuple[str, str]) -> Any:
    """What a leaf the paths of a staged ``if`` leave as ``a`` and ``b`` is after it, when that is
    known while tracing: one Python value on both, the value of the path that reads it (the other
    returned), or undefined; else ``_STAGED``."""
    if a is b or (not is_tensor(a) and not is_tensor(b) and same_python_value(a, b)):
        return a
    if a is NOT_RETURNED and not is_tensor(b) or b is NOT_RETURNED and not is_tensor(a):
        return b if a is NOT_RETURNED else a  # the path that did not return never reads it
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        undefined = a if isinstance(a, Undefined) else b
        if isinstance(a, Undefined) and isinstance(b, Undefined) or isinstance(undefined, BranchUndefined):
            return undefined  # (a variable undefined after an earlier `if`, copied: that one is named)
        return BranchUndefined(name, where, labels[1 if undefined is a else 0])
    return _STAGED


def _sameness(paths: _Paths, merge: _Merge) -> _Sameness:
    """The arrays from before the ``if`` each merged array may be, and on which path it is each;
    a flag known on both paths follows from the predicate, one traced on a path is yielded."""
    then, orelse = paths.branches
    candidates = [
        (i, outer) for i, ty, source in zip(merge.staged, merge.types, merge.sources)
        for outer in _outers((then.leaves[i], orelse.leaves[i]), paths.boundary) if outer.value.type == ty
        and (ty.get_shape() or source is not None or _argument_array((then.leaves[i], orelse.leaves[i])))
    ]
    path_flags: list[list[_Flag]] = []
    for branch in paths.branches:
        with trace_context.at_block(branch.block):
            path_flags.append([_same(branch.leaves[i], outer) for i, outer in candidates])
    yielded = [k for k, fs in enumerate(zip(*path_flags)) if None not in fs and any(isinstance(f, Tensor) for f in fs)]
    return _Sameness(candidates, path_flags, yielded)


def _emit_cond(pred: Tensor, paths: _Paths, merge: _Merge, sameness: _Sameness, kinds: list[int]) -> dict[str, list[SSAValue]]:
    """End each branch with the yield of every result group and emit the ``graph.cond``: its
    results by group (``values``, ``storages``, ``flags``, ``kinds``)."""
    storages = paths.storages
    groups = ResultGroups(values=merge.types, storages=[paths.entry[s].type for s in storages],
                          flags=[_FLAG_TYPE] * len(sameness.yielded), kinds=[result_kinds.FLAG_TYPE] * len(kinds))
    for branch, flags in zip(paths.branches, sameness.path_flags):
        with trace_context.at_block(branch.block):
            values = groups.ordered(
                values=[branch.value(branch.leaves[i], ty) for i, ty in zip(merge.staged, merge.types)],
                storages=[branch.wrote.get(storage, paths.entry[storage]) for storage in storages],
                flags=[_flag_value(flags[k]) for k in sameness.yielded],
                kinds=[result_kinds.flag_value(branch.leaves[i]) for i in kinds],
            )
            with mutation.values_as(branch.wrote):
                trace_context.require().emit(graph.YieldOp(*values))
    then, orelse = paths.branches
    op = trace_context.require().emit(graph.CondOp(pred.value, groups.types(), Region(then.block), Region(orelse.block)))
    return groups.split(op.results)


def _merged_flags(sameness: _Sameness, pred: Tensor, yielded: list[SSAValue]) -> dict[int, dict[mutation.Storage, SSAValue]]:
    """Per merged leaf, the flag saying whether it is each array from before the ``if`` after it
    (``yielded``: the op's results for the flags the paths traced)."""
    merged: dict[int, dict[mutation.Storage, SSAValue]] = {}
    for k, (i, outer) in enumerate(sameness.candidates):
        then_flag, else_flag = sameness.path_flags[0][k], sameness.path_flags[1][k]
        if k in sameness.yielded:
            flag: _Flag = Tensor(yielded[sameness.yielded.index(k)])
        elif then_flag is None or else_flag is None:
            continue
        else:
            flag = _or(_and(pred, then_flag), _and(np.logical_not(pred), else_flag) if else_flag else False)
        merged.setdefault(i, {})[outer] = _flag_value(flag)
    return merged


def _merged_results(
    paths: _Paths, merge: _Merge, results: list[SSAValue], kind_flags: dict[int, SSAValue], where: str, construct: str,
) -> None:
    """The staged leaves as tensors of the op's ``results``, with the abstract value their paths
    join to, their layout and their result kind (a run-time flag from ``kind_flags`` where the
    paths differ in it)."""
    then, orelse = paths.branches
    for i, result, source in zip(merge.staged, results, merge.sources):
        values, name = (then.leaves[i], orelse.leaves[i]), paths.leaf_names[i]
        merged = merge.merged[i] = Tensor(result)
        joined = join_paths([v for v in values if not _unread(v)]) or PLAIN
        merged.aval = _promotion_joined(merged, joined.but(shape_source=source), values,
                                        f"the staged {construct} at {where}").in_memory_of(merged.aval)
        merge_layout(merged, values, where, construct)
        index_facts.merged(merged, [v for v in values if not _unread(v)])
        if i in kind_flags:
            merged.kind_flag = Tensor(kind_flags[i])
        elif not is_jump_flag(name) and (kind := result_kinds.merged_kind(*values)) is not None:
            result_kinds.take_kind(merged, kind)  # (one path's is a loop's placeholder: the other's)
        if is_jump_flag(name):
            _note(_FLAGS, merged, name)
        if _return_variable(name):  # where each path's return value was returned, for refusals after
            lines = [line for branch, v in zip(paths.branches, values) if (line := _returned_at(branch, v)) is not None]
            _note(_RETURN_LINES, merged, ", ".join(dict.fromkeys(lines)))


def _promotion_joined(merged: Tensor, joined: AbstractValue, paths: Sequence[Any], construct: str) -> AbstractValue:
    """``joined`` (the join of what the ``paths`` that read the value left) with how the 0-d value
    ``merged`` promotes in NumPy: as a Python number where it is one on every path that reads it
    (the join's ``weak``: ``t = 0.5`` or ``t = 1.5``, so ``float32_array * t`` stays float32) and
    is an int or float, and where the paths disagree (a Python number on one, a NumPy float64 on
    the other) the alternatives, so that a promotion whose result depends on the path is refused
    (tensor.path_promotions)."""
    if graph.shape_of(merged.type) or joined.shape_source is not None:
        return joined.but(weak=False)
    varying = path_promotions(paths, construct)
    if varying is not None:
        return joined.but(weak=False, path_promotions=varying)
    return joined.but(weak=joined.weak and merged.dtype.kind in "iuf")


def _mark_shared_results(
    merged: list[Any], staged: list[int], branches: Sequence[Sequence[Any]], where: str, construct: str,
) -> None:
    """Two arrays the construct merged that share memory on some of its paths (``v = a * 2;
    w = v[:]`` in a branch): the merge makes each its own array, so a write through one would not
    show in the other. They are marked (see _mark_pairs). (Arrays from before the construct are
    _mark_alias's.)"""
    pairs: set[tuple[int, int]] = set()
    for leaves in branches:
        pairs |= _sharing_pairs([leaves[i] if i in staged else None for i in range(len(leaves))], [True] * len(leaves))
    _mark_pairs(merged, pairs, where, construct)


def _sharing_pairs(values: Sequence[Any], carried: Sequence[bool]) -> set[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, of carried ``values`` that are arrays of one memory."""
    by_storage: dict[mutation.Storage, list[int]] = {}
    for k, v in enumerate(values):
        if carried[k] and isinstance(v, Tensor):
            by_storage.setdefault(v.storage, []).append(k)
    return {(i, j) for ks in by_storage.values() for n, i in enumerate(ks) for j in ks[n + 1 :]}


def _mark_pairs(values: Sequence[Any], pairs: set[tuple[int, int]], where: str, construct: str) -> None:
    """For each pair of ``values`` (separate arrays now, one memory on some paths), mark the later
    as the earlier on some paths (mutation.MaybeAlias): a read after a write through the other is
    refused, never silently stale. Two NumPy scalars are left alone (NumPy does not share them)."""
    for i, j in sorted(pairs):
        a, b = values[i], values[j]
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or a.storage is b.storage:
            continue
        if a.ndim == 0 and b.ndim == 0 and a.shape_source is None and b.shape_source is None:
            continue
        mutation.mark_alias(b.storage, (a.storage,), where, construct)


def _branch_error(error: Exception, where: str, label: str) -> None:
    """A Python error the user's code raised while a branch of a staged ``if`` was traced: both
    branches are traced, so code that NumPy would not run on this call ran. Raise it as kiln's
    refusal, naming the line (an error inside kiln itself stays as it is: a bug)."""
    tb, innermost = error.__traceback__, None
    while tb is not None:
        innermost = tb
        tb = tb.tb_next
    if innermost is None or not trace_context.is_user_file(innermost.tb_frame.f_code.co_filename):
        return
    raise NotImplementedError(
        f"{innermost.tb_frame.f_code.co_filename}:{innermost.tb_lineno}: {type(error).__name__}: {error}, raised while "
        f"kiln traced the {label} branch of the staged `if` at {where}. kiln traces both branches of an `if` on a "
        "tensor, so Python code in the branch NumPy does not take on this call runs too; make that code valid "
        "Python for any input, or decide the condition in Python"
    ) from error


#: errors whose message already says in which staged branch they were raised
_NOTED_BRANCH = "kiln.staging.noted_branch"


def _note_branch(error: Exception, where: str, label: str) -> None:
    """A NumPy error kiln raised while tracing a branch of a staged ``if`` (``x[5]`` of a 3-element
    ``x``): say so, since NumPy raises it only when that branch runs and kiln traces both. The
    innermost branch says it; the error keeps its type."""
    if type(error) not in (IndexError, ValueError, TypeError, NotImplementedError, KeyError):
        return
    if getattr(error, _NOTED_BRANCH, False) or len(error.args) != 1 or not isinstance(error.args[0], str):
        return
    if "staged" in error.args[0] or "on a tensor" in error.args[0]:  # about a staged construct already
        return
    error.args = (
        f"{error.args[0]} (raised while kiln traced the {label} branch of the staged `if` at {where}: kiln traces "
        "both branches of an `if` on a tensor, so this is raised whichever branch runs)",
    )
    setattr(error, _NOTED_BRANCH, True)


def _mark_alias(
    merged: Tensor, values: Iterable[Any], boundary: int, where: str, construct: str,
    stale: frozenset[mutation.Storage] = frozenset(), flags: dict[mutation.Storage, SSAValue] | None = None,
    returned: str | None = None,
) -> None:
    """Mark ``merged`` when one of the ``values`` it merges is an array from before the construct
    (a storage older than ``boundary``), or an array of the construct's regions that is one on some
    of their paths: NumPy's sharing then depends on the path (see mutation.MaybeAlias). ``flags``
    says, for the outers it can, on which paths ``merged`` is that outer; ``returned``: the variable
    when ``merged`` may be the function's return value (see :func:`returned`).
    0-d values are left alone unless one of them is a 0-d argument: most stand for NumPy scalars
    (``x.sum()``, ``x[i]``, a loop counter), which NumPy does not share."""
    if merged.shape_source is None and merged.ndim == 0 and not _argument_array(values):
        return
    outers = _outers(values, boundary)
    if outers:
        flags = flags or {}
        mutation.mark_alias(merged.storage, tuple(outers), where, construct, tuple(flags.get(o) for o in outers),
                            returned)
    # a merged array that may have been written through a MaybeAlias before the construct stays refused
    written = [v.storage.stale for v in values if isinstance(v, Tensor) and v.storage in stale]
    if written:
        mutation.mark_stale(merged.storage, written[0])  # type: ignore[arg-type]


#: the type of a sameness flag (see mutation.MaybeAlias)
_FLAG_TYPE = TensorType(i1, [])


def _flaggable(leaf: _Leaf) -> bool:
    """Whether a loop carries a flag for ``leaf``: an array (not a view) that shares memory with a
    function argument or another array on some paths (a write through it must reach that array on
    the right iterations: a view of it held from before the loop shows it), carried with its own type. A 0-d one only when it is a 0-d argument itself: other 0-d values
    stand for NumPy scalars, which are not shared."""
    value = leaf.value
    if leaf.ty is None or not isinstance(value, Tensor) or value.is_view or value.type != leaf.ty:
        return False
    if not leaf.ty.get_shape() and value.shape_source is None:
        return _argument_array([value])
    return mutation.shares(value.storage) or value.storage.argument is not None


def _may_be_argument(storage: mutation.Storage) -> bool:
    """Whether ``storage`` is a function argument's array on some paths (itself, or merged from one)."""
    if storage.argument is not None:
        return True
    return storage.alias is not None and any(_may_be_argument(o) for o in storage.alias.outers)


def _argument_array(values: Iterable[Any]) -> bool:
    """Whether one of ``values`` may be a function argument that is an array (a 0-d one is
    shared with the caller; a NumPy scalar argument is immutable)."""
    return any(isinstance(v, Tensor) and not v.immutable and _may_be_argument(v.storage) for v in values)


def _outers(values: Iterable[Any], boundary: int) -> list[mutation.Storage]:
    """The arrays from before a construct (storages older than ``boundary``) that a value it merges
    from ``values`` (what its paths give: tensors, or abstract values naming arrays) is, or may be:
    the arrays their join may alias (AbstractValue.may_alias) or, for an array its regions merged,
    its outers."""
    joined = join_paths([v for v in values if isinstance(v, (Tensor, AbstractValue))])
    found: list[mutation.Storage] = []
    todo = list(reversed(joined.arrays())) if joined is not None else []
    while todo:  # (a loop, not a recursive closure: that would be a cycle holding the arrays until collected)
        storage = todo.pop()
        if storage.serial < boundary:
            if all(storage is not o for o in found):
                found.append(storage)
        elif storage.alias is not None:
            todo.extend(reversed(storage.alias.outers))
    return found


#: whether an array is another on the paths that reach here: known (a bool), a 0-d bool tensor, or unknown (None)
_Flag = bool | Tensor | None


def _same(value: Any, outer: mutation.Storage) -> _Flag:
    """Whether ``value`` (what a path gives a variable) *is* the array ``outer``, traced where the
    path ends; None where kiln cannot say (a view of it, an unflagged MaybeAlias)."""
    if not isinstance(value, Tensor):
        return False
    storage = value.storage
    if storage is outer:
        return None if value.is_view else True
    same = _same_storage(storage, outer)
    return None if value.is_view and same is not False else same


def _same_storage(storage: mutation.Storage, outer: mutation.Storage) -> _Flag:
    alias = storage.alias
    if alias is None:
        return False
    out: _Flag = False
    for o, flag in zip(alias.outers, alias.flags):
        sub = True if o is outer else _same_storage(o, outer)
        if sub is not False:
            sub = None if flag is None else _and(Tensor(flag), sub)
        out = _or(out, sub)
    return out


def _and(a: _Flag, b: _Flag) -> _Flag:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return b if a is True else a if b is True else np.logical_and(a, b)


def _or(a: _Flag, b: _Flag) -> _Flag:
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return b if a is False else a if b is False else np.logical_or(a, b)


def _flag_value(flag: _Flag) -> SSAValue:
    """A known or traced flag as a 0-d ``i1`` value where tracing is now."""
    assert flag is not None
    return flag.value if isinstance(flag, Tensor) else constant(np.asarray(flag)).value


#: the flag the ``return`` converter sets
_RETURN_FLAG = "do_return"


#: what :func:`_flags_set` gives for a branch that certainly jumped, by a jump not known until run time
_SOME_JUMP = "<a jump>"


def _flags_set(leaves: Sequence[Any], names: Sequence[str]) -> frozenset[str]:
    """The jump flags a branch certainly set (``True``): it ran that ``return``, ``break`` or ``continue``.
    What follows is guarded by the flag, so a variable left unbound on that path is not read
    again before the jump's scope ends: after a ``return``, never; after a ``break`` or ``continue``,
    only as loops read a variable first bound in them (zeros if no iteration bound it).

    A branch whose flags are still those of a staged ``if`` that jumped on each of its paths
    (``if c: return ...`` then ``break``: see :func:`_note_jump_group`) certainly jumped too, by
    a jump known only at run time: ``_SOME_JUMP``."""
    flags = {id(leaf) for leaf, name in zip(leaves, names) if is_jump_flag(name) and isinstance(leaf, Tensor)}
    groups = (_noted(_JUMP_GROUPS, leaf) for leaf, name in zip(leaves, names) if is_jump_flag(name))
    some = any(group is not None and all(id(t) in flags for t in group) for group in groups)
    return frozenset(name for leaf, name in zip(leaves, names) if is_jump_flag(name) and leaf is True) | (
        {_SOME_JUMP} if some else set()
    )


def _note_jump_group(merged: Sequence[Any], names: Sequence[str]) -> None:
    """After a staged ``if`` each of whose paths jumped, one of its merged jump flags is true:
    remember them as a group, each a tensor (a flag true on some path is ``True`` or staged)."""
    flags = [(value, name) for value, name in zip(merged, names) if is_jump_flag(name)]
    if any(value is True for value, _ in flags):
        return  # already certain
    group = tuple(value for value, _ in flags if isinstance(value, Tensor))
    for value in group:
        _note(_JUMP_GROUPS, value, group)


def _return_variable(name: str) -> str | None:
    """The variable of state leaf ``name`` when it may be the return value the ``return`` converter
    carries (``retval_``, or ``retval__`` where the function has a ``retval_``), else None."""
    base = name.partition("[")[0].partition(" ")[0]
    return base if base.rstrip("_") == "retval" and base != "retval" else None


def returned(value: Any, variable: str) -> Any:
    """``return retval_`` at the end of a function the ``return`` converter lowered (``variable``:
    its name there): where the return value is an array from before an early ``return`` on some
    paths, the writes since were on the other paths (mutation.settle_returned)."""
    if trace_context.current() is not None:
        leaves, _ = pytree.flatten(value)
        for leaf in leaves:
            if isinstance(leaf, Tensor):
                mutation.settle_returned(leaf.storage, variable)
    return value


#: trace notes: the lists of ``return`` locations of the staged branches being traced (innermost last)
_RETURNS_TRACED = "kiln.staging.returns_traced"
#: trace notes: a return value -> where it was returned (``file:line``, several joined by ", ")
_RETURN_LINES = "kiln.staging.return_lines"
#: trace notes: a converted function's frame -> where it traced ``return None`` (None has no note of its own)
_NONE_RETURNS = "kiln.staging.none_returns"


def returning(value: Any, falls_off: bool = False) -> Any:
    """``retval_ = value``, a ``return`` the ``return`` converter lowered (``falls_off``: the
    ``return None`` it adds where the function falls off its end): where it is, noted for the
    staged branches being traced and on a returned array, so that a refusal of return values
    that differ between the paths names each path's ``return``."""
    ctx = trace_context.current()
    if ctx is not None:
        where = "the end of the function" if falls_off else statement_location()
        for returns in ctx.notes.get(_RETURNS_TRACED, ()):  # type: ignore[union-attr]
            returns.append(where)
        if isinstance(value, Tensor):
            _note(_RETURN_LINES, value, where)
        frame = _converted_frame()
        if value is None and frame is not None:
            if _noted(_NONE_RETURNS, frame) is None:
                _note(_NONE_RETURNS, frame, [])
            _noted(_NONE_RETURNS, frame).append(where)
    return value


def _returned_at(branch: _Branch, value: Any) -> str | None:
    """Where the return value ``value`` that a branch of a staged ``if`` left was returned: where
    the value notes (an array merged from earlier returns), else the last ``return`` the branch ran."""
    noted = _noted(_RETURN_LINES, value) if isinstance(value, Tensor) else None
    if noted or branch.returns:
        return noted or branch.returns[-1]
    # None that an earlier construct returned (a `return None` in a loop before the `if not do_return` guard)
    none_returns = _noted(_NONE_RETURNS, _converted_frame()) if value is None else None
    return ", ".join(dict.fromkeys(none_returns)) if none_returns else None


def _dead_after_return(name: str, kept: frozenset[str] | None) -> bool:
    """Whether state leaf ``name`` is unread on a path that ran ``return``: a variable of the function,
    not a jump flag, the return value, or a ``nonlocal`` variable (``kept``; ``None``: not known)."""
    base = name.partition("[")[0].partition(" ")[0]
    return kept is not None and not is_jump_flag(base) and base != "retval_" and base not in kept


def _kept_after_return() -> frozenset[str] | None:
    """The ``nonlocal`` variables of the converted function being traced (its free variables): a
    ``return`` does not end them. ``None`` when no converted function is on the stack."""
    frame = _converted_frame()
    return frozenset(frame.f_code.co_freevars) if frame is not None else None


def _converted_frame() -> FrameType | None:
    """The frame of the innermost converted function being traced (``None``: none is)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and not is_converted_code(frame.f_code):
        frame = frame.f_back
    return frame


def _source_of(value: Any) -> int | None:
    return value.shape_source if isinstance(value, Tensor) else None


def _branch_source(a: Any, b: Any, name: str, where: str, labels: tuple[str, str]) -> int | None:
    """The shape source (kiln.frontend.unknown_rank) of a leaf after a staged ``if``: both branches
    must agree on whether its rank is unknown; two sources must have one shape at call time."""
    sa, sb = _source_of(a), _source_of(b)
    if (sa is None) != (sb is None):
        raise TypeError(
            f"{where}: {describe(name)} is {_show(a)} in the {labels[0]} branch but {_show(b)} in the {labels[1]} "
            f"branch of this {_construct_of(name)} on a tensor; a tensor of unknown rank must stay one in both branches"
        )
    if sa is not None and sb is not None:
        shape_sources.same_shape(sa, sb)
    return sa


def _construct_of(name: str) -> str:
    """The staged construct a merged ``name`` comes from, for messages: an `if` statement, or the
    expression (`a and b`, `a if cond else b`) whose value it is."""
    return name.removeprefix("the value of ") if name.startswith("the value of ") else "`if`"


class PathShapeError(TypeError):
    """A variable is a Python number on one path of a staged ``if`` and an array that is not 0-d
    on the other (NumPy's shape for it would depend on the path)."""


def _branch_type(
    a: Any, b: Any, name: str, where: str, labels: tuple[str, str], dead: tuple[bool, ...] = (False, False),
    returned_at: tuple[str | None, str | None] = (None, None),
) -> TensorType:
    """The one type a leaf takes after a staged ``if`` whose branches give it ``a`` and ``b``;
    ``dead``: per branch, whether that path returned and reads the leaf no more; ``returned_at``:
    for the return value, where each path's ``return`` is, when known."""
    ta, tb = _type_of(a), _type_of(b)
    ty: TensorType | None = None
    if ta is not None and tb is not None:
        ty = _joined(ta, tb)
    elif ta is not None or tb is not None:
        known, other = (ta, b) if ta is not None else (tb, a)
        assert known is not None
        if may_be_placeholder(other):
            ty = known
        elif is_number(other) and _number_fits(other, known):
            array, number_side = (b, 0) if ta is None else (a, 1)
            if (known.get_shape() or _source_of(array) is not None) and not dead[number_side]:
                raise PathShapeError(
                    f"{where}: {describe(name)} is {_show(a)} in the {labels[0]} branch but {_show(b)} in the "
                    f"{labels[1]} branch of this {_construct_of(name)} on a tensor; in NumPy its shape would depend on the path "
                    "taken, and kiln cannot compile that: give it the array's shape on both paths (e.g. "
                    "np.full(shape, number)) or a 0-d value on both"
                )
            ty = known
    elif is_number(a) and is_number(b):
        ty = graph.tensor_type(dtypes.to_element(dtypes.canonical(np.result_type(a, b))), ())
    if ty is None and _python_numbers(a, b):  # an int on one path, a float on the other: the float, of a per-call kind
        ty = graph.tensor_type(dtypes.to_element(np.result_type(*(_number_dtype(v) for v in (a, b)))), ())
    if ty is None and (a is None or b is None) and name.partition("[")[0] == "retval_":
        what = "None" if name == "retval_" else f"None as {describe(name)}"
        none_at, other_at = returned_at if a is None else returned_at[::-1]
        raise _returns_differ(where, [(what, none_at), (_show(a if b is None else b), other_at)],
                              "a value on the path that returns None (or falls off the end)")
    if ty is None:
        construct = _construct_of(name)
        raise TypeError(
            f"{where}: {describe(name)} is {_show(a)} in the {labels[0]} branch but {_show(b)} in the {labels[1]} "
            f"branch of this {construct} on a tensor; after a staged {construct} it must have one dtype and shape, "
            "so give it the same dtype and shape in both branches"
        )
    return ty


def _returns_differ(where: str, returned: list[tuple[str, str | None]], advice: str) -> TypeError:
    """The refusal of a function whose two paths through the staged ``if`` at ``where`` return
    values of two kinds (``returned``: what each returns and where, when known), as AutoGraph
    refuses a ``tf.cond`` whose branches return two structures: which runs is known only per call."""
    (first, first_at), (other, other_at) = ((what, f" at {at}" if at else "") for what, at in returned)
    return TypeError(
        f"{where}: the function returns {first}{first_at} on one path and {other}{other_at} on another, "
        "and which path runs depends on a tensor (the staged `if` here); a compiled function returns the same "
        f"kind of value on every path: return {advice}"
    )


def _show_returned(value: Any) -> str:
    """A return value, for messages: a container by its kind and length."""
    if isinstance(value, (tuple, list, dict)):
        return f"a {type(value).__name__} of {len(value)} item{'' if len(value) == 1 else 's'}"
    return _show(value)


def _python_numbers(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are Python numbers (traced ones among them: weak 0-d tensors) of two types."""
    def python(v: Any) -> bool:
        if not isinstance(v, Tensor):
            return is_number(v) and not is_strong_constant(v)
        # (a Python number of a per-call type: an int or a float, as an earlier `if` left it)
        alternatives = v.path_promotions[0] if v.path_promotions is not None else ()
        numbers = v.weak or bool(alternatives) and all(type(x) in (bool, int, float) for x in alternatives)
        return numbers and v.ndim == 0 and v.shape_source is None and v.dtype.kind in "bif"
    return python(a) and python(b) and _number_dtype(a) != _number_dtype(b)


def _number_dtype(value: Any) -> np.dtype[Any]:
    """The dtype kiln carries a Python number (or a traced one) as."""
    return value.dtype if isinstance(value, Tensor) else dtypes.canonical(np.asarray(value).dtype)


def _exact_number(value: Tensor, dtype: np.dtype[Any]) -> Tensor:
    """The traced Python number ``value`` carried as ``dtype`` (an int as a float, where the other path
    of a staged ``if`` leaves a float): checked at run time to be exact (an int beyond 2**53 is not)."""
    out = cast(value, dtype)
    if value.dtype.kind in "iu" and dtype.kind == "f":
        runtime_checks.require(as_tensor(np.equal(cast(out, value.dtype), value)),
                               f"the Python int is beyond what a {dtype} holds exactly, which kiln carries it as "
                               "where another path of a staged `if` leaves a float in the same variable")
    return out


def staged_if(
    cond: Any,
    body: Callable[[], None],
    orelse: Callable[[], None] | None,
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
    dead_names: tuple[str, ...] = (),
) -> None:
    """``if cond: body() else: orelse()`` with a tensor ``cond``; ``orelse`` is ``None`` without ``else``.

    ``get_state()`` gives the values of ``symbol_names`` and then of ``dead_names`` (bound in a
    branch, unused after the ``if``): every branch starts from them all as they were before the
    ``if``; only ``symbol_names`` are merged, and the others are left :class:`NotCarried`.
    """
    where = statement_location()
    _check_stageable(where, "if", body, orelse)
    pred = _predicate(cond, where, "if")
    init = _selections_formed(get_state(), (*symbol_names, *dead_names), set_state)
    live = len(symbol_names)
    then_start, else_start, jumped = _known_flags(cond, init, (*symbol_names, *dead_names))
    then_start = _read_where_bound(then_start, (cond, pred))
    else_start = _read_where_bound(else_start, (_noted(_NEGATIONS, cond), _noted(_CLEARED, cond)))

    kept = _kept_after_return()  # (the function's variables from outside it)
    changed_by_calls: list[Any] = []  # (lists a function the branches call changes: found by a try, then carried)
    while True:
        watch = effects.Watch(where, "if", (body, orelse))
        # the Python lists the branches change: their contents are results too
        lists = BranchLists(watch, kept or frozenset(), changed_by_calls)
        try:
            merged = _cond(pred, (_branch(body, then_start, lists, live, get_state, set_state),
                                  _branch(orelse, else_start, lists, live, get_state, set_state)),
                           (*symbol_names, *lists.names), where, jumped=jumped, watch=watch,
                           kept_after_return=kept if kept is None else kept | lists.roots)
            break
        except effects.PythonEffectError as error:
            if not lists.carries(error):
                raise
            changed_by_calls.append(error.changed)
    lists.write_back(merged[live:])
    set_state((*lists.reattached(merged[:live]), *(NotCarried(name, where) for name in dead_names)))


def _branch(fn: Callable[[], None] | None, start: tuple[Any, ...], lists: BranchLists, live: int, get_state: GetState,
            set_state: SetState) -> Callable[[], tuple[Any, ...]]:
    """One branch of :func:`staged_if`, from the state ``start``: its ``live`` variables, then the
    contents it leaves in each list it changes."""
    def run() -> tuple[Any, ...]:
        set_state(start)
        if fn is not None:
            fn()
        return (*lists.detached(get_state()[:live]), *lists.taken())

    return run


_NEGATIONS = "kiln.autograph.negations"
#: trace notes: a loop's ``loop_else_N`` flag after it -> its ``break_N`` flag (false exactly where that one is set)
_CLEARED = "kiln.autograph.cleared_by"
_FLAGS = "kiln.autograph.jump_flags"
_JUMP_GROUPS = "kiln.autograph.jump_groups"


def _read_where_bound(start: tuple[Any, ...], true: tuple[Any, ...]) -> tuple[Any, ...]:
    """The state a branch starts from, with a :class:`JumpBound` whose flag is one of the tensors
    ``true`` on that path (the branch's condition, say) read as its value: it is bound there."""
    return tuple(v.value if isinstance(v, JumpBound) and any(v.flag is t for t in true if t is not None) else v
                 for v in start)


def _note(key: str, tensor: object, value: Any) -> None:
    """Remember ``value`` for ``tensor`` (or another object) for the rest of the trace (by identity: tensors are unhashable)."""
    notes: dict[int, tuple[object, Any]] = trace_context.require().notes.setdefault(key, {})  # type: ignore[assignment]
    notes[id(tensor)] = (tensor, value)


def _noted(key: str, tensor: Any) -> Any:
    ctx = trace_context.current()
    found = ctx.notes.get(key, {}).get(id(tensor)) if ctx is not None else None  # type: ignore[attr-defined]
    return found[1] if found is not None and found[0] is tensor else None


def _known_flags(
    cond: Any, init: tuple[Any, ...], names: Sequence[str]
) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[frozenset[str], frozenset[str]]]:
    """The state each branch starts from, and the jump flags certainly set before it.

    ``if not do_return:`` (the guard the jump converters write after code that may jump) tests
    a jump flag that a staged construct made a tensor: the ``else`` branch runs only after the
    jump, the ``if`` branch only without it. A flag in the state becomes that Python bool in each
    branch (so nested guards run as Python), and :func:`_cond` learns which branch jumped
    (see :func:`_flags_set`).
    """
    negated = _noted(_NEGATIONS, cond)
    then_flag, else_flag = _noted(_FLAGS, cond), _noted(_FLAGS, negated) if negated is not None else None
    jumped = (frozenset({then_flag} - {None}), frozenset({else_flag} - {None}))
    then, orelse = list(init), list(init)
    for i, (value, name) in enumerate(zip(init, names)):
        if not is_jump_flag(name) or not isinstance(value, Tensor):
            continue
        if value is cond:
            then[i], orelse[i] = True, False
        elif value is negated:
            then[i], orelse[i] = False, True
    return tuple(then), tuple(orelse), jumped


def staged_if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any]) -> Any:
    """``if_true() if cond else if_false()`` with a tensor ``cond``."""
    where = statement_location()
    _check_not_in_try(where, "a if cond else b")
    pred = _predicate(cond, where, "if")
    name = ("the value of `a if cond else b`",)
    watch = effects.Watch(where, "a if cond else b", (if_true, if_false))
    (value,) = _cond(pred, (lambda: (if_true(),), lambda: (if_false(),)), name, where, ("`a`", "`b`"), watch=watch)
    return value


def staged_and(value: Any, rest: Callable[[], Any]) -> Any:
    """``value and rest()`` where ``value`` (the first operand) is a tensor: ``rest()`` runs only if it holds."""
    where = statement_location()
    _check_not_in_try(where, "and")
    pred = _predicate(value, where, "and")
    name = ("the value of `a and b`",)
    watch = effects.Watch(where, "and", (rest,))
    (result,) = _cond(pred, (lambda: (rest(),), lambda: (value,)), name, where, ("`b`", "`a`"), watch=watch)
    return result


def staged_or(value: Any, rest: Callable[[], Any]) -> Any:
    """``value or rest()`` where ``value`` (the first operand) is a tensor: ``rest()`` runs only if it does not hold."""
    where = statement_location()
    _check_not_in_try(where, "or")
    pred = _predicate(value, where, "or")
    name = ("the value of `a or b`",)
    watch = effects.Watch(where, "or", (rest,))
    (result,) = _cond(pred, (lambda: (value,), lambda: (rest(),)), name, where, ("`a`", "`b`"), watch=watch)
    return result


def staged_not(value: Any) -> Any:
    """``not value`` for a tensor ``value``: a Python bool, as ``not`` always gives (a weak scalar bool
    tensor, remembered as the negation of ``value``, for :func:`_known_flags`)."""
    result = python_number(np.logical_not(_predicate(value, statement_location(), "not")))
    _note(_NEGATIONS, result, value)
    return result


def staged_assert(test: Tensor, message: str, source: str) -> None:
    """``assert test, message`` with a tensor ``test``: a run-time check that raises
    ``AssertionError(message)`` in the caller when ``test`` is false, the user's line and the test
    as written (``source``) a note on it."""
    where = statement_location()
    _check_not_in_try(where, "assert")
    runtime_checks.raises(_predicate(test, where, "assert"), AssertionError, message, theirs=f"`assert {source}` failed")


def staged_raise(kind: type[Exception], message: str) -> None:
    """``raise kind(message)`` in a staged region: a check that fails whenever the region runs. The
    ``raise`` converter ends the path with a ``return``; a staged ``if`` merges only the other
    path's values (as after a ``return``), and the flag of that ``return`` stays a Python value."""
    _check_not_in_try(statement_location(), "raise")
    runtime_checks.raises(constant(np.asarray(False)), kind, message, theirs="")
    _mark_raised()


_RAISED = "kiln.autograph.raised_blocks"


def _mark_raised() -> None:
    """Note that every run of the block being traced fails (a staged ``raise``, or both branches raise)."""
    ctx = trace_context.require()
    raised: dict[int, Block] = ctx.notes.setdefault(_RAISED, {})  # type: ignore[assignment]
    raised[id(ctx.block)] = ctx.block


def _raised(block: Block) -> bool:
    raised = trace_context.require().notes.get(_RAISED, {})
    return raised.get(id(block)) is block  # type: ignore[attr-defined]


def in_staged_region() -> bool:
    """Whether tracing is inside a staged region (a branch, a loop body), which runs only on the
    calls that reach it: a ``raise`` there is staged rather than raised while tracing."""
    ctx = trace_context.current()
    return ctx is not None and bool(ctx.enclosing)


# ---------------------------------------------------------------------- graph.while


@dataclass
class _Leaf:
    """How a loop carries one state leaf: as a tensor of ``ty``, or as the unchanged Python ``value``."""

    name: str
    value: Any
    ty: TensorType | None
    #: the value before the loop fixes no type (a Python number, a weak tensor, no value yet): it
    #: takes the type the body gives it
    open_type: bool
    #: what holds of the value before the loop and after every iteration traced so far, widened by
    #: each (AbstractValue.widen): its shape source, whether it stays a Python number to NumPy's
    #: promotion (``t = 0; while ..: t += 1; t + np.int32(6)``), a scalar, read-only
    aval: AbstractValue = PLAIN
    #: a tensor that enters the body as itself (not a block argument) while the body does not rebind it
    identity: bool = False
    #: where the value before the loop is no array (a Python number, no value yet): the array the
    #: first iteration made, whose layout (NumPy's order 'K' of its operands) the carried one has
    first: Any = None


Counters = list[Tensor]

#: probes of one loop body at most (each fixes a leaf's type or adds a carried array)
_MAX_PROBES = 64
#: how many times a loop learns a carried counter's range before it gives the range up
_BOUND_PROBES = 2

#: trace notes: (loop location, construct) -> the arrays from outside the loop its body wrote
_WRITTEN_BY_LOOP = "kiln.staging.written_by_loop"


@dataclass
class _LoopSpec:
    """What a staged loop is: the hooks' arguments (see _staged_loop), fixed while its body is probed."""

    where: str
    construct: str
    get_state: GetState
    set_state: SetState
    symbol_names: Sequence[str]
    test: Callable[[Counters], Any]
    body: Callable[[Counters], Counters]
    counters: Counters
    trip_bound: int | None
    watch: effects.Watch
    runs: bool
    #: a static size the body changes may be carried as a run-time one (see _update)
    resize: bool
    #: storages older than this serial are arrays from before the loop
    boundary: int
    #: the arrays already refused for reading (stale) before the loop
    stale_before: frozenset[mutation.Storage]

    @property
    def label(self) -> str:
        return f"`{self.construct}` loop"


@dataclass
class _Probe:
    """One tracing of a loop's condition and body with the carried types known so far."""

    #: the loop's results by group: ``carried``, ``storages``, ``flags``, ``counters`` (and once
    #: settled ``kinds`` and ``ran``); its block arguments and yields are in the same groups
    groups: ResultGroups
    #: the leaves whose sameness with their initial array a carried flag says
    flagged: list[int]
    cond_block: Block
    body_block: Block
    #: the state as the iteration entered the body
    entered: list[Any] = field(default_factory=list)
    #: the carried arrays laid out as on entry (their layout checked after the body)
    laid_out: set[mutation.Storage] = field(default_factory=set)
    pred: Tensor | None = None
    cond_end: dict[mutation.Storage, SSAValue] = field(default_factory=dict)
    #: per leaf, whether the loop ends with it set (`while not flag:`)
    ends_set: list[bool] = field(default_factory=list)
    next_counters: Counters = field(default_factory=list)
    out_leaves: list[Any] = field(default_factory=list)
    #: arrays from outside the loop the body wrote that the loop does not carry yet
    new: list[mutation.Storage] = field(default_factory=list)
    #: once settled: the body's yields of the groups ``carried``, ``storages`` and ``flags``
    yields: dict[str, list[SSAValue]] | None = None
    body_end: dict[mutation.Storage, SSAValue] = field(default_factory=dict)
    #: the leaves whose result kind the loop carries as a flag (group ``kinds``)
    kinded: list[int] = field(default_factory=list)

    def drop(self) -> None:
        """Forget an abandoned probe's regions (their uses of outer values go with them)."""
        self.cond_block.drop_all_references()
        self.body_block.drop_all_references()


def _staged_loop(
    where: str,
    construct: str,
    get_state: GetState,
    set_state: SetState,
    symbol_names: Sequence[str],
    test: Callable[[Counters], Any],
    body: Callable[[Counters], Counters],
    counters: Counters,
    trip_bound: int | None,
    watch: effects.Watch,
    runs: bool = False,
    carry_lists: bool = False,
) -> None:
    """Emit ``graph.while`` carrying the state that changes in the loop plus kiln's own ``counters``;
    ``runs``: it surely runs at least once on the paths that read its results (a static trip
    count: its `break` flag is false on entry, and a path whose `return` flag is set there has
    returned and reads nothing after the loop); ``carry_lists``: the Python lists of numbers the
    body writes are carried too (:mod:`~kiln.frontend.autograph.loop_lists`), unless the loop
    rule stages the loop (which then runs as Python's).

    The body is traced into a probe region; a leaf whose type is not known
    before the loop (a Python number, a variable first bound in the loop, an
    unwritten TensorArray) takes the type the body gives it, and each leaf's
    abstract value widens with what an iteration leaves in it
    (:meth:`AbstractValue.widen`); the body is traced again until the carried
    types and abstract values are a fixed point. The last probe is the loop.
    A return value not set before the loop (``NOT_RETURNED``) that the body
    sets to a tuple, list or dict is given that structure, and probing restarts.
    """
    boundary, stale_before = mutation.serial_now(), mutation.stale_now()
    resize = not _PYTHON_RANGE.get()
    carry = carry_lists and (resize or _CARRY_LISTS.get())
    _PYTHON_RANGE.set(False)  # (loops in the body are their own)
    _CARRY_LISTS.set(False)
    # a loop the loop rule stages (over a Python range) runs as Python's where it writes a list, unless long
    lists = LoopLists(watch, _kept_after_return() or frozenset()) if carry else None
    before = get_state()
    while True:
        try:
            _stage_loop_carrying(where, construct, get_state, set_state, symbol_names, test, body, counters,
                                 trip_bound, watch, runs, resize, boundary, stale_before, lists)
            if lists is not None and lists.carried:  # (their items are the loop's results too)
                _note_lists_carried([w.obj for w in lists.carried])
            return
        except effects.PythonEffectError as error:
            if lists is None:
                raise
            lists.restore()
            set_state(before)
            if not lists.carry(error):
                raise
        except Exception:
            if lists is not None:  # (a caller that unrolls instead runs Python's loop on the lists as they were)
                lists.restore()
            raise


def _stage_loop_carrying(where: str, construct: str, get_state: GetState, set_state: SetState,
                         symbol_names: Sequence[str], test: Callable[[Counters], Any],
                         body: Callable[[Counters], Counters], counters: Counters, trip_bound: int | None,
                         watch: effects.Watch, runs: bool, resize: bool, boundary: int,
                         stale_before: frozenset[mutation.Storage], lists: LoopLists | None) -> None:
    """One try of :func:`_staged_loop`, its state extended with the contents of the lists it carries."""
    if lists is not None and lists.carried:
        get_state, set_state = lists.get_state(get_state, construct), lists.set_state(set_state, len(symbol_names))
        symbol_names = lists.names(symbol_names)
    spec = _LoopSpec(where, construct, get_state, set_state, symbol_names, test, body, counters, trip_bound, watch,
                     runs, resize, boundary, stale_before)
    init_values = _selections_formed(get_state(), symbol_names, set_state)
    while True:
        try:
            _stage_loop_from(spec, init_values)
            return
        except _Regrow as regrow:
            init_values = regrow.values
            set_state(init_values)


def _stage_loop_from(spec: _LoopSpec, init_values: tuple[Any, ...]) -> None:
    """Stage the loop with its Python numbers entering as themselves; where the body cannot be
    traced so (one indexes a dimension of unknown size, say), probe again with them as 0-d tensors."""
    init_leaves, leaf_names, trees = flatten_state(init_values, spec.symbol_names)
    jump_bound = _entry_jump_bound(init_leaves, leaf_names)  # (an iteration traced before the loop bound them)
    init_leaves = [jump_bound[j][1].value if j in jump_bound else v for j, v in enumerate(init_leaves)]
    try:
        _Loop(spec, init_values, [_initial_leaf(v, n, numbers_typed=False) for v, n in zip(init_leaves, leaf_names)],
              dict(jump_bound)).run()
        return
    except _Regrow:
        raise
    except Exception as error:
        if not any(is_number(v) and not is_strong_constant(v) for v in init_leaves):
            raise
        first = error
    spec.set_state(unflatten_state(trees, init_leaves))
    try:
        _Loop(spec, init_values, [_initial_leaf(v, n, numbers_typed=True) for v, n in zip(init_leaves, leaf_names)],
              dict(jump_bound)).run()
    except PathShapeError:
        raise
    except Exception:
        if isinstance(first, PathShapeError):  # about the numbers as written, not as the retry typed them
            raise first from None
        raise
    finally:
        del first  # (its traceback holds this frame: a cycle keeping the loop's arrays reachable until the collector runs)


def _entry_jump_bound(leaves: Sequence[Any], names: Sequence[str]) -> dict[int, tuple[int, JumpBound]]:
    """The leaves entering a loop that are :class:`JumpBound` on another leaf, a jump flag: index -> (the flag's index, it)."""
    found: dict[int, tuple[int, JumpBound]] = {}
    for j, value in enumerate(leaves):
        g = next((g for g, flag in enumerate(leaves) if isinstance(value, JumpBound) and flag is value.flag), None)
        if g is not None and is_jump_flag(names[g]):
            found[j] = (g, value)
    return found


class _Loop:
    """One staged loop: probing its body until what it carries settles, then emitting it."""

    def __init__(self, spec: _LoopSpec, init_values: tuple[Any, ...], leaves: list[_Leaf],
                 jump_bound: dict[int, tuple[int, JumpBound]]) -> None:
        self.spec = spec
        self.init_values = init_values
        _, self.names, self.trees = flatten_state(init_values, spec.symbol_names)
        self.leaves = leaves
        #: leaves an iteration binds only where it jumps (see JumpBound): index -> (its flag's index, the JumpBound)
        self.jump_bound = jump_bound
        #: arrays from outside the loop that the body writes: carried after the state leaves
        self.storages: list[mutation.Storage] = []
        self.entry: dict[mutation.Storage, SSAValue] = {}
        # The arrays this loop wrote when it was traced before (an enclosing loop probing again):
        # carried from the first probe, so nested loops do not trace their bodies 2**depth times.
        self.written_before = trace_context.require().notes.setdefault(_WRITTEN_BY_LOOP, {})
        for ref in self.written_before.get((spec.where, spec.construct), ()):
            storage = ref()  # (weak: an array no one holds any more is not written; see mutation._unreachable)
            if storage is not None and trace_context.visible(storage.value):
                self.storages.append(storage)
                self.entry[storage] = storage.value
        #: arrays the body may have written through a MaybeAlias: stale after the loop
        self.marks: dict[mutation.Storage, str] = {}
        #: carried leaves whose sameness with their initial array the body loses (a view of it, say)
        self.unflaggable: set[int] = set()
        #: pairs of carried leaves that share memory before the loop or after an iteration (`w = v[:]`
        #: in the body): the loop carries them as two arrays, so each pair is marked (see _mark_pairs)
        self.shared = _sharing_pairs([leaf.value for leaf in leaves], [leaf.ty is not None for leaf in leaves])
        #: per carried leaf, the other arrays from before the loop that an iteration may leave in it
        #: (`a, b = b, a`): on later iterations the carried array may be one of those
        self.others: dict[int, list[mutation.Storage]] = {}
        #: the leaves whose kind an iteration knows only per call (a staged `if` in the body makes a
        #: Python number a NumPy scalar on one path): their int8 kind flag is carried too
        self.kinded: list[int] = []
        #: per kinded leaf, how it promotes on the paths so far (tensor.path_promotions): a Python
        #: number on some, a NumPy value on others
        self.varying: dict[int, tuple[tuple[Any, ...], str]] = {}
        #: per carried 0-d integer leaf, the range an induction over the trip count proved (a counter
        #: the body changes by a bounded amount), what an iteration adds, and how often that changed
        self.bounds: dict[int, tuple[int, int] | None] = {}
        self.steps: dict[int, tuple[int, int]] = {}
        self.bound_changes: dict[int, int] = {}

    def run(self) -> None:
        """Probe the body until the carried types, abstract values and arrays are a fixed point,
        then emit the loop and set the state after it."""
        spec = self.spec
        for _ in range(_MAX_PROBES):
            probe = self.probe()
            if probe.yields is not None:
                break
            self.storages += sorted(probe.new, key=lambda storage: storage.serial)
            probe.drop()
        else:  # pragma: no cover - each round fixes a leaf's type or carries one more array for good
            raise TypeError(f"{spec.where}: the carried types of this staged `{spec.construct}` loop do not settle")
        self.written_before[(spec.where, spec.construct)] = [weakref.ref(s) for s in self.storages]
        self.finish(probe, self.emit(probe))

    def probe(self) -> _Probe:
        """Trace the condition and the body once with what the loop carries so far."""
        carried = [leaf for leaf in self.leaves if leaf.ty is not None]
        # an array that starts as one sharing with an argument: a carried 0-d flag says whether it is
        # still its initial array (true on entry), so a write through it is made on that one where so
        flagged = [j for j, leaf in enumerate(self.leaves) if j not in self.unflaggable and _flaggable(leaf)]
        groups = ResultGroups(carried=[leaf.ty for leaf in carried], storages=[self.entry[s].type for s in self.storages],
                              flags=[_FLAG_TYPE] * len(flagged), counters=[c.value.type for c in self.spec.counters],
                              kinds=[result_kinds.FLAG_TYPE] * len(self.kinded))
        probe = _Probe(groups, flagged, Block(arg_types=groups.types()), Block(arg_types=groups.types()),
                       kinded=list(self.kinded))
        with mutation.region() as scope:
            try:
                self._trace_test(probe, scope)
                self._trace_body(probe, scope)
            except BaseException:
                probe.drop()
                raise
            finally:
                for storage, value in scope.saved.items():
                    self.entry.setdefault(storage, value)
                self.marks.update({storage: at for storage, (at, _) in scope.marked.items()})
                scope.restore()
        return probe

    def enter(self, probe: _Probe, block: Block) -> Counters:
        """Bind the state as an iteration starts: a carried leaf to its argument of ``block``, the
        others to their values before the loop; the counters' arguments."""
        spec, leaves = self.spec, self.leaves
        args = probe.groups.split(block.args)
        carried = iter(args["carried"])
        state = [_carried(next(carried), leaf) if leaf.ty is not None else leaf.value for leaf in leaves]
        for j, value in enumerate(state):
            if leaves[j].ty is not None and _counter_like(value):
                index_facts.carried(value, self.bounds.get(j))
        for leaf, value in zip(leaves, state):  # a return value not set yet: the loop stops once it is
            if isinstance(value, Tensor) and may_be_placeholder(leaf.value):
                result_kinds.mark_placeholder(value)
        for j, kind in zip(probe.kinded, args["kinds"]):  # the kind the iterations before left it
            if isinstance(state[j], Tensor) and not may_be_placeholder(leaves[j].value):
                state[j].kind_flag = Tensor(kind)
                state[j].path_promotions = self.varying.get(j)
        for leaf, value in zip(leaves, state):  # laid out as on entry (checked against the body's below)
            if leaf.ty is not None and merge_layout(value, [_entry_array(leaf)], spec.where, spec.label):
                probe.laid_out.add(value.storage)
        probe.entered[:] = state
        for leaf, value in zip(leaves, state):
            if leaf.ty is not None and is_jump_flag(leaf.name):
                _note(_FLAGS, value, leaf.name)
        for storage, arg in zip(self.storages, args["storages"]):
            mutation.write(storage, arg, shared=False)
        flags = dict(zip(probe.flagged, args["flags"]))
        for j, (leaf, value) in enumerate(zip(leaves, state)):  # on the first iteration, a carried array is its initial one
            if leaf.ty is not None and isinstance(value, Tensor):
                others = self.others.get(j, [])
                _mark_alias(value, (leaf.value, *(AbstractValue(storage=o) for o in others)), spec.boundary, spec.where,
                            spec.label + ("" if others else " (its first iteration)"),
                            flags={leaf.value.storage: flags[j]} if j in flags else None,
                            returned=_return_variable(leaf.name))
        _mark_pairs(state, self.shared, spec.where, spec.label)
        spec.set_state(unflatten_state(self.trees, self._jump_bound(state)))
        return [Tensor(a) for a in args["counters"]]

    def _jump_bound(self, values: list[Any]) -> list[Any]:
        """``values`` with each leaf an iteration binds only where it jumps a :class:`JumpBound` on
        that jump flag's value here (as an iteration starts, false: it stays unbound; after the loop,
        set exactly where the loop jumped out having bound it)."""
        out = list(values)
        for j, (g, seen) in self.jump_bound.items():
            if values[g] is not True and not isinstance(values[j], Undefined):
                out[j] = JumpBound(seen.symbol_name, seen.where, seen.branch, values[j], values[g])
        return out

    @staged_recursion.traces_staged_code(lambda names: names["self"].spec.where)
    def _trace_test(self, probe: _Probe, scope: mutation.Scope) -> None:
        """Trace the loop's condition into the probe's condition block."""
        spec = self.spec
        with trace_context.at_block(probe.cond_block), spec.watch.tracing():
            tested = spec.test(self.enter(probe, probe.cond_block))
            probe.pred = _predicate(tested, spec.where, spec.construct)
            probe.cond_end = {s: s.value for s in scope.saved}
            # `while not flag:` (a `while True` that breaks or returns): it ends with the flag set
            negated = _noted(_NEGATIONS, tested)
            probe.ends_set = [negated is not None and value is negated for value in probe.entered]
            wrote = [s for s in scope.saved if s not in self.storages]
            entered = probe.groups.split(probe.cond_block.args)["storages"]
            if wrote or any(s.value is not a for s, a in zip(self.storages, entered)):
                raise NotImplementedError(
                    f"{spec.where}: the condition of this staged `{spec.construct}` loop writes to an array; "
                    "write it in the loop body instead"
                )

    @staged_recursion.traces_staged_code(lambda names: names["self"].spec.where)
    def _trace_body(self, probe: _Probe, scope: mutation.Scope) -> None:
        """Trace the loop's body into the probe's body block and fit what the loop carries to what
        an iteration leaves; where nothing changed, the probe is settled and has its yields."""
        spec = self.spec
        with _loop_bound(spec.trip_bound), trace_context.at_block(probe.body_block), spec.watch.tracing():
            probe.next_counters = spec.body(self.enter(probe, probe.body_block))
            out_values = spec.get_state()
            probe.out_leaves, _, out_trees = flatten_state(out_values, spec.symbol_names)
            if _raised(probe.body_block):  # every run of the body fails (a staged `raise` it always reaches):
                # no iteration ends, so none changes the state, as a staged `if` merges only a path that did not raise
                probe.out_leaves, out_trees = list(probe.entered), self.trees
            for j, (g, out) in _entry_jump_bound(probe.out_leaves, self.names).items():  # carried as its value
                self.jump_bound[j] = (g, out)
                probe.out_leaves[j] = out.value
            probe.new = [s for s in scope.saved if s not in self.storages]
            if out_trees != self.trees:
                grown = tuple(align_placeholders(a, b)[0] for a, b in zip(self.init_values, out_values))
                if flatten_state(grown, spec.symbol_names)[2] != self.trees:
                    raise _Regrow(grown)
                bad = next(n for n, a, b in zip(spec.symbol_names, self.trees, out_trees) if a != b)
                raise TypeError(f"{spec.where}: {describe(bad)} changes its structure in this staged `{spec.construct}` loop")
            updates = [_update(leaf, out, spec.where, spec.construct, spec.resize)
                       for leaf, out in zip(self.leaves, probe.out_leaves)]
            kinded = [j for j, (leaf, out) in enumerate(zip(self.leaves, probe.out_leaves)) if j not in self.kinded
                      and leaf.ty is not None and isinstance(out, Tensor)
                      and (out.kind_flag is not None or self._kind_after_no_iteration(leaf, out))]
            self.kinded += kinded
            grown = [j for j in self.kinded if self._promotions_grew(j, probe.out_leaves[j])]
            if any(updates) or probe.new or kinded or grown or self._bounds_changed(probe):
                return
            out_flags = [_same(probe.out_leaves[j], self.leaves[j].value.storage) for j in probe.flagged]
            if self._learn_sharing(probe.out_leaves, probe.flagged, out_flags):
                return  # probe again without those flags, or with those arrays, or marking those pairs
            probe.yields = {
                "carried": [_materialize(out, leaf.ty).value for leaf, out in zip(self.leaves, probe.out_leaves)
                            if leaf.ty is not None],
                "storages": [s.value for s in self.storages],
                "flags": [_flag_value(flag) for flag in out_flags],
            }
            probe.body_end = {s: s.value for s in scope.saved}

    def _bounds_changed(self, probe: _Probe) -> bool:
        """Learn the range of each carried counter (index_facts.induction): one that changes by a
        bounded amount per iteration of a loop with a static trip count stays within that many
        steps of its value before the loop; one each iteration sets to a bounded value (``% m``,
        ``& mask``) stays within that and its start, in any loop (index_facts.kept_within).
        Whether a range changed (probe again with it: the body's checks of Python ints can then
        be proved needless); one still changing after a few probes is given up."""
        trips = self.spec.trip_bound
        changed = False
        for j, (leaf, entered, out) in enumerate(zip(self.leaves, probe.entered, probe.out_leaves)):
            counted = leaf.ty is not None and _counter_like(entered) and isinstance(trips, int)
            steps = index_facts.step(out, entered) if counted else None
            if steps is None:
                self.steps.pop(j, None)
            else:
                self.steps[j] = steps  # (this probe's: the last one's is the loop's)
            if self.bound_changes.get(j, 0) > _BOUND_PROBES:
                continue
            bound = (index_facts.induction(leaf.value, steps, trips, entered.dtype) if steps is not None  # type: ignore[arg-type]
                     else index_facts.kept_within(leaf.value, out, entered.dtype) if leaf.ty is not None and _counter_like(entered)
                     else None)
            if bound != self.bounds.get(j):
                self.bound_changes[j] = self.bound_changes.get(j, 0) + 1
                self.bounds[j] = bound if self.bound_changes[j] <= _BOUND_PROBES else None
                changed = True
        return changed

    def _kind_after_no_iteration(self, leaf: _Leaf, out: Tensor) -> bool:
        """Whether ``leaf``, a Python number before a loop that may run no iterations, is of
        another kind after one (``total = 0; for v in x: total += v``: the int 0 where ``x`` is
        empty, a NumPy float64 elsewhere): its kind is then carried as a flag, the number's on entry."""
        return (not self.spec.runs and out.ndim == 0 and out.shape_source is None and not _unread(leaf.value)
                and not may_be_placeholder(leaf.value) and not is_jump_flag(leaf.name)  # (a `break` flag is no result)
                and result_kinds.differ(leaf.value, out))

    def _promotions_grew(self, j: int, out: Any) -> bool:
        """Whether the kinded leaf ``j`` promotes another way after this iteration (``out``) than
        on the paths known so far (it is given them as it enters the body and after the loop)."""
        leaf = self.leaves[j]
        if may_be_placeholder(leaf.value):
            return False
        varying = path_promotions((leaf.value, out), f"the staged {self.spec.label} at {self.spec.where}")
        before = self.varying.get(j)
        if varying is None or (before is not None and len(varying[0]) <= len(before[0])):
            return False
        self.varying[j] = varying
        return True

    def _learn_sharing(self, out_leaves: list[Any], flagged: list[int], out_flags: list[_Flag]) -> bool:
        """Learn from an iteration whose types settled what sharing memory needs: the other arrays
        from before the loop a carried one may be, the flags the body loses, the pairs of carried
        arrays that share memory after it. Whether there was something to learn (probe again)."""
        lost: set[int] = set()
        for j, (leaf, out) in enumerate(zip(self.leaves, out_leaves)):
            initial = leaf.value.storage if isinstance(leaf.value, Tensor) else None
            seen = self.others.setdefault(j, [])
            found = [o for o in _outers((out,), self.spec.boundary) if o is not initial and o not in seen]
            if leaf.ty is not None and found:
                seen += found
                lost.add(j)
        lost |= {j for j, flag in zip(flagged, out_flags) if flag is None}
        self.unflaggable |= lost
        pairs = _sharing_pairs(out_leaves, [leaf.ty is not None for leaf in self.leaves]) - self.shared
        self.shared |= pairs
        return bool(lost) or bool(pairs)

    def emit(self, probe: _Probe) -> dict[str, list[SSAValue]]:
        """End the settled probe's regions and emit the ``graph.while``: its results by group."""
        spec, groups = self.spec, probe.groups
        carried = [leaf for leaf in self.leaves if leaf.ty is not None]
        # a Python number before the loop, an array after an iteration: after zero iterations NumPy's
        # is still the number, which kiln cannot give; a carried flag (`ran`) says whether it ran
        widened = [] if spec.runs else [leaf for leaf in carried if _number_widened(leaf)]
        groups.add(ran=[_FLAG_TYPE] * bool(widened))
        for flag_type in groups.types("ran"):
            probe.cond_block.insert_arg(flag_type, len(probe.cond_block.args))
            probe.body_block.insert_arg(flag_type, len(probe.body_block.args))
        assert probe.pred is not None and probe.yields is not None
        with trace_context.at_block(probe.cond_block), mutation.values_as(probe.cond_end):
            trace_context.require().emit(graph.ConditionOp(probe.pred.value, *probe.cond_block.args))
        with trace_context.at_block(probe.body_block), mutation.values_as(probe.body_end):
            ran = [_flag_value(True)] if widened else []
            kinds = [result_kinds.flag_value(probe.out_leaves[j]) for j in probe.kinded]
            counters = [c.value for c in probe.next_counters]
            trace_context.require().emit(graph.YieldOp(*groups.ordered(**probe.yields, counters=counters, kinds=kinds, ran=ran)))
        inits = groups.ordered(
            carried=[_materialize(leaf.value, leaf.ty).value for leaf in carried],
            storages=[self.entry[s] for s in self.storages],
            flags=[_flag_value(True) for _ in probe.flagged],
            counters=[c.value for c in spec.counters],
            # (a return value not set yet has its kind read only once a return set it)
            kinds=[result_kinds.flag_value(np.asarray(0) if may_be_placeholder(self.leaves[j].value) else self.leaves[j].value)
                   for j in probe.kinded],
            ran=[_flag_value(False)] if widened else [],
        )
        op = trace_context.require().emit(graph.WhileOp(inits, Region(probe.cond_block), Region(probe.body_block)))
        results = groups.split(op.results)
        for leaf in widened:
            runtime_checks.ran_once(
                Tensor(results["ran"][0]),
                f"{spec.where}: {describe(leaf.name)} is {_show(leaf.value)} before this staged `{spec.construct}` loop and "
                f"{_show_carried(leaf)} after an iteration, and the loop ran no iterations on this call: NumPy's "
                "value would be the number, of another shape than kiln's; give it the array's shape before the loop "
                "(e.g. np.zeros(shape) or np.full(shape, number))",
            )
        return results

    def finish(self, probe: _Probe, results: dict[str, list[SSAValue]]) -> None:
        """Set the state after the loop from its ``results`` (by group)."""
        spec, leaves = self.spec, self.leaves
        carried = iter(results["carried"])
        final = [
            _carried(next(carried), leaf) if leaf.ty is not None else (out if isinstance(out, Undefined) else leaf.value)
            for leaf, out in zip(leaves, probe.out_leaves)
        ]
        final = [True if is_set and is_jump_flag(leaf.name) else value for leaf, value, is_set in zip(leaves, final, probe.ends_set)]
        for j in {*self.steps, *self.bounds}:  # (the last probe's: the loop's)
            bound = self.bounds.get(j)
            if isinstance(final[j], Tensor) and j in self.steps:
                index_facts.after_loop(final[j], leaves[j].value, self.steps[j], spec.trip_bound, bound)  # type: ignore[arg-type]
            elif isinstance(final[j], Tensor) and bound is not None:
                final[j].facts = index_facts.Facts(*bound)
        for leaf, value, out in zip(leaves, final, probe.out_leaves):  # a return value: the kind an iteration gives it
            if isinstance(value, Tensor) and may_be_placeholder(leaf.value):
                result_kinds.take_kind(value, result_kinds.static_kind(out))
        for j, kind in zip(probe.kinded, results["kinds"]):
            final[j].kind_flag = Tensor(kind)
            if j in self.varying:
                final[j].path_promotions = self.varying[j]
        for leaf, value in zip(leaves, final):  # after zero iterations, the Python number it was before the loop
            python_number = not _unread(leaf.value) and abstract_of(leaf.value).weak  # (or a staged `if` made a tensor)
            if not spec.runs and leaf.ty is not None and isinstance(value, Tensor) and python_number:
                at = f"the staged {spec.label} at {spec.where} (zero iterations or more)"
                if not value.shape and value.shape_source is None and (varying := path_promotions((leaf.value, value), at)):
                    value.path_promotions = varying
        for leaf, value, out, inside in zip(leaves, final, probe.out_leaves, probe.entered):
            if leaf.ty is not None and isinstance(value, Tensor):
                merge_layout(value, [_entry_array(leaf), out], spec.where, spec.label)
                if isinstance(inside, Tensor) and inside.storage in probe.laid_out:
                    _check_layout_kept(leaf, inside, out, spec.where, spec.construct)
        for storage, result in zip(self.storages, results["storages"]):
            mutation.write(storage, result, shared=False)
        final_flags = dict(zip(probe.flagged, results["flags"]))
        for storage, marked_at in self.marks.items():
            mutation.mark_stale(storage, marked_at)
        for j, (leaf, value, out) in enumerate(zip(leaves, final, probe.out_leaves)):
            if leaf.ty is not None and isinstance(value, Tensor):  # (zero iterations leave the value before the loop)
                _mark_alias(value, (leaf.value, out), spec.boundary, spec.where, spec.label, spec.stale_before,
                            {leaf.value.storage: final_flags[j]} if j in final_flags else None,
                            _return_variable(leaf.name))
        _mark_pairs(final, self.shared, spec.where, spec.label)
        for leaf, value in zip(leaves, final):
            if isinstance(value, Tensor) and is_jump_flag(leaf.name):
                _note(_FLAGS, value, leaf.name)
        for leaf, value in zip(leaves, final):  # `else:` runs where the loop did not break
            broke = [v for other, v in zip(leaves, final) if other.name == leaf.name.replace("loop_else_", "break_", 1)]
            if leaf.name.startswith("loop_else_") and isinstance(value, Tensor) and broke and isinstance(broke[0], Tensor):
                _note(_CLEARED, value, broke[0])
        spec.set_state(unflatten_state(self.trees, self._jump_bound(final)))


class _Regrow(Exception):
    """Probing a loop found a return value's structure (see :func:`_staged_loop`): start again from ``values``."""

    def __init__(self, values: tuple[Any, ...]):
        super().__init__("internal: a staged loop's return value takes a structure")
        self.values = values


def _check_layout_kept(leaf: _Leaf, inside: Tensor, out: Any, where: str, construct: str) -> None:
    """A loop body that reshaped a carried array took its layout from before the loop: the
    array must leave the body laid out the same, else later iterations would differ."""
    if inside.storage.layout_rule is None and layout_of(inside) != layout_of(out):
        raise NotImplementedError(
            f"{where}: {describe(leaf.name)} is reshaped in this staged `{construct}` loop but its memory layout changes "
            "between iterations (NumPy's reshape of it is a view on some and a copy on others); make it one layout "
            "where it is bound, e.g. with np.ascontiguousarray(...)"
        )


def _counter_like(value: Any) -> bool:
    """Whether a carried value may be a counter whose range a loop can prove (a 0-d integer)."""
    return isinstance(value, Tensor) and value.ndim == 0 and value.shape_source is None and value.dtype.kind in "iu"


def _carried(value: SSAValue, leaf: _Leaf) -> Tensor:
    """The tensor a loop's block argument or result ``value`` is for ``leaf``, with what holds of it
    on every iteration (a Python number stays one only as a 0-d int, float or complex)."""
    t = Tensor(value)
    t.aval = leaf.aval.but(weak=leaf.aval.weak and t.ndim == 0 and t.dtype.kind in "iufc").in_memory_of(t.aval)
    return t


def _initial_leaf(value: Any, name: str, *, numbers_typed: bool) -> _Leaf:
    """How ``value`` enters the first probe. A Python number enters as itself, as it does the
    first iteration of the eager loop, so it takes the dtype NumPy gives the body's result
    (``s = 0; s += x[i]`` on int32 data stays int32, as ``0 + np.int32(..)`` does); with
    ``numbers_typed`` (a body that cannot be traced with a Python number) it enters as a 0-d tensor."""
    aval = _entry_aval(value)
    if isinstance(value, Tensor):  # enters as itself: carried only if the body rebinds the name; a weak
        # one (a Python number a staged `if` or earlier iterations made a tensor) stays a Python number
        return _Leaf(name, value, None, open_type=value.weak, aval=aval, identity=True)
    if is_strong_constant(value):
        return _Leaf(name, value, _type_of(value), open_type=False, aval=aval)
    if is_number(value) and numbers_typed:
        return _Leaf(name, value, _scalar_type(value), open_type=True, aval=aval)
    return _Leaf(name, value, None, open_type=True, aval=aval)


def _entry_aval(value: Any) -> AbstractValue:
    """What a loop knows of a leaf before its first iteration: a value's own abstract value (less
    the facts about that one value); a Python value that is no number (None, no value yet) fixes
    nothing yet: it stays a Python number while the iterations leave numbers in it."""
    if isinstance(value, Tensor) or is_strong_constant(value) or is_number(value):
        return abstract_of(value).widen(None)
    return AbstractValue(weak=True, scalar=_unread(value))


def _unread(value: Any) -> bool:
    """Whether ``value`` is a placeholder no path reads: a return value not set yet, a name not bound."""
    return value is NOT_RETURNED or isinstance(value, Undefined)


def _entry_array(leaf: _Leaf) -> Any:
    """The value ``leaf`` is laid out as when an iteration starts: the value before the loop, or
    where that is no array the loop carries (a Python number, no value yet) the array the first
    iteration made of it (after zero iterations there is no array to lay out: the number stays,
    or the loop refuses that path)."""
    if leaf.first is not None and leaf.ty is not None and graph.shape_of(leaf.ty) and not isinstance(leaf.value, Tensor):
        return leaf.first
    return leaf.value


def _number_widened(leaf: _Leaf) -> bool:
    """Whether a loop carries ``leaf`` as an array that is not 0-d, from a Python number before it."""
    assert leaf.ty is not None
    return (is_number(leaf.value) and not is_strong_constant(leaf.value)
            and (bool(graph.shape_of(leaf.ty)) or leaf.aval.shape_source is not None))


def _weak_value(value: Any) -> bool:
    """Whether NumPy's promotion takes ``value`` as a Python number (or it has no value here)."""
    return _unread(value) or abstract_of(value).weak


def _update(leaf: _Leaf, out: Any, where: str, construct: str, resize: bool = True) -> bool:
    """Fit ``leaf`` to what one traced iteration gives it: its abstract value widens with the
    iteration's and its carried type takes the body's; whether either changed (the body is traced
    again until neither does). ``resize``: a static size the body changes to another static one
    (``z = z[1:]``) may be carried as a run-time size; without it only sizes the body already gives
    as run-time ones are (the loop rule's ``for i in range(3)`` unrolls instead, keeping every size static)."""
    if leaf.identity and out is leaf.value:  # the same array (written in place or not): its storage carries any writes
        return False
    _check_source(leaf, out, where, construct)
    widened = leaf.aval.widen(None if _unread(out) else abstract_of(out))
    changed, leaf.aval = widened != leaf.aval, widened
    if leaf.identity:
        leaf.identity = False  # rebound in the body: carried as a value from now on
        leaf.ty = _type_of(leaf.value)
        _fit_type(leaf, out, where, construct, resize)
        return True
    return _fit_type(leaf, out, where, construct, resize) or changed


def _fit_type(leaf: _Leaf, out: Any, where: str, construct: str, resize: bool) -> bool:
    """Fit the type ``leaf`` is carried as to what one iteration gives it; whether it changed."""
    if leaf.ty is None and getattr(type(out), "__kiln_trace_time__", False) and (
        isinstance(leaf.value, Undefined) or type(leaf.value) is type(out)
    ):
        leaf.value = out  # a trace-time object made in the body (a GradientTape): nothing to carry
        return False
    out_type = _type_of(out)
    if leaf.ty is None:
        if out_type is None and (same_python_value(leaf.value, out) or isinstance(out, Undefined)):
            return False
        if leaf.value is NOT_RETURNED and out_type is None and not is_number(out) and out is not NOT_RETURNED:
            leaf.value = out  # `return None` (or another Python value) in the loop: no path reads the placeholder
            return True
        placeholder = (isinstance(leaf.value, Undefined) or may_be_placeholder(leaf.value)
                       or (leaf.open_type and is_number(leaf.value)))
        if out_type is not None and placeholder:
            leaf.ty = out_type
            leaf.first = out
            return True
        if is_number(out) and placeholder:
            leaf.ty = _scalar_type(out)
            return True
    elif out_type == leaf.ty or (out_type is None and is_number(out) and _number_fits(out, leaf.ty)):
        return False
    elif out_type is not None and (joined := _joined(leaf.ty, out_type)) is not None and (
        resize or all(b == -1 for a, b in zip(graph.shape_of(leaf.ty), graph.shape_of(out_type)) if a != b)
    ):
        # sizes that differ between iterations are carried as dynamic ones: trace the body again
        changed = joined != leaf.ty
        leaf.ty = joined
        return changed
    elif leaf.open_type and (out_type is not None or is_number(out)):
        leaf.ty = out_type or graph.tensor_type(
            dtypes.to_element(dtypes.canonical(np.result_type(_dtype(leaf.ty), out))), graph.shape_of(leaf.ty)
        )
        return True
    before = "not defined" if isinstance(leaf.value, Undefined) else _show_carried(leaf)
    raise TypeError(
        f"{where}: {describe(leaf.name)} is {before} before this staged `{construct}` loop but {_show(out)} "
        f"after an iteration; a loop-carried variable must keep one dtype and shape, so give it its final "
        f"dtype and shape before the loop (e.g. with .astype() or np.zeros(shape, dtype))"
    )


def _check_source(leaf: _Leaf, out: Any, where: str, construct: str) -> None:
    """Refuse what the body gives ``leaf`` where its shape source (kiln.frontend.unknown_rank) does
    not widen: a tensor of unknown rank must stay one, of the same call-time shape, and one of
    known rank must not become one. A leaf first bound in the loop takes the body's (the widening)."""
    source, before = _source_of(out), leaf.aval.shape_source
    if source == before or (before is None and leaf.ty is None and not leaf.identity):
        return
    if before is not None and source is not None:
        shape_sources.same_shape(before, source)
        return
    shown = "not defined" if isinstance(leaf.value, Undefined) else _show(leaf.value)
    raise TypeError(
        f"{where}: {describe(leaf.name)} is {shown} before this staged `{construct}` loop but {_show(out)} "
        "after an iteration; a loop-carried tensor of unknown rank must stay one (and one of known rank must not become one)"
    )


def _show_carried(leaf: _Leaf) -> str:
    """What a leaf is carried as, for messages: its tensor type rather than the Python number it came from."""
    if leaf.ty is None:
        return _show(leaf.value)
    return _describe_tensor(_dtype(leaf.ty), tuple(None if d < 0 else d for d in graph.shape_of(leaf.ty)))


@contextmanager
def _loop_bound(trip_bound: int | None) -> Iterator[None]:
    """Record the staged loop being traced (and its trip count, when known) for TensorArray capacities."""
    bounds: list[int | None] = trace_context.require().notes.setdefault(_LOOP_BOUNDS, [])  # type: ignore[assignment]
    bounds.append(trip_bound)
    try:
        yield
    finally:
        bounds.pop()


def loop_depth() -> int:
    """How many staged loops enclose the code being traced."""
    ctx = trace_context.current()
    return 0 if ctx is None else len(ctx.notes.get(_LOOP_BOUNDS, ()))  # type: ignore[arg-type]


def trip_bound_below(depth: int) -> int | None:
    """The number of iterations the staged loops nested deeper than ``depth`` run at most; ``None`` if unknown."""
    ctx = trace_context.current()
    total = 1
    for bound in (ctx.notes.get(_LOOP_BOUNDS, []) if ctx else [])[depth:]:  # type: ignore[index]
        if bound is None:
            return None
        total *= bound
    return total


def staged_while(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """``while test(): body()`` once ``test()`` returned a tensor (possibly after Python iterations)."""
    where = statement_location()
    _check_stageable(where, "while", body)

    def run(counters: Counters) -> Counters:
        body()
        return counters

    watch = effects.Watch(where, "while", (test, body))
    _staged_loop(where, "while", get_state, set_state, symbol_names, lambda _: test(), run, [], None, watch,
                 carry_lists=True)


def staged_for(
    iter_: Any | Iterator[Any],
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """``for item in iter_: body(item)``, stopping when ``extra_test()`` is false (``break``/``return`` flags).

    ``iter_`` is a tensor (iterated over its first axis, or the result of
    ``kiln.range`` / ``range`` over tensors), a ``zip`` or ``enumerate`` of tensors of
    run-time length (iterated to the shortest), or the remaining Python iterator
    when a Python loop's ``extra_test()`` returned a tensor.
    """
    from kiln.frontend.range import StagedRange

    where = statement_location()
    _check_stageable(where, "for", body)
    if not is_staged_iterable(iter_):
        _guarded_python_loop(iter_, extra_test, body, get_state, set_state, symbol_names)
        return
    if extra_test is not None:
        more = extra_test()
        if not is_tensor(more) and not more:
            return
    watch = effects.Watch(where, "for", (body, extra_test))

    def test_with(cond: Tensor) -> Any:
        if extra_test is None:
            return cond
        more = extra_test()
        return np.logical_and(cond, more) if is_tensor(more) else (cond if more else False)

    if isinstance(iter_, StagedRange):
        start, stop, step = iter_.bounds()

        def range_test(counters: Counters) -> Any:
            (i,) = counters
            if isinstance(step, Tensor):
                return test_with(np.where(step > 0, i < stop, i > stop))
            return test_with(i < stop if step > 0 else i > stop)

        def range_body(counters: Counters) -> Counters:
            (i,) = counters
            item = Tensor(i.value)
            item.weak, item.immutable = iter_.weak, True  # a number: `i += 1` rebinds it
            index_facts.loop_index(item, *iter_.index_range())
            body(item)
            return [cast(np.add(i, step), i.dtype)]

        trips = iter_.trip_count()
        _staged_loop(
            where, "for", get_state, set_state, symbol_names, range_test, range_body, [start], trips, watch,
            runs=bool(trips), carry_lists=True,
        )
        return

    columns = iter_.columns if isinstance(iter_, StagedRows) else (iter_,)
    rows: int | Tensor | None = None
    for column in columns:
        require_rank(column, f"{where}: iteration (`for ... in`)")
        if column.ndim == 0:
            raise TypeError(f"{where}: iteration over a 0-d tensor {column!r}")
        length = column.shape[0] if column.shape[0] is not None else run_time_shape.dim(column, 0)
        rows = length if rows is None else (min(rows, length) if isinstance(length, int) and isinstance(rows, int)
                                            else np.minimum(rows, length))  # zip stops at the shortest
    assert rows is not None

    def tensor_test(counters: Counters) -> Any:
        return test_with(counters[0] < rows)

    def tensor_body(counters: Counters) -> Counters:
        (i,) = counters
        index_facts.loop_index(i, 0, rows - 1 if isinstance(rows, int) else None)  # (no bounds check needed)
        if isinstance(iter_, StagedRows):
            count = Tensor(i.value)
            count.weak, count.immutable = True, True  # enumerate's count: a Python int
            body(iter_.item(i, count))
        else:
            body(iter_[i])  # a view of the row, as NumPy iterates: `row[0] = v` writes the array
        stale = next((column.storage.stale for column in columns if column.storage.stale is not None), None)
        if stale is not None:
            # written through a variable that is this array on some iterations only (`b[k] = v` then
            # `b = b + 1`): the next iteration's row would be read as if it were not
            raise NotImplementedError(
                f"{where}: the array this `for` loop iterates over may have been written at {stale}, "
                "and whether the next iteration sees that write depends on the iteration. Iterate over a copy "
                "(`for r in b.copy():`), or do not rebind the variable you write through"
            )
        return [i + 1]

    zero = constant(np.asarray(0, dtype=np.int64))
    trip_bound = rows if isinstance(rows, int) else None
    long = trip_bound is not None and _long(trip_bound)
    init = get_state()
    try:
        _staged_loop(where, "for", get_state, set_state, symbol_names, tensor_test, tensor_body, [zero], trip_bound,
                     watch, runs=bool(trip_bound), carry_lists=trip_bound is None or long)
    except Exception as error:
        if not long or isinstance(error, effects.PythonEffectError):
            raise
        # the lists it writes could not be carried (a list of bools): as a shorter loop, a list the
        # body writes makes it Python's loop, unrolled (unrollable_rows)
        set_state(init)
        watch = effects.Watch(where, "for", (body, extra_test))  # (the first one takes the lists as carried)
        _staged_loop(where, "for", get_state, set_state, symbol_names, tensor_test, tensor_body, [zero], trip_bound,
                     watch, runs=True)


def unrollable_rows(iter_: Any, error: NotImplementedError) -> int | None:
    """The rows a ``for`` over the tensor ``iter_`` runs as Python's loop (unrolled) instead, its
    staged body having changed a Python object (``error``, an effects.PythonEffectError:
    ``out.append(v)``, ``counts[b] += 1``), as a range loop does: their number where it is static
    and the object is the function's own (not a global's or a variable's from outside the
    function, which a trace would change once, not per call)."""
    if not isinstance(error, effects.PythonEffectError) or error.global_root:
        return None
    if not isinstance(iter_, Tensor) or not iter_.shape or iter_.shape[0] is None:
        return None
    kept = _kept_after_return()
    if kept is None or error.root is None or error.root in kept:
        return None
    _unroll_note(statement_location(), f"its body changes a Python object ({_first_line(error)})")
    return iter_.shape[0]


#: a ``for`` over a Python ``range`` is unrolled when its body is copied at most this many times,
#: counting the Python loops unrolled around it (nested short loops would copy it 2 x 4 x 2 x ... times)
UNROLL_AT_MOST = 4

_unrolled_copies: ContextVar[int] = ContextVar("kiln_unrolled_copies", default=1)


@contextmanager
def unrolled(trips: int) -> Iterator[None]:
    """Python's loop of ``trips`` iterations runs (unrolled) around what it traces."""
    token = _unrolled_copies.set(_unrolled_copies.get() * max(trips, 1))
    try:
        yield
    finally:
        _unrolled_copies.reset(token)


def _long(trips: int) -> bool:
    """Whether a loop of ``trips`` iterations is too long to unroll for the Python lists its body
    writes (they are carried by the staged loop instead: kiln.frontend.autograph.loop_lists)."""
    return _unrolled_copies.get() * trips > UNROLL_WARN_AFTER


def _short(iter_: range) -> bool:
    """Whether the range loop is short enough to unroll where it stands."""
    return _unrolled_copies.get() * len(iter_) <= UNROLL_AT_MOST

#: method names whose call mutates a Python container (the body then needs Python's loop)
CONTAINER_METHODS = frozenset(
    "append extend insert pop remove clear update setdefault popitem add discard appendleft popleft sort reverse".split()
)


def _loads_method(ins: dis.Instruction) -> bool:
    """Whether ``ins`` loads an attribute to call it as a method (``lst.append(x)``), not a plain
    attribute (``np.add.outer``: ``add`` is loaded, ``outer`` called)."""
    if ins.opname == "LOAD_METHOD":  # Python 3.11
        return True
    return ins.opname == "LOAD_ATTR" and sys.version_info >= (3, 12) and bool((ins.arg or 0) & 1)


def _loads_bound_method(ins: dis.Instruction, following: dis.Instruction | None) -> bool:
    """Whether ``ins`` loads a method to call (``lst.append(x)``) or to pass on as a bound method:
    converted code calls ``ag__.call(lst.append)(x)``, a plain attribute load that no attribute
    load follows (``np.add.outer`` loads ``add`` as a namespace)."""
    if _loads_method(ins):
        return True
    return ins.opname == "LOAD_ATTR" and (following is None or following.opname not in ("LOAD_ATTR", "LOAD_METHOD"))


def python_effect(fn: Callable[..., Any]) -> str | None:
    """A Python side effect in the generated body ``fn`` (and the code nested in it), if any:
    a container-mutating method, ``print``, an attribute store, ``global``/``del``."""

    def on_module(previous: dis.Instruction | None) -> bool:
        """Whether the method is loaded from a module global (``np.add(x, y, out)``, not ``s.add(v)``)."""
        return (previous is not None and previous.opname == "LOAD_GLOBAL" and isinstance(previous.argval, str)
                and isinstance(fn.__globals__.get(previous.argval), ModuleType))

    def scan(code: CodeType) -> str | None:
        previous: dis.Instruction | None = None
        instructions = list(dis.get_instructions(code))
        fresh = _fresh_containers(instructions)
        for ins, following in zip(instructions, instructions[1:] + [None]):
            name = ins.argval if isinstance(ins.argval, str) else None
            if (name in CONTAINER_METHODS and _loads_bound_method(ins, following) and not on_module(previous)
                    and not (previous is not None and previous.offset in fresh)):
                return f"`.{name}()`"
            previous = ins
            if ins.opname == "LOAD_GLOBAL" and name == "print":
                return "`print()`"
            if ins.opname in ("STORE_ATTR", "DELETE_ATTR", "STORE_GLOBAL", "DELETE_GLOBAL", "DELETE_SUBSCR"):
                return f"`{ins.opname.lower().replace('_', ' ')}`"
        for const in code.co_consts:
            if isinstance(const, CodeType):
                found = scan(const)
                if found is not None:
                    return found
        return None

    return scan(fn.__code__)


_LOADS = ("LOAD_FAST", "LOAD_DEREF")
_STORES = ("STORE_FAST", "STORE_DEREF")
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _fresh_containers(instructions: list[dis.Instruction]) -> set[int]:
    """The offsets of loads of a variable that holds a container this code built itself (``acc = []``
    then ``acc.append(x)``, as a loop body that collects values in a new list does): a method
    called on it changes no object from outside the body, so it is no Python side effect. The
    build must run on every path (no jump before it) and the variable not be rebound after it: a
    variable another function can rebind (a cell, as converted code's state is) only until the
    next call."""
    fresh: dict[str, str] = {}  # name -> its store's opname
    loads: set[int] = set()
    jumped = False
    for before, ins in zip([None, *instructions], instructions):
        if ins.opcode in _JUMPS:
            jumped = True
        if ins.opname.startswith(("CALL", "PRECALL")):
            fresh = {name: store for name, store in fresh.items() if store == "STORE_FAST"}
        if ins.opname in _STORES:
            built = before is not None and before.opname in ("BUILD_LIST", "BUILD_MAP", "BUILD_SET")
            if built and not jumped:
                fresh[ins.argval] = ins.opname
            else:
                fresh.pop(ins.argval, None)
        elif ins.opname in _LOADS and ins.argval in fresh:
            loads.add(ins.offset)
    return loads


def _own_lists(body: Callable[..., Any]) -> tuple[Any, ...]:
    """The lists a loop's ``body`` reaches through its variables that the traced function made (not
    an argument's, a global's or a closure's from outside the trace)."""
    reached = trace_context.require().notes.get(escapes.NOTES_KEY)
    if reached is None or not isinstance(body, types.FunctionType):
        return ()
    values = []
    for _, cell in effects.free_cells(body):
        try:
            values.append(cell.cell_contents)
        except ValueError:  # (a variable not bound yet)
            continue
    return tuple(v for v in values if type(v) is list and v not in reached)


def staged_python_range(
    iter_: range,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
    carry_lists: bool = False,
) -> bool:
    """Stage ``for i in range(...)`` over Python ints as a loop, when that keeps Python's meaning:
    more than :data:`UNROLL_AT_MOST` copies of the body (its iterations times those of the Python loops
    unrolled around it), a body without Python side effects, and a body
    that traces with ``i`` as a (weak) 0-d integer tensor. Whether it did; if not, the caller
    runs Python's loop (unrolled at trace time). ``carry_lists``: the short lists of numbers the body
    writes are carried by the loop, as by a loop over an array's rows (a loop over a list held as one
    array, whose length unrolling would make compile time grow with), rather than unrolled; so they
    are in a loop that unrolled would be copied more than :data:`UNROLL_WARN_AFTER` times (a
    histogram ``counts[int(x[i] * k)] += 1`` into ``counts = [0] * k`` over ``range(len(x))``)."""
    from kiln.frontend.range import StagedRange

    if trace_context.current() is None or _short(iter_) or python_effect(body) is not None:
        return False
    init = get_state()
    where = trace_context.user_location()
    python_range = _PYTHON_RANGE.set(not carry_lists)
    carry = _CARRY_LISTS.set(_long(len(iter_)))
    before = trace_context.require().block.last_op
    packed = list_arrays.pack_state(_own_lists(body))  # (lists of lists the body may write at `i`: arrays the loop carries)
    try:
        staged_for(StagedRange(iter_.start, iter_.stop, iter_.step, weak=True), extra_test, body,
                   get_state, set_state, symbol_names)
        _numbers_out_of_loop(before, get_state, set_state, symbol_names)
    except Exception as error:  # the body needs Python ints (lst[i], np.zeros(i), ...): unroll instead
        list_arrays.unpack(packed)  # (Python's loop runs on Python's lists)
        set_state(init)
        if isinstance(error, effects.PythonEffectError):
            return False  # a Python side effect found while tracing: unrolling is the rule
        if not _long(len(iter_)):
            return False  # a few copies of the body: said only past UNROLL_WARN_AFTER (issue 39)
        counts = trace_context.require().notes.setdefault(_UNROLL_COUNTS, {})
        if counts.get(statement_location(), 0) >= UNROLL_WARN_AFTER:
            return False  # said once per loop and trace (a recursive helper meets its loop at every level)
        counts[statement_location()] = UNROLL_WARN_AFTER  # (warned now)
        warnings.warn_explicit(
            f"{trace_context.describe_location(where)}: this `for` loop over a range of {len(iter_)} iterations is unrolled while tracing, "
            f"because tracing its body with a staged loop index failed ({_first_line(error)}); compile time grows "
            "with the trip count",
            KilnUnrollWarning,
            where.filename.data if isinstance(where, FileLineColLoc) else "<unknown>",
            where.line.data if isinstance(where, FileLineColLoc) else 0,
        )
        return False
    finally:
        _PYTHON_RANGE.reset(python_range)
        _CARRY_LISTS.reset(carry)
    return True


def staged_python_counted(
    positions: range,
    item: Item | None,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> bool:
    """Stage ``for v in iterable`` whose items are ``item(k)`` of their positions ``k`` (the position
    itself for None; kiln.frontend.autograph.counted_iterables) as a ``for`` over the Python range
    ``positions`` is staged (:func:`staged_python_range`): whether it did."""
    if python_effect(body) is not None:
        return False
    if item is None:
        return staged_python_range(positions, extra_test, body, get_state, set_state, symbol_names)

    def iteration(k: Any) -> None:
        body(item(k))

    held = isinstance(getattr(item, "__self__", None), list_arrays.ArrayRow)  # (ArrayRow.item_at: a held list's)
    return staged_python_range(positions, extra_test, functools.update_wrapper(iteration, body),
                               get_state, set_state, symbol_names, carry_lists=held)


@dataclass
class _Sequence:
    """How the items of a Python sequence a loop runs over are rebuilt from one staged index ``k``:
    each item has one structure (a leaf, or tuples of leaves: ``zip``, ``enumerate``), and each leaf
    position holds arrays of one shape and dtype (rows of their stack), Python ints in an arithmetic
    progression (``enumerate``'s counts), or one Python value."""

    structure: Any
    #: per leaf position: ("rows", leaves), ("ints", (start, step)) or ("same", value)
    columns: list[tuple[str, Any]]

    @staticmethod
    def of(items: Sequence[Any]) -> _Sequence | None:
        flat = [_flat_item(item) for item in items]
        structure = flat[0][0]
        if any(f[0] != structure for f in flat):
            return None
        columns: list[tuple[str, Any]] = []
        for leaves in zip(*(f[1] for f in flat)):
            first = leaves[0]
            if all(v is first for v in leaves):
                columns.append(("same", first))
            elif all(type(v) is int for v in leaves) and all(b - a == leaves[1] - first for a, b in zip(leaves, leaves[1:])):
                columns.append(("ints", (first, leaves[1] - first)))
            elif all(_weak_value(v) and not isinstance(v, (bool, Undefined)) for v in leaves) and len(
                {np.asarray(v).dtype if not isinstance(v, Tensor) else v.dtype for v in leaves}
            ) == 1 and all(not isinstance(v, Tensor) or v.ndim == 0 for v in leaves):
                columns.append(("numbers", leaves))  # Python numbers of one type (a list argument's too)
            elif all(isinstance(v, (Tensor, np.ndarray)) for v in leaves):
                types = {(np.dtype(v.dtype), v.shape, v.shape_source if isinstance(v, Tensor) else None) for v in leaves}
                if len(types) != 1 or None in first.shape or any(isinstance(v, Tensor) and v.immutable for v in leaves):
                    return None
                columns.append(("rows", leaves))
            else:
                return None
        return _Sequence(structure, columns)

    def stacks(self) -> list[Any]:
        """The stack of each column of arrays (a new array: the loop reads rows of it)."""
        return [np.stack([as_tensor(v) for v in leaves]) if kind in ("rows", "numbers") else None
                for kind, leaves in self.columns]

    def item(self, stacks: list[Any], k: Tensor) -> Any:
        leaves = []
        for (kind, column), stack in zip(self.columns, stacks):
            if kind == "rows":
                leaves.append(stack[k])
            elif kind == "numbers":  # a Python number again: weak, immutable
                number = Tensor(stack[k].value)
                number.aval = number.aval.but(weak=True, scalar=True)
                leaves.append(number)
            elif kind == "tensor":  # a view of the live array's row, as NumPy iterates
                array, offset = column
                leaves.append(array[k + offset] if offset else array[k])
            elif kind == "ints":
                start, step = column
                leaves.append(k * step + start if (start, step) != (0, 1) else k)
            else:
                leaves.append(column)
        return _unflat_item(self.structure, iter(leaves))


def _flat_item(item: Any) -> tuple[Any, list[Any]]:
    """An item's structure (tuples nested as in ``enumerate(zip(a, b))``) and its leaves."""
    if type(item) is tuple:
        parts = [_flat_item(v) for v in item]
        return tuple(p[0] for p in parts), [leaf for p in parts for leaf in p[1]]
    return None, [item]


def _unflat_item(structure: Any, leaves: Iterator[Any]) -> Any:
    if structure is None:
        return next(leaves)
    return tuple(_unflat_item(s, leaves) for s in structure)


def sequence_items(iterable: Any, held_rows: bool = False) -> list[Any] | None:
    """The items a ``for`` over ``iterable`` would get, read without using it up, where that is
    sure to be what the loop sees: a list or tuple (a list argument is a list subclass), or a
    ``zip`` or ``enumerate`` of lists and tuples (nested). None for anything else: an array's rows
    or a generator are read as the loop gets to them, after the body's writes. ``held_rows``: the
    loop writes no list (a comprehension's), so that a list held as one array in a ``zip`` or
    ``enumerate`` is read now too."""
    if isinstance(iterable, (list, tuple)):
        return list(iterable)
    if type(iterable) is enumerate:
        inner, start = iterable.__reduce__()[1]
        items = _iterator_items(inner, held_rows)
        return None if items is None else [(start + k, v) for k, v in enumerate(items)]
    if type(iterable) is zip:
        columns = [_iterator_items(it, held_rows) for it in iterable.__reduce__()[1]]
        return None if any(c is None for c in columns) else list(zip(*columns))  # type: ignore[arg-type]
    return None


def _iterator_items(iterator: Any, held_rows: bool) -> list[Any] | None:
    """What is left of a list's or tuple's iterator (or of a nested zip or enumerate), unread."""
    if type(iterator) in (zip, enumerate):
        return sequence_items(iterator, held_rows)
    if held_rows and type(iterator) is list_arrays.RowIterator:
        return iterator.rest()
    if type(iterator).__name__ not in ("list_iterator", "tuple_iterator"):
        return None
    reduced = iterator.__reduce__()
    sequence = reduced[1][0]
    index = reduced[2] if len(reduced) > 2 else 0
    return list(sequence[index:])


def _python_loop_stageable(body: Callable[..., Any]) -> bool:
    """Whether a loop on Python values may be tried staged: while tracing, outside a ``try`` (whose
    ``except`` could not catch compiled code's errors), over a body without Python side effects or
    constructs that cannot be staged."""
    from kiln.frontend.autograph.converters.unsupported import try_in_trace

    return (trace_context.current() is not None and python_effect(body) is None and not unstageable(body)
            and try_in_trace() is None)


def _first_line(error: Exception) -> str:
    """``error`` in one line, for a note on why a loop was not staged."""
    text = str(error)
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"


def staged_python_sequence(
    items: Sequence[Any],
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> bool:
    """Stage ``for item in items`` over a Python list or tuple of arrays of one shape (or a ``zip``
    or ``enumerate`` of such sequences) as a loop over the rows of their stack, when that keeps
    Python's meaning: as a ``for`` over a Python ``range`` is staged (:func:`staged_python_range`),
    and only if the body writes to none of the arrays (in Python it would write the list's own
    array; a row of the stack is a copy). Whether it did; if not, nothing is left of the try."""
    if len(items) < 2 or _unrolled_copies.get() * len(items) <= UNROLL_AT_MOST or not _python_loop_stageable(body):
        return False
    plan = _Sequence.of(items)
    if plan is None or not any(kind in ("rows", "numbers") for kind, _ in plan.columns):
        return False
    return _staged_sequence(plan, len(items), extra_test, body, get_state, set_state, symbol_names)


def stacked_items(iterable: Any) -> StackedItems | None:
    """The items of ``iterable``, a Python list or tuple (or a ``zip``/``enumerate`` of such) holding
    a traced value, as a comprehension's loop runs over them: with the plan that stages the loop
    where every item is made of traced Python numbers of one type (a short list argument's), of
    counts and of values the same in every item; None for another iterable or one of Python values."""
    if list_arrays.held(iterable):  # (one array already: a `for` stages over it, reading one element a step)
        return None
    items = sequence_items(iterable, held_rows=True) if trace_context.current() is not None else None
    if not items or not any(isinstance(leaf, Tensor) for item in items for leaf in _flat_item(item)[1]):
        return None
    plan = _Sequence.of(items)
    if plan is not None and not all(kind in ("ints", "same") or kind == "numbers" and all(map(_python_number, leaves))
                                    for kind, leaves in plan.columns):
        plan = None
    if plan is not None and not any(_python_number(leaf) for kind, leaves in plan.columns if kind != "ints"
                                    for leaf in (leaves if kind == "numbers" else [leaves])):
        plan = None  # (no traced number: a list of arrays or other values runs as Python's)
    return StackedItems(items, plan)


def _python_number(value: Any) -> bool:
    """Whether ``value`` is a Python number, traced (of one type on every path) or not."""
    if isinstance(value, Tensor):
        return value.ndim == 0 and value.weak and value.kind_flag is None and value.path_promotions is None
    return type(value) in (bool, int, float, complex)


def staged_items(iter_: StackedItems, *loop: Any) -> bool:
    """Stage a comprehension's ``for`` over :class:`StackedItems` as a loop over the stack of its
    numbers, whatever its length (a filter on them has no other way to stage), when that keeps
    Python's meaning (as :func:`staged_python_sequence`). ``loop``: the ``for``'s extra_test, body,
    get_state, set_state and symbol_names (:func:`staged_for`'s). Whether it did; if not, nothing is
    left of the try."""
    if iter_.plan is None:
        _unroll_note(statement_location(), "its items are not traced Python numbers of one type, which kiln stacks")
        return False
    if not _python_loop_stageable(loop[1]):
        return False
    return _staged_sequence(iter_.plan, len(iter_.items), *loop)


def unroll_reason(where: str) -> str | None:
    """Why the loop on Python values at ``where`` was not staged, where a try said so."""
    ctx = trace_context.current()
    return None if ctx is None else ctx.notes.get(_UNROLL_REASONS, {}).get(where)


def rows_plan(iterable: Any) -> tuple[_Sequence, int] | None:
    """How ``enumerate`` and ``zip`` (nested) of the rows of tensors whose leading size is known
    while tracing (tensor.Rows) make each item from a staged index, and how many items are left;
    None for anything else (a ``zip`` of iterators of different lengths too)."""
    found = _rows_columns(iterable)
    if found is None or found[2] is None or not any(kind == "tensor" for kind, _ in found[1]):
        return None
    return _Sequence(found[0], found[1]), found[2]


def _rows_columns(iterable: Any) -> tuple[Any, list[tuple[str, Any]], int | None] | None:
    """(structure, columns, count) of :func:`rows_plan`; an ``enumerate``'s count has no length (None)."""
    if type(iterable) is Rows:
        return None, [("tensor", (iterable.array, iterable.position))], iterable.count - iterable.position
    if type(iterable) is enumerate:
        inner, start = iterable.__reduce__()[1]
        found = _rows_columns(inner)
        return None if found is None else ((None, found[0]), [("ints", (start, 1)), *found[1]], found[2])
    if type(iterable) is zip:
        parts = [_rows_columns(inner) for inner in iterable.__reduce__()[1]]
        if not parts or any(part is None for part in parts) or len({part[2] for part in parts}) != 1:  # type: ignore[index]
            return None
        return tuple(part[0] for part in parts), [c for part in parts for c in part[1]], parts[0][2]  # type: ignore[index]
    return None


def staged_rows(
    iterable: Any,
    plan: _Sequence,
    count: int,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> bool:
    """Stage ``for i, row in enumerate(a)`` (or a ``zip`` of rows) as a loop over the rows, as
    ``for row in a`` is, when that keeps Python's meaning (as :func:`staged_python_sequence`):
    items are views of the live rows and ``enumerate``'s counts Python ints. Whether it did; if
    it did, the iterators are used up, as after Python's loop."""
    if _unrolled_copies.get() * count <= UNROLL_AT_MOST or not _python_loop_stageable(body):
        return False
    if not _staged_sequence(plan, count, extra_test, body, get_state, set_state, symbol_names):
        return False
    _used_up(iterable)
    return True


def _used_up(iterable: Any) -> None:
    """Use up ``enumerate``/``zip`` of :class:`Rows` without reading a row (each read traces an op)."""
    stack = [iterable]
    while stack:
        it = stack.pop()
        if type(it) is Rows:
            it.position = it.count
        elif type(it) is enumerate:
            stack.append(it.__reduce__()[1][0])
        elif type(it) is zip:
            stack.extend(it.__reduce__()[1])
    for _ in iterable:  # (nothing is left to read)
        pass


def _staged_sequence(
    plan: _Sequence,
    count: int,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> bool:
    """The loop of :func:`staged_python_sequence` and :func:`staged_rows`: ``count`` items made by
    ``plan`` from a staged index; nothing is left of a try that failed."""
    from kiln.frontend.range import StagedRange

    where = statement_location()
    init = get_state()
    block = trace_context.require().block
    before = block.last_op
    elements = {v.storage for kind, leaves in plan.columns if kind in ("rows", "numbers") for v in leaves if isinstance(v, Tensor)}
    python_range = _PYTHON_RANGE.set(True)
    carry = _CARRY_LISTS.set(_long(count))
    with mutation.region() as scope:
        try:
            stacks = plan.stacks()
            versions = [stack.storage.version for stack in stacks if stack is not None]
            def iteration(k: Tensor) -> None:
                body(plan.item(stacks, k))

            staged_for(StagedRange(0, count, 1, weak=True), extra_test, functools.update_wrapper(iteration, body),
                       get_state, set_state, symbol_names)
            wrote = [stack.storage.version for stack in stacks if stack is not None] != versions
            if wrote or any(storage in scope.saved for storage in elements):
                raise _NotStaged  # the body writes an element: Python's loop writes the list's own arrays
            _numbers_out_of_loop(before, get_state, set_state, symbol_names)
        except Exception as error:
            scope.restore()
            set_state(init)
            while block.last_op is not before:  # nothing of the try stays in the trace
                op = block.last_op
                assert op is not None
                op.detach()
                op.drop_all_references()
            if not isinstance(error, (_NotStaged, effects.PythonEffectError)):
                _unroll_note(where, f"tracing its body over rows of the arrays' stack failed ({_first_line(error)})")
            return False
        finally:
            _PYTHON_RANGE.reset(python_range)
            _CARRY_LISTS.reset(carry)
    return True


#: a Python ``while`` (or ``for`` over a Python iterable) that runs more iterations than this while
#: tracing, each adding ops to the trace, is reported once (compile time grows with its trip count)
UNROLL_WARN_AFTER = 64


class _NotStaged(Exception):
    """The test of a ``while`` on Python values stayed a Python value with its numbers as tensors."""


def staged_python_while(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> bool:
    """Stage the rest of ``while test(): body()`` whose test is a Python value, carrying the Python
    numbers it changes as weak 0-d tensors (as a staged ``for`` over a Python ``range`` carries its
    index), when that keeps Python's meaning: a body without Python side effects or constructs that
    cannot be staged, outside a ``try``, whose test becomes a tensor once its numbers are. Whether it
    did; if not, the caller goes on with Python's loop (unrolled at trace time)."""
    if not _python_loop_stageable(body):
        return False
    where = statement_location()
    init = get_state()

    def tensor_test(_: Counters) -> Any:
        cond = test()
        if not is_tensor(cond):  # (a number that stays Python's makes the next probe type it)
            raise _NotStaged
        return cond

    def run(counters: Counters) -> Counters:
        body()
        return counters

    watch = effects.Watch(where, "while", (test, body))
    before = trace_context.require().block.last_op
    # as a Python range loop: a static size the body changes makes it Python's loop (so that every
    # size stays static), and it carries the lists of numbers the body writes
    python_range, carry = _PYTHON_RANGE.set(True), _CARRY_LISTS.set(True)
    try:
        _staged_loop(where, "while", get_state, set_state, symbol_names, tensor_test, run, [], None, watch,
                     carry_lists=True)
        _numbers_out_of_loop(before, get_state, set_state, symbol_names)
    except Exception as error:  # the test needs Python values, or the body Python ints: Python's loop goes on
        set_state(init)
        if not isinstance(error, (_NotStaged, effects.PythonEffectError)):
            _unroll_note(where, f"tracing its body with its numbers staged failed ({_first_line(error)})")
        return False
    finally:
        _PYTHON_RANGE.reset(python_range)
        _CARRY_LISTS.reset(carry)
    return True


def _numbers_out_of_loop(before: Operation | None, get_state: GetState, set_state: SetState, symbol_names: Sequence[str]) -> None:
    """After a loop on Python values staged after ``before``: the Python numbers it carries that only
    numbers known while tracing decide are Python numbers again (kiln.frontend.autograph.loop_numbers),
    so code after the loop can use them as Python's (``x[:n]``, ``np.zeros(n)``, ``lst[n]``)."""
    op = _last_while(before)
    if op is None:
        return
    folded = loop_numbers.fold_numbers(op)
    if not folded:
        return
    position = {result: k for k, result in enumerate(op.results)}
    leaves, names, trees = flatten_state(get_state(), symbol_names)

    kept: set[int] = set()  # the loop's results still used as tensors

    def python(leaf: Any, name: str) -> Any:
        """A jump flag is a Python bool in the source (``do_return = True``), as a weak number is a
        Python number: decided by numbers known while tracing, it is one again."""
        k = position.get(leaf.value) if isinstance(leaf, Tensor) else None
        if k is None:
            return leaf
        if k in folded and (leaf.weak or is_jump_flag(name)) and not leaf.is_view:
            return folded[k]
        kept.add(k)
        return leaf

    set_state(unflatten_state(trees, [python(leaf, name) for leaf, name in zip(leaves, names)]))
    for items in trace_context.require().notes.get(_LISTS_CARRIED, {}).get(op, ()):  # type: ignore[attr-defined]
        items[:] = [python(item, "") for item in items]  # (a carried list's items: Python numbers, or kept)
    if not kept and len(folded) == len(op.results) and not any(r.uses for r in op.results) and loop_numbers.effect_free(op):
        op.detach()  # every number it carries is Python's again: nothing is left for it to compute
        op.erase()


#: trace notes: each ``graph.while`` that carries Python lists -> those lists (see LoopLists)
_LISTS_CARRIED = "kiln.staging.lists_carried"


def _note_lists_carried(lists: list[list[Any]]) -> None:
    """The loop just staged (the block's last ``graph.while``) carries ``lists``: their items are its
    results as its variables' are (:func:`_numbers_out_of_loop` makes them Python numbers too)."""
    op = _last_while(None)
    if op is not None:
        trace_context.require().notes.setdefault(_LISTS_CARRIED, {})[op] = lists


def _last_while(before: Operation | None) -> graph.WhileOp | None:
    """The last ``graph.while`` of the block being traced, if one comes after ``before``."""
    op = trace_context.require().block.last_op
    while op is not None and op is not before and not isinstance(op, graph.WhileOp):
        op = op.prev_op
    return op if isinstance(op, graph.WhileOp) else None


def _unroll_note(where: str, why: str) -> None:
    """Why a loop on Python values that :func:`unrolled_iteration` may report could not be staged."""
    trace_context.require().notes.setdefault(_UNROLL_REASONS, {})[where] = why


#: trace notes: why a loop on Python values was not staged, by location; the loops already reported
_UNROLL_REASONS, _UNROLL_COUNTS = "kiln.staging.unroll_reasons", "kiln.staging.unroll_counts"


def unrolled_iteration(construct: str) -> None:
    """Count an iteration of a Python loop that added ops to the trace, for the loop statement
    over the whole trace (each time an outer loop runs it too), and warn, once per loop and
    trace, at the :data:`UNROLL_WARN_AFTER`-th: a loop of 30 iterations inside one of 10 is 300
    copies of its body."""
    ctx = trace_context.current()
    if ctx is None:
        return
    where = statement_location()
    counts = ctx.notes.setdefault(_UNROLL_COUNTS, {})
    counts[where] = counts.get(where, 0) + 1
    if counts[where] != UNROLL_WARN_AFTER:
        return
    why = ctx.notes.get(_UNROLL_REASONS, {}).get(where, "its body has Python side effects or needs Python values")
    loc = trace_context.user_location()
    warnings.warn_explicit(
        f"{where}: this `{construct}` loop on Python values has run {UNROLL_WARN_AFTER} iterations unrolled while "
        f"tracing (counting each run of the loops around it) and is not staged as a loop, because {why}; compile time grows with its trip count",
        KilnUnrollWarning,
        loc.filename.data if isinstance(loc, FileLineColLoc) else "<unknown>",
        loc.line.data if isinstance(loc, FileLineColLoc) else 0,
    )


#: set while the loop rule stages a ``for`` over a Python ``range`` (read by the loop it stages): a
#: static size its body changes makes it unroll, so that every size stays static, as before staging
_PYTHON_RANGE: ContextVar[bool] = ContextVar("kiln_python_range", default=False)
#: set with it where the loop is long (:func:`_long`): it carries the lists of numbers its body writes
#: (kiln.frontend.autograph.loop_lists), sizes staying static
_CARRY_LISTS: ContextVar[bool] = ContextVar("kiln_carry_lists", default=False)


class KilnUnrollWarning(UserWarning):
    """A Python ``for`` loop that kiln's loop rule would stage ran unrolled while tracing."""


def _guarded_python_loop(
    items: Iterable[Any],
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """The rest of a Python loop once its ``break``/``return`` flag is a tensor: each iteration, unrolled,
    runs under a staged ``if`` on the flag."""
    for item in items:
        more = extra_test() if extra_test is not None else True
        if not is_tensor(more):
            if not more:
                return
            body(item)
            continue
        staged_if(more, _iteration(body, item), None, get_state, set_state, symbol_names)


def _iteration(body: Callable[[Any], None], item: Any) -> Callable[[], None]:
    """``body(item)`` as the body of a staged ``if``, wrapping ``body`` (``__wrapped__``) so that the
    staging checks see the generated body itself: its ``nonlocal`` variables (AutoGraph's jump flags
    among them) are the construct's own, not a Python side effect of the ``if``."""

    def iteration() -> None:
        body(item)

    return functools.update_wrapper(iteration, body)


def staged_range(*args: Any) -> Any:
    """``range(*args)`` where an argument is a tensor: the iterable a staged ``for`` loops over.
    Python's ``range`` yields Python ints whatever its bounds are (``range(np.int64(5))`` too), so
    the index promotes as a Python int (``kiln.range``'s is a tensor)."""
    from kiln.frontend.range import StagedRange

    return StagedRange(*args, weak=True)


def unstageable(fn: Callable[..., Any]) -> list[Unsupported]:
    """Constructs inside the generated body ``fn`` that cannot be staged, in source order."""
    code = inspect.unwrap(fn).__code__
    lines = list(effects.code_lines(code))
    first, last = min(lines), max(lines)
    return sorted(
        (u for u in unsupported_in(code.co_filename) if first <= u.lineno <= last), key=lambda u: u.lineno
    )

