"""``python -m kiln.bench.compile_time``: first-call compile time of generated programs, per thousand ops.

Issue 39 asks that compile time grow linearly with the program: this builds programs of about
``--ops`` graph ops (an elementwise chain, many reductions of one array, staged ``if``s, staged
loops, all four in turn, staged ifs that rebind the array on one path only, ``guards``, issue
40's comprehension of row sums, and kiln.fuzz 20300-8131's unrolled loop through an array
rebound on some paths, ``aliases``), compiles each on its first
call with an empty ``KILN_CACHE_DIR`` and prints seconds per thousand graph ops.
``--time-passes`` adds the CPU seconds of the slowest passes of ``graph-to-c``, ``--stages`` those
of each stage of the first call (tracing, each lowering stage, emitting C, compiling C).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable

import numpy as np

#: kind -> (source of one step, graph ops per step); ``x`` is the running array, ``i`` the step
_STEPS: dict[str, tuple[str, int]] = {
    "chain": ("    x = np.tanh(x * 1.0001 + 0.5) - x * 0.25 + 0.125\n", 14),
    "reductions": ("    s = s + np.sum(x[{i} % n])\n", 4),
    "ifs": ("    if np.sum(x) > {i}:\n        x = x * 0.999\n    else:\n        x = x + 0.001\n", 12),
    "loops": ("    for _ in range(3):\n        x = x * 0.999 + 0.001\n", 18),
    # staged ifs rebinding x on one path only: x may be the argument itself, so each if merges it
    # with the one before (a chain as long as the program) and and-s a path flag for the result
    "guards": ("    if np.sum(x) > {i}:\n        x = x * 0.999 + 0.001\n", 14),
    "rowsums": ("", 4),
}
_STEPS["mixed"] = (_STEPS["chain"][0] + "    s = s + np.max(x)\n" + _STEPS["ifs"][0] + _STEPS["loops"][0], 46)
#: kiln.fuzz 20300-8131's shape: a loop on a Python float (not staged: the array ``buf`` is
#: rebound on some paths of its body), unrolled a step per iteration, each with a staged ``while``
#: with a ``break`` and a staged ``if``; ``buf`` is on some paths each array an earlier iteration
#: made, so a write through it is made on each where a flag says (kiln.frontend.mutation)
_STEPS["aliases"] = ("", 150)
_ALIASES = """    x = x.copy()
    buf = np.zeros(x.shape[0])
    t = {steps}.0
    while t > 0.0:
        t -= 1.0
        k = -3
        while k < 22:
            k += 1
            if np.sum(x) < -1000.0:
                break
            buf[:] = x + -5 > np.flip(x, 0)
        if np.min(x) > -1.0:
            w = x.reshape(-1)
            w -= 0.25
            j = -0.75
            while True:
                j += 1.5
                if j > 9:
                    break
                buf = np.full(x.shape[0], np.mean(x))
                w = buf * 2.0
