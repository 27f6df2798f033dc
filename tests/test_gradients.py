"""Gradients: kiln.grad, kiln.value_and_grad and kiln.GradientTape (eager and traced) against
central finite differences in float64, op by op; the tape's rules (persistence, unconnected
sources, structures, variables); and errors for what has no gradient."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

RNG = np.random.default_rng(1234)


def _fd(f: Callable[..., Any], args: list[np.ndarray], i: int, eps: float = 1e-6) -> np.ndarray:
    """d sum(f) / d args[i] by central differences."""
    base = [np.array(a, dtype=np.float64) for a in args]
    out = np.zeros_like(base[i])
    for idx in np.ndindex(base[i].shape):
        plus, minus = [a.copy() for a in base], [a.copy() for a in base]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        out[idx] = (np.sum(f(*plus)) - np.sum(f(*minus))) / (2 * eps)
    return out


def _check(f: Callable[..., Any], *args: np.ndarray, argnums: tuple[int, ...] | None = None, tol: float = 1e-6) -> None:
    nums = argnums if argnums is not None else tuple(range(len(args)))
    value, grads = kiln.value_and_grad(lambda *a: np.sum(f(*a)), argnums=nums)(*args)
    np.testing.assert_allclose(value, np.sum(f(*args)), rtol=1e-12, atol=1e-12)
    for i, g in zip(nums, grads, strict=True):
        want = _fd(f, list(args), i)
        assert g.shape == np.shape(args[i]) and g.dtype == np.float64
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol, err_msg=f"argument {i}")


def _pos(*shape: int) -> np.ndarray:
    return RNG.uniform(0.5, 2.0, shape)


def _any(*shape: int) -> np.ndarray:
    return RNG.uniform(-2.0, 2.0, shape)


def _unit(*shape: int) -> np.ndarray:
    return RNG.uniform(-0.9, 0.9, shape)


UNARY: dict[str, tuple[Callable[[Any], Any], Callable[..., np.ndarray]]] = {
    "neg": (lambda x: -x, _any),
    "exp": (np.exp, _any),
    "exp2": (np.exp2, _any),
    "expm1": (np.expm1, _any),
    "log": (np.log, _pos),
    "log2": (np.log2, _pos),
    "log10": (np.log10, _pos),
    "log1p": (np.log1p, _pos),
    "sqrt": (np.sqrt, _pos),
    "cbrt": (np.cbrt, _pos),
    "tanh": (np.tanh, _any),
    "sigmoid": (kiln.sigmoid, _any),
    "sin": (np.sin, _any),
    "cos": (np.cos, _any),
    "tan": (np.tan, _unit),
    "sinh": (np.sinh, _any),
    "cosh": (np.cosh, _any),
    "arctan": (np.arctan, _any),
    "arcsinh": (np.arcsinh, _any),
    "arcsin": (np.arcsin, _unit),
    "arccos": (np.arccos, _unit),
    "arctanh": (np.arctanh, _unit),
    "arccosh": (np.arccosh, lambda *s: RNG.uniform(1.5, 3.0, s)),
    "reciprocal": (np.reciprocal, _pos),
    "abs": (np.abs, _any),
    "relu": (kiln.relu, _any),
    "square": (np.square, _any),
    "floor (zero almost everywhere)": (lambda x: np.floor(x) * x, _any),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary(name: str) -> None:
    fn, make = UNARY[name]
    _check(fn, make(3, 4))


BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[..., np.ndarray], Callable[..., np.ndarray]]] = {
    "add": (lambda x, y: x + y, _any, _any),
    "sub": (lambda x, y: x - y, _any, _any),
    "mul": (lambda x, y: x * y, _any, _any),
    "div": (lambda x, y: x / y, _any, _pos),
    "pow": (lambda x, y: x**y, _pos, _any),
    "maximum": (np.maximum, _any, _any),
    "minimum": (np.minimum, _any, _any),
    "fmax": (np.fmax, _any, _any),
    "logaddexp": (np.logaddexp, _any, _any),
    "hypot": (np.hypot, _pos, _any),
    "arctan2": (np.arctan2, _any, _pos),
    "logaddexp2": (np.logaddexp2, _any, _any),
    "copysign": (np.copysign, _any, _any),
    "mod": (lambda x, y: np.mod(x * 3.0, y) * x, _pos, _pos),
    "fmod": (lambda x, y: np.fmod(x * 3.0, y) * x, _any, _pos),
    "floor_divide (zero almost everywhere)": (lambda x, y: np.floor_divide(x * 3.0, y) * x, _any, _pos),
    "where": (lambda x, y: np.where(x > y, x * x, y), _any, _any),
}


@pytest.mark.parametrize("name", list(BINARY))
def test_binary(name: str) -> None:
    fn, mx, my = BINARY[name]
    _check(fn, mx(3, 4), my(3, 4))


def test_broadcasting_sums_the_gradient_back() -> None:
    _check(lambda x, y, z: x * y + z, _any(2, 3, 4), _any(3, 1), _any(4))


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("sum", lambda x: np.sum(x * x, axis=1)),
        ("sum keepdims", lambda x: np.sum(x, axis=0, keepdims=True) * x),
        ("mean", lambda x: np.mean(x * x, axis=(0, 2))),
        ("max", lambda x: np.max(x, axis=1)),
        ("min", lambda x: np.min(x * x, axis=0)),
        ("prod", lambda x: np.prod(x, axis=1)),
        ("reshape", lambda x: np.reshape(x, (4, 6)) @ np.arange(6.0)),
        ("transpose", lambda x: np.transpose(x, (2, 0, 1)) * np.arange(3.0)[None, None, :]),
        ("slice", lambda x: x[:, 1:3, ::2] * 3.0),
        ("concat", lambda x: np.concatenate([x, x * x], axis=1)),
    ],
)
def test_shape_and_reduction_ops(name: str, fn: Callable[[Any], Any]) -> None:
    _check(fn, _any(2, 3, 4))


def test_cast_passes_the_gradient_through_in_the_source_type() -> None:
    """Differences in float32 are too coarse for this check: the derivative is exactly 2."""
    g = kiln.grad(lambda x: np.sum((x.astype(np.float32) * 2).astype(np.float64)))(_any(2, 3))
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g, np.full((2, 3), 2.0))


def test_max_shares_the_gradient_among_ties() -> None:
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]])
    (g,) = kiln.grad(lambda x: np.sum(np.max(x, axis=1)), argnums=(0,))(x)
    np.testing.assert_array_equal(g, [[0, 0.5, 0.5], [1, 0, 0]])


@pytest.mark.parametrize(
    ("a", "b"),
    [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5))],
)
def test_matmul(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    _check(lambda x, y: x @ y, _any(*a), _any(*b))


def test_in_place_writes() -> None:
    def f(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        z = x * 1.0
        z[1] = y[0] * y[1]
        z[:, 0] += y[2, :3]
        return z * z

    _check(f, _any(3, 4), _any(3, 4))


def test_a_small_network() -> None:
    def loss(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, x: np.ndarray) -> np.ndarray:
        h = np.tanh(x @ w1 + b1)
        logits = h @ w2
        z = logits - np.max(logits, axis=1, keepdims=True)
        return -np.mean(z[:, 0] - np.log(np.sum(np.exp(z), axis=1)))

    _check(loss, _any(5, 4), _any(4), _any(4, 3), _any(6, 5), argnums=(0, 1, 2))


# --------------------------------------------------------------------------- the API


def test_seed_tape_example_eagerly_and_compiled() -> None:
    w = kiln.Variable([[1.0]])
    with kiln.GradientTape() as tape:
        loss = w * w + 2.0 * w + 5.0
    np.testing.assert_array_equal(tape.gradient(loss, w), [[4.0]])

    @kiln.function
    def step() -> Any:
        with kiln.GradientTape() as tape:
            loss = w * w + 2.0 * w + 5.0
        return tape.gradient(loss, w)

    np.testing.assert_array_equal(step(), [[4.0]])


def test_grad_of_a_python_float_and_of_a_kiln_function() -> None:
    assert kiln.grad(np.tanh)(1.0) == pytest.approx(1 - np.tanh(1.0) ** 2, abs=1e-15)
    f = kiln.function(lambda x: np.sum(np.sin(x)))
    g = kiln.grad(f)
    assert isinstance(g, kiln.Function)
    x = _any(5)
    np.testing.assert_allclose(g(x), np.cos(x), rtol=1e-15)
    g(x)
    assert g.tracing_count == 1


def test_training_step_with_variables_compiled_and_eager() -> None:
    x, y = _any(8, 3), _any(8, 2)
    w0, b0 = _any(3, 2), _any(2)
    w, b = kiln.Variable(w0), kiln.Variable(b0)

    def loss_of(w_: np.ndarray, b_: np.ndarray) -> np.ndarray:
        return np.mean((np.tanh(x @ w_ + b_) - y) ** 2)

    want_w, want_b = _fd(loss_of, [w0, b0], 0), _fd(loss_of, [w0, b0], 1)

    @kiln.function
    def step(x: np.ndarray, y: np.ndarray) -> Any:
        with kiln.GradientTape() as tape:
            loss = np.mean((np.tanh(x @ w + b) - y) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        return loss, gw, gb

    loss, gw, gb = step(x, y)
    np.testing.assert_allclose(gw, want_w, atol=1e-7)
    np.testing.assert_allclose(gb, want_b, atol=1e-7)
    np.testing.assert_allclose(w.numpy(), w0 - 0.5 * gw, rtol=1e-15)
    w.assign(w0)
    b.assign(b0)
    with kiln.GradientTape() as tape:
        loss = np.mean((np.tanh(x @ w + b) - y) ** 2)
    ew, eb = tape.gradient(loss, (w, b))
    np.testing.assert_allclose(ew, want_w, atol=1e-7)
    np.testing.assert_allclose(eb, want_b, atol=1e-7)


def test_tape_rules() -> None:
    v, unused = kiln.Variable(np.array([1.0, 2.0])), kiln.Variable(np.ones(3))
    with kiln.GradientTape(persistent=True) as tape:
        y = v * v  # not a scalar: summed
    assert tape.gradient(y, {"v": v, "u": unused}) == {"v": pytest.approx([2.0, 4.0]), "u": None}
    zeros = tape.gradient(y, [unused], unconnected_gradients="zero")
    np.testing.assert_array_equal(zeros[0], np.zeros(3))
    with kiln.GradientTape() as once:
        y = v * 3.0
    once.gradient(y, v)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        once.gradient(y, v)


def test_watch_inside_a_function_and_refused_eagerly() -> None:
    @kiln.function
    def f(x: np.ndarray) -> Any:
        with kiln.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(np.exp(x))
        return tape.gradient(y, x)

    x = _any(4)
    np.testing.assert_allclose(f(x), np.exp(x), rtol=1e-15)
    with kiln.GradientTape() as tape, pytest.raises(NotImplementedError, match="cannot be recorded eagerly"):
        tape.watch(x)


def test_eager_tape_refuses_what_it_cannot_follow() -> None:
    v = kiln.Variable(np.ones(3))
    with kiln.GradientTape():
        y = v * 2.0
        with pytest.raises(NotImplementedError, match="cannot follow this array"):
            y += 1.0


def test_errors() -> None:
    with pytest.raises(TypeError, match="must return a float scalar"):
        kiln.grad(lambda x: x * 2.0)(_any(3))
    with pytest.raises(TypeError, match="gradients are taken with respect to float arrays"):
        kiln.grad(lambda x: np.sum(x * 2.0))(np.arange(3))
    with pytest.raises(NotImplementedError, match=r"test_gradients.py:\d+:\d+: np.maximum.accumulate has no gradient"):
        kiln.grad(lambda x: np.sum(np.maximum.accumulate(x) * x))(_any(3))
    with pytest.raises(NotImplementedError, match=r"test_gradients.py:\d+:\d+: np.cumprod \(np.multiply.accumulate\) has no"):
        kiln.grad(lambda x: np.sum(np.cumprod(x)))(_any(3))


def gradients_with_a_none(x: np.ndarray, y: np.ndarray) -> list[Any]:
    with kiln.GradientTape() as tape:
        tape.watch([x, y])
        loss = np.sum(x * 2.0)
    return tape.gradient(loss, [x, y])  # y's is None: loss does not depend on it


def test_a_none_gradient_in_a_result_is_returned_as_none() -> None:
    """A tape's None gradient (of a source the target does not depend on) comes back as Python's does."""
    x, y = _any(3), _any(3)
    got = kiln.function(gradients_with_a_none)(x, y)
    assert len(got) == 2 and got[1] is None
    np.testing.assert_array_equal(got[0], np.full(3, 2.0))


W_LOOP = kiln.Variable(np.array([0.5, -1.0, 2.0]))


def descend(x: np.ndarray, n: Any) -> np.ndarray:
    losses = np.zeros(5)
    for step in range(n):
        with kiln.GradientTape() as tape:
            loss = np.sum((x * W_LOOP - 1.0) ** 2)
        W_LOOP.assign_sub(0.1 * tape.gradient(loss, W_LOOP))
        losses[step] = loss
    return losses


def test_a_tape_in_a_staged_loop() -> None:
    """`with kiln.GradientTape()` in a loop body is staged (the loop is not unrolled): entering and
    leaving the tape act only while tracing."""
    x = np.array([1.0, 2.0, 0.5])
    w = W_LOOP.numpy()
    want = np.zeros(5)
    for step in range(5):
        want[step] = np.sum((x * w - 1.0) ** 2)
        w = w - 0.1 * 2 * (x * w - 1.0) * x
    import warnings

    from kiln.frontend.autograph.staging import KilnUnrollWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnUnrollWarning)  # the loop must not be unrolled
        got = kiln.function(descend)(x, np.int64(5))
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_allclose(W_LOOP.numpy(), w, rtol=1e-14)


IDX = np.array([2, 0, 2, 1])


def gathers(x: np.ndarray) -> np.ndarray:
    return x[IDX] * x[IDX[::-1]]


def scatters(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    y = x * 1.0
    y[IDX] = v * v  # position 2 written twice: the last write wins
    return y * x


def scatter_adds(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    y = x * 2.0
    np.add.at(y, IDX, v * x[0])
    return y * y


def traced_rows(x: np.ndarray, v: np.ndarray, i: Any) -> np.ndarray:
    y = x * 1.0
    y[i] = v * x[i - 1]
    return y * y


@pytest.mark.parametrize(
    ("fn", "shapes"),
    [(gathers, [(3, 2)]), (scatters, [(3, 2), (4, 2)]), (scatter_adds, [(3, 2), (4, 2)]),
     (lambda x: np.cumsum(x * x, axis=1), [(3, 4)])],
    ids=["gather", "scatter set", "scatter add", "cumsum"],
)
def test_indexing_and_scans(fn: Callable[..., Any], shapes: list[tuple[int, ...]]) -> None:
    _check(fn, *(_any(*s) for s in shapes))


@pytest.mark.parametrize(
    "fn",
    [lambda x: np.sort(x[0]) * np.arange(4.0), lambda x: np.sort(x, axis=1) * x, lambda x: np.sort(x, axis=0) ** 2,
     lambda x: np.sort(x, axis=None) * np.arange(12.0), lambda x: np.median(x, axis=1), lambda x: np.percentile(x, 30.0)],
    ids=["1-d", "rows", "columns", "flat", "median", "percentile"],
)
def test_sorts_pass_each_element_its_gradient_back(fn: Callable[..., Any]) -> None:
    """np.sort had no gradient: each sorted element's goes back to where it came from (the stable
    argsort's position), so medians and percentiles have gradients too."""
    _check(fn, _any(3, 4))


