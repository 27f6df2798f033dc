"""``kiln-gpu-tile-matmul``: matmul-shaped ``linalg.generic``s on memrefs → shared-memory tiled kernels.

Expects: the buffer level after ``linalg-generalize-named-ops`` (runs before
``convert-linalg-to-parallel-loops`` in the CUDA ``parallel`` stage).

Matches a ``linalg.generic`` with inputs ``A``, ``B`` and output ``C`` (rank-2 memrefs), maps
``(m, k), (k, n) -> (m, n)``, iterators ``[parallel, parallel, reduction]`` and a body of
region-free ops (``mulf``+``addf``, integer or mixed-type variants alike), whose output has at
least ``MIN_POINTS`` points (or a dynamic size; smaller outputs keep the block-tree mapping).
Produces: a ``gpu.func`` ``<func>_matmul<N>`` in ``gpu.module @kernels`` (see ``gpu/matmul.py``)
and, in place of the generic, a ``gpu.launch_func`` with ``ceil(N/TILE)``×``ceil(M/TILE)`` blocks of
``THREADS``×``THREADS`` threads. ``kiln-gpu-outline`` adds the other kernels to the same module.
New ops carry the generic's location.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, SymbolRefAttr, UnitAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from kiln.dialects.ir_utils import constant_int, enclosing
from kiln.passes.gpu.builder import IndexBuilder
from kiln.passes.gpu.matmul import THREADS, TILE, dim_size, tiled_matmul

GPU_MODULE = "kernels"
#: outputs smaller than this (static) stay with the generic mapping (block trees for long k)
MIN_POINTS = 1024
_MAPS = (
    AffineMap.from_callable(lambda m, n, k: (m, k)),
    AffineMap.from_callable(lambda m, n, k: (k, n)),
    AffineMap.from_callable(lambda m, n, k: (m, n)),
)


def is_tiled_matmul(op: linalg.GenericOp) -> bool:
    """Whether ``op`` is a matmul this pass maps to a tiled kernel."""
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    if not all(isinstance(v.type, MemRefType) and v.type.get_num_dims() == 2 for v in (*op.inputs, *op.outputs)):
        return False
    if tuple(m.data for m in op.indexing_maps.data) != _MAPS:  # type: ignore[union-attr]
        return False
    if [str(t.data) for t in op.iterator_types.data] != ["parallel", "parallel", "reduction"]:
        return False
    if any(o.regions or isinstance(o, linalg.IndexOp) for o in op.body.block.ops):
        return False
    out = op.outputs[0].type
    assert isinstance(out, MemRefType)
    m, n = out.get_shape()
    return m < 0 or n < 0 or m * n >= MIN_POINTS


def gpu_module(module: ModuleOp) -> gpu.ModuleOp:
    """The module's ``gpu.module @kernels``, created (with ``gpu.container_module``) when absent."""
    for op in module.ops:
        if isinstance(op, gpu.ModuleOp) and op.sym_name.data == GPU_MODULE:
            return op
    module.attributes["gpu.container_module"] = UnitAttr()
    kernels = gpu.ModuleOp(StringAttr(GPU_MODULE), Region(Block()))  # type: ignore[arg-type]
    module.body.block.add_op(kernels)
    return kernels


def _blocks(b: IndexBuilder, size: SSAValue) -> SSAValue:
    """``max(1, ceil(size / TILE))``: a literal when ``size`` is static."""
    static = constant_int(size)
    if static is not None:
        return b.index(max(1, -(-static // TILE)))
    return b.value(arith.MaxSIOp(b.value(arith.CeilDivSIOp(size, b.index(TILE))), b.index(1)))


def _tile(module: ModuleOp, op: linalg.GenericOp, name: str) -> None:
    """Add the kernel ``name`` to ``module``'s ``gpu.module`` and its launch before ``op``."""
    a_ref, b_ref = op.inputs
    (c_ref,) = op.outputs
    args = [a_ref, b_ref, c_ref]
    entry = Block(arg_types=[v.type for v in args])
    kb = IndexBuilder(entry, op.location)
    tiled_matmul(kb, op, *entry.args)
    kb.add(gpu.ReturnOp([]))
    kernel = gpu.FuncOp(name, ([v.type for v in args], []), Region(entry), kernel=True)
    kernel.location = op.location
    gpu_module(module).body.block.add_op(kernel)
    host = IndexBuilder(op, op.location)
    one = host.index(1)
    grid = [_blocks(host, dim_size(host, c_ref, d)) for d in (1, 0)]
    host.add(gpu.LaunchFuncOp(
        SymbolRefAttr(GPU_MODULE, [StringAttr(name)]), [*grid, one], [host.index(THREADS), host.index(THREADS), one],
        kernelOperands=args,
    ))


@dataclass
class TileMatmul(RewritePattern):
    """A matmul in a function of ``module`` becomes the launch of kernel ``<func>_matmul<N>``,
    numbered per function in program order."""

    module: ModuleOp
    counts: dict[func.FuncOp, int] = field(default_factory=dict[func.FuncOp, int])

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        fn = enclosing(op, func.FuncOp)
        if fn is None or fn.parent_op() is not self.module or not is_tiled_matmul(op):
            return
        n = self.counts.get(fn, 0)
        self.counts[fn] = n + 1
        _tile(self.module, op, f"{fn.sym_name.data}_matmul{n}")
        rewriter.erase(op)


@dataclass(frozen=True)
class KilnGpuTileMatmulPass(ModulePass):
    """Map matmuls to shared-memory tiled GPU kernels (docs/cuda.md, "matmul")."""

    name = "kiln-gpu-tile-matmul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(TileMatmul(op), apply_recursively=False).rewrite_module(op)
