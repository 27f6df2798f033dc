"""``gpu.func`` kernels → CUDA ``__global__`` functions.

A kernel body is func/arith/math/scf/memref code plus ``gpu`` index ops and barriers, so
the C backend's handlers emit almost all of it; this module adds the GPU ops and shared
memory. Memref parameters are a device pointer (to element 0) followed by one ``int64_t``
per dynamic size and per dynamic stride (see :func:`memref_params`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import Operation

from kiln.backends.c.c_types import c_type, element_c_type
from kiln.backends.c.emitter import FunctionEmitter, MemrefDesc, ModuleEmitter, sanitize
from kiln.backends.c.dispatch import Handler
from kiln.backends.c.errors import CEmitError, op_error
from kiln.backends.c.index_expr import IndexExpr, product
from kiln.dialects.contracts import is_shared

_INDEX_OPS: dict[type[Operation], str] = {
    gpu.ThreadIdOp: "threadIdx",
    gpu.BlockIdOp: "blockIdx",
    gpu.BlockDimOp: "blockDim",
    gpu.GridDimOp: "gridDim",
}


def memref_params(ty: MemRefType, name: str) -> tuple[list[IndexExpr], list[IndexExpr], list[str]]:
    """(sizes, strides, extra int64_t parameter names) of a memref kernel parameter."""
    shape = ty.get_shape()
    sizes: list[IndexExpr] = [d if d >= 0 else f"{name}_d{i}" for i, d in enumerate(shape)]
    extra = [s for s in sizes if isinstance(s, str)]
    if isinstance(ty.layout, NoneAttr):
        return sizes, [product(sizes[i + 1 :]) for i in range(len(sizes))], extra
    static_strides = ty.get_strides()
    if static_strides is None:
        raise CEmitError(f"kernel parameter of type {ty}: unsupported layout")
    strides = [s if s is not None else f"{name}_s{i}" for i, s in enumerate(static_strides)]
    extra += [s for s in strides if isinstance(s, str)]
    return sizes, strides, extra


class KernelEmitter(FunctionEmitter):
    """Emits one ``gpu.func`` kernel."""

    quiet_compares = False  # nvcc: __builtin_isless is a host function

    def __init__(self, module: ModuleEmitter, kernel: gpu.FuncOp) -> None:
        super().__init__(module, kernel)  # type: ignore[arg-type]
        self.kernel = kernel

    def handler_for(self, op: Operation) -> Handler | None:
        return _KERNEL_HANDLERS.get(type(op)) or super().handler_for(op)

    def emit(self) -> str:
        block = self.kernel.body.blocks[0]
        params: list[str] = []
        for i, arg in enumerate(block.args):
            name = self.fresh(arg.name_hint, f"arg{i}")
            if isinstance(arg.type, MemRefType):
                sizes, strides, extra = memref_params(arg.type, name)
                self.used |= set(extra)
                params.append(f"{element_c_type(arg.type)} *{name}")
                params += [f"int64_t {e}" for e in extra]
                self.bind_memref(arg, MemrefDesc(name, element_c_type(arg.type), tuple(sizes), tuple(strides)))
            else:
                params.append(f"{c_type(arg.type)} {name}")
                self.bind(arg, name)
        terminator = self.emit_ops(block)
        if not isinstance(terminator, gpu.ReturnOp):
            raise op_error(self.kernel, "kernel body must end with gpu.return")
        header = f'extern "C" __global__ void {kernel_name(self.kernel)}({", ".join(params) or "void"}) {{'
        return "\n".join([header, *self.lines, "}", ""])


def kernel_name(kernel: gpu.FuncOp) -> str:
    """The C name of a kernel (its symbol)."""
    return sanitize(kernel.sym_name.data, "kernel")


def _index(em: KernelEmitter, op: gpu.ThreadIdOp) -> None:
    em.define(op.result, f"(int64_t){_INDEX_OPS[type(op)]}.{op.dimension.data.value}")


def _barrier(em: KernelEmitter, op: gpu.BarrierOp) -> None:
    em.line("__syncthreads();")


def _alloca(em: KernelEmitter, op: memref.AllocaOp) -> None:
    """Shared-memory buffers become ``__shared__`` arrays; others are local arrays."""
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    if not is_shared(ty):
        from kiln.backends.c.dispatch import HANDLERS

        HANDLERS[memref.AllocaOp](em, op)
        return
    if not ty.has_static_shape():
        raise CEmitError("shared buffers need a static shape")
    elem = element_c_type(ty)
    name = em.fresh(op.memref.name_hint, "shared")
    em.line(f"__shared__ {elem} {name}[{max(product(list(ty.get_shape())), 1)}];")  # type: ignore[arg-type]
    em.bind_memref(op.memref, em.row_major(name, ty, list(ty.get_shape())))


_KERNEL_HANDLERS: dict[type[Operation], Callable[[KernelEmitter, Any], None]] = {
    **{t: _index for t in _INDEX_OPS},
    gpu.BarrierOp: _barrier,
    memref.AllocaOp: _alloca,
}
