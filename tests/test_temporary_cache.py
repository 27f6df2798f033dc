"""Large temporaries of a compiled function are kept for its next call (backends/c/helpers.py's
kiln_alloc cache): a 96 MB temporary freed back to the system was faulted in and zeroed again on
every call, which in a virtual machine returning freed pages to its host costs ~2 ms per MB."""

from __future__ import annotations

import resource

import numpy as np

import kiln


def _with_temporary(x: np.ndarray, w: np.ndarray) -> np.float64:
    t = x * 2.0
    t[0, 0] = 1.0  # written after it is computed: t is a buffer of its own
    # a scalar result, so that the faults counted are the temporary's, not a large result's
    return (t @ w).sum()


def _minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_a_96_mb_temporary_is_reused_by_the_next_call() -> None:
    x = np.random.default_rng(0).random((4_000_000, 3))
    w = np.array([1.0, -2.0, 0.5])
    f = kiln.function(_with_temporary)
    source = f.get_concrete_function(x, w).source
    assert "kiln_alloc(12000000*(int64_t)sizeof(double))" in source  # the temporary is there
    expected = _with_temporary(x.copy(), w.copy())
    np.testing.assert_allclose(f(x, w), expected, rtol=1e-12)
    for _ in range(3):
        before = _minor_faults()
        got = f(x, w)
        faults = _minor_faults() - before
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        # a fresh 96 MB buffer takes at least 48 faults (2 MiB pages), ~23,000 with 4 KiB ones
        assert faults < 24, faults
