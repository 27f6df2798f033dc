"""bench/stream_stores.py: its builds without kiln-stream-stores leave the pipeline as it was, and
a small run reports every variant (the figures themselves are the bench's, never asserted)."""

from __future__ import annotations

import pytest

from kiln import pipelines
from kiln.bench import stream_stores


def test_small_run_reports_each_variant_and_restores_the_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    before = pipelines.STAGES["loops"]
    stream_stores.main(["--n", "4099", "--rounds", "1", "--cpu"])
    assert pipelines.STAGES["loops"] == before and "kiln-stream-stores" in before
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("np.copyto: ")
    assert [line.split(":")[0] for line in lines[1:]] == [
        "relu(2x+1)*sigmoid(x)-x/3, normal stores", "relu(2x+1)*sigmoid(x)-x/3, streaming",
        "x*2+1, normal stores", "x*2+1, streaming"]
