"""The straight-line C builder that vector_math.py and vector_trig.py write their helpers with."""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, Float64Type

from kiln.backends.c.c_types import float_literal
from kiln.backends.c.isa import IsaTable

F = {"f32": Float32Type(), "f64": Float64Type()}
#: per element type: rounding magic 1.5*2^p (value, bits); x + magic - magic rounds x to an
#: integer, which also sits in the low bits of x + magic
MAGIC = {"f32": (12582912.0, 0x4B400000), "f64": (6755399441055744.0, 0x4338000000000000)}


def helper_name(fn: str, elem: str) -> str:
    """C name of the vectorized ``fn`` on ``elem`` registers."""
    return f"kiln_v{fn}_{elem}"


class Body:
    """Straight-line C over native registers: each step is a new ``const`` local."""

    def __init__(self, table: IsaTable, elem: str) -> None:
        self.t, self.e = table, elem
        self.lines: list[str] = []

    def let(self, expr: str, kind: str = "vec") -> str:
        name = f"t{len(self.lines)}"
        self.lines.append(f"  const {self.t.types[self.e][kind]} {name} = {expr};")
        return name

    def op(self, name: str, *args: str | int) -> str:
        return self.t.op(name, self.e, *args)

    def c(self, value: float) -> str:
        return self.op("broadcast", float_literal(value, F[self.e]))

    def i(self, value: int) -> str:
        if value in (-(2**31), -(2**63)):
            return self.op("ibroadcast", "INT32_MIN" if self.e == "f32" else "INT64_MIN")
        return self.op("ibroadcast", f"INT64_C({value})" if self.e == "f64" else str(value))

    def horner(self, coeffs: list[float], x: str) -> str:
        p = self.let(self.c(coeffs[0]))
        for coef in coeffs[1:]:
            p = self.let(self.op("madd", p, x, self.c(coef)))
        return p

    def clamp(self, x: str, lo: float, hi: float) -> str:
        """x limited to [lo, hi]; NaN stays NaN."""
        for keep, ieee, pred, bound in (("maxkeep", "maximum", "olt", lo), ("minkeep", "minimum", "ogt", hi)):
            if f"{keep}.{self.e}" in self.t.ops:  # returns its second operand, x, when x is NaN
                x = self.let(self.op(keep, self.c(bound), x))
            elif f"{ieee}.{self.e}" in self.t.ops:  # NaN propagates
                x = self.let(self.op(ieee, self.c(bound), x))
            else:
                x = self.select_cmp(pred, x, self.c(bound), self.c(bound), x)
        return x

    def select_cmp(self, pred: str, a: str, b: str, then: str, other: str) -> str:
        mask = self.let(self.op(f"cmp.{pred}", a, b), "mask")
        return self.let(self.op("select", mask, then, other))
