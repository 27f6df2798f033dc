"""``python -m kiln.bench.dynamic_results``: returning an array whose length the data decides.

``return a[a > t]`` is returned in a buffer of its bound (``a.size``) with the length beside it
(graph-bound-results, docs/abi.md); the entry keeps the first ``n`` elements, copied when they
are at most half of the buffer. Prints microseconds per call (best of 5 rounds) of the compiled
function and of NumPy for a million float64s at several fractions kept, and for 16 elements
(the call's own cost), with the compiled function's share of NumPy's time.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

import numpy as np

import kiln


def select(a: np.ndarray, t: float) -> np.ndarray:
    return a[a > t]


def positions(a: np.ndarray, t: float) -> np.ndarray:
    return np.nonzero(a > t)[0]


def _best(call: Callable[[], object], number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number


def main() -> None:
    rng = np.random.default_rng(0)
    for fn in (select, positions):
        compiled = kiln.function(fn)
        for size, number in ((1_000_000, 20), (16, 20_000)):
            a = rng.random(size)
            for kept in (0.01, 0.5, 0.99):
                t = np.float64(1 - kept)
                np.testing.assert_array_equal(compiled(a, t), fn(a, t))
                ours, numpy = _best(lambda: compiled(a, t), number), _best(lambda: fn(a, t), number)
                print(f"{fn.__name__:9s} n={size:<9d} kept {kept:4.0%}: kiln {ours * 1e6:9.1f} us, "
                      f"NumPy {numpy * 1e6:9.1f} us ({ours / numpy:4.2f}x NumPy's time)")


if __name__ == "__main__":
    main()
