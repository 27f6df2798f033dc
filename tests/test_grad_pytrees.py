"""kiln.grad and kiln.value_and_grad over pytrees of parameters (dicts, lists, tuples, nested),
as jax.grad takes them: the gradient has the argument's structure, each leaf checked against
central finite differences in float64; leaves without a gradient are refused by their path."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree

RNG = np.random.default_rng(41)


def _fd(f: Callable[..., Any], args: tuple[Any, ...], i: int, eps: float = 1e-6) -> Any:
    """d f / d args[i] by central differences, leaf by leaf, in args[i]'s structure."""
    leaves, tree = pytree.flatten(args[i])

    def call(new_leaves: list[Any]) -> float:
        rebuilt = list(args)
        rebuilt[i] = pytree.unflatten(tree, iter(new_leaves))
        return float(f(*rebuilt))

    out = []
    for n, leaf in enumerate(leaves):
        base = np.array(leaf, dtype=np.float64)
        g = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            plus, minus = base.copy(), base.copy()
            plus[idx] += eps
            minus[idx] -= eps
            g[idx] = (call([*leaves[:n], plus, *leaves[n + 1:]]) - call([*leaves[:n], minus, *leaves[n + 1:]])) / (2 * eps)
        out.append(g)
    return pytree.unflatten(tree, iter(out))


def _assert_same_tree(got: Any, want: Any) -> None:
    """``got`` has ``want``'s structure (dict keys in order, lists as lists, tuples as tuples)
    and each leaf equals ``want``'s to finite-difference accuracy."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _assert_same_tree(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            _assert_same_tree(a, b)
    else:
        assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def mlp_loss(params: dict[str, Any], x: np.ndarray, y: np.ndarray) -> Any:
    h = np.tanh(x @ params["w1"] + params["b1"])
    return np.mean((h @ params["w2"] + params["b2"] - y) ** 2)


def _mlp() -> dict[str, Any]:
    return {"w1": RNG.uniform(-1, 1, (3, 4)), "b1": RNG.uniform(-1, 1, 4),
            "w2": RNG.uniform(-1, 1, (4, 2)), "b2": np.float64(0.25)}


def nested_loss(layers: list[Any], scale: np.ndarray) -> Any:
    (w, b), rest = layers[0], layers[1]
    return np.sum(np.sin(w * scale) + b) * rest["gain"][0] + np.sum(rest["gain"][1] ** 2)


def _nested() -> list[Any]:
    return [(RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, 3)),
            {"gain": [np.float64(1.5), RNG.uniform(-1, 1, 2)]}]


def test_dict_of_parameters() -> None:
    params, x, y = _mlp(), RNG.uniform(-1, 1, (5, 3)), RNG.uniform(-1, 1, (5, 2))
    got = kiln.grad(mlp_loss)(params, x, y)
    _assert_same_tree(got, _fd(mlp_loss, (params, x, y), 0))


def test_nested_lists_and_tuples_keep_their_structure() -> None:
    layers, scale = _nested(), RNG.uniform(0.5, 1.5, 3)
    got = kiln.grad(nested_loss)(layers, scale)
    assert isinstance(got, list) and isinstance(got[0], tuple) and isinstance(got[1]["gain"], list)
    _assert_same_tree(got, _fd(nested_loss, (layers, scale), 0))


def test_value_and_grad_with_a_plain_array_and_argnums_sequence() -> None:
    layers, scale = _nested(), RNG.uniform(0.5, 1.5, 3)
    value, (g_layers, g_scale) = kiln.value_and_grad(nested_loss, argnums=(0, 1))(layers, scale)
    np.testing.assert_allclose(value, nested_loss(layers, scale), rtol=1e-12)
    _assert_same_tree(g_layers, _fd(nested_loss, (layers, scale), 0))
    _assert_same_tree(g_scale, _fd(nested_loss, (layers, scale), 1))
    (g_first,) = kiln.grad(nested_loss, argnums=(0,))(layers, scale)
    _assert_same_tree(g_first, g_layers)


def test_two_pytree_arguments_and_negative_argnums() -> None:
    def loss(a: dict[str, Any], b: tuple[Any, ...]) -> Any:
        return np.sum(a["u"] * b[0]) + np.sum(np.exp(b[1]) * a["v"])

    a = {"v": RNG.uniform(-1, 1, 2), "u": RNG.uniform(-1, 1, 3)}  # keys not sorted: kept in order
    b = (RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 2))
    g_a, g_b = kiln.grad(loss, argnums=(0, -1))(a, b)
    _assert_same_tree(g_a, _fd(loss, (a, b), 0))
    _assert_same_tree(g_b, _fd(loss, (a, b), 1))


def test_a_list_of_python_floats_differentiates_as_in_gradient_tape() -> None:
    """A list argument's Python floats are traced numbers, which GradientTape differentiates too."""
    def loss(xs: list[float], w: np.ndarray) -> Any:
        return np.sum(w * xs[0]) * xs[1] + xs[2] ** 2

    xs, w = [0.5, 2.0, -1.5], RNG.uniform(-1, 1, 3)
    got = kiln.grad(loss)(xs, w)
    want = _fd(lambda v, w: loss(list(v), w), (np.array(xs), w), 0)
    assert isinstance(got, list) and len(got) == 3
    np.testing.assert_allclose(np.array(got, dtype=np.float64), want, rtol=1e-6, atol=1e-6)


