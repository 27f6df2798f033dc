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


def later_writes_show_in_views(x, z):
    b = np.broadcast_to(x, (2, 6))
    d = np.diagonal(x.reshape(2, 3))
    e = x.reshape(2, 3).diagonal(1)
    r, i = z.real, np.imag(z)
    x[0] = 50.0
    x[4] = -50.0
    z[0] = 9 + 9j
    return b + 0, d + 0, e + 0, r + 0, i + 0


def writes_through_complex_parts(z):
    z.real[1] = 7.0
    z.imag[2] = -3.0
    np.real(z)[3] += 1.0
    z.imag[...] *= 2
    return z


def test_views_show_later_writes() -> None:
    """np.broadcast_to, np.diagonal and z.real/z.imag are views in NumPy: they show later writes."""
    check(later_writes_show_in_views, np.arange(6.0), np.arange(6.0) + 1j)


def test_writes_through_real_and_imag_reach_the_array() -> None:
    check(writes_through_complex_parts, np.arange(6.0) - 2j)


def write_broadcast(x):
    np.broadcast_to(x, (2, 6))[0, 0] = 1.0
    return x


def write_diagonal(x):
    d = np.diag(x.reshape(2, 3))
    d += 1
    return x


def write_imag_of_real(x):
    x.imag[0] = 1.0
    return x


def write_rows_of_broadcast(x):
    for row in np.broadcast_to(x, (2, 6)):
        row[0] = 5.0
    return x


@pytest.mark.parametrize("fn", [write_broadcast, write_diagonal, write_imag_of_real, write_rows_of_broadcast],
                         ids=lambda f: f.__name__)
def test_writes_to_read_only_views_raise_as_in_numpy(fn: Callable[[Any], Any]) -> None:
    import kiln

    with pytest.raises(ValueError, match="read-only"):
        fn(np.arange(6.0))
    with pytest.raises(ValueError, match=r"test_fresh_results\.py:\d+.*read-only"):
        kiln.function(fn)(np.arange(6.0))
