"""scf control flow, func.call and branchless selects → C statements.

Values carried by loops and produced by ifs become C locals declared before
the statement ("carried" variables); yields assign them. A carried memref is
a pointer local plus one local per runtime size/stride. An ``arith.select`` that
kiln-if-to-select made of an if (``kiln.branchless``) is a test and a conditional move.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from kiln.backends.c import check_ops, scalar_ops  # noqa: F401  (scalar_ops first: its arith.select rule is wrapped below)
from kiln.backends.c.c_types import c_type, element_c_type
from kiln.backends.c.dispatch import HANDLERS, Handler, handles
from kiln.backends.c.errors import CEmitError

from kiln.backends.c.abi import c_symbol, return_type
from kiln.backends.c.memref_desc import MemrefDesc
from kiln.dialects.contracts import BRANCHLESS_ATTR
from kiln.dialects.ir_utils import constant_int

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter



def _declare(em: FunctionEmitter, ty: Attribute, hint: str | None, init: SSAValue | None) -> str | MemrefDesc:
    """Declare the locals that carry one value across a region boundary."""
    if not isinstance(ty, MemRefType):
        name = em.fresh(hint)
        em.line(f"{c_type(ty)} {name}{'' if init is None else ' = ' + em.expr(init)};")
        return name
    elem = element_c_type(ty)
    src = em.memref(init) if init is not None else None
    ptr = em.fresh(hint, "buf")
    em.line(f"{elem} *{ptr}{'' if src is None else ' = ' + src.ptr};")
    strides = ty.get_strides() or [None] * ty.get_num_dims()
    sizes: list[int | str] = []
    stride_vars: list[int | str] = []
    for d, (size, stride) in enumerate(zip(ty.get_shape(), strides, strict=True)):
        for static, kind, out, source in (
            (size if size >= 0 else None, "d", sizes, src.sizes if src else None),
            (stride, "s", stride_vars, src.strides if src else None),
        ):
            if static is not None:
                out.append(static)
                continue
            var = em.fresh(f"{ptr}_{kind}{d}")
            em.line(f"int64_t {var}{'' if source is None else f' = {source[d]}'};")
            out.append(var)
    return MemrefDesc(ptr, elem, tuple(sizes), tuple(stride_vars))


def _declare_all(
    em: FunctionEmitter, values: Sequence[SSAValue], hints: Sequence[SSAValue], inits: Sequence[SSAValue] | None
) -> list[str | MemrefDesc]:
    out = []
    for i, value in enumerate(values):
        hint = value.name_hint or (hints[i].name_hint if i < len(hints) else None)
        out.append(_declare(em, value.type, hint, None if inits is None else inits[i]))
    return out


def _bind(em: FunctionEmitter, values: Sequence[SSAValue], carried: Sequence[str | MemrefDesc]) -> None:
    for value, c in zip(values, carried, strict=True):
        if isinstance(c, str):
            em.bind(value, c)
        else:
            em.bind_memref(value, c)


def _assign(em: FunctionEmitter, carried: Sequence[str | MemrefDesc], values: Sequence[SSAValue]) -> None:
    """carried[i] = values[i] for all i, as a parallel assignment (temporaries on hazards)."""
    pairs: list[tuple[str, str, str]] = []  # (target, source, C type)
    for c, value in zip(carried, values, strict=True):
        if isinstance(c, str):
            pairs.append((c, em.expr(value), c_type(value.type)))
            continue
        src = em.memref(value)
        pairs.append((c.ptr, src.ptr, f"{c.elem} *"))
        for target, source in zip(c.sizes + c.strides, src.sizes + src.strides, strict=True):
            if isinstance(target, str):
                pairs.append((target, str(source), "int64_t"))
    pairs = [p for p in pairs if p[0] != p[1]]
    targets = {t for t, _, _ in pairs}
    read = {tok for _, s, _ in pairs for tok in re.findall(r"[A-Za-z_]\w*", s)}
    if len(pairs) > 1 and targets & read:
        temps = [em.fresh(f"{t}_next") for t, _, _ in pairs]
        for temp, (_, source, ty) in zip(temps, pairs, strict=True):
            em.line(f"{ty}{'' if ty.endswith('*') else ' '}{temp} = {source};")
        pairs = [(t, temp, ty) for temp, (t, _, ty) in zip(temps, pairs, strict=True)]
    for target, source, _ in pairs:
        em.line(f"{target} = {source};")


def _region(em: FunctionEmitter, block: Block, carried: Sequence[str | MemrefDesc]) -> None:
    """Emit a region's ops and assign its scf.yield operands to the carried locals."""
    terminator = em.emit_ops(block)
    if carried:
        if not isinstance(terminator, scf.YieldOp):
            raise CEmitError("expected scf.yield")
        _assign(em, carried, list(terminator.arguments))


