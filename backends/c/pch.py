"""A precompiled ``immintrin.h`` in the cache, so SIMD sources compile as fast as plain C.

Parsing ``immintrin.h`` costs gcc 110-150 ms per run. The emitter puts
``#include <immintrin.h>`` first in the translation unit; gcc then uses an
``immintrin.h.gch`` found in an ``-I`` directory before the system header, if it was built
with the same flags (otherwise it silently reads the header: slower, same result). The
.gch is built once per compiler and flag set (~0.5 s) and is never part of a cache key.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from kiln.backends import cache

HEADER = "immintrin.h"


def include_flags(cc: str, cc_identity: str, flags: tuple[str, ...], source: str) -> tuple[str, ...]:
    """``-I`` flags that make ``cc`` use a precompiled header for ``source``; () when none applies."""
    if not source.startswith(f"#include <{HEADER}>") or "clang" in cc_identity.lower():  # clang ignores .gch
        return ()
    pch_dir = cache.cache_dir() / f"pch-{cache.cache_key(cc_identity, flags)[:16]}"
    gch = pch_dir / f"{HEADER}.gch"
    if not gch.exists():
        pch_dir.mkdir(parents=True, exist_ok=True)
        wrapper = cache.write_text_atomic(pch_dir / "kiln_pch_src.h", f"#include <{HEADER}>\n")
        try:
            cache.write_atomic(gch, lambda tmp: _build(cc, flags, wrapper, tmp))
        except (OSError, subprocess.CalledProcessError):
            return ()
    return ("-I", str(pch_dir))


def _build(cc: str, flags: tuple[str, ...], header: Path, out: Path) -> None:
    # link options (-shared, -Wl,...) would make the driver link instead of writing a PCH
    compile_flags = [f for f in flags if f != "-shared" and not f.startswith(("-Wl,", "-l"))]
    subprocess.run([cc, *compile_flags, "-x", "c-header", str(header), "-o", str(out)], check=True, capture_output=True)
