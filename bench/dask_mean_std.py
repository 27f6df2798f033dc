"""``python -m kiln.bench.dask_mean_std [ROWS] [COLS] [CHUNK_ROWS]``: column mean and standard
deviation of a ROWS x COLS float64 array (10^6 x 1000: 10^9 elements, 8 GB) in blocks of
CHUNK_ROWS rows, on a LocalCluster of 2 worker processes (issue 42): a kiln.function called with
the Dask array against the same NumPy code on plain ``dask.array``.

The array is generated and persisted on the workers first (so it must fit in their memory: pass
fewer rows on a small machine), and both results are computed together and sent to the client
(2 x COLS numbers), so the figures are the reductions, not the data's generation.
"""

from __future__ import annotations

import sys
from typing import Any

import dask
import dask.array as da
import numpy as np

import kiln
from kiln.bench.dask_timing import local_client, median_s, persist


def column_stats(a: Any) -> tuple[Any, Any]:
    """Each column's mean and standard deviation (NumPy code)."""
    return a.mean(axis=0), a.std(axis=0)


column_stats_kiln = kiln.function(column_stats)


def main(rows: int = 1_000_000, cols: int = 1000, chunk_rows: int = 31_250, repeat: int = 3) -> None:
    ways = {"dask.array": column_stats, "kiln": column_stats_kiln}
    with local_client() as client:
        (a,) = persist(client, [da.random.default_rng(0).random((rows, cols), chunks=(chunk_rows, cols))])
        timed = {name: median_s(lambda: dask.compute(*way(a)), repeat) for name, way in ways.items()}
    for got, want in zip(timed["kiln"][1], timed["dask.array"][1]):
        np.testing.assert_allclose(got, want, rtol=1e-9)
    times = {name: t for name, (t, _) in timed.items()}
    print(f"column mean and std of {rows}x{cols} float64 in blocks of {chunk_rows} rows, 2 worker processes, "
          f"median of {repeat}: " + ", ".join(f"{name} {t * 1e3:.0f} ms" for name, t in times.items())
          + f"; kiln {times['dask.array'] / times['kiln']:.2f}x dask.array")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
