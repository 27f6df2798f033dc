"""``krt.print`` in a CUDA host entry point: the printed buffers live on the device, so each is
copied to a host temporary (kernels have finished: every launch is synchronized), then the C
backend's print runtime formats the temporaries and calls ``kiln_write_hook`` — the same
NumPy-style text and the same sink (docs/printing.md) as on the C target. Shapes and strides
are named local arrays: C++ has no compound literals with run-time elements."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kiln.backends.c.emitter import MemrefDesc
from kiln.backends.c.print_ops import c_string, split_format
from kiln.backends.c.print_runtime import KINDS
from kiln.dialects import krt

if TYPE_CHECKING:
    from kiln.backends.cuda.emitter import HostEmitter


def _extent(desc: MemrefDesc) -> str:
    """Elements spanned from ``desc.ptr`` (strides are non-negative): 1 + sum((size-1)*stride)."""
    if not desc.sizes:
        return "1"
    if all(isinstance(v, int) for v in (*desc.sizes, *desc.strides)):
        spans = [(s - 1) * t for s, t in zip(desc.sizes, desc.strides, strict=True)]  # type: ignore[operator]
        return str(1 + sum(spans) if all(s > 0 for s in desc.sizes) else 0)  # type: ignore[operator]
    span = " + ".join(f"({s} - 1)*({t})" for s, t in zip(desc.sizes, desc.strides, strict=True))
    return f"(({' && '.join(f'({s}) > 0' for s in desc.sizes)}) ? 1 + {span} : 0)"


def _dims(em: HostEmitter, values: tuple[object, ...], hint: str) -> str:
    """A local ``const int64_t[]`` of ``values`` (NULL when empty)."""
    if not values:
        return "NULL"
    name = em.fresh(hint)
    em.line(f"const int64_t {name}[] = {{{', '.join(map(str, values))}}};")
    return name


def host_print(em: HostEmitter, op: krt.PrintOp) -> None:
    """Copy the printed device buffers to host temporaries, format and write those, free them."""
    em.use_helper("kiln_print")
    em.open("{")
    temps: list[str] = []
    for value in op.values:
        desc = em.memref(value)
        tmp = em.fresh("kiln_host")
        em.line(f"{desc.elem} *{tmp} = ({desc.elem} *)kiln_cuda_to_host({desc.ptr}, {_extent(desc)}*sizeof({desc.elem}));")
        temps.append(tmp)
    frees = " ".join(f"free({t});" for t in temps)
    if temps:
        em.line(f"if ({' || '.join(f'!{t}' for t in temps)}) {{ {frees} KILN_RELEASE_ALL(); {em.ret} }}")
    buf = em.fresh("kiln_text")
    em.line(f"kiln_buf {buf} = {{0}};")
    for piece, value, tmp in zip(split_format(op.format.data), [*op.values, None], [*temps, None], strict=True):
        if piece:
            literal, size = c_string(piece)
            em.line(f"kiln_put(&{buf}, {literal}, {size});")
        if value is None:
            continue
        desc = em.memref(value)
        shape, strides = _dims(em, desc.sizes, "kiln_shape"), _dims(em, desc.strides, "kiln_strides")
        em.line(f"kiln_fmt_value(&{buf}, (const void *){tmp}, {KINDS[desc.elem]}, {len(desc.sizes)}, {shape}, {strides});")
    em.line(f"kiln_flush(&{buf});")
    if temps:
        em.line(frees)
    em.close()
