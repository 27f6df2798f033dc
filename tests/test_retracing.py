"""Cache keys, retrace reasons and warnings, the bounded cache, and functions made anew."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import kiln
from kiln.frontend import retracing
from kiln.frontend.retracing import KilnRetracingWarning


def _ident(x):
    return x


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")
def test_reasons_name_the_argument_and_the_change() -> None:
    f = kiln.function(lambda x, k: x * k)
    f(np.ones(2), 1)
    f(np.ones(3), 1)
    f(np.ones(3), 2)
    f(np.ones(3, np.float32), 2)
    f(np.ones(3, np.float32), (2,))
    assert f.retrace_reasons == [
        "first call",
        "argument `x`: shape (2,) → (3,)",
        "argument `k`: value 1 → 2",
        "argument `x`: dtype float64 → float32",
        "argument `k`: structure changed (other nesting or length)",
    ]


def test_kwargs_and_nested_elements_are_named() -> None:
    @kiln.function
    def f(pair, scale=1.0):
        return pair[0] + pair[1] * scale

    f((np.ones(2), np.ones(2)), scale=1.0)
    f((np.ones(2), np.ones(2, np.float32)), scale=1.0)
    f((np.ones(2), np.ones(2, np.float32)), scale=2.0)
    assert f.retrace_reasons[1:] == [
        "argument `pair`: element 1: dtype float64 → float32",
        "argument `scale`: value 1.0 → 2.0",
    ]


def test_frequent_retracing_warns_naming_the_argument() -> None:
    f = kiln.function(_ident)
    with pytest.warns(KilnRetracingWarning, match=r"retraced on 5 of its last 5 calls; argument `x` keeps changing") as rec:
        for n in range(1, 6):
            f(n)
    assert "as a NumPy array" in str(rec[0].message)
    assert rec[0].filename == __file__  # points at the caller


def test_cache_hits_reset_the_window() -> None:
    f = kiln.function(_ident)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnRetracingWarning)
        for n in range(1, 9):
            f(n)
            f(n)  # a hit between traces: never 5 of the last 5


def test_shape_changes_suggest_an_input_signature() -> None:
    f = kiln.function(lambda x: x + 1)
    with pytest.warns(KilnRetracingWarning, match=r"kiln.TensorSpec\(\[None"):
        for n in range(1, 6):
            f(np.ones(n))


def test_self_is_keyed_by_identity_and_held_weakly() -> None:
    class Model:
        def __init__(self, k: float) -> None:
            self.k = k

        @kiln.function
        def scale(self, x):
            return x * self.k

    a, b = Model(2.0), Model(3.0)
    np.testing.assert_array_equal(a.scale(np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(b.scale(np.ones(2)), [3.0, 3.0])
    a.scale(np.ones(2))
    assert Model.scale.tracing_count == 2
    assert Model.scale.retrace_reasons[1] == "argument `self`: another Model object (keyed by identity)"
    assert Model.scale.cache_size() == 2
    del a
    gc.collect()
    assert Model.scale.cache_size() == 1  # the dead instance's trace is dropped


@pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning")
def test_the_cache_is_bounded_and_can_be_cleared() -> None:
    f = kiln.function(lambda x, k: x + k)
    f.cache_limit = 2
    x = np.ones(2)
    for k in (1, 2, 3):
        f(x, k)
    assert f.cache_size() == 2
    f(x, 1)  # evicted: traces again
    assert f.tracing_count == 4
    assert len(f.concrete_functions()) == 2
    f.clear_cache()
    assert f.cache_size() == 0
    f(x, 1)
    assert f.tracing_count == 5


def test_wrapping_twice_makes_two_functions() -> None:
    f1, f2 = kiln.function(_ident), kiln.function(_ident)
    f1(np.ones(2))
    f2(np.ones(2))
    assert f1.tracing_count == f2.tracing_count == 1
    assert f1.python_function is f2.python_function is _ident


def test_function_defined_inside_another_retraces_per_outer_call() -> None:
    def outer(x):
        @kiln.function
        def inner(y):
            return y * 2

        return inner(x), inner

    counts = []
    with pytest.warns(KilnRetracingWarning, match="created inside a loop or another function"):
        for _ in range(5):
            _, inner = outer(np.ones(2))
            counts.append(inner.tracing_count)
    assert counts == [1] * 5


def test_unhashable_argument_is_a_type_error() -> None:
    f = kiln.function(_ident)
    with pytest.raises(TypeError, match="neither an array nor hashable"):
        f({1, 2})


def test_get_concrete_function_any_rank_is_the_one_trace() -> None:
    f = kiln.function(input_signature=[kiln.TensorSpec(None, "float32")])(lambda x: x + 1.0)
    cf = f.get_concrete_function()
    assert "tensor<?xf32>" in cf.ir  # the flattened data
    assert f.get_concrete_function(kiln.TensorSpec([None, None], "float32")) is cf
    np.testing.assert_array_equal(cf(np.ones((2, 3), np.float32)), np.full((2, 3), 2.0))
    assert f.tracing_count == 1


def test_structured_calls_keep_their_meaning_on_the_fast_key() -> None:
    """Lists, tuples, keywords and constants take a flat cache key (frontend/function.py): each
    form and each constant value is its own trace, and every call gives NumPy's answer."""
    @kiln.function
    def f(xs, scale=1.0):
        return (xs[0] + xs[1]) * scale

    a, b = np.arange(3.0), np.ones(3)
    calls = [([a, b],), ((a, b),), ([a, b], 2.0), ([a, b],), ((a, b), 3.0), ((np.ones(2), np.ones(2)),), ([a, b * 2],)]
    for args in calls * 2:
        np.testing.assert_array_equal(f(*args), (args[0][0] + args[0][1]) * (args[1] if len(args) > 1 else 1.0))
    np.testing.assert_array_equal(f([a, b], scale=2.0), (a + b) * 2.0)
    np.testing.assert_array_equal(f((a, b), scale=True), (a + b) * True)
    # list, tuple; 2.0; 3.0; a new shape; scale=2.0 as a keyword; scale=True: a bool, not 1
    assert f.tracing_count == 7


