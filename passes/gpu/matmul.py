"""The shared-memory tiled matmul kernel of ``kiln-gpu-tile-matmul``.

A block of ``THREADS``×``THREADS`` threads computes a ``TILE``×``TILE`` tile of ``C`` (each thread
a ``REG``×``REG`` register block, rows ``ty + THREADS*r`` and columns ``tx + THREADS*c`` of the
tile, so neighbouring threads touch neighbouring columns). For each ``K_TILE``-wide slab of the
reduction, the block stages the ``A`` and ``B`` tiles in ``__shared__`` memory (every thread loads
``TILE*K_TILE / THREADS²`` elements of each, zero outside the matrices), synchronizes, and every
thread runs the linalg body ``acc = body(a, b, acc)`` over the slab in order ``k = 0, 1, ...``;
a second barrier protects the tiles from the next slab's loads. Accumulators start from ``C``'s
value and only in-range points are stored, so each output sees exactly the sequential order of
the linalg op (bit-identical to one thread per point; no fma under ``--fmad=false``).
"""

from __future__ import annotations

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Region, SSAValue

from kiln.dialects.contracts import SHARED_SPACE
from kiln.passes.gpu.builder import IndexBuilder

TILE = 32
THREADS = 16
REG = TILE // THREADS
K_TILE = 16


def _zero(b: IndexBuilder, ty: Attribute) -> SSAValue:
    attr = FloatAttr(0.0, ty) if isinstance(ty, AnyFloat) else IntegerAttr(0, ty)  # type: ignore[arg-type]
    return b.value(arith.ConstantOp(attr))


def dim_size(b: IndexBuilder, ref: SSAValue, i: int) -> SSAValue:
    """Size ``i`` of a memref: a constant when static."""
    assert isinstance(ref.type, MemRefType)
    size = ref.type.get_shape()[i]
    return b.index(size) if size >= 0 else b.value(memref.DimOp(ref, b.index(i)))


def _all(b: IndexBuilder, conds: list[SSAValue]) -> SSAValue:
    result = conds[0]
    for c in conds[1:]:
        result = b.value(arith.AndIOp(result, c))
    return result


def _lt(b: IndexBuilder, x: SSAValue, bound: SSAValue) -> SSAValue:
    return b.value(arith.CmpiOp(x, bound, "slt"))


def _guarded_load(b: IndexBuilder, ref: SSAValue, indices: list[SSAValue], ok: SSAValue, zero: SSAValue) -> SSAValue:
    """``ok ? ref[indices] : zero``."""
    then = Block()
    tb = IndexBuilder(then, b.location)
    tb.add(scf.YieldOp(tb.value(memref.LoadOp.get(ref, indices))))
    return b.value(scf.IfOp(ok, [zero.type], Region(then), Region(Block([scf.YieldOp(zero)]))))


def _elem(ref: SSAValue) -> Attribute:
    assert isinstance(ref.type, MemRefType)
    return ref.type.get_element_type()


def _stage(b: IndexBuilder, src: SSAValue, tile: SSAValue, cols: int, origin: tuple[SSAValue, SSAValue],
           bounds: tuple[SSAValue, SSAValue], tid: SSAValue) -> None:
    """Every thread copies its share of a ``len/cols``×``cols`` tile of ``src`` at ``origin`` into ``tile``."""
    assert isinstance(tile.type, MemRefType)
    total = tile.type.get_shape()[0]
    zero = _zero(b, _elem(src))
    for q in range(total // (THREADS * THREADS)):
        e = b.add_(tid, b.index(q * THREADS * THREADS))
        row = b.add_(origin[0], b.value(arith.DivUIOp(e, b.index(cols))))
        col = b.add_(origin[1], b.value(arith.RemUIOp(e, b.index(cols))))
        ok = _all(b, [_lt(b, row, bounds[0]), _lt(b, col, bounds[1])])
        b.add(memref.StoreOp.get(_guarded_load(b, src, [row, col], ok, zero), tile, [e]))


def _apply_body(b: IndexBuilder, generic: linalg.GenericOp, a: SSAValue, x: SSAValue, acc: SSAValue) -> SSAValue:
    """Clone the linalg body on (a, b, acc); returns the yielded value."""
    block = generic.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, (a, x, acc), strict=True))
    for op in block.ops:
        if isinstance(op, linalg.YieldOp):
            return mapping.get(op.operands[0], op.operands[0])
        clone = op.clone(value_mapper=mapping)
        b.add(clone)
        mapping.update(zip(op.results, clone.results, strict=True))
    raise AssertionError("linalg body without linalg.yield")


