"""Settings for the whole test session, and fixtures shared by test files."""

import os
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
