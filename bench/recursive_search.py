"""First calls of a recursive search (issue 40: "a recursive pure-Python search is traced again
at every level"): a decorated function that, at each level, calls itself twice on a list of
Python floats and keeps the better of the two, a staged ``if`` on the traced sums; checked
against Python.

    python -m kiln.bench.recursive_search [--depth 2 3 4 5 6]

Each call of a kiln.function while another is traced is traced into its caller (calls are not
yet shared through ``func.call``), so a search of depth d traces 2^(d+1) - 1 calls, as Python
runs them. Run with an empty ``KILN_CACHE_DIR`` for first calls.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import kiln


@kiln.function
def best(values: list[float], i: int, total: float) -> float:
    """The largest sum of a subset of ``values[i:]``, plus ``total``."""
    if i == len(values):
        return total
    taken = best(values, i + 1, total + values[i])
    left = best(values, i + 1, total)
    if taken > left:
        return taken
    return left


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, nargs="*", default=[2, 3, 4, 5, 6])
    args = parser.parse_args(argv)
    kiln.function(lambda x: x + 1)(np.ones(2))  # the once-per-machine entry build, not timed
    print("| depth | calls traced | first call (s) | CPU (s) | matches Python |")
    print("|---|---|---|---|---|")
    for depth in args.depth:
        values = [float(v) for v in np.sin(np.arange(1, depth + 1))]
        start, cpu = time.perf_counter(), os.times()
        got = best(values, 0, 0.0)
        seconds, used = time.perf_counter() - start, os.times()
        cpu_s = used.user + used.system + used.children_user + used.children_system - sum(cpu[:4])
        want = best.python_function(values, 0, 0.0)
        print(f"| {depth} | {2 ** (depth + 1) - 1} | {seconds:.2f} | {cpu_s:.2f} | {got == want} |", flush=True)


if __name__ == "__main__":
    main()
