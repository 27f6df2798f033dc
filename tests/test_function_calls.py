"""kiln.functions calling kiln.functions: traced once per signature, shared by callers (issue 39).

Every compiled result is checked against the same Python run eagerly on NumPy, arguments
included; how often a callee's Python body runs while tracing counts its traces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

import kiln


@contextmanager
def _eagerly() -> Iterator[None]:
    """Every kiln.function (callees too) runs as plain Python on NumPy."""
    kiln.config.run_functions_eagerly(True)
    try:
        yield
    finally:
        kiln.config.run_functions_eagerly(False)


def _run_both(fn: kiln.Function, *args: np.ndarray) -> tuple[object, object, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """``fn`` compiled and run eagerly on copies of ``args``: both results and both argument sets after."""
    compiled_args = tuple(np.copy(a) for a in args)
    eager_args = tuple(np.copy(a) for a in args)
    got = fn(*compiled_args)
    with _eagerly():
        want = fn(*eager_args)
    return got, want, compiled_args, eager_args


def _check(fn: kiln.Function, *args: np.ndarray, rtol: float = 1e-12) -> None:
    """``fn`` gives what it gives run eagerly: results (of the same types) and arguments after."""
    got, want, got_args, want_args = _run_both(fn, *args)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        assert type(g) is type(w)
        np.testing.assert_allclose(g, w, rtol=rtol)
    for g, w in zip(got_args, want_args, strict=True):
        np.testing.assert_allclose(g, w, rtol=rtol)


def _callees(fn: kiln.Function, *args: object) -> int:
    """How many traced callees the graph IR of ``fn`` holds."""
    return fn.get_concrete_function(*args).ir.count("func.func private")


def test_nested_functions_match_numpy():
    @kiln.function
    def leaf(x):
        return np.tanh(x) * 2

    @kiln.function
    def middle(x, y):
        return leaf(x) + leaf(y) @ leaf(x).T

    @kiln.function
    def outer(x, y):
        return middle(x, y).sum(axis=0) - middle(y, x)[0]

    rng = np.random.default_rng(0)
    x, y = rng.random((3, 3)), rng.random((3, 3))
    _check(outer, x, y)
    assert _callees(outer, x, y) == 2  # middle and leaf, one signature each


def test_callee_with_same_signature_is_traced_once():
    runs: list[tuple[int, ...]] = []

    @kiln.function
    def inner(x):
        runs.append(x.shape)
        return np.sin(x) + x * x

    @kiln.function
    def outer(x, y):
        return inner(x) + inner(y) + inner(x * 2)

    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    concrete = outer.get_concrete_function(x, y)
    assert runs == [(5,)]
    assert concrete.ir.count("func.call @inner") == 3 and _callees(outer, x, y) == 1
    _check(outer, x, y)


def test_callee_traces_once_per_signature():
    runs: list[object] = []

    @kiln.function
    def inner(x, scale):
        runs.append((x.shape, str(x.dtype), scale))
        return x * scale + 1

    @kiln.function
    def outer(x, y):
        return (inner(x, 2.0).sum() + inner(x, 2.0).sum() + inner(y, 2.0).sum() + inner(x, 3.0).sum()
                + inner(x.astype(np.float32), 2.0).sum())

    x, y = np.arange(4.0), np.arange(6.0)
    got = outer(x, y)
    assert sorted(map(str, runs)) == sorted(map(str, [((4,), "float64", 2.0), ((6,), "float64", 2.0),
                                                      ((4,), "float64", 3.0), ((4,), "float32", 2.0)]))
    runs.clear()
    _check(outer, x, y)
    assert _callees(outer, x, y) == 4


def test_callee_keeps_abstract_values_of_its_arguments_and_results():
    """A Python number passed in stays weak (float32 stays float32); a NumPy scalar result stays one."""

    @kiln.function
    def scale(x, s):
        return x * s, (x * s).sum()

    @kiln.function
    def outer(x):
        total = 0.0
        for i in range(3):
            y, s = scale(x, total + 0.5)
            total = total + s
        return y, total

    x = np.arange(4, dtype=np.float32)
    got, want = outer(x), outer.python_function(x)
    assert got[0].dtype == want[0].dtype == np.float32
    assert type(got[1]) is type(want[1])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def test_grad_function_inside_a_function_is_shared():
    runs: list[int] = []

    def loss(w, x):
        runs.append(1)
        return np.sum(np.tanh(x @ w) ** 2)

    g = kiln.grad(loss)

    @kiln.function
    def two_steps(w, x):
        w = w - 0.1 * g(w, x)
        return w - 0.1 * g(w, x)

    rng = np.random.default_rng(1)
    w, x = rng.random((3, 2)), rng.random((4, 3))
    got = two_steps(w, x)
    assert len(runs) == 1  # both calls share one traced gradient
    once = w - 0.1 * g(w, x)
    np.testing.assert_allclose(got, once - 0.1 * g(once, x), rtol=1e-12)
    t = np.tanh(x @ w)  # and the gradient is the one by hand
    np.testing.assert_allclose(g(w, x), x.T @ (2 * t * (1 - t * t)), rtol=1e-12)


def test_gradient_flows_through_shared_calls():
    @kiln.function
    def layer(x, w):
        return np.tanh(x @ w)

    @kiln.function
    def loss(w1, w2, x):
        return np.sum(layer(layer(x, w1), w2) ** 2) + np.sum(layer(x, w1))

    rng = np.random.default_rng(2)
    w1, w2, x = rng.random((3, 3)), rng.random((3, 3)), rng.random((2, 3))
    assert _callees(loss, w1, w2, x) == 1
    got = kiln.grad(loss, argnums=(0, 1))(w1, w2, x)
    h = np.tanh(x @ w1)
    out = np.tanh(h @ w2)
    d_out = 2 * out * (1 - out**2)
    want_w2 = h.T @ d_out
    d_h = d_out @ w2.T + 1.0
    want_w1 = x.T @ (d_h * (1 - h**2))
    np.testing.assert_allclose(got[0], want_w1, rtol=1e-10)
    np.testing.assert_allclose(got[1], want_w2, rtol=1e-10)


def test_gradient_through_a_call_in_a_staged_if_and_loop():
    @kiln.function
    def f(x):
        return np.sin(x) * x

    def loss(x):
        y = x
        for _ in range(3):
            y = f(y)
        if np.sum(x) > 0:
            y = f(y) * 2
        return np.sum(y)

    x = np.array([0.3, 0.7])
    got = kiln.grad(loss)(x)
    eps = 1e-6
    numeric = np.array([(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(got, numeric, rtol=1e-6)


def test_methods_calling_methods_are_shared_per_instance():
    runs: list[str] = []

    class Model:
        def __init__(self, w: np.ndarray) -> None:
            self.w = w

        @kiln.function
        def layer(self, x):
            runs.append("layer")
            return np.maximum(x @ self.w, 0.0)

        @kiln.function
        def forward(self, x):
            return self.layer(self.layer(x)) + self.layer(x)

    rng = np.random.default_rng(3)
    m, other = Model(rng.random((3, 3))), Model(rng.random((3, 3)))
    x = rng.random((2, 3))
    got = m.forward(x)
    assert runs == ["layer"]
    with _eagerly():
        want = m.forward(x)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(other.forward(x), other.forward.python_function(other, x), rtol=1e-12)


def test_callee_writing_its_argument_is_traced_in_place():
    @kiln.function
    def bump(a, v):
        a[0] += v
        a *= 2
        return a.sum()

    @kiln.function
    def outer(x, y):
        s = bump(x, 1.0) + bump(y[1:], 2.0)
        t = bump(x, 1.0)
        return s + t, x.copy()

    _check(outer, np.arange(3.0), np.arange(4.0))
    assert _callees(outer, np.arange(3.0), np.arange(4.0)) == 0  # nothing shared: the writes are the caller's


def test_callee_returning_its_argument_keeps_it_one_array():
    @kiln.function
    def head(a):
        return a[:2]

    @kiln.function
    def outer(x):
        h = head(x)
        h[0] = 100.0  # writes x, as in NumPy
        return x * 1

    _check(outer, np.arange(4.0))


def test_callee_reading_a_caller_value_from_a_closure():
    @kiln.function
    def outer(x):
        y = x * 3

        @kiln.function
        def plus_y(z):
            return z + y

        return plus_y(x) + plus_y(x * 2)

    _check(outer, np.arange(3.0))


def test_callee_with_a_staged_loop_and_if():
    runs: list[int] = []

    @kiln.function
    def damp(x, n):
        runs.append(n)
        x = x / 2  # (without it, zero iterations and a false `if` would return the argument itself)
        i = 0
        while np.max(np.abs(x)) > 1.0 and i < n:
            x = x * 0.5
            i += 1
        if np.sum(x) > 0:
            x = x + 1
        return x

    @kiln.function
    def outer(x, y):
        return damp(x, 100) + damp(y, 100)

    args = (np.array([40.0, -3.0]), np.array([-5.0, 1.0]))
    got = outer(*args)
    assert runs == [100]
    _check(outer, *args)
    np.testing.assert_array_equal(got, outer.python_function(*args))


def test_prints_of_a_shared_callee_keep_program_order(capfd):
    @kiln.function
    def shout(x, tag):
        kiln.print(tag, x.sum())
        return x + 1

    @kiln.function
    def outer(x):
        kiln.print("start")
        y = shout(x, "a")
        kiln.print("middle")
        z = shout(y, "a")
        return shout(z, "b")

    x = np.arange(3.0)
    outer(x)
    compiled = capfd.readouterr().out
    with _eagerly():
        outer(x)
    assert compiled == capfd.readouterr().out == "start\na 3.0\nmiddle\na 6.0\nb 9.0\n"
    assert _callees(outer, x) == 2


def test_callee_with_variables_keeps_effect_order():
    v = kiln.Variable(np.zeros(2))

    @kiln.function
    def accumulate(x):
        v.assign_add(x)
        return v.read_value() * 2

    @kiln.function
    def outer(x):
        a = accumulate(x)
        b = accumulate(x + 1)
        return a + b

    got = outer(np.ones(2))
    np.testing.assert_array_equal(got, 2 * np.ones(2) + 2 * 3 * np.ones(2))
    np.testing.assert_array_equal(v.numpy(), np.full(2, 3.0))


def test_callee_returning_python_values_and_structures():
    @kiln.function
    def parts(x, label):
        return {"sum": x.sum(), "label": label, "pair": (x * 2, None), "n": 3}

    @kiln.function
    def outer(x):
        p, q = parts(x, "p"), parts(x + 1, "p")
        return p["sum"] + q["pair"][0] * p["n"], p["label"], q["pair"][1]

    x = np.arange(3.0)
    got, want = outer(x), outer.python_function(x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1:] == want[1:] == ("p", None)
    assert _callees(outer, x) == 1


def test_recursion_on_traced_values_names_the_line():
    @kiln.function
    def halve(x):
        if np.sum(x) > 1:
            return halve(x / 2)
        return x

    with pytest.raises(RecursionError, match=r"test_function_calls.py:\d+:\d+: kiln.function halve calls itself"):
        halve(np.ones(4))


def test_callee_in_a_staged_loop_with_a_list_and_keywords():
    runs: list[int] = []

    @kiln.function
    def mlp(x, ws, *, bias):
        runs.append(len(ws))
        for w in ws:
            x = np.tanh(x @ w + bias)
        return x

    @kiln.function
    def outer(x, ws):
        for _ in range(6):
            x = mlp(x, ws, bias=0.5) * 0.5
        return x

    rng = np.random.default_rng(4)
    x, ws = rng.random((2, 3)), [rng.random((3, 3)) * 0.3 for _ in range(2)]
    got = outer(x, ws)
    assert runs == [2]
    with _eagerly():
        want = outer(x, ws)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_callee_changing_its_list_argument_is_traced_in_place():
    @kiln.function
    def push(xs, v):
        xs.append(v * 2)
        return len(xs)

    @kiln.function
    def outer(x):
        xs = [x]
        n = push(xs, x) + push(xs, x + 1)
        return xs[-1] + n, xs[1]

    _check(outer, np.arange(3.0))


def _long_chain(x):
    """More graph ops (14 a step) than graph-inline-calls inlines (keep-ops=64 in the pipeline)."""
    for _ in range(6):
        x = np.tanh(x * 1.0001 + 0.5) - x * 0.25 + 0.125
    return x


_kept = kiln.function(_long_chain, autograph=False)


def test_large_callee_stays_one_function_in_the_c():
    @kiln.function
    def outer(x, y):
        a = _kept(x)
        b = _kept(a) + _kept(y)  # same signature: one callee
        return b, _kept(x[:3]).sum(), _kept(np.float32(2.0) * y.astype(np.float32))

    x, y = np.linspace(0.0, 1.0, 8), np.linspace(-1.0, 1.0, 8)
    _check(outer, x, y, rtol=1e-6)
    source = outer.get_concrete_function(x, y).source
    assert len(re.findall(r"^static void _long_chain_call\d\(.*\{$", source, re.M)) == 3  # a function per signature
    assert source.count("_long_chain_call0(") == 5  # its prototype, its definition and three calls


def test_large_callee_in_staged_control_flow_and_under_grad():
    @kiln.function
    def outer(x):
        for _ in range(5):
            x = _kept(x) * 0.5
        if np.sum(x) > 0:
            x = _kept(x)
        return np.sum(x * x)

    x = np.linspace(-1.0, 1.0, 6)
    _check(outer, x)
    assert "static void _long_chain_call0" in outer.get_concrete_function(x).source
    got = kiln.grad(outer)(x)
    eps = 1e-6
    with _eagerly():
        numeric = np.array([(outer(x + eps * e) - outer(x - eps * e)) / (2 * eps) for e in np.eye(6)])
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-9)


def test_callee_of_run_time_sizes_is_traced_in_place():
    @kiln.function
    def norm(x):
        return x / np.sqrt(np.sum(x * x))

    @kiln.function(input_signature=[kiln.TensorSpec([None], np.float64)])
    def outer(x):
        return norm(x) + norm(x * 2)

    for n in (3, 5):
        x = np.arange(1.0, n + 1)
        np.testing.assert_allclose(outer(x), 2 * x / np.sqrt(np.sum(x * x)), rtol=1e-12)
    assert "func.call" not in outer.get_concrete_function(np.arange(3.0)).ir


def test_large_callee_with_products_reductions_views_and_several_results():
    @kiln.function(autograph=False)
    def layer(x, w):
        h = x @ w
        for _ in range(5):
            h = np.tanh(h * 0.9 + 0.1) - h * 0.2 + 0.05
        return h, h.sum(axis=0), np.max(h), h.shape[0]

    @kiln.function
    def outer(x, w):
        a, col, top, n = layer(x, w)
        b, col2, top2, _ = layer(x.T @ a, w.T)  # a product of a transposed view, as an argument
        c, _, _, _ = layer(x[::2], w)  # a strided view, as an argument
        return b * top + col2 * n, col + top2, c

    rng = np.random.default_rng(5)
    x, w = rng.random((4, 4)), rng.random((4, 4)) * 0.5
    _check(outer, x, w, rtol=1e-10)
    assert "static void layer_call0" in outer.get_concrete_function(x, w).source


def test_python_float_arguments_key_by_their_value_signed_zero_included():
    @kiln.function
    def divide(x, s):
        return x / s

    @kiln.function
    def outer(x):
        return divide(x, 0.0), divide(x, -0.0), divide(x, 2.0)

    x = np.array([1.0, -1.0])
    with np.errstate(divide="ignore"):
        got = outer(x)
        want = (x / 0.0, x / -0.0, x / 2.0)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert _callees(outer, x) == 3


def test_numpy_scalar_and_nan_constants_key_as_at_the_top_level():
    """A callee's constants are keyed by ``signature.constant_key``, as a top-level call's are: a
    NumPy -0.0 is not its 0.0, and every NaN is one key (one trace for both NaNs here)."""

    @kiln.function
    def divide(x, s):
        return x / s

    @kiln.function
    def outer(x):
        return (divide(x, np.float64(0.0)), divide(x, np.float64(-0.0)), divide(x, float("nan")),
                divide(x, float("nan")))

    x = np.array([1.0, -1.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        got = outer(x)
        want = (x / np.float64(0.0), x / np.float64(-0.0), x / np.nan, x / np.nan)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert _callees(outer, x) == 3


class _Config:
    """A hashable argument with equality by value (a top-level call keys it by value)."""

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Config) and other.scale == self.scale

    def __hash__(self) -> int:
        return hash(self.scale)


def test_equal_hashable_arguments_share_a_callee_as_at_the_top_level():
    """The callee's key is built by the top-level cache's ``leaf_key``: two equal hashable objects
    (not two identities) are one signature."""
    runs: list[float] = []

    @kiln.function
    def scaled(x, config):
        runs.append(config.scale)
        return x * config.scale

    @kiln.function
    def outer(x):
        return scaled(x, _Config(2.0)) + scaled(x, _Config(2.0)) + scaled(x, _Config(3.0))

    x = np.arange(3.0)
    got = outer(x)
    assert sorted(runs) == [2.0, 3.0]
    assert _callees(outer, x) == 2
    np.testing.assert_allclose(got, outer.python_function(x))


def test_gradient_tape_records_through_shared_calls():
    @kiln.function
    def small(x):
        return np.sin(x) * x

    @kiln.function
    def outer(x):
        with kiln.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(_kept(small(x)) + small(x * 2))
        return tape.gradient(y, x)

    x = np.linspace(-0.5, 0.5, 4)
    got = outer(x)

    def loss(v):
        return np.sum(_long_chain(np.sin(v) * v) + np.sin(2 * v) * 2 * v)

    eps = 1e-6
    numeric = np.array([(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps) for e in np.eye(4)])
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-9)
    assert "static void _long_chain_call0" in outer.get_concrete_function(x).source


def test_callee_with_a_native_entry_is_still_traced_into_its_caller():
    """A callee already called at the top level keeps native entries for its calls (positional,
    keyword, list); called inside another function's trace it is traced into it all the same, not
    run at trace time: it reads a Variable when the caller runs (the hot path ran it at trace time,
    baking in the Variable's value then)."""
    v = kiln.Variable(np.ones(2))

    @kiln.function
    def scaled(x):
        return x * v

    @kiln.function
    def scaled_by(x, k=1.0):
        return x * v * k

    @kiln.function
    def summed(xs):
        return (xs[0] + xs[1]) * v

    a = np.ones(2)
    for _ in range(2):
        scaled(a), scaled_by(a, k=2.0), summed([a, a])
    assert scaled._last_entry is not None and scaled_by._last_keywords is not None and summed._last_entry is not None

    @kiln.function
    def caller(y):
        return y + scaled(a) + scaled_by(a, k=2.0) + summed([a, a])

    np.testing.assert_array_equal(caller(np.zeros(2)), np.full(2, 5.0))
    v.assign(np.full(2, 10.0))
    np.testing.assert_array_equal(caller(np.zeros(2)), np.full(2, 50.0))
    with _eagerly():
        np.testing.assert_array_equal(caller(np.zeros(2)), np.full(2, 50.0))


class _Scaler:
    def __init__(self) -> None:
        self.v = kiln.Variable(np.ones(2))

    @kiln.function
    def scale(self, x):
        return x * self.v.read_value()


def test_method_with_a_native_entry_is_still_traced_into_its_caller():
    """The same for a decorated method's per-instance entry: traced into the caller, its Variable
    read when the caller runs."""
    m, a = _Scaler(), np.ones(2)
    for _ in range(2):
        m.scale(a)
    assert id(m) in _Scaler.scale._method_entries

    @kiln.function
    def caller(y):
        return y + m.scale(a)

    np.testing.assert_array_equal(caller(np.zeros(2)), np.ones(2))
    m.v.assign(np.full(2, 10.0))
    np.testing.assert_array_equal(caller(np.zeros(2)), np.full(2, 10.0))
