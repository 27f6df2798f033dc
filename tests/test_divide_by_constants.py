"""Division by a constant as a product and an fma (passes/kiln_divide_by_constants.py): the
divisor test against every quotient at small precisions, and compiled loops against NumPy's own
division, bit for bit, over the whole f64 and f32 ranges (subnormals, huge values, zeros,
infinities, NaN, and each divisor's hard case), including a seidel_2d stencil."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

import kiln
from kiln.passes.kiln_divide_by_constants import (
    BINARY32,
    BINARY64,
    Format,
    fast_quotient,
    hard_case,
    reciprocal_pair,
    round_nearest,
)

#: divisors the test accepts in binary64 (9: seidel_2d's; 0.1 < 1, whose quotients can overflow)
ACCEPTED = (9.0, 3.0, 7.0, 10.0, 0.1, 1.7, 3e-300, 123456.789)


def _pair(Y: int, p: int) -> tuple[Fraction, Fraction, Fraction]:
    y = Fraction(Y, 2 ** (p - 1))
    zh = round_nearest(1 / y, p)
    return y, zh, round_nearest(1 / y - zh, p)


@pytest.mark.parametrize("p", [8, 10])
def test_the_divisor_test_is_exact_at_small_precisions(p: int) -> None:
    """Every divisor significand Y of p bits, every dividend significand X: the test accepts Y exactly
    when the product and fma give RN(X/Y) for every X (and when it rejects, its hard case is wrong)."""
    fmt = Format(p, -200, 200)
    one = Fraction(2) ** (1 - p)
    rejected = 0
    for Y in range(2 ** (p - 1) + 1, 2**p):
        y, zh, zl = _pair(Y, p)
        wrong = [X for X in range(2 ** (p - 1), 2**p)
                 if fast_quotient(X * one, zh, zl, p) != round_nearest(X * one / y, p)]
        accepted = reciprocal_pair(float(y), fmt) is not None
        assert accepted == (not wrong), (Y, wrong)
        if wrong:
            rejected += 1
            assert wrong == [hard_case(Y, p)]
    assert rejected > 0  # the test has something to refuse


def _bits64(rng: np.random.Generator, n: int) -> np.ndarray:
    """Doubles of every exponent and sign: random bit patterns, finite ones."""
    x = rng.integers(0, 2**64, size=n, dtype=np.uint64).view(np.float64)
    return x[np.isfinite(x)]


def _dividends(y: float, dtype: type, rng: np.random.Generator) -> np.ndarray:
    """Random values of every magnitude, the edges (zeros, subnormals, the largest, infinities, NaN),
    both sides of the pass's range bounds, and y's hard case scaled over all exponents."""
    info = np.finfo(dtype)
    fmt = BINARY64 if dtype is np.float64 else BINARY32
    raw = _bits64(rng, 20000) if dtype is np.float64 else \
        rng.integers(0, 2**32, size=20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, info.tiny, info.smallest_subnormal,
             -info.smallest_subnormal, info.tiny * 3, 1.0, -1.0, y, -y]
    pair = reciprocal_pair(y, fmt)
    assert pair is not None
    for bound in (pair.lo, pair.hi):
        b = dtype(bound)
        edges += [b, np.nextafter(b, dtype(0)), -b] + ([np.nextafter(b, dtype(np.inf))] if b < info.max else [])
    exact = Fraction(y)
    e = exact.numerator.bit_length() - exact.denominator.bit_length()
    Y = abs(exact) * Fraction(2) ** (fmt.p - 1 - e)
    X = hard_case(Y.numerator, fmt.p) if Y.numerator % 2 else None
    if X is not None:
        edges += [np.ldexp(dtype(X), k) for k in range(info.minexp - fmt.p, info.maxexp - fmt.p + 1, 7)]
    values = np.concatenate([raw[np.isfinite(raw) | np.isnan(raw)], np.array(edges, dtype=dtype)])
    return values.astype(dtype)


def _divide_each(x, out, y):
    for j in range(x.shape[0]):  # a scalar loop: the division stays scalar, as in a chain
        out[j] = x[j] / y


_KERNELS: dict[tuple[str, float], kiln.Function] = {}


def _kernel(y: float) -> kiln.Function:
    """The loop compiled with the constant divisor ``y`` (an f64 or f32 one), made once per divisor."""
    key = (type(y).__name__, float(y))
    if key not in _KERNELS:
        def divide_each(x, out):
            _divide_each(x, out, y)
        _KERNELS[key] = kiln.function(divide_each)
    return _KERNELS[key]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("y", [9.0, 10.0, 0.1, 3e-300])
def test_compiled_division_is_numpys_bit_for_bit(y: float, dtype: type) -> None:
    if dtype is np.float32 and y == 3e-300:
        y = 3e-30
    rng = np.random.default_rng(int(y * 1000) % 2**32)
    for sign in (1.0, -1.0):
        divisor = dtype(sign * y)
        x = _dividends(float(divisor), dtype, rng)
        out, want = np.empty_like(x), np.empty_like(x)
        compiled = _kernel(divisor)
        compiled(x, out)
        _divide_each(x, want, divisor)
        bits = np.uint64 if dtype is np.float64 else np.uint32
        assert np.array_equal(out.view(bits), want.view(bits))  # NaNs, zeros' signs and all
        assert re.search(r"\bfmaf?\(", compiled.get_concrete_function(x, out).source)


def test_pair_matches_division_on_binary64_hard_cases() -> None:
    """For accepted divisors, the product and fma (computed exactly here) at the hard case and its
    neighbours in several binades equal the exact quotient rounded once."""
    for y in ACCEPTED:
        pair = reciprocal_pair(y, BINARY64)
        assert pair is not None, y
        zh, zl = Fraction(pair.zh), Fraction(pair.zl)
        exact = Fraction(y)
        e = exact.numerator.bit_length() - exact.denominator.bit_length()
        Y = (abs(exact) * Fraction(2) ** (52 - e)).numerator
        X = hard_case(Y, 53) if Y % 2 else None
        for base in [b for b in (X, 2**52 + 1, 2**53 - 1) if b is not None]:
            for k in (-1000, -52, 0, 300):
                for d in (-1, 0, 1):
                    x = Fraction(base + d) * Fraction(2) ** k
                    if Fraction(pair.lo) <= x <= Fraction(pair.hi):
                        assert fast_quotient(x, zh, zl, 53) == round_nearest(x / exact, 53), (y, base, k, d)


def _rejected_divisor() -> float:
    """A binary64 divisor the test refuses (about 1 in 100 are)."""
    rng = np.random.default_rng(5)
    while True:
        y = float(rng.uniform(1.0, 2.0))
        if reciprocal_pair(y, BINARY64) is None:
            return y


def test_rejected_divisor_keeps_its_division() -> None:
    """A refused divisor's hard case really is rounded wrongly by the product and fma, and the
    compiled loop keeps the division there (and matches NumPy)."""
    y = _rejected_divisor()
    Y = (Fraction(y) * 2**52).numerator
    X = hard_case(Y, 53)
    assert X is not None
    x = Fraction(X, 2**52)
    _, zh, zl = _pair(Y, 53)
    assert fast_quotient(x, zh, zl, 53) != round_nearest(x / Fraction(y), 53)
    compiled = _kernel(y)
    values = np.array([float(x), 1.0, 3.5, -2.25], dtype=np.float64)
    out, want = np.empty_like(values), np.empty_like(values)
    compiled(values, out)
    _divide_each(values, want, y)
    assert np.array_equal(out, want)
    assert "fma(" not in compiled.get_concrete_function(values, out).source


def test_powers_of_two_and_non_finite_divisors_are_left() -> None:
    for y in (2.0, 0.5, -4.0, 0.0, np.inf, np.nan, 1e308):
        assert reciprocal_pair(y, BINARY64) is None, y


def _seidel(TSTEPS, N, A):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] +
                           A[i, 2:] + A[i + 1, :-2] + A[i + 1, 1:-1] +
                           A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


@pytest.mark.parametrize("n, steps", [(12, 4), (30, 3)])
def test_seidel_2d_is_numpys_exactly(n: int, steps: int) -> None:
    """NPBench's seidel_2d as written: the same bits as NumPy, the division by 9 an fma."""
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n)) * np.exp2(rng.integers(-30, 30, size=(n, n)))
    got, want = A.copy(), A.copy()
    compiled = kiln.function(_seidel)
    compiled(steps, n, got)
    _seidel(steps, n, want)
    assert np.array_equal(got, want)
    assert "fma(" in compiled.get_concrete_function(steps, n, A.copy()).source
