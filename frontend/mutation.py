"""Mutable arrays while tracing: storages, views and writes, made functional.

NumPy arrays are mutable and have views; the ``graph`` dialect has values.
The frontend bridges the two the way PyTorch's functionalization does:

- Every array memory is a :class:`Storage` holding the SSA value of its current
  contents. A base :class:`~kiln.frontend.tensor.Tensor` reads its storage's value;
  a view (a basic slice, ``.T``, a reshape) has its storage and the chain of
  :class:`ViewStep` s that derive it from the base in its abstract value
  (kiln.frontend.abstract_value), and replays them when the base changed since it
  last looked (storage versions are global and never reused).
- A write ``x[idx] = v`` computes the new value of ``x`` (``graph.insert_slice``,
  ``graph.select``), then walks the view chain back to the base with each step's
  inverse and sets the storage's new value. Every other view of that storage sees
  the new value at its next use.
- Staged regions (loop bodies, branches) run inside a :class:`Scope` that records
  which storages from outside the region they write and their values at entry; the
  staging hooks carry exactly those through ``graph.while`` / ``graph.cond``.
- A storage of a function argument that was written is written back to the
  caller's array at the end of the function (see :mod:`kiln.frontend.tracer`).
- An array a staged construct merged may be an array from before it on some
  paths only (:class:`MaybeAlias`). Where the construct also gives a 0-d flag that
  is true on exactly those paths, a write to either array is made on the other
  where the flag is true (a ``graph.cond`` on the flag), so both always hold what
  NumPy's shared memory would; a written function argument is then written back
  as any other. Without a flag, the reads and writes whose NumPy answer would
  depend on the path are refused, at the op that makes them.

Bufferization (``kiln-bufferize``) then makes each write an in-place store again.
"""

from __future__ import annotations

import itertools
import sys
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeAlias

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i64
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects import graph
from kiln.frontend import trace_context

if TYPE_CHECKING:
    from kiln.frontend.tensor import Tensor

#: one counter for storage serials, versions and scope serials: a later number is always newer
_counter = itertools.count(1)

_SCOPES = "kiln.mutation.scopes"


class Storage:
    """One array's memory while tracing: the SSA value of its contents now."""

    __slots__ = ("_value", "version", "serial", "argument", "layout", "layout_rule", "_alias", "stale", "dependents",
                 "memory", "_guards", "__weakref__")

    def __init__(self, value: SSAValue, argument: int | None = None) -> None:
        self._value = value
        self.version = self.serial = next(_counter)
        #: the index of the function argument whose memory this is (written back at the end)
        self.argument = argument
        #: a function argument that is not C-contiguous: its strides in elements (None: C-contiguous)
        self.layout: tuple[int, ...] | None = None
        #: for a new array NumPy lays out like its operands (``order='K'``: ``x.T + 1``, ``x.T.astype()``
        #: are Fortran-ordered): its strides in elements, computed when first asked (None: C-contiguous)
        self.layout_rule: Callable[[], tuple[int, ...] | None] | None = None
        self._alias: MaybeAlias | None = None
        #: where this array was perhaps written, through a MaybeAlias: reading it is refused
        self.stale: str | None = None
        #: the traced name of its memory (see _memory_value), for the MaybeAlias it was traced for
        self.memory: tuple[weakref.ref[MaybeAlias], SSAValue] | None = None
        #: the merged arrays that are this one on some paths (a write here is made there where a flag says so)
        self.dependents: weakref.WeakSet[Storage] | None = None
        #: the guard sets that check reads of it (see _guard), told when its contents change
        self._guards: tuple[_Guards, ...] = ()

    @property
    def value(self) -> SSAValue:
        """The SSA value of its contents now."""
        return self._value

    @value.setter
    def value(self, value: SSAValue) -> None:
        self._changed()
        for guards in self._guards:
            guards.moved(self, self._value, value)
        self._value = value

    @property
    def alias(self) -> MaybeAlias | None:
        """For the array a staged construct merged: the arrays it is on some paths only (see MaybeAlias)."""
        return self._alias

    @alias.setter
    def alias(self, alias: MaybeAlias | None) -> None:
        self._changed()
        self._alias = alias

    def _changed(self) -> None:
        """Its contents, or the arrays it may be, change: for an outer of a merged array, the answers
        MaybeAlias.check_read keeps no longer hold."""
        global _contents_changes
        if self.dependents:
            _contents_changes += 1

    def base_layout(self) -> tuple[int, ...] | None:
        """The base's element strides (None: C-contiguous), :attr:`layout_rule` applied once; under
        :func:`peeking`, worked out without counting as asked (the rule stays, holding only the
        answer and the arguments whose layout it depends on)."""
        rule = self.layout_rule
        if rule is None:
            return self.layout
        if not _peeks:
            self.layout_rule, self.layout = None, rule()
            return self.layout
        with peeking() as asked:
            layout = rule()  # (a rule that raises stays, to raise again where the layout is asked)
        self.layout_rule = known_layout(layout, asked)
        _peeks[-1].update(asked)
        return layout


