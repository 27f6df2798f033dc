"""Arguments of unknown rank (``kiln.TensorSpec(shape=None)``): one trace, one compiled function, every rank.

A rank-erased argument is traced as its flattened (row-major) data, a
``tensor<?xT>``. The :class:`~kiln.frontend.tensor.Tensor` standing for it
reports ``shape``/``ndim`` ``None`` and carries a *shape source*: the index
of the argument whose call-time shape it has. Elementwise ops keep the
source (operands of the same call-time shape, or 0-d ones), full reductions
drop it (their result is an ordinary 0-d tensor), and every op that needs the
rank raises :func:`~kiln.frontend.shape_sources.rank_error` at trace time.
Two different sources meeting in one elementwise op are recorded: the call
checks that those arguments have one shape, since flat data of equal size but
another shape would pair the wrong elements. That record and the error live in
:mod:`kiln.frontend.shape_sources`, below ``Tensor``; this module wraps the
traced function (:func:`tracing`) and the compiled one (:class:`Erasure`).

At call time :meth:`Erasure.wrap` flattens the rank-erased arguments (a free
``reshape(-1)`` of C-contiguous data), runs those checks, calls the compiled
code, and gives each rank-erased result the shape of its source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import BlockArgument

from kiln.frontend import pytree, trace_context
from kiln.frontend.shape_sources import NOTES_KEY, SameShape, Trace
from kiln.frontend.tensor import Tensor


def tracing(fn: Callable[..., Any], erased: Sequence[int], names: Sequence[str]) -> tuple[Callable[..., Any], Trace]:
    """``fn`` for a trace in which the tensor arguments ``erased`` have unknown rank, and the record it fills.

    The wrapper marks those arguments' tensors with their shape source, and
    notes each result's source once ``fn`` returns."""
    record = Trace(names)
    wanted = set(erased)

    def mark(leaf: Any) -> Any:
        value = leaf.value if isinstance(leaf, Tensor) else None
        if isinstance(value, BlockArgument) and value.index in wanted and leaf.shape_source is None:
            return Tensor(value, value.index)
        return leaf

    def traced(*args: Any, **kwargs: Any) -> Any:
        trace_context.require().notes[NOTES_KEY] = record
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
