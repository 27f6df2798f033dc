"""``kiln-crc-tables``: a loop of 8 bit steps of a CRC becomes one table step per byte.

NPBench's crc16 (and every bitwise CRC written in Python) runs, for each byte, 8 iterations of
``crc = (crc >> 1) ^ poly if (crc ^ byte) & 1 else crc >> 1; byte >>= 1``: a chain of shift,
xor and select per bit, 3 cycles each in kiln's C and in Numba's LLVM alike (24 per byte).
Each step is linear over GF(2) in the bits of (crc, byte), so the 8 steps are too, and when
their composition is ``(crc >> 8) ^ M((crc ^ byte) & 0xff)`` it is computed as
``(crc >> 8) ^ T[(crc ^ byte) & 0xff]`` with T[v] = M(v), a 256-entry constant table: the
classic table-driven CRC, bit for bit the loop's result (LLVM 21's HashRecognize does the same).

Expects: the loop level (scalar ops, loop state in 0-d ``memref.alloca`` locals), before
``kiln-if-to-select``. Rewrites an ``scf.while`` whose condition is ``counter < 8`` on a local
counter set to 0 just before the loop and incremented by 1 once per iteration, whose body holds
only loads and stores of 0-d locals, integer constants, and/or/xor (one operand constant for
and/or), shifts by constants, casts, ``cmpi`` that are constant or test one bit, selects and
``scf.if`` whose two values differ by a constant, and ``krt.check`` of a condition that is always
true. The body is run symbolically 8 times, each integer bit an affine form over the bits the
loop starts from; the rewrite applies when one wider local (the CRC) and at most one i8 local (the
byte; CRC-32 code often xors the byte in before the loop) have the shape above, and every other local the body writes ends with a constant.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Callable

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects import krt
from kiln.dialects.ir_utils import OpBuilder

#: the trip count rewritten: one byte of bit steps
STEPS = 8
#: the bit of an affine form that stands for the constant 1 (variables are bits 0..71: the CRC's
#: up to 64, then the byte's 8)
ONE = 1 << 72
_BYTE_AT = 64

Bits = tuple[int, ...]  # one affine form per bit, least significant first


class NotLinear(Exception):
    """The loop does something this pass does not model."""


def _width(t: object) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    raise NotLinear(f"type {t}")


def constant(value: int, width: int) -> Bits:
    return tuple(ONE if (value >> j) & 1 else 0 for j in range(width))


def as_int(bits: Bits) -> int | None:
    """The value when every bit is constant (unsigned), else None."""
    if any(b & (ONE - 1) for b in bits):
        return None
    return sum(1 << j for j, b in enumerate(bits) if b)


def _signed(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


def _range(bits: Bits, signed: bool) -> tuple[int, int]:
    """The least and largest values ``bits`` can take (each variable bit free)."""
    lo = sum(1 << j for j, b in enumerate(bits) if b == ONE)
    hi = sum(1 << j for j, b in enumerate(bits) if b)
    width = len(bits)
    if signed and bits[-1]:
        if bits[-1] != ONE:
            raise NotLinear("sign bit not constant")
        return _signed(lo, width), _signed(hi, width)
    return lo, hi


_COMPARE: dict[str, tuple[Callable[[int, int], bool], bool]] = {
    "slt": (operator.lt, True), "sle": (operator.le, True), "sgt": (operator.gt, True), "sge": (operator.ge, True),
    "ult": (operator.lt, False), "ule": (operator.le, False), "ugt": (operator.gt, False), "uge": (operator.ge, False),
}
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def _compare(pred: str, a: Bits, b: Bits) -> Bits:
    """``cmpi``: constant when the ranges decide it; ``x != 0`` / ``x == 0`` of one variable bit is that bit."""
    x, y = as_int(a), as_int(b)
    if pred in ("eq", "ne"):
        if y is None:
            a, b, x, y = b, a, y, x
        if y == 0:
            live = [f for f in a if f]
            if x is not None:
                return constant(int((x == 0) == (pred == "eq")), 1)
            if len(live) == 1:  # one bit, the rest constant zeros: x != 0 is that bit
                return (live[0] if pred == "ne" else live[0] ^ ONE,)
        raise NotLinear(f"cmpi {pred}")
    compare, signed = _COMPARE[pred]
    (alo, ahi), (blo, bhi) = _range(a, signed), _range(b, signed)
    if compare(alo, bhi) and compare(ahi, blo) and compare(alo, blo) and compare(ahi, bhi):
        return constant(1, 1)
    if not (compare(alo, bhi) or compare(ahi, blo) or compare(alo, blo) or compare(ahi, bhi)):
        return constant(0, 1)
    raise NotLinear(f"cmpi {pred} undecided")


def _select(c: Bits, a: Bits, b: Bits) -> Bits:
    """c ? a : b for a one-bit form c: b ^ (c & (a ^ b)), linear where a ^ b is constant."""
    (cond,) = c
    if cond in (0, ONE):
        return a if cond else b
    out = []
    for x, y in zip(a, b):
        d = x ^ y
        if d & (ONE - 1):
            raise NotLinear("select of values differing by a variable")
        out.append(y ^ (cond if d else 0))
    return tuple(out)


def _shift_amount(b: Bits, width: int) -> int:
    n = as_int(b)
    if n is None or n >= width:
        raise NotLinear("shift by a variable")
    return n


def _and(a: Bits, b: Bits) -> Bits:
    if as_int(b) is None:
        a, b = b, a
    if as_int(b) is None:
        raise NotLinear("and of two variables")
    return tuple(x if y else 0 for x, y in zip(a, b))


def _or(a: Bits, b: Bits) -> Bits:
    if as_int(b) is None:
        a, b = b, a
    if as_int(b) is None:
        raise NotLinear("or of two variables")
    return tuple(ONE if y else x for x, y in zip(a, b))


def _binary_constant(fn: Callable[[int, int], int], a: Bits, b: Bits, signed: bool = False) -> Bits:
    x, y = as_int(a), as_int(b)
    if x is None or y is None:
        raise NotLinear("arithmetic on variables")
    w = len(a)
    if signed:
        x, y = _signed(x, w), _signed(y, w)
    return constant(fn(x, y) % (1 << w), w)


_BINARY: dict[type[Operation], Callable[[Bits, Bits], Bits]] = {
    arith.XOrIOp: lambda a, b: tuple(x ^ y for x, y in zip(a, b)),
    arith.AndIOp: _and,
    arith.OrIOp: _or,
    arith.ShRSIOp: lambda a, b: tuple(a[min(j + _shift_amount(b, len(a)), len(a) - 1)] for j in range(len(a))),
    arith.ShRUIOp: lambda a, b: tuple(a[j + n] if j + n < len(a) else 0 for n in [_shift_amount(b, len(a))]
                                      for j in range(len(a))),
    arith.ShLIOp: lambda a, b: tuple(a[j - n] if j >= n else 0 for n in [_shift_amount(b, len(a))]
                                     for j in range(len(a))),
    arith.AddiOp: lambda a, b: _binary_constant(operator.add, a, b),
    arith.SubiOp: lambda a, b: _binary_constant(operator.sub, a, b),
    arith.MinUIOp: lambda a, b: _binary_constant(min, a, b),
    arith.MaxUIOp: lambda a, b: _binary_constant(max, a, b),
    arith.MinSIOp: lambda a, b: _binary_constant(min, a, b, signed=True),
    arith.MaxSIOp: lambda a, b: _binary_constant(max, a, b, signed=True),
}


@dataclass
class Machine:
    """The symbolic state: each SSA value's and each 0-d local's bits."""

    values: dict[SSAValue, Bits] = field(default_factory=dict)
    locals: dict[SSAValue, Bits] = field(default_factory=dict)

    def get(self, v: SSAValue) -> Bits:
        if v in self.values:
            return self.values[v]
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return constant(owner.value.value.data % (1 << _width(v.type)), _width(v.type))
        raise NotLinear(f"value from outside: {owner}")

    def run(self, block: Block) -> None:
        for op in block.ops:
            self.step(op)

    def step(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp | scf.YieldOp):
            return
        if isinstance(op, memref.AllocaOp) and isinstance(op.memref.type, MemRefType) and not op.memref.type.get_shape():
            return
        if isinstance(op, memref.LoadOp) and not op.indices:
            if op.memref not in self.locals:
                raise NotLinear("load of a local not yet written")
            self.values[op.res] = self.locals[op.memref]
        elif isinstance(op, memref.StoreOp) and not op.indices and isinstance(op.memref.owner, memref.AllocaOp):
            self.locals[op.memref] = self.get(op.value)
        elif type(op) in _BINARY:
            self.values[op.results[0]] = _BINARY[type(op)](self.get(op.operands[0]), self.get(op.operands[1]))
        elif isinstance(op, arith.TruncIOp | arith.IndexCastOp | arith.ExtUIOp | arith.ExtSIOp):
            a, w = self.get(op.operands[0]), _width(op.results[0].type)
            pad = a[-1] if isinstance(op, arith.ExtSIOp) or (isinstance(op, arith.IndexCastOp) and w > len(a)) else 0
            self.values[op.results[0]] = tuple(a[j] if j < len(a) else pad for j in range(w))
        elif isinstance(op, arith.CmpiOp):
            pred = _PREDICATES[op.predicate.value.data]
            self.values[op.result] = _compare(pred, self.get(op.lhs), self.get(op.rhs))
        elif isinstance(op, arith.SelectOp):
            self.values[op.result] = _select(self.get(op.cond), self.get(op.lhs), self.get(op.rhs))
        elif isinstance(op, krt.CheckOp):
            if self.locals.get(op.cond) != constant(1, 1):
                raise NotLinear("a check that may fail")
        elif isinstance(op, scf.IfOp):
            self._branch(op)
        else:
            raise NotLinear(op.name)

    def _branch(self, op: scf.IfOp) -> None:
        """Both branches run on copies; each local and result is the select of the two."""
        cond = self.get(op.cond)
        sides = []
        for region in (op.true_region, op.false_region):
            side = Machine(dict(self.values), dict(self.locals))
            if region.blocks:
                side.run(region.blocks[0])
            last = region.blocks[0].last_op if region.blocks else None
            yielded = [side.get(v) for v in last.operands] if isinstance(last, scf.YieldOp) else []
            sides.append((side, yielded))
        (then, then_out), (other, other_out) = sides
        for local in set(then.locals) | set(other.locals):
            if local in then.locals and local in other.locals:
                self.locals[local] = _select(cond, then.locals[local], other.locals[local])
            else:
                raise NotLinear("a local written on one side only")
        for result, a, b in zip(op.results, then_out, other_out):
            self.values[result] = _select(cond, a, b)


def _variables(width: int, at: int) -> Bits:
    return tuple(1 << (at + j) for j in range(width))


def _counter(loop: scf.WhileOp) -> SSAValue | None:
    """The local the condition tests as ``local < STEPS``, when it is set to 0 just before the loop."""
    ops = list(loop.before_region.block.ops)
    cond = ops[-1]
    compares = [o for o in ops if isinstance(o, arith.CmpiOp)]
    if loop.results or loop.arguments or not isinstance(cond, scf.ConditionOp) or len(compares) != 1:
        return None
    compare = compares[0]
    tested = cond.condition
    if isinstance(tested.owner, memref.LoadOp):  # the condition read back from the local it was stored in
        stores = [o for o in ops if isinstance(o, memref.StoreOp) and o.memref is tested.owner.memref]
        tested = stores[0].value if len(stores) == 1 else tested
    if tested is not compare.result or _PREDICATES[compare.predicate.value.data] != "slt":
        return None
    if not (isinstance(compare.rhs.owner, arith.ConstantOp) and isinstance(compare.rhs.owner.value, IntegerAttr)
            and compare.rhs.owner.value.value.data == STEPS and isinstance(compare.lhs.owner, memref.LoadOp)):
        return None
    counter = compare.lhs.owner.memref
    before = loop.prev_op
    if not (isinstance(before, memref.StoreOp) and before.memref is counter):
        return None
    start = before.value.owner
    if isinstance(start, memref.LoadOp) and isinstance(start.memref.owner, memref.GetGlobalOp):
        return counter if _global_value(start.memref.owner) == 0 else None
    if isinstance(start, arith.ConstantOp) and isinstance(start.value, IntegerAttr) and start.value.value.data == 0:
        return counter
    return None


def _plain_condition(loop: scf.WhileOp) -> bool:
    """The condition region only loads, compares and stores locals."""
    return all(isinstance(o, memref.AllocaOp | memref.LoadOp | memref.StoreOp | arith.ConstantOp | arith.CmpiOp
                          | scf.ConditionOp) for o in loop.before_region.block.ops)


def _global_value(get: memref.GetGlobalOp) -> int | None:
    """A scalar constant global's value."""
    module = get.get_toplevel_object()
    for op in module.walk() if isinstance(module, ModuleOp) else ():
        if isinstance(op, memref.GlobalOp) and op.sym_name.data == get.name_.string_value() and op.constant:
            init = op.initial_value
            if isinstance(init, DenseIntOrFPElementsAttr) and len(init.get_values()) == 1:
                return int(init.get_values()[0])
    return None


