"""A module after the ``gpu`` stage → one CUDA translation unit (``.cu``).

Kernels (``gpu.func`` in ``gpu.module``) become ``__global__`` functions
(:mod:`kernel_emitter`). Each ``func.func`` becomes a host entry point with the C ABI
of docs/abi.md (``extern "C"``, host pointers for memref parameters), so
``backends/loader.py`` calls it unchanged. The host entry point:

1. gives every memref parameter a device buffer (``<name>_dev``): a kiln.Variable's resident
   device copy (``<name>_res``, see :mod:`residency`; copied only when the host copy is
   newer), else a fresh buffer the parameter is copied to;
2. runs the body on the host: scalar code and ``scf`` control flow as in the C backend,
   ``memref.alloc``/``dealloc`` as ``cudaMalloc``/``cudaFree``, host ``memref.load``/``store``
   as one-element copies, ``gpu.launch_func`` as a ``<<<grid, block>>>`` launch, ``krt.print``
   as a copy to the host formatted by the C backend's print runtime (:mod:`host_print`),
   ``krt.check`` as a read of its device flag (a failure returns like a CUDA error, its
   message for ``kiln_take_error()``, docs/abi.md);
3. copies back the non-resident parameters kernels (or host stores) write, and frees its buffers.

Every CUDA call goes through ``kiln_cuda_check``, which records the first failure (naming the
kernel or the call) for ``kiln_cuda_last_error()``; the entry point then frees every device
buffer it owns (``kiln_live``: one slot per allocation site and parameter) and returns.
"""

from __future__ import annotations

import re

from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import ComplexType, Float16Type, MemRefType, ModuleOp, NoneAttr, ShapedType
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects import kernel as kernel_dialect
from kiln.dialects import krt

from kiln.backends.c import helpers as c_helpers
from kiln.backends.c.c_types import c_type, element_c_type
from kiln.backends.c.emitter import FunctionEmitter, MemrefDesc, ModuleEmitter, _arg_names, _is_private, return_type
from kiln.backends.c.dispatch import Handler
from kiln.backends.c.errors import CEmitError, op_error
from kiln.backends.c.index_expr import atom, linear, product
from kiln.backends.c.print_ops import c_string
from kiln.backends.c.memref_ops import emit_global
from kiln.backends.cuda.host_algorithms import ALGORITHMS, host_algorithm
from kiln.backends.cuda.host_print import host_print
from kiln.backends.cuda.kernel_emitter import KernelEmitter, kernel_name
from kiln.backends.cuda.runtime import PRELUDE

_EXPORT = 'extern "C" __attribute__((visibility("default")))'
_VIEWS = (memref.SubviewOp, memref.CollapseShapeOp, memref.ExpandShapeOp, memref.CastOp, memref.ReinterpretCastOp)


def _root(value: SSAValue) -> SSAValue:
    """The buffer a memref view looks into."""
    while isinstance(value.owner, _VIEWS):
        value = value.owner.operands[0]
    return value


def _kernel_writes(kernel: gpu.FuncOp) -> set[int]:
    """Indices of the kernel's memref parameters it stores into."""
    args = list(kernel.body.blocks[0].args)
    written: set[int] = set()
    for op in kernel.walk():
        if isinstance(op, memref.StoreOp):
            root = _root(op.memref)
            if root in args:
                written.add(args.index(root))
    return written


def _helper(name: str) -> str:
    """A C helper, made callable from device code too (the print runtime is host-only)."""
    text = c_helpers.HELPERS[name]
    if name == "kiln_check":  # host-only; its export is a C symbol
        return text.replace("__attribute__", 'extern "C" __attribute__').replace(
            "const char *kiln_take_error(void) {", 'extern "C" const char *kiln_take_error(void) {')
    return text if name == "kiln_print" else text.replace("static inline ", "static inline __host__ __device__ ", 1)


