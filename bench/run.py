"""kiln's benchmark suite: every workload against NumPy (and Numba and JAX where importable) in
one run, with the machine's limits measured in the same run; medians of repeated runs.

    python -m kiln.bench [--quick] [--out bench/RESULTS.md] [--only SUBSTRING[,SUBSTRING...]] [--one-thread] [--busy N]

``--one-thread`` times kiln again with ``KILN_NUM_THREADS=1`` beside its default (what threads
buy); ``--busy N`` also keeps N other processes spinning meanwhile: the threading policy must
not lose on a busy machine.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import functools
import inspect
import multiprocessing
import os
import shlex
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kiln.backends.c import tiering
from kiln.bench.fma_peak import fma_peak_gflops
from kiln.bench.workloads import Workload, workloads

#: rounds of timing every peer in turn, per workload
ROUNDS = 3
#: with ``--busy``: kiln again with one thread, timed in turn with kiln's default setting
ONE_THREAD = "kiln 1 thread"
#: environment a peer's calls run under (kiln's thread count is read at each call)
PEER_ENV: dict[str, dict[str, str]] = {ONE_THREAD: {"KILN_NUM_THREADS": "1"}}


@dataclass
class Row:
    """One workload's figures: per peer, the figure in the workload's unit (None: not run)."""

    workload: Workload
    figures: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    ok: bool = True
    #: GB/s rows: kiln's speed over np.copyto's, the two timed in alternation (same machine state)
    copy_fraction: float | None = None


def median_seconds(fn: Callable[[], Any], quick: bool) -> float:
    """Median time of one call over repeats, each repeat long enough to time reliably (of kiln's
    optimized builds: a tiered first call's quick one is replaced first, backends/c/tiering.py)."""
    fn()
    tiering.wait()
    number, elapsed = 1, 0.0
    target = 0.002 if quick else 0.05
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= target or number >= 1 << 20:
            break
        number *= 2 if elapsed == 0 else max(2, min(10, int(target / elapsed) + 1))
    runs = [elapsed / number]
    for _ in range(2 if quick else 6):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs)


def _peers(one_thread: bool = False) -> dict[str, Callable[[Workload], Callable[..., Any]]]:
    """Peer name -> how it makes a callable of the workload's inputs (only importable peers);
    ``one_thread`` adds kiln run with ``KILN_NUM_THREADS=1`` (the same compiled function)."""
    import kiln
    from kiln.backends.c import pyext

    pyext.module()  # timings are of the native entry: wait for its one-time build (a new machine)
    compiled: dict[Callable[..., Any], Callable[..., Any]] = {}

    def make_kiln(w: Workload) -> Callable[..., Any]:
        fn = w.kiln_fn or w.fn  # xp keeps its default, NumPy: a trace-time constant
        if fn not in compiled:  # one kiln.function per Python function, as users write it
            compiled[fn] = kiln.function(fn)
        return compiled[fn]

    peers: dict[str, Callable[[Workload], Callable[..., Any]]] = {
        "kiln": make_kiln,
        "numpy": lambda w: w.numpy_fn or w.fn,
    }
    if one_thread:
        peers[ONE_THREAD] = make_kiln
    try:
        import jax
        import jax.numpy as jnp

        def make_jax(w: Workload) -> Callable[..., Any]:
            jitted = jax.jit(functools.partial(w.numpy_fn or w.fn, xp=jnp))
            return lambda *a: jax.block_until_ready(jitted(*a))

        peers["jax"] = make_jax
    except ImportError:
        pass
    try:
        import tensorflow as tf
        import tensorflow.experimental.numpy as tnp

        tnp.experimental_enable_numpy_behavior()  # x.mean(), x.sum(axis=1), x @ w on tensors

        def make_tf(w: Workload) -> Callable[..., Any]:
            traced = tf.function(functools.partial(w.numpy_fn or w.fn, xp=tnp))
            return lambda *a: tf.nest.map_structure(lambda t: t.numpy(), traced(*a))  # NumPy in, NumPy out

        peers["tensorflow"] = make_tf
    except ImportError:
        pass
    try:
        import numba

        def make_numba(w: Workload) -> Callable[..., Any]:
            return numba.njit(_bind_xp(w.numba_fn or w.numpy_fn or w.fn, np))

        peers["numba"] = make_numba
    except ImportError:
        pass
    return peers


