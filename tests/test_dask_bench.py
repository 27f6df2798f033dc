"""The Dask benchmarks of issue 42 (bench/dask_*.py): their kiln.functions, on Dask arrays on a
real cluster of worker processes, give what their NumPy code gives on the whole arrays, and the
counts of bench/dask_scale.py (docs/dask.md, "Scale beyond this machine, on paper") are the
halos and partials the graphs really move (no timings: those are in bench/RESULTS.md)."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

from dask_cluster import client  # noqa: F401  (the module's cluster: a pytest fixture)
from kiln.bench.dask_black_scholes import _cnd_scalar, black_scholes, black_scholes_kiln, cnd
from kiln.bench.dask_mean_std import column_stats, column_stats_kiln
from kiln.bench.dask_memory import noise_mean, noise_mean_kiln
from kiln.bench.dask_scale import count
from kiln.bench.dask_stencil import jacobi, jacobi_kiln


def test_black_scholes_on_dask_arrays_is_numpys(client):
    rng = np.random.default_rng(0)
    price, strike, years = rng.uniform(10, 50, 1000), rng.uniform(10, 50, 1000), rng.uniform(1, 2, 1000)
    lazy = black_scholes_kiln(*(da.from_array(x, chunks=(300, 300, 400)) for x in (price, strike, years)))
    for got, want in zip(lazy, black_scholes(price, strike, years)):
        np.testing.assert_allclose(got.compute(), want, rtol=1e-12)
    # Numba's loop (the bench extra's, compiled by the benchmark) calls this on each number
    d = np.linspace(-4, 4, 81)
    np.testing.assert_allclose([_cnd_scalar(x) for x in d], cnd(d), rtol=1e-15)


@pytest.mark.parametrize("chunks", [(16, 24), 7], ids=["uneven", "smaller-than-halo"])
def test_ten_stencil_steps_in_one_function(client, chunks):
    u = np.random.default_rng(1).random((40, 48)).astype(np.float32)
    got = jacobi_kiln(da.from_array(u, chunks=chunks), 10).compute()
    np.testing.assert_allclose(got, jacobi(u, 10), rtol=1e-6)


def test_column_stats_and_generated_noise(client):
    a = np.random.default_rng(2).normal(size=(300, 7))
    for got, want in zip(column_stats_kiln(da.from_array(a, chunks=(70, 7))), column_stats(a)):
        np.testing.assert_allclose(got.compute(), want, rtol=1e-12)
    index = np.arange(5000, dtype=np.uint64)
    mean = noise_mean_kiln(da.from_array(index, chunks=1024)).compute()
    np.testing.assert_allclose(mean, noise_mean(index), rtol=1e-12)


def test_scale_counts_the_halo_rows_and_partials_the_graphs_move():
    # 2 workers: block rows 0-1 on the first, 2-3 on the second; 10 steps read a halo of 10 rows
    grid = da.zeros((64, 32), dtype=np.float32, chunks=16)
    tasks, moved = count([jacobi_kiln(grid, 10)], [grid], 2)
    # each way across the one boundary: 10 rows of the 32 columns, and of the 10 columns each
    # block takes from its diagonal neighbour (the halo's corners)
    assert moved == 2 * 10 * (32 + 2 * 10) * 4
    assert tasks > 8
    x = da.zeros(1000, chunks=100)
    tasks, moved = count(list(black_scholes_kiln(x, x, x)), [x], 2)
    assert (tasks, moved) == (20, 0)  # two kernels per block, elementwise
    table = da.zeros((800, 5), chunks=(100, 5))
    _, moved = count(list(column_stats_kiln(table)), [table], 2)
    assert 0 < moved <= 2 * 8 * 5 * 8  # partials of 5 float64, never more than one per block and tree
