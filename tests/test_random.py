"""kiln.random and np.random inside compiled functions: draws are staged (fresh on every call,
in program order), the same seed gives the same numbers eagerly and compiled, the
distributions have their moments, and NumPy generators that would draw once are refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import kiln


def draws(g: Any) -> list[Any]:
    return [g.random(3), g.random(2, dtype=np.float32), g.uniform(-2.0, 3.0, size=(2, 2)), g.normal(1.0, 2.0, size=4),
            g.standard_normal(3), g.integers(5, 9, size=6), g.integers(4, size=3, endpoint=True),
            g.permutation(6), g.permutation(np.arange(10.0, 15.0))]


#: the positions in ``draws`` of normal numbers: their log and cos are rounded by two math libraries
NORMAL_DRAWS = (3, 4)


def test_same_seed_same_numbers_eagerly_and_compiled() -> None:
    """docs/random.md's promise: equal bit for bit, but normal numbers within 4 ulp."""
    eager = draws(kiln.random.Generator(42))
    g = kiln.random.Generator(42)
    compiled = kiln.function(lambda: draws(g))()
    for k, (e, c) in enumerate(zip(eager, compiled, strict=True)):
        assert np.asarray(e).dtype == np.asarray(c).dtype
        if k not in NORMAL_DRAWS:
            np.testing.assert_array_equal(e, c)
    assert not np.array_equal(draws(kiln.random.Generator(43))[0], eager[0])


def test_normal_numbers_eagerly_and_compiled_within_4_ulp() -> None:
    n = 200_000
    eager = kiln.random.Generator(42).standard_normal(n)
    g = kiln.random.Generator(42)
    compiled = kiln.function(lambda: g.standard_normal(n))()
    assert np.all(np.abs(eager - compiled) <= 4 * np.spacing(np.abs(eager)))
    assert np.count_nonzero(eager != compiled) < n // 100  # most are equal: the same uniforms
    g.seed(42)
    scaled = kiln.function(lambda: g.normal(3.0, 2.0, size=n))()  # loc + scale * z of such a z
    want = 3.0 + 2.0 * eager
    assert np.all(np.abs(scaled - want) <= 2.0 * 4 * np.spacing(np.abs(eager)) + 2 * np.spacing(np.abs(want)))


def test_each_call_draws_afresh_and_a_seed_starts_again() -> None:
    g = kiln.random.Generator(7)
    f = kiln.function(lambda: g.random(4))
    first, second = f(), f()
    assert not np.array_equal(first, second)
    g.seed(7)
    np.testing.assert_array_equal(f(), first)
    assert f.tracing_count == 1


def dropout(x: np.ndarray) -> np.ndarray:
    mask = np.random.random(x.shape) > 0.5
    return x * mask / 0.5


def loop_of_draws(n: Any) -> np.ndarray:
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.random.normal()
    return out


def generator_made_inside(x: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(11)
    return x + rng.normal(size=x.shape)


def test_numpy_random_is_staged() -> None:
    x = np.ones(64)
    f = kiln.function(dropout)
    masks = [f(x) for _ in range(3)]
    assert not np.array_equal(masks[0], masks[1]) and not np.array_equal(masks[1], masks[2])
    assert set(np.unique(masks[0])) <= {0.0, 2.0}
    np.random.seed(5)
    a = f(x)
    np.random.seed(5)
    np.testing.assert_array_equal(f(x), a)  # np.random.seed seeds kiln's stream too
    kiln.random.seed(9)
    b = f(x)
    kiln.random.seed(9)
    np.testing.assert_array_equal(f(x), b)
    values = kiln.function(loop_of_draws)(8)
    assert len(set(values.tolist())) == 8  # every iteration of a staged loop draws anew


def test_a_generator_made_inside_starts_from_its_seed_on_every_call() -> None:
    f = kiln.function(generator_made_inside)
    x = np.zeros(5)
    np.testing.assert_array_equal(f(x), f(x))
    np.testing.assert_array_equal(f(x), kiln.function(generator_made_inside)(x))


def test_moments() -> None:
    g = kiln.random.Generator(2026)
    n = 400_000
    u, z, k = kiln.function(lambda: (g.random(n), g.standard_normal(n), g.integers(0, 10, size=n)))()
    # five standard errors of each estimate
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / n)
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(z.mean()) < 5 / np.sqrt(n)
    assert abs(z.var() - 1) < 5 * np.sqrt(2 / n)
    assert abs((z**3).mean()) < 5 * np.sqrt(15 / n)
    assert abs((z**4).mean() - 3) < 5 * np.sqrt(96 / n)
    counts = np.bincount(k, minlength=10)
    assert counts.min() >= 0 and np.all(np.abs(counts / n - 0.1) < 5 * np.sqrt(0.09 / n))
    p = kiln.function(lambda: g.permutation(1000))()
    np.testing.assert_array_equal(np.sort(p), np.arange(1000))


RS = np.random.RandomState(0)
NP_GEN = np.random.default_rng(0)


def draws_from_a_numpy_random_state(x: np.ndarray) -> np.ndarray:
    return x + RS.normal(size=x.shape)


def draws_from_a_numpy_generator(x: np.ndarray) -> np.ndarray:
    return x * NP_GEN.random(x.shape)


@pytest.mark.parametrize("fn", [draws_from_a_numpy_random_state, draws_from_a_numpy_generator])
def test_numpy_generators_made_outside_are_refused(fn: Any) -> None:
    with pytest.raises(NotImplementedError, match=r"test_random.py:\d+:\d+: .* of a NumPy generator would draw once"):
        kiln.function(fn)(np.zeros(3))


def test_errors() -> None:
    with pytest.raises(TypeError, match="a seed is an int"):
        kiln.random.Generator(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="high must be above low"):
        kiln.random.Generator(0).integers(5, 5)


def draws_with_an_unstaged_numpy_function(x: np.ndarray) -> np.ndarray:
    return x + np.random.choice(3)


def test_unstaged_numpy_random_functions_are_refused() -> None:
    with pytest.raises(NotImplementedError, match=r"np.random.choice \(not one of the np.random functions kiln stages"):
        kiln.function(draws_with_an_unstaged_numpy_function)(np.zeros(3))


def random_of_a_size(n: Any) -> np.ndarray:
    return np.random.random(n)


def test_sizes_as_numpy_integers_and_traced_sizes() -> None:
    """A NumPy integer known when tracing is a size; a traced one (a NumPy scalar argument) is refused
    at the user's line with what to do, not with "iteration over a 0-d array"."""
    a, b = kiln.function(lambda: (np.random.random(np.int64(5)), np.random.normal(0, 1, (np.int32(2), 3))))()
    assert a.shape == (5,) and b.shape == (2, 3)
    assert kiln.function(random_of_a_size)(1000).shape == (1000,)
    with pytest.raises(NotImplementedError, match=r"test_random.py:\d+: a random array of a size known only at run time.*Python int"):
        kiln.function(random_of_a_size)(np.int64(1000))
