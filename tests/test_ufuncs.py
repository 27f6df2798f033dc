"""Differential tests of NumPy's elementwise math (kiln.frontend.ufuncs): each function compiled
with kiln and run eagerly on NumPy over bool/int32/int64/float32/float64 inputs that include
the edge values (zeros of both signs, infinities, NaN, the extremes, denormals, halves, shift
counts past the width), compared for dtype exactly and for values:

* exactly (bit for bit, signs of zeros and NaN positions included) for integer, bool and
  rounding/sign/bit functions, whose results are defined exactly;
* within :data:`TRANSCENDENTAL_ULPS` units in the last place for the functions libm computes
  (kiln calls the C library's ``tanf``/``tan``; NumPy calls the same on most builds, but its
  AVX-512 builds use their own SIMD code for some, which is not correctly rounded either).

A loop NumPy resolves to a dtype kiln lacks (``np.tan`` of bools computes in float16) must
raise kiln's TypeError naming that dtype; a loop NumPy rejects must raise NumPy's TypeError.
The long arrays also run through kiln-vectorize's SIMD loops and their tails.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import dtypes, pytree

#: one kiln.function per case, on purpose; NumPy's own overflow/invalid warnings are expected
pytestmark = [pytest.mark.filterwarnings("ignore::kiln.frontend.retracing.KilnRetracingWarning"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]

DTYPES = ["bool", "int32", "int64", "float32", "float64"]
RNG = np.random.default_rng(20260514)

#: the largest error allowed, in units in the last place of NumPy's result, for libm functions
TRANSCENDENTAL_ULPS = 4


def values(dtype: str) -> np.ndarray:
    """Edge values of ``dtype`` followed by random ones (several SIMD registers and a tail)."""
    if dtype == "bool":
        return np.array([True, False] * 20)
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        edge = [0, 1, -1, 2, -2, 3, -3, 7, -7, 15, -15, 25, 31, 32, 33, 63, 64, 65, -64, 100, -100, 1234, -1234,
                info.max, info.min, info.max - 1, info.min + 1]
        return np.concatenate([np.array(edge, dtype), RNG.integers(-1000, 1000, 60).astype(dtype)])
    fi = np.finfo(dtype)
    edge = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.999, 1.001, -0.999,
            2, 3, -7.25, 100, -100, 1e10, -1e10, 1e-8, -1e-8, 20, -20, 88.5, -103.5, 710, -745, 1.25, 2.675, 0.125,
            fi.max, -fi.max, fi.tiny, -fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal]
    rand = np.concatenate([RNG.standard_normal(80), RNG.uniform(-1, 1, 60), RNG.standard_normal(40) * 100,
                           np.exp(RNG.uniform(-60, 60, 40)) * RNG.choice([-1, 1], 40)])
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(edge, dtype), rand.astype(dtype)])


def pairs(da: str, db: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the first edge values of each, then random pairs."""
    a, b = values(da), values(db)
    ea, eb = a[:30], b[:30]
    n = min(len(a), len(b))
    return (np.concatenate([np.repeat(ea, len(eb)), a[:n]]),
            np.concatenate([np.tile(eb, len(ea)), RNG.permutation(b)[:n]]))


def assert_same(got: Any, want: Any, ulps: float) -> None:
    """``got`` is NumPy's ``want``: dtype and shape exactly; values as the module docstring says."""
    assert type(got) is type(want), f"kiln returned {type(got).__name__}, NumPy {type(want).__name__}"
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != NumPy's {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != NumPy's {want.shape}"
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg="NaN positions differ")
    g, w = got[~nan], want[~nan]
    if ulps == 0:
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w), err_msg="signs of zeros differ")
        return
    inf = np.isinf(w)
    np.testing.assert_array_equal(g[inf], w[inf])
    g, w = g[~inf], w[~inf]
    err = np.abs(g.astype(np.float64) - w.astype(np.float64)) / np.spacing(np.abs(w)).astype(np.float64)
    worst = int(np.argmax(err)) if err.size else 0
    assert not err.size or err[worst] <= ulps, f"{err[worst]:.1f} ulp at {w[worst]!r} (kiln {g[worst]!r})"


