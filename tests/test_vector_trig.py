"""Vector sin, cos, atan, atan2 (backends/c/vector_trig.py) against NumPy and libm, on every ISA
table this machine runs: ulp bounds over wide random samples, the lanes that go through libm,
every IEEE special case of atan2, and NPBench's arc_distance formula through the frontend."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_simd import _T, ISAS, SIZES, _loop1, build, kiln_cache, ulp_error  # noqa: F401  (kiln_cache: fixture)

import kiln

#: max error in ulps, f32 against float64 NumPy, f64 against NumPy's long double (docs/vector-math.md)
ULP_BOUND = {"sin": 1.0, "cos": 1.0, "atan": 2.0, "atan2": 2.0}
_FAST = {np.float32: 65536.0, np.float64: 2.0**25}


def _kernels(t: str) -> str:
    out = [_loop1(f"k_{fn}", t, f"    %r = math.{fn} %a0 : {t}") for fn in ("sin", "cos", "atan")]
    out.append(_loop1("k_atan2", t, f"    %r = math.atan2 %a0, %a1 : {t}", ins=2))
    return "".join(out)


def _reference(fn: str, *args: np.ndarray) -> np.ndarray:
    wide = np.float64 if args[0].dtype == np.float32 else np.longdouble
    with np.errstate(all="ignore"):
        return getattr(np, "arc" + fn[1:] if fn.startswith("atan") else fn)(*(a.astype(wide) for a in args))


def _inputs(dtype: type, n: int = 200_000) -> np.ndarray:
    """Small, moderate and huge arguments of both signs, to the edge of the fast range and past it."""
    rng = np.random.default_rng(7)
    fast = _FAST[dtype]
    magnitude = np.concatenate([rng.uniform(0, 4, n), rng.uniform(0, fast, n // 4), np.exp(rng.uniform(-90, 88, n // 4)),
                                rng.uniform(0, 1e-3, 1000), [fast, np.nextafter(dtype(fast), dtype(np.inf))]])
    x = magnitude * rng.choice([-1.0, 1.0], magnitude.size)
    return x.astype(dtype)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", ["sin", "cos", "atan", "atan2"])
def test_accuracy(isa: str, dtype: type, fn: str) -> None:
    fns = build(_kernels(_T[dtype]), isa)
    x = _inputs(dtype)
    args = (x, np.random.default_rng(8).permutation(x)) if fn == "atan2" else (x,)
    out = np.empty_like(x)
    fns[f"k_{fn}"](*args, out)
    err = ulp_error(out, _reference(fn, *args).astype(np.float64) if dtype == np.float32 else _reference(fn, *args))
    worst = int(np.argmax(err))
    assert err.max() <= ULP_BOUND[fn], f"{fn}{tuple(a[worst] for a in args)} = {out[worst]!r}: {err.max():.3f} ulp"


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", ["sin", "cos"])
def test_sin_cos_beyond_the_reduction_are_libm(isa: str, dtype: type, fn: str) -> None:
    """Lanes past the fast range (huge, inf, NaN) take libm's answer, next to fast lanes in the
    same register (the first of each pair of lanes is small)."""
    fns = build(_kernels(_T[dtype]), isa)
    huge = np.array([1e6, -3e7, 1e30, -1e38, np.inf, -np.inf, np.nan, 123456.78], dtype)
    x = np.empty(2 * huge.size + 3, dtype)
    x[: 2 * huge.size : 2] = np.linspace(-1, 1, huge.size)
    x[1 : 2 * huge.size : 2] = huge
    x[2 * huge.size :] = [0.5, -0.0, 0.0]
    out = np.empty_like(x)
    fns[f"k_{fn}"](x, out)
    got = out[1 : 2 * huge.size : 2]
    if dtype == np.float64:
        expected = np.array([getattr(math, fn)(v) if math.isfinite(v) else math.nan for v in huge.tolist()])
        np.testing.assert_array_equal(got, expected)  # the same glibc function, bit for bit
    else:
        assert np.all(np.isnan(got[4:7]))
        assert ulp_error(got[[0, 1, 2, 3, 7]], _reference(fn, huge[[0, 1, 2, 3, 7]])).max() <= 1.0
    assert np.signbit(out[-2]) == (fn == "sin") and out[-2] == (0.0 if fn == "sin" else 1.0)  # sin(-0) = -0
    small = x[: 2 * huge.size : 2]
    assert ulp_error(out[: 2 * huge.size : 2], _reference(fn, small).astype(np.float64)).max() <= ULP_BOUND[fn]


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_atan2_special_values(isa: str, dtype: type) -> None:
    """Every pair of ±0, ±1, ±inf, NaN, ±max, ±smallest denormal: where NumPy's result is exact
    (0, ±pi/4, ±pi/2, ±3pi/4, ±pi rounded, NaN) ours is the same, sign of zero included."""
    fns = build(_kernels(_T[dtype]), isa)
    fi = np.finfo(dtype)
    values = [0.0, 1.0, np.inf, np.nan, float(fi.max), float(fi.smallest_subnormal)]
    special = np.array(values + [-v for v in values], dtype)
    y, x = (a.ravel() for a in np.meshgrid(special, special))
    out = np.empty_like(y)
    fns["k_atan2"](y, x, out)
    ref = np.arctan2(y, x)
    finite = np.isfinite(x) & np.isfinite(y) & (x != 0) & (y != 0)  # ±1, ±max, ±denormal: rounded results
    same = (out == ref) & (np.signbit(out) == np.signbit(ref)) | np.isnan(out) & np.isnan(ref)
    bad = np.nonzero(~same & ~finite)[0]
    assert bad.size == 0, [(y[i], x[i], out[i], ref[i]) for i in bad]
    assert ulp_error(out[finite], _reference("atan2", y[finite], x[finite]).astype(np.float64)).max() <= 1.0
    edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], dtype)
    out_atan = np.empty_like(edge)
    fns["k_atan"](edge, out_atan)
    np.testing.assert_array_equal(out_atan[:5], np.arctan(edge[:5]))
    assert np.signbit(out_atan[1])


def _arc_distance(theta_1: np.ndarray, phi_1: np.ndarray, theta_2: np.ndarray, phi_2: np.ndarray) -> np.ndarray:
    temp = np.sin((theta_2 - theta_1) / 2) ** 2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    return 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))


_kiln_arc_distance = kiln.function(_arc_distance)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [n for n in SIZES if n >= 15])  # (shorter constant trips stay scalar)
def test_arc_distance_is_one_simd_loop(dtype: type, n: int) -> None:
    """NPBench's arc_distance through the frontend: one vector loop with the helpers, no libm
    call outside their fallbacks, the values of NumPy."""
    args = [np.random.default_rng(s).random(n).astype(dtype) for s in range(4)]
    fn = _kiln_arc_distance
    source = fn.get_concrete_function(*args).source
    for helper in ("sin", "cos", "atan2"):
        assert f"= kiln_v{helper}_{_T[dtype]}(" in source
    suffix = "f" if dtype == np.float32 else ""
    assert source.count(f"= sin{suffix}(") == 1 and source.count(f"= atan2{suffix}(") == 0
    rtol = 2e-6 if dtype == np.float32 else 4e-15
    np.testing.assert_allclose(fn(*args), _arc_distance(*args), rtol=rtol, atol=0)