#: the trace note of the function arguments whose memory layout the trace depends on
LAYOUT_ARGUMENTS = "kiln.tensor.layout_arguments"
#: while peeking, per level: the arguments whose layout was asked (see :func:`peeking`)
_peeks: list[set[int]] = []


@contextmanager
def peeking() -> Iterator[set[int]]:
    """Work layouts out without asking for them: a staged loop tells by :attr:`Storage.layout_rule`
    whether its body asked for a carried array's layout (a reshape, a ravel), and the trace
    depends on an argument's layout only where one is asked. Yields the arguments whose layout
    the work read, for the rule that keeps the answer (:func:`known_layout`)."""
    asked: set[int] = set()
    _peeks.append(asked)
    try:
        yield asked
    finally:
        _peeks.pop()


def note_layout_arguments(arguments: Iterable[int]) -> None:
    """The trace depends on these arguments' memory layouts (noted for its signature), unless this
    is only :func:`peeking`: then they wait for the layout to be asked."""
    if _peeks:
        _peeks[-1].update(arguments)
    elif arguments:
        trace_context.require().notes.setdefault(LAYOUT_ARGUMENTS, set()).update(arguments)  # type: ignore[attr-defined]


def known_layout(layout: tuple[int, ...] | None, arguments: Iterable[int]) -> Callable[[], tuple[int, ...] | None]:
    """A layout rule with its answer already worked out, noting when asked the arguments it read."""
    read = tuple(arguments)

    def rule() -> tuple[int, ...] | None:
        note_layout_arguments(read)
        return layout

    return rule


def serial_now() -> int:
    """A serial newer than every storage made so far (a storage with a smaller one existed before)."""
    return next(_counter)


#: how many times the contents of an array some merged array may be (an outer of a MaybeAlias: one
#: with dependents, as every outer is adopted), or the arrays it may be in turn, changed while
#: tracing: a read a MaybeAlias refuses is one made after such a change, so its check's answer
#: holds until the next
_contents_changes = 0