def _bind_xp(fn: Callable[..., Any], xp: Any) -> Callable[..., Any]:
    """``fn`` without its keyword-only ``xp`` parameter, ``xp`` being a global instead: Numba
    compiles module globals but not a module passed as an argument."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef)
    fdef.decorator_list = []
    keep = [(a, d) for a, d in zip(fdef.args.kwonlyargs, fdef.args.kw_defaults) if a.arg != "xp"]
    fdef.args.kwonlyargs, fdef.args.kw_defaults = [a for a, _ in keep], [d for _, d in keep]
    namespace: dict[str, Any] = {**fn.__globals__, "xp": xp}
    exec(compile(tree, inspect.getsourcefile(fn) or "<bench>", "exec"), namespace)
    return namespace[fdef.name]


def _figure(w: Workload, seconds: float, inputs: tuple[np.ndarray, ...]) -> float:
    if w.unit == "us":
        return seconds * 1e6
    return w.work(inputs) / seconds / 1e9


def _close(got: Any, want: Any, rtol: float) -> bool:
    got_leaves = got if isinstance(got, tuple) else (got,)
    want_leaves = want if isinstance(want, tuple) else (want,)
    return len(got_leaves) == len(want_leaves) and all(
        np.allclose(np.asarray(g, np.float64), np.asarray(r, np.float64), rtol=rtol, atol=rtol * max(1.0, float(np.abs(np.asarray(r, np.float64)).max(initial=0))))
        for g, r in zip(got_leaves, want_leaves)
    )


@contextlib.contextmanager
def _environment(settings: dict[str, str]) -> Iterator[None]:
    """``os.environ`` with ``settings`` for the duration (restored after)."""
    saved = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def _busy_cores(count: int) -> Iterator[None]:
    """``count`` processes spinning on the CPU for the duration: a machine other work keeps busy."""
    ctx = multiprocessing.get_context("spawn")
    spinners = [ctx.Process(target=_spin, daemon=True) for _ in range(count)]
    for p in spinners:
        p.start()
    try:
        yield
    finally:
        for p in spinners:
            p.kill()
            p.join()


def run_workload(w: Workload, peers: dict[str, Callable[[Workload], Callable[..., Any]]], quick: bool,
                 rounds: int = ROUNDS) -> Row:
    """Check every peer's result against NumPy's, then time the peers in turn, ``rounds``
    times over: each figure is the median of its rounds, so a drift of the machine's speed
    (this VM's CPU share changes by tens of percent within minutes) reaches every peer alike."""
    row = Row(w)
    inputs = w.inputs(quick)
    reference = (w.numpy_fn or w.fn)(*inputs)
    ready: dict[str, Callable[..., Any]] = {}
    for peer, make in peers.items():
        row.figures[peer] = None
        if peer in w.skip:
            row.notes.append(f"{peer}: not measured: {w.skip[peer]}")
            continue
        try:
            fn = make(w)
            with _environment(PEER_ENV.get(peer, {})):
                result = fn(*inputs)
        except Exception as e:  # a peer that cannot run this workload is reported, not fatal
            row.notes.append(f"{peer}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}")
            continue
        if not _close(result, reference, w.rtol):
            row.notes.append(f"{peer}: result differs from NumPy")
            if peer == "kiln":
                row.ok = False
        ready[peer] = fn
    times: dict[str, list[float]] = {peer: [] for peer in ready}
    for _ in range(1 if quick else rounds):
        for peer, fn in ready.items():
            with _environment(PEER_ENV.get(peer, {})):
                times[peer].append(median_seconds(lambda fn=fn: fn(*inputs), quick))
    for peer, ts in times.items():
        row.figures[peer] = _figure(w, statistics.median(ts), inputs)
    if "kiln" in ready and w.unit == "GB/s":
        row.copy_fraction = paired_copy_fraction(lambda: ready["kiln"](*inputs), w.work(inputs), quick)
    return row


def paired_copy_fraction(fn: Callable[[], Any], work_bytes: float, quick: bool, rounds: int = 5) -> float:
    """``fn``'s GB/s over np.copyto's, timed in alternation: this VM's bandwidth and CPU share
    drift by tens of percent within minutes, so a limit measured at another moment misleads."""
    n = 10**5 if quick else 10**7
    src, dst = np.ones(n, np.float32), np.empty(n, np.float32)
    mine, copies = [], []
    for _ in range(1 if quick else rounds):
        mine.append(median_seconds(fn, quick))
        copies.append(median_seconds(lambda: np.copyto(dst, src), quick))
    return (work_bytes / statistics.median(mine)) / (8.0 * n / statistics.median(copies))


def copy_bandwidth(quick: bool) -> float:
    """GB/s of a large ``np.copyto`` (read + write), the streaming limit of this machine."""
    n = 10**5 if quick else 10**7
    src, dst = np.ones(n, np.float32), np.empty(n, np.float32)
    return 8.0 * n / median_seconds(lambda: np.copyto(dst, src), quick) / 1e9


# OFFSET is replaced per run: the same value reuses the compiled function, another one is new code
_LATENCY_SCRIPT = textwrap.dedent(
    """
    import sys
    import time
    t0 = time.perf_counter()
    import kiln
    t1 = time.perf_counter()
    import numpy as np

    @kiln.function
    def small(x, y):
        return kiln.relu(x * y + OFFSET)

    t2 = time.perf_counter()
    x = np.ones(3, np.float32)
    small(x, x)
    t3 = time.perf_counter()
    print(t1 - t0, t2 - t1, t3 - t2)
    """
)


def latencies() -> dict[str, float]:
    """Seconds: ``import kiln``, decoration (imports the frontend and xDSL), the first call in a
    process with an empty cache (which also builds kiln's once-per-machine artifacts: the native
    entry extension), the first call of a new function once
    those exist (trace, lower, compile, load), and a warm start: the same function in a new
    process, found in the on-disk cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "KILN_CACHE_DIR": cache}
        runs = []
        for offset in ("1", "1", "2"):
            script = _LATENCY_SCRIPT.replace("OFFSET", offset)
            out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
            runs.append([float(v) for v in out.stdout.split()])
    return {
        "import kiln": runs[1][0],
        "decorate": runs[1][1],
        "first call, empty cache": runs[0][2],
        "first call, new function": runs[2][2],
        "warm start": runs[1][2],
    }


def _ratio(a: float | None, b: float | None, unit: str) -> str:
    if a is None or b is None or a == 0 or b == 0:
        return "–"
    return f"{(b / a if unit == 'us' else a / b):.2f}x"


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3g}"


def report(rows: list[Row], lat: dict[str, float], bandwidth: float, quick: bool, command: str,
           fma_peak: float, busy: int = 0) -> str:
    peers = [p for p in rows[0].figures] if rows else ["kiln", "numpy"]
    others = [p for p in peers if p != "kiln"]
    threads = os.environ.get("KILN_NUM_THREADS", f"OpenMP default ({os.cpu_count()} cores)")
    lines = [
        "# kiln benchmark results",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now().isoformat(timespec='seconds')}  ",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, {_cpu_model()}; "
        f"Python {platform.python_version()}, NumPy {np.__version__}  ",
        f"Threads: kiln {threads}; OpenBLAS {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; "
        f"XLA flags {os.environ.get('XLA_FLAGS', 'default')!r}; TensorFlow intra-op "
        f"{os.environ.get('TF_NUM_INTRAOP_THREADS', 'default')}.  Peers: {', '.join(peers)}"
        + ("" if {"jax", "numba", "tensorflow"} <= set(peers) else " (the others: `pip install -e '.[bench]'`)") + "  ",
        f"Limits measured in this run: copy bandwidth {bandwidth:.1f} GB/s (np.copyto, read+write; each GB/s "
        "row's fraction of it comes from np.copyto timed in alternation with that row's kiln call); "
        f"FMA peak {fma_peak:.1f} GFLOP/s per core (float32, independent vector FMAs on one core: "
        "bench/fma_peak.py).  ",
        *([f"Load: {busy} other process(es) spinning on the CPU throughout the timings (`--busy`).  "] if busy else []),
        f"Figures are medians of {1 if quick else ROUNDS} rounds in which every peer is timed in turn (each "
        f"the median of repeated runs){' (quick mode: tiny sizes, not meaningful)' if quick else ''}. "
        "Ratio = kiln's speed over the peer's (>1: kiln faster).",
        "",
        "| workload | unit | " + " | ".join(peers) + " | " + " | ".join(f"kiln vs {p}" for p in others) + " | vs limit |",
        "|" + "---|" * (3 + len(peers) + len(others)),
    ]
    for row in rows:
        w, k = row.workload, row.figures.get("kiln")
        limit = "–"
        if row.copy_fraction is not None:
            limit = f"{row.copy_fraction:.0%} of copy bw"
        elif k is not None and w.unit == "GFLOP/s":
            limit = f"{k / fma_peak:.0%} of 1-core peak"
        cells = [_fmt(row.figures.get(p)) for p in peers] + [_ratio(k, row.figures.get(p), w.unit) for p in others]
        lines.append(f"| {w.name} | {w.unit} | " + " | ".join(cells) + f" | {limit} |")
    lines += ["", "| latency | seconds |", "|---|---|"] + [f"| {k} | {v:.4f} |" for k, v in lat.items()]
    notes = [f"- {row.workload.name}: {n}" for row in rows for n in row.notes]
    if notes:
        lines += ["", "Notes (a peer that could not run a workload, or disagreed with NumPy):", "", *notes]
    return "\n".join(lines) + "\n"


def _cpu_model() -> str:
    info = Path("/proc/cpuinfo")
    for line in info.read_text().splitlines() if info.exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kiln.bench", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few repeats: a smoke run")
    parser.add_argument("--out", type=Path, help="write the Markdown report here (default: print only)")
    parser.add_argument("--only", help="run only workloads whose name contains this (or one of these, comma-separated)")
    parser.add_argument("--one-thread", action="store_true",
                        help="time kiln with KILN_NUM_THREADS=1 beside kiln's default (what threads buy)")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="keep N other processes spinning on the CPU meanwhile (threads on a busy machine); "
                             "implies --one-thread")
    args = parser.parse_args(argv)
    peers = _peers(one_thread=args.one_thread or args.busy > 0)
    rows = []
    with _busy_cores(args.busy):
        for w in workloads():
            if args.only and not any(part in w.name for part in args.only.split(",")):
                continue
            row = run_workload(w, peers, args.quick)
            print(w.name, {p: _fmt(v) for p, v in row.figures.items()}, w.unit, *row.notes, sep="  ", flush=True)
            rows.append(row)
    settings = " ".join(
        f"{k}={shlex.quote(os.environ[k])}"
        for k in ("KILN_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "XLA_FLAGS",
                  "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "KILN_ISA")
        if k in os.environ
    )
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pinned = f"taskset -c {','.join(map(str, cores))} " if cores and len(cores) < (os.cpu_count() or 0) else ""
    command = f"{settings} {pinned}python -m kiln.bench {' '.join(argv if argv is not None else sys.argv[1:])}".strip()
    text = report(rows, latencies(), copy_bandwidth(args.quick), args.quick, command, fma_peak_gflops(args.quick),
                  args.busy)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
