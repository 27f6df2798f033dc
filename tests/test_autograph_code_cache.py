"""AutoGraph's conversions kept on disk (kiln.frontend.autograph.code_cache): a function
converted by an earlier process is not parsed, transformed or compiled again, and an entry is
never used for a changed source, a changed global the conversion decided from, or another
kiln. Each "process" here is a fresh import of a module file (a new function object, so the
in-memory conversion cache misses), with kiln's cache directory of its own."""

from __future__ import annotations

import errno
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.backends import cache
from kiln.backends.cache import CacheWarning
from kiln.frontend.autograph import code_cache, context, transpiler

#: the conftest fixture that imports a source as a new module
NewModule = Callable[[Path, str], types.ModuleType]


@pytest.fixture
def conversions(fresh_kiln_cache: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the functions AutoGraph transformed (not loaded from the disk cache), in a
    cache directory of this test's own."""
    made: list[str] = []
    transform = transpiler._transform

    def counting(func: types.FunctionType, *args: object) -> code_cache.Conversion:
        made.append(func.__name__)
        return transform(func, *args)

    monkeypatch.setattr(transpiler, "_transform", counting)
    return made


_CLIPPED = """
import numpy as np

def clipped(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = -x
    return y + 1.0
"""


def test_a_new_process_reuses_the_conversion(tmp_path: Path, conversions: list[str], new_module: NewModule) -> None:
    x = np.linspace(-1.0, 3.0, 8)
    first = new_module(tmp_path / "clipped.py", _CLIPPED).clipped
    np.testing.assert_allclose(kiln.function(first)(x), first(x))
    again = new_module(tmp_path / "clipped.py", _CLIPPED).clipped
    np.testing.assert_allclose(kiln.function(again)(-x), again(-x))
    assert conversions == ["clipped"]  # the second import's function was loaded, not transformed
    assert kiln.autograph.to_code(again) == kiln.autograph.to_code(first)


def test_an_edited_source_is_converted_again(tmp_path: Path, conversions: list[str], new_module: NewModule) -> None:
    x = np.linspace(-1.0, 3.0, 8)
    source = _CLIPPED.replace("clipped", "edited")  # (one name per test: kiln warns of a code traced 5 times)
    first = new_module(tmp_path / "edited.py", source).edited
    np.testing.assert_allclose(kiln.function(first)(x), first(x))
    edited = new_module(tmp_path / "edited.py", source.replace("x * 2.0", "x * 3.0")).edited
    np.testing.assert_allclose(kiln.function(edited)(x), edited(x))  # x * 3 + 1, not a stale x * 2 + 1
    assert conversions == ["edited", "edited"]


_THROUGH_OPS = """
ops = None  # set by the test: what `ops.flip` is decides how the call is converted

def through_ops(x):
    return ops.flip(x) + 1.0
"""


class _UserOps:
    """User code reached through a global: its ``if`` on a traced value must be converted."""

    @staticmethod
    def flip(x: np.ndarray) -> np.ndarray:
        if x.sum() > 0:
            return -x
        return x


def test_a_rebound_global_is_converted_again(tmp_path: Path, conversions: list[str], new_module: NewModule) -> None:
    """`ops.flip(x)` with ``ops`` NumPy is a library call, left as written; with ``ops`` user
    code it goes through ``ag__.call``, which converts ``flip``: a stale entry would run its
    ``if`` unconverted, on a traced value."""
    x = np.linspace(-1.0, 3.0, 8)
    numpy_ops = new_module(tmp_path / "ops.py", _THROUGH_OPS)
    numpy_ops.ops = np
    np.testing.assert_allclose(kiln.function(numpy_ops.through_ops)(x), np.flip(x) + 1.0)
    assert "ag__.call(ops.flip)" not in kiln.autograph.to_code(numpy_ops.through_ops)
    user_ops = new_module(tmp_path / "ops.py", _THROUGH_OPS)
    user_ops.ops = _UserOps
    np.testing.assert_allclose(kiln.function(user_ops.through_ops)(x), -x + 1.0)
    assert "ag__.call(ops.flip)" in kiln.autograph.to_code(user_ops.through_ops)
    assert conversions[:2] == ["through_ops", "through_ops"]


def test_another_kiln_is_converted_again(tmp_path: Path, conversions: list[str], new_module: NewModule,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.linspace(-1.0, 3.0, 8)
    source = _CLIPPED.replace("clipped", "versions")
    first = new_module(tmp_path / "versions.py", source).versions
    np.testing.assert_allclose(kiln.function(first)(x), first(x))
    monkeypatch.setattr(code_cache, "compiler_fingerprint", lambda: "another kiln's code")
    again = new_module(tmp_path / "versions.py", source).versions
    np.testing.assert_allclose(kiln.function(again)(x), again(x))
    assert conversions == ["versions", "versions"]


_TRY = """
def guarded(x):
    try:
        if x.sum() > 0:
            x = x * 2.0
    except ValueError:
        pass
    return x
"""


def test_what_the_converters_record_is_recorded_again(tmp_path: Path, conversions: list[str], new_module: NewModule,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded conversion records what its converters found in the file (here the ``try``
    body, where staged code is refused), as a new process, whose records are empty, needs."""
    x = np.linspace(-1.0, 3.0, 8)
    first = new_module(tmp_path / "guarded.py", _TRY).guarded
    with pytest.raises(NotImplementedError, match=r"`try` around staged code cannot be staged \(.*guarded.py:3\)"):
        kiln.function(first)(x)
    monkeypatch.setattr(context, "_records", defaultdict(set))  # a new process's
    again = new_module(tmp_path / "guarded.py", _TRY).guarded
    with pytest.raises(NotImplementedError, match=r"`try` around staged code cannot be staged \(.*guarded.py:3\)"):
        kiln.function(again)(x)
    assert conversions == ["guarded"]


def test_a_conversion_that_cannot_be_kept_still_runs(tmp_path: Path, conversions: list[str], new_module: NewModule,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache, "write_checked", full_disk)
    x = np.linspace(-1.0, 3.0, 8)
    unkept = new_module(tmp_path / "unkept.py", _CLIPPED.replace("clipped", "unkept")).unkept
    with pytest.warns(CacheWarning, match=r"conversion of unkept could not be kept .*No space left on device"):
        converted = transpiler.convert(unkept)
    assert kiln.autograph.conversion_info(unkept).converted and conversions == ["unkept"]
    np.testing.assert_allclose(converted(x), unkept(x))  # (run as Python: a compile would write to the cache)
