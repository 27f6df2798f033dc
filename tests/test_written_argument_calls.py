"""Calls of functions that write their array arguments (NPBench's in-place kernels, with Python ints
beside the arrays) find their trace again without the signature lookup, and still retrace, check
and answer as NumPy wherever the lookup would have decided otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln.frontend.function import Function


def smooth(steps, n, a):
    for _ in range(steps):
        for i in range(1, n - 1):
            a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0


def add_into(a, b):
    a += b


@pytest.fixture()
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The full trace lookups made (Function._concrete_for calls)."""
    seen: list[int] = []
    full = Function._concrete_for
    monkeypatch.setattr(Function, "_concrete_for", lambda self, *a: (seen.append(1), full(self, *a))[1])
    return seen


def _check(compiled: kiln.Function, fn, *args) -> None:
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compiled(*got)
    fn(*want)
    for g, w in zip(got, want):
        assert np.array_equal(np.asarray(g), np.asarray(w))
        assert np.asarray(g).dtype == np.asarray(w).dtype


def test_repeated_calls_skip_the_lookup(lookups: list[int]) -> None:
    compiled = kiln.function(smooth)
    a = np.linspace(0.0, 1.0, 16) ** 2
    for _ in range(3):
        _check(compiled, smooth, 2, 16, a)
    assert len(lookups) == 1
    _check(compiled, smooth, 3, 16, a)  # another Python int: another trace
    _check(compiled, smooth, 2, 16, a.astype(np.float32))  # another dtype: another trace
    assert len(lookups) == 3
    assert compiled.tracing_count == 3


def test_shared_arguments_still_take_the_lookup(lookups: list[int]) -> None:
    compiled = kiln.function(add_into)
    a, b = np.arange(6.0), np.ones(6)
    _check(compiled, add_into, a, b)
    _check(compiled, add_into, a, b)
    assert len(lookups) == 1
    same = np.arange(6.0)
    compiled(same, same)  # one array for both: traced as one, as NumPy's a += a
    assert np.array_equal(same, np.arange(6.0) * 2)
    assert len(lookups) == 2
    with pytest.raises(NotImplementedError, match="overlap"):
        base = np.arange(8.0)
        compiled(base[:6], base[2:])


def test_read_only_argument_is_refused_on_the_fast_path_too() -> None:
    compiled = kiln.function(add_into)
    a, b = np.arange(6.0), np.ones(6)
    compiled(a, b)
    frozen = np.arange(6.0)
    frozen.flags.writeable = False
    with pytest.raises((ValueError, TypeError)):
        compiled(frozen, b)
