"""Shape sources: the trace-time facts about tensors of unknown rank that :class:`~kiln.frontend.tensor.Tensor` needs.

A tensor derived from a ``kiln.TensorSpec(shape=None)`` argument carries the
index of the argument whose call-time shape it has (its *shape source*; see
:mod:`kiln.frontend.unknown_rank`). This module holds what the trace records
about those arguments and the error for an op that needs the rank. It sits
below ``Tensor``, which raises that error and records which sources meet, so
it knows nothing of tensors itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kiln.frontend import trace_context

#: trace note: the :class:`Trace` of a trace with rank-erased arguments
NOTES_KEY = "kiln.unknown_rank"

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
    record = ctx.notes.get(NOTES_KEY) if ctx is not None else None
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
