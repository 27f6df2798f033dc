"""A first call traces and compiles with raised gc thresholds (kiln.frontend.gc_thresholds): fewer
collections of a heap that holds the compile's IR; the user's thresholds come back after."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import kiln
from kiln.frontend import gc_thresholds


@pytest.fixture
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_a_first_call_compiles_with_raised_thresholds_and_restores_them(default_thresholds):
    seen = []

    def f(x):
        seen.append(gc.get_threshold())  # runs while tracing
        return x * 2.0 + 1.0

    compiled = kiln.function(f)
    x = np.linspace(0.0, 1.0, 8)
    np.testing.assert_array_equal(compiled(x), f(x.copy()))
    assert seen[0] == gc_thresholds.COMPILING
    assert gc.get_threshold() == (700, 10, 10)


def test_nested_raises_restore_the_users_thresholds_once(default_thresholds):
    with gc_thresholds.raised():
        with gc_thresholds.raised():
            assert gc.get_threshold() == gc_thresholds.COMPILING
        assert gc.get_threshold() == gc_thresholds.COMPILING
    assert gc.get_threshold() == (700, 10, 10)


def test_higher_user_thresholds_and_collection_off_are_kept():
    saved = gc.get_threshold()
    try:
        gc.set_threshold(10**6, 5, 50)
        with gc_thresholds.raised():
            assert gc.get_threshold() == (10**6, 10, 50)
        gc.set_threshold(0, 10, 10)
        with gc_thresholds.raised():
            assert gc.get_threshold() == (0, 10, 10)
        assert gc.get_threshold() == (0, 10, 10)
    finally:
        gc.set_threshold(*saved)
