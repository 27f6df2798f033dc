"""``python -m kiln.bench.npbench --npbench DIR``: NPBench's NumPy kernels, decorated as they are.

Each ``<name>_numpy.py`` kernel of a local NPBench checkout (spcl/npbench; nothing of it is
copied into kiln) is wrapped in ``kiln.function`` unchanged, called on its preset's inputs and
compared with the same kernel run eagerly on NumPy: the return value and every argument
array (in-place writes must match). Each kernel runs in a child process with a time limit,
so a crash or a hang is a row of the table, not the end of the run.

Results: ``right``, ``wrong`` (a silent mismatch), ``refused`` (a kiln error naming the
construct), ``crash`` (any other exception, a signal, or the time limit). A kernel whose answer
NumPy itself changes by as much when its inputs move by one ulp (a chaotic one: nbody at preset M)
is ``right`` with an "ill-conditioned" detail giving both differences.

Speed mode (``--speed``, preset M unless ``--preset``): each kernel kiln runs right is timed
against NumPy and against NPBench's own Numba and JAX versions of it, all in one child process:
every ``<module>_numba*.py`` (``_numba_n``, ``_numba_np``, ``_numba_npr``, object mode
``_numba_o``...) and ``<module>_jax*.py`` (float64, ``jax.block_until_ready``, inputs as jax
arrays). A variant that fails to load or run, or whose answer is not NumPy's (NPBench's own
check: its return values then its ``output_args``, allclose at the benchmark's rtol/atol or a
relative error in norm below its ``norm_error``) is left out with the reason; each peer's figure
is its fastest remaining variant, named in the table. Every call gets fresh copies of the
inputs (in-place kernels), copied outside the timed region; the first call of each is its check
and warm-up (kiln's, trace + compile + run, is reported apart: a compile unless the disk cache
holds it; with an empty ``KILN_CACHE_DIR`` the child first waits for kiln's native entry extension,
whose one-time build otherwise runs at nice 19 on the pinned core behind the timed calls, which then
take the interim Python path: crc16 0.46 ms instead of 0.12). Then rounds call each implementation
once in turn, starting one later each round, until ``--rounds`` rounds or the kernel's ``--budget`` seconds (counted from the child's start,
checks included) are spent; past the budget up to 5 rounds while 80% of ``--timeout`` allows. A
variant twice as slow as its peer's fastest after a round is dropped. Figures are medians over the
rounds. Before each timed call the harness waits (up to half a second) for the previous call's
thread pool to stop spinning. ``--threads N`` holds kiln, OpenMP, OpenBLAS, Numba and XLA to N threads
in the children (set before they import anything) and pins the harness and its children to N cores
(XLA sizes its pool by them); 1 and 2 threads are two runs.

The full runs (about a minute per kernel, each):

    python -m kiln.bench.npbench --npbench /work/npbench --speed --threads 1 --out bench/NPBENCH_SPEED.md
    python -m kiln.bench.npbench --npbench /work/npbench --speed --threads 2 --out bench/NPBENCH_SPEED.md
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gc
import json
import math
import multiprocessing as mp
import os
import pathlib
import statistics
import sys
import threading
import time
import traceback
import warnings
from typing import Any, Callable, NamedTuple

import numpy as np

#: exception types kiln raises for a program it refuses on purpose (anything else is a crash)
_REFUSALS = ("KilnCompileError", "NotImplementedError", "TypeError", "IndexError", "ValueError", "UnboundLocalError")

#: the frameworks whose NPBench versions are timed beside kiln and NumPy (file suffixes after the module name)
PEERS = ("numba", "jax")

#: a variant slower than its peer's fastest by this factor after a round cannot be the peer's figure: dropped
_DROP_FACTOR = 2.0

#: rounds a kernel gets past its budget while the time limit allows (a median of three moved by a
#: single slow call: k2mm at 0.96x NumPy in 3 rounds, 1.04x in 10)
_MIN_ROUNDS = 5


def _load(path: pathlib.Path, name: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba's object mode finds a function's globals through it
    spec.loader.exec_module(module)
    return module


def _inputs(root: pathlib.Path, info: dict[str, Any], preset: str) -> dict[str, Any]:
    """The preset's parameters plus the arrays NPBench's ``initialize`` makes from them."""
    bench = info["benchmark"]
    folder = root / "npbench" / "benchmarks" / bench["relative_path"]
    params = dict(bench["parameters"][preset])
    init = bench.get("init")
    if init:
        module = _load(folder / f"{bench['module_name']}.py", f"npb_init_{bench['module_name']}")
        made = getattr(module, init["func_name"])(*(params[a] for a in init["input_args"]))
        outs = init["output_args"]
        made = (made,) if len(outs) == 1 else made
        params.update(zip(outs, made))
    return params


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=True))
    return bool(np.array_equal(a, b))


def _copy(args: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def _answer(out: Any, args: dict[str, Any], output_args: list[str]) -> list[Any]:
    """One call's answer as NPBench checks it: the returned values, then the ``output_args`` as the call
    left them (a JAX version returns its updated arrays instead, which line up with them)."""
    outs = [] if out is None else list(out) if isinstance(out, (tuple, list)) else [out]
    return outs + [args[n] for n in output_args]


def agrees(expected: list[Any], got: list[Any], bench: dict[str, Any]) -> bool:
    """NPBench's check of a framework against NumPy, value by value: allclose at the benchmark's rtol/atol,
    else a relative error in norm below its norm_error (Numba's fastmath reassociates sums)."""
    rtol, atol, norm_error = bench.get("rtol", 1e-5), bench.get("atol", 1e-8), bench.get("norm_error", 1e-5)
    if len(got) < len(expected):
        return False
    for r, v in zip(expected, got):
        r, v = np.asarray(r), np.asarray(v)
        if r.shape != v.shape:
            return False
        if np.allclose(r, v, rtol=rtol, atol=atol, equal_nan=True):
            continue
        if not _relative_error(r, v) < norm_error:
            return False
    return True


def _kernel(root: str, info_path: str, preset: str) -> tuple[dict[str, Any], pathlib.Path, Callable[..., Any], dict]:
    """One benchmark's description, folder, NumPy function and the preset's inputs."""
    bench = json.loads(pathlib.Path(info_path).read_text())["benchmark"]
    folder = pathlib.Path(root) / "npbench" / "benchmarks" / bench["relative_path"]
    sys.path.insert(0, str(folder))
    module = _load(folder / f"{bench['module_name']}_numpy.py", f"npb_{bench['module_name']}_numpy")
    return bench, folder, getattr(module, bench["func_name"]), _inputs(pathlib.Path(root), {"benchmark": bench}, preset)


def _first_line(e: Exception) -> str:
    """An exception's type and the first line of its message: a table cell."""
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"


def _verdict(func: Callable[..., Any], compiled: Callable[..., Any], args: dict[str, Any],
             bench: dict[str, Any]) -> tuple[str, float, str, list[Any]]:
    """kiln's first call against the eager NumPy run, each on fresh copies of ``args``: (result, seconds of
    the first call, detail, NumPy's answer as NPBench checks it)."""
    names = bench["input_args"]
    eager_args, kiln_args = _copy(args), _copy(args)
    expected = func(*(eager_args[n] for n in names))
    start = time.perf_counter()
    try:
        got = compiled(*(kiln_args[n] for n in names))
    except Exception as e:  # noqa: BLE001 - classified below
        seconds = time.perf_counter() - start
        kind = "refused" if type(e).__name__ in _REFUSALS else "crash"
        return kind, seconds, _first_line(e)[:200], []
    seconds = time.perf_counter() - start
    bad = [] if _same(expected, got) else ["return value"]
    bad += [n for n in bench.get("array_args", []) if not _same(eager_args[n], kiln_args[n])]
    answer = _answer(expected, eager_args, bench.get("output_args", []))
    if not bad:
        return "right", seconds, "", answer
    chaotic = _ill_conditioned(func, args, bench, bad, (expected, eager_args), (got, kiln_args))
    return ("right", seconds, chaotic, answer) if chaotic else ("wrong", seconds, "differs: " + ", ".join(bad), answer)


def _relative_error(want: Any, got: Any) -> float:
    """|got - want| / |want| in norm over every value of ``want`` (a tuple's items together)."""
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return math.inf
        pairs = list(zip(want, got))
    else:
        pairs = [(want, got)]
    diff = total = 0.0
    for w, g in pairs:
        w, g = np.asarray(w), np.asarray(g)
        if w.shape != g.shape or w.dtype.kind not in "biufc" or g.dtype.kind not in "biufc":
            return math.inf
        with np.errstate(all="ignore"):
            diff += float(np.linalg.norm((g.astype(np.complex128) - w.astype(np.complex128)).ravel())) ** 2
            total += float(np.linalg.norm(w.astype(np.complex128).ravel())) ** 2
    return math.sqrt(diff) / math.sqrt(total) if total else (0.0 if diff == 0 else math.inf)


def _ill_conditioned(func: Callable[..., Any], args: dict[str, Any], bench: dict[str, Any], bad: list[str],
                     eager: tuple[Any, dict[str, Any]], kiln_run: tuple[Any, dict[str, Any]]) -> str:
    """Why kiln's differing answer is as good as NumPy's own, or '': NumPy run again on its float inputs
    moved by one ulp (``np.nextafter``, up, then down) differs from its first answer, in each value that
    differs, by at least a tenth of kiln's difference (a chaotic kernel, such as an n-body simulation
    over many steps, turns any rounding into differences of one order, of random size; kiln cannot be
    held to NumPy's last bits there, and a real error on a well-conditioned kernel stays caught)."""
    (expected, eager_args), (got, kiln_args) = eager, kiln_run
    runs = []
    for direction in (np.inf, -np.inf):
        moved = {k: (np.nextafter(v, direction) if isinstance(v, np.ndarray) and v.dtype.kind == "f"
                     else _copy({k: v})[k]) for k, v in args.items()}
        runs.append((func(*(moved[n] for n in bench["input_args"])), moved))
    details = []
    for name in bad:
        want, mine = (expected, got) if name == "return value" else (eager_args[name], kiln_args[name])
        ours = _relative_error(want, mine)
        numpy_self = max(_relative_error(want, out if name == "return value" else after[name]) for out, after in runs)
        if not ours <= 10 * numpy_self:
            return ""
        details.append(f"{name} {ours:.1e} (NumPy's own {numpy_self:.1e})")
    return ("ill-conditioned: kiln differs from NumPy, in norm, by the order NumPy differs from itself when "
            "its inputs move by one ulp: " + ", ".join(details))


def _harness_failure(e: BaseException) -> str:
    return f"harness: {type(e).__name__}: {e}"[:200] + traceback.format_exc()[-300:]


def check_one(root: str, info_path: str, preset: str, queue: Any) -> None:
    """Child process: run one kernel eagerly and compiled; put (result, seconds, detail) on ``queue``."""
    try:
        import kiln

        bench, _, func, args = _kernel(root, info_path, preset)
        kind, seconds, detail, _ = _verdict(func, kiln.function(func), args, bench)
        queue.put((kind, seconds, detail))
    except BaseException as e:  # noqa: BLE001 - the harness itself failed
        queue.put(("crash", 0.0, _harness_failure(e)))


def variants(folder: pathlib.Path, module: str) -> list[str]:
    """NPBench's Numba and JAX versions of one kernel, named by their file's suffix after ``<module>_``
    (``numba_n``, ``numba_np``, ``jax``, ``jax_lib``...), each peer's sorted."""
    found = []
    for peer in PEERS:
        stems = (p.stem[len(module) + 1:] for p in folder.glob(f"{module}_{peer}*.py"))
        found += sorted(s for s in stems if s == peer or s.startswith(peer + "_"))
    return found


def family(variant: str) -> str:
    """The implementation a timed name belongs to: ``numba_np`` -> ``numba``, ``kiln`` -> ``kiln``."""
    return variant.split("_")[0]


class _Impl(NamedTuple):
    """How to call one implementation: the function (blocking until its result exists) and the copy of the
    inputs it gets before each call."""

    call: Callable[..., Any]
    copy: Callable[[dict[str, Any]], dict[str, Any]]


def _peer(folder: pathlib.Path, bench: dict[str, Any], variant: str, args: dict[str, Any],
          expected: list[Any]) -> tuple[_Impl | None, str]:
    """Load one Numba or JAX variant and check it (its first call, which compiles it): (how to call it, '')
    or (None, why it is left out)."""
    module = bench["module_name"]
    try:
        if family(variant) == "jax":
            import jax
            import jax.numpy as jnp

            jax.config.update("jax_enable_x64", True)  # before the module makes any array
        func = getattr(_load(folder / f"{module}_{variant}.py", f"npb_{module}_{variant}"), bench["func_name"])
        if family(variant) == "jax":
            impl = _Impl(lambda *a: jax.block_until_ready(func(*a)),
                         lambda d: {k: (jnp.array(v) if isinstance(v, np.ndarray) else v) for k, v in d.items()})
        else:
            impl = _Impl(func, _copy)
        fresh = impl.copy(args)
        out = impl.call(*(fresh[n] for n in bench["input_args"]))
    except Exception as e:  # noqa: BLE001 - any failure leaves the variant out, with the reason
        return None, _first_line(e)[:160]
    if not agrees(expected, _answer(out, fresh, bench.get("output_args", [])), bench):
        return None, "not NumPy's answer"
    return impl, ""


def contenders(names: list[str], samples: dict[str, list[float]]) -> list[str]:
    """The names still worth timing: kiln and NumPy always; a peer's variant unless its median so far is
    ``_DROP_FACTOR`` times its peer's fastest (it cannot be the peer's figure)."""
    medians = {n: statistics.median(samples[n]) for n in names}
    best: dict[str, float] = {}
    for n in names:
        best[family(n)] = min(best.get(family(n), math.inf), medians[n])
    return [n for n in names if family(n) not in PEERS or medians[n] < _DROP_FACTOR * best[family(n)]]


#: the longest wait for the other threads of the process to stop running before a timed call
_SETTLE_SECONDS = 0.5


def _others_running() -> bool:
    """Whether a thread of this process other than this one is running: a pool spinning after its
    own call (OpenBLAS's for NumPy, XLA's, Numba's), waiting for work that is not coming."""
    me = str(threading.get_native_id())
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return False
    for tid in tasks:
        if tid == me:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                if f.read().rpartition(")")[2][:2] == " R":
                    return True
        except OSError:
            continue
    return False


def _settle() -> None:
    """Wait (up to _SETTLE_SECONDS) until the previous implementation's thread pool stops spinning,
    so each call starts with the cores free: with --threads 2, NumPy's OpenBLAS thread spinning
    after its matmul took one of the two cores from whoever ran next (kiln's covariance2 right
    after NumPy's: 0.77x NumPy; with this wait 1.09x)."""
    end = time.perf_counter() + _SETTLE_SECONDS
    while _others_running() and time.perf_counter() < end:
        time.sleep(0.002)


def _time_call(call: Callable[..., Any], inputs: tuple[Any, ...]) -> float:
    _settle()
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        call(*inputs)
        return time.perf_counter() - start
    finally:
        if gc_was_on:
            gc.enable()


def _round_robin(impls: dict[str, _Impl], args: dict[str, Any], names: list[str], deadline: float,
                 limit: float, max_rounds: int) -> tuple[dict[str, list[float]], int]:
    """Seconds of each call, rounds of one call per implementation, the order rotated each round so no one
    always follows the same neighbour. A new round starts while it should end before ``deadline``, or
    before ``limit`` while there are fewer than ``_MIN_ROUNDS`` (one round always runs)."""
    samples: dict[str, list[float]] = {n: [] for n in impls}
    active, rounds, last = list(impls), 0, 0.0
    while rounds == 0 or (rounds < max_rounds
                          and time.perf_counter() + last <= (limit if rounds < _MIN_ROUNDS else deadline)):
        start = time.perf_counter()
        shift = rounds % len(active)
        for name in active[shift:] + active[:shift]:
            fresh = impls[name].copy(args)
            samples[name].append(_time_call(impls[name].call, tuple(fresh[n] for n in names)))
        last = time.perf_counter() - start
        rounds += 1
        active = contenders(active, samples)
    return samples, rounds


@dataclasses.dataclass
class SpeedRow:
    """One kernel of a speed run. ``ms``: median milliseconds of each implementation timed (``kiln``,
    ``numpy``, ``numba_n``, ``jax``...); ``reason``: why the kernel was not timed ('' when it was)."""

    kernel: str
    reason: str = ""
    first_s: float = 0.0
    ms: dict[str, float] = dataclasses.field(default_factory=dict)
    left_out: dict[str, str] = dataclasses.field(default_factory=dict)
    rounds: int = 0

    def best(self, peer: str) -> tuple[str, float] | None:
        """The peer's fastest timed variant and its milliseconds."""
        timed = [(ms, name) for name, ms in self.ms.items() if family(name) == peer]
        return (min(timed)[1], min(timed)[0]) if timed else None

    def speedup(self, peer: str) -> float | None:
        """How many times faster kiln is than the peer's fastest variant (None: not both timed)."""
        best = self.best(peer)
        return best[1] / self.ms["kiln"] if best and "kiln" in self.ms else None


def time_one(root: str, info_path: str, preset: str, budget: float, limit: float, max_rounds: int,
             queue: Any) -> None:
    """Child process: check kiln's answer, then time kiln, NumPy and NPBench's Numba and JAX variants in
    turn for ``budget`` seconds, for ``limit`` at most; put the SpeedRow (as a dict: the class may live in
    ``__main__``) on ``queue``."""
    start = time.perf_counter()
    row = SpeedRow(pathlib.Path(info_path).stem)
    try:
        warnings.simplefilter("ignore")  # Numba's object-mode and parallel notices, JAX's
        import kiln
        from kiln.backends.c import pyext, tiering

        pyext.module()  # timings are of the native entry: wait for its one-time build (an empty cache)
        bench, folder, func, args = _kernel(root, info_path, preset)
        compiled = kiln.function(func)
        kind, row.first_s, detail, expected = _verdict(func, compiled, args, bench)
        tiering.wait()  # timed in its optimized build (a tiered first call ran a quick one)
        if kind != "right":
            row.reason = f"{kind}: {detail}" if detail else kind
        else:
            impls = {"kiln": _Impl(compiled, _copy), "numpy": _Impl(func, _copy)}
            for variant in variants(folder, bench["module_name"]):
                impl, why = _peer(folder, bench, variant, args, expected)
                if impl is None:
                    row.left_out[variant] = why
                else:
                    impls[variant] = impl
            samples, row.rounds = _round_robin(impls, args, bench["input_args"], start + budget, start + limit,
                                             max_rounds)
            row.ms = {n: 1e3 * statistics.median(s) for n, s in samples.items()}
    except BaseException as e:  # noqa: BLE001 - the harness itself failed
        row.reason = "crash: " + _harness_failure(e)
    queue.put(dataclasses.asdict(row))


def thread_env(threads: int) -> dict[str, str]:
    """The environment that holds kiln, OpenMP, OpenBLAS, Numba and XLA to ``threads`` threads (each reads
    it when it loads, so it is set before a child starts). kiln is held by ``OMP_NUM_THREADS`` alone
    past one thread, as a user's machine holds it: ``KILN_NUM_THREADS`` would force every parallel
    loop onto the team, where by default each loop takes it only while that measures faster (lenet's
    GEMMs with 6 and 16 columns took 3.4 ms forced onto two threads, 1.5 on one)."""
    n = str(threads)
    eigen = "false" if threads == 1 else "true"
    env = {"OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n, "NUMBA_NUM_THREADS": n,
           "XLA_FLAGS": f"--xla_cpu_multi_thread_eigen={eigen} intra_op_parallelism_threads={n}"}
    return {"KILN_NUM_THREADS": "1", **env} if threads == 1 else env


def thread_cores(threads: int) -> set[int]:
    """The first ``threads`` cores this process may run on (none off Linux): the harness pins itself
    (and so its children) to them. XLA sizes its CPU thread pool by the cores it may use and ignores
    the flags above: in a one-thread run JAX's matmul used both cores (2000^2 float64: 85 GFLOP/s,
    over one core's FMA peak)."""
    if not hasattr(os, "sched_getaffinity"):  # not Linux: no pinning
        return set()
    allowed = sorted(os.sched_getaffinity(0))
    return set(allowed[:max(1, threads)])


def _in_child(target: Callable[..., None], args: tuple[Any, ...], timeout: float) -> tuple[Any, str, float]:
    """Run ``target(*args, queue)`` in a fresh process: (what it put on the queue, '', seconds) or
    (None, why there is no answer, seconds)."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    start = time.perf_counter()
    proc.start()
    proc.join(timeout)
    waited = time.perf_counter() - start
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None, f"no answer within {timeout:.0f} s", waited
    if queue.empty():
        return None, f"child exited with code {proc.exitcode}", waited
    return queue.get(), "", waited


def _benchmarks(root: pathlib.Path, only: list[str] | None) -> list[pathlib.Path]:
    """The kernels' bench_info files, those ``only`` names when given (a name that is none is an
    error: ``--only gemm,atax`` timed nothing)."""
    found = sorted((root / "bench_info").glob("*.json"))
    unknown = sorted(set(only or ()) - {p.stem for p in found})
    if unknown:
        raise SystemExit(f"--only: no NPBench kernel named {', '.join(unknown)} (names are separated by spaces)")
    return [p for p in found if not only or p.stem in only]


def run(root: pathlib.Path, preset: str, timeout: float, only: list[str] | None) -> list[tuple[str, str, float, str]]:
    rows = []
    for info_path in _benchmarks(root, only):
        got, failure, waited = _in_child(check_one, (str(root), str(info_path), preset), timeout)
        rows.append((info_path.stem, *got) if got else (info_path.stem, "crash", waited, failure))
        print(f"{rows[-1][0]:24} {rows[-1][1]:8} {rows[-1][2]:7.2f}s  {rows[-1][3]}", flush=True)
    return rows


def run_speed(root: pathlib.Path, preset: str, timeout: float, budget: float, max_rounds: int,
              only: list[str] | None) -> list[SpeedRow]:
    rows = []
    for info_path in _benchmarks(root, only):
        # the child stops timing well before it is killed: a row with fewer rounds, not a lost row
        task = (str(root), str(info_path), preset, budget, 0.8 * timeout, max_rounds)
        got, failure, _ = _in_child(time_one, task, timeout)
        rows.append(SpeedRow(**got) if got else SpeedRow(info_path.stem, reason=f"crash: {failure}"))
        row = rows[-1]
        print(f"{row.kernel:24} {row.reason or ' '.join(f'{n} {ms:.3g}' for n, ms in row.ms.items())}", flush=True)
    return rows


def table(rows: list[tuple[str, str, float, str]]) -> str:
    counts = {k: sum(r[1] == k for r in rows) for k in ("right", "wrong", "refused", "crash")}
    lines = ["| kernel | result | first call (s) | detail |", "|---|---|---|---|"]
    lines += [f"| {n} | {k} | {s:.2f} | {d.replace('|', '/')} |" for n, k, s, d in rows]
    lines.append("")
    lines.append(" ".join(f"{k}: {v}" for k, v in counts.items()) + f" (of {len(rows)})")
    return "\n".join(lines)


def geomean(values: list[float]) -> float:
    """The geometric mean: the figure for ratios, where 2x faster and 2x slower cancel."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _ms(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def _peer_cell(row: SpeedRow, peer: str) -> str:
    best = row.best(peer)
    return "–" if best is None else f"{_ms(best[1])} ({best[0]})" if best[0] != peer else _ms(best[1])


