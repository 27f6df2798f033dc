"""``kiln demo`` fits on a screen: a legend, one aligned row per example, and an example's
printed output once (not once per timed call)."""

from __future__ import annotations

import re
import sys

import pytest

from kiln.examples import EXAMPLES
from kiln.tools.kiln_cli import _demo_dask, main


def test_demo_is_one_screen_with_aligned_rows(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--repeat", "1"]) == 0
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 100, (len(lines), max(map(len, lines)))
    legend = "\n".join(lines[:6])
    assert "first call" in legend and "compile" in legend  # what the first call includes
    assert "numpy time / kiln time" in legend and "above 1x kiln is faster" in legend
    (header_at,) = [i for i, line in enumerate(lines) if line.startswith("example ")]
    header, rows = lines[header_at], lines[header_at + 1 : header_at + 1 + len(EXAMPLES)]
    assert [row.split()[0] for row in rows] == list(EXAMPLES)
    speedup_end = header.index("speedup") + len("speedup")
    for row in rows:  # the longest name (square_if_positive_naive) too
        found = re.search(r"\d+\.\d\dx", row)
        assert found and found.end() == speedup_end, row
        assert "MISMATCH" not in row
    fizzbuzz = "Fizz 1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14"
    rest = "\n".join(lines[header_at + 1 + len(EXAMPLES) :])
    assert rest.count(fizzbuzz) == 1 and sum(line == "Fizz" for line in lines) == 0


def test_demo_runs_the_dask_example_on_a_local_cluster(capfd: pytest.CaptureFixture[str]) -> None:
    assert _demo_dask()
    out = capfd.readouterr().out
    assert "dask_stencil on a LocalCluster of 2 worker processes" in out and "MISMATCH" not in out, out
    assert max(map(len, out.splitlines())) <= 100


def test_demo_says_why_the_dask_example_is_skipped(capfd: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    assert _demo_dask()
    assert "dask_stencil skipped: import of distributed halted" in capfd.readouterr().out
