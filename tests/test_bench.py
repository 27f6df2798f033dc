"""The benchmark suite runs end to end in quick mode and every kiln result matches NumPy
(no timing assertions: timings belong in bench/RESULTS.md)."""

from __future__ import annotations

import numpy as np

from kiln.bench.run import _peers, run_workload
from kiln.bench.workloads import workloads


def test_quick_suite_matches_numpy() -> None:
    peers = {name: make for name, make in _peers().items() if name in ("kiln", "numpy")}
    failures = []
    for w in workloads():
        row = run_workload(w, peers, quick=True)
        assert row.figures["numpy"] is not None and np.isfinite(row.figures["numpy"])
        if not row.ok:
            failures.append(f"{w.name}: {row.notes}")
    assert failures == []
