"""``scf.for`` marked ``kiln.parallel`` (passes/kiln_parallel_loops.py) → an OpenMP parallel loop.

The loop is emitted by control_ops as usual, preceded by::

    #pragma omp parallel for num_threads(kiln_num_threads()) if(kiln_num_threads() > 1 && elements >= PARALLEL_MIN_ELEMENTS)

under ``#ifdef _OPENMP`` (the toolchain adds ``-fopenmp`` when a pragma is present). elements
is the trip count times the loop's ``kiln.parallel`` (elements per iteration): a loop below
``PARALLEL_MIN_ELEMENTS`` (a few tens of µs of work) would lose more to waking the threads
than it gains, and ``KILN_NUM_THREADS=1`` runs the plain sequential loop. Iterations write
disjoint elements, so the default static schedule needs no synchronisation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr

from kiln.backends.c.dispatch import HANDLERS, Handler, handles
from kiln.passes.kiln_parallel_loops import PARALLEL_ATTR

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter

#: fewest elements in a loop nest worth running on several threads
PARALLEL_MIN_ELEMENTS = 1 << 17


def _parallel_for(sequential: Handler) -> Handler:
    """control_ops' scf.for handler, with the OpenMP pragma before marked loops."""

    def handler(em: FunctionEmitter, op: scf.ForOp) -> None:
        work = op.attributes.get(PARALLEL_ATTR)
        if isinstance(work, IntegerAttr) and not op.iter_args:
            threads = em.use_helper("kiln_num_threads") + "()"
            trip = f"({em.expr(op.ub)} - {em.expr(op.lb)})"
            em.line("#ifdef _OPENMP")
            em.line(f"#pragma omp parallel for num_threads({threads}) "
                    f"if({threads} > 1 && {trip} * {work.value.data} >= {PARALLEL_MIN_ELEMENTS})")
            em.line("#endif")
        sequential(em, op)

    return handler


handles(scf.ForOp)(_parallel_for(HANDLERS[scf.ForOp]))
