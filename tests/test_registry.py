"""The conventions that keep kiln navigable: one pass per file named after it, a lit test per pass,
and kiln's dialects and passes visible to stock xdsl-opt through the xdsl.universe entry point."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import ModulePass
from xdsl.universe import Universe

from kiln import pipelines, universe

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", universe.pass_names())
def test_pass_file_defines_the_pass_it_is_named_after(name: str) -> None:
    cls = universe.load_pass(name)
    assert issubclass(cls, ModulePass)
    assert cls.name == name
    assert cls.__doc__, f"pass {name} has no docstring"


@pytest.mark.parametrize("name", universe.pass_names())
def test_every_pass_has_a_lit_test(name: str) -> None:
    assert (ROOT / "tests" / "lit" / "passes" / f"{name}.mlir").exists()


def test_helper_packages_hold_no_passes() -> None:
    """Discovery reads only ``passes/*.py``: the helper packages (``passes/bufferize/``,
    ``passes/gpu/``, ``passes/rules/``) are not passes, and a pass put in one would go unseen."""
    top = {p.stem.replace("_", "-") for p in (ROOT / "passes").glob("*.py") if not p.stem.startswith("_")}
    assert set(universe.pass_names()) == top
    packages = [p for p in (ROOT / "passes").iterdir() if (p / "__init__.py").exists()]
    assert {p.name for p in packages} >= {"bufferize", "gpu", "rules"}
    for package in packages:
        for path in package.rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            module = importlib.import_module(".".join(("kiln", *parts)).removesuffix(".__init__"))
            passes = [o for o in vars(module).values() if inspect.isclass(o) and issubclass(o, ModulePass) and o.__module__ == module.__name__]
            assert not passes, f"{path.relative_to(ROOT)} defines {passes}: passes go in passes/<name>.py"


@pytest.mark.parametrize("name", sorted(universe.DIALECTS))
def test_every_dialect_has_a_round_trip_test(name: str) -> None:
    assert (ROOT / "tests" / "lit" / "dialects" / name / "roundtrip.mlir").exists()
    assert universe.DIALECTS[name]().name == name


def test_multiverse_sees_kiln() -> None:
    multiverse = Universe.get_multiverse()
    assert "graph" in multiverse.all_dialects
    assert "convert-graph-to-linalg" in multiverse.all_passes
    assert "graph-to-c" in multiverse.all_passes
    assert "c" in multiverse.all_targets


def test_pipeline_stages_name_real_passes() -> None:
    known = universe.all_passes()
    for stage, spec in pipelines.STAGES.items():
        for p in filter(None, spec.split(",")):
            assert p.split("{")[0] in known, f"stage {stage} names unknown pass {p}"
    for name in pipelines.PIPELINES:
        assert universe.pipeline_pass(name).name == name


def test_stock_xdsl_opt_runs_kiln_passes(tmp_path: Path) -> None:
    src = tmp_path / "f.mlir"
    src.write_text(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = graph.exp %a : tensor<4xf32>\n"
        "  func.return %0 : tensor<4xf32>\n}\n"
    )
    xdsl_opt = Path(sys.executable).parent / "xdsl-opt"
    out = subprocess.run(
        [str(xdsl_opt), str(src), "-p", "convert-graph-to-linalg"], capture_output=True, text=True, check=True
    ).stdout
    assert "math.exp" in out and "linalg.generic" in out


#: kiln's passes that a pipeline stage runs only on a module holding their ops
_ROOTED_MODULES = ("graph_merge_histograms", "graph_hoist_row_products", "graph_hoist_window_convs",
                   "convert_kalgo_to_kernel", "linalg_matmul_to_kernel", "linalg_conv_to_kernel", "kiln_group_exp",
                   "kiln_expand_half_powers", "kiln_divide_by_constants",
                   "kiln_crc_tables")


def test_a_program_without_their_ops_imports_no_rooted_pass() -> None:
    """``x * 2 + 1`` (no product, histogram, algorithm or exponential) is compiled, in a new
    process, without importing the modules of the passes that would not change it."""
    code = f"""
import sys
import numpy as np
import kiln
x = np.arange(64, dtype=np.float32)
assert np.array_equal(kiln.function(lambda x: x * 2 + 1, autograph=False)(x), x * 2 + 1)
print(sorted(m for m in {_ROOTED_MODULES!r} if "kiln.passes." + m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _conv(x: np.ndarray) -> np.ndarray:
    import kiln

    return kiln.conv2d(x, np.full((3, 3, 1, 2), 0.5))


@pytest.mark.parametrize(
    ("name", "fn", "arg"),
    [
        ("graph-merge-histograms", lambda x: np.histogram(x, 4)[0] + np.histogram(x, 4, weights=x)[0],
         np.linspace(0, 1, 32)),
        ("graph-hoist-row-products", lambda x: x @ x, np.eye(8) + 0.25),
        ("graph-hoist-window-convs", lambda x: np.sum(x, axis=0), np.eye(8) + 0.25),
        ("graph-linalg-to-calls", lambda x: np.linalg.inv(x), np.eye(4) * 2 + 0.5),
        ("convert-kalgo-to-kernel", lambda x: np.sort(x), np.linspace(1, 0, 16)),
        ("linalg-matmul-to-kernel", lambda x: x @ x, np.eye(8) + 0.25),
        ("kiln-symmetric-products", lambda x: x.T @ x, np.eye(8) + 0.25),
        ("linalg-conv-to-kernel", _conv, np.linspace(0, 1, 64).reshape(1, 8, 8, 1)),
        ("kiln-group-exp", lambda x: np.exp(x) + np.exp(2 * x), np.linspace(0, 1, 64)),
        ("kiln-expand-half-powers", lambda x: x**-1.5, np.linspace(0.5, 2, 64)),
        ("kiln-divide-by-constants", lambda x: x / 9.0, np.linspace(0.5, 2, 64)),
    ],
)
def test_rooted_passes_run_when_their_ops_are_there(
    name: str, fn: Callable[[np.ndarray], np.ndarray], arg: np.ndarray, monkeypatch: pytest.MonkeyPatch,
    fresh_kiln_cache: Path,
) -> None:
    """Each pass of ``universe.PASS_ROOTS`` runs on a program holding its ops, which matches NumPy
    (in an empty cache: a compiled program found in the disk cache runs no pass)."""
    import kiln

    ran: list[str] = []
    load = universe.load_pass
    monkeypatch.setattr(universe, "load_pass", lambda n: (ran.append(n), load(n))[1])
    got = kiln.function(fn, autograph=False)(arg.copy())
    np.testing.assert_allclose(got, fn(arg.copy()), rtol=1e-6, atol=1e-9)
    assert name in ran


def test_pass_roots_name_kiln_passes_and_real_ops() -> None:
    """Every key of ``universe.PASS_ROOTS`` is a kiln pass, every root an op or dialect that exists."""
    from xdsl.dialects import get_all_dialects

    dialects = {**get_all_dialects(), **universe.DIALECTS}
    ops = {op.name for factory in dialects.values() for op in factory().operations}
    for name, roots in universe.PASS_ROOTS.items():
        assert name in universe.pass_names()
        for root in roots:
            assert (root.rstrip(".") in dialects) if root.endswith(".") else (root in ops), (name, root)
