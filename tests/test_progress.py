"""Progress of long compiles (kiln.frontend.progress): shown on stderr once a first call runs
longer than the threshold (lowered here), one line per stage, or one updating line on a terminal;
silent when fast and with KILN_PROGRESS=0. Results are checked against NumPy all the same."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.frontend import progress

STAGES = ["tracing", "lowering to tensor", "lowering to buffer", "lowering to loops", "emitting C", "compiling C"]


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))  # every stage runs
    monkeypatch.delenv("KILN_PROGRESS", raising=False)


def affine(x):
    return np.tanh(x * 2.0 + 1.0)


def slow_to_trace(x):
    time.sleep(0.6)  # runs while tracing: a stage longer than the threshold
    return x * 3.0 - 1.0


def _call(fn, x: np.ndarray) -> None:
    got = kiln.function(fn)(x)
    np.testing.assert_allclose(got, fn(x), rtol=1e-6)


def test_each_stage_on_its_own_line(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "THRESHOLD_S", 0.0)
    _call(affine, np.linspace(-1, 1, 10, dtype=np.float32))
    lines = capfd.readouterr().err.splitlines()
    shown = [line for line in lines if line.startswith("kiln: compiling affine: ")]
    assert [line.split(": ")[2].split(" (")[0] for line in shown] == STAGES
    assert all(f"({i}/6)" in line for i, line in enumerate(shown, 1))
    assert lines[-1].startswith("kiln: compiled affine in ") and lines[-1].endswith(" s")


def test_a_long_stage_shows_while_it_runs(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The threshold passes in the middle of tracing: the watcher shows it then, not at the next stage."""
    monkeypatch.setattr(progress, "THRESHOLD_S", 0.3)
    monkeypatch.setattr(progress, "_write", _stamped(progress._write))
    _call(slow_to_trace, np.arange(4, dtype=np.float64))
    lines = capfd.readouterr().err.splitlines()
    first = next(line for line in lines if "kiln: compiling slow_to_trace" in line)
    assert "tracing (1/6)" in first
    assert float(first.split("@")[0]) < 0.55  # written during the 0.6 s sleep


def _stamped(write):
    start = time.perf_counter()
    return lambda text: write(f"{time.perf_counter() - start:.2f}@{text}" if text.strip() else text)


def test_silent_when_fast(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "THRESHOLD_S", 60.0)
    _call(affine, np.linspace(-1, 1, 10, dtype=np.float32))
    assert "kiln: compil" not in capfd.readouterr().err


def test_silent_with_kiln_progress_0(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "THRESHOLD_S", 0.0)
    monkeypatch.setenv("KILN_PROGRESS", "0")
    _call(affine, np.linspace(-1, 1, 10, dtype=np.float32))
    assert "kiln: compil" not in capfd.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_one_updating_line_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "THRESHOLD_S", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    _call(affine, np.linspace(-1, 1, 10, dtype=np.float32))
    text = terminal.getvalue()
    assert text.count("\n") == 1 and text.endswith("\x1b[K\n")  # the last line only
    updates = text.split("\r")[1:]
    assert [u.split(": ")[2].split(" (")[0] for u in updates[:-1] if ": compiling" in u][0] == "tracing"
    assert any("lowering to loops (4/6), pass " in u for u in updates)  # the pass within the stage
    assert updates[-1].startswith("kiln: compiled affine in ")
