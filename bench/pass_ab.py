"""``python -m kiln.bench.pass_ab --npbench DIR KERNEL --without PASS...``: one NPBench kernel
compiled by kiln with its pipeline and without the named passes, and NPBench's JAX version of it,
timed in turn in one process.

On a shared machine whose load moves by tens of percent between runs, a pass's effect measured
in two runs is mostly the load's; timed in turn, round by round, the three share it. The kernel is
the harness's (``kiln.bench.npbench``: its preset's inputs, fresh copies per call, copied outside
the timed region); the build without the passes is compiled from the same trace with
``pipelines.STAGES`` edited for its compile only. Run it pinned, with one thread each, as the
harness's ``--threads 1`` does (``taskset -c 0``, ``KILN_NUM_THREADS=1``, ``XLA_FLAGS``), and with
``KILN_TIERING=0`` so that both builds are the optimized ones from their first call. kiln's
answer is the harness's to check (``kiln.bench.npbench``); the JAX variant is checked here.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import time
from typing import Any

import kiln
from kiln import pipelines
from kiln.bench import npbench


def _without(stage: str, passes: list[str]) -> str:
    """The stage's pass list less ``passes`` (each must be in it)."""
    names = pipelines.STAGES[stage].split(",")
    missing = [p for p in passes if p not in names]
    if missing:
        raise SystemExit(f"not in stage {stage}: {', '.join(missing)}")
    return ",".join(n for n in names if n not in passes)


def _timed(impl: npbench._Impl, args: dict[str, Any], names: list[str]) -> float:
    fresh = impl.copy(args)
    start = time.perf_counter()
    impl.call(*(fresh[n] for n in names))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--npbench", required=True, type=pathlib.Path)
    parser.add_argument("kernel", help="a bench_info stem (covariance, lenet, ...)")
    parser.add_argument("--without", nargs="+", required=True, help="passes of the tensor stage to leave out")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--preset", default="M")
    ns = parser.parse_args()
    info = ns.npbench / "bench_info" / f"{ns.kernel}.json"
    bench, folder, func, args = npbench._kernel(str(ns.npbench), str(info), ns.preset)
    names = bench["input_args"]
    expected = npbench._answer(func(*(npbench._copy(args)[n] for n in names)), args, bench.get("output_args", []))
    impls = {"kiln": npbench._Impl(kiln.function(func), npbench._copy)}
    _timed(impls["kiln"], args, names)  # compiled at its first call, with the pipeline as it is
    kept = pipelines.STAGES["tensor"]
    pipelines.STAGES["tensor"] = _without("tensor", ns.without)
    try:
        impls["kiln without"] = npbench._Impl(kiln.function(lambda *a: func(*a)), npbench._copy)
        _timed(impls["kiln without"], args, names)
    finally:
        pipelines.STAGES["tensor"] = kept
    for variant in npbench.variants(folder, bench["module_name"]):
        if npbench.family(variant) == "jax" and "jax" not in impls:
            impl, why = npbench._peer(folder, bench, variant, args, expected)
            if impl is None:
                raise SystemExit(f"{variant}: {why}")
            impls["jax"] = impl
    times: dict[str, list[float]] = {name: [] for name in impls}
    for _ in range(ns.rounds):
        for name, impl in impls.items():
            times[name].append(_timed(impl, args, names))
    ms = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    print(f"{ns.kernel}: kiln {ms['kiln']:.3g} ms, without {' '.join(ns.without)} {ms['kiln without']:.3g} ms, "
          f"jax {ms['jax']:.3g} ms; kiln vs jax {ms['jax'] / ms['kiln']:.2f}x, without them "
          f"{ms['jax'] / ms['kiln without']:.2f}x (medians of {ns.rounds} rounds)")


if __name__ == "__main__":
    main()
