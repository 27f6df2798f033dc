"""``python -m kiln.bench.dask_optimize``: kiln.dask.optimize against Dask's own optimization on a
plain dask.array elementwise expression (issue 42), on a LocalCluster of 2 worker processes.

The input (float64, N elements in chunks of N / 8) is persisted on the workers first, so the
figures are the expression and its sum, not the data's generation. Each way runs once untimed
(kiln's first run compiles its kernel on each worker), then the median of 5 timed runs is shown.
"""

from __future__ import annotations

import sys

import dask
import dask.array as da
import distributed
import numpy as np

import kiln
from kiln.bench.dask_timing import local_client, median_s


def expression(a: da.Array) -> da.Array:
    """Elementwise NumPy on a Dask array, as users write it (Dask fuses it into one layer)."""
    return (np.exp(-a) * np.sin(a * 2.5 + 1.0) - a**2 / (np.abs(a) + 1.0) + np.sqrt(a)).sum()


def main(n: int = 40_000_000) -> None:
    with local_client() as client:
        a = client.persist(da.random.default_rng(0).random(n, chunks=n // 8))
        distributed.wait(a)
        t_dask, v_dask = median_s(lambda: float(expression(a).compute()), repeat=5)
        with dask.config.set(array_optimize=kiln.dask.optimize):
            t_kiln, v_kiln = median_s(lambda: float(expression(a).compute()), repeat=5)
    print(f"{n} float64 in 8 chunks, 2 worker processes: dask {t_dask * 1e3:.0f} ms, "
          f"kiln.dask.optimize {t_kiln * 1e3:.0f} ms, {t_dask / t_kiln:.2f}x; "
          f"relative difference of the sums {abs(v_kiln - v_dask) / abs(v_dask):.1e}")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
