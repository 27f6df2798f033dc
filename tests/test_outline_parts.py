"""kiln-outline-parts and the C toolchain's compile in parts: a large function is cut into
functions compiled as separate translation units in parallel, with the same results.

Functions this small are never cut (min-ops is 1500), so the tests cut them with
``min-ops=0`` and tiny runs, which puts every border the pass knows on their paths: buffers,
views, scalars back, run-time checks and prints across units. Each program is checked against
NumPy, arguments included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import kiln
from kiln import pipelines
from kiln.backends.c import parts, toolchain
from kiln.fuzz.check import check_file
from kiln.fuzz.generator import generate

FORCED = "kiln-outline-parts{min-ops=0 chunk-ops=12}"


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Cut every function, and compile in three units even on a machine with fewer cores."""
    loops = pipelines.STAGES["loops"]
    assert "kiln-outline-parts" in loops
    monkeypatch.setitem(pipelines.STAGES, "loops", loops.replace("kiln-outline-parts", FORCED))
    monkeypatch.setattr(toolchain, "_cores", lambda: 3)
    yield


def check(fn: Callable[..., Any], *args: Any) -> str:
    """Compiled and NumPy results (and arguments after the call) agree; returns the C source."""
    eager = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compiled = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*eager)
    f = kiln.function(fn)
    got = f(*compiled)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    for g, w in zip(compiled, eager):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    return f.get_concrete_function(*args).source


def stencil(u, v):
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = (u[1:-1, 2:] - u[1:-1, :-2]) * 0.5 + (v[2:, 1:-1] - v[:-2, 1:-1]) ** 2
    b[1:-1, 0] = (u[1:-1, 1] - u[1:-1, -1]) * 0.5
    b[1:-1, -1] = (u[1:-1, 0] - u[1:-1, -2]) * 0.5
    u[0, :] = 0.0
    u[-1, :] = b[-2, :]
    return b.sum() + u.sum()


def staged(x, n):
    total = 0.0
    i = 0
    while i < n:
        y = np.sqrt(np.abs(x)) + i
        x[::2] = y[::2] * 0.5
        total += y.max() - x.min()
        i += 1
    return total


def counts(labels, values):
    out = np.zeros(4, dtype=np.int64)
    for k in range(labels.shape[0]):
        out[labels[k] % 4] += 1
    return out * values[:4].astype(np.int64)


def test_programs_cut_into_parts_give_numpys_results(forced: None) -> None:
    rng = np.random.default_rng(3)
    source = check(stencil, rng.uniform(-1, 1, (9, 11)), rng.uniform(-1, 1, (9, 11)))
    assert len(parts.parts_of(source)) > 2, "the stencil was not cut"
    check(staged, rng.uniform(-2, 2, 16), np.int64(3))
    check(counts, rng.integers(0, 50, 20), rng.integers(-3, 3, 6))


def test_run_time_checks_and_prints_cross_units(forced: None, capfd: pytest.CaptureFixture[str]) -> None:
    @kiln.function
    def f(x, t):
        kiln.print("before")
        y = np.sin(x) * 2.0 + 1.0
        n = (x > t).sum()
        z = x[:n] + y
        kiln.print("after")
        return z.sum() + np.cos(y).sum()

    x = np.arange(5.0)
    assert len(parts.parts_of(f.get_concrete_function(x, np.asarray(1.0)).source)) > 2
    for _ in range(2):  # the ctypes path first, then the native entry
        with pytest.raises(ValueError, match="test_outline_parts.py"):
            f(x, np.asarray(1.0))
        out = capfd.readouterr().out
        assert "before" in out and "after" not in out
    assert f(x, np.asarray(-1.0)) == pytest.approx(((x + np.sin(x) * 2 + 1).sum() + np.cos(np.sin(x) * 2 + 1).sum()))


def test_generated_programs_cut_into_parts(forced: None, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random programs of the fuzzer (docs/fuzzing.md), cut at every run of a dozen ops."""
    compiled: list[bool] = []
    build = toolchain.compile_shared

    def recorded(source: str, **kwargs: Any) -> Any:
        compiled.append(bool(parts.parts_of(source)))
        return build(source, **kwargs)

    monkeypatch.setattr(toolchain, "compile_shared", recorded)
    for index in range(16):
        path = tmp_path / f"prog{index}.py"
        path.write_text(generate(f"4242-{index}").source)
        outcome = check_file(path)
        assert outcome.status not in ("mismatch", "crash"), (index, outcome.message, outcome.detail)
    assert sum(compiled) >= 8, compiled  # most of them were cut


def test_units_group_the_parts() -> None:
    assert toolchain._units([]) == []
    found = [parts.MAIN, "0", "1", "2", "3"]
    assert parts.parts_of("\n".join(parts.guard(p) for p in found)) == found
    units = toolchain._units(found)
    assert sorted(p for unit in units for p in unit) == sorted(found) and units[0][0] == parts.MAIN
    assert len(units) == min(4, toolchain._cores()) or len(units) == 0