def test_grads_of_different_functions_do_not_warn_about_kiln(monkeypatch: pytest.MonkeyPatch) -> None:
    """kiln.grad wraps every function in one ``transformed`` of kiln's: five gradients of five
    functions are five functions, not one wrapped five times; the same one in a loop is the user's."""
    monkeypatch.setattr(retracing, "creations", retracing._CreationMonitor())
    x = np.arange(1.0, 4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnRetracingWarning)
        powers = [lambda v: (v**2).sum(), lambda v: (v**3).sum(), lambda v: (v**4).sum(), lambda v: (v**5).sum(),
                  lambda v: (v**6).sum()]
        for k, f in enumerate(powers, start=2):
            np.testing.assert_allclose(kiln.grad(f)(x), k * x ** (k - 1))

    def cube_sum(v):
        return (v**3).sum()

    with pytest.warns(KilnRetracingWarning, match=r"`cube_sum` \(.*test_retracing.py:\d+\) was wrapped and traced 5 times"):
        for _ in range(5):
            kiln.grad(cube_sum)(x)


def test_a_float_constant_is_keyed_by_its_sign_of_zero_and_nan_is_one_key() -> None:
    """-0.0 == 0.0 in Python, but ``x / s`` differs (-inf against inf): a Python float argument's
    trace is keyed so that they are apart. A NaN equals nothing: each new NaN object must still
    find the trace made for the first one (not trace again)."""
    divide = kiln.function(lambda x, s: x / s)
    x = np.array([1.0, -2.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in (0.0, -0.0, 0.0, -0.0, 1j * 0.0, complex(0.0, -0.0)):
            np.testing.assert_array_equal(divide(x, s), x / s)
    with np.errstate(invalid="ignore"):
        for _ in range(3):
            np.testing.assert_array_equal(divide(x, float("nan")), x / float("nan"))
    assert divide.tracing_count == 5
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(2):  # keywords take the other cheap key
            np.testing.assert_array_equal(divide(x=x, s=float("nan")), x / float("nan"))
            np.testing.assert_array_equal(divide(x=x, s=-0.0), x / -0.0)
    assert divide.tracing_count == 7
