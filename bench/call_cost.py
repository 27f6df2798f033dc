"""``python -m kiln.bench.call_cost``: what one call of a compiled function costs, by argument form.

Plain arrays take the native entry directly; lists, tuples, dicts, keywords and Python constants take
the structured cache (frontend/function.py ``_structured_key``). Prints microseconds per call (the
best of 3 rounds of 20,000 calls) for tiny arrays, so the figure is the call path, not the kernel.
"""

from __future__ import annotations

import timeit

import numpy as np

import kiln


@kiln.function
def _add(x, y):
    return x + y


@kiln.function
def _add_list(xs):
    return xs[0] + xs[1]


@kiln.function
def _scaled(x, scale=1.0):
    return x * scale


def main() -> None:
    a, b = np.ones(4), np.ones(4)
    calls = {
        "two arrays": lambda: _add(a, b),
        "a list of two arrays": lambda: _add_list([a, b]),
        "a tuple of two arrays": lambda: _add_list((a, b)),
        "an array and a keyword": lambda: _scaled(a, scale=2.0),
        "an array, default keyword": lambda: _scaled(a),
    }
    for call in calls.values():
        call()
    for name, call in calls.items():
        n = 20000
        best = min(timeit.repeat(call, number=n, repeat=3)) / n
        print(f"{name:28s} {best * 1e6:6.2f} us")


if __name__ == "__main__":
    main()
