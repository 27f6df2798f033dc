"""Mutable arrays while tracing: storages, views and writes, made functional.

NumPy arrays are mutable and have views; the ``graph`` dialect has values.
The frontend bridges the two the way PyTorch's functionalization does:

- Every array memory is a :class:`Storage` holding the SSA value of its current
  contents. A base :class:`~kiln.frontend.tensor.Tensor` reads its storage's value;
  a view (a basic slice, ``.T``, a reshape) holds its storage and the chain of
  :class:`ViewStep` s that derive it from the base, and replays them when the base
  changed since it last looked (storage versions are global and never reused).
- A write ``x[idx] = v`` computes the new value of ``x`` (``graph.insert_slice``,
  ``graph.select``), then walks the view chain back to the base with each step's
  inverse and sets the storage's new value. Every other view of that storage sees
  the new value at its next use.
- Staged regions (loop bodies, branches) run inside a :class:`Scope` that records
  which storages from outside the region they write and their values at entry; the
  staging hooks carry exactly those through ``graph.while`` / ``graph.cond``.
- A storage of a function argument that was written is written back to the
  caller's array at the end of the function (see :mod:`kiln.frontend.tracer`).

Bufferization (``kiln-bufferize``) then makes each write an in-place store again.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import SSAValue

from kiln.frontend import trace_context

if TYPE_CHECKING:
    from kiln.frontend.tensor import Tensor

#: one counter for storage serials, versions and scope serials: a later number is always newer
_counter = itertools.count(1)

_SCOPES = "kiln.mutation.scopes"


class Storage:
    """One array's memory while tracing: the SSA value of its contents now."""

    __slots__ = ("value", "version", "serial", "argument", "__weakref__")

    def __init__(self, value: SSAValue, argument: int | None = None) -> None:
        self.value = value
        self.version = self.serial = next(_counter)
        #: the index of the function argument whose memory this is (written back at the end)
        self.argument = argument


def set_value(storage: Storage, value: SSAValue) -> None:
    """Replace the contents without recording a write (restoring a region's entry value)."""
    storage.value = value
    storage.version = next(_counter)


@dataclass(eq=False)
class Scope:
    """A staged region being traced: the outer storages it wrote, with their values at entry."""

    serial: int = field(default_factory=lambda: next(_counter))
    saved: dict[Storage, SSAValue] = field(default_factory=dict)

    def is_outer(self, storage: Storage) -> bool:
        return storage.serial < self.serial

    def restore(self) -> None:
        for storage, value in self.saved.items():
            set_value(storage, value)


def _scopes() -> list[Scope]:
    ctx = trace_context.current()
    if ctx is None:
        return []
    return ctx.notes.setdefault(_SCOPES, [])  # type: ignore[return-value]


def write(storage: Storage, value: SSAValue) -> None:
    """Set a storage's contents, recording the write in every enclosing region it is outer to."""
    for scope in _scopes():
        if scope.is_outer(storage) and storage not in scope.saved:
            scope.saved[storage] = storage.value
    set_value(storage, value)


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

    #: whether the view of a C-contiguous parent is C-contiguous (reshape views need it)
    def keeps_contiguous(self, parent: Tensor) -> bool:
        return False


@dataclass(frozen=True, eq=False)
class Replay:
    """What a view tensor remembers: its storage, its chain, and the key it was made with."""

    storage: Storage
    steps: tuple[ViewStep, ...]


def key_signature(key: Any) -> tuple[Any, ...]:
    """A comparable form of an index key (tensors by identity), to recognise ``x[k] op= v``."""
    items = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    for item in items:
        if isinstance(item, slice):
            out.append(("s", *(_atom(p) for p in (item.start, item.stop, item.step))))
        else:
            out.append(_atom(item))
    return tuple(out)


def _atom(x: Any) -> Any:
    from kiln.frontend.tensor import Tensor

    if isinstance(x, Tensor):
        return ("t", id(x))
    if x is None or x is Ellipsis or isinstance(x, (int, bool)):
        return (type(x).__name__, x)
    return ("o", id(x))
