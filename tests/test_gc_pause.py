"""A first call traces and compiles with cyclic garbage collection paused (kiln.frontend.gc_pause):
no re-scans of a heap that holds the compile's IR; collection comes back after, as the user had it."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import kiln
from kiln.frontend import gc_pause


@pytest.fixture
def collection_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_a_first_call_compiles_with_collection_paused_and_restores_it(collection_on):
    seen = []

    def f(x):
        seen.append(gc.isenabled())  # runs while tracing
        return x * 2.0 + 1.0

    compiled = kiln.function(f)
    x = np.linspace(0.0, 1.0, 8)
    np.testing.assert_array_equal(compiled(x), f(x.copy()))
    assert seen[0] is False
    assert gc.isenabled()


def test_a_method_compiles_with_collection_paused(collection_on):
    seen = []

    class Model:
        @kiln.function
        def step(self, x):
            seen.append(gc.isenabled())
            return x + 1.0

    Model().step(np.ones(4))
    assert seen == [False]
    assert gc.isenabled()


def test_nested_pauses_restore_collection_once(collection_on):
    with gc_pause.paused():
        with gc_pause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_collection_the_user_turned_off_stays_off():
    was = gc.isenabled()
    gc.disable()
    try:
        with gc_pause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_a_compile_that_fails_restores_collection(collection_on):
    @kiln.function
    def f(x):
        raise ValueError("in the trace")

    with pytest.raises(ValueError, match="in the trace"):
        f(np.ones(3))
    assert gc.isenabled()
