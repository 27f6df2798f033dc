"""docs/writing-passes.md, followed verbatim: every code block of the page is either a file of
the user's project (marked ``# file: NAME`` or ``// file: NAME``, ``, continued`` to append) or
shell commands; the test writes the files to a fresh folder, runs the commands there in order,
and checks what they print. The user's code stays under 60 lines."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "writing-passes.md"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"^(?:#|//) file: (\S+?)(, continued)?$")


def _blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(PAGE.read_text())]


def _project(tmp_path: Path) -> tuple[dict[str, str], list[str]]:
    """Write the page's files under tmp_path; its files' text and its shell commands, in order."""
    files: dict[str, str] = {}
    commands: list[str] = []
    for lang, text in _blocks():
        first = text.splitlines()[0] if text else ""
        marker = MARKER.match(first)
        if lang == "sh":
            commands += [line for line in text.splitlines() if line.strip()]
            continue
        assert marker, f"a block of {PAGE.name} is neither a file nor commands, so no test runs it:\n{text}"
        name, continued = marker.group(1), marker.group(2)
        assert (name in files) == bool(continued), f"{name}: ', continued' only after the file's first block"
        files[name] = files.get(name, "") + text
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return files, commands


def _user_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not MARKER.match(line))


def test_the_users_code_is_under_60_lines(tmp_path: Path) -> None:
    files, _ = _project(tmp_path)
    assert set(files) == {"mine.py", "softplus.rules", "tests/softplus.mlir", "model.py"}
    total = sum(_user_lines(t) for t in files.values())
    assert total < 60, total
    assert f"({total} lines)" in PAGE.read_text(), "the page states the count"


def test_every_command_of_the_page_runs(tmp_path: Path) -> None:
    _, commands = _project(tmp_path)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("KILN_CACHE_DIR", str(tmp_path / "kiln-cache"))
    outputs: dict[str, str] = {}
    for command in commands:
        proc = subprocess.run(shlex.split(command), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{command}\n{proc.stdout}\n{proc.stderr}"
        outputs[command] = proc.stdout
    assert (tmp_path / "tests" / "lit.cfg.py").exists()
    assert "Passed: 1" in outputs["lit -v tests"] or "PASS: " in outputs["lit -v tests"]
    c = outputs[next(c for c in commands if c.startswith("kiln-opt"))]
    assert "log1pf(" in c or "log1p" in c, c
    printed = outputs["python model.py"]
    x = np.array([0.0, 1.0, 100.0, 1000.0], np.float32)
    got = np.array(printed.strip().strip("[]").split(), np.float32)
    np.testing.assert_allclose(got, np.logaddexp(np.float32(0), x), rtol=1e-6)
    shown = re.search(r"prints `(\[.*?\])`", PAGE.read_text())
    assert shown and shown.group(1) == printed.strip(), "the page shows what model.py prints"

