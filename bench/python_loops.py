"""First calls of loops on Python numbers (issue 39): ``while i < n`` on a Python counter, forward and
under ``kiln.grad``, at several trip counts; each checked against NumPy and central differences.

    python -m kiln.bench.python_loops [--trips 1000 100000]

Run with an empty ``KILN_CACHE_DIR`` for first calls; one warm-up function builds what kiln builds
once per machine (the native entry) before anything is timed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import kiln


def counter_loop(n: int) -> Callable[[np.ndarray], np.ndarray]:
    """``x = x * 0.99999 + 1e-6`` ``n`` times under a Python counter, summed."""

    def f(x: np.ndarray) -> np.ndarray:
        i = 0
        while i < n:
            x = x * 0.99999 + 1e-6
            i += 1
        return np.sum(x)

    return f


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trips", type=int, nargs="*", default=[1000, 100_000])
    args = parser.parse_args(argv)
    kiln.function(lambda x: x + 1)(np.ones(2))  # the once-per-machine entry build, not timed
    x = np.linspace(0.5, 1.5, 4)
    print("| trips | forward first call (s) | kiln.grad first call (s) | forward rel. error | grad rel. error |")
    print("|---|---|---|---|---|")
    for n in args.trips:
        f = counter_loop(n)
        start = time.perf_counter()
        value = kiln.function(f)(x)
        forward = time.perf_counter() - start
        start = time.perf_counter()
        grad = kiln.grad(f)(x)
        backward = time.perf_counter() - start
        eps = 1e-6
        numeric = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])
        value_error = abs(value - f(x)) / abs(f(x))
        grad_error = np.max(np.abs(grad - numeric) / np.abs(numeric))
        print(f"| {n} | {forward:.2f} | {backward:.2f} | {value_error:.1e} | {grad_error:.1e} |")


if __name__ == "__main__":
    main()
