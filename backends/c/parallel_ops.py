"""``scf.for`` marked ``kiln.parallel`` (passes/kiln_parallel_loops.py) → an OpenMP parallel loop.

The loop is emitted by control_ops as usual, in a block that first asks its own measurements how
many threads to take, then times the loop::

    static kiln_site site;
    const int threads = kiln_site_threads(&site);
    const int64_t start = kiln_site_clock();
    #pragma omp parallel for num_threads(threads) if(threads > 1) \
        schedule(dynamic, kiln_chunk(iterations, threads))
    for (...) ...
    kiln_site_done(&site, elements, threads, start);

with the pragma under ``#ifdef _OPENMP`` (the toolchain adds ``-fopenmp`` when a pragma is
present), when its bounds are static and its work is at least ``PARALLEL_MIN_ELEMENTS``; with
dynamic bounds the loop is emitted twice, the team's copy run when ``elements >=
PARALLEL_MIN_ELEMENTS`` and the site chose more than one thread, else the plain copy (a region
entered with a false ``if`` clause still costs a libgomp team, microseconds; small loops are not
timed either). elements is the trip count times the loop's ``kiln.parallel`` (elements per
iteration): a loop below ``PARALLEL_MIN_ELEMENTS`` (a few tens of µs of work) would lose more to
waking the threads than it gains, and ``KILN_NUM_THREADS=1`` runs the plain sequential loop. Iterations write
disjoint elements; threads claim them in chunks as they come (``schedule(dynamic, kiln_chunk(...))``,
runtime/kiln_threads.h), so a thread that starts late or loses its core to another process leaves
its unclaimed chunks to the others rather than the loop waiting for a static share. Each iteration
runs whole on one thread, so the result is the one thread's, bit for bit.

How many threads a loop takes is its own measurement, not a constant: each loop has a static
``kiln_site`` and runs on the team while the team was faster per element than one thread
(``kiln_site_threads`` before, ``kiln_site_done`` after; each choice is tried again now and then),
so a loop that a busy machine makes slower on two threads goes back to one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue

from kiln.backends.c.dispatch import HANDLERS, Handler, handles
from kiln.backends.c.vector_ops import stream_fence, streams
from kiln.dialects.contracts import PARALLEL_ATTR

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter

#: fewest elements in a loop nest worth running on several threads
PARALLEL_MIN_ELEMENTS = 1 << 17


def _parallel_for(sequential: Handler) -> Handler:
    """control_ops' scf.for handler, with the OpenMP pragma before marked loops."""

    def handler(em: FunctionEmitter, op: scf.ForOp) -> None:
        work = op.attributes.get(PARALLEL_ATTR)
        if not isinstance(work, IntegerAttr) or op.iter_args or _too_small(em, op, work.value.data):
            sequential(em, op)  # its stores marked kiln.stream stay normal ones: no site measures them
            return
        fence = stream_fence(em) if streams(op) else None
        em.use_helper("kiln_num_threads")
        site, threads, start = em.fresh("loop_site"), em.fresh("loop_threads"), em.fresh("loop_start")
        trip = f"({em.expr(op.ub)} - {em.expr(op.lb)})"
        elements = f"{trip} * {work.value.data}"
        schedule = f"schedule(dynamic, kiln_chunk({_iterations(em, op, trip)}, {threads}))"
        em.open("{")
        em.line(f"static kiln_site {site};")
        stream = _stream_sites(em, fence)
        if _constant(op.ub) is not None and _constant(op.lb) is not None:  # static and big enough
            em.line(f"const int {threads} = kiln_site_threads(&{site});")
            if stream:
                em.line(f"const int {stream[1]} = kiln_stream_choose({stream[0]}, {threads});")
            em.line(f"const int64_t {start} = kiln_site_clock();")
            _pragma(em, f"num_threads({threads}) if({threads} > 1)", schedule, fence)
            _streaming(em, op, sequential, fence, stream)
            em.line(f"kiln_site_done(&{site}, {elements}, {threads}, {start});")
            _stream_done(em, stream, threads, elements, start)
            em.close()
            return
        # dynamic bounds: the parallel region only when the trip count calls for it; a loop that
        # entered it with a false if clause still paid for a libgomp team (futex calls), which was
        # most of the time of small loops run many times (NPBench syrk: 30,000 rows of <= 200);
        # those small loops are not timed either
        big = em.fresh("loop_big")
        em.line(f"const int {big} = {elements} >= {PARALLEL_MIN_ELEMENTS};")
        em.line(f"const int {threads} = {big} ? kiln_site_threads(&{site}) : 1;")
        if stream:
            em.line(f"const int {stream[1]} = {big} && kiln_stream_choose({stream[0]}, {threads});")
        em.line(f"const int64_t {start} = {big} ? kiln_site_clock() : 0;")
        em.open(f"if ({threads} > 1) {{")
        _pragma(em, f"num_threads({threads})", schedule, fence)
        _streaming(em, op, sequential, fence, stream)
        em.close()
        em.open("else {")
        _streaming(em, op, sequential, None, stream)
        if fence:
            em.line(fence)
        em.close()
        if stream:
            em.open(f"if ({big}) {{")
            em.line(f"kiln_site_done(&{site}, {elements}, {threads}, {start});")
            _stream_done(em, stream, threads, elements, start)
            em.close()
        else:
            em.line(f"if ({big}) kiln_site_done(&{site}, {elements}, {threads}, {start});")
        em.close()

    return handler


