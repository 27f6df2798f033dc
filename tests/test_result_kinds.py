"""Results come back as NumPy gives them: arrays, NumPy scalars or Python numbers
(kiln.frontend.result_kinds). Each function is compared with the same Python run on NumPy, by
type as well as value, on the first call (trace and compile) and the later ones (the native
entry's fast path)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree


def _same_kinds(fn: Callable[..., Any], *calls: tuple[Any, ...]) -> None:
    compiled = kiln.function(fn)
    for args in calls:
        want = fn(*args)
        for _ in range(3):
            got = compiled(*args)
            got_leaves, got_tree = pytree.flatten(got)
            want_leaves, want_tree = pytree.flatten(want)
            assert got_tree == want_tree
            for g, w in zip(got_leaves, want_leaves):
                assert type(g) is type(w), (fn.__name__, args, g, w)
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
                assert np.asarray(g).dtype == np.asarray(w).dtype


X = np.array([1.0, 3.0, 2.0])


def reductions_and_elements(x):
    return x.sum(), x[0], np.argmax(x), np.dot(x, x), x.mean(), np.float32(x[1]), np.sqrt(x[2])


def python_numbers(x):
    return float(x.sum()), int(x[1]), len(x) * 2, bool(x[0]), x.shape[0]


def zero_d_arrays(x):
    return np.asarray(x.sum()), np.zeros(()), np.array(x[0]), np.where(x[0] > 0, x[0], x[1])


def mixed_structure(x):
    return {"total": x.sum(), "scaled": x * 2, "count": len(x), "zero": np.zeros(())}


def test_scalars_arrays_and_python_numbers() -> None:
    _same_kinds(reductions_and_elements, (X,))
    _same_kinds(python_numbers, (X,))
    _same_kinds(zero_d_arrays, (X,))
    _same_kinds(mixed_structure, (X,))


def kind_by_path(x):
    if x.sum() > 0:
        return x.sum()
    return np.asarray(x[0] * 2)


def python_or_numpy_by_path(x):
    if x[0] > 0:
        r = x.max()
    else:
        r = float(x[0])
    return r, x * 2


def nested_returns(x):
    if x[0] > 0:
        if x[1] > 0:
            return x.sum()
        return np.zeros(())
    return float(x[1])


def test_a_kind_that_depends_on_the_path_is_the_taken_path_s() -> None:
    calls = [(np.array(v),) for v in ([1.0, 2.0], [-1.0, -2.0], [1.0, -5.0], [-3.0, 1.0])]
    _same_kinds(kind_by_path, *calls)
    _same_kinds(python_or_numpy_by_path, *calls)
    _same_kinds(nested_returns, *calls)


def kind_by_path_in_a_while_loop(x, n):
    i = 0
    while i < n:
        if x[i] > 1:
            return np.asarray(x[i] * 2)
        if x[i] < -1:
            return x[i] + 1
        i += 1
    return np.asarray(0.0)


def kind_by_path_in_nested_loops(x, n):
    t = np.int32(x[0]) % 3
    while t < 3:
        t = t + 1
        for v in x[:n]:
            if v > 1:
                return np.asarray(-6, dtype=np.int64)
            if v < -1:
                return (2 + t).astype(np.int64)
    return np.asarray(t, dtype=np.int64)


def test_a_kind_that_depends_on_the_path_taken_in_a_loop() -> None:
    """A return inside a staged loop gives a NumPy scalar on one path and an array on another
    (the kind is carried out of the loop per call: the fuzzer's program 6500-0 got an array)."""
    calls = [(np.array(v), 3) for v in ([0.0, 2.0, 0.0], [0.0, -2.0, 5.0], [0.0, 0.0, 0.5])]
    _same_kinds(kind_by_path_in_a_while_loop, *calls)
    _same_kinds(kind_by_path_in_nested_loops, *calls)


def python_max_of_mixed_kinds(s, t):
    return max(s, t, 0.5), min(s, 0.25), max(s, t), max(s, 0.5, t), min(t, s, 0.25)


def test_python_max_and_min_give_the_winner_s_kind() -> None:
    for s, t in ((np.array(-2.0), np.array(1.25)), (np.array(3.0), np.array(-1.0)), (np.array(0.1), np.array(0.2))):
        _same_kinds(python_max_of_mixed_kinds, (s, t))


def numpy_scalar_arguments(a, b):
    return a + b, a, np.asarray(b), a.real


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128", "bool"])
def test_numpy_scalar_arguments_and_results(dtype: str) -> None:
    a, b = np.dtype(dtype).type(1), np.dtype(dtype).type(0)
    _same_kinds(numpy_scalar_arguments, (a, b))


def scalar_result_then_written(x):
    t = np.argmax(x)  # a NumPy scalar: `t += 1` rebinds t and leaves u alone
    u = t
    t += 1
    d = np.dot(x, x)
    e = d
    d += 1.0
    return u, t, e, d


def test_a_numpy_scalar_result_is_not_shared() -> None:
    # np.argmax and np.dot gave 0-d arrays, so the in-place add changed u and e too
    _same_kinds(scalar_result_then_written, (X,))


def loop_of_numpy_scalars(x):
    s = 0.0
    for v in x:
        s = s + v
    return s


def test_a_loop_s_kind_is_the_kind_after_its_iterations() -> None:
    _same_kinds(loop_of_numpy_scalars, (X,))


def loop_from_a_0d_array(x):
    s = np.zeros(())
    for v in x:
        s = s + v
    return s


def test_a_loop_from_a_0d_array_returns_a_0d_array() -> None:
    # documented (numpy-semantics.md): NumPy gives a scalar after one iteration or more, kiln the
    # loop's one kind, the 0-d array it has after zero iterations
    got = kiln.function(loop_from_a_0d_array)(X)
    assert type(got) is np.ndarray and got.shape == () and got == X.sum()


def test_kinds_through_the_ctypes_entry_and_the_native_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the entry extension exists, calls go through ctypes (arrays) and the kinds are made
    in Python; the native entry makes the kinds known when tracing itself."""
    from kiln.backends.c import pyext

    def f(x):
        return x.sum(), float(x[0]), x * 2, np.zeros(()), kind_by_path(x)

    compiled = kiln.function(f)
    monkeypatch.setattr(pyext, "ready", lambda: False)
    for x in (X, -X):
        got = compiled(x)
        assert compiled.get_concrete_function(x)._interim is not None
        assert [type(v) for v in got] == [type(v) for v in f(x)]
    monkeypatch.undo()
    for x in (X, -X):
        got = compiled(x)
        assert type(compiled.get_concrete_function(x)._entry).__name__ == "Entry"  # (its result rebuilt in Python:
        # one kind is known only per call)
        assert [type(v) for v in got] == [type(v) for v in f(x)]


def python_number_of_each_type_by_path(x):
    if x > 0:
        r = x * x
    else:
        r = 0.0  # a Python float on this path (examples/square_if_positive.py), a NumPy scalar on the other
    if x > 1:
        b, i, c = x > 2, x + 1, x * 1j
    else:
        b, i, c = True, 0, 2j  # a Python bool, int and complex where the other path has NumPy scalars
    return r, b, i, c


def test_a_kind_known_per_call_is_made_by_the_native_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value a staged ``if`` merged from two kinds is returned as its kind flag says by the native
    entry itself (OUTPUT_PER_CALL): no Python rebuild, and no Python call at all once warm (a NumPy
    scalar argument included: ``square_if_positive(np.float32(3.0))`` took 1.4 us, 0.25 now)."""
    from kiln.frontend import concrete

    rebuilds: list[Any] = []
    original = concrete._rebuild
    monkeypatch.setattr(concrete, "_rebuild", lambda *a: rebuilds.append(a) or original(*a))
    _same_kinds(python_number_of_each_type_by_path,
                *[(x,) for x in (np.float64(3.0), np.float64(1.5), np.float64(-1.0), np.asarray(-2.0), np.asarray(2.5))])
    _same_kinds(kind_by_path, (X,), (-X,))
    assert not rebuilds  # every kind made in C, also the first call's
    square = kiln.function(lambda x: x * x if x > 0 else 0.0)
    square(np.float32(3.0))
    python_calls: list[Any] = []
    slow = kiln.Function._call
    monkeypatch.setattr(kiln.Function, "_call", lambda self, *a: python_calls.append(a) or slow(self, *a))
    for x in (np.float32(3.0), np.float32(-3.0)) * 5:
        got = square(x)
        assert type(got) is (np.float32 if x > 0 else float) and got == (x * x if x > 0 else 0.0)
    assert not python_calls  # the hot path took every call