@dataclass(eq=False)
class MaybeAlias:
    """An array a staged ``if`` or loop merged, which on some paths *is* an array from before it
    (``y = x`` in one branch, ``y = x * 2`` in the other; a loop rebinding ``y = x`` that may run
    zero times). Its value is right, but NumPy's sharing is path-dependent: a later write to
    ``x`` shows through ``y`` on those paths only, and a write through ``y`` changes ``x`` on those
    paths only.

    Where the construct gave a flag for an outer (a 0-d bool, true on the paths where this array
    is that outer), writes are made on both where the flag is true (see :func:`write`): NumPy's
    answer on every path. Without one (a view of it on some path, a type the merge changed), kiln
    refuses a read of the merged array after ``x`` changed, a write through it to a function
    argument, and a read of ``x`` after a write through it. Copying (``y = x.copy()``) makes the
    meaning path-independent."""

    outers: tuple[Storage, ...]
    #: the outers' contents right after the construct
    values: tuple[SSAValue, ...]
    #: the construct, for messages ("file:line", "`if`")
    where: str
    construct: str
    #: per outer: the 0-d ``i1`` value true on the paths where this array is that outer, or None
    flags: tuple[SSAValue | None, ...] = ()
    #: the variable, when this array was merged for the variable that carries a function's return
    #: value (``retval_``): on the paths where it is an outer the function has returned, so nothing
    #: writes that outer before the function ends (see settle_returned)
    returned: str | None = None
    #: the count of contents changes when its check (its outers' included) last passed; -1: not yet
    _checked_at: int = field(default=-1, init=False, repr=False)

    def flag(self, outer: Storage) -> SSAValue | None:
        for o, flag in zip(self.outers, self.flags):
            if o is outer:
                return flag
        return None

    def _unflagged(self) -> list[tuple[Storage, SSAValue]]:
        flags = self.flags or (None,) * len(self.outers)
        return [(o, v) for o, v, f in zip(self.outers, self.values, flags) if f is None]

    def check_read(self) -> None:
        """Refuse a read when an outer this array is on some paths, unflagged, was written since;
        through an outer too, when that one is itself such an array: flagged (a loop-carried view of
        an argument, merged again by an ``if`` in the body: kiln.fuzz 1170-5712) or not (``y = x[0]``
        on one path, then ``z = y[:]`` on one path of a later ``if``: a write to ``x`` shows in
        ``z`` on some paths, though ``y`` itself was not written).

        The outers' own MaybeAliases first, each once, then this one's (a chain as long as the
        function's staged ``if``s that rebind an array on one path: walked without recursion, and
        not again until an array's contents change)."""
        if self._checked_at == _contents_changes:
            return
        seen, order, stack = {id(self)}, [], [(self, iter(self.outers))]
        while stack:
            alias, outers = stack[-1]
            outer = next(outers, None)
            if outer is None:
                stack.pop()
                order.append(alias)
            elif outer.alias is not None and id(outer.alias) not in seen and outer.alias._checked_at != _contents_changes:
                seen.add(id(outer.alias))
                stack.append((outer.alias, iter(outer.alias.outers)))
        for alias in order:
            if alias._checked_at != _contents_changes:
                alias._check_own()
                alias._checked_at = _contents_changes

    def _check_own(self) -> None:
        if any(outer.value is not value for outer, value in self._unflagged()):
            raise NotImplementedError(
                f"{trace_context.here()}: this reads an array that is, on some paths of the staged {self.construct} at "
                f"{self.where}, the same array as one from before it, which was written since (NumPy would show "
                "that write here on those paths only). Copy it where it is bound (`y = x.copy()`)"
            )

    def check_write(self, storage: Storage) -> None:
        """Before a write to ``storage`` (the merged array)."""
        self.check_read()
        # the arrays a write here may reach without a flag: the unflagged outers, and all they share with
        unflagged = sharing([outer for outer, _ in self._unflagged()], storage)
        if any(outer.argument is not None for outer in unflagged):
            raise NotImplementedError(
                f"{trace_context.here()}: this writes to an array that is a function argument (or a view of one) on some "
                f"paths of the staged {self.construct} at {self.where} and another array (or another view) on others, "
                "so which of the caller's elements change depends on the path. Copy it where it is bound "
                "(`y = x.copy()`), or write to the argument by its own name (`x[k] = v` with a `k` the paths choose)"
            )
        for outer in unflagged:
            mark_stale(outer, f"{trace_context.here()} (through a variable that is this array on some paths of the staged "
                              f"{self.construct} at {self.where})")


def shares(storage: Storage) -> bool:
    """Whether some other array may be ``storage`` on some path: ``sharing([storage], storage)``
    is not empty, answered from its own outers and dependents (not the whole set: a loop asks for
    each array it carries, and the set is as large as the chain of merges before it)."""
    outers = storage.alias.outers if storage.alias is not None else ()
    return any(o is not storage for o in outers) or any(
        d is not storage and d.alias is not None for d in list(storage.dependents or ()))


def sharing(storages: list[Storage], writer: Storage) -> list[Storage]:
    """``storages`` and every array that may be one of them on some path (through MaybeAliases
    either way, flagged or not), but for the ones reached through ``writer``; oldest first."""
    found: dict[Storage, None] = {writer: None, **{storage: None for storage in storages}}
    todo = list(storages)
    while todo:
        storage = todo.pop()
        others = list(storage.alias.outers) if storage.alias is not None else []
        others += [d for d in list(storage.dependents or ()) if d.alias is not None]
        for other in others:
            if other not in found:
                found[other] = None
                todo.append(other)
    return sorted((s for s in found if s is not writer), key=lambda storage: storage.serial)


def stale_now() -> frozenset[Storage]:
    """The storages refused for reading now (a staged construct passes their staleness on)."""
    ctx = trace_context.current()
    guards = ctx.notes.get(_GUARDS) if ctx is not None else None
    return frozenset(s for s in guards if s.stale is not None) if guards else frozenset()  # type: ignore[attr-defined]


def mark_stale(storage: Storage, where: str) -> None:
    """``storage`` may have been written at ``where`` through a MaybeAlias: refuse reading it
    (from now on in this region; after it, once the construct applies the region's marks). Its
    version moves on, so a view of it shown before replays from its value when next read, and
    that read is refused too (kiln.fuzz 20660-7225: ``v = x[:]``, ``if c: x = v``, ``x[:] = 1``,
    then ``v`` kept the contents from before the write, silently)."""
    for scope in _scopes():
        if scope.is_outer(storage) and storage not in scope.marked:
            scope.marked[storage] = (where, storage.stale)
    storage.stale = where
    storage.version = next(_counter)
    _guard(storage)


