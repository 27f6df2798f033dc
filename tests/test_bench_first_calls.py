"""bench/first_calls.py's cache clearing: a build a case left running in the background may still
write into the cache while the bench empties it (it crashed with "Directory not empty")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiln.bench import first_calls


def test_a_folder_written_while_it_is_removed_is_removed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    (cache / "seed").mkdir(parents=True)
    (cache / "seed" / "kept.h").write_text("kept")
    (cache / "lib").mkdir()
    (cache / "lib" / "a.so").write_text("a")
    rmdir = Path.rmdir
    late = {"written": False}

    def rmdir_after_a_late_write(self: Path) -> None:
        if self.name == "lib" and not late["written"]:  # (a background build writes its file now)
            late["written"] = True
            (self / "b.so").write_text("b")
        rmdir(self)

    monkeypatch.setattr(Path, "rmdir", rmdir_after_a_late_write)
    first_calls._remove_all_but(cache, {cache / "seed", cache / "seed" / "kept.h"})
    assert late["written"]
    assert sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*")) == ["seed", "seed/kept.h"]
