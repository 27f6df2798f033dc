"""``kiln-stream-stores{cache-bytes=0}``: vector stores to arrays larger than the last-level
cache become non-temporal (streaming) stores.

Expects: the loop level after ``kiln-vectorize``. Produces: every full-width ``vector.store``
inside an ``scf.for`` whose destination has a static shape of more than ``cache-bytes`` bytes
marked ``kiln.stream`` (:data:`kiln.dialects.contracts.STREAM_ATTR`); ``cache-bytes=0`` (the
default) is this machine's last-level cache as Linux reports it when the pass runs
(``kiln.dialects.target.host_last_level_cache_bytes``; nothing is marked where it reports
none). Why: a normal store to a line not in cache first reads the line from memory, so a loop
that reads one array and writes another moves 12 bytes per float, a streaming store 8; an
array larger than the cache is evicted before anyone reads it back, so keeping it there gains
nothing. On the 2-core AMD EPYC, a 40 MB copy loop ran at 37-41 GB/s with streaming stores and
25 GB/s (np.copyto's speed) without (bench/RESULTS.md, issue 43). Masked stores (loop tails)
and stores to dynamically shaped arrays are left alone. Values stored are the same; only the
way they reach memory differs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from kiln.dialects.contracts import STREAM_ATTR
from kiln.dialects.target import host_last_level_cache_bytes


def _bytes(ty: object) -> int | None:
    """Bytes of a statically shaped memref of numbers, else None."""
    if not isinstance(ty, MemRefType) or any(d < 0 for d in ty.get_shape()):
        return None
    width = getattr(ty.element_type, "bitwidth", None)
    if not isinstance(width, int):
        return None
    count = 1
    for d in ty.get_shape():
        count *= d
    return count * width // 8


def _in_loop(op: vector.StoreOp) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            return True
        parent = parent.parent_op()
    return False


@dataclass(frozen=True)
class KilnStreamStores(ModulePass):
    """Mark vector stores to arrays larger than the last-level cache as streaming stores."""

    name = "kiln-stream-stores"

    #: the cache size in bytes that a destination must exceed; 0: this machine's last level
    cache_bytes: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        limit = self.cache_bytes or host_last_level_cache_bytes()
        if not limit:
            return
        for store in op.walk():
            if isinstance(store, vector.StoreOp) and _in_loop(store):
                size = _bytes(store.base.type)
                if size is not None and size > limit:
                    store.attributes[STREAM_ATTR] = UnitAttr()
