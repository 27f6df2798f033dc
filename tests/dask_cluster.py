"""A real distributed cluster for tests: 2 worker processes, each with a compile cache of its own
(nothing shared with the client or the other worker), and what the workers' kernels traced."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import distributed

from kiln.frontend.dask_kernels import _FUNCTIONS_BY_KEY


def _own_cache(dask_worker: object, root: str) -> str:
    """Give a worker a compile cache of its own."""
    path = os.path.join(root, f"worker-{os.getpid()}")
    os.environ["KILN_CACHE_DIR"] = path
    return path


def traces() -> dict[str, tuple[int, int]]:
    """Per kernel this worker process made: how many times it traced, and for how many call signatures."""
    return {key: (f.tracing_count, f.cache_size()) for key, f in _FUNCTIONS_BY_KEY.items()}


@contextmanager
def local_client(root: str) -> Iterator[distributed.Client]:
    """A client of a LocalCluster of 2 single-threaded worker processes, caches under ``root``."""
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as c:
        paths = c.run(_own_cache, root=root)
        assert len(set(paths.values())) == 2
        yield c
    cluster.close()
