"""``python -m kiln.bench.call_cost``: what one call of a compiled function costs, by argument form.

Plain arrays take the native entry directly; keywords, flat lists or tuples of arrays and Python
constants take the native entry of their call form (kiln.frontend.call_forms); nesting and dicts
take the structured cache (frontend/function.py ``_structured_key``); a NumPy scalar whose result's
kind depends on the path taken (examples/square_if_positive.py: a NumPy scalar or the Python float
0.0) takes the native entry, which makes that kind. Tiny arrays, so the figure is
the call path, not the kernel; NumPy's own add on the same arrays in the same run for scale.
Each row is timed in rounds of 20,000 calls, the rows interleaved round by round (the machine's
speed drifts), in CPU time of this process (a shared machine's other work does not count); the
median round is printed.
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit
from collections.abc import Callable

import numpy as np

import kiln
from kiln.examples.square_if_positive import square_if_positive


@kiln.function
def _add(x, y):
    return x + y


@kiln.function
def _add_list(xs):
    return xs[0] + xs[1]


@kiln.function
def _scaled(x, scale=1.0):
    return x * scale


@kiln.function
def _add_dict(d):
    return d["x"] + d["y"]


def _rows() -> dict[str, Callable[[], object]]:
    a, b = np.ones(4), np.ones(4)
    one, other = np.ones(1), np.ones(1)
    positive, negative = np.float32(3.0), np.float32(-3.0)
    return {
        "two arrays": lambda: _add(a, b),
        "a list of two arrays": lambda: _add_list([a, b]),
        "a tuple of two arrays": lambda: _add_list((a, b)),
        "an array and a keyword": lambda: _scaled(a, scale=2.0),
        "an array and a Python number": lambda: _scaled(a, 2.0),
        "an array, default keyword": lambda: _scaled(a),
        "a dict of two arrays": lambda: _add_dict({"x": a, "y": b}),
        "1-element add": lambda: _add(one, other),
        "a NumPy scalar, kind per path (> 0)": lambda: square_if_positive(positive),
        "a NumPy scalar, kind per path (<= 0)": lambda: square_if_positive(negative),
        "NumPy: 1-element a + b": lambda: one + other,
        "NumPy: 1-element np.add": lambda: np.add(one, other),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="rounds per row (default 21)")
    parser.add_argument("--number", type=int, default=20000, help="calls per round (default 20,000)")
    opts = parser.parse_args(argv)
    calls = _rows()
    for _ in range(3):  # traced and compiled before timing (a first call may run an interim entry)
        for call in calls.values():
            call()
    timers = {name: timeit.Timer(call, timer=time.process_time) for name, call in calls.items()}
    rounds: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(opts.rounds):
        for name, timer in timers.items():
            rounds[name].append(timer.timeit(opts.number) / opts.number)
    for name, times in rounds.items():
        print(f"{name:36s} {statistics.median(times) * 1e6:6.3f} us  (min {min(times) * 1e6:.3f})")


if __name__ == "__main__":
    main()
