"""The vector target: which ISA kiln vectorizes and emits for, and what it offers the passes.

Read by ``kiln-vectorize`` (register width, masked loads and stores) and by the C backend
(whose ``backends/c/isa`` tables spell each ISA's operations in C and must agree with
:data:`CAPABILITIES`; a test checks it). Declared at the dialect layer so that the pass and
the backend both read it without importing each other.

The ISA is, in order: an explicit ``isa`` argument (``kiln-opt -t 'c{isa=avx2}'``,
``kiln-vectorize{isa=...}``, ``emit_c(module, isa=...)``), the enclosing :func:`isa_scope`
(``kiln.function(isa=...)``), the ``KILN_ISA`` environment variable, else detected from the
host (``/proc/cpuinfo`` flags, read once).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import platform
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Capabilities:
    """What an ISA offers vectorized loops."""

    #: bytes in one native vector register
    native_bytes: int
    #: masked loads and stores (a loop's tail runs as one masked vector step)
    masked_memory: bool


CAPABILITIES: dict[str, Capabilities] = {
    "avx512": Capabilities(native_bytes=64, masked_memory=True),
    "avx2": Capabilities(native_bytes=32, masked_memory=True),
    "neon": Capabilities(native_bytes=16, masked_memory=False),
    "scalar": Capabilities(native_bytes=16, masked_memory=False),
}

ISAS: tuple[str, ...] = tuple(CAPABILITIES)


@functools.cache
def host_isa() -> str:
    """The best ISA this machine runs: AVX-512 (F, DQ, VL, BW), AVX2+FMA, NEON, else scalar."""
    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):
        return "neon"
    info = Path("/proc/cpuinfo")
    text = info.read_text() if info.exists() else ""
    flags: set[str] = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    if {"avx512f", "avx512dq", "avx512vl", "avx512bw"} <= flags:
        return "avx512"
    if {"avx2", "fma"} <= flags:
        return "avx2"
    return "scalar"


_scoped_isa: contextvars.ContextVar[str | None] = contextvars.ContextVar("kiln_isa", default=None)


@contextlib.contextmanager
def isa_scope(isa: str | None) -> Iterator[None]:
    """Within the block, an unset ``isa`` resolves to ``isa`` (``kiln.function(isa=...)``)."""
    token = _scoped_isa.set(isa)
    try:
        yield
    finally:
        _scoped_isa.reset(token)


def resolve_isa(isa: str | None = None) -> str:
    """The ISA to use: ``isa`` if given (``""``/``"auto"`` mean unset), else the enclosing
    :func:`isa_scope`'s, else ``$KILN_ISA``, else the host's."""
    for choice in (isa, _scoped_isa.get(), os.environ.get("KILN_ISA")):
        if choice and choice != "auto":
            if choice not in ISAS:
                raise ValueError(f"unknown ISA {choice!r}; known: {', '.join(ISAS)}")
            return choice
    return host_isa()


def capabilities(isa: str | None = None) -> Capabilities:
    """The capabilities of ``resolve_isa(isa)``."""
    return CAPABILITIES[resolve_isa(isa)]


def host_runs(isa: str) -> bool:
    """Whether code for ``isa`` can run here (tests skip the others)."""
    host = host_isa()
    if isa == "scalar" or isa == host:
        return True
    return isa == "avx2" and host == "avx512"