class CudaModuleEmitter(ModuleEmitter):
    """Module-wide state plus the kernels of the ``gpu.module``."""

    def __init__(self, module: ModuleOp) -> None:
        super().__init__(module)
        self.kernels: dict[str, gpu.FuncOp] = {}
        for op in module.ops:
            if isinstance(op, gpu.ModuleOp):
                for kernel in op.body.block.ops:
                    if isinstance(kernel, gpu.FuncOp):
                        self.kernels[kernel.sym_name.data] = kernel
                        self.reserved.add(kernel_name(kernel))
        self.writes = {name: _kernel_writes(k) for name, k in self.kernels.items()}

    def emit(self) -> str:
        globals_: list[str] = []
        kernels: list[str] = []
        hosts: list[str] = []
        for op in self.module.ops:
            if isinstance(op, func.FuncOp):
                if not op.body.blocks:
                    raise op_error(op, "the CUDA backend cannot call external functions")
                _refuse_linalg(op)
                hosts.append(HostEmitter(self, op).emit())
            elif isinstance(op, memref.GlobalOp):
                globals_.append(re.sub(r"^static (const )?", "static __device__ ", emit_global(self, op)))
            elif isinstance(op, gpu.ModuleOp):
                kernels += [KernelEmitter(self, k).emit() for k in op.body.block.ops if isinstance(k, gpu.FuncOp)]
            else:
                raise op_error(op, "unsupported top-level op in the CUDA backend")
        parts = [PRELUDE]
        parts += [_helper(n) for n in sorted(self.helpers) if n != "kiln_alloc"]
        if globals_:
            parts += globals_ + [""]
        return "\n".join(parts + kernels + hosts)


class HostEmitter(FunctionEmitter):
    """Emits one ``func.func`` as a host entry point driving device buffers."""

    def __init__(self, module: CudaModuleEmitter, fn: func.FuncOp) -> None:
        super().__init__(module, fn)
        self.cuda = module
        ret = "return;" if not fn.function_type.outputs.data else f"return ({return_type(fn)})0;"
        self.fail = f"{{ KILN_RELEASE_ALL(); {ret} }}"
        self.ret = ret
        self.live: dict[str, int] = {}  # device buffer -> its kiln_live slot (freed on any return)
        self.copy_back: list[tuple[str, str, str, str]] = []  # (host ptr, device ptr, bytes, resident entry)

    def check(self, call: str, what: str) -> None:
        """A CUDA call whose failure ends the entry point."""
        self.line(f'if (kiln_cuda_check({call}, "{what}")) {self.fail}')

    def own(self, dev: str) -> None:
        """The entry point frees ``dev`` when it returns, or at its dealloc (one slot per site)."""
        slot = self.live.setdefault(dev, len(self.live))
        self.line(f"kiln_live[{slot}] = {dev};")

    def disown(self, dev: str) -> None:
        if dev in self.live:
            self.line(f"kiln_live[{self.live[dev]}] = NULL;")

    def handler_for(self, op: Operation) -> Handler | None:
        return _HOST_HANDLERS.get(type(op)) or super().handler_for(op)

    def _written_params(self) -> set[SSAValue]:
        """Parameters that kernels or host stores write (they are copied back)."""
        written: set[SSAValue] = set()
        for op in self.fn.walk():
            if isinstance(op, gpu.LaunchFuncOp):
                indices = self.cuda.writes.get(op.kernel.string_value().split(".")[-1], set())
                written |= {_root(op.kernelOperands[i]) for i in indices}
            elif isinstance(op, memref.StoreOp):
                written.add(_root(op.memref))
            elif isinstance(op, memref.CopyOp):
                written.add(_root(op.destination))
            elif isinstance(op, ALGORITHMS):
                written.add(_root(op.output))
        return written

    def _device_copy(self, arg: SSAValue, name: str, written: bool) -> None:
        """Give a host memref parameter a device copy (the one place parameters' residence is decided)."""
        ty = arg.type
        assert isinstance(ty, MemRefType)
        elem = element_c_type(ty)
        sizes = [d if d >= 0 else f"{name}_d{i}" for i, d in enumerate(ty.get_shape())]
        self.used |= {s for s in sizes if isinstance(s, str)}
        dev, res = self.fresh(f"{name}_dev"), self.fresh(f"{name}_res")
        nbytes = f"{atom(product(sizes))}*sizeof({elem})"
        self.line(f"{elem} *{dev} = NULL;")
        self.line(f"kiln_resident *{res} = kiln_cuda_resident({name});")
        self.open(f"if ({res}) {{")
        self.line(f'if (kiln_cuda_make_current({res}, {"true" if written else "false"}, "copy {name} to the device")) {self.fail}')
        self.line(f"{dev} = ({elem} *){res}->dev;")
        self.close("} else {")
        self.depth += 1
        self.check(f"cudaMalloc((void **)&{dev}, {nbytes} > 0 ? {nbytes} : 1)", f"cudaMalloc({name})")
        self.own(dev)
        self.check(f"cudaMemcpy({dev}, {name}, {nbytes}, cudaMemcpyHostToDevice)", f"copy {name} to the device")
        self.close()
        if written:
            self.copy_back.append((name, dev, nbytes, res))
        self.bind_memref(arg, self.row_major(dev, ty, sizes))

    def emit(self) -> str:
        fn = self.fn
        block = fn.body.blocks[0]
        names = _arg_names(fn)
        self.used |= set(names)
        written = self._written_params()
        params: list[str] = []
        for arg, name in zip(block.args, names, strict=True):
            if isinstance(arg.type, MemRefType):
                params.append(f"{element_c_type(arg.type)} *__restrict__ {name}")
                params += [f"int64_t {name}_d{i}" for i, d in enumerate(arg.type.get_shape()) if d < 0]
                self._device_copy(arg, name, arg in written)
            else:
                params.append(f"{c_type(arg.type)} {name}")
                self.bind(arg, name)
        for i, res_type in enumerate(fn.function_type.outputs.data[1:], start=1):
            params.append(f"{c_type(res_type)} *__restrict__ out{i}")
        terminator = self.emit_ops(block)
        if not isinstance(terminator, func.ReturnOp):
            raise op_error(fn, "function body must end with func.return")
        for host, dev, nbytes, res in self.copy_back:
            self.open(f"if (!{res}) {{")
            self.check(f"cudaMemcpy({host}, {dev}, {nbytes}, cudaMemcpyDeviceToHost)", f"copy {host} to the host")
            self.close()
        self.line(f"if (KILN_RELEASE_ALL()) {self.ret}")
        values = list(terminator.arguments)
        for i, value in enumerate(values[1:], start=1):
            self.line(f"*out{i} = {self.expr(value)};")
        if values:
            self.line(f"return {self.expr(values[0])};")
        storage = "static" if _is_private(fn) else _EXPORT
        header = f"{storage} {return_type(fn)} {fn.sym_name.data}({', '.join(params) or 'void'}) {{"
        live = f"  void *kiln_live[{len(self.live) + 1}] = {{NULL}};"
        return "\n".join([header, live, *self.lines, "}", ""])


