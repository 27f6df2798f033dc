"""``ResultGroups``: the results of a staged construct's op, by name rather than by position.

A ``graph.cond`` or ``graph.while`` carries several kinds of values side by side: the variables
it merges, the arrays from before it that its regions write, sameness flags, result-kind flags,
loop counters. Its regions yield them, its block arguments take them and its op returns them in
one flat list; this class records which slice is which, so that code builds and reads each
group by its name (``results["storages"]``) and a new group cannot shift another's positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from xdsl.ir import Attribute

T = TypeVar("T")


class ResultGroups:
    """The named groups of a construct's results, in their order, with each result's type."""

    def __init__(self, **groups: Sequence[Attribute]) -> None:
        self.groups: dict[str, list[Attribute]] = {name: list(types) for name, types in groups.items()}

    def add(self, **groups: Sequence[Attribute]) -> None:
        """Append groups after the present ones (a loop adds its flags once its body settled)."""
        for name, types in groups.items():
            assert name not in self.groups, f"internal: result group {name!r} twice"
            self.groups[name] = list(types)

    def types(self, *names: str) -> list[Attribute]:
        """The types of the groups ``names`` (all, in order, when none are named), one list."""
        return [ty for name in names or self.groups for ty in self.groups[name]]

    def ordered(self, **values: Sequence[T]) -> list[T]:
        """One value per result, given group by group (every group, each of its size), in order:
        a region's yield, a loop's initial values."""
        assert values.keys() == self.groups.keys(), f"internal: groups {sorted(values)} for {list(self.groups)}"
        out: list[T] = []
        for name, types in self.groups.items():
            assert len(values[name]) == len(types), f"internal: {len(values[name])} values for group {name!r}"
            out += values[name]
        return out

    def split(self, values: Sequence[T]) -> dict[str, list[T]]:
        """``values`` (an op's results, a block's arguments: the groups' first ones in order) by group."""
        out: dict[str, list[T]] = {}
        at = 0
        for name, types in self.groups.items():
            out[name] = list(values[at : at + len(types)])
            at += len(types)
        assert at <= len(values), "internal: fewer values than the groups hold"
        return out
