"""Outputs larger than the last-level cache (kiln-stream-stores): whether a call streams its
stores is measured per loop, so successive calls run both kinds of store; every call's results,
and every written argument, must be NumPy's, aligned to the register or not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.dialects.target import host_last_level_cache_bytes


def _beyond_cache() -> int:
    """Float32 elements of an array larger than this machine's last-level cache, and not a
    multiple of the vector width (a tail too)."""
    llc = host_last_level_cache_bytes()
    if llc is None:
        pytest.fail("Linux reports no cache sizes here (/sys/devices/system/cpu/cpu0/cache)")
    return llc // 4 + 4099


def chain(x: Any) -> Any:
    return np.maximum(2 * x + 1, 0) * (1 / (1 + np.exp(-x))) - x / 3


def affine(x: Any) -> Any:
    return x * 2.0 + 1.0


def scale_into(out: Any, x: Any) -> None:
    out[...] = x * 3.0 - 1.0


@pytest.mark.parametrize("fn", [chain, affine])
def test_results_beyond_cache_match_numpy(fn: Callable[[Any], Any]) -> None:
    x = np.random.default_rng(3).standard_normal(_beyond_cache()).astype(np.float32)
    f = kiln.function(fn)
    want = fn(x.copy())
    for _ in range(6):  # the loop's first calls try normal stores, then streaming ones, then the faster
        got = f(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("offset", [0, 4, 20])
def test_written_argument_beyond_cache_matches_numpy(offset: int) -> None:
    """A written argument that starts ``offset`` bytes past a 64-byte boundary: no store to an
    address the streaming store cannot take (that would fault), every element written."""
    n = _beyond_cache()
    raw = np.zeros(n * 4 + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    x = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    f = kiln.function(scale_into)
    want = np.empty(n, np.float32)
    scale_into(want, x)
    for _ in range(6):
        out = raw[start : start + n * 4].view(np.float32)
        out[...] = np.nan
        f(out, x)
        np.testing.assert_array_equal(out, want)
