"""A real distributed cluster for tests: 2 worker processes, each with a compile cache of its own
(nothing shared with the client or the other worker), what the workers' kernels traced, and the
check of a kiln.function on Dask arrays against its Python on the whole NumPy arrays."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import dask.array as da
import distributed
import numpy as np
import pytest

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


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[distributed.Client]:
    """One cluster per test module (starting one takes seconds)."""
    with local_client(str(tmp_path_factory.mktemp("workers"))) as c:
        yield c


def busy_worker(client: distributed.Client) -> str:
    """A worker that holds tasks of the computation now (its first kernels are still compiling)."""
    for _ in range(600):
        busy = [worker for worker, tasks in client.processing().items() if tasks]
        if busy:
            return busy[0]
        time.sleep(0.01)
    raise AssertionError("no worker took a task in 6 s")


def check(f: Any, *args: Any, chunks: Sequence[Any]) -> Any:
    """f on Dask versions of ``args`` (NumPy ones with ``chunks``, a list per array argument; None
    leaves it NumPy), computed on the cluster, against f's Python on the whole arrays."""
    dask_args = [a if c is None else da.from_array(a, chunks=c) for a, c in zip(args, chunks)]
    expected = f.python_function(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    lazy = f(*dask_args)
    got = [x.compute() for x in lazy] if isinstance(lazy, tuple) else lazy.compute()
    for g, e in zip(got if isinstance(lazy, tuple) else [got], expected if isinstance(lazy, tuple) else [expected]):
        e = np.asarray(e)
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, e.shape, g.dtype, e.dtype)
        np.testing.assert_allclose(g, e, rtol=1e-5 if e.dtype == np.float32 else 1e-12)
    return lazy
