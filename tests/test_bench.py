"""The benchmark suite runs end to end in quick mode and every kiln result matches NumPy
(no timing assertions: timings belong in bench/RESULTS.md)."""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

from kiln.bench.fma_peak import fma_peak_gflops
from kiln.bench.run import ONE_THREAD, _bind_xp, _peers, main, report, run_workload
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
    assert "of copy bw" in report(rows, {}, 1.0, True, "test", 100.0)


def test_bind_xp_makes_the_module_a_global_for_numba() -> None:
    bound = _bind_xp(chain, np)
    assert "xp" not in inspect.signature(bound).parameters
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    np.testing.assert_array_equal(bound(x), chain(x))
    assert _bind_xp(collatz_loops, np)(np.zeros(10, np.int32)) == collatz_loops(np.zeros(10, np.int32)) == 67


def test_the_fma_peak_is_measured_on_this_machine() -> None:
    """A positive figure of plausible size: at least one 4-lane FMA a nanosecond (any x86 core
    with FMA does more), far below what no core does (10,000 GFLOP/s)."""
    assert 8 < fma_peak_gflops(quick=True) < 10_000


def test_busy_mode_times_kiln_with_one_thread_beside_its_default() -> None:
    peers = {name: make for name, make in _peers(one_thread=True).items() if name in ("kiln", ONE_THREAD)}
    w = next(w for w in workloads() if w.unit == "GFLOP/s")
    row = run_workload(w, peers, quick=True)
    assert row.ok and row.figures[ONE_THREAD] is not None and row.figures["kiln"] is not None
    text = report([row], {}, 1.0, True, "test", 100.0, busy=1)
    assert "kiln vs kiln 1 thread" in text and "spinning" in text


def test_one_thread_peer_runs_with_one_thread_and_restores_the_setting(monkeypatch) -> None:
    seen = []
    monkeypatch.setenv("KILN_NUM_THREADS", "7")
    w = next(w for w in workloads() if w.unit == "us")
    spy = {ONE_THREAD: lambda w: (lambda *a: seen.append(os.environ["KILN_NUM_THREADS"]) or (w.numpy_fn or w.fn)(*a))}
    run_workload(w, spy, quick=True)
    assert seen and set(seen) == {"1"} and os.environ["KILN_NUM_THREADS"] == "7"


def test_help_describes_the_suite_in_whole_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    description = " ".join(out.split("\n\n")[1].split())
    assert description.startswith("kiln's benchmark suite") and description.endswith("medians of repeated runs.")
