"""NumPy functions that return a new array return a new array in kiln too, and those that return
a view (or the operand itself) do so in kiln: a write to the result must show in the operand
exactly when it does in NumPy. Each case runs eagerly and compiled (test_mutation's check), the
results and the argument compared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from test_mutation import check


def _write(y: Any, x: Any) -> Any:
    y[0] = -5
    return y, x


CASES: dict[str, Callable[[Any], Any]] = {
    "astype same dtype copies": lambda x: _write(x.astype(x.dtype), x),
    "astype(copy=False) is the array": lambda x: _write(x.astype(x.dtype, copy=False), x),
    "unary plus copies": lambda x: _write(+x, x),
    "np.positive copies": lambda x: _write(np.positive(x), x),
    "np.conj of reals copies": lambda x: _write(np.conj(x), x),
    "x.conj() of reals is x": lambda x: _write(x.conj(), x),
    "np.pad by nothing copies": lambda x: _write(np.pad(x, 0), x),
    "np.flip is a view": lambda x: _write(np.flip(x), x),
    "np.flip twice is a view": lambda x: _write(np.flip(np.flip(x)), x),
    "np.fliplr is a view": lambda x: _write(np.fliplr(x.reshape(2, 3))[0], x),
    "np.nan_to_num copies": lambda x: _write(np.nan_to_num(x), x),
    "np.nan_to_num(copy=False) writes in place": lambda x: _write(np.nan_to_num(x, copy=False), x),
    "np.nan_to_num of ints copies": lambda x: _write(np.nan_to_num(x.astype(np.int64)), x),
    "np.roll by a whole turn copies": lambda x: _write(np.roll(x, 6), x),
    "np.concatenate of one copies": lambda x: _write(np.concatenate([x]), x),
    "np.sum over no axes copies": lambda x: _write(np.sum(x, axis=()), x),
    "np.atleast_2d is a view": lambda x: _write(np.atleast_2d(x)[0], x),
    "np.atleast_3d is a view": lambda x: _write(np.atleast_3d(x)[0, :, 0], x),
    "np.split gives views": lambda x: _write(np.split(x, 2)[1], x),
    "np.array_split gives views": lambda x: _write(np.array_split(x, 4)[1], x),
    "np.hsplit gives views": lambda x: _write(np.hsplit(x, 3)[2], x),
    "np.vsplit gives views": lambda x: _write(np.vsplit(x.reshape(2, 3), 2)[1][0], x),
    "np.einsum transposing is a view": lambda x: _write(np.einsum("ij->ji", x.reshape(2, 3))[1], x),
    "np.einsum summing is new": lambda x: _write(np.einsum("ij->j", x.reshape(2, 3)), x),
}


@pytest.mark.parametrize("name", list(CASES))
def test_result_shares_memory_as_in_numpy(name: str) -> None:
    x = np.array([1.0, np.nan, np.inf, -np.inf, 2.5, -0.5])
    check(CASES[name], x)


def complex_nan_to_num(z):
    return np.nan_to_num(z), np.nan_to_num(z, nan=1.5, posinf=9.0, neginf=-9.0)


def test_nan_to_num_of_complex_replaces_both_parts() -> None:
    z = np.array([complex(np.nan, 1), complex(2, np.inf), complex(-np.inf, np.nan), 3 + 4j])
    check(complex_nan_to_num, z)
