"""``python -m kiln.bench.dask_scale [WORKERS ...]``: tasks and bytes moved of the Dask graphs kiln
builds for the three kernels of bench/dask_black_scholes.py, dask_stencil.py and dask_mean_std.py,
at 100 and 1,000 workers (issue 42: scale beyond the test machine, on paper; docs/dask.md).

Each problem grows with the workers (weak scaling): every worker holds what one of the
benchmarks' two workers holds, in the benchmarks' blocks. The graphs are built, not run: kiln
traces the function on the arrays' shapes and partitions it, Dask lays out the tasks. Counted:

- **tasks**: the keys of the graph as kiln builds it, less the inputs' own (they are held on
  the workers already, as the benchmarks persist them). Dask's blockwise fusion merges some at
  run time (a reduction's chunk step, which passes kiln's partial on, into the partial's kernel);
- **bytes moved** between workers, under a placement model: an input block lives on worker
  ``floor(b * W / B)`` (block ``b`` of ``B`` in row-major order: contiguous runs of blocks per
  worker), and each task runs where most of its inputs' bytes are (as Dask's scheduler chooses:
  a halo's slice where its block is, a block's kernel where its block is, a tree's combine where
  most of its partials are); every input held on another worker is moved once per task. A task's
  output size is read from the graph (the chunks of its array's layer; a slice's shape from its
  source and slice).
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Hashable, Sequence
from typing import Any

import dask.array as da
import numpy as np
from dask._task_spec import Alias, Task, convert_legacy_graph
from dask.core import flatten, get_deps
from dask.highlevelgraph import HighLevelGraph

from kiln.bench.dask_black_scholes import black_scholes_kiln
from kiln.bench.dask_mean_std import column_stats_kiln
from kiln.bench.dask_stencil import jacobi_kiln


def _block_shape(chunks: Sequence[Sequence[int]], index: Sequence[Any]) -> tuple[int, ...] | None:
    """A block's shape from its layer's chunks; None for a key that is not a block (a halo piece)."""
    if len(index) != len(chunks) or not all(isinstance(i, int) for i in index):
        return None
    return tuple(c[i] for c, i in zip(chunks, index))


class _Sizes:
    """Each key's output: its shape and dtype, from the layers' chunks and the graph's slices."""

    def __init__(self, graph: Any, tasks: dict[Hashable, Any]):
        self.layers = {name: layer.collection_annotations or {} for name, layer in graph.layers.items()}
        self.tasks = tasks
        self.known: dict[Hashable, tuple[tuple[int, ...], np.dtype[Any]]] = {}

    def __call__(self, key: Hashable) -> int:
        shape, dtype = self.of(key)
        return math.prod(shape) * dtype.itemsize

    def of(self, key: Hashable) -> tuple[tuple[int, ...], np.dtype[Any]]:
        if key not in self.known:
            self.known[key] = self._find(key)
        return self.known[key]

    def _find(self, key: Hashable) -> tuple[tuple[int, ...], np.dtype[Any]]:
        name, *index = key if isinstance(key, tuple) else (key,)
        info = self.layers.get(name, {})
        if "chunks" in info:
            shape = _block_shape(info["chunks"], index)
            if shape is not None:
                return shape, np.dtype(info["dtype"])
        task = self.tasks[key]
        if isinstance(task, Alias):
            return self.of(task.target)
        if isinstance(task, Task) and task.func is operator.getitem:
            source, index_ = task.args
            shape, dtype = self.of(source.key)
            return tuple(len(range(*s.indices(n))) for s, n in zip(index_, shape)) + shape[len(index_):], dtype
        raise ValueError(f"the size of {key!r} is not in the graph")


def _owner(key: Hashable, numblocks: dict[str, tuple[int, ...]], workers: int) -> int:
    """The worker of a block of an input (contiguous runs of blocks in row-major order)."""
    name, *index = key  # type: ignore[misc]
    blocks = numblocks[name]
    flat = int(np.ravel_multi_index(tuple(int(i) for i in index), blocks))
    return flat * workers // math.prod(blocks)


def count(results: Sequence[da.Array], inputs: Sequence[da.Array], workers: int) -> tuple[int, int]:
    """The tasks of ``results``' graph (less the inputs') and the bytes they move between
    ``workers`` (the placement model of the module's docstring)."""
    hlg = HighLevelGraph.merge(*(r.__dask_graph__() for r in results))
    tasks = convert_legacy_graph(dict(hlg))
    held = {k for x in inputs for k in flatten(x.__dask_keys__())}
    numblocks = {x.name: x.numblocks for x in inputs}
    sizes = _Sizes(hlg, tasks)
    dependencies, _ = get_deps(tasks)
    where: dict[Hashable, int] = {k: _owner(k, numblocks, workers) for k in held}
    moved = 0
    for key in _topological(tasks, dependencies, held):
        deps = dependencies[key]
        share = [0] * workers
        for d in deps:
            share[where[d]] += sizes(d)
        where[key] = max(range(workers), key=share.__getitem__) if deps else 0
        moved += sum(sizes(d) for d in deps if where[d] != where[key])
    return len(tasks) - len(held), moved


def _topological(tasks: dict[Hashable, Any], dependencies: dict[Hashable, set[Hashable]],
                 done: set[Hashable]) -> list[Hashable]:
    """The keys not in ``done``, each after its dependencies."""
    order: list[Hashable] = []
    seen = set(done)
    for root in tasks:
        stack = [(root, False)]
        while stack:
            key, expanded = stack.pop()
            if key in seen and not expanded:
                continue
            if expanded:
                order.append(key)
                continue
            seen.add(key)
            stack.append((key, True))
            stack.extend((d, False) for d in dependencies[key] if d not in seen)
    return order


def kernels(workers: int) -> dict[str, tuple[list[da.Array], list[da.Array]]]:
    """Each benchmark's kernel at ``workers`` workers: its results and its inputs."""
    options = 50_000_000 * workers
    price, strike, years = (da.empty(options, chunks=10_000_000) for _ in range(3))
    grid = da.empty((8192 * workers, 16384), dtype=np.float32, chunks=4096)
    table = da.empty((500_000 * workers, 1000), chunks=(31_250, 1000))
    return {
        "Black-Scholes (call and put)": (list(black_scholes_kiln(price, strike, years)), [price, strike, years]),
        "Jacobi, 10 steps in one function": ([jacobi_kiln(grid, 10)], [grid]),
        "column mean and std": (list(column_stats_kiln(table)), [table]),
    }


def main(workers: Sequence[int] = (100, 1000)) -> None:
    print("| kernel | workers | data | tasks | tasks per worker | bytes moved | moved / data |")
    print("|---|---|---|---|---|---|---|")
    for w in workers:
        for name, (results, inputs) in kernels(w).items():
            tasks, moved = count(results, inputs, w)
            data = sum(x.nbytes for x in inputs)
            print(f"| {name} | {w} | {data / 1e9:.0f} GB | {tasks} | {tasks / w:.1f} | {moved / 1e6:.1f} MB | "
                  f"{moved / data:.2e} |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or (100, 1000))
