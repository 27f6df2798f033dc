"""Python's ``max``/``min`` of a generator and ``any``/``all`` of traced values, in converted code:
the same values and Python types as the function run eagerly on NumPy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln


def max_of_generator(x: np.ndarray) -> Any:
    return max(x[i] for i in range(3))


def min_of_generator(x: np.ndarray) -> Any:
    return min(x[i] * 2 for i in range(1, 3))


def any_of_array(x: np.ndarray) -> Any:
    return any(x > 4), any(x > 9)


def all_of_array(x: np.ndarray) -> Any:
    return all(x > 0), all(x > 2)


def any_all_of_generator(x: np.ndarray) -> Any:
    return any(x[i] > 4 for i in range(3)), all(x[i] > 2 for i in range(3)), any([False, x[0] > 0])


def branch_on_all(x: np.ndarray) -> Any:
    if all(v >= 1 for v in (x[0], x[1])):
        return x * 2
    return x


@pytest.mark.parametrize(
    "fn", [max_of_generator, min_of_generator, any_of_array, all_of_array, any_all_of_generator, branch_on_all]
)
def test_builtins_of_traced_values(fn: Callable[..., Any]) -> None:
    for x in (np.array([1.0, 5.0, 3.0]), np.array([-1.0, 0.5, 7.0])):
        got, want = kiln.function(fn)(x.copy()), fn(x.copy())
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert type(g) is type(w) and np.array_equal(g, w), (fn.__name__, x, got, want)


def test_any_of_rows_is_ambiguous_as_in_numpy() -> None:
    with pytest.raises(ValueError, match=r"any\(\) of a tensor of shape \(2, 2\).*np.any"):
        kiln.function(lambda x: any(x))(np.ones((2, 2)))


def filtered_tensors(x: np.ndarray) -> Any:
    return list(filter(None, [x[0], x[1]]))[0]


def test_a_builtin_asking_for_a_truth_value_in_converted_code_is_named() -> None:
    """filter(None, ...) asks each traced number's truth value (sorted() and sorted(key=) order traced
    numbers since 66e8b50 and edf06ca): the message says the call needs a truth value, not that the
    (converted) function is not converted."""
    with pytest.raises(TypeError, match=r"test_builtin_folds.py:\d+:\d+: a call here needs the truth value") as info:
        kiln.function(filtered_tensors)(np.array([2.0, 1.0]))
    assert "not converted" not in str(info.value)