# -- host handlers ------------------------------------------------------------------------


def _alloc(em: HostEmitter, op: memref.AllocOp) -> None:
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    if not isinstance(ty.layout, NoneAttr):
        raise CEmitError(f"allocating {ty}: only the identity layout is supported")
    elem = element_c_type(ty)
    values = iter(op.dynamic_sizes)
    sizes = [d if d >= 0 else em.index(next(values)) for d in ty.get_shape()]
    name = em.fresh(op.memref.name_hint, "buf")
    nbytes = f"{atom(product(sizes))}*sizeof({elem})"
    em.line(f"{elem} *{name} = NULL;")
    em.check(f"cudaMalloc((void **)&{name}, {nbytes} > 0 ? {nbytes} : 1)", "cudaMalloc")
    em.own(name)
    em.bind_memref(op.memref, em.row_major(name, ty, sizes))


def _dealloc(em: HostEmitter, op: memref.DeallocOp) -> None:
    ptr = em.memref(op.memref).ptr
    em.disown(ptr)
    em.check(f"cudaFree({ptr})", "cudaFree")


def _element(em: HostEmitter, ref: SSAValue, indices: list[SSAValue]) -> tuple[MemrefDesc, str]:
    desc = em.memref(ref)
    return desc, f"{desc.ptr} + {linear([em.index(i) for i in indices], desc.strides)}"


def _load(em: HostEmitter, op: memref.LoadOp) -> None:
    """A host read of one device element (a loop or branch condition)."""
    desc, addr = _element(em, op.memref, list(op.indices))
    name = em.fresh(op.res.name_hint)
    em.line(f"{desc.elem} {name};")
    em.check(f"cudaMemcpy(&{name}, {addr}, sizeof({desc.elem}), cudaMemcpyDeviceToHost)", "read a device element")
    em.bind(op.res, name)


def _check(em: HostEmitter, op: krt.CheckOp) -> None:
    """``krt.check`` on the host: read the device flag; on failure leave the message for
    ``kiln_take_error()`` and return as every failure does (device buffers freed)."""
    em.use_helper("kiln_check")
    flag = em.fresh("check")
    em.line(f"bool {flag};")
    em.check(f"cudaMemcpy(&{flag}, {em.memref(op.cond).ptr}, sizeof(bool), cudaMemcpyDeviceToHost)", "read a check")
    literal, _ = c_string(op.message.data)
    em.line(f"if (!{flag}) {{ kiln_failed = {literal}; KILN_RELEASE_ALL(); {em.ret} }}")


def _store(em: HostEmitter, op: memref.StoreOp) -> None:
    desc, addr = _element(em, op.memref, list(op.indices))
    tmp = em.fresh("host_value")
    em.line(f"{desc.elem} {tmp} = {em.expr(op.value)};")
    em.check(f"cudaMemcpy({addr}, &{tmp}, sizeof({desc.elem}), cudaMemcpyHostToDevice)", "write a device element")


