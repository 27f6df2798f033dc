"""``x ** c`` for a constant half-integer c (passes/kiln_expand_half_powers.py): correctly rounded
against an exact reference over the whole f64 range, libm's special cases, NumPy's answer, and a
pairwise inverse-cube kernel, checked against NumPy, that no longer calls pow."""

from __future__ import annotations

import decimal
import math

import numpy as np
import pytest

import kiln

EXPONENTS = (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5)


#: one function per exponent (a constant of each), made once; np.power, since ``x ** 0.5`` is np.sqrt
_POWERS = {
    -2.5: lambda x: np.power(x, -2.5), -1.5: lambda x: np.power(x, -1.5), -0.5: lambda x: np.power(x, -0.5),
    0.5: lambda x: np.power(x, 0.5), 1.5: lambda x: np.power(x, 1.5), 2.5: lambda x: np.power(x, 2.5),
}
_COMPILED = {c: kiln.function(fn, autograph=False) for c, fn in _POWERS.items()}


def _power(c: float) -> kiln.Function:
    return _COMPILED[c]


def _exact(x: float, c: float) -> float:
    """x ** c correctly rounded to f64 (60 decimal digits, then one rounding; subnormals and
    overflow as float() of the decimal gives them)."""
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.Emin, ctx.Emax = 60, -99999, 99999
        d = decimal.Decimal(x)
        root = d.sqrt() ** int(abs(2 * c))
        return float(1 / root if c < 0 else root)


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    """Log-uniform over every positive f64 (subnormals too) and around 1; then the scaling's edges
    and their neighbours, where powers fall next to midpoints (1 - 2^-53)^1.5 = 1 - 1.5 * 2^-53 + ...)."""
    rng = np.random.default_rng(11)
    edges = [2.0**k for k in (-400, 400, -1074, -1022, 1023)] + [np.finfo(np.float64).max]
    edges += [np.nextafter(e, 0.0) for e in edges] + [np.nextafter(e, np.inf) for e in edges[:-1]]
    spread = np.concatenate([np.exp2(rng.uniform(-1074, 1024, 1500)), np.exp(rng.uniform(-5, 5, 1501))])
    edges = np.array(edges)
    return spread, edges[edges > 0]  # the step below 2^-1074 is 0, a special case


def _off_by(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in steps of want's ulp (subnormal ones: 2^-1074), 0 where both are inf."""
    with np.errstate(invalid="ignore"):
        return np.where(got == want, 0.0, np.abs(got - want) / np.spacing(np.abs(want)))


@pytest.mark.parametrize("c", EXPONENTS)
def test_half_powers_are_correctly_rounded(c: float) -> None:
    """Equal to the exactly rounded power at 3,001 spread inputs (a length whose last vector is
    partial) wherever that is a normal number or overflows, within one step where it is subnormal
    (the scale is applied after the power is rounded); at the edges' neighbours, within 1 ulp
    (powers within ~2^-106 of a midpoint, which double-double cannot tell apart)."""
    spread, edges = _inputs()
    power = _power(c)
    got = power(spread)
    want = np.array([_exact(v, c) for v in spread])
    normal = np.abs(want) >= np.finfo(np.float64).tiny
    np.testing.assert_array_equal(got[normal], want[normal])
    assert np.all(_off_by(got[~normal], want[~normal]) <= 1.0)
    assert np.all(_off_by(power(edges), np.array([_exact(v, c) for v in edges])) <= 1.0)


@pytest.mark.parametrize("c", EXPONENTS)
def test_half_powers_special_cases_are_numpys(c: float) -> None:
    """Zeros, infinities, negatives and NaN give np.power's (and C99 pow's) answers."""
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -1e-300, -np.inf, 4.0])
    with np.errstate(all="ignore"):
        want = np.power(x, c)
    np.testing.assert_array_equal(_power(c)(x), want)


@pytest.mark.parametrize("c", EXPONENTS)
def test_half_powers_match_numpy_within_its_own_error(c: float) -> None:
    """NumPy's own power is not correctly rounded (its SIMD pow is up to ~0.52 ulp off on this
    machine, and libm's pow disagrees with it as often): within 1 ulp of it everywhere."""
    x = np.exp(np.random.default_rng(3).uniform(-200, 200, 4000))
    got, want = _power(c)(x), np.power(x, c)
    assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))


def test_pairwise_inverse_cube_calls_no_pow() -> None:
    """A gravity-like kernel (its own, NumPy only): 1/r^3 of the positive entries by a masked
    power, then a product. Compiled without a pow call, and NumPy's answer."""

    def forces(p: np.ndarray, m: np.ndarray) -> np.ndarray:
        d = p[:, 0:1].T - p[:, 0:1]
        r2 = d**2 + (p[:, 1:2].T - p[:, 1:2]) ** 2 + 0.01
        r2[r2 > 0] = r2[r2 > 0] ** (-1.5)
        return (d * r2) @ m

    rng = np.random.default_rng(5)
    p, m = rng.normal(size=(37, 2)), rng.uniform(1, 2, (37, 1))
    f = kiln.function(forces)
    np.testing.assert_allclose(f(p, m), forces(p, m), rtol=1e-13)
    assert "pow(" not in f.get_concrete_function(p, m).source


def test_other_powers_keep_libm() -> None:
    """An integer or non-half exponent, a traced exponent and f32 keep pow (and NumPy's answer)."""
    x = np.linspace(0.5, 3.0, 11)

    def powers(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
        return x**3.0, x**0.25, x**y, x.astype(np.float32) ** np.float32(1.5)

    f = kiln.function(powers)
    for got, want in zip(f(x, x), powers(x, x), strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-7 if got.dtype == np.float32 else 1e-15)
    assert f.get_concrete_function(x, x).source.count("pow") >= 4


def test_exact_reference_is_exact() -> None:
    """The reference itself: math.sqrt is correctly rounded, so x ** 0.5 must equal it."""
    for v in (2.0, 3.0, 1e-300, 7.5e250):
        assert _exact(v, 0.5) == math.sqrt(v)