@dataclass
class Crc:
    """The rewrite found: crc = (crc >> 8) ^ table[(crc ^ byte) & 0xff]; the other locals' final values."""

    crc: SSAValue
    byte: SSAValue | None  # None: the loop shifts the CRC alone (the byte was xored in before it)
    arithmetic: bool  # the shift is arithmetic (shrsi)
    table: list[int]
    finals: dict[SSAValue, int]


def _table_step(out: Bits, width: int, arithmetic: bool, with_byte: bool) -> list[int] | None:
    """T when ``out`` (the CRC's bits after 8 steps) is (crc >> 8) ^ M((crc ^ byte) & 0xff) ^ k
    (``(crc >> 8) ^ M(crc & 0xff) ^ k`` without a byte)."""
    rows = []
    for j in range(width):
        src = j + 8
        shifted = (1 << src) if src < width else ((1 << (width - 1)) if arithmetic else 0)
        rest = out[j] ^ shifted
        low, byte, const = rest & 0xFF, (rest >> _BYTE_AT) & 0xFF, rest & ONE
        if rest & ~(0xFF | (0xFF << _BYTE_AT) | ONE) or (low != byte if with_byte else byte):
            return None
        rows.append((low, const))
    return [sum(((bin(low & v).count("1") & 1) ^ bool(const)) << j for j, (low, const) in enumerate(rows))
            for v in range(256)]


