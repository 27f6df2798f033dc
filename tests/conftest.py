"""Settings for the whole test session, and fixtures shared by test files."""

import importlib.util
import itertools
import os
import types
from collections.abc import Callable
from pathlib import Path

import pytest

# A compile that takes longer than 2 s (a busy machine) reports its progress on stderr; tests
# that check a child's stderr is empty would then fail by chance. tests/test_progress.py
# turns it back on for its own tests.
os.environ["KILN_PROGRESS"] = "0"

# A large source's first call runs a quick (-Og) build while the optimized one is made in the
# background (backends/c/tiering.py): off, so that every test runs the build a user keeps and
# starts no background compiles; tests/test_tiering.py turns it on for its own tests.
os.environ["KILN_TIERING"] = "0"


@pytest.fixture
def fresh_kiln_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty kiln cache directory for one test, kiln's native entry extension loaded first
    from the session's (in an empty directory it is built again in the background, and calls of
    the tests that run meanwhile get interim entries, not the native ones they may check for)."""
    from kiln.backends.c import pyext

    pyext.module()
    path = tmp_path / "kiln-cache"
    monkeypatch.setenv("KILN_CACHE_DIR", str(path))
    return path


_module_names = itertools.count()


@pytest.fixture
def new_module() -> Callable[[Path, str], types.ModuleType]:
    """Writes a source to a file and imports it as a new module, as a new process would (new
    function objects, whose in-memory caches are empty; the disk cache is what they share)."""

    def make(path: Path, source: str) -> types.ModuleType:
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"kiln_test_module_{next(_module_names)}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return make
