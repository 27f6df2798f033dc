"""kiln calls xDSL 0.74's current API only: a deprecated call warns on every compile (45
warnings on a first compile under pytest) and crashes one run with ``-W error::DeprecationWarning``."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from xdsl.xdsl_opt_main import xDSLOptMain

import kiln

LIT_PASSES = Path(__file__).resolve().parent / "lit" / "passes"
#: ``kiln-opt %s [--split-input-file] -p PIPELINE``, the RUN lines stock xdsl-opt runs as they are
_PIPELINE_RUN = re.compile(r"//\s*RUN:\s*kiln-opt %s( --split-input-file)? -p (\S+) \| filecheck")


def _pipeline_runs() -> list[tuple[str, bool, str]]:
    runs = []
    for path in sorted(LIT_PASSES.glob("*.mlir")):
        for found in _PIPELINE_RUN.finditer(path.read_text()):
            runs.append((path.name, bool(found.group(1)), found.group(2).strip("'")))
    return runs


@pytest.mark.parametrize(("name", "split", "pipeline"), _pipeline_runs())
def test_stock_xdsl_opt_runs_kiln_passes_without_deprecations(
    name: str, split: bool, pipeline: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each pass's lit input through its pipeline, as stock ``xdsl-opt`` would run it."""
    args = [str(LIT_PASSES / name), "-p", pipeline] + (["--split-input-file"] if split else [])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        xDSLOptMain(args=args).run()
    assert "func.func" in capsys.readouterr().out


def _transposes(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``x.T @ g`` and ``np.cov(x.T)`` (kiln-fold-transposes, kiln-write-transposed), grouped
    exponentials (kiln-group-exp), a copy kiln elides (kiln-elide-copies)."""
    y = x.copy()
    y[0] = np.exp(x[1]) + np.exp(x[2])
    return x.T @ g + np.cov(x.T)[0, 0] + y.sum(axis=0)[:, None]


def _histograms(r: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two histograms of one array (graph-merge-histograms)."""
    counts, _ = np.histogram(r, 4)
    sums, _ = np.histogram(r, 4, weights=w)
    return counts, sums


def test_compiles_without_deprecations() -> None:
    """The decorator's pipelines, from the graph dialect to C, under warnings as errors."""
    rng = np.random.default_rng(0)
    x, g = rng.random((6, 4)), rng.random((6, 3))
    r, w = rng.random(50), rng.random(50)
    dynamic = kiln.function(lambda a: a * 2 + a[1:].sum(), input_signature=[kiln.TensorSpec([None], "float64")])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        got = kiln.function(_transposes)(x, g), kiln.function(_histograms)(r, w), dynamic(r)
    np.testing.assert_allclose(got[0], _transposes(x, g), rtol=1e-12)
    for have, want in zip(got[1], _histograms(r, w)):
        np.testing.assert_allclose(have, want, rtol=1e-12)
    np.testing.assert_allclose(got[2], r * 2 + r[1:].sum(), rtol=1e-12)
