"""The benchmark suite runs end to end in quick mode and every kiln result matches NumPy
(no timing assertions: timings belong in bench/RESULTS.md)."""

from __future__ import annotations

import inspect

import numpy as np

from kiln.bench.run import _bind_xp, _peers, report, run_workload
from kiln.bench.workloads import chain, collatz_loops, workloads


def test_quick_suite_matches_numpy() -> None:
    peers = {name: make for name, make in _peers().items() if name in ("kiln", "numpy")}
    failures = []
    for w in workloads():
        row = run_workload(w, peers, quick=True)
        assert row.figures["numpy"] is not None and np.isfinite(row.figures["numpy"])
        if not row.ok:
            failures.append(f"{w.name}: {row.notes}")
    assert failures == []


def test_gbs_rows_are_compared_with_a_copy_timed_beside_them() -> None:
    peers = {name: make for name, make in _peers().items() if name == "kiln"}
    rows = [run_workload(w, peers, quick=True) for w in workloads() if w.unit == "GB/s"]
    assert rows and all(r.copy_fraction is not None and r.copy_fraction > 0 for r in rows)
    assert "of copy bw" in report(rows, {}, 1.0, True, "test")


def test_bind_xp_makes_the_module_a_global_for_numba() -> None:
    bound = _bind_xp(chain, np)
    assert "xp" not in inspect.signature(bound).parameters
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    np.testing.assert_array_equal(bound(x), chain(x))
    assert _bind_xp(collatz_loops, np)(np.zeros(10, np.int32)) == collatz_loops(np.zeros(10, np.int32)) == 67