def mark_alias(
    storage: Storage, outers: tuple[Storage, ...], where: str, construct: str,
    flags: tuple[SSAValue | None, ...] = (), returned: str | None = None,
) -> None:
    """``storage`` (an array a staged construct merged) is each of ``outers`` on some paths (see
    MaybeAlias); ``flags``, when given, says on which (None for an outer it cannot say);
    ``returned``: the variable, when it may be a function's return value (MaybeAlias.returned)."""
    flags = flags or (None,) * len(outers)
    old = storage.alias
    if old is not None and old.where == where:  # one construct, two relations (outers, another result): both kept
        keep = [k for k, o in enumerate(outers) if o not in old.outers]
        storage.alias = MaybeAlias(
            (*old.outers, *(outers[k] for k in keep)), (*old.values, *(outers[k].value for k in keep)), where,
            construct, (*(old.flags or (None,) * len(old.outers)), *(flags[k] for k in keep)), old.returned if old.returned == returned else None,
        )
    else:
        storage.alias = MaybeAlias(outers, tuple(o.value for o in outers), where, construct, flags, returned)
    _adopt(storage, outers)
    _guard(storage)


def settle_returned(storage: Storage, variable: str) -> None:
    """At the end of a function, for its return value: what it is on the paths that returned early
    was not written on them since (nothing runs after a ``return``), so the outers' contents now are
    those it saw, and a write on another path before the end is no stale read (``if c: return
    x[:, 0]`` then ``x[0] += 1``). Taking them again keeps a write after the call refused.
    ``variable``: the converter's name for the return value: only what was merged for it is
    settled (a user's variable named ``retval_`` is not)."""
    alias = storage.alias
    if alias is None or alias.returned != variable:
        return
    storage.alias = replace(alias, values=tuple(o.value for o in alias.outers))
    for outer in alias.outers:
        settle_returned(outer, variable)


_GUARDS = "kiln.mutation.guards"
#: ops that pass values along without reading them
_CARRIERS = (graph.YieldOp, graph.ConditionOp, graph.WhileOp, graph.CondOp)


class _Guards:
    """The arrays whose reads a trace checks (while they live), found by the SSA value of their
    contents: every op traced asks for its operands, and going through all of them per operand was
    quadratic in a function of many staged constructs (each merges or writes arrays it guards)."""

    __slots__ = ("storages", "_by_value")

    def __init__(self) -> None:
        self.storages: weakref.WeakSet[Storage] = weakref.WeakSet()
        #: contents -> the guarded arrays holding them now (weak: an array no one holds is not checked)
        self._by_value: dict[SSAValue, list[weakref.ref[Storage]]] = {}

    def __iter__(self) -> Iterator[Storage]:
        return iter(self.storages)

    def __len__(self) -> int:
        return len(self.storages)

    def add(self, storage: Storage) -> None:
        if storage not in self.storages:
            self.storages.add(storage)
            storage._guards += (self,)  # noqa: SLF001
            self._by_value.setdefault(storage.value, []).append(weakref.ref(storage))

    def moved(self, storage: Storage, old: SSAValue, new: SSAValue) -> None:
        """``storage``'s contents are now ``new`` (were ``old``)."""
        refs = self._by_value.get(old)
        if refs is not None:
            refs[:] = [r for r in refs if (held := r()) is not None and held is not storage]
            if not refs:
                del self._by_value[old]
        self._by_value.setdefault(new, []).append(weakref.ref(storage))

    def holding(self, value: SSAValue) -> list[Storage]:
        """The guarded arrays (still alive) whose contents are ``value``, oldest guarded first."""
        return [s for r in self._by_value.get(value, ()) if (s := r()) is not None]


def _guard(storage: Storage) -> None:
    """Check every op traced from now on that reads ``storage``'s contents (while it lives)."""
    ctx = trace_context.require()
    guards: _Guards | None = ctx.notes.get(_GUARDS)  # type: ignore[assignment]
    if guards is None:
        guards = ctx.notes[_GUARDS] = _Guards()
        ctx.operand_checks.append(lambda op, operand: _check_operand(ctx, guards, op, operand))  # type: ignore[arg-type]
    guards.add(storage)


_BY_VALUE = "kiln.mutation.by_value"


@contextmanager
def reading_by_value() -> Iterator[None]:
    """Trace ops that read traced values by their SSA meaning, not through a Python variable: the
    reverse sweep of ``kiln.grad`` reads the forward values each op used when it ran, so whether a
    variable names those contents later (an array written on some paths since) does not matter."""
    ctx = trace_context.require()
    before = ctx.notes.get(_BY_VALUE, False)
    ctx.notes[_BY_VALUE] = True
    try:
        yield
    finally:
        ctx.notes[_BY_VALUE] = before


