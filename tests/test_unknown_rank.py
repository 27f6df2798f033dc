"""input_signature with kiln.TensorSpec(shape=None): one trace and one compiled function for every rank.

The argument is traced as its flattened data; elementwise ops and full reductions work on it,
results come back in the argument's shape, and ops that need the rank fail at trace time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

ANY = kiln.TensorSpec(shape=None, dtype="float32")
RANK_UNKNOWN = r"needs the rank of a tensor derived from argument `x`, whose rank is unknown under kiln.TensorSpec\(shape=None\)"

VALUES = (
    np.float32(3),
    np.arange(5, dtype=np.float32),
    np.arange(6, dtype=np.float32).reshape(2, 3) - 2,
    np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4),
    np.ones((0,), np.float32),
    np.ones((2, 0, 3), np.float32),
)


def any_rank(n: int = 1) -> Callable[[Callable[..., Any]], kiln.Function]:
    return kiln.function(input_signature=[ANY] * n)


def test_one_trace_runs_every_rank_and_int32_is_refused() -> None:
    @any_rank()
    def f(x):
        return x * 2.0 + 1.0

    for x in VALUES:
        got = f(x)
        assert isinstance(got, np.ndarray) and got.shape == np.shape(x) and got.dtype == np.float32
        np.testing.assert_array_equal(got, x * 2 + 1)
    t = np.arange(6, dtype=np.float32).reshape(2, 3).T  # not C-contiguous: copied, then flattened
    np.testing.assert_array_equal(f(t), t * 2 + 1)
    assert f.tracing_count == 1
    assert "tensor<?xf32>" in f.get_concrete_function().ir
    with pytest.raises(TypeError, match=r"argument 0 \(`x`\).*dtype int32 is not float32"):
        f(np.ones(3, np.int32))


def test_elementwise_chains_where_casts_and_kiln_ops() -> None:
    @any_rank()
    def f(x):
        y = np.where(x > 0.5, np.exp(-x) * 3.0, kiln.relu(x) - 1.0)
        z = kiln.sigmoid(np.abs(y)) + np.float32(2) ** 2 + np.asarray(0.5, np.float32)
        return z, (x >= 0).astype(np.int32), np.maximum(x, 0.0) == 0.0

    for x in VALUES:
        z, n, m = f(x)
        y = np.where(x > 0.5, np.exp(-x) * 3, np.maximum(x, 0) - 1)
        np.testing.assert_allclose(z, 1 / (1 + np.exp(-np.abs(y))) + 4.5, rtol=1e-6)
        np.testing.assert_array_equal(n, (x >= 0).astype(np.int32))
        np.testing.assert_array_equal(m, np.maximum(x, 0) == 0)
        assert z.shape == n.shape == m.shape == np.shape(x)
    assert f.tracing_count == 1


def test_full_reductions_are_0d() -> None:
    @any_rank()
    def f(x):
        return x.sum(), np.mean(x), kiln.reduce_max(x), np.min(x), x - x.mean()

    for x in VALUES[:4]:
        s, m, hi, lo, centered = f(x)
        assert s.shape == m.shape == hi.shape == lo.shape == ()
        np.testing.assert_allclose([s, m, hi, lo], [x.sum(), x.mean(), x.max(), x.min()], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(centered, x - x.mean(), rtol=1e-5, atol=1e-6)
    s, m, _, _, centered = f(np.ones((2, 0), np.float32))
    assert s == 0 and np.isnan(m) and centered.shape == (2, 0)
    assert f.tracing_count == 1


def test_reshapes_of_the_flattened_data() -> None:
    @any_rank()
    def f(x):
        return x.ravel() * 2.0, np.reshape(x, (2, -1))

    flat, rows = f(np.arange(6, dtype=np.float32).reshape(3, 2))
    np.testing.assert_array_equal(flat, np.arange(6) * 2.0)
    np.testing.assert_array_equal(rows, np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match="a reshape keeps the number of elements"):
        f(np.float32(1))
    assert f.tracing_count == 1


def test_two_arguments_of_one_shape() -> None:
    @any_rank(2)
    def f(x, y):
        return x * y + 1.0, y

    for x in VALUES[:4]:
        y = np.full(np.shape(x), 2, np.float32)
        got, same = f(x, y)
        np.testing.assert_array_equal(got, x * y + 1)
        np.testing.assert_array_equal(same, y)
    with pytest.raises(ValueError, match=r"`x` has shape \(2, 3\) but `y` has shape \(3, 2\).*must have the same shape"):
        f(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match=r"`x` has shape \(\) but `y` has shape \(1,\)"):
        f(np.float32(1), np.ones(1, np.float32))
    assert f.tracing_count == 1


def test_arguments_that_never_meet_may_differ() -> None:
    @any_rank(2)
    def f(x, y):
        return -x, y + 1.0

    a, b = f(np.ones((2, 3), np.float32), np.float32(4))
    assert a.shape == (2, 3) and b.shape == () and b == 5
    assert f.tracing_count == 1


def test_staged_loop_and_cond_carry_the_unknown_rank() -> None:
    @any_rank()
    def f(x):
        y = x
        for _ in kiln.range(3):
            y = y * 2.0 + 1.0
        if y.sum() > 0:
            y = y - 1.0
        else:
            y = -y
        return y

    def want(x: np.ndarray) -> np.ndarray:
        y = x * 8 + 7
        return y - 1 if y.sum() > 0 else -y

    for x in VALUES[:4]:
        got = f(x)
        assert got.shape == np.shape(x)
        np.testing.assert_allclose(got, want(x), rtol=1e-6)
    np.testing.assert_allclose(f(np.float32(-5)), want(np.float32(-5)))
    assert f.tracing_count == 1
    assert "graph.while" in f.get_concrete_function().ir and "graph.cond" in f.get_concrete_function().ir


def test_a_loop_that_flattens_a_carried_tensor_is_refused() -> None:
    @any_rank()
    def f(x):
        for _ in kiln.range(3):
            x = x.ravel()
        return x

    with pytest.raises(TypeError, match="a loop-carried tensor of unknown rank must stay one"):
        f(np.ones(2, np.float32))


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (lambda x: x @ x, "matmul"),
        (lambda x: x.T, "transpose"),
        (lambda x: x.sum(axis=0), r"np.sum\(..., axis=0\)"),
        (lambda x: x.max(keepdims=True), r"np.max\(..., keepdims=True\)"),
        (lambda x: x[0], "indexing"),
        (lambda x: x + np.ones(3, np.float32), r"np.add with an operand of shape \(3,\)"),
        (lambda x: np.concatenate([x, x]), "concatenate"),
        (lambda x: np.expand_dims(x, 0), "np.expand_dims"),
        (lambda x: np.zeros_like(x), "np.ones_like"),
        (lambda x: len(x), r"len\(\)"),
        (lambda x: kiln.print(x), "kiln.print"),
    ],
)
def test_ops_that_need_the_rank_say_so(body: Callable[[Any], Any], what: str) -> None:
    f = kiln.function(input_signature=[ANY])(body)
    with pytest.raises(TypeError, match=rf"{what} {RANK_UNKNOWN}.*kiln.TensorSpec\(\[None\]\)"):
        f(np.ones(3, np.float32))


def test_shape_and_ndim_are_none_and_reading_them_is_explained() -> None:
    seen: list[Any] = []

    @any_rank()
    def f(x):
        seen.append((x.shape, x.ndim, repr(x)))
        return x

    f(np.ones(2, np.float32))
    assert seen == [(None, None, "Tensor(shape=<unknown rank>, dtype=float32)")]

    @any_rank()
    def g(x):
        return x * x.shape[0]

    with pytest.raises(TypeError, match="not subscriptable") as info:
        g(np.ones(2, np.float32))
    assert any("`x` has unknown rank" in note for note in info.value.__notes__)


def test_condition_of_unknown_rank_is_refused() -> None:
    @any_rank()
    def f(x):
        if x > 0:
            x = x + 1.0
        return x

    with pytest.raises(TypeError, match=r"the condition of this `if` needs the rank"):
        f(np.ones(2, np.float32))
