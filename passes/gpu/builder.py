"""The op builder of kiln's GPU passes: ``index`` arithmetic for launch sizes and loop nests."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import SSAValue

from kiln.dialects.ir_utils import OpBuilder, constant_int


class IndexBuilder(OpBuilder):
    """An :class:`OpBuilder` with the ``index`` arithmetic of launch sizes and loop nests, folded
    where the operands are constants (so static sizes stay literals in the kernel and launch)."""

    def index(self, value: int) -> SSAValue:
        """An ``index`` constant."""
        return self.value(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """a * b; constants are folded so static launch sizes stay literals."""
        ca, cb = constant_int(a), constant_int(b)
        if ca is not None and cb is not None:
            return self.index(ca * cb)
        if ca == 1 or cb == 1:
            return b if ca == 1 else a
        return self.value(arith.MuliOp(a, b))

    def add_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.AddiOp(a, b))

    def product(self, values: Sequence[SSAValue]) -> SSAValue:
        """The product of index values (1 when empty)."""
        if not values:
            return self.index(1)
        result = values[0]
        for v in values[1:]:
            result = self.mul(result, v)
        return result

    def trip_count(self, lb: SSAValue, ub: SSAValue, step: SSAValue) -> SSAValue:
        """Iterations of ``for (i = lb; i < ub; i += step)``, never negative."""
        lo, hi, st = constant_int(lb), constant_int(ub), constant_int(step)
        if lo is not None and hi is not None and st is not None:
            return self.index(max(0, -(-(hi - lo) // st)))
        span = self.value(arith.SubiOp(ub, lb))
        count = self.value(arith.CeilDivSIOp(span, step))
        return self.value(arith.MaxSIOp(count, self.index(0)))

    def delinearize(
        self, linear: SSAValue, lbs: Sequence[SSAValue], steps: Sequence[SSAValue], counts: Sequence[SSAValue]
    ) -> list[SSAValue]:
        """Loop indices (row-major, last fastest) of the ``linear``-th point of a loop nest."""
        ivs: list[SSAValue] = []
        rest = linear
        for k in reversed(range(len(counts))):
            if k == 0:
                pos = rest
            else:
                pos = self.value(arith.RemSIOp(rest, counts[k]))
                rest = self.value(arith.DivSIOp(rest, counts[k]))
            ivs.append(self.add_(lbs[k], self.mul(pos, steps[k])))
        ivs.reverse()
        return ivs
