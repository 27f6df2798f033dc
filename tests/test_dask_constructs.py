"""The constructs of issue 42 past blockwise code, sums and stencils: argmax/argmin trees, any/all
and norms along an axis, cumulative sums as scans over chunks, sorts rechunked with a warning,
weighted stencils, loops (per chunk, or a task per step and chunk), on a real cluster of worker
processes, against the same Python run eagerly on the whole NumPy arrays (docs/dask.md)."""

from __future__ import annotations

import inspect
import os
import re
import signal
import warnings

import dask.array as da
import numpy as np
import pytest

import kiln
from dask_cluster import busy_worker, check
from dask_cluster import client  # noqa: F401 (the module's cluster)
from kiln.frontend.dask_arrays import KilnRechunkWarning
from kiln.passes.graph_partition import PartitionError

#: one chunk, uneven chunks, chunks of one element (smaller than any halo)
CHUNKINGS = [(9, 5), ((2, 3, 4), (1, 4)), 1]
CHUNKING_IDS = ["one-chunk", "uneven", "smaller-than-halo"]


def _with_nan_and_ties() -> np.ndarray:
    a = np.random.default_rng(20).random((9, 5))
    a[5, 1] = a[7, 1] = a[2, 3] = 2.0  # ties: the first position wins
    a[6, 2] = a[1, 2] = -1.0
    a[3, 4] = np.nan  # argmax and argmin give the first NaN
    return a


@kiln.function
def positions(a):
    d = a[1:] - a[:-1]
    return np.argmax(a, axis=0), np.argmin(a, axis=0), np.argmin(a, axis=1), np.argmax(d, axis=0)


@pytest.mark.parametrize("chunks", CHUNKINGS, ids=CHUNKING_IDS)
def test_argmax_argmin_are_trees_of_values_and_positions(client, chunks):
    check(positions, _with_nan_and_ties(), chunks=[chunks])


@kiln.function
def position_of_a_vector(v):
    return np.argmax(v), np.argmin(v * v), np.linalg.norm(v), np.linalg.norm(v, ord=np.inf)


def test_argmax_of_a_vector(client):
    v = np.random.default_rng(21).normal(size=13)
    check(position_of_a_vector, v, chunks=[(4, 1, 8)])


@kiln.function
def truth_and_norms(a):
    return ((a > 0.7).any(axis=0), (a > 0.05).all(axis=1), (a > 0.99).any(), np.linalg.norm(a, axis=0),
            np.linalg.norm(a), np.linalg.norm(a[:, 2]), np.linalg.norm(a, ord=1, axis=0))


@pytest.mark.parametrize("chunks", [(9, 5), ((2, 3, 4), 5), (1, 5)], ids=CHUNKING_IDS)
def test_any_all_and_norms_along_axes(client, chunks):
    check(truth_and_norms, np.random.default_rng(22).random((9, 5)), chunks=[chunks])  # a[:, 2]: axis 1 whole


def test_one_position_along_a_chunked_axis_names_itself_and_the_line():
    line = inspect.getsourcelines(truth_and_norms.python_function)[1] + 3
    with pytest.raises(PartitionError, match=rf"test_dask_constructs.py:{line}:\d+: indexing one position along a "
                                             "chunked axis \\(a\\[0\\]\\) is not supported on Dask arrays"):
        truth_and_norms(da.ones((4, 4), chunks=2))


@kiln.function
def running(a, n):
    total = np.cumsum(a, axis=0)
    rise = total[2:] - total[:-2]  # a stencil of the scan: its own halo
    return (rise, np.cumprod(a, axis=0), np.maximum.accumulate(a, axis=0), np.cumsum(a, axis=1),
            np.cumsum(n, axis=0), np.minimum.accumulate(n, axis=0))


@pytest.mark.parametrize("chunks", CHUNKINGS, ids=CHUNKING_IDS)
def test_cumulative_sums_are_scans_over_chunks(client, chunks):
    rng = np.random.default_rng(23)
    a = rng.uniform(0.9, 1.1, (9, 5))
    n = rng.integers(-50, 50, (9, 5))
    lazy = check(running, a, n, chunks=[chunks, chunks])
    for scanned in lazy[1:]:  # per chunk a scan, then the prefix of the chunks before: no rechunk
        assert not [name for name in scanned.__dask_graph__().layers if name.startswith("rechunk")]


