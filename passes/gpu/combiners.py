"""Associative combiners of reductions and their identities, for reductions that run as trees.

A reduction body ``yield op(acc, x)`` (or ``op(x, acc)``) whose ``op`` is listed here can be
split into per-thread partial results and combined in any order; anything else runs sequentially.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation

_FLOAT_IDENTITY: dict[type[Operation], float] = {
    arith.AddfOp: -0.0,
    arith.MulfOp: 1.0,
    arith.MaximumfOp: -math.inf,
    arith.MinimumfOp: math.inf,
    arith.MaxnumfOp: -math.inf,
    arith.MinnumfOp: math.inf,
}


def _int_identity(op: type[Operation], width: int) -> int | None:
    """The identity of an integer combiner at ``width`` bits (two's complement), if any."""
    ones = -1 if width > 1 else 1
    table: dict[type[Operation], int] = {
        arith.AddiOp: 0,
        arith.MuliOp: 1,
        arith.OrIOp: 0,
        arith.XOrIOp: 0,
        arith.AndIOp: ones,
        arith.MaxSIOp: -(1 << (width - 1)) if width > 1 else 1,
        arith.MinSIOp: (1 << (width - 1)) - 1 if width > 1 else 0,
        arith.MaxUIOp: 0,
        arith.MinUIOp: ones,
    }
    return table.get(op)


def identity(op: Operation) -> arith.ConstantOp | None:
    """A constant op holding the identity of ``op`` as a reduction combiner, or None."""
    ty: Attribute = op.results[0].type
    if isinstance(ty, AnyFloat):
        value = _FLOAT_IDENTITY.get(type(op))
        return None if value is None else arith.ConstantOp(FloatAttr(value, ty))
    if isinstance(ty, IntegerType):
        value_i = _int_identity(type(op), ty.width.data)
        return None if value_i is None else arith.ConstantOp(IntegerAttr(value_i, ty))
    return None
