"""``AbstractValue``: what tracing knows of a traced value beyond its IR type, in one frozen object.

A traced array is an SSA value (whose ``tensor<...>`` type holds its dtype and
static sizes) and an abstract value holding the rest of its meaning to NumPy and
Python: whether it promotes as a Python number (``weak``, NEP 50), whether it
is a NumPy scalar (immutable: ``s += 1`` rebinds), read-only, the source of an
unknown rank, what indexing may assume of an integer, how it promotes when the
paths of a staged construct disagree, and the run-time flag saying which kind
of result it is; and which array memory it is or shows: its :class:`~kiln.frontend.mutation.Storage`,
the view chain from that storage's base, the indexing that made the view, and, for a value a
staged construct merged, the arrays it may be on some paths. It plays the part of JAX's
``ShapedArray`` with ``weak_type``.

JAX's abstract values refer to nothing mutable; kiln's refers to a ``Storage``, which is: NumPy
writes arrays in place (``x[0] = 1`` shows through every view of ``x``), so the memory a value
shows is an identity whose contents change while tracing (its SSA value and version), and two
values share memory exactly when their abstract values name the same ``Storage``.

A staged ``if`` merges the values its paths leave with :meth:`AbstractValue.join`
(:func:`join_paths` takes the Python values the paths left, numbers and NumPy
scalars included); a staged loop widens what it carries with
:meth:`AbstractValue.widen` until that is a fixed point. A new fact is a field
here, with its rule in ``join`` and ``widen``: see docs/frontend.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from kiln.frontend.mutation import Storage, ViewStep


@dataclass(frozen=True)
class AbstractValue:
    """The facts of one traced value that its IR type does not hold."""

    #: for a value of unknown rank (kiln.frontend.unknown_rank): the ``TensorSpec(shape=None)``
    #: argument whose call-time shape it has (its IR value is then the flattened data)
    shape_source: int | None = None
    #: a Python int or float that became a tensor: it promotes as a weak Python scalar (NEP 50)
    weak: bool = False
    #: a NumPy scalar (an element read ``x[i]``, a reduction): ``s += 1`` makes a new value, writes raise
    scalar: bool = False
    #: NumPy's read-only arrays (``np.broadcast_to``, ``np.diagonal``) and their views: writes raise
    readonly: bool = False
    #: what indexing may assume about a traced integer (kiln.frontend.index_facts), or None
    facts: Any = None
    #: a 0-d value that promotes differently on the paths of a staged construct: what it promotes
    #: as on each, and the construct (a promotion whose result depends on the path is refused)
    path_promotions: tuple[tuple[Any, ...], str] | None = None
    #: a 0-d int8 tensor saying at run time which kind of result a value merged from a NumPy scalar
    #: and a 0-d array or Python number is (kiln.frontend.result_kinds); None where tracing knows
    kind_flag: Any = None
    #: the array memory this value is (a base) or shows (a view): shared, mutable and versioned
    #: (kiln.frontend.mutation); None for a value not in an array yet (a join's, a callee's result)
    storage: Storage | None = None
    #: the view chain from the storage's base value to this value (empty for a base)
    steps: tuple[ViewStep, ...] = ()
    #: ``(id(parent), key signature)`` of the indexing that made this view (``x[k] op= v``)
    origin: tuple[int, tuple[Any, ...]] | None = None
    #: for a value a staged construct merges: the arrays it is on some of its paths, first seen first
    may_alias: tuple[Storage, ...] = ()

    def arrays(self) -> tuple[Storage, ...]:
        """The arrays this value is, on some path: its own storage, else those a join found."""
        return (self.storage,) if self.storage is not None else self.may_alias

    def join(self, other: AbstractValue) -> AbstractValue:
        """The value a staged ``if`` merges from this path's and ``other``'s: what holds on both
        paths holds after it (weak, scalar, read-only only where both are); facts about values
        and run-time flags are the construct's to set again. The merged value is a new array (no
        storage, no view chain) that may be the array of either path (``may_alias``): the construct
        marks its storage so (mutation.MaybeAlias), with a run-time flag where it can say on which."""
        return AbstractValue(
            shape_source=self.shape_source if self.shape_source == other.shape_source else None,
            weak=self.weak and other.weak,
            scalar=self.scalar and other.scalar,
            readonly=self.readonly and other.readonly,
            may_alias=tuple(dict.fromkeys((*self.arrays(), *other.arrays()))),
        )

    def widen(self, other: AbstractValue | None) -> AbstractValue:
        """What a loop that carries this value knows of it once an iteration left ``other`` in it
        (None: a placeholder no path reads, which teaches nothing): what held before the loop
        and after every iteration so far, as :meth:`join` keeps it, but for a shape source the
        value before the loop did not have (a variable first bound in the loop), which is the
        iteration's. A loop traces its body again while this changes what it carries: each fact
        can only be lost (a shape source only found once), so that ends at a fixed point. The
        carried value is a new array each iteration (a block argument): no storage, view chain or
        aliases (each probe traces new arrays; the loop marks what it may be from its leaves)."""
        other = self if other is None else other
        return AbstractValue(
            shape_source=self.shape_source if self.shape_source is not None else other.shape_source,
            weak=self.weak and other.weak,
            scalar=self.scalar and other.scalar,
            readonly=self.readonly and other.readonly,
        )

    def but(self, **changes: Any) -> AbstractValue:
        """This value with ``changes`` (a frozen value is never changed in place). Every traced
        value makes one, so it copies the fields rather than run ``dataclasses.replace`` (a
        quarter of the cost)."""
        fields = self.__dict__.copy()
        for name, fact in changes.items():
            if name not in fields:
                raise TypeError(f"AbstractValue has no field {name!r}")
            fields[name] = fact
        new = object.__new__(AbstractValue)
        object.__setattr__(new, "__dict__", fields)
        return new

    def in_memory_of(self, memory: AbstractValue) -> AbstractValue:
        """These facts for a value in ``memory``'s array (its storage, view chain, origin and
        aliases): a new array taking the facts of another value (a callee's result, a merge)."""
        return self.but(storage=memory.storage, steps=memory.steps, origin=memory.origin, may_alias=memory.may_alias)


class Fact:
    """An attribute of a traced value that reads the field ``name`` of its abstract value (its
    ``aval``); setting it replaces the frozen value with one that has the new field."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, value: Any, owner: type | None = None) -> Any:
        return self if value is None else getattr(value.aval, self.name)

    def __set__(self, value: Any, fact: Any) -> None:
        value.aval = value.aval.but(**{self.name: fact})


#: the abstract value of a value with no facts beyond its type and in no array yet
PLAIN = AbstractValue()


def in_array(storage: Storage, shape_source: int | None = None) -> AbstractValue:
    """The abstract value of a new array in ``storage`` (every ``Tensor`` starts with one, so it
    is built by copying :data:`PLAIN`'s fields: a third of the dataclass constructor's cost)."""
    fields = PLAIN.__dict__.copy()
    fields["storage"] = storage
    if shape_source is not None:
        fields["shape_source"] = shape_source
    new = object.__new__(AbstractValue)
    object.__setattr__(new, "__dict__", fields)
    return new


def abstract_of(value: Any) -> AbstractValue:
    """The abstract value of what a path of a staged construct left in a variable: a traced value's
    own (an abstract value is its own); a Python number's (weak, a scalar); a NumPy scalar's (a scalar);
    :data:`PLAIN` for anything else (an array, a masked selection). Every Python number is weak,
    bools and complex numbers too, as in NEP 50 (kiln's promotion takes a 0-d tensor as a Python
    number only where it is an int or float: see staging)."""
    if isinstance(value, AbstractValue):  # (an array's memory, named by the value it holds)
        return value
    aval = getattr(value, "aval", None)
    if isinstance(aval, AbstractValue):
        return aval
    if isinstance(value, np.generic):  # (before Python's numbers: np.float64 is a float)
        return AbstractValue(scalar=True)
    if isinstance(value, bool | int | float | complex):
        return AbstractValue(weak=True, scalar=True)
    return PLAIN


def join_paths(values: list[Any]) -> AbstractValue | None:
    """The join of what the paths of a staged construct that read a variable left in it (the caller
    leaves out placeholders of paths that do not read it); None when no path reads it."""
    if not values:
        return None
    joined = abstract_of(values[0])
    for value in values[1:]:
        joined = joined.join(abstract_of(value))
    return joined
