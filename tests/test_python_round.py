"""``round(x, n)`` of a Python float computed at run time (kiln.frontend.python_round) is Python's,
correctly rounded from the exact binary value (``round(2.675, 2)`` is 2.67), sign of zero, NaN and
infinity included; a NumPy float keeps NumPy's (``np.round``: 2.68)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import kiln

DIGITS = (0, 1, 2, 3, -1, -2)


def _values() -> list[float]:
    rng = random.Random(7)
    near_ties = [round(rng.uniform(-1000, 1000), rng.randrange(1, 5)) + rng.choice([0.0, 5e-4, 5e-3, 5e-2]) for _ in range(200)]
    return [2.675, 0.125, 0.285, 1.005, -2.675, -0.05, -0.049999, 0.5, 1.5, 2.5, -0.5, 25.0, 35.0, 15.0, 1e300,
            -1e-300, 2.0**53 + 2, 123456.785, math.nan, math.inf, -math.inf, -0.0, *near_ties]


def _same(got: float, want: float) -> bool:
    return type(got) is float and (got == want or (math.isnan(got) and math.isnan(want))) \
        and math.copysign(1.0, got) == math.copysign(1.0, want)


def test_round_of_a_python_float_is_pythons() -> None:
    compiled = kiln.function(lambda a: tuple(round(float(a[0]), n) for n in DIGITS))
    for v in _values():
        got, want = compiled(np.array([v])), tuple(round(v, n) for n in DIGITS)
        assert all(map(_same, got, want)), (v, got, want)


def test_round_of_a_numpy_float_is_numpys() -> None:
    compiled = kiln.function(lambda a: round(a[0], 2))
    got = compiled(np.array([2.675]))
    assert got == np.round(np.float64(2.675), 2) == 2.68 and type(got) is np.float64


def test_round_to_more_digits_than_ten_to_the_power_holds_exactly_is_refused() -> None:
    compiled = kiln.function(lambda a: round(float(a[0]), 23))
    with pytest.raises(NotImplementedError, match=r"test_python_round\.py:\d+.*round\(x, 23\)"):
        compiled(np.array([1.0]))
