"""``python -m kiln.bench.stream_stores [--rounds 5] [--cpu] [--n N]``: elementwise loops over N (10^7) float32
compiled with and without ``kiln-stream-stores``, timed in turn with ``np.copyto`` in one process
(issue 43: the chain at copy speed).

GB/s count 8 bytes per element (one read, one write), as ``python -m kiln.bench`` does; each
figure is the median of its rounds, each round the median of 11 calls. ``--cpu`` times the
process's CPU seconds instead of wall seconds: on the shared 2-core VM, another process holding
the core for a while inflates wall time, not CPU time. Run it pinned with one thread
(``KILN_NUM_THREADS=1 taskset -c 0``) to compare one core's loops, unpinned for the default.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import kiln
from kiln import pipelines
from kiln.bench.pass_ab import _without
from kiln.bench.workloads import chain


def affine(x: Any) -> Any:
    """Memory-bound: two flops per 8 bytes moved."""
    return x * 2.0 + 1.0


def _build(fn: Callable[[Any], Any], x: np.ndarray, streaming: bool) -> Callable[[], Any]:
    saved = pipelines.STAGES["loops"]
    if not streaming:
        pipelines.STAGES["loops"] = _without("loops", ["kiln-stream-stores"])
    try:
        f = kiln.function(fn)
        np.testing.assert_allclose(f(x), fn(x), rtol=1e-5, atol=1e-6)  # compiled here, under this pipeline
    finally:
        pipelines.STAGES["loops"] = saved
    return lambda: f(x)


def _median_call(call: Callable[[], Any], clock: Callable[[], float], calls: int = 11) -> float:
    times = []
    for _ in range(calls):
        start = clock()
        call()
        times.append(clock() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="time CPU seconds of the process, not wall seconds")
    parser.add_argument("--n", type=int, default=10**7, help="float32 elements (the chain row's 10^7: 40 MB)")
    args = parser.parse_args(argv)
    n = args.n
    clock = time.process_time if args.cpu else time.perf_counter
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    dst = np.empty_like(x)
    calls = {f"{name}, {'streaming' if s else 'normal stores'}": _build(fn, x, s)
             for name, fn in (("relu(2x+1)*sigmoid(x)-x/3", chain), ("x*2+1", affine)) for s in (False, True)}
    times: dict[str, list[float]] = {k: [] for k in calls}
    copies: list[float] = []
    for _ in range(args.rounds):
        for name, call in calls.items():
            times[name].append(_median_call(call, clock))
            copies.append(_median_call(lambda: np.copyto(dst, x), clock))
    copy = statistics.median(copies)
    print(f"np.copyto: {8 * n / copy / 1e9:.1f} GB/s ({'CPU' if args.cpu else 'wall'} time, {len(copies)} medians)")
    for name, ts in times.items():
        t = statistics.median(ts)
        print(f"{name}: {8 * n / t / 1e9:.1f} GB/s, {copy / t:.0%} of copy")


if __name__ == "__main__":
    main()