@handles(scf.ForOp)
def _for(em: FunctionEmitter, op: scf.ForOp) -> None:
    block = op.body.block
    carried = _declare_all(em, list(op.res), list(block.args[1:]), list(op.iter_args))
    iv = em.fresh(block.args[0].name_hint, "i")
    lb, ub, step = em.expr(op.lb), em.expr(op.ub), em.expr(op.step)
    em.open(f"for ({c_type(op.lb.type)} {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
    em.bind(block.args[0], iv)
    _bind(em, list(block.args[1:]), carried)
    _region(em, block, carried)
    em.close()
    _bind(em, list(op.res), carried)


@handles(scf.IfOp)
def _if(em: FunctionEmitter, op: scf.IfOp) -> None:
    carried = _declare_all(em, list(op.output), [], None)
    em.open(f"if ({em.expr(op.cond)}) {{")
    _region(em, op.true_region.block, carried)
    else_block = op.false_region.blocks[0] if op.false_region.blocks else None
    if else_block is not None and (carried or len(else_block.ops) > 1):
        em.close("} else {")
        em.depth += 1
        _region(em, else_block, carried)
    em.close()
    _bind(em, list(op.output), carried)


def _branchless(plain: Handler) -> Handler:
    """``kiln.branchless`` integer selects as ``kiln_select_mask``: ``test`` + ``cmov`` on x86-64,
    where gcc compiles even a ternary of two computed values to a branch; others as ``plain``."""

    def handler(em: FunctionEmitter, op: arith.SelectOp) -> None:
        if BRANCHLESS_ATTR not in op.attributes or not isinstance(op.result.type, IntegerType | IndexType):
            plain(em, op)
            return
        test, mask, swap = _mask_test(em, op.cond)
        if test != f"(int64_t){em.expr(op.cond)}":  # tested in place: the bool may be unused now
            em.line(f"(void){em.expr(op.cond)};")
        then, other = em.expr(op.lhs), em.expr(op.rhs)
        if swap:
            then, other = other, then
        select = em.use_helper("kiln_select_mask")
        em.define(op.result, f"({c_type(op.result.type)}){select}({test}, {mask}, {then}, {other})")

    return handler


def _mask_test(em: FunctionEmitter, cond: SSAValue) -> tuple[str, str, bool]:
    """(x, m, swap): ``cond`` is ``(x & m) != 0``, or ``== 0`` when swap. A ``cmpi eq/ne`` of
    ``x & c`` with 0 (``x % 2 == 0`` lowers to it) is tested in place, as LLVM does, rather
    than first computed as a bool: two fewer instructions on a loop's critical path."""
    owner = cond.owner
    if isinstance(owner, arith.CmpiOp) and owner.predicate.value.data in (0, 1):  # eq, ne
        lhs, rhs = owner.lhs, owner.rhs
        if constant_int(lhs) == 0:
            lhs, rhs = rhs, lhs
        if constant_int(rhs) == 0 and isinstance(lhs.type, IntegerType | IndexType):
            swap = owner.predicate.value.data == 0
            and_op = lhs.owner
            if isinstance(and_op, arith.AndIOp):
                for value, mask in ((and_op.lhs, and_op.rhs), (and_op.rhs, and_op.lhs)):
                    c = constant_int(mask)
                    if c is not None and -(2**31) <= c < 2**31:
                        return f"(int64_t){em.expr(value)}", f"(int64_t){em.expr(mask)}", swap
            return f"(int64_t){em.expr(lhs)}", "-1", swap
    return f"(int64_t){em.expr(cond)}", "1", False


handles(arith.SelectOp)(_branchless(HANDLERS[arith.SelectOp]))


@handles(scf.WhileOp)
def _while(em: FunctionEmitter, op: scf.WhileOp) -> None:
    """while (1) { before; results = cond args; if (!cond) break; after; before args = yield }."""
    before, after = op.before_region.block, op.after_region.block
    loop_vars = _declare_all(em, list(before.args), [], list(op.arguments))
    results = _declare_all(em, list(op.res), list(after.args), None)
    em.open("while (1) {")
    _bind(em, list(before.args), loop_vars)
    condition = em.emit_ops(before)
    if not isinstance(condition, scf.ConditionOp):
        raise CEmitError("scf.while's before region must end with scf.condition")
    _assign(em, results, list(condition.args))
    em.line(f"if (!{em.expr(condition.condition)}) break;")
    _bind(em, list(after.args), results)
    _region(em, after, loop_vars)
    em.close()
    _bind(em, list(op.res), results)


@handles(scf.ParallelOp)
def _parallel(em: FunctionEmitter, op: scf.ParallelOp) -> None:
    """Sequential loop nest; scf.reduce combines into accumulators declared before it."""
    block = op.body.block
    accumulators = _declare_all(em, list(op.res), [], list(op.initVals))
    if not any(isinstance(p, scf.ParallelOp) for p in _ancestors(op)):
        em.line("/* parallel loop (run sequentially) */")
    ivs = []
    for arg, lb, ub, step in zip(block.args, op.lowerBound, op.upperBound, op.step, strict=True):
        iv = em.fresh(arg.name_hint, "i")
        em.open(f"for (int64_t {iv} = {em.expr(lb)}; {iv} < {em.expr(ub)}; {iv} += {em.expr(step)}) {{")
        em.bind(arg, iv)
        ivs.append(iv)
    reduce = em.emit_ops(block)
    if isinstance(reduce, scf.ReduceOp):
        for acc, value, region in zip(accumulators, reduce.args, reduce.reductions, strict=True):
            em.open("{")
            lhs, rhs = region.block.args
            _bind(em, [lhs, rhs], [acc, em.expr(value)])
            ret = em.emit_ops(region.block)
            if not isinstance(ret, scf.ReduceReturnOp):
                raise CEmitError("scf.reduce region must end with scf.reduce.return")
            _assign(em, [acc], [ret.result])
            em.close()
    for _ in ivs:
        em.close()
    _bind(em, list(op.res), accumulators)


def _ancestors(op: Operation) -> list[Operation]:
    out = []
    parent = op.parent_op()
    while parent is not None:
        out.append(parent)
        parent = parent.parent_op()
    return out


@handles(scf.IndexSwitchOp)
def _index_switch(em: FunctionEmitter, op: scf.IndexSwitchOp) -> None:
    carried = _declare_all(em, list(op.output), [], None)
    em.open(f"switch ({em.expr(op.arg)}) {{")
    for case, region in zip(op.cases.get_values(), op.case_regions, strict=True):
        em.open(f"case {case}: {{")
        _region(em, region.block, carried)
        em.line("break;")
        em.close()
    em.open("default: {")
    _region(em, op.default_region.block, carried)
    em.line("break;")
    em.close()
    em.close()
    _bind(em, list(op.output), carried)


@handles(scf.ExecuteRegionOp)
def _execute_region(em: FunctionEmitter, op: scf.ExecuteRegionOp) -> None:
    if len(op.region.blocks) != 1:
        raise CEmitError("scf.execute_region with several blocks is not supported")
    carried = _declare_all(em, list(op.outs), [], None)
    em.open("{")
    _region(em, op.region.block, carried)
    em.close()
    _bind(em, list(op.outs), carried)


@handles(func.CallOp)
def _call(em: FunctionEmitter, op: func.CallOp) -> None:
    """Call under kiln's ABI: memrefs expand to pointer + dynamic sizes; extra results by pointer."""
    name = op.callee.string_value()
    callee = em.module.funcs.get(name)
    if callee is None:
        raise CEmitError(f"call to unknown function @{name}")
    return_type(callee)
    args: list[str] = []
    for value in op.arguments:
        if isinstance(value.type, MemRefType):
            desc = em.memref(value)
            args.append(desc.ptr)
            args += [str(s) for s, d in zip(desc.sizes, value.type.get_shape(), strict=True) if d < 0]
        else:
            args.append(em.expr(value))
    results = list(op.res)
    for extra in results[1:]:
        var = em.fresh(extra.name_hint)
        em.line(f"{c_type(extra.type)} {var};")
        em.bind(extra, var)
        args.append(f"&{var}")
    call = f"{c_symbol(callee)}({', '.join(args)})"
    if results:
        em.define(results[0], call)
    else:
        em.line(f"{call};")
    if check_ops.may_fail(callee):  # the callee stopped on a failed krt.check: so does the caller
        em.line(f"if (kiln_failed) {check_ops.early_return(em.fn)}")
