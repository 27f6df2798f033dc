"""The ``#include`` lines every generated C file opens with, and their precompiled headers.

gcc spent most of a small kernel's compile reading the intrinsic headers (``x * 2 + 1`` on 64x64
float32: 0.25-0.45 s of gcc time, 95% of it "phase parsing"; with a precompiled header 0.11 s).
So the prelude of a source (its leading block of ``#`` lines, up to the first blank line) is
compiled once per compiler, flags and host into a precompiled header in the cache directory
(``<key>.h`` and ``<key>.h.gch``), and a compile of a source opening with that prelude gets
``-include <key>.h``: the source's own ``#include`` lines then find their headers' include guards
set, and the code gcc generates is the same (tests/test_c_backend.py compares the assembly).

The precompiled headers of the host ISA's vector code and of scalar code (its 5 MB header saves
gcc ~5 ms of the ~45 ms a small scalar function takes it) with the default flags, without and
with ``-fopenmp`` (a header precompiled without it is not used by a compile with it), are built in
the background with the entry extension (once per machine, see :func:`prefetch`); other preludes
(``KILN_ISA``) and sources compiled before the build is done compile without one, as before. gcc falls back to the header's text when a precompiled header does not
fit its flags; a damaged one would crash it, so it is checked against its recorded sha256
before use (~25 ms for its 20 MB; in the background while the first function to compile
lowers), once per process and only when its stat changed since the last check
(:func:`kiln.backends.cache.is_checked_since`).
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import threading
from pathlib import Path

from kiln.backends import cache

#: the C library headers after the SIMD ones (kiln.backends.c.isa)
INCLUDES = ("math.h", "stdint.h", "stdbool.h", "stdlib.h", "string.h")

_lock = threading.Lock()
#: header path -> the thread building its precompiled header (this process)
_builds: dict[Path, threading.Thread] = {}
#: header path -> the thread checking its precompiled header against its sha256 (this process)
_checks: dict[Path, threading.Thread] = {}
#: headers whose precompiled header is sound (checked or built by this process)
_sound: set[Path] = set()


def lines(simd_includes: list[str] | tuple[str, ...]) -> list[str]:
    """The prelude's lines: the SIMD includes (none for scalar code), then the C library's."""
    return [*simd_includes, *(f"#include <{h}>" for h in INCLUDES)]


def of(source: str) -> str | None:
    """The prelude ``source`` opens with (its ``#`` lines up to the first blank line), or None."""
    head, blank, _ = source.partition("\n\n")
    if not blank or not all(line.startswith("#") for line in head.splitlines()):
        return None
    return head + "\n"


def is_vector(source: str) -> bool:
    """Whether ``source`` opens with a vector prelude (SIMD includes before the C library's), whose
    precompiled header (20 MB) saves gcc most of a small function's compile."""
    text = of(source)
    return text is not None and text.splitlines() != lines(())


def include_flags(cc: str, identity: str, flags: tuple[str, ...], source: str) -> tuple[str, ...]:
    """``("-include", header)`` when the prelude of ``source`` has a sound precompiled header for
    ``cc`` with ``flags``, else ``()``: none was built for it (another ISA, other flags), it is
    still being built, or it was damaged (warned, and built again for later compiles)."""
    text = of(source)
    if text is None or not _is_gcc(identity):
        return ()
    header = _header(text, identity, flags)
    check = _checks.get(header)
    if check is not None:  # started when lowering began: done by now, or nearly
        check.join()
    elif header not in _sound and _gch(header).exists() and not _building(header):
        _check(cc, flags, text, header)
    return ("-include", str(header)) if header in _sound else ()


def prefetch(cc: str, identity: str, flags: tuple[str, ...], simd_includes: tuple[str, ...], *, check: bool) -> None:
    """Start building the precompiled header of the prelude with ``simd_includes`` (none: scalar
    code's, the C library's headers) when it is not in the cache (the once-per-machine build,
    beside the entry extension); with ``check``, start checking it when it is (a compile is
    coming: its first call lowers meanwhile). A warm start, which compiles nothing, does not read it."""
    if not _is_gcc(identity):
        return
    text = "\n".join(lines(simd_includes)) + "\n"
    header = _header(text, identity, flags)
    if not _gch(header).exists():
        start(cc, flags, text, header)
    elif check and header not in _checks and header not in _sound:
        _checks[header] = threading.Thread(target=_check, args=(cc, flags, text, header), daemon=True)
        _checks[header].start()


def _check(cc: str, flags: tuple[str, ...], text: str, header: Path) -> None:
    """Compare the precompiled header with its sha256 (~25 ms for 20 MB, unless its stat is
    unchanged since the last check): sound, or set aside (a warning names it) and built again."""
    gch = _gch(header)
    if cache.is_checked_since(gch):
        _sound.add(header)
    else:
        gch.unlink(missing_ok=True)
        start(cc, flags, text, header)


def _header(text: str, identity: str, flags: tuple[str, ...]) -> Path:
    return cache.entry(cache.cache_key(text, identity, flags, "precompiled-header"), ".h")


def start(cc: str, flags: tuple[str, ...], text: str, header: Path) -> None:
    """Build ``header``'s precompiled header in a background thread at the lowest CPU priority,
    unless this process already does; a process that ends sooner waits for it at exit."""
    with _lock:
        if _building(header):
            return
        thread = threading.Thread(target=_build, args=(cc, flags, text, header), daemon=True)
        _builds[header] = thread
        thread.start()
    atexit.register(thread.join)


def wait() -> None:
    """Wait for the builds and checks this process started (benchmarks and tests that want them done)."""
    for thread in [*_checks.values(), *_builds.values()]:
        thread.join()


def _building(header: Path) -> bool:
    thread = _builds.get(header)
    return thread is not None and thread.is_alive()


def _gch(header: Path) -> Path:
    return header.with_name(header.name + ".gch")


def _is_gcc(identity: str) -> bool:
    """Whether the compiler (``cc --version``'s first line, ``cc (Debian 12.2.0-14) 12.2.0`` for
    Debian's gcc) may be gcc: clang reads other precompiled headers. Another compiler given
    ``-include`` reads the header's text, the lines the source opens with: only time is lost."""
    return "clang" not in identity.lower()


def _build(cc: str, flags: tuple[str, ...], text: str, header: Path) -> None:
    """Write ``header`` and compile it into ``<header>.gch`` (checked, atomic). A failure leaves
    no precompiled header: sources then compile without one, as before."""
    cache.write_text_atomic(header, text)
    nice = shutil.which("nice")
    prefix = (nice, "-n", "19") if nice else ()

    def compile_header(tmp: Path) -> None:
        cmd = [*prefix, cc, *flags, "-x", "c-header", "-o", str(tmp), str(header)]
        subprocess.run(cmd, capture_output=True, check=True)

    try:
        cache.write_checked(_gch(header), compile_header)
    except (OSError, subprocess.CalledProcessError):
        return  # sources compile without it: the same code, as before there were any
    _sound.add(header)  # its own build: not read again here (a concurrent build may be renaming its own into place)
