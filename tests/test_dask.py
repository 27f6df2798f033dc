"""kiln.functions called with Dask arrays, computed on a real distributed cluster of worker
processes, against the same Python run eagerly on the whole NumPy arrays (docs/dask.md)."""

from __future__ import annotations

import inspect
import os
import pickle
import time

import dask.array as da
import numpy as np
import pytest

import kiln
from dask_cluster import check as _check
from dask_cluster import busy_worker, client, traces  # noqa: F401 (client: the module's cluster)
from kiln.frontend.dask_kernels import ChunkTask
from kiln.passes.graph_partition import PartitionError


@kiln.function
def black_scholes_like(price, strike, rate):
    d = (np.log(price / strike) + rate) / np.sqrt(price)
    return np.where(d > 0, price * np.exp(-d), strike - d * 0.5)


@pytest.mark.parametrize("chunks", [(13, 7), ((1, 5, 7), (2, 5))], ids=["one-chunk", "uneven"])
def test_elementwise_and_broadcasting_blockwise(client, chunks):
    rng = np.random.default_rng(0)
    price = rng.uniform(1, 2, (13, 7)).astype(np.float32)
    strike = rng.uniform(1, 2, 7).astype(np.float32)  # NumPy: broadcast to every chunk, cut along axis 1
    lazy = _check(black_scholes_like, price, strike, 0.25, chunks=[chunks, None, None])
    assert isinstance(lazy, da.Array)


@kiln.function
def mixed(x, y):
    return x * 2 + y.T


def test_dask_arguments_chunked_differently_transposed_and_numpy(client):
    rng = np.random.default_rng(1)
    x, y = rng.random((9, 4)), rng.random((4, 9))
    _check(mixed, x, y, chunks=[(3, 2), (4, 5)])  # y's axes meet x's transposed: chunked alike
    _check(mixed, x, y, chunks=[(2, 4), None])  # y is NumPy: cut like x
    by_keyword = mixed(y=da.from_array(y, chunks=(2, 5)), x=da.from_array(x, chunks=3))
    np.testing.assert_allclose(by_keyword.compute(), mixed.python_function(x, y), rtol=1e-12)


@kiln.function
def moments(a):
    return a.sum(axis=0), a.mean(), a.var(axis=0), a.std(), a.max(axis=0), a.min()


@pytest.mark.parametrize("chunks", [(11, 5), ((4, 7), (2, 3))], ids=["one-chunk", "uneven"])
def test_reductions_are_trees(client, chunks):
    a = np.random.default_rng(2).normal(size=(11, 5))
    _check(moments, a, chunks=[chunks])


@kiln.function
def sum_f32(a):
    return (a * a).sum()


def test_float32_reduction_keeps_its_dtype(client):
    a = np.random.default_rng(3).random(40).astype(np.float32)
    _check(sum_f32, a, chunks=[7])


@kiln.function
def second_difference(a):
    return a[2:] - 2 * a[1:-1] + a[:-2]