def _check_operand(ctx: trace_context.TraceContext, guards: _Guards, op: Operation, operand: SSAValue) -> None:
    """Refuse an op reading contents whose answer would depend on a path kiln does not select by
    (metadata such as shapes may still be asked: only traced reads are checked). The ops of staged
    control flow pass a possibly stale array along (a loop carrying it, say) without reading it:
    what they make of it is marked stale in turn (see autograph.staging)."""
    if ctx.notes.get(_BY_VALUE):
        return
    for storage in guards.holding(operand):
        check_contents_read(storage, carried=isinstance(op, _CARRIERS))


def check_contents_read(storage: Storage, *, carried: bool = False) -> None:
    """Refuse reading ``storage``'s contents where the answer depends on the path: an array that is
    another on some paths (its alias set), or one written through a variable that is it on some
    paths only. Ops are checked as they are traced (:func:`_check_operand`); a copy, which takes
    the same SSA value and traces no op, asks here. ``carried``: a staged loop or ``if`` passes the
    array along without reading it; what it makes of it is checked when read."""
    if storage.alias is not None and not (storage.alias.returned and carried):
        storage.alias.check_read()  # (a return value is read at the end, after settle_returned)
    if not carried and storage.stale is not None:
        raise NotImplementedError(
            f"{trace_context.here()}: this reads an array that may have been written at {storage.stale}; NumPy's answer "
            "depends on the path. Copy it where the other variable is bound (`y = x.copy()`)"
        )


def set_value(storage: Storage, value: SSAValue) -> None:
    """Replace the contents without recording a write (restoring a region's entry value)."""
    storage.value = value
    storage.version = next(_counter)


@dataclass(eq=False)
class Scope:
    """A staged region being traced: the outer storages it wrote, with their values at entry."""

    serial: int = field(default_factory=lambda: next(_counter))
    saved: dict[Storage, SSAValue] = field(default_factory=dict)
    #: outer storages it marked stale (see MaybeAlias): where, and what they were before
    marked: dict[Storage, tuple[str, str | None]] = field(default_factory=dict)

    def is_outer(self, storage: Storage) -> bool:
        return storage.serial < self.serial

    def restore(self) -> None:
        """Undo the region's writes and stale marks (the staging hook applies them after the construct)."""
        for storage, value in self.saved.items():
            set_value(storage, value)
        for storage, (_, before) in self.marked.items():
            storage.stale = before


def _scopes() -> list[Scope]:
    ctx = trace_context.current()
    if ctx is None:
        return []
    return ctx.notes.setdefault(_SCOPES, [])  # type: ignore[return-value]


def write(storage: Storage, value: SSAValue, *, shared: bool = True) -> None:
    """Set a storage's contents, recording the write in every enclosing region it is outer to.
    ``shared``: also make the write on the arrays a flag says this one is (see MaybeAlias); a
    staged construct setting the values its regions left passes False (they agree already)."""
    if storage.alias is not None:
        storage.alias.check_write(storage)
    _record(storage, value)
    if shared:
        _share(storage)


def _record(storage: Storage, value: SSAValue) -> None:
    for scope in _scopes():
        if scope.is_outer(storage) and storage not in scope.saved:
            scope.saved[storage] = storage.value
    set_value(storage, value)


def _share(source: Storage) -> None:
    """After a write to ``source``: each array that is ``source`` on some paths, as flags say (an
    outer of its MaybeAlias, a merged array that has it as an outer, and on through theirs), takes
    ``source``'s new contents on exactly those paths. An array may be ``source`` through several
    chains (``z`` is ``y`` where one flag says, ``x`` where another, and ``y`` is ``x`` where a
    third): its condition is the or of the chains' and-ed flags, found before any array is written
    (taking the first chain only lost the write on the others' paths: kiln.fuzz 20910-344), or,
    where the chains are many, by comparing the memories the arrays are on each path."""
    chains = _sameness_chains(source)
    conditions = _by_memory(source) if chains is None else {o: _any_of(c) for o, c in chains.items() if o is not source}
    for other, condition in sorted(conditions.items(), key=lambda item: item[0].serial):
        if other.alias is not None:  # (a write reaching it is a write to it: its own unflagged outers go stale)
            other.alias.check_write(other)
        _record(other, _choose(condition, source.value, other.value))


#: the most flags the chains of one write may hold together: past it the arrays' memories are
#: compared instead (see :func:`_sameness_chains`, :func:`_by_memory`)
CHAIN_FLAGS_AT_MOST = 64


