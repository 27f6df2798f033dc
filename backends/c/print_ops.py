"""``krt.print`` → C: literal text and formatted values collected in one buffer, then
handed to ``kiln_write_hook`` in one call (backends/c/print_runtime.py, docs/printing.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import MemRefType

from kiln.backends.c.dispatch import handles
from kiln.backends.c.print_runtime import KINDS
from kiln.dialects import krt

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter


def split_format(fmt: str) -> list[str]:
    """The literal pieces around each ``{}`` (``{{``/``}}`` are braces): n holes, n+1 pieces."""
    pieces, current, i = [], [], 0
    while i < len(fmt):
        two = fmt[i : i + 2]
        if two in ("{{", "}}"):
            current.append(two[0])
            i += 2
        elif two == "{}":
            pieces.append("".join(current))
            current = []
            i += 2
        else:
            current.append(fmt[i])
            i += 1
    pieces.append("".join(current))
    return pieces


def c_string(text: str) -> tuple[str, int]:
    """A C string literal of ``text`` (UTF-8) and its length in bytes."""
    data = text.encode()
    out = []
    for byte in data:
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= byte < 127 and ch != "?":
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"', len(data)


@handles(krt.PrintOp)
def _print(em: FunctionEmitter, op: krt.PrintOp) -> None:
    em.use_helper("kiln_print")
    buf = em.fresh("kiln_text")
    em.open("{")
    em.line(f"kiln_buf {buf} = {{0}};")
    pieces = split_format(op.format.data)
    for piece, value in zip(pieces, [*op.values, None], strict=True):
        if piece:
            literal, size = c_string(piece)
            em.line(f"kiln_put(&{buf}, {literal}, {size});")
        if value is None:
            continue
        assert isinstance(value.type, MemRefType)
        desc = em.memref(value)
        rank = len(desc.sizes)
        shape = f"(const int64_t[]){{{', '.join(map(str, desc.sizes))}}}" if rank else "NULL"
        strides = f"(const int64_t[]){{{', '.join(map(str, desc.strides))}}}" if rank else "NULL"
        em.line(
            f"kiln_fmt_value(&{buf}, (const void *){desc.ptr}, {KINDS[desc.elem]}, {rank}, {shape}, {strides});"
        )
    em.line(f"kiln_flush(&{buf});")
    em.close()
