"""Which ops of a block touch which memory, by position: "does anything between these two ops
touch this buffer?" in O(log n) instead of a walk over every op between them.

``kiln-elide-copies`` asks that question once per copy it considers; a program that computes
many values and copies them into one result at the end (``np.array([np.sum(x[i]) for i in
range(k)])``) put the writer and its copy k ops apart, so walking the ops between made the pass
quadratic (24 s of a 300-row comprehension's compile). The index is built once per block and kept
up to date by the pass as it moves, inserts and erases ops.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue

from kiln.passes._buffer_facts import root


def roots_touched(op: Operation) -> frozenset[SSAValue | None]:
    """The roots (:func:`root`; None: unknown memory) of every buffer ``op`` or an op nested in it uses."""
    return frozenset(root(v) for inner in op.walk() for v in inner.operands if isinstance(v.type, MemRefType))


class Touches:
    """Positions of a block's ops and, per root, the sorted positions of the ops touching it.

    An op inserted later takes a position between its neighbours' (``position`` of the op it
    was put next to, less or plus a half): only the order matters, and the questions asked are
    about ranges between ops that were in the block when it was indexed.
    """

    def __init__(self, block: Block) -> None:
        self.position: dict[Operation, float] = {}
        self._roots: dict[Operation, frozenset[SSAValue | None]] = {}
        self._by_root: dict[SSAValue | None, list[float]] = {}
        for i, op in enumerate(block.ops):
            self.add(op, float(i))

    def add(self, op: Operation, position: float) -> None:
        self.position[op] = position
        self._roots[op] = roots_touched(op)
        for r in self._roots[op]:
            insort(self._by_root.setdefault(r, []), position)

    def remove(self, op: Operation) -> None:
        """Forget ``op`` (erased, or about to be added again at another place or with other operands)."""
        position = self.position.pop(op)
        for r in self._roots.pop(op):
            positions = self._by_root[r]
            del positions[bisect_left(positions, position)]

    def touching(self, r: SSAValue | None, start: float, end: float) -> list[float]:
        """Positions strictly between ``start`` and ``end`` of the ops touching memory of root ``r``."""
        positions = self._by_root.get(r, [])
        return positions[bisect_right(positions, start) : bisect_left(positions, end)]