@kiln.function
def jacobi(a):
    out = np.zeros_like(a)
    out[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    return out


@pytest.mark.parametrize("chunks", [12, (1, 2, 1, 8), 1], ids=["one-chunk", "uneven", "smaller-than-halo"])
def test_stencil_runs_as_overlap_of_its_halo(client, chunks):
    v = np.random.default_rng(4).random(12)
    _check(second_difference, v, chunks=[chunks])


@pytest.mark.parametrize("chunks", [(4, 3), (1, (3, 5))], ids=["even", "smaller-than-halo"])
def test_written_2d_stencil(client, chunks):
    a = np.random.default_rng(5).random((9, 8))
    _check(jacobi, a, chunks=[chunks])


@kiln.function
def periodic(a):
    lap = np.roll(a, 1, axis=0) + np.roll(a, -1, axis=0) + np.roll(a, 2, axis=1) - 3 * a
    d = np.roll(a, -1, axis=1) - a
    return lap, (d * d).sum()


@pytest.mark.parametrize("chunks", [((1, 2, 6), (4, 2)), 1], ids=["uneven", "smaller-than-halo"])
def test_roll_wraps_its_halo_around(client, chunks):
    a = np.random.default_rng(9).random((9, 6))
    _check(periodic, a, chunks=[chunks])


@kiln.function
def scalars(a):
    d = a[2:] - a[:-2]
    return (d * d).sum(), d.max(), np.linalg.norm(a), (a > 0.5).any(), (a > 0.01).all()


@pytest.mark.parametrize("chunks", [(1, 3, 6), (8, 2)], ids=["uneven", "last-chunk-past-the-stencil-end"])
def test_reduction_of_a_stencil_norms_any_all(client, chunks):
    v = np.random.default_rng(6).random(10)
    _check(scalars, v, chunks=[chunks])


def test_workers_compile_each_kernel_once(client):
    x = da.from_array(np.random.default_rng(7).normal(size=(11, 5)), chunks=((1, 4, 6), (2, 3)))
    for _ in range(2):
        moments(x)[2].compute()
    counts = client.run(traces)
    assert any(counts.values())
    for per_worker in counts.values():  # no chunk shape traced (so compiled) twice in one worker
        assert all(count == signatures for count, signatures in per_worker.values())


def test_graph_holds_small_references(client):
    lazy = second_difference(da.from_array(np.arange(20.0), chunks=5))
    tasks = [t for t in _task_functions(lazy) if isinstance(t, ChunkTask)]
    assert tasks
    for task in tasks:
        blob = pickle.dumps(task)
        assert len(blob) < 2048 and b"kiln_user" not in blob  # source and key, no C and no pointers


@kiln.function
def row_variation(a):
    return np.abs(a[:, 1:] - a[:, :-1]).sum(axis=1), (a[1:] - a[:-1]).max(axis=1)


def test_reduction_across_a_stencil_axis(client):
    a = np.random.default_rng(8).random((7, 6))
    _check(row_variation, a, chunks=[((2, 5), (1, 2, 3))])


@kiln.function
def mean_and_std(a):
    return a.mean(), a.std()


def test_results_share_their_common_partials(client):
    mean, std = mean_and_std(da.from_array(np.arange(12.0), chunks=5))
    shared = set(mean.__dask_graph__().layers) & set(std.__dask_graph__().layers)
    # the mean's partial sums and their tree: one set of tasks for both results
    assert len([name for name in shared if name.startswith("kiln_chunk_mean_and_std")]) == 2


def _task_functions(lazy):
    graph = lazy.__dask_graph__()
    for task in dict(graph).values():
        func = getattr(task, "func", None)
        if func is not None:
            yield func


@kiln.function
def dense(x, w, b):
    return np.maximum(x @ w + b, 0.0), (x @ w).sum()


@pytest.mark.parametrize("chunks", [[(10, 6), None], [(3, (1, 5)), (2, 2)]], ids=["one-chunk", "uneven-contraction"])
def test_matrix_products_contract_over_chunks(client, chunks):
    rng = np.random.default_rng(11)
    _check(dense, rng.random((10, 6)), rng.random((6, 4)), rng.random(4), chunks=[*chunks, None])


@kiln.function
def matvec(a):
    return a @ np.ones(4)


@kiln.function
def symmetric_part(a):
    return a + a.T


@kiln.function
def joined(a):
    return np.concatenate([a, a])


@kiln.function
def rolled_and_written(a):
    out = np.zeros_like(a)
    out[1:] = np.roll(a, 1, axis=0)[1:]
    return out


generator = kiln.random.Generator(0)
STATE = r"state \(a kiln.Variable, kiln.random's generator, or an argument the function writes\)"


@kiln.function
def noisy(a):
    return a + generator.normal(size=a.shape)


@kiln.function
def writes_its_argument(a):
    a[0] = 1.0
    return a * 2


@pytest.mark.parametrize("f, line, construct", [
    (matvec, 2, r"a matrix product of vectors or stacks of matrices \(@, np.dot\)"),
    (symmetric_part, 2, "an array whose two chunked axes meet"),
    (joined, 2, "np.concatenate along a chunked axis"),
    (rolled_and_written, 3, "a write at an offset from the array's end, with np.roll along the same axis"),
    (noisy, 2, STATE),
    (writes_its_argument, 2, STATE),
], ids=["matmul", "x+x.T", "concatenate", "roll-and-edge-write", "random", "written-argument"])
def test_unsupported_construct_names_itself_and_the_line(f, line, construct):
    line += inspect.getsourcelines(f.python_function)[1]
    with pytest.raises(PartitionError, match=rf"test_dask.py:{line}:\d+: {construct} .* not supported on Dask arrays"):
        f(da.ones((4, 4), chunks=2))  # refused when called: nothing is computed


def test_user_passes_are_refused_not_ignored():
    with_passes = kiln.function(lambda a: a * 2, passes="cse")
    with pytest.raises(NotImplementedError, match="rules= and passes= are not supported with Dask arrays"):
        with_passes(da.ones(4, chunks=2))


async def _exit_now() -> None:
    """Kill this worker process abruptly (its nanny starts a new one); a coroutine, as
    ``client.run(..., wait=False)`` requires."""
    os._exit(1)


@kiln.function
def column_norms(a):
    return np.sqrt((a * a).sum(axis=0)) + np.abs(a).max(axis=0)


def test_a_worker_killed_mid_computation_changes_nothing(client):
    a = np.random.default_rng(10).normal(size=(40, 6))
    future = client.compute(column_norms(da.from_array(a, chunks=(5, 3))))
    busy = busy_worker(client)
    assert not future.done()
    client.run(_exit_now, workers=[busy], wait=False)  # its tasks run again elsewhere, compiled anew
    np.testing.assert_allclose(future.result(timeout=300), column_norms.python_function(a), rtol=1e-12)
    for _ in range(1000):  # the worker did die (the scheduler may learn it after the result)
        if busy not in client.scheduler_info()["workers"]:
            break
        time.sleep(0.01)
    else:
        raise AssertionError(f"worker {busy} still alive")
