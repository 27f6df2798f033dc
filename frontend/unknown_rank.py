"""Arguments of unknown rank (``kiln.TensorSpec(shape=None)``): one trace, one compiled function, every rank.

A rank-erased argument is traced as its flattened (row-major) data, a
``tensor<?xT>``. The :class:`~kiln.frontend.tensor.Tensor` standing for it
reports ``shape``/``ndim`` ``None`` and carries a *shape source*: the index
of the argument whose call-time shape it has. Elementwise ops keep the
source (operands of the same call-time shape, or 0-d ones), full reductions
drop it (their result is an ordinary 0-d tensor), and every op that needs the
rank raises :func:`rank_error` at trace time. Two different sources meeting
in one elementwise op are recorded: the call checks that those arguments
have one shape, since flat data of equal size but another shape would pair
the wrong elements.

At call time :meth:`Erasure.wrap` flattens the rank-erased arguments (a free
``reshape(-1)`` of C-contiguous data), runs those checks, calls the compiled
code, and gives each rank-erased result the shape of its source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import BlockArgument

from kiln.frontend import pytree, trace_context

_NOTES_KEY = "kiln.unknown_rank"

#: ``(a, b, where)``: arguments ``a`` and ``b`` meet in an elementwise op at ``where``
SameShape = tuple[int, int, str]


@dataclass
class Trace:
    """What one trace learns about its rank-erased arguments."""

    #: the user's name of each tensor argument (``""`` when it has none)
    names: Sequence[str]
    same_shape: list[SameShape] = field(default_factory=list)
    #: per result: the argument whose shape it takes (None: a result of known rank)
    outputs: list[int | None] = field(default_factory=list)

    def describe(self, source: int) -> str:
        name = self.names[source] if source < len(self.names) else ""
        return f"argument `{name}`" if name else f"tensor argument {source}"


def _current() -> Trace | None:
    ctx = trace_context.current()
    record = ctx.notes.get(_NOTES_KEY) if ctx is not None else None
    return record if isinstance(record, Trace) else None


def describe(source: int) -> str:
    """The rank-erased argument ``source`` in the user's terms (argument `x`)."""
    record = _current()
    return record.describe(source) if record is not None else f"tensor argument {source}"


def rank_error(source: int, what: str) -> TypeError:
    """The error for ``what`` needing the rank of a tensor derived from a rank-erased argument."""
    return TypeError(
        f"{what} needs the rank of a tensor derived from {describe(source)}, whose rank is unknown under "
        "kiln.TensorSpec(shape=None): such a function is traced once for every rank, so only elementwise ops "
        "(with scalars or with arguments of the same shape), full reductions and reshapes of the flattened data "
        "apply to it. Give the argument a rank in the input_signature, e.g. kiln.TensorSpec([None]) for vectors "
        "or kiln.TensorSpec([None, None]) for matrices."
    )


def same_shape(a: int, b: int) -> None:
    """Record that arguments ``a`` and ``b`` meet elementwise here: each call checks their shapes agree."""
    record = _current()
    if record is not None and a != b:
        where = trace_context.here()
        record.same_shape.append((min(a, b), max(a, b), where))


def tracing(fn: Callable[..., Any], erased: Sequence[int], names: Sequence[str]) -> tuple[Callable[..., Any], Trace]:
    """``fn`` for a trace in which the tensor arguments ``erased`` have unknown rank, and the record it fills.

    The wrapper marks those arguments' tensors with their shape source, and
    notes each result's source once ``fn`` returns."""
    from kiln.frontend.tensor import Tensor  # tensor imports this module: imported late

    record = Trace(names)
    wanted = set(erased)

    def mark(leaf: Any) -> Any:
        value = leaf.value if isinstance(leaf, Tensor) else None
        if isinstance(value, BlockArgument) and value.index in wanted and leaf.shape_source is None:
            return Tensor(value, value.index)
        return leaf

    def traced(*args: Any, **kwargs: Any) -> Any:
        trace_context.require().notes[_NOTES_KEY] = record
        leaves, tree = pytree.flatten((args, kwargs))
        args, kwargs = pytree.unflatten(tree, iter([mark(leaf) for leaf in leaves]))
        result = fn(*args, **kwargs)
        outs, _ = pytree.flatten(result) if result is not None else ([], pytree.LEAF)
        record.outputs = [leaf.shape_source if isinstance(leaf, Tensor) else None for leaf in outs]
        return result

    return traced, record


def note_none_error(error: TypeError, names: Sequence[str]) -> None:
    """Explain a ``NoneType`` error from user code reading ``x.shape[i]`` or ``len(x.shape)`` of a
    rank-erased argument (its shape is ``None``)."""
    if "NoneType" in str(error):
        named = [f"`{n}`" for n in names if n]
        shown = f"{', '.join(named)} {'has' if len(named) == 1 else 'have'}" if named else "some arguments have"
        error.add_note(
            f"kiln: {shown} unknown rank under kiln.TensorSpec(shape=None), so their .shape and .ndim are "
            "None while traced; give them a rank in the input_signature (kiln.TensorSpec([None]), "
            "kiln.TensorSpec([None, None]), ...) to use their shape."
        )


@dataclass(frozen=True)
class Erasure:
    """What each call of a rank-erased trace does around its compiled code."""

    name: str
    arg_names: tuple[str, ...]
    #: indices of the rank-erased tensor arguments
    erased: tuple[int, ...]
    same_shape: tuple[SameShape, ...]
    #: per result: the argument whose shape it takes (None: a result of known rank)
    outputs: tuple[int | None, ...]

    def wrap(self, entry: Callable[..., Any]) -> Callable[..., Any]:
        """An entry (see Backend.entry) taking the arguments in their own shapes around ``entry``,
        which takes the rank-erased ones flattened."""
        erased, checks, outputs, single = self.erased, self.same_shape, self.outputs, len(self.outputs) == 1

        def call(*args: Any) -> Any:
            flat = list(args)
            for i in erased:
                a = args[i] if i < len(args) else None
                if type(a) is not np.ndarray or not a.flags.c_contiguous:
                    return NotImplemented
                flat[i] = a.reshape(-1)
            for a, b, where in checks:
                if args[a].shape != args[b].shape:
                    self._mismatch(a, b, where, args)
            out = entry(*flat)
            if out is NotImplemented or out is None:
                return out
            if single:
                src = outputs[0]
                return out if src is None else out.reshape(args[src].shape)
            return tuple(r if src is None else r.reshape(args[src].shape) for r, src in zip(out, outputs))

        return call

    def _describe(self, i: int) -> str:
        return f"`{self.arg_names[i]}`" if i < len(self.arg_names) and self.arg_names[i] else f"tensor argument {i}"

    def _mismatch(self, a: int, b: int, where: str, args: Sequence[np.ndarray]) -> None:
        raise ValueError(
            f"{self.name}: {self._describe(a)} has shape {args[a].shape} but {self._describe(b)} has shape "
            f"{args[b].shape}; both have "
            f"unknown rank (kiln.TensorSpec(shape=None)) and meet elementwise at {where}, so they must have the same "
            "shape (arguments of unknown rank never broadcast with each other)"
        )
