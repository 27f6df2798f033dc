"""Every ```python block of README.md and docs/ runs as written: a page's blocks in order, as one
script in a fresh process with the checkout's kiln (later blocks use earlier blocks' names). A
block that is not a program says so in the page, with its reason, on the line before it:
``<!-- not runnable: REASON -->`` (or ``not runnable here:``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
NOT_RUNNABLE = re.compile(r"<!-- not runnable(?: here)?: (.+?) -->")


def _blocks(page: Path) -> list[tuple[int, str]]:
    """The runnable blocks of ``page``: (line of the fence, code)."""
    text = page.read_text()
    blocks = []
    for found in BLOCK.finditer(text):
        before = text[: found.start()].rstrip("\n").splitlines()
        marked = NOT_RUNNABLE.fullmatch(before[-1].strip()) if before else None
        if marked:
            assert marked.group(1).strip(), f"{page.name}: a block marked not runnable gives its reason"
            continue
        blocks.append((text.count("\n", 0, found.start()) + 1, found.group(1)))
    return blocks


@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p)], ids=lambda p: p.name)
def test_python_blocks_run_as_written(page: Path, tmp_path: Path) -> None:
    script = "".join(f"# --- {page.name}:{line}\n{code}\n" for line, code in _blocks(page))
    path = tmp_path / f"{page.stem.replace('-', '_')}_snippets.py"
    path.write_text(script)
    env = {**os.environ, "KILN_CACHE_DIR": os.environ.get("KILN_CACHE_DIR", str(tmp_path / "cache"))}
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode:
        failing = re.findall(rf'File "{re.escape(str(path))}", line (\d+)', proc.stderr)
        where = ""
        if failing:
            lines = script.splitlines()[: int(failing[-1])]
            where = next(line[6:] for line in reversed(lines) if line.startswith("# --- "))
        pytest.fail(f"a block of {page.name} fails (block at {where}):\n{proc.stderr[-3000:]}")


def test_not_runnable_blocks_are_few_and_give_reasons() -> None:
    marked = [
        (page.name, m.group(1)) for page in PAGES for m in NOT_RUNNABLE.finditer(page.read_text())
    ]
    assert all(reason.strip() for _, reason in marked)
    assert len(marked) <= 5, marked