def check(fn: Callable[..., Any], *args: Any, ulps: float = 0, target: str = "c",
          loop: tuple[np.dtype[Any], ...] = ()) -> None:
    """Compile ``fn``, run it on ``args`` and compare with NumPy (see the module docstring).
    ``loop``: the dtypes of the ufunc loop NumPy runs, when ``fn`` is one ufunc."""
    try:
        with np.errstate(all="ignore"):
            want = fn(*args)
    except TypeError:
        with pytest.raises(TypeError):
            kiln.function(fn, target=target)(*args)
        return
    want_leaves, want_tree = pytree.flatten(want)
    lacking = ({np.asarray(w).dtype for w in want_leaves} | set(loop)) - set(dtypes.SUPPORTED)
    if lacking:
        with pytest.raises(TypeError, match="kiln does not support dtype"):
            kiln.function(fn, target=target)(*args)
        return
    got = kiln.function(fn, target=target)(*args)
    got_leaves, got_tree = pytree.flatten(got)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert_same(g, w, ulps)


# --------------------------------------------------------------------------- unary ufuncs

#: ufunc -> the ulps allowed (0: exact)
UNARY: dict[str, float] = {
    **dict.fromkeys(
        "tan arcsin arccos arctan sinh cosh arcsinh arccosh arctanh log1p expm1 log2 log10 exp2 cbrt".split(),
        TRANSCENDENTAL_ULPS,
    ),
    **dict.fromkeys("rint trunc fabs sign reciprocal deg2rad radians rad2deg degrees".split(), 0),
    **dict.fromkeys("isnan isinf isfinite signbit".split(), 0),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name: str, dtype: str) -> None:
    f = getattr(np, name)
    check(lambda x: f(x), values(dtype), ulps=UNARY[name], loop=_loop(f, dtype))


def _loop(f: np.ufunc, *operands: str) -> tuple[np.dtype[Any], ...]:
    """The dtypes of NumPy's loop for ``f`` on these operand dtypes (none when NumPy has none)."""
    try:
        return f.resolve_dtypes((*map(np.dtype, operands), *[None] * f.nout))
    except TypeError:
        return ()


def _mixed(x: Any) -> tuple[Any, ...]:
    return (np.log1p(np.abs(x)) * np.sign(x), np.isnan(x), np.signbit(x), np.deg2rad(x), np.round(x, 1),
            np.nan_to_num(x), np.isclose(x, 1.0), np.hypot(x, 2.0))


@pytest.mark.parametrize("spec", [(None, 3), None])
def test_dynamic_shapes_and_unknown_rank(spec: Any) -> None:
    """Every op keeps its operand's shape, known only when the function runs (the per-element
    tests included, whose results are i1)."""
    dynamic = kiln.function(_mixed, input_signature=[kiln.TensorSpec(spec, "float64")])
    x = values("float64")[:45].reshape(15, 3)
    with np.errstate(all="ignore"):
        want = _mixed(x)
    for g, w in zip(dynamic(x), want, strict=True):
        assert_same(g, w, TRANSCENDENTAL_ULPS)


def test_unary_on_0d() -> None:
    check(lambda x: (np.arcsinh(x), np.sign(x), np.isfinite(x)), np.float32(-2.5), ulps=TRANSCENDENTAL_ULPS)


# --------------------------------------------------------------------------- binary ufuncs

