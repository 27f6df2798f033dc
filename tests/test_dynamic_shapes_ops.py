"""reshape and concat over dynamic (``None``) dimensions, checked against NumPy for several sizes
with one compiled function each."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln


def spec(*shape: int | None, dtype: str = "float32") -> kiln.TensorSpec:
    return kiln.TensorSpec(list(shape), dtype)


def check(fn: Callable[..., Any], specs: list[kiln.TensorSpec], *cases: tuple[np.ndarray, ...]) -> None:
    """``fn`` compiled once for ``specs`` gives NumPy's results (values and shapes) on every case."""
    compiled = kiln.function(fn, input_signature=specs)
    for args in cases:
        want, got = fn(*args), compiled(*args)
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g, w)
    assert compiled.tracing_count == 1


def rows(n: int, cols: int = 4) -> np.ndarray:
    return np.arange(n * cols, dtype=np.float32).reshape(n, cols)


def test_reshape_flattens_a_dynamic_dimension() -> None:
    check(lambda x: (x.reshape(-1), x.ravel() * 2.0), [spec(None, 4)], (rows(0),), (rows(1),), (rows(5),))


def test_reshape_infers_the_dynamic_dimension() -> None:
    def f(x):
        return x.reshape(-1, 2), x.reshape(2, -1), x.reshape(-1, 2, 2) + 1.0

    check(f, [spec(None, 4)], (rows(2),), (rows(6),))


def test_reshape_of_a_dynamic_vector() -> None:
    check(lambda v: v.reshape(-1, 3).sum(axis=1), [spec(None)], (np.arange(0, dtype=np.float32),),
          (np.arange(12, dtype=np.float32),))


def test_reshape_to_a_static_shape() -> None:
    check(lambda x: x.reshape(2, 4), [spec(None, 4)], (rows(2),))


def test_reshape_with_a_wrong_count_raises_before_running() -> None:
    f = kiln.function(lambda v: v.reshape(-1, 3), input_signature=[spec(None)])
    with pytest.raises(ValueError, match="a reshape keeps the number of elements"):
        f(np.arange(7, dtype=np.float32))
    g = kiln.function(lambda x: x.reshape(2, 4), input_signature=[spec(None, 4)])
    with pytest.raises(ValueError, match="a reshape keeps the number of elements"):
        g(rows(3))


def test_concat_along_a_dynamic_axis() -> None:
    def f(x, y):
        return np.concatenate([x, y, x], axis=0), kiln.concat([y, x * 2.0], 0)

    check(f, [spec(None, 4), spec(None, 4)], (rows(0), rows(3)), (rows(2), rows(1)), (rows(5), rows(0)))


def test_concat_with_a_static_operand() -> None:
    check(lambda x: np.concatenate([x, np.ones((2, 4), np.float32)]), [spec(None, 4)], (rows(0),), (rows(3),))


def test_concat_across_a_dynamic_dimension() -> None:
    def f(x, y):
        return np.concatenate([x, y], axis=1), np.concatenate([x, y], axis=None)

    check(f, [spec(None, 4), spec(None, 3)], (rows(2), rows(2, 3)), (rows(0), rows(0, 3)))


def test_concat_of_dynamic_vectors_of_ints() -> None:
    a = np.arange(5, dtype=np.int32)
    check(lambda x, y: np.concatenate([x, y]), [spec(None, dtype="int32"), spec(None, dtype="int32")],
          (a, a[:2]), (a[:0], a))