def _copy(em: HostEmitter, op: memref.CopyOp) -> None:
    src, dst = em.memref(op.source), em.memref(op.destination)
    for v in (op.source, op.destination):
        if not isinstance(v.type, MemRefType) or not isinstance(v.type.layout, NoneAttr):
            raise CEmitError("memref.copy on the host needs contiguous memrefs")
    nbytes = f"{atom(product(list(src.sizes)))}*sizeof({src.elem})"
    em.check(f"cudaMemcpy({dst.ptr}, {src.ptr}, {nbytes}, cudaMemcpyDeviceToDevice)", "memref.copy")


def _get_global(em: HostEmitter, op: memref.GetGlobalOp) -> None:
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    cname = em.module.globals.get(op.name_.string_value())
    if cname is None:
        raise CEmitError(f"unknown global @{op.name_.string_value()}")
    elem = element_c_type(ty)
    name = em.fresh(op.memref.name_hint, cname)
    em.line(f"{elem} *{name} = NULL;")
    em.check(f"cudaGetSymbolAddress((void **)&{name}, {cname})", f"address of {cname}")
    em.bind_memref(op.memref, em.row_major(name, ty, list(ty.get_shape())))


def _launch(em: HostEmitter, op: gpu.LaunchFuncOp) -> None:
    """``kernel<<<grid, block>>>(args)``, then launch and execution errors name the kernel."""
    name = op.kernel.string_value().split(".")[-1]
    kernel = em.cuda.kernels.get(name)
    if kernel is None:
        raise CEmitError(f"launch of unknown kernel {op.kernel}")
    args: list[str] = []
    for value in op.kernelOperands:
        if isinstance(value.type, MemRefType):
            desc = em.memref(value)
            args.append(desc.ptr)
            args += [str(desc.sizes[i]) for i, d in enumerate(value.type.get_shape()) if d < 0]
            if not isinstance(value.type.layout, NoneAttr):
                strides = value.type.get_strides() or []
                args += [str(desc.strides[i]) for i, s in enumerate(strides) if s is None]
        else:
            args.append(em.expr(value))
    grid = ", ".join(f"(unsigned){em.expr(v)}" for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ))
    block = ", ".join(f"(unsigned){em.expr(v)}" for v in (op.blockSizeX, op.blockSizeY, op.blockSizeZ))
    cname = kernel_name(kernel)
    em.line(f"{cname}<<<dim3({grid}), dim3({block})>>>({', '.join(args)});")
    em.check("cudaGetLastError()", f"launching kernel {cname}")
    em.check("cudaDeviceSynchronize()", f"kernel {cname}")


_HOST_HANDLERS = {
    memref.AllocOp: _alloc,
    memref.DeallocOp: _dealloc,
    memref.LoadOp: _load,
    memref.StoreOp: _store,
    memref.CopyOp: _copy,
    memref.GetGlobalOp: _get_global,
    gpu.LaunchFuncOp: _launch,
    krt.PrintOp: host_print,
    krt.CheckOp: _check,
    **{algorithm: host_algorithm for algorithm in ALGORITHMS},
}


def _host_only_dtype(ty: Attribute) -> str | None:
    """The NumPy name of a dtype the C backend has and CUDA code here does not (no
    ``_Float16``, no C99 complex), or None."""
    element = ty.get_element_type() if isinstance(ty, ShapedType) else ty
    if isinstance(element, Float16Type):
        return "float16"
    if isinstance(element, ComplexType):
        return {32: "complex64", 64: "complex128"}.get(element.element_type.bitwidth, str(element))
    return None


def _refuse_host_only_types(module: ModuleOp) -> None:
    """A clear error, at the source line of the first op computing in such a dtype."""
    ops = [op for op in module.walk() if not isinstance(op, func.FuncOp)] + [op for op in module.walk() if isinstance(op, func.FuncOp)]
    for op in ops:
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            name = _host_only_dtype(value.type)
            if name is not None:
                raise op_error(op, f"the CUDA target does not support dtype {name}; compile for target='c'")


def _refuse_linalg(fn: func.FuncOp) -> None:
    """``np.linalg`` routines have only a sequential C implementation (kernel.linalg), not a CUDA one."""
    for op in fn.walk():
        if isinstance(op, kernel_dialect.LinalgOp):
            kind = op.kind.data
            raise op_error(op, f"kernel.linalg {kind!r} (np.linalg.{kind}) is not supported by the CUDA backend; use target='c'")


def emit_cuda(module: ModuleOp) -> str:
    """CUDA source for a module after the ``gpu`` stage; raises CEmitError on unsupported IR."""
    _refuse_host_only_types(module)
    return CudaModuleEmitter(module).emit()
