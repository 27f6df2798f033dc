"""The conventions that keep kiln navigable: one pass per file named after it, a lit test per pass,
and kiln's dialects and passes visible to stock xdsl-opt through the xdsl.universe entry point."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

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
