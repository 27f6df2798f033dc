"""kiln as ``pip install .`` ships it: every package and every C file the backend reads at run
time are in the wheel, the tests and the build script are not, and the examples stay user code
(converted by AutoGraph) when they live in site-packages. (.ci/run also installs the wheel in a
fresh venv and runs ``kiln demo`` outside the checkout.)"""

from __future__ import annotations

import shutil
import warnings
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kiln.frontend.autograph import libraries

ROOT = Path(__file__).resolve().parent.parent


def _tracked_files() -> list[Path]:
    """The checkout's files as a clone would have them (tracked, or new and not ignored)."""
    cmd = ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [Path(line) for line in out.splitlines() if (ROOT / line).is_file()]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The wheel built from a copy of the checkout (a build/ folder left in it would mask omissions)."""
    clone = tmp_path_factory.mktemp("clone")
    for path in _tracked_files():
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, clone / path)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(clone)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("kiln-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def test_wheel_has_every_package_and_its_c_files(wheel_names: set[str]) -> None:
    tracked = [p for p in _tracked_files() if p.parts[0] != "tests"]
    packages = {p.parent for p in tracked if p.name == "__init__.py"}
    wanted = [
        p for p in tracked if (p.suffix == ".py" and p.parent in packages and p.name != "setup.py") or p.suffix in (".c", ".h")
    ]
    assert Path("backends/c/isa/__init__.py") in wanted and Path("backends/c/kiln_entry.c") in wanted
    assert Path("tools/opt_fuzz.py") in wanted  # the pass fuzzer, for a user's own lit tests (docs/writing-passes.md)
    missing = [str(p) for p in wanted if f"kiln/{p.as_posix()}" not in wheel_names]
    assert not missing, f"not in the wheel: {missing}"


def test_wheel_has_the_rule_grammar_and_kiln_rule_files(wheel_names: set[str]) -> None:
    """The rule language reads its lark grammar and kiln's own .rules files at run time."""
    assert "kiln/passes/rules/rules.lark" in wheel_names
    rule_files = [p for p in _tracked_files() if p.suffix == ".rules" and p.parts[0] != "tests"]
    assert rule_files
    missing = [str(p) for p in rule_files if f"kiln/{p.as_posix()}" not in wheel_names]
    assert not missing, f"not in the wheel: {missing}"


def test_wheel_leaves_out_tests_and_build_script(wheel_names: set[str]) -> None:
    assert not [n for n in wheel_names if n.startswith(("kiln/tests/", "kiln/.venv/", "kiln/build/"))]
    assert "kiln/setup.py" not in wheel_names


def test_installed_examples_are_user_code(monkeypatch: pytest.MonkeyPatch) -> None:
    site = "/somewhere/site-packages/"
    monkeypatch.setattr(libraries, "_INSTALL_DIRS", (site,))
    namespace: dict[str, object] = {"__name__": "kiln.examples.fake"}
    exec(compile("def f(x):\n    return x\n", site + "kiln/examples/fake.py", "exec"), namespace)  # noqa: S102
    assert libraries.library_reason(namespace["f"]) is None
    other: dict[str, object] = {"__name__": "somepackage.mod"}
    exec(compile("def g(x):\n    return x\n", site + "somepackage/mod.py", "exec"), other)  # noqa: S102
    assert libraries.library_reason(other["g"]) is not None


def test_sources_compile_without_warnings() -> None:
    """A user running with ``-W error`` (or a future Python, where invalid escapes are errors)
    must still be able to import kiln: no source may warn when compiled."""
    for path in _tracked_files():
        if path.suffix != ".py":
            continue
        source = (ROOT / path).read_text()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(source, str(path), "exec")

