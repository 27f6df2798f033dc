"""Tiered builds: a first call runs a quick build of its C, the optimized one replaces it later.

gcc -O2 on kiln's larger sources takes much of a first call (mlp_training's 62 KB: 0.63-0.79 s CPU
of its 1.3-1.9 s; the GEMM runtime's micro-kernels above all), and -Og compiles them 2-3x faster. So a
source of at least :data:`MIN_SOURCE` characters (:data:`MIN_SCALAR_SOURCE` without SIMD code)
whose -O2 build is not in the cache is compiled with
:data:`~kiln.backends.c.toolchain.QUICK_OPT_FLAGS` first; its entry answers the first call,
and a detached process (at the lowest CPU priority, backends/c/optimized_build.py) builds the -O2
library, the one the disk cache keeps for later processes; a thread of this process waits for it
and retargets the entry to it (``Entry.retarget``). Both builds compile the same C, the one
``kiln-opt`` prints; the same flags but ``-O`` keep NumPy's rounding, so results do not change
when the entry is swapped. A process does not wait at exit for the optimized builds it started
(its wall time would be theirs, which tiering is meant to hide): they finish after it, and the next
process finds the optimized library. ``KILN_TIERING=0`` turns this off (docs/user-guide.md);
tests turn it off but for their own (tests/conftest.py), and :func:`wait` makes a swap happen when
a test or benchmark wants it done.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from pathlib import Path

from kiln.backends.c import optimized_build, prelude, toolchain

#: vector sources shorter than this are built at -O2 at once: -Og saves them little gcc time (5-40
#: ms), and the optimized build would be a second compile. gcc CPU per NPBench kernel at S, -O2 ->
#: -Og, each with its precompiled prelude (2026-11-29, bench/RESULTS.md "NPBench at S, first
#: calls"): 4-8 KB 48-203 -> 44-165 ms; 8-20 KB syrk 257 -> 155, atax 273 -> 121, gemver 447 -> 211;
#: 20-32 KB vadv 730 -> 225, covariance 397 -> 234; the 29 kernels of 8-32 KB 6.90 -> 4.11 s in
#: all (-O1: 6.02 s). It was 32,000, which left those 29 of the 54 on -O2 for their first call.
MIN_SOURCE = 8_000
#: the same for scalar sources, which have no precompiled prelude: -Og compiled the example
#: fizzbuzz's 13 KB in more time than -O2 (85-93 -> 105-108 ms), so they keep the earlier threshold
MIN_SCALAR_SOURCE = 32_000

_lock = threading.Lock()
#: the background builds this process started, and what failed in them (raised by :func:`wait`)
_threads: list[threading.Thread] = []
_failures: list[BaseException] = []


def quick_build(source: str) -> Path | None:
    """The quick build of ``source`` (compiled now, or from the cache) when it should answer the
    first call: tiering is on, the source is large, and its optimized build is not cached."""
    least = MIN_SOURCE if prelude.is_vector(source) else MIN_SCALAR_SOURCE
    if not toolchain.tiering() or len(source) < least or toolchain.is_built(source):
        return None
    return toolchain.compile_shared(source, opt_flags=toolchain.QUICK_OPT_FLAGS)


def optimize_later(source: str, name: str, swap: Callable[[Path], None]) -> None:
    """Start the optimized build of ``source`` in a detached process, and call ``swap`` with its
    library's path from a thread when it is done (if this process is still running). A failure
    leaves the quick build of function ``name`` in use, with a warning naming it."""
    child = optimized_build.start(source)  # started now: a process exiting right after loses nothing

    def finish() -> None:
        try:
            swap(optimized_build.result(child))
        except Exception as error:  # noqa: BLE001 (reported: the quick build stays correct)
            _failures.append(error)
            warnings.warn(f"kiln: the optimized build of {name} failed, its calls keep the quick (-Og) build: {error}",
                          RuntimeWarning, stacklevel=1)

    thread = threading.Thread(target=finish, name="kiln-optimize", daemon=True)  # (exit does not join it)
    with _lock:
        _threads[:] = [t for t in _threads if t.is_alive()]  # (a long process builds many)
        _threads.append(thread)
    thread.start()


def wait() -> None:
    """Wait for the optimized builds started so far (their entries retargeted); raise the first
    failure among them."""
    with _lock:
        threads = list(_threads)
    for thread in threads:
        thread.join()
    with _lock:
        _threads[:] = [t for t in _threads if t.is_alive()]
        failures, _failures[:] = list(_failures), []
    if failures:
        raise failures[0]
