"""Constructs kiln refused though TF's AutoGraph or Numba handle them (issue 40), each compiled
and run eagerly on NumPy with copies of the same arguments: results and arguments must agree
(``test_mutation.check``). What stays refused is refused naming the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from test_mutation import check

RNG = np.random.default_rng(40)


# ---------------------------------------------------------------------- np.linalg.matrix_power


def matrix_powers(a):
    return (np.linalg.matrix_power(a, 0), np.linalg.matrix_power(a, 1), np.linalg.matrix_power(a, 2),
            np.linalg.matrix_power(a, 3), np.linalg.matrix_power(a, 6), np.linalg.matrix_power(a, 13))


def inverse_powers(a):
    return np.linalg.matrix_power(a, -1), np.linalg.matrix_power(a, -3)


def test_matrix_power_of_a_python_int_exponent() -> None:
    """NumPy's products in NumPy's order: integers exactly, floats to matmul's rounding; 0 is the
    identity in a's dtype, a negative exponent a power of the inverse, stacks of matrices too."""
    check(matrix_powers, RNG.integers(-3, 4, size=(3, 3)))
    check(matrix_powers, np.eye(4) + 0.1 * RNG.standard_normal((4, 4)))
    check(matrix_powers, np.eye(2) + 0.1 * RNG.standard_normal((3, 2, 2)).astype(np.float32))
    check(inverse_powers, np.eye(3) + 0.2 * RNG.standard_normal((3, 3)))


def traced_exponent(a, n):
    return np.linalg.matrix_power(a, int(n[0]))


def test_matrix_power_of_a_traced_exponent_is_refused_with_its_line() -> None:
    with pytest.raises(NotImplementedError, match=r"test_formerly_refused.py:\d+:\d+: np.linalg.matrix_power with an "
                                                  r"exponent known only at run time"):
        kiln.function(traced_exponent)(np.eye(2), np.array([2]))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        kiln.function(lambda a: np.linalg.matrix_power(a, 2))(np.ones((2, 3)))


# ---------------------------------------------------------------------- np.random.shuffle


def shuffle_global(x):
    np.random.shuffle(x)
    return x[0] + 0.0


GENERATOR = kiln.random.Generator(0)


def shuffle_generator(x):
    GENERATOR.shuffle(x)


def test_shuffle_permutes_in_place_and_a_seed_reproduces_it() -> None:
    """Not NumPy's stream (docs/random.md): checked by property. The argument after the call holds
    a permutation of its rows, the result reads the shuffled array, and a seed gives the same order."""
    f, g = kiln.function(shuffle_global), kiln.function(shuffle_generator)
    for x in (np.arange(50.0), RNG.integers(0, 9, size=(20, 3))):
        rows = sorted(map(tuple, x.reshape(len(x), -1)))
        shuffled = []
        for _ in range(3):
            kiln.random.seed(11)
            y = x.copy()
            np.testing.assert_array_equal(f(y), y[0])
            assert sorted(map(tuple, y.reshape(len(x), -1))) == rows and not np.array_equal(y, x)
            shuffled.append(y)
        np.testing.assert_array_equal(shuffled[0], shuffled[1])
        y = x.copy()
        f(y)  # not seeded again: the stream has moved on
        assert not np.array_equal(y, shuffled[0])
    GENERATOR.seed(5)
    y = np.arange(30)
    g(y)
    z = np.arange(30)
    kiln.random.Generator(5).shuffle(z)  # the same seed eagerly gives the same order
    np.testing.assert_array_equal(y, z)
    np.testing.assert_array_equal(np.sort(y), np.arange(30))