def sum_w(params: dict[str, Any]) -> Any:
    return np.sum(params["w"])


grad_sum_w = kiln.grad(sum_w)


@pytest.mark.parametrize(("params", "path", "what"), [
    ({"w": np.ones(2), "b": [np.ones(2), np.arange(2)]}, "params['b'][1]", "an array of int64"),
    ({"w": np.ones(2), "b": (np.ones(2), np.float32(1.0), np.int32(3))}, "params['b'][2]", "an array of int32"),
    ({"w": np.ones(2), "b": [0.5, 2]}, "params['b'][1]", "a Python int"),
    ({"w": np.ones(2), "b": True}, "params['b']", "a Python bool"),
])
def test_leaves_without_a_gradient_are_refused_by_path(params: dict[str, Any], path: str, what: str) -> None:
    message = rf"test_grad_pytrees.py:\d+:\d+: kiln.grad: {re.escape(path)} \(in argument 0 of sum_w\) is {what}; gradients"
    with pytest.raises(TypeError, match=message):
        grad_sum_w(params)


def test_a_python_float_outside_a_list_is_refused_with_what_to_do() -> None:
    """As in GradientTape: a Python float in a dict is a trace-time constant, not a source."""
    with pytest.raises(TypeError, match=r"params\['b'\] \(in argument 0 of sum_w\) is a Python float; .* "
                                        r"pass np.float64\(...\), or hold the numbers in a list"):
        grad_sum_w({"w": np.ones(2), "b": 1.0})


def _training_step(params: dict[str, Any], x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    g = kiln.grad(mlp_loss)(params, x, y)
    return {k: params[k] - 0.1 * g[k] for k in g}


def test_a_training_step_calling_grad_of_a_pytree_matches_eager() -> None:
    step = kiln.function(_training_step)
    x, y = RNG.uniform(-1, 1, (5, 3)), RNG.uniform(-1, 1, (5, 2))
    params = _mlp()
    start = {k: np.copy(v) for k, v in params.items()}
    compiled = eager = params
    for _ in range(3):
        compiled = step(compiled, x, y)
        kiln.config.run_functions_eagerly(True)
        try:
            eager = step(eager, x, y)
        finally:
            kiln.config.run_functions_eagerly(False)
    assert list(compiled) == list(start)
    for k in start:
        np.testing.assert_allclose(compiled[k], eager[k], rtol=1e-12, atol=1e-12)
        assert not np.allclose(compiled[k], start[k])
    # and the eager run took real steps: the loss went down
    assert mlp_loss(eager, x, y) < mlp_loss(start, x, y)
    for k in start:  # the arguments are left as they were
        np.testing.assert_array_equal(params[k], start[k])


def test_a_plain_array_argument_is_unchanged() -> None:
    x = RNG.uniform(-1, 1, 4)
    g = kiln.grad(lambda v: np.sum(v ** 3))(x)
    assert isinstance(g, np.ndarray) and g.shape == (4,)
    np.testing.assert_allclose(g, 3 * x ** 2, rtol=1e-12)
    (g_tuple,) = kiln.grad(lambda v: np.sum(v ** 3), argnums=(0,))(x)
    np.testing.assert_array_equal(g_tuple, g)