BINARY: dict[str, float] = {
    "arctan2": TRANSCENDENTAL_ULPS,
    "hypot": TRANSCENDENTAL_ULPS,
    "logaddexp": TRANSCENDENTAL_ULPS,
    "logaddexp2": TRANSCENDENTAL_ULPS,
    "float_power": TRANSCENDENTAL_ULPS,
    "copysign": 0,
    "fmod": 0,
    "remainder": 0,
    "floor_divide": 0,
    "left_shift": 0,
    "right_shift": 0,
    "bitwise_and": 0,
    "bitwise_or": 0,
    "bitwise_xor": 0,
}
#: NumPy's own loops disagree on which zero fmax(0.0, -0.0) and maximum(0.0, -0.0) are (its
#: SIMD bodies and scalar tails differ; kiln's maximum orders -0.0 below +0.0, fmax is C's), so
#: zeros are compared by value, everything else (NaN handling included) exactly
ZERO_SIGN_UNSPECIFIED = ("fmax", "fmin", "maximum", "minimum")
PAIRS = [(d, d) for d in DTYPES] + [("int32", "float32"), ("float32", "float64"), ("int64", "int32"), ("bool", "int32")]


@pytest.mark.parametrize("da,db", PAIRS)
@pytest.mark.parametrize("name", sorted([*BINARY, *ZERO_SIGN_UNSPECIFIED]))
def test_binary(name: str, da: str, db: str) -> None:
    f = getattr(np, name)
    x, y = pairs(da, db)
    if name in ZERO_SIGN_UNSPECIFIED:
        try:
            with np.errstate(all="ignore"):
                want = f(x, y)
        except TypeError:
            with pytest.raises(TypeError):
                kiln.function(f)(x, y)
            return
        got = kiln.function(lambda a, b: f(a, b))(x, y)
        assert_same(np.where(got == 0, 0, got).astype(got.dtype), np.where(want == 0, 0, want).astype(want.dtype), 0)
        return
    check(lambda a, b: f(a, b), x, y, ulps=BINARY[name], loop=_loop(f, da, db))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_divmod(dtype: str) -> None:
    x, y = pairs(dtype, dtype)
    check(lambda a, b: np.divmod(a, b), x, y)
    check(lambda a, b: divmod(a, b), x, y)
    check(lambda a: divmod(a, 3), x)
    check(lambda a: divmod(-7, a), x)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_shift_operators(dtype: str) -> None:
    x, y = pairs(dtype, dtype)
    check(lambda a, b: (a << b, a >> b), x, y)
    check(lambda a: (a << 3, a >> 3, a << 40, a >> 40, a >> 63), x)
    check(lambda a: (1 << a, -8 >> a, np.left_shift(5, a)), x)


def test_shift_counts_past_the_width() -> None:
    x = np.array([1, -1, 5, -8, 2**30, -(2**31)], np.int32)
    for counts in ([31, 32, 33, 64, -1, -32], [0, 1, 2**31 - 1, -(2**31), 100, 30]):
        check(lambda a, b: (np.left_shift(a, b), np.right_shift(a, b)), x, np.array(counts, np.int32))


def test_bitwise_on_bools() -> None:
    a, b = pairs("bool", "bool")
    check(lambda x, y: (x & y, x | y, x ^ y, ~x, np.invert(x), np.bitwise_xor(x, True)), a, b)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_python_scalars_stay_weak(dtype: str) -> None:
    x = values(dtype)
    check(lambda a: (np.arctan2(a, 2.0), np.hypot(3, a), np.copysign(1.5, a), np.fmax(a, 0.5), np.fmin(2, a),
                     np.logaddexp(a, 1.0), np.fmod(a, 3), np.float_power(a, 2)), x, ulps=TRANSCENDENTAL_ULPS)


# --------------------------------------------------------------------------- functions


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 2, 3])
def test_round(dtype: str, decimals: int) -> None:
    x = values(dtype)
    if dtype.startswith("float"):
        x = np.concatenate([x, np.arange(-40, 40, dtype=dtype) * dtype_eps_step(dtype, decimals)])
    check(lambda a: (np.round(a, decimals), np.around(a, decimals=decimals), a.round(decimals)), x)