@kiln.function
def ranked(a):
    order = np.sort(a, axis=0)
    return order - a, np.argsort(a, axis=0, kind="stable")


def test_sort_along_a_chunked_axis_rechunks_with_a_warning(client):
    a = np.random.default_rng(24).random((9, 5))
    line = inspect.getsourcelines(ranked.python_function)[1]
    with pytest.warns(KilnRechunkWarning) as caught:
        check(ranked, a, chunks=[((2, 3, 4), (1, 4))])
    messages = sorted(str(w.message) for w in caught if w.category is KilnRechunkWarning)
    assert len(messages) == 2  # the sort and the argsort, at their lines, shown there as Python's warnings are
    assert sorted((w.filename, w.lineno) for w in caught) == [(__file__, line + 2), (__file__, line + 3)]
    for message, (construct, at) in zip(messages, [("np.sort", line + 2), ("np.argsort", line + 3)]):
        assert re.search(rf"test_dask_constructs.py:{at}:\d+: {construct} along a chunked axis cannot run chunk by "
                         rf"chunk: .* moving up to {a.nbytes} bytes between workers", message), message


def test_sort_along_an_axis_in_one_chunk_moves_nothing(client):
    a = np.random.default_rng(25).random((9, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnRechunkWarning)
        check(ranked, a, chunks=[(9, (2, 3))])  # sorted along axis 0, which is whole: in the chunk


@kiln.function
def blur(a, w):
    n, m = a.shape
    out = np.zeros_like(a)
    out[2:-2, 1:-1] = sum([w[i, j] * a[i:n - 4 + i, j:m - 2 + j] for i in range(5) for j in range(3)])
    return out


@pytest.mark.parametrize("chunks", [(11, 7), ((3, 1, 7), (2, 5)), 1], ids=CHUNKING_IDS)
def test_weighted_stencil_halo_is_the_weights_reach(client, chunks):
    rng = np.random.default_rng(26)
    a, w = rng.random((11, 7)), rng.random((5, 3))  # w is NumPy: whole in every chunk
    lazy = check(blur, a, w, chunks=[chunks, None])
    assert "overlap" in "".join(map(str, lazy.__dask_graph__().layers)) or chunks == (11, 7)


@kiln.function
def smoothed(v, w):
    return np.convolve(v, w, mode="same"), np.convolve(v, w, mode="valid")


@pytest.mark.parametrize("chunks", [13, (4, 1, 8), 1], ids=CHUNKING_IDS)
def test_convolve_halo_is_the_kernels_reach(client, chunks):
    rng = np.random.default_rng(31)
    check(smoothed, rng.random(13), rng.random(5), chunks=[chunks, None])  # w is NumPy: whole in every chunk


@kiln.function
def full_convolution(v, w):
    return np.convolve(v, w)


def test_convolve_longer_than_its_input_names_itself_and_the_line():
    line = inspect.getsourcelines(full_convolution.python_function)[1] + 2
    with pytest.raises(PartitionError, match=rf"test_dask_constructs.py:{line}:\d+: an array longer than the chunked "
                                             r"axis it meets .* is not supported on Dask arrays \(15 elements along an "
                                             r"axis of 13\)"):
        full_convolution(da.ones(13, chunks=4), np.ones(3))


@kiln.function
def cumsum_of_a_stencil(a):
    return np.cumsum(a[1:] - a[:-1])


def test_scan_of_a_shorter_stencil_result_names_itself_and_the_line():
    line = inspect.getsourcelines(cumsum_of_a_stencil.python_function)[1] + 2
    with pytest.raises(PartitionError, match=rf"test_dask_constructs.py:{line}:\d+: a cumulative sum \(np.cumsum\) "
                                             "of a stencil result .* is not supported on Dask arrays"):
        cumsum_of_a_stencil(da.ones(8, chunks=3))


def _kernel_tasks(lazy: da.Array, name: str) -> int:
    """How many tasks of the graph run kernels of the user's function ``name``."""
    return sum(1 for key in dict(lazy.__dask_graph__()) if key[0].startswith(f"kiln_chunk_{name}_"))


@kiln.function
def decay(a):
    for t in range(6):
        a = a * 0.5 + t
    return a


@pytest.mark.parametrize("chunks", [12, (2, 3, 7), 1], ids=CHUNKING_IDS)
def test_loop_that_crosses_no_chunks_is_one_loop_per_chunk(client, chunks):
    lazy = check(decay, np.random.default_rng(27).random(12), chunks=[chunks])
    assert _kernel_tasks(lazy, "decay") == lazy.numblocks[0]  # one task per chunk, not per iteration


@kiln.function
def heat(u):
    for t in range(6):
        u = u + 0.1 * (np.roll(u, 1, axis=0) - 2 * u + np.roll(u, -1, axis=0))
    return u


@kiln.function
def jacobi_steps(a):
    for t in range(5):
        b = a.copy()
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a = b
    return a, a.sum()


@pytest.mark.parametrize("chunks", [(10, 6), ((2, 5, 3), (4, 2)), 1], ids=CHUNKING_IDS)
def test_time_stepping_stencil_is_a_task_per_step_and_chunk(client, chunks):
    rng = np.random.default_rng(28)
    u = check(heat, rng.random((10, 6)), chunks=[chunks])
    steps, _ = check(jacobi_steps, rng.random((10, 6)), chunks=[chunks])
    blocks = u.numblocks[0] * u.numblocks[1]
    if blocks == 1:  # nothing to exchange: the loop runs in the one chunk
        assert _kernel_tasks(u, "heat") == 1
    else:
        assert _kernel_tasks(u, "heat") == 6 * blocks and _kernel_tasks(steps, "jacobi_steps") == 5 * blocks


def test_a_worker_killed_during_time_steps_changes_nothing(client):
    u = np.random.default_rng(29).random((64, 8))
    future = client.compute(heat(da.from_array(u, chunks=(8, 8))))
    pids = client.run(os.getpid)
    busy = busy_worker(client)
    assert not future.done()
    os.kill(pids[busy], signal.SIGKILL)  # its tasks run again on the other worker or its replacement
    np.testing.assert_allclose(future.result(timeout=300), heat.python_function(u), rtol=1e-12)


@kiln.function
def picked(a, idx):
    return a[idx] * 2, a[:, idx % 4] + 1


@kiln.function
def reordered(a):
    return a[np.argsort(a[:, 0], kind="stable")] - a


@pytest.mark.parametrize("index_chunks", [None, 2], ids=["numpy-indices", "dask-indices"])
def test_indexing_with_arrays_rechunks_the_indexed_axis_with_a_warning(client, index_chunks):
    rng = np.random.default_rng(30)
    a, idx = rng.random((9, 4)), np.array([3, -1, 7, 0, 8])
    line = inspect.getsourcelines(picked.python_function)[1] + 2
    with pytest.warns(KilnRechunkWarning, match=rf"test_dask_constructs.py:{line}:\d+: indexing with arrays along a "
                                                rf"chunked axis .* moving up to {a.nbytes} bytes between workers"):
        check(picked, a, idx, chunks=[((2, 3, 4), (1, 3)), index_chunks])
    with pytest.warns(KilnRechunkWarning) as caught:
        check(reordered, a, chunks=[((2, 3, 4), 4)])  # rows gathered in the order of their first column
    constructs = sorted(str(w.message).split(": ", 1)[1].split(" along")[0] for w in caught)
    assert constructs == ["indexing with arrays", "np.argsort"]


def test_an_index_out_of_bounds_raises_as_in_numpy(client):
    with pytest.warns(KilnRechunkWarning):
        lazy = picked(da.from_array(np.ones((9, 4)), chunks=3), np.array([1, 9]))
    with pytest.raises(IndexError, match="index out of bounds for axis 0 with size 9"):
        lazy[0].compute()  # the kernel that indexes checks the bounds again (NumPy: IndexError)


@kiln.function
def stops_early(u):
    for t in range(6):
        if t > 3:
            break
        u = u * 2
    return u


def test_loop_that_may_break_names_itself_and_the_line():
    line = inspect.getsourcelines(stops_early.python_function)[1] + 2
    with pytest.raises(PartitionError, match=rf"test_dask_constructs.py:{line}:\d+: a staged loop other than `for "
                                             r"\.\.\. in range\(N\)` with a static N is not supported on Dask arrays"):
        stops_early(da.ones(8, chunks=3))


@kiln.function
def flattened(a):
    return np.argmax(a), np.argmin(a), np.cumsum(a), np.argmax(a * a)


@pytest.mark.parametrize("chunks", [(40, 30), (10, 15), ((7, 13, 20), (1, 29))], ids=["one-chunk", "even", "uneven"])
def test_argmax_and_cumsum_without_axis_follow_the_row_major_order(client, chunks):
    a = np.random.default_rng(26).random((40, 30))
    a[7, 20] = a[30, 3] = 5.0  # a tie: the first in row-major order wins
    a[31, 2] = a[8, 1] = -5.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", KilnRechunkWarning)
        lazy = check(flattened, a, chunks=[chunks])
    moved = [w for w in caught if w.category is KilnRechunkWarning]
    if chunks == (40, 30):
        assert not moved  # one chunk: nothing moves
    else:  # the rows are gathered (the flattened order crosses the column chunks), at the user's line
        line = inspect.getsourcelines(flattened.python_function)[1] + 2
        assert moved and all(re.search(rf"test_dask_constructs.py:{line}:\d+: a reshape of chunked axes cannot run "
                                       rf"chunk by chunk: .* along axis 1, moving up to {a.nbytes} bytes",
                                       str(w.message))
                             for w in moved), [str(w.message) for w in moved]
        assert lazy[2].numblocks[0] > 1  # the flattened array stays chunked: a tree and a scan over its chunks


@kiln.function
def flattened_rows(a):
    return np.argmax(a), np.cumsum(a)


def test_flattening_chunks_of_whole_rows_moves_nothing(client):
    a = np.random.default_rng(27).normal(size=(40, 30))
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnRechunkWarning)
        lazy = check(flattened_rows, a, chunks=[(10, 30)])
    assert lazy[0].ndim == 0 and lazy[1].numblocks == (4,)


