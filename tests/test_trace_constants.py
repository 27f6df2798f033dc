"""Small constants of a trace share one attribute per (dtype, shape, bytes) (kiln.frontend.tensor:
made once, not once per use); values of other dtypes with the same bytes stay apart."""

from __future__ import annotations

import numpy as np

import kiln
from kiln.frontend import tensor


def _constants(f: kiln.Function, *args: object) -> list[object]:
    module = f.get_concrete_function(*args)._traced.module  # noqa: SLF001
    return [op.value for op in module.walk() if op.name == "graph.constant"]


def test_a_number_written_at_every_step_is_one_attribute() -> None:
    @kiln.function
    def f(x):
        x = x * 0.5 + 0.25
        x = x * 0.5 + 0.25
        x = x * 0.5 + 0.25
        return x

    x = np.linspace(0.0, 1.0, 8)
    values = _constants(f, x)
    assert len(values) == 6
    assert len({id(v) for v in values}) == 2
    np.testing.assert_array_equal(f(x), f.python_function(x.copy()))


def test_a_bool_and_an_int8_of_one_byte_stay_apart() -> None:
    @kiln.function
    def f(x):
        return np.where(x > 0, np.int8(-1), np.int8(3)), (x > 0) & np.True_

    x = np.array([-1.0, 2.0])
    got, want = f(x), f.python_function(x.copy())
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    kinds = {str(v.type) for v in _constants(f, x)}
    assert {"tensor<i8>", "tensor<i1>"} <= kinds


def test_large_constants_are_not_kept() -> None:
    tensor._small_constants.clear()  # noqa: SLF001
    table = np.arange(100.0)

    @kiln.function
    def f(x):
        return x + table

    x = np.ones(100)
    np.testing.assert_array_equal(f(x), x + table)
    assert all(len(key[2]) <= 64 for key in tensor._small_constants)  # noqa: SLF001


def test_zero_and_negative_zero_fold_as_themselves() -> None:
    """Fusion folds splat constants into bodies, one attribute per value: 0.0 and -0.0 are two
    values (equal as floats), so each product keeps NumPy's sign."""
    @kiln.function
    def f(x):
        return np.tanh(x) * 0.0, np.tanh(x) * -0.0, (x + 1.0) * -0.0 + 0.0

    x = np.linspace(0.5, 1.0, 16)
    for got, want in zip(f(x), f.python_function(x.copy())):
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)
