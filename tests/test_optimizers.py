"""kiln.optimizers: SGD (momentum, Nesterov) and Adam against the Keras formulas written in
NumPy, compiled inside a kiln.function training step and eagerly; the learning rate is state."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import kiln

RNG = np.random.default_rng(7)
X, Y = RNG.normal(size=(16, 3)), RNG.normal(size=(16, 2))
W0, B0 = RNG.normal(size=(3, 2)), RNG.normal(size=(2,))


def _grads(w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d/dw, d/db of mean((tanh(x @ w + b) - y)^2), by hand."""
    z = np.tanh(X @ w + b)
    dz = 2 * (z - Y) / z.size * (1 - z * z)
    return X.T @ dz, dz.sum(axis=0)


def _sgd_reference(steps: int, lr: float, momentum: float, nesterov: bool) -> list[np.ndarray]:
    w, b = W0.copy(), B0.copy()
    mw, mb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(steps):
        gw, gb = _grads(w, b)
        if momentum == 0:
            w, b = w - lr * gw, b - lr * gb
            continue
        mw, mb = momentum * mw - lr * gw, momentum * mb - lr * gb
        if nesterov:
            w, b = w + momentum * mw - lr * gw, b + momentum * mb - lr * gb
        else:
            w, b = w + mw, b + mb
    return [w, b]


def _adam_reference(steps: int, lr: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-7) -> list[np.ndarray]:
    params = [W0.copy(), B0.copy()]
    m = [np.zeros_like(p) for p in params]
    s = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        grads = _grads(*params)
        for i, g in enumerate(grads):
            m[i] = b1 * m[i] + (1 - b1) * g
            s[i] = b2 * s[i] + (1 - b2) * g * g
            params[i] = params[i] - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m[i] / (np.sqrt(s[i]) + eps)
    return params


def _train(opt: Any, steps: int, compiled: bool) -> list[np.ndarray]:
    w, b = kiln.Variable(W0), kiln.Variable(B0)

    def step(x: np.ndarray, y: np.ndarray) -> Any:
        with kiln.GradientTape() as tape:
            loss = np.mean((np.tanh(x @ w + b) - y) ** 2)
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        return loss

    run = kiln.function(step) if compiled else step
    for _ in range(steps):
        run(X, Y)
    if compiled:
        assert run.tracing_count == 1
    return [w.numpy(), b.numpy()]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "eager"])
@pytest.mark.parametrize(("momentum", "nesterov"), [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd(compiled: bool, momentum: float, nesterov: bool) -> None:
    got = _train(kiln.optimizers.SGD(0.1, momentum=momentum, nesterov=nesterov), 5, compiled)
    for g, want in zip(got, _sgd_reference(5, 0.1, momentum, nesterov), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "eager"])
def test_adam(compiled: bool) -> None:
    opt = kiln.optimizers.Adam(0.05)
    got = _train(opt, 6, compiled)
    for g, want in zip(got, _adam_reference(6, 0.05), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
    assert int(opt.iterations.numpy()) == 6


def test_learning_rate_is_state_of_the_compiled_step() -> None:
    w = kiln.Variable(np.ones(3))
    opt = kiln.optimizers.SGD(1.0)

    @kiln.function
    def step() -> None:
        opt.apply_gradients([(np.full(3, 2.0), w)])

    step()
    opt.learning_rate = 0.25
    step()
    np.testing.assert_array_equal(w.numpy(), np.ones(3) - 2.0 - 0.5)
    assert step.tracing_count == 1


def test_float32_model_stays_float32() -> None:
    w = kiln.Variable(np.ones(4, np.float32))
    opt = kiln.optimizers.Adam()

    @kiln.function
    def step() -> Any:
        with kiln.GradientTape() as tape:
            loss = np.sum(w * w)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    step()
    assert w.dtype == np.float32
    assert opt._slots[(w, "m")].dtype == np.float32
    assert "4xf64" not in step.get_concrete_function().ir  # the f64 learning rate is cast, not the model


def test_errors() -> None:
    with pytest.raises(ValueError, match="momentum must be in"):
        kiln.optimizers.SGD(0.1, momentum=1.5)
    with pytest.raises(TypeError, match=r"\(gradient, kiln.Variable\) pairs"):
        kiln.optimizers.SGD().apply_gradients([(np.ones(2), np.ones(2))])
    with pytest.raises(ValueError, match="created while tracing"):
        kiln.function(lambda: kiln.Variable(1.0))()
