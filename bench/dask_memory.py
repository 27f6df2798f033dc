"""``python -m kiln.bench.dask_memory [GIB] [CHUNK]``: the mean of GIB GiB of float64 random
numbers (96: four times a 24 GiB machine), generated chunk by chunk inside a kiln.function, on a
LocalCluster of 2 worker processes (issue 42's memory criterion); each worker process's peak
resident memory is printed (the criterion: below 2 GiB).

The function's argument is the numbers' indices (``da.arange``, CHUNK of them per block; Dask
makes each block where it is used) and the function turns each index into a number by
SplitMix64 (the mixing of kiln.random) and takes the mean: one kernel per block, whose partial
sum is all that leaves the worker. The mean of N uniform numbers is 1/2 within a few times
sqrt(1 / (12 N)), which is checked.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

import dask.array as da
import numpy as np

import kiln
from kiln.bench.dask_timing import local_client, worker_peaks

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def noise_mean(index: Any) -> Any:
    """The mean of the uniform numbers in [0, 1) that SplitMix64 gives ``index`` (uint64)."""
    z = index * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return ((z >> np.uint64(11)).astype(np.float64) * 2.0**-53).mean()


noise_mean_kiln = kiln.function(noise_mean)


def main(gib: float = 96, chunk: int = 1 << 24) -> None:
    n = int(gib * 2**30) // 8
    with local_client() as client:
        lazy = noise_mean_kiln(da.arange(n, chunks=chunk, dtype=np.uint64))
        start = time.perf_counter()
        mean = float(lazy.compute())
        seconds = time.perf_counter() - start
        peaks = worker_peaks(client)
    assert abs(mean - 0.5) < 6 * math.sqrt(1 / (12 * n)), mean
    print(f"mean of {n} float64 ({gib} GiB) generated in a kiln.function, blocks of {chunk} ({chunk * 8 >> 20} MiB), "
          f"2 worker processes: {seconds:.1f} s, mean {mean:.7f}; peak memory per worker "
          + ", ".join(f"{p / 2**30:.2f} GiB" for p in peaks.values()))


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 96, *map(int, sys.argv[2:]))