def analyse(loop: scf.WhileOp) -> Crc | None:
    """The CRC shape of ``loop`` (see the module docstring), or None."""
    counter = _counter(loop)
    if counter is None:
        return None
    body = loop.after_region.block
    written = {op.memref for op in body.walk() if isinstance(op, memref.StoreOp)}
    if any(not isinstance(m.owner, memref.AllocaOp) for m in written) or not _plain_condition(loop):
        return None
    carried = [m for m in written if m is not counter and not loop.is_ancestor(m.owner)]  # type: ignore[arg-type]
    bytes_ = [m for m in carried if isinstance(m.type, MemRefType) and m.type.element_type == i8]
    wide = [m for m in carried if m not in bytes_]
    if len(bytes_) > 1 or len(wide) != 1:
        return None
    byte, (crc,) = (bytes_[0] if bytes_ else None), wide
    if not (isinstance(crc.type, MemRefType) and isinstance(crc.type.element_type, IntegerType)):
        return None  # a float or index state: not a CRC
    width = _width(crc.type.element_type)
    if width < 8:
        return None  # (narrower than the byte a table step takes: a flag stepped 8 times, kiln.fuzz 20702-616)
    machine = Machine(locals={crc: _variables(width, 0)} | ({byte: _variables(8, _BYTE_AT)} if byte else {}))
    try:
        for i in range(STEPS):
            machine.locals[counter] = constant(i, 64)
            machine.run(body)
            if as_int(machine.locals[counter]) != i + 1:
                return None
    except NotLinear:
        return None
    finals: dict[SSAValue, int] = {}
    for local in carried:
        if local is not crc and (value := as_int(machine.locals[local])) is not None:
            finals[local] = value
    if set(finals) != ({byte} if byte else set()):
        return None
    for arithmetic in (True, False):
        table = _table_step(machine.locals[crc], width, arithmetic, byte is not None)
        if table is not None:
            return Crc(crc, byte, arithmetic, table, finals | {counter: STEPS})
    return None


