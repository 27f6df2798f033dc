"""kiln.dask.optimize on plain dask.array expressions, computed on a real distributed cluster of
worker processes, against Dask's own optimization and NumPy on the chunks (docs/dask.md)."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from dask._task_spec import Task

import kiln
from dask_cluster import local_client, traces
from kiln.frontend.dask_kernels import ChunkTask


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with local_client(str(tmp_path_factory.mktemp("workers"))) as c:
        yield c


def _kernel_sources(x: da.Array) -> list[str]:
    """The kiln kernels' sources in ``x``'s graph as kiln.dask.optimize leaves it, one per task."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, Task):
            if isinstance(node.func, ChunkTask):
                found.append(node.func.kernel.source)
            for arg in node.args:
                for inner in arg.values() if isinstance(arg, dict) else [arg]:
                    walk(inner)

    for node in dict(kiln.dask.optimize(x.__dask_graph__(), x.__dask_keys__())).values():
        walk(node)
    return found


def _check(client, x: da.Array) -> list[str]:
    """``x`` computed on the cluster with kiln.dask.optimize, against Dask's own optimization; the kernels' sources."""
    expected = x.compute()
    with dask.config.set(array_optimize=kiln.dask.optimize):
        got = client.compute(x).result()
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype), (got.shape, got.dtype, expected.dtype)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=1e-6 if expected.dtype == np.float32 else 1e-13)
    else:
        np.testing.assert_array_equal(got, expected)
    return _kernel_sources(x)


CHUNKINGS = {"one-chunk": (13, 7), "uneven": ((1, 5, 7), (2, 5)), "small": (2, 3)}


@pytest.mark.parametrize("chunks", CHUNKINGS.values(), ids=CHUNKINGS.keys())
def test_elementwise_expression_is_one_kernel_per_chunk(client, chunks):
    rng = np.random.default_rng(0)
    a = da.from_array(rng.uniform(1, 2, (13, 7)), chunks=chunks)
    b = da.from_array(rng.uniform(-1, 1, 7).astype(np.float32), chunks=chunks[1])  # broadcast along rows
    x = np.sin(a * 2.5 + b) - a**2 / (np.abs(b) + np.float32(1)) + np.exp(-a)
    kernels = _check(client, x)
    assert len(kernels) == x.npartitions
    assert len(set(kernels)) == 1 and kernels[0].count(" = np.") == 11, kernels[0]  # every call of the expression


def test_integer_arithmetic_and_comparisons(client):
    i = da.from_array(np.arange(-20, 22, dtype=np.int32).reshape(6, 7), chunks=(4, 3))
    kernels = _check(client, ((i // 3 + i % 5) * 2 > 7) | (i == -4) ^ np.True_)
    assert kernels and "np.floor_divide(in0, 3)" in kernels[0] and "np.bitwise_xor(v5, np.bool_(True))" in kernels[0], kernels


def test_untranslated_calls_stay_dask_and_feed_the_kernel(client):
    a = da.from_array(np.linspace(-3, 3, 60).reshape(6, 10), chunks=(4, 4))
    x = np.tanh(np.round(a * 3, 1) + 1).sum(axis=0)  # round and the sum's partials are Dask's own
    kernels = _check(client, x)
    bodies = {k.split("\n", 1)[1] for k in kernels}  # a kernel on each side of the round, none in the sum
    assert bodies == {"    v0 = np.multiply(in0, 3)\n    return v0\n",
                      "    v0 = np.add(in0, 1)\n    v1 = np.tanh(v0)\n    return v1\n"}, bodies


def test_where_and_astype(client):
    a = da.from_array(np.linspace(0, 3, 40).reshape(5, 8), chunks=(2, 3))
    x = da.where(a > 1.5, (a * 2).astype(np.float32), np.float32(0.5) - a.astype(np.float32))
    kernels = _check(client, x)
    assert len(set(kernels)) == 1 and "np.where(" in kernels[0] and ".astype(np.float32)" in kernels[0], kernels


def test_blocks_kiln_does_not_compile_keep_dasks_meaning(client):
    days = np.arange("2026-01-01", "2026-01-13", dtype="datetime64[D]").reshape(3, 4)
    d, e = da.from_array(days, chunks=2), da.from_array(days[::-1], chunks=2)
    assert _check(client, d - e)  # a kernel, run as its NumPy source: kiln has no datetime64


def test_workers_compile_each_kernel_once_per_chunk_shape(client):
    a = da.from_array(np.random.default_rng(3).normal(size=(11, 5)), chunks=((1, 4, 6), (2, 3)))
    for _ in range(2):
        _check(client, np.cos(a) * a - 0.5)
    counts = client.run(traces)
    assert any(counts.values())
    for per_worker in counts.values():  # no chunk shape traced (so compiled) twice in one worker
        assert all(count == signatures for count, signatures in per_worker.values())