def speed_table(rows: list[SpeedRow]) -> str:
    """The timed kernels as a markdown table, then the summary: geometric-mean speedups over each peer (over
    the kernels it ran right), the kernels slower than NumPy, and why the others were not timed."""
    lines = ["| kernel | kiln ms | numpy ms | numba ms (variant) | jax ms (variant) | kiln vs numpy | kiln vs numba "
             "| kiln vs jax | kiln first call s | rounds |", "|---|" + "---:|" * 9]
    timed = [r for r in rows if not r.reason]
    for r in timed:
        lines.append(f"| {r.kernel} | {_ms(r.ms['kiln'])} | {_ms(r.ms['numpy'])} | {_peer_cell(r, 'numba')} "
                     f"| {_peer_cell(r, 'jax')} | {_ratio(r.speedup('numpy'))} | {_ratio(r.speedup('numba'))} "
                     f"| {_ratio(r.speedup('jax'))} | {r.first_s:.2f} | {r.rounds} |")
    lines.append("")
    lines.append("- kiln vs a peer: the peer's milliseconds over kiln's (>1: kiln is faster)")
    for peer, label in (("numpy", "NumPy"), ("numba", "Numba"), ("jax", "JAX")):
        ups = [s for r in timed if (s := r.speedup(peer)) is not None]
        lines.append(f"- kiln over {label}: geometric mean {geomean(ups):.2f}x over {len(ups)} kernels "
                     f"(from {min(ups):.2f}x to {max(ups):.2f}x)" if ups else f"- kiln over {label}: no kernel")
    slower = [r.kernel for r in timed if (r.speedup("numpy") or 0) < 1]
    lines.append(f"- slower than NumPy: {', '.join(slower) or 'none'}")
    lines.append(f"- timed {len(timed)} of {len(rows)} kernels")
    lines += [f"- not timed: {r.kernel}: {r.reason.splitlines()[0].replace('|', '/')}" for r in rows if r.reason]
    lines += [f"- left out of {r.kernel}: " + "; ".join(f"{v} ({why})" for v, why in r.left_out.items())
              for r in rows if r.left_out]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--npbench", required=True, type=pathlib.Path, help="a local checkout of spcl/npbench")
    parser.add_argument("--speed", action="store_true",
                        help="time the kernels kiln runs right against NumPy, Numba and JAX (see below)")
    parser.add_argument("--preset", help="NPBench's preset (S, M, L, paper; default S, M with --speed)")
    parser.add_argument("--timeout", type=float, help="seconds per kernel before its child is killed "
                                                      "(default 120, 300 with --speed)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="--speed: seconds per kernel, checks included, after which no timing round starts")
    parser.add_argument("--rounds", type=int, default=20, help="--speed: at most this many timing rounds")
    parser.add_argument("--threads", type=int, help="hold kiln, OpenMP, OpenBLAS, Numba and XLA to N threads")
    parser.add_argument("--only", nargs="*", help="kernel names (bench_info stems)")
    parser.add_argument("--out", type=pathlib.Path, help="append the table to this markdown file")
    args = parser.parse_args(argv)
    if args.threads:
        os.environ.pop("KILN_NUM_THREADS", None)  # a forced count from the shell would outlive a run past one thread
        os.environ.update(thread_env(args.threads))  # the spawned children inherit it before importing
        cores = thread_cores(args.threads)
        if cores:
            os.sched_setaffinity(0, cores)  # ... and the cores they may run on
    preset = args.preset or ("M" if args.speed else "S")
    load = os.getloadavg()[0]  # a busy machine slows everyone, unevenly: said beside the figures
    if args.speed:
        rows = run_speed(args.npbench, preset, args.timeout or 300.0, args.budget, args.rounds, args.only)
        text = speed_table(rows)
    else:
        text = table(run(args.npbench, preset, args.timeout or 120.0, args.only))
    command = "python -m kiln.bench.npbench " + " ".join(argv if argv is not None else sys.argv[1:])
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = (f"## NPBench {'speed' if args.speed else 'check'}, preset {preset}, "
            f"{args.threads or 'default'} thread(s), {when}\n\n`{command}`  \n{os.cpu_count()} cores; load "
            f"average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end\n\n{text}\n")
    print()
    print(text)
    if args.out:
        with args.out.open("a") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