def _sameness_chains(source: Storage) -> dict[Storage, list[tuple[SSAValue, ...]]] | None:
    """Each array reachable from ``source`` through flagged sameness, with the chains it is
    ``source`` by, each the flags that must all hold (only the minimal sets of them): the fewest
    ops where few arrays are involved. An unrolled loop that rebinds an array on some paths of each
    iteration, through arrays that stay held, makes a chain per iteration to each array (kiln.fuzz
    20650-1648: 962 chains of up to 31 flags, 98,649 graph ops): past :data:`CHAIN_FLAGS_AT_MOST`
    flags None, and the write follows :func:`_by_memory`."""
    chains: dict[Storage, list[tuple[SSAValue, ...]]] = {source: [()]}
    flags_held = 0
    bypassed: set[Storage] = set()
    todo = [source]
    while todo:
        storage = todo.pop(0)
        if storage not in bypassed:
            bypassed.add(storage)
            _bypass_unreachable(storage)
        edges: list[tuple[Storage, SSAValue | None]] = []
        if storage.alias is not None:
            edges += zip(storage.alias.outers, storage.alias.flags)
        for dependent in sorted(storage.dependents or (), key=lambda d: d.serial):  # (an order hashing does not decide)
            if dependent.alias is not None:
                edges.append((dependent, dependent.alias.flag(storage)))
        for other, flag in edges:
            if flag is None or not trace_context.visible(other.value):
                continue  # (an array of a region that ended is read no more)
            if not trace_context.visible(flag):  # pragma: no cover - a flag is made with its array
                raise AssertionError(f"the sameness flag of {other.value} is not visible here")
            if other.value.type != storage.value.type:  # pragma: no cover - flags are only made for equal types
                raise AssertionError(f"{other.value.type} and {storage.value.type} share memory")
            known = chains.setdefault(other, [])
            added = []
            for chain in chains[storage]:
                longer = chain if flag in chain else (*chain, flag)
                if not any(set(k) <= set(longer) for k in known + added):
                    added.append(longer)
            if added:
                known[:] = [k for k in known if not any(set(c) <= set(k) for c in added)] + added
                todo.append(other)
                flags_held += sum(map(len, added))
                if flags_held > CHAIN_FLAGS_AT_MOST:
                    return None
    return chains


#: a 0-d flag, or a condition known while tracing
Condition: TypeAlias = "SSAValue | bool"


def _by_memory(source: Storage) -> dict[Storage, SSAValue]:
    """Each array that is ``source`` on some paths, with the 0-d flag true on those paths: where the
    two are one memory (:func:`_memory`), one comparison each. Every array's memory is, on each
    path, one base memory (an array with no flagged outers, or a merged array on the paths where
    none of its flags holds). Flags per base (a dict per array, built anew for every write) grew
    with the arrays times the bases on each write: an unrolled loop rebinding arrays on some paths
    traced 42,000 ``graph.and``/``graph.or`` (kiln.fuzz 20680-5878, a 60 s timeout)."""
    emit = trace_context.require().emit
    mine = _bases(source)
    found = set(mine) | {source}
    todo = sorted(found, key=lambda s: s.serial)
    while todo:  # (every array of one of those memories is a base or merged from one: found by dependents)
        storage = todo.pop(0)
        for dependent in sorted(storage.dependents or (), key=lambda d: d.serial):
            if dependent not in found and trace_context.visible(dependent.value):  # (a region's that ended: read no more)
                found.add(dependent)
                todo.append(dependent)
    conditions: dict[Storage, SSAValue] = {}
    serials = {s.serial for s in mine}
    memory: SSAValue | None = None  # (source's, traced once: an array without flagged outers keeps none)
    for other in sorted(found - {source}, key=lambda s: s.serial):
        if serials.isdisjoint(s.serial for s in _bases(other)):
            continue
        if memory is None:
            memory = _memory_value(source)
        conditions[other] = emit(graph.CmpOp("eq", _memory_value(other), memory)).results[0]
    return conditions


def _flagged(storage: Storage) -> list[tuple[Storage, SSAValue]]:
    """The outers ``storage`` is on the paths a flag says, that can still be read where tracing is."""
    _bypass_unreachable(storage)
    alias = storage.alias
    if alias is None:
        return []
    return [(o, f) for o, f in zip(alias.outers, alias.flags) if f is not None and trace_context.visible(o.value)]


def _bases(storage: Storage) -> list[Storage]:
    """The base memories ``storage`` may be: itself and, through flagged outers, theirs."""
    found: dict[Storage, None] = {}
    todo = [storage]
    while todo:
        s = todo.pop()
        if s not in found:
            found[s] = None
            todo.extend(o for o, _ in _flagged(s))
    return list(found)


#: the type of a run-time memory name (a base memory's serial)
_MEMORY_TYPE = TensorType(i64, [])


