"""The vector target: which ISA kiln vectorizes and emits for, and what it offers the passes.

Read by ``kiln-vectorize`` (register width, masked loads and stores) and by the C backend
(whose ``backends/c/isa`` tables spell each ISA's operations in C and must agree with
:data:`CAPABILITIES`; a test checks it). Declared at the dialect layer so that the pass and
the backend both read it without importing each other.

The ISA is, in order: an explicit ``isa`` argument (``kiln-opt -t 'c{isa=avx2}'``,
``kiln-vectorize{isa=...}``, ``emit_c(module, isa=...)``), the module's ``kiln.isa`` attribute
(:data:`ISA_ATTR`: ``kiln.function(isa=...)`` sets it on the module it lowers, so the printed
stages say it and ``kiln-opt`` on them agrees), the ``KILN_ISA`` environment variable, else
detected from the host (``/proc/cpuinfo`` flags, read once).
"""

from __future__ import annotations

import functools
import os
import platform
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation


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


#: on a ``builtin.module``: the ISA (a string of :data:`ISAS`) it is lowered and emitted for
ISA_ATTR = "kiln.isa"


def set_module_isa(module: Operation, isa: str | None) -> None:
    """Record ``isa`` (if given) on ``module`` for the passes and the emitter that follow."""
    if isa:
        module.attributes[ISA_ATTR] = StringAttr(resolve_isa(isa))


def resolve_isa(isa: str | None = None, module: Operation | None = None) -> str:
    """The ISA to use: ``isa`` if given (``""``/``"auto"`` mean unset), else ``module``'s
    ``kiln.isa`` attribute, else ``$KILN_ISA``, else the host's."""
    attr = module.attributes.get(ISA_ATTR) if module is not None else None
    marked = attr.data if isinstance(attr, StringAttr) else None
    for choice in (isa, marked, os.environ.get("KILN_ISA")):
        if choice and choice != "auto":
            if choice not in ISAS:
                raise ValueError(f"unknown ISA {choice!r}; known: {', '.join(ISAS)}")
            return choice
    return host_isa()


def capabilities(isa: str | None = None, module: Operation | None = None) -> Capabilities:
    """The capabilities of ``resolve_isa(isa, module)``."""
    return CAPABILITIES[resolve_isa(isa, module)]


def host_runs(isa: str) -> bool:
    """Whether code for ``isa`` can run here (tests skip the others)."""
    host = host_isa()
    if isa == "scalar" or isa == host:
        return True
    return isa == "avx2" and host == "avx512"


#: where Linux describes this machine's caches (one ``index<N>`` directory per cache of cpu0)
CACHE_DIR = Path("/sys/devices/system/cpu/cpu0/cache")


@functools.cache
def host_last_level_cache_bytes() -> int | None:
    """Bytes in the largest data (or unified) cache of this machine's first core, as Linux
    reports it (read once); None where it does not (another OS, no sysfs). Not
    ``sysconf(_SC_LEVEL3_CACHE_SIZE)``: on the 2-core AMD EPYC VM that says 320 MB (the whole
    package's), sysfs the 32 MB the core shares."""
    sizes = []
    for index in sorted(CACHE_DIR.glob("index*")) if CACHE_DIR.is_dir() else []:
        try:
            kind, size = (index / "type").read_text().strip(), (index / "size").read_text().strip()
        except OSError:
            continue
        if kind in ("Data", "Unified") and size:
            sizes.append(parse_cache_size(size))
    return max(sizes) if sizes else None


def parse_cache_size(text: str) -> int:
    """Bytes of a sysfs cache size: ``32768K``, ``1M``, or a plain number."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)