def tiled_matmul(b: IndexBuilder, generic: linalg.GenericOp, a_ref: SSAValue, b_ref: SSAValue, c_ref: SSAValue) -> None:
    """The kernel body (before ``gpu.return``) for ``C[m, n] = body(A[m, k], B[k, n], C[m, n])`` over k."""
    elem = _elem(c_ref)
    a_tile = b.value(memref.AllocaOp.get(_elem(a_ref), shape=[TILE * K_TILE], memory_space=SHARED_SPACE))
    b_tile = b.value(memref.AllocaOp.get(_elem(b_ref), shape=[K_TILE * TILE], memory_space=SHARED_SPACE))
    tx, ty = (b.value(gpu.ThreadIdOp(gpu.DimensionAttr(d))) for d in (gpu.DimensionEnum.X, gpu.DimensionEnum.Y))
    bx, by = (b.value(gpu.BlockIdOp(gpu.DimensionAttr(d))) for d in (gpu.DimensionEnum.X, gpu.DimensionEnum.Y))
    m, n, k = dim_size(b, c_ref, 0), dim_size(b, c_ref, 1), dim_size(b, a_ref, 1)
    row0, col0 = b.mul(by, b.index(TILE)), b.mul(bx, b.index(TILE))
    tid = b.add_(b.mul(ty, b.index(THREADS)), tx)
    rows = [b.add_(row0, b.add_(ty, b.index(THREADS * r))) for r in range(REG)]
    cols = [b.add_(col0, b.add_(tx, b.index(THREADS * c))) for c in range(REG)]
    inside = [[_all(b, [_lt(b, rows[r], m), _lt(b, cols[c], n)]) for c in range(REG)] for r in range(REG)]
    zero = _zero(b, elem)
    init = [_guarded_load(b, c_ref, [rows[r], cols[c]], inside[r][c], zero) for r in range(REG) for c in range(REG)]

    slab = Block(arg_types=[IndexType(), *(v.type for v in init)])
    sb = IndexBuilder(slab, b.location)
    kt = slab.args[0]
    _stage(sb, a_ref, a_tile, K_TILE, (row0, kt), (m, k), tid)
    _stage(sb, b_ref, b_tile, TILE, (kt, col0), (k, n), tid)
    sb.add(gpu.BarrierOp())
    depth = sb.value(arith.MinSIOp(sb.index(K_TILE), sb.value(arith.SubiOp(k, kt))))
    step = Block(arg_types=[IndexType(), *(v.type for v in init)])
    kb = IndexBuilder(step, b.location)
    kk = step.args[0]
    a_vals = [kb.value(memref.LoadOp.get(a_tile, [kb.add_(kb.mul(kb.add_(ty, kb.index(THREADS * r)), kb.index(K_TILE)), kk)]))
              for r in range(REG)]
    b_vals = [kb.value(memref.LoadOp.get(b_tile, [kb.add_(kb.mul(kk, kb.index(TILE)), kb.add_(tx, kb.index(THREADS * c)))]))
              for c in range(REG)]
    accs = list(step.args[1:])
    kb.add(scf.YieldOp(*[_apply_body(kb, generic, a_vals[r], b_vals[c], accs[r * REG + c])
                         for r in range(REG) for c in range(REG)]))
    inner = sb.add(scf.ForOp(sb.index(0), depth, sb.index(1), list(slab.args[1:]), Region(step)))
    sb.add(gpu.BarrierOp())
    sb.add(scf.YieldOp(*inner.results))
    final = b.add(scf.ForOp(b.index(0), k, b.index(K_TILE), init, Region(slab))).results
    for r in range(REG):
        for c in range(REG):
            then = Block()
            tb = IndexBuilder(then, b.location)
            tb.add(memref.StoreOp.get(final[r * REG + c], c_ref, [rows[r], cols[c]]))
            tb.add(scf.YieldOp())
            b.add(scf.IfOp(inside[r][c], [], Region(then), Region(Block([scf.YieldOp()]))))