def _memory_value(storage: Storage) -> SSAValue:
    """Which base memory ``storage`` is on the path taken, as a 0-d ``i64`` (the base's serial):
    the first flagged outer's memory where its flag holds, else the next's, else its own. Traced
    once where it can be read (kept on the storage for its MaybeAlias), so that the writes of an
    unrolled loop each add a comparison, not the chains behind it again."""
    emit = trace_context.require().emit
    outers = _flagged(storage)
    kept = storage.memory
    if kept is not None and kept[0]() is storage.alias and trace_context.visible(kept[1]):
        return kept[1]
    value = emit(graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(_MEMORY_TYPE, [storage.serial]))).results[0]
    for outer, flag in reversed(outers):
        value = emit(graph.SelectOp(flag, _memory_value(outer), value)).results[0]
    if storage.alias is not None:
        storage.memory = (weakref.ref(storage.alias), value)
    return value


def _any_of(conjunctions: list[tuple[SSAValue, ...]]) -> SSAValue:
    """The 0-d flag true where all flags of one of ``conjunctions`` are (each non-empty)."""
    emit = trace_context.require().emit
    terms = []
    for flags in conjunctions:
        term = flags[0]
        for flag in flags[1:]:
            term = emit(graph.AndOp(term, flag)).results[0]
        terms.append(term)
    out = terms[0]
    for term in terms[1:]:
        out = emit(graph.OrOp(out, term)).results[0]
    return out


def forget_unreachable() -> None:
    """Between the iterations of a loop Python runs while tracing: bypass, in every merged array's
    MaybeAlias, the arrays nothing else holds any more (see :func:`_bypass_unreachable`). Python
    has dropped the last iteration's bindings there, so what only such a chain holds is known."""
    ctx = trace_context.current()
    guards = ctx.notes.get(_GUARDS) if ctx is not None else None
    if not guards:
        return
    for ref in [weakref.ref(s) for s in sorted(guards, key=lambda s: s.serial)]:  # (weak: no holder; oldest first)
        storage = ref()
        if storage is not None and storage.alias is not None:
            _bypass_unreachable(storage)
        del storage


def _bypass_unreachable(storage: Storage) -> None:
    """Drop from ``storage``'s MaybeAlias the flagged outers nothing else can reach, putting their
    own flagged outers in their place (flags and-ed: ``storage`` is ``p`` where it is ``o`` and ``o``
    is ``p``). An unrolled loop that rebinds an array on some paths makes a chain of such arrays,
    one per iteration, which no name, view or argument holds; writing through the last one made the
    write on all of them, so the traced program grew with the square of the iterations (kiln.fuzz
    20300-8131). What no one holds is never read again, so it need not take the write."""
    alias = storage.alias
    if alias is None or not alias.flags:
        return
    entries = list(zip(alias.outers, alias.values, alias.flags))
    changed = False
    k = 0
    while k < len(entries):
        outer, _, flag = entries[k]
        unreachable = flag is not None and _unreachable(outer, storage)
        replacement = _bypass(outer, flag, entries) if unreachable else None  # type: ignore[arg-type]
        del outer
        if replacement is None:
            k += 1
            continue
        entries[k:k + 1] = replacement
        k += len(replacement)
        changed = True
        _adopt(storage, [e[0] for e in replacement])
    if changed:
        storage.alias = replace(alias, outers=tuple(e[0] for e in entries), values=tuple(e[1] for e in entries),
                                flags=tuple(e[2] for e in entries))


def _adopt(storage: Storage, outers: Iterable[Storage]) -> None:
    """``storage`` is each of ``outers`` on some paths: a write to one of them is made on it too."""
    for outer in outers:
        if outer.dependents is None:
            outer.dependents = weakref.WeakSet()
        outer.dependents.add(storage)


def _unreachable(outer: Storage, storage: Storage) -> bool:
    """Whether only ``storage``'s MaybeAlias holds ``outer``: no tensor (name, view, container,
    closure), staged construct or other merged array can read it or write to it again. CPython's
    reference count, less the references :func:`_bypass_unreachable` itself holds (measured once,
    through the same code, by :func:`_own_references`), is exact when it says none: any other
    holder, a reference cycle the collector has not freed yet included, keeps the write."""
    if outer.argument is not None or outer.stale is not None:
        return False
    if any(d is not storage for d in list(outer.dependents or ())):
        return False
    count = sys.getrefcount(outer)
    if _OWN_REFERENCES < 0:  # (measuring)
        _measured.append(count)
        return False
    return count <= _OWN_REFERENCES