@kiln.function
def reshaped(a, b):
    d = a[1:] - a[:-1]
    return a.reshape(30, 40) + b, np.argmax(d), d[::2] * 3


def test_any_reshape_and_stencil_results_go_through_dask(client):
    rng = np.random.default_rng(30)
    with pytest.warns(KilnRechunkWarning):  # (40, 30) -> (30, 40) neither merges nor splits: via the flat array
        check(reshaped, rng.random((40, 30)), rng.random((30, 40)), chunks=[((7, 13, 20), (10, 20)), (7, 9)])


@kiln.function
def gram(a, b):
    return a @ a.T, a.T @ a, (a @ b.T).sum(axis=1)


@pytest.mark.parametrize("chunks", [(10, 15), ((7, 13, 20), (1, 29))], ids=["even", "uneven"])
def test_product_with_its_own_transpose_contracts_the_chunked_axis(client, chunks):
    rng = np.random.default_rng(28)
    check(gram, rng.random((40, 30)), rng.random((40, 30)), chunks=[chunks, chunks])


@kiln.function
def squared(a):
    return a @ a


def test_product_of_an_array_with_itself_names_itself_and_the_line():
    line = inspect.getsourcelines(squared.python_function)[1] + 2
    with pytest.raises(PartitionError, match=rf"test_dask_constructs.py:{line}:\d+: a matrix product that contracts "
                                             r"an array's chunked axis with its other one \(a @ a\) is not supported"):
        squared(da.ones((4, 4), chunks=2))


@kiln.function
def strided(a, b, row):
    s = a[::2, 1:] * 2
    return s, s.sum(axis=0), a[1::3] - b[2::3], a[::-3, ::4], a[3:30:7, ::2] + row


@pytest.mark.parametrize("chunks", [(10, 15), ((7, 13, 20), (1, 29)), 1], ids=["even", "uneven", "one-element"])
def test_strided_slices_keep_each_chunks_phase(client, chunks):
    rng = np.random.default_rng(29)
    check(strided, rng.random((40, 30)), rng.random((40, 30)), rng.random(15), chunks=[chunks, (9, 30), None])


@kiln.function
def reshaped_in_a_loop(a):
    for t in range(6):
        a = (a.reshape(4, 3) * 2).reshape(3, 4)
    return a


def test_reshape_inside_a_staged_loop_names_itself_and_the_line():
    line = inspect.getsourcelines(reshaped_in_a_loop.python_function)[1] + 3
    with pytest.raises(PartitionError, match=rf"test_dask_constructs.py:{line}:\d+: a reshape of chunked axes inside "
                                             "a staged loop is not supported on Dask arrays"):
        reshaped_in_a_loop(da.ones((3, 4), chunks=2))
