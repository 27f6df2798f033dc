"""What the Dask benchmarks of issue 42 share: the cluster they run on (a ``LocalCluster`` of 2
worker processes, 1 thread each), timing (one untimed run, so each worker compiles its kernels
and imports what it needs, then the median of timed ones) and each worker's peak memory."""

from __future__ import annotations

import resource
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import distributed
from dask.core import flatten


@contextmanager
def local_client() -> Iterator[distributed.Client]:
    """A client of 2 single-threaded worker processes on this machine."""
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        yield client


def median_s(run: Callable[[], Any], repeat: int = 3, after: Callable[[Any], None] | None = None) -> tuple[float, Any]:
    """The median wall time of ``repeat`` runs after an untimed one, and the last run's value;
    ``after`` (untimed) is given each run's value."""
    times, value = [], None
    for i in range(repeat + 1):
        start = time.perf_counter()
        value = run()
        if i:
            times.append(time.perf_counter() - start)
        if after is not None:
            after(value)
    return statistics.median(times), value


def persist(client: distributed.Client, collections: Sequence[Any]) -> list[Any]:
    """``collections`` computed and held on the workers (not sent to the client)."""
    held = client.persist(list(collections))
    distributed.wait(held)
    return held


def compute_on_workers(client: distributed.Client, collections: Sequence[Any]) -> list[Any]:
    """Compute ``collections`` on the workers (held there until this returns, not sent to the
    client); their keys."""
    return [k for c in persist(client, collections) for k in flatten(c.__dask_keys__())]


def _held(dask_scheduler: Any, keys: list[Any]) -> bool:
    return any(k in dask_scheduler.tasks for k in keys)


def forgotten(client: distributed.Client, keys: list[Any]) -> None:
    """Wait until the scheduler has forgotten ``keys``: Dask names tasks after their inputs, so a
    run that found the last run's keys still held would compute nothing."""
    while client.run_on_scheduler(_held, keys=keys):
        time.sleep(0.05)


def seconds_on_workers(client: distributed.Client, make: Callable[[], Sequence[Any]], repeat: int) -> float:
    """The median time of computing the collections ``make()`` builds on the workers (see
    :func:`median_s`), each run's results forgotten before the next."""
    return median_s(lambda: compute_on_workers(client, make()), repeat, lambda keys: forgotten(client, keys))[0]


def _peak_rss_bytes() -> int:
    """This process's peak resident memory (Linux reports kibibytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def worker_peaks(client: distributed.Client) -> dict[str, int]:
    """Each worker process's peak resident memory so far, in bytes."""
    return client.run(_peak_rss_bytes)
