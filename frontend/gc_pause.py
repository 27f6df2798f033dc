"""No cyclic garbage collection while a first call traces and compiles.

A compile allocates millions of small xDSL objects (ops, uses, attributes) that live until it
ends, so each collection re-scans a growing heap that holds little garbage. Python's default
thresholds cost about a sixth of the 8,750-op chain's compile (issue 39); thresholds raised to
(50,000, 10, 10) still cost 5.1 of the 10^5-op chain's 58.8 s of CPU (collections of the older
generations re-scanned the IR built so far). With collection paused it took 51.6 s, and its peak
memory grew from 696 to 772 MB: the ops that passes erase are reference cycles, freed at the
first collection after the compile (bench/RESULTS.md, "Compile time: collection paused").
Nested and concurrent compiles share one pause; collection comes back, if it was on, when the
last one ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with cyclic garbage collection off (it stays off if it was off)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
