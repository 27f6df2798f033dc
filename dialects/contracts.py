"""What one stage promises the next outside an op's own fields: attribute names and memory
spaces that passes write and backends read. Declared here, below both, so that neither layer
imports the other (docs/writing-passes.md, "Layers")."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, MemRefType, i64

#: on an ``scf.for``: its iterations are independent (kiln-parallel-loops marks them; the C
#: backend runs them on threads, kiln-vectorize leaves their order alone)
PARALLEL_ATTR = "kiln.parallel"

#: on a ``vector.store``: a non-temporal (streaming) store, written to memory past the caches.
#: kiln-stream-stores sets it where the destination is larger than the last-level cache (a
#: normal store there reads each line from memory before writing it: 12 bytes of traffic per
#: float copied instead of 8); the C backend emits the ISA's streaming store where the address
#: is aligned to the register and a fence after the loop nest
STREAM_ATTR = "kiln.stream"

#: on an ``arith.select`` of integers (kiln-if-to-select sets it): it replaced a branch whose
#: condition may be unpredictable, so the C backend emits a test and a conditional move
#: (``kiln_select_mask``), never a ternary that gcc compiles back into a branch
BRANCHLESS_ATTR = "kiln.branchless"

#: on a function argument / result: its integer element type is unsigned at the ABI
UNSIGNED_ATTR = "kiln.unsigned"

#: on a ``func.func``: its symbol in the generated code when that is not its MLIR name.
#: ``kiln.function`` names every function it traces ``kiln_user_<name>`` this way, so that no Python
#: name clashes with what the system headers declare (``select``, ``index``, ``pselect``, ...) while
#: its IR keeps the user's name (docs/abi.md)
C_SYMBOL_ATTR = "kiln.c_symbol"

#: the prefix of those symbols: kiln's namespace for the user's functions (no helper of kiln's
#: starts with it)
USER_PREFIX = "kiln_user_"

#: the memory space of a GPU kernel's shared (workgroup) buffers
SHARED_SPACE = IntegerAttr(3, i64)


def is_shared(ty: object) -> bool:
    """Whether a memref type lives in shared (workgroup) memory."""
    return isinstance(ty, MemRefType) and ty.memory_space == SHARED_SPACE

#: on a ``func.func`` outlined from a large one (kiln-outline-parts): the group of functions,
#: 0 to parts-1, it is compiled with; the C backend compiles each group as its own translation
#: unit, in parallel with the others
PART_ATTR = "kiln.part"

#: on a public ``func.func`` (graph-bound-results sets it): ``(result, axis, length result)``
#: triples, flat. Result ``result`` is returned in a buffer of a bound size along ``axis``; the 0-d
#: i64 result ``length result`` (after all the function's own) holds how much of it is the value:
#: the caller allocates the bound and keeps the first ``length`` elements (docs/abi.md)
RESULT_LENGTHS_ATTR = "kiln.result_lengths"


def result_lengths_attr(table: Sequence[tuple[int, int, int]]) -> DenseArrayBase:
    """The value of :data:`RESULT_LENGTHS_ATTR` for ``(result, axis, length result)`` triples."""
    return DenseArrayBase.from_list(i64, [n for row in table for n in row])


def result_lengths(attr: DenseArrayBase) -> tuple[tuple[int, int, int], ...]:
    """The ``(result, axis, length result)`` triples of a :data:`RESULT_LENGTHS_ATTR` value."""
    flat = [int(n) for n in attr.get_values()]
    return tuple((flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3))
