"""``python -m kiln.bench.dask_stencil [N] [CHUNK] [STEPS]``: a 5-point Jacobi stencil over an
N x N float32 array (16384) for STEPS steps (10), in CHUNK x CHUNK blocks, on a LocalCluster of
2 worker processes (issue 42): kiln.functions called with the Dask array against
``dask.array.map_overlap`` over the same NumPy step.

Four ways, each with the array's edge held fixed: Dask's ``map_overlap`` of depth 1 once per step
(how the NumPy step is mapped over blocks today), ``map_overlap`` of depth STEPS once with the
steps run in each block, a kiln.function of one step called once per step (``graph-partition``
reads its halo of 1 from the IR), and a kiln.function holding the steps' Python loop (traced with
``autograph=False``, so the loop unrolls and the partition reads a halo of STEPS: one exchange,
one kernel per block). The input is generated and persisted on the workers first; each result is
persisted, not sent to the client.
"""

from __future__ import annotations

import sys
from typing import Any

import dask.array as da
import numpy as np

import kiln
from kiln.bench.dask_timing import local_client, persist, seconds_on_workers


def jacobi_step(u: Any) -> Any:
    """One step: each interior point the mean of its four neighbours (NumPy code)."""
    v = u.copy()
    v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return v


def jacobi(u: Any, steps: int) -> Any:
    """``steps`` steps (a Python int: the loop unrolls where it is traced)."""
    for _ in range(steps):
        u = jacobi_step(u)
    return u


jacobi_step_kiln = kiln.function(jacobi_step)
jacobi_kiln = kiln.function(jacobi, autograph=False)


def _dask_per_step(u: da.Array, steps: int) -> da.Array:
    for _ in range(steps):
        u = u.map_overlap(jacobi_step, depth=1, boundary="none", dtype=u.dtype)
    return u


def _dask_deep_halo(u: da.Array, steps: int) -> da.Array:
    return u.map_overlap(jacobi, depth=steps, boundary="none", dtype=u.dtype, steps=steps)


def _kiln_per_step(u: da.Array, steps: int) -> da.Array:
    for _ in range(steps):
        u = jacobi_step_kiln(u)
    return u


def main(n: int = 16384, chunk: int = 4096, steps: int = 10, repeat: int = 1) -> None:
    ways = {"dask map_overlap per step": _dask_per_step, f"dask map_overlap depth {steps}": _dask_deep_halo,
            "kiln per step": _kiln_per_step, "kiln, steps in one function": jacobi_kiln}
    with local_client() as client:
        (u,) = persist(client, [da.random.default_rng(0).random((n, n), dtype=np.float32, chunks=chunk)])
        times = {name: seconds_on_workers(client, lambda: [way(u, steps)], repeat) for name, way in ways.items()}
        # the answers agree (a corner block of a small cut, away from the timing)
        corner = u[: min(n, 3 * chunk // 2), : min(n, 3 * chunk // 2)].rechunk(chunk // 2)
        expected = jacobi(corner.compute(), steps)
        for way in ways.values():
            np.testing.assert_allclose(way(corner, steps).compute(), expected, rtol=1e-5)
    base = times["dask map_overlap per step"]
    print(f"{steps} Jacobi steps on {n}x{n} float32 in {chunk}x{chunk} blocks, 2 worker processes, median of "
          f"{repeat}: " + ", ".join(f"{name} {t * 1e3:.0f} ms ({base / t:.2f}x)" for name, t in times.items()))


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