"""


def program(kind: str, ops: int) -> tuple[Callable[..., object], int]:
    """A function of ``x`` with about ``ops`` graph ops of ``kind``, and its number of steps."""
    step, per = _STEPS[kind]
    steps = max(1, ops // per)
    body = {"reductions": "    n = x.shape[0]\n    s = np.sum(x[0])\n", "mixed": "    s = x[0] * 0.0\n"}.get(kind, "")
    body += _ALIASES.format(steps=steps) if kind == "aliases" else "".join(step.format(i=i) for i in range(steps))
    ret = {"reductions": "s", "mixed": "x + s", "aliases": "x + buf", "rowsums": "np.array([np.sum(x[i]) for i in range(x.shape[0])])"}.get(kind, "x")
    source = f"def generated(x):\n{body}    return {ret}\n"
    # in a file, so that AutoGraph (which reads a function's source) converts the staged ifs and loops
    path = os.path.join(tempfile.mkdtemp(prefix="kiln-compile-time-src-"), f"{kind}_{ops}.py")
    with open(path, "w") as f:
        f.write(source)
    scope: dict[str, object] = {"np": np}
    exec(compile(source, path, "exec"), scope)  # noqa: S102 (our own source)
    return scope["generated"], steps  # type: ignore[return-value]


def argument(kind: str, ops: int) -> np.ndarray:
    """The argument the generated programs take: a matrix for reductions (one row each) and row
    sums (issue 40's 200 columns, a row per four graph ops), else a vector."""
    if kind == "rowsums":
        return np.linspace(0.0, 1.0, max(1, ops // 4) * 200).reshape(-1, 200)
    return np.linspace(0.0, 1.0, 64 * 8).reshape(64, 8) if kind == "reductions" else np.linspace(0.0, 1.0, 64)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the C compiler): on a shared machine
    the wall clock also counts other users' work."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def first_call(kind: str, ops: int) -> tuple[float, float, int, object, object]:
    """Wall and CPU seconds of the first call (empty cache), graph ops traced, kiln's result and NumPy's."""
    import kiln

    func, _ = program(kind, ops)
    x = argument(kind, ops)
    compiled = kiln.function(func, autograph=kind in ("ifs", "guards", "loops", "mixed", "rowsums", "aliases"))
    start, cpu = time.perf_counter(), _cpu()
    got = compiled(x)
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    graph_ops = sum(1 for _ in compiled.get_concrete_function(x)._traced.module.walk()) - 1  # noqa: SLF001
    return seconds, cpu, graph_ops, got, func(x.copy())


class PassTimes:
    """CPU seconds per pass name, summed over the pipelines a compile runs (``--time-passes``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._since = 0.0

    def __call__(self, previous: object, module: object, following: object) -> None:
        now = time.process_time()
        if previous is not None:
            name = previous.name  # type: ignore[attr-defined]
            self.seconds[name] = self.seconds.get(name, 0.0) + now - self._since
        self._since = now

    def install(self) -> None:
        """Time every pipeline kiln builds from now on (before the callback kiln passes, which
        reports progress and verifies)."""
        from kiln import universe

        build = universe.build_pipeline

        def timed(spec: str, callback: Callable[..., None] | None = None, **options: bool) -> object:
            def both(previous: object, module: object, following: object) -> None:
                self(previous, module, following)
                if callback is not None:
                    callback(previous, module, following)

            return build(spec, both, **options)

        universe.build_pipeline = timed

    def report(self, top: int = 8) -> str:
        slowest = sorted(self.seconds.items(), key=lambda item: -item[1])[:top]
        return "    passes: " + ", ".join(f"{name} {s:.2f}" for name, s in slowest)


class StageTimes:
    """CPU seconds (the C compiler's included) of each stage of a first call (``--stages``), from
    the stages it reports for its progress line."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._current: tuple[str, float] | None = None

    def enter(self, name: str | None) -> None:
        now = _cpu()
        if self._current is not None:
            stage, since = self._current
            self.seconds[stage] = self.seconds.get(stage, 0.0) + now - since
        self._current = (name, now) if name is not None else None

    def install(self) -> None:
        """Record every stage a compile reports from now on."""
        from kiln.frontend import progress

        report = progress.stage

        def recorded(name: str) -> None:
            self.enter(name)
            report(name)

        progress.stage = recorded

    def report(self) -> str:
        return "    stages: " + ", ".join(f"{name} {s:.2f}" for name, s in self.seconds.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--kind", choices=sorted(_STEPS), nargs="+", default=sorted(_STEPS))
    parser.add_argument("--time-passes", action="store_true", help="print the slowest passes of each compile")
    parser.add_argument("--stages", action="store_true", help="print the CPU seconds of each stage of each compile")
    args = parser.parse_args()
    # one fresh cache for the run; a first compile builds the once-per-machine entry extension
    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-compile-time-")
    first_call("chain", 6)
    times, stages = PassTimes(), StageTimes()
    if args.time_passes:
        times.install()
    if args.stages:
        stages.install()
    for kind in args.kind:
        for ops in args.ops:
            times.seconds.clear()
            stages.seconds.clear()
            seconds, cpu, graph_ops, got, want = first_call(kind, ops)
            stages.enter(None)
            ok = np.allclose(got, want, rtol=1e-9, atol=1e-12)
            print(f"{kind:10s} {graph_ops:7d} ops {seconds:8.2f} s {seconds / graph_ops * 1000:7.3f} s/kop"
                  f" (CPU {cpu:7.2f} s {cpu / graph_ops * 1000:7.3f} s/kop)"
                  f"  {'matches NumPy' if ok else 'DIFFERS FROM NUMPY'}", flush=True)
            if args.time_passes:
                print(times.report(), flush=True)
            if args.stages:
                print(stages.report(), flush=True)


if __name__ == "__main__":
    main()
