"""On a Dask cluster (``kiln demo`` starts a LocalCluster of 2 worker processes when Dask is
installed): the kiln.function called with a Dask array runs per chunk with its stencil's halo, and
the same NumPy code as a plain dask.array expression, under kiln.dask.optimize, runs its
elementwise part as one kiln kernel per chunk."""

from __future__ import annotations

from typing import Any

import numpy as np

import kiln

#: the chunk length on the cluster
CHUNK = 50_000


@kiln.function
def second_difference(a: np.ndarray, scale: float) -> np.ndarray:
    return scale * (a[2:] - 2 * a[1:-1] + a[:-2])


def inputs() -> tuple[Any, ...]:
    return (np.random.default_rng(0).random(200_000), 0.5)


def reference(a: Any, scale: float) -> Any:
    return scale * (a[2:] - 2 * a[1:-1] + a[:-2])


def on_cluster(a: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Both ways, on the cluster of the current ``distributed.Client``."""
    import dask
    import dask.array as da

    x = da.from_array(a, chunks=CHUNK)
    with dask.config.set(array_optimize=kiln.dask.optimize):
        return second_difference(x, scale).compute(), reference(x, scale).compute()


FUNCTION = second_difference
