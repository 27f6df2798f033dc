"""The on-disk cache heals itself: a damaged entry (a shared object truncated, emptied or
overwritten; a plan whose C was edited; a lost sha256) is rebuilt by the next process, which
still computes NumPy's answer and warns naming the entry, and an unusable cache directory falls
back to a temporary one with one warning. Every scenario runs in fresh processes, as a user's
next run would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

#: a kernel through the native entry (the extension is a cached .so too), checked against NumPy
CHILD = r"""
import numpy as np
import kiln
from kiln.backends.c import pyext

def affine(x):
    return x * 2.0 + 1.0

x = np.arange(4, dtype=np.float32)
got, want = kiln.function(affine, autograph=False)(x), affine(x)
pyext.module()
assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)
print("right answer")
"""


def run_child(cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KILN_CACHE_DIR": str(cache)}
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300)


def assert_right(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0 and "right answer" in proc.stdout, f"exit {proc.returncode}\n{proc.stderr}"


def damage_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CacheWarning" in line and "is damaged" in line]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("pristine")
    proc = run_child(cache)
    assert_right(proc)
    assert not proc.stderr.strip(), proc.stderr
    return cache


@pytest.fixture
def cache(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "cache"
    shutil.copytree(pristine, copy)
    return copy


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,  # dlopen of it was a SIGBUS
    "empty": lambda path: path.write_bytes(b""),
    "garbage": lambda path: path.write_bytes(b"\x7fELF not really" * 64),
    "digest lost": lambda path: path.with_name(path.name + ".sha256").unlink(),
}


@pytest.mark.parametrize("how", DAMAGE)
def test_damaged_shared_objects_are_rebuilt(cache: Path, how: str) -> None:
    shared = sorted(cache.glob("*.so"))
    assert len(shared) == 2  # the kernel and the entry extension
    for path in shared:
        DAMAGE[how](path)
    proc = run_child(cache)
    assert_right(proc)
    warned = damage_warnings(proc.stderr)
    assert len(warned) == 2 and all(any(p.name in w for w in warned) for p in shared), proc.stderr
    healed = run_child(cache)
    assert_right(healed)
    assert not healed.stderr.strip(), healed.stderr


def test_edited_plan_is_not_trusted(cache: Path) -> None:
    (plan,) = cache.glob("*.plan.json")
    data = json.loads(plan.read_text())
    assert "1.0f" in data["source"]
    data["source"] = data["source"].replace("1.0f", "5.0f")  # x * 2 + 5: a wrong answer if trusted
    plan.write_text(json.dumps(data))
    proc = run_child(cache)
    assert_right(proc)
    warned = damage_warnings(proc.stderr)
    assert len(warned) == 1 and plan.name in warned[0], proc.stderr
    assert "1.0f" in json.loads(plan.read_text())["source"]  # rewritten


def _file(tmp_path: Path) -> Path:
    (tmp_path / "a-file").write_text("not a directory")
    return tmp_path / "a-file"


def _under_file(tmp_path: Path) -> Path:
    return _file(tmp_path) / "cache"


def _read_only(tmp_path: Path) -> Path:
    """A directory where this user may not create files (root may anywhere but in sysfs)."""
    if os.geteuid() == 0:
        assert Path("/sys/kernel").is_dir()
        return Path("/sys/kernel")
    path = tmp_path / "read-only"
    path.mkdir()
    path.chmod(0o500)
    return path


@pytest.mark.parametrize("where", [_file, _under_file, _read_only], ids=["a file", "under a file", "no permission"])
def test_unusable_cache_dir_falls_back_with_one_warning(tmp_path: Path, where: Callable[[Path], Path]) -> None:
    path = where(tmp_path)
    proc = run_child(path)
    assert_right(proc)
    warned = [line for line in proc.stderr.splitlines() if "CacheWarning" in line]
    assert len(warned) == 1 and str(path) in warned[0] and "cannot be used" in warned[0], proc.stderr


def test_concurrent_cold_processes(tmp_path: Path) -> None:
    cache = tmp_path / "cold"
    env = {**os.environ, "KILN_CACHE_DIR": str(cache)}
    children = [
        subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0 and "right answer" in out, err
        assert "CacheWarning" not in err, err
    assert not list(cache.glob(".*.tmp"))  # no temporary file left behind