def test_rows_at_a_traced_index() -> None:
    x, v = _any(4, 3), _any(3)
    g = kiln.grad(lambda x, v, i: np.sum(traced_rows(x, v, i)), argnums=(0, 1))(x, v, np.int64(2))
    for k, got in enumerate(g):
        want = _fd(lambda x, v: traced_rows(x, v, 2), [x, v], k)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("strides", "padding"), [((1, 1), "VALID"), ((2, 1), "SAME"), ((2, 2), "VALID"), ((1, 2), "SAME")])
def test_conv2d(strides: tuple[int, int], padding: str) -> None:
    _check(lambda x, w: np.tanh(kiln.conv2d(x, w, strides=strides, padding=padding)), _any(2, 5, 6, 3), _any(3, 2, 3, 4))


W_INSIDE = kiln.Variable(np.array([0.9, 1.1]))


def variable_read_in_a_loop(x: np.ndarray, n: Any) -> Any:
    with kiln.GradientTape() as tape:
        s = x * 1.0
        for _ in range(n):
            s = s * W_INSIDE
        loss = np.sum(s)
    return tape.gradient(loss, W_INSIDE)


def variable_read_before_the_loop(x: np.ndarray, n: Any) -> Any:
    with kiln.GradientTape() as tape:
        w = W_INSIDE.read_value()
        tape.watch(w)
        s = x * 1.0
        for _ in range(n):
            s = s * w
        loss = np.sum(s)
    return tape.gradient(loss, w)


def test_a_variable_read_inside_a_staged_loop() -> None:
    """Its reads there are not the tape's sources: refused (it returned None, silently), and the
    workaround the message gives is differentiated through the loop."""
    x = np.array([1.0, 2.0])
    with pytest.raises(NotImplementedError, match=r"test_gradients.py:\d+:\d+: GradientTape.gradient with respect to a "
                                                  r"variable read inside a staged loop"):
        kiln.function(variable_read_in_a_loop)(x, np.int64(3))
    got = kiln.function(variable_read_before_the_loop)(x, np.int64(3))
    w = W_INSIDE.numpy()
    np.testing.assert_allclose(got, 3 * x * w**2, rtol=1e-14)


def test_grad_under_run_functions_eagerly() -> None:
    kiln.config.run_functions_eagerly(True)
    try:
        g = kiln.grad(lambda x: np.sum(np.sin(x)))(np.array([0.0, 1.0]))
    finally:
        kiln.config.run_functions_eagerly(False)
    np.testing.assert_allclose(g, np.cos([0.0, 1.0]), rtol=1e-15)
