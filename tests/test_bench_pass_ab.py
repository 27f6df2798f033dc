"""bench/pass_ab.py's pipeline edit: the stage less the named passes, and a refusal naming a pass
the stage does not run (a typo would otherwise time the same build twice)."""

from __future__ import annotations

import pytest

from kiln import pipelines
from kiln.bench.pass_ab import _without


def test_without_drops_exactly_the_named_passes() -> None:
    kept = _without("tensor", ["graph-hoist-row-products", "graph-hoist-window-convs"])
    assert kept.split(",") == [p for p in pipelines.STAGES["tensor"].split(",")
                               if p not in ("graph-hoist-row-products", "graph-hoist-window-convs")]
    assert len(kept.split(",")) == len(pipelines.STAGES["tensor"].split(",")) - 2


def test_without_refuses_a_pass_the_stage_does_not_run() -> None:
    with pytest.raises(SystemExit, match="not in stage tensor: graph-hoist-rows"):
        _without("tensor", ["graph-hoist-rows"])