def _bypass(outer: Storage, flag: SSAValue, entries: list[tuple[Storage, SSAValue, SSAValue | None]],
            ) -> list[tuple[Storage, SSAValue, SSAValue | None]] | None:
    """``outer``'s own outers, to stand in its place among the ``entries`` of a MaybeAlias where
    its flag is ``flag``, with the and-ed flags (None: it cannot be bypassed: an outer of its own
    unflagged, a flag not visible where the new one would go)."""
    through = outer.alias
    if through is None:
        return []  # (no one else is that array on any path)
    if not through.flags or any(f is None for f in through.flags) or through.returned is not None:
        return None
    if not isinstance(flag, OpResult):
        return None
    present = {e[0] for e in entries}
    inners = [(inner, value, inner_flag) for inner, value, inner_flag in zip(through.outers, through.values, through.flags)
              if inner not in present]  # (the flags of one trace agree: the one there already says it)
    if any(f.type != flag.type or not _defined_before(f, flag.op) for _, _, f in inners):  # type: ignore[union-attr]
        return None
    out: list[tuple[Storage, SSAValue, SSAValue | None]] = []
    for inner, value, inner_flag in inners:
        both = graph.AndOp(flag, inner_flag)  # type: ignore[arg-type]
        Rewriter.insert_op(both, InsertPoint.after(flag.op))
        out.append((inner, value, both.results[0]))
    return out


def _defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether ``value`` may be used right after ``op``: defined before it in its block or in one enclosing it."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    here: Operation | None = op
    while here is not None:
        if here.parent_block() is block:
            return isinstance(owner, Block) or owner is op or owner.is_before_in_block(here)
        here = here.parent_op()
    return False


def _choose(flag: SSAValue, when_true: SSAValue, when_false: SSAValue) -> SSAValue:
    """``when_true`` where the 0-d ``flag`` is true, else ``when_false`` (a ``graph.cond``, which
    costs one branch and no elementwise select)."""
    regions = []
    for value in (when_true, when_false):
        block = Block()
        block.add_op(graph.YieldOp(value))
        regions.append(Region(block))
    op = trace_context.require().emit(graph.CondOp(flag, [when_true.type], *regions))
    return op.results[0]


@contextmanager
def values_as(values: dict[Storage, SSAValue]) -> Iterator[None]:
    """Storages holding ``values`` for a moment: the terminator of a staged region, emitted after
    the region's writes were undone, is checked (MaybeAlias) against the contents the region left."""
    saved = {storage: storage.value for storage in values}
    for storage, value in values.items():
        storage.value = value
    try:
        yield
    finally:
        for storage, value in saved.items():
            storage.value = value


@contextmanager
def region() -> Iterator[Scope]:
    """Trace a staged region: yields its scope; the caller restores or carries what it wrote."""
    scopes = _scopes()
    scope = Scope()
    scopes.append(scope)
    try:
        yield scope
    finally:
        scopes.pop()


# ---------------------------------------------------------------------- views


class ViewStep:
    """One view op in a chain from a base: replayable forward, and invertible for writes."""

    def forward(self, parent: Tensor) -> Tensor:
        raise NotImplementedError

    def inverse(self, parent: Tensor, new: Tensor) -> Tensor:
        """The new value of ``parent`` once this view of it holds ``new``."""
        raise NotImplementedError

    def out_shape(self, parent: tuple[int, ...]) -> tuple[int, ...]:
        """The view's shape (-1 where known only at run time) given its parent's: strides and
        contiguity are worked out from shapes alone, emitting nothing (a view may outlive the
        region its base's value was traced in)."""
        raise NotImplementedError

    #: whether the view of a C-contiguous parent of shape ``parent`` is C-contiguous (reshape views need it)
    def keeps_contiguous(self, parent: tuple[int, ...]) -> bool:
        return False

    def view_strides(self, parent: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
        """The view's strides in elements, given its parent's shape and strides (of a
        non-contiguous argument); None when not known (the view then counts as not C-contiguous)."""
        return None

    def then(self, step: ViewStep) -> ViewStep | None:
        """One step that is this one followed by ``step``, or None. A chain of views grows by a
        step per view taken, and every write replays it: ``a = np.flip(a)`` in an unrolled loop
        would replay a chain as long as the loop so far at each write (quadratic)."""
        return None


_measured: list[int] = []
_OWN_REFERENCES = -1


def _own_references() -> int:
    """The references :func:`_unreachable` counts to an array only a MaybeAlias holds, on this
    Python: measured by running the same code on two storages made for it."""
    storage = Storage(None)  # type: ignore[arg-type]
    storage.alias = MaybeAlias((Storage(None),), (None,), "", "", (True,))  # type: ignore[arg-type] (a flag: not None)
    _bypass_unreachable(storage)
    return _measured.pop()


_OWN_REFERENCES = _own_references()