def _rewrite(loop: scf.WhileOp, found: Crc, module: ModuleOp, name: str) -> None:
    crc_type = found.crc.type
    assert isinstance(crc_type, MemRefType)
    t = crc_type.element_type
    table_type = MemRefType(t, [256])
    values = DenseIntOrFPElementsAttr.from_list(TensorType(t, [256]), [_signed(v, _width(t)) for v in found.table])
    Rewriter.insert_op(memref.GlobalOp.get(StringAttr(name), table_type, values, constant=UnitAttr()),
                       InsertPoint.at_start(module.body.block))
    b = OpBuilder(loop, loop.location)
    crc = b.value(memref.LoadOp.get(found.crc, []))
    mixed = crc
    if found.byte is not None:
        mixed = b.value(arith.XOrIOp(crc, b.value(arith.ExtUIOp(b.value(memref.LoadOp.get(found.byte, [])), t))))
    low = b.value(arith.AndIOp(mixed, b.value(arith.ConstantOp(IntegerAttr(0xFF, t)))))
    index = b.value(arith.IndexCastOp(low, IndexType()))
    table = b.value(memref.GetGlobalOp(name, table_type))
    eight = b.value(arith.ConstantOp(IntegerAttr(8, t)))
    shifted = b.value((arith.ShRSIOp if found.arithmetic else arith.ShRUIOp)(crc, eight))
    step = b.value(arith.XOrIOp(shifted, b.value(memref.LoadOp.get(table, [index]))))
    b.add(memref.StoreOp.get(step, found.crc, []))
    for local, value in found.finals.items():
        assert isinstance(local.type, MemRefType)
        lt = local.type.element_type
        b.add(memref.StoreOp.get(b.value(arith.ConstantOp(IntegerAttr(_signed(value, _width(lt)), lt))), local, []))
    Rewriter.erase_op(loop)


@dataclass(frozen=True)
class KilnCrcTables(ModulePass):
    """Replace 8-step bitwise CRC loops by a byte-table step."""

    name = "kiln-crc-tables"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops = [(loop, found) for loop in op.walk() if isinstance(loop, scf.WhileOp) and (found := analyse(loop))]
        taken = {g.sym_name.data for g in op.walk() if isinstance(g, memref.GlobalOp)}
        for n, (loop, found) in enumerate(loops):
            name = f"__kiln_crc_table_{n}"
            while name in taken:
                name += "_"
            _rewrite(loop, found, op, name)
