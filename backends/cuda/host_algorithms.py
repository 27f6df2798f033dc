"""The ``kernel`` dialect's sequential algorithms (scan, argreduce, sort, argsort, bincount, searchsorted,
gather, scatter, iota, nonzero, compress) in a
CUDA host entry point. Their operands live on the device, so each is copied to a host temporary
(kernels have finished: every launch is synchronized), the C backend's loops run on the
temporaries, and the output is copied back to the device. The entry point counts the output as
written (``HostEmitter._written_params``), so a written parameter reaches the caller."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kiln.backends.c.dispatch import HANDLERS
from kiln.backends.cuda.host_print import _extent
from kiln.dialects import kernel

if TYPE_CHECKING:
    from kiln.backends.cuda.emitter import HostEmitter

#: the ops this module runs on the host; each has an ``output`` memref operand (``histogram``: ``outputs``)
ALGORITHMS = (kernel.ScanOp, kernel.ArgReduceOp, kernel.SortOp, kernel.ArgsortOp, kernel.BincountOp, kernel.HistogramOp, kernel.SearchsortedOp,
              kernel.GatherOp, kernel.ScatterOp, kernel.IotaOp, kernel.NonzeroOp, kernel.CompressOp)


def host_algorithm(em: HostEmitter, op: kernel.ScanOp | kernel.ArgReduceOp | kernel.SortOp | kernel.ArgsortOp
                   | kernel.BincountOp | kernel.HistogramOp | kernel.SearchsortedOp | kernel.GatherOp | kernel.ScatterOp | kernel.IotaOp
                   | kernel.NonzeroOp | kernel.CompressOp) -> None:
    """Copy the operands to the host, run the C loops there, copy the output back."""
    em.open("{")
    devices = {v: em.memref(v) for v in op.operands}
    hosts: dict[object, str] = {}
    for value, desc in devices.items():
        tmp = em.fresh("kiln_host")
        em.line(f"{desc.elem} *{tmp} = ({desc.elem} *)kiln_cuda_to_host({desc.ptr}, {_extent(desc)}*sizeof({desc.elem}));")
        hosts[value] = tmp
    frees = " ".join(f"free({t});" for t in hosts.values())
    em.line(f"if ({' || '.join(f'!{t}' for t in hosts.values())}) {{ {frees} KILN_RELEASE_ALL(); {em.ret} }}")
    for value, desc in devices.items():
        em.bind_memref(value, replace(desc, ptr=hosts[value]))
    HANDLERS[type(op)](em, op)
    outputs = list(op.outputs) if isinstance(op, kernel.HistogramOp) else [op.output]
    status = em.fresh("kiln_status")
    for j, value in enumerate(outputs):
        out = devices[value]
        assign = f"cudaError_t {status} =" if j == 0 else f"if ({status} == cudaSuccess) {status} ="
        em.line(
            f"{assign} cudaMemcpy({out.ptr}, {hosts[value]}, {_extent(out)}*sizeof({out.elem}), "
            "cudaMemcpyHostToDevice);"
        )
    em.line(frees)
    em.check(status, f"{op.name}: copy the result to the device")
    for value, desc in devices.items():
        em.bind_memref(value, desc)
    em.close()
