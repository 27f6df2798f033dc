"""Fewer garbage collections while a first call traces and compiles.

A compile allocates millions of small xDSL objects (ops, uses, attributes) that live until the
compile ends, so Python's default thresholds (a young collection every 700 allocations, a full
one every 10 young ones' worth) keep re-scanning a growing heap that holds almost no garbage:
on the 8,750-op chain of issue 39 that was about a sixth of the compile's CPU time. Inside
:func:`raised` the thresholds are :data:`COMPILING`: collections still run, so cyclic garbage
stays bounded, only about seventy times less often. Nested and concurrent compiles share one
raise; the user's thresholds come back when the last one ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: gc thresholds while compiling (young collections every 50,000 net allocations)
COMPILING = (50_000, 10, 10)

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None


@contextmanager
def raised() -> Iterator[None]:
    """Run the body with :data:`COMPILING` thresholds (never lower than the user's own; a
    threshold of 0, collection off, stays off)."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            if _saved[0]:
                gc.set_threshold(*(max(mine, theirs) for mine, theirs in zip(COMPILING, _saved)))
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None
