"""``kiln-gpu-outline``: map outermost ``scf.parallel`` nests to GPU kernels and outline them.

Expects: the ``parallel`` stage (``convert-linalg-to-parallel-loops``): ``func.func``s over
memrefs whose parallel work is ``scf.parallel`` nests; anything else (``scf.for``,
``scf.while``, ``scf.if``, scalar arith, allocation) stays on the host.

Produces: one ``gpu.func`` kernel per outermost ``scf.parallel`` (not nested in another), in the
``gpu.module @kernels`` (created, with ``gpu.container_module``, unless ``kiln-gpu-tile-matmul`` made it), named
``<func>_kernel<N>``; the loop is replaced by host arithmetic choosing the launch size and a
``gpu.launch_func`` passing every value the loop captured (constants are cloned instead).
The mapping (see ``gpu/kernels.py``):

* a reduction nest with few outer points (at most ``TREE_MAX_POINTS`` when static) and a
  reduction space that is dynamic or at least ``TREE_MIN_SPAN``: ``block_tree`` with
  ``TREE_BLOCK`` threads and one block per outer point (up to ``MAX_GRID``);
* otherwise ``grid_stride``: blocks of ``min(256, total rounded up to 32)`` threads,
  ``ceil(total / block)`` blocks capped at ``MAX_GRID`` (the loop covers the rest), at least 1.

Kernels carry the ``scf.parallel``'s location.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr, UnknownLoc
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects.ir_utils import constant_int
from kiln.passes.gpu.builder import IndexBuilder
from kiln.passes.gpu.kernels import TREE_BLOCK, block_tree, grid_stride, tree_parts
from kiln.passes.kiln_gpu_tile_matmul import GPU_MODULE, gpu_module

MAX_GRID = 65535
TREE_MAX_POINTS = 4096
TREE_MIN_SPAN = 32


def _inside(op: Operation, value: SSAValue) -> bool:
    owner = value.owner
    if isinstance(value, BlockArgument):
        parent = owner.parent_op()  # type: ignore[union-attr]
        return parent is not None and (parent is op or op.is_ancestor(parent))
    return op.is_ancestor(owner)  # type: ignore[arg-type]


def _captures(loop: scf.ParallelOp) -> tuple[list[SSAValue], list[arith.ConstantOp]]:
    """Values the loop uses from outside (first-use order), and the constants among them."""
    values: list[SSAValue] = []
    constants: list[arith.ConstantOp] = []
    seen: set[SSAValue] = set()
    for op in loop.walk():
        for operand in op.operands:
            if operand in seen or _inside(loop, operand):
                continue
            seen.add(operand)
            if isinstance(operand.owner, arith.ConstantOp):
                constants.append(operand.owner)
            else:
                values.append(operand)
    return values, constants


def _static_total(loop: scf.ParallelOp) -> int | None:
    total = 1
    for lb, ub, st in zip(loop.lowerBound, loop.upperBound, loop.step, strict=True):
        lo, hi, step = constant_int(lb), constant_int(ub), constant_int(st)
        if lo is None or hi is None or step is None:
            return None
        total *= max(0, -(-(hi - lo) // step))
    return total


def _uses_tree(loop: scf.ParallelOp) -> bool:
    parts = tree_parts(loop)
    if parts is None:
        return False
    points, span = _static_total(loop), _static_total(parts[1])
    return (points is not None and points <= TREE_MAX_POINTS) and (span is None or span >= TREE_MIN_SPAN)


def _launch_sizes(b: IndexBuilder, loop: scf.ParallelOp, tree: bool) -> tuple[SSAValue, SSAValue]:
    """(grid, block) from the loop's iteration space: literals when static, host arithmetic otherwise."""
    static = _static_total(loop)
    if static is not None:
        block_n = TREE_BLOCK if tree else min(256, max(32, -(-static // 32) * 32))
        grid_n = static if tree else -(-static // block_n)
        return b.index(max(1, min(grid_n, MAX_GRID))), b.index(block_n)
    counts = [b.trip_count(lb, ub, st) for lb, ub, st in zip(loop.lowerBound, loop.upperBound, loop.step, strict=True)]
    total = b.product(counts)
    one = b.index(1)
    if tree:
        block = b.index(TREE_BLOCK)
        grid = b.value(arith.MinSIOp(total, b.index(MAX_GRID)))
    else:
        rounded = b.mul(b.value(arith.CeilDivSIOp(total, b.index(32))), b.index(32))
        block = b.value(arith.MinSIOp(b.value(arith.MaxSIOp(rounded, b.index(32))), b.index(256)))
        grid = b.value(arith.MinSIOp(b.value(arith.CeilDivSIOp(total, block)), b.index(MAX_GRID)))
    return b.value(arith.MaxSIOp(grid, one)), block


class _Outliner:
    """Outlines the kernels of one module into its ``gpu.module``."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self.kernels = Block()
        self.names: set[str] = set()

    def run(self) -> None:
        for fn in [op for op in self.module.ops if isinstance(op, func.FuncOp)]:
            loops = [op for op in fn.walk() if isinstance(op, scf.ParallelOp) and not self._nested(op)]
            for i, loop in enumerate(loops):
                self._outline(loop, f"{fn.sym_name.data}_kernel{i}")
        if self.kernels.ops:
            target = gpu_module(self.module).body.block
            for kernel in list(self.kernels.ops):
                kernel.detach()
                target.add_op(kernel)

    @staticmethod
    def _nested(loop: scf.ParallelOp) -> bool:
        parent = loop.parent_op()
        while parent is not None and not isinstance(parent, func.FuncOp):
            if isinstance(parent, scf.ParallelOp):
                return True
            parent = parent.parent_op()
        return False

    def _outline(self, loop: scf.ParallelOp, name: str) -> None:
        if loop.results:  # what convert-linalg-to-parallel-loops makes reduces into memrefs
            where = "" if isinstance(loop.location, UnknownLoc) else f" at {loop.location}"
            raise DiagnosticException(
                f"kiln-gpu-outline: an outermost scf.parallel with results{where} (a reduction into "
                "SSA values) is not supported; reduce into a memref"
            )
        args, constants = _captures(loop)
        tree = _uses_tree(loop)
        entry = Block(arg_types=[a.type for a in args])
        kb = IndexBuilder(entry, loop.location)
        mapping: dict[SSAValue, SSAValue] = dict(zip(args, entry.args, strict=True))
        for const in constants:
            mapping[const.result] = kb.value(const.clone())
        (block_tree if tree else grid_stride)(kb, loop, mapping)
        kb.add(gpu.ReturnOp([]))
        kernel = gpu.FuncOp(name, ([a.type for a in args], []), Region(entry), kernel=True)
        kernel.location = loop.location
        self.kernels.add_op(kernel)
        host = IndexBuilder(loop, loop.location)
        grid, block = _launch_sizes(host, loop, tree)
        one = host.index(1)
        host.add(
            gpu.LaunchFuncOp(
                SymbolRefAttr(GPU_MODULE, [StringAttr(name)]), [grid, one, one], [block, one, one], kernelOperands=args
            )
        )
        loop.detach()
        loop.erase()


@dataclass(frozen=True)
class KilnGpuOutlinePass(ModulePass):
    """Turn every outermost ``scf.parallel`` into a launched ``gpu.func`` kernel."""

    name = "kiln-gpu-outline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _Outliner(op).run()
