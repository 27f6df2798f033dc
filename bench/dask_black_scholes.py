"""``python -m kiln.bench.dask_black_scholes [N] [CHUNK]``: Black-Scholes over N options (10^8,
the benchmark of dask#2497) on a LocalCluster of 2 worker processes (issue 42): a kiln.function
called with Dask arrays, against the same NumPy code on plain ``dask.array`` and a Numba kernel
mapped over the chunks with ``map_blocks``.

The formula is the one of Numba's and CUDA's samples (the cumulative normal by the
Abramowitz-Stegun polynomial; kiln has no ``erf``, which Intel's version uses). The inputs
(float64, chunks of CHUNK) are generated and persisted on the workers first; each way's call and
put prices are then persisted (computed on the workers, not sent to the client), so the figures
are the pricing, not the data's generation or transfer.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np

import kiln
from kiln.bench.dask_timing import local_client, persist, seconds_on_workers

RISK_FREE = 0.02
VOLATILITY = 0.30


def cnd(d: Any) -> Any:
    """The cumulative normal distribution (Abramowitz and Stegun 26.2.17)."""
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    tail = 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - tail, tail)


def black_scholes(price: Any, strike: Any, years: Any) -> tuple[Any, Any]:
    """Call and put prices, NumPy code (run on NumPy, on Dask arrays, and traced by kiln)."""
    sqrt_t = np.sqrt(years)
    d1 = (np.log(price / strike) + (RISK_FREE + 0.5 * VOLATILITY * VOLATILITY) * years) / (VOLATILITY * sqrt_t)
    d2 = d1 - VOLATILITY * sqrt_t
    cnd1, cnd2 = cnd(d1), cnd(d2)
    discounted = strike * np.exp(-RISK_FREE * years)
    call = price * cnd1 - discounted * cnd2
    put = discounted * (1.0 - cnd2) - price * (1.0 - cnd1)
    return call, put


black_scholes_kiln = kiln.function(black_scholes)


def _cnd_scalar(d: float) -> float:
    """``cnd`` of one number, for Numba's loop."""
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    tail = 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
    return 1.0 - tail if d > 0 else tail


@functools.cache
def numba_kernel() -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """The same formula as one Numba loop over a chunk, call and put as the rows of one block;
    compiled on its first use in each process (Numba is the ``bench`` extra's, not the tests')."""
    import numba

    cnd_scalar = numba.njit(_cnd_scalar)

    @numba.njit
    def kernel(price: np.ndarray, strike: np.ndarray, years: np.ndarray) -> np.ndarray:
        out = np.empty((2, price.shape[0]))
        for i in range(price.shape[0]):
            sqrt_t = np.sqrt(years[i])
            d1 = (np.log(price[i] / strike[i]) + (RISK_FREE + 0.5 * VOLATILITY * VOLATILITY) * years[i]) / (
                VOLATILITY * sqrt_t)
            d2 = d1 - VOLATILITY * sqrt_t
            cnd1, cnd2 = cnd_scalar(d1), cnd_scalar(d2)
            discounted = strike[i] * np.exp(-RISK_FREE * years[i])
            out[0, i] = price[i] * cnd1 - discounted * cnd2
            out[1, i] = discounted * (1.0 - cnd2) - price[i] * (1.0 - cnd1)
        return out

    return kernel


def black_scholes_numba(price: np.ndarray, strike: np.ndarray, years: np.ndarray) -> np.ndarray:
    """Numba's loop on one chunk (a module function, so Dask's tasks pickle it by name)."""
    return numba_kernel()(price, strike, years)


def _numba_blocks(price: da.Array, strike: da.Array, years: da.Array) -> tuple[da.Array, da.Array]:
    both = da.map_blocks(black_scholes_numba, price, strike, years, new_axis=0, chunks=((2,), price.chunks[0]),
                         dtype=np.float64, meta=np.empty((0, 0)))
    return both[0], both[1]


def main(n: int = 100_000_000, chunk: int = 10_000_000, repeat: int = 3) -> None:
    with local_client() as client:
        rng = da.random.default_rng(0)
        inputs = persist(client, [rng.uniform(10.0, 50.0, n, chunks=chunk), rng.uniform(10.0, 50.0, n, chunks=chunk),
                                  rng.uniform(1.0, 2.0, n, chunks=chunk)])
        ways = {"dask.array": black_scholes, "numba map_blocks": _numba_blocks, "kiln": black_scholes_kiln}
        times = {name: seconds_on_workers(client, lambda: way(*inputs), repeat) for name, way in ways.items()}
        # the answers agree (on the first chunk, away from the timing)
        first = [x[:chunk] for x in inputs]
        expected = dask.compute(*black_scholes(*first))
        for name in ("numba map_blocks", "kiln"):
            for got, want in zip(dask.compute(*ways[name](*first)), expected):
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    print(f"Black-Scholes, {n} float64 options in chunks of {chunk}, 2 worker processes, median of {repeat}: "
          + ", ".join(f"{name} {t * 1e3:.0f} ms" for name, t in times.items())
          + f"; kiln {times['dask.array'] / times['kiln']:.2f}x dask.array, "
          f"{times['numba map_blocks'] / times['kiln']:.2f}x numba")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
