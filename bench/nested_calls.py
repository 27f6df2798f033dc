"""``python -m kiln.bench.nested_calls``: first call of a function that calls a 200-op callee 20 times (issue 39).

The callee is a chain of about 200 graph ops; the caller applies it 20 times. Timed twice, each
with an empty ``KILN_CACHE_DIR``: the callee a plain Python function (traced into each call: what
a kiln.function callee was before calls were shared), and the callee a ``kiln.function`` (traced
once, called with ``func.call``, kept a function by ``graph-inline-calls`` and emitted once).
Prints wall and CPU seconds of the first call and of its trace alone, the graph ops traced, and
whether the result matches NumPy.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from collections.abc import Callable

import numpy as np

import kiln
from kiln.frontend.retracing import KilnRetracingWarning

#: steps of the callee's chain: 14 graph ops each (constants and broadcasts included)
_STEPS = 14


def chain(x: np.ndarray) -> np.ndarray:
    """About 200 graph ops of elementwise arithmetic."""
    for _ in range(_STEPS):  # a Python loop: unrolled (autograph=False)
        x = np.tanh(x * 1.0001 + 0.5) - x * 0.25 + 0.125
    return x


def caller(callee: Callable[[np.ndarray], np.ndarray], calls: int) -> Callable[[np.ndarray], np.ndarray]:
    def repeated(x: np.ndarray) -> np.ndarray:
        for _ in range(calls):
            x = callee(x)
        return x

    return repeated


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the C compiler)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def first_call(shared: bool, calls: int) -> tuple[float, float, float, float, bool, int]:
    """Wall and CPU seconds of the first call, of the trace alone, whether it matches NumPy, and
    the graph ops of the traced module."""
    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-bench-calls-")
    callee = kiln.function(chain, autograph=False) if shared else chain
    x = np.linspace(0.0, 1.0, 256)
    start, cpu = time.perf_counter(), _cpu()
    concrete = kiln.function(caller(callee, calls), autograph=False).get_concrete_function(x)
    trace_wall, trace_cpu = time.perf_counter() - start, _cpu() - cpu
    f = kiln.function(caller(callee, calls), autograph=False)
    start, cpu = time.perf_counter(), _cpu()
    got = f(x)
    wall, cpu = time.perf_counter() - start, _cpu() - cpu
    ops = sum(1 for _ in concrete._traced.module.walk()) - 1  # noqa: SLF001
    return wall, cpu, trace_wall, trace_cpu, bool(np.allclose(got, caller(chain, calls)(x), rtol=1e-12)), ops


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the fastest is printed")
    args = parser.parse_args(argv)
    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-bench-calls-")
    warnings.simplefilter("ignore", KilnRetracingWarning)  # (each run wraps its functions anew, on purpose)
    kiln.function(lambda x: x + 1)(np.ones(2))  # the once-per-machine entry build, not timed
    print(f"| callee ({args.calls} calls) | graph ops traced | first call wall (s) | first call CPU (s) "
          "| trace wall (s) | trace CPU (s) | matches NumPy |")
    print("|---|---|---|---|---|---|---|")
    for shared, label in ((False, "plain Python function (traced into each call)"),
                          (True, "kiln.function (traced once, shared)")):
        runs = [first_call(shared, args.calls) for _ in range(args.repeat)]
        wall, cpu, trace_wall, trace_cpu, ok, ops = min(runs, key=lambda r: r[1])
        print(f"| {label} | {ops} | {wall:.2f} | {cpu:.2f} | {trace_wall:.2f} | {trace_cpu:.2f} | {ok} |", flush=True)


if __name__ == "__main__":
    main()