def dtype_eps_step(dtype: str, decimals: int) -> Any:
    """A grid step that puts values on and next to the halfway points of ``decimals``."""
    return np.asarray(0.5 * 10.0**-decimals, dtype)


def test_round_defaults_and_rejections() -> None:
    x = values("float64")
    check(lambda a: (np.round(a), np.around(a), a.round(), np.round(a, 20)), x)
    check(lambda a: round(a), x)  # TypeError: arrays have no __round__
    b = np.array([True, False])
    check(lambda a: np.round(a), b, loop=(np.dtype(np.float16),))  # rint: float16, as NumPy
    with pytest.raises(TypeError):
        np.round(b, 1)
    with pytest.raises(TypeError, match="np.round of a bool array"):
        kiln.function(lambda a: np.round(a, 1))(b)
    with pytest.raises(TypeError, match=r"test_ufuncs.py:\d+:\d+: np.round: decimals must be a Python int"):
        kiln.function(lambda a, d: np.round(a, d))(x, np.int64(2))
    with pytest.raises(NotImplementedError, match=r"np.round\(\.\.\., out=\) .* is not supported"):
        kiln.function(lambda a: np.round(a, 1, out=a))(x)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_clip_with_special_values(dtype: str) -> None:
    """NaN propagates; which zero clip(-0.0, None, 0) gives is NumPy's platform's (x86's maxps
    returns the second operand on ties, kiln orders -0.0 below +0.0): zeros compared by value."""
    x = values(dtype)
    fn = lambda a: (np.clip(a, -1.5, 2), np.clip(a, None, 0), np.clip(a, a[::-1], 3))  # noqa: E731
    with np.errstate(all="ignore"):
        want = fn(x)
    for g, w in zip(kiln.function(fn)(x), want, strict=True):
        assert_same(np.where(g == 0, 0, g).astype(g.dtype), np.where(w == 0, 0, w).astype(w.dtype), 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_to_num(dtype: str) -> None:
    x = values(dtype)
    check(lambda a: np.nan_to_num(a), x)
    check(lambda a: np.nan_to_num(a, nan=-1.0, posinf=1e3, neginf=-1e3), x)
    check(lambda a: np.nan_to_num(a, copy=False, posinf=1e300), x)


@pytest.mark.parametrize(
    "da,db", [("float32", "float32"), ("float64", "float32"), ("int32", "int32"), ("int64", "float64"), ("bool", "bool")]
)
def test_isclose_allclose(da: str, db: str) -> None:
    x, y = pairs(da, db)
    near = (x + (y.astype(x.dtype) * 1e-7 if x.dtype.kind == "f" else 0)).astype(x.dtype)
    check(lambda a, b: (np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.isclose(a, b, rtol=0.5, atol=1)), x, y)
    check(lambda a, b: (np.isclose(a, b), np.isclose(a, 1.0), np.isclose(2, b)), x, near)
    check(lambda a, b: (np.allclose(a, b), np.allclose(a, a), np.allclose(a, a, equal_nan=True)), x, y)


def test_allclose_gives_a_0d_bool_tensor() -> None:
    cf = kiln.function(lambda a, b: np.allclose(a, b)).get_concrete_function(np.ones(3), np.ones(3))
    assert re.search(r"\) -> tensor<i1>( attributes \{[^}]*\})? \{", cf.ir)
    f = kiln.function(lambda a, b: np.allclose(a, b, atol=0.1))
    assert f(np.ones(3), np.ones(3) + 0.05) == np.True_ and f(np.ones(3), np.ones(3) + 0.5) == np.False_
    assert f(np.ones(0), np.ones(0)) == np.True_  # NumPy: all() of nothing


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", ["frexp", "nextafter", "ldexp", "gcd", "spacing", "lcm"])
def test_other_ufuncs_stay_unsupported(name: str) -> None:
    f = getattr(np, name)
    args = (values("float64"),) * f.nin
    with pytest.raises(NotImplementedError, match=rf"np\.{name} is not supported inside kiln\.function"):
        kiln.function(lambda *a: f(*a))(*args)


# --------------------------------------------------------------------------- SIMD and CUDA


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_long_arrays_through_the_vector_loops(dtype: str) -> None:
    """sign, reciprocal, nan_to_num, deg2rad and isclose's arithmetic are vectorized (their
    bodies are lane-exact compares, selects and arithmetic); the libm ones stay scalar loops.
    (``tan(a) * 2``, not ``tan(a) + b``: a sum near zero would turn tan's few ulp of difference
    from NumPy's AVX-512 SIMD tan into many ulp of the sum.)"""
    x = np.tile(values(dtype), 7)[:1003]
    y = np.roll(x, 5)
    check(lambda a, b: (np.sign(a), np.reciprocal(a), np.nan_to_num(a), np.deg2rad(a), np.fmax(a, b) * 2,
                        np.tan(a) * 2, np.isclose(a, b), np.trunc(a), np.copysign(a, b)), x, y,
          ulps=TRANSCENDENTAL_ULPS)
    vector = kiln.function(lambda a: np.sign(a) + np.nan_to_num(a)).get_concrete_function(x).source
    assert "kiln_v" in vector  # the ISA's vector types: a vector loop
    scalar = kiln.function(lambda a: np.tan(a) * 2).get_concrete_function(x).source
    assert "kiln_v" not in scalar and "tan" in scalar


sys.path.insert(0, str(Path(__file__).parent))
HAS_NVCC = shutil.which("nvcc") is not None or Path("/usr/local/cuda/bin/nvcc").exists()


def _cuda_cases() -> list[tuple[Callable[..., Any], tuple[Any, ...]]]:
    f32, f64, i32, i64 = (values(d)[:40] for d in ("float32", "float64", "int32", "int64"))
    cases: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
    for x in (f32, f64):
        cases.append((lambda a: tuple(getattr(np, n)(a) for n in sorted(UNARY)), (x,)))
        floats = [n for n in sorted([*BINARY, *ZERO_SIGN_UNSPECIFIED]) if "shift" not in n and "bitwise" not in n]
        cases.append((lambda a, b: tuple(getattr(np, n)(a, b) for n in floats), (x, x)))
        cases.append((lambda a: (np.round(a, 2), np.nan_to_num(a), np.isclose(a, 1.0), np.allclose(a, a)), (x,)))
    for x in (i32, i64):
        cases.append((lambda a, b: (a << b, a >> b, np.fmod(a, b), np.reciprocal(a), np.sign(a), np.fmax(a, b),
                                    np.isnan(a), np.round(a, -1), divmod(a, b)), (x, x)))
    return cases


@pytest.mark.skipif(not HAS_NVCC, reason="nvcc is not installed")
def test_cuda_sources_compile_with_nvcc(tmp_path: Path) -> None:
    from test_cuda import _group

    from kiln.backends.cuda.toolchain import nvcc_command, run_nvcc

    sources = [kiln.function(fn, target="cuda").get_concrete_function(*args).source for fn, args in _cuda_cases()]
    assert all("tanf(" in s or "tan(" in s or "<<" in s for s in sources)
    path = tmp_path / "ufuncs.cu"
    path.write_text(_group(sources))
    run_nvcc(nvcc_command(path, path.with_suffix(".o"), compile_only=True), path)


def _cuda_device() -> str | None:
    from kiln.backends.cuda.device import device_error

    return device_error()


@pytest.mark.skipif(_cuda_device() is not None, reason="no CUDA device")
def test_on_the_gpu() -> None:
    """The same functions on a GPU: CUDA's device math library (up to 4 ulp for f32)."""
    for fn, args in _cuda_cases():
        check(fn, *args, ulps=TRANSCENDENTAL_ULPS, target="cuda")