def _iterations(em: FunctionEmitter, op: scf.ForOp, trip: str) -> str:
    """C for the loop's iteration count (its span over the step)."""
    step = _constant(op.step)
    return trip if step == 1 else f"(({trip} + {em.expr(op.step)} - 1) / {em.expr(op.step)})"


def _pragma(em: FunctionEmitter, team: str, schedule: str, fence: str | None) -> None:
    """The OpenMP pragma of a parallel loop; with a fence (the loop streams), a parallel region
    whose threads each run their share of the loop (``omp for nowait``), then the fence, so that
    every thread's streaming stores are ordered before the region's closing barrier. That
    region's block is closed by the loop :func:`_fenced` emits."""
    em.line("#ifdef _OPENMP")
    if not fence:
        em.line(f"#pragma omp parallel for {team} {schedule}")
        em.line("#endif")
        return
    em.line(f"#pragma omp parallel {team}")
    em.line("#endif")
    em.open("{")
    em.line("#ifdef _OPENMP")
    em.line(f"#pragma omp for {schedule} nowait")
    em.line("#endif")


def _stream_sites(em: FunctionEmitter, fence: str | None) -> tuple[str, str] | None:
    """For a loop that may stream its stores: its two stream sites (one per thread choice,
    runtime/kiln_threads.h) and the name of the flag that says whether this call streams."""
    if not fence:
        return None
    sites, flag = em.fresh("stream_sites"), em.fresh("loop_streams")
    em.line(f"static kiln_site {sites}[2];")
    return sites, flag


def _streaming(em: FunctionEmitter, op: scf.ForOp, sequential: Handler, fence: str | None,
               stream: tuple[str, str] | None) -> None:
    """The loop, its marked stores streaming while ``stream``'s flag is set; then, with a fence,
    the fence and the end of the block that :func:`_pragma` opened."""
    outer, em.stream_flag = em.stream_flag, stream[1] if stream else None
    sequential(em, op)
    em.stream_flag = outer
    if fence:
        em.line(fence)
        em.close()


def _stream_done(em: FunctionEmitter, stream: tuple[str, str] | None, threads: str, elements: str, start: str) -> None:
    if stream:
        em.line(f"kiln_stream_done({stream[0]}, {threads}, {elements}, {stream[1]}, {start});")


def _too_small(em: FunctionEmitter, op: scf.ForOp, work: int) -> bool:
    """Static bounds with too little work: no pragma at all. Even with a false ``if`` clause,
    an OpenMP region costs a libgomp call per loop, microseconds on a small function."""
    ub, lb = _constant(op.ub), _constant(op.lb)
    if ub is None or lb is None:  # dynamic bounds: decided at run time by the if clause
        return False
    return (ub - lb) * work < PARALLEL_MIN_ELEMENTS


_FOLD: dict[type, Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
}


def _constant(value: SSAValue) -> int | None:
    """The value of an index computed from constants by add/sub/mul (the loops stage leaves
    some of these unfolded), else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    if isinstance(owner, arith.IndexCastOp):
        return _constant(owner.input)
    if type(owner) in _FOLD:
        lhs, rhs = _constant(owner.operands[0]), _constant(owner.operands[1])
        return None if lhs is None or rhs is None else _FOLD[type(owner)](lhs, rhs)
    return None


handles(scf.ForOp)(_parallel_for(HANDLERS[scf.ForOp]))
