"""The vector level end to end: loops → kiln-vectorize → SIMD C for each ISA → run, against NumPy.

Every kernel is compiled for the scalar (GNU C vectors), AVX2 and AVX-512 tables; ISAs this
machine cannot run are compiled only. Sizes straddle the vector width and the tails.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.parser import Parser

from kiln.backends.c.emitter import emit_c
from kiln.backends.c.isa import host_runs, resolve_isa
from kiln.backends.c.toolchain import compile_shared
from kiln.backends.loader import load_function, signature_of
from kiln.universe import build_pipeline, make_context

ISAS = ("scalar", "avx2", "avx512")
SIZES = (0, 1, 15, 17, 1000, 100_003)
_T = {np.float32: "f32", np.float64: "f64"}


@pytest.fixture(scope="module", autouse=True)
def kiln_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KILN_CACHE_DIR", str(path))
        yield path


_built: dict[tuple[str, str], dict[str, Callable[..., Any]] | None] = {}


_sources: dict[tuple[str, str, str], str] = {}


def build(text: str, isa: str, tail: str = "auto") -> dict[str, Callable[..., Any]]:
    """Vectorize for ``isa``, emit, compile; skip running when the host lacks the ISA."""
    key = (text, isa, tail)
    if key not in _built:
        ctx = make_context()
        module = Parser(ctx, text).parse_module()
        build_pipeline(f"kiln-vectorize{{isa={isa} tail={tail}}},canonicalize,cse").apply(ctx, module)
        source = emit_c(module, isa=isa)
        _sources[key] = source
        assert ("vector<" in str(module)) and ("kiln_v" in source)
        so = compile_shared(source)
        _built[key] = {
            op.sym_name.data: load_function(so, op.sym_name.data, signature_of(op))
            for op in module.ops
            if isinstance(op, func.FuncOp)
        } if host_runs(isa) else None
    fns = _built[key]
    if fns is None:
        pytest.skip(f"compiled for {isa}; this machine cannot run it")
    return fns


def _loop1(name: str, t: str, body: str, ins: int = 1) -> str:
    args = ", ".join(f"%x{k}: memref<?x{t}>" for k in range(ins))
    loads = "\n".join(f"    %a{k} = memref.load %x{k}[%i] : memref<?x{t}>" for k in range(ins))
    return f"""func.func @{name}({args}, %out: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x0, %c0 : memref<?x{t}>
  scf.for %i = %c0 to %n step %c1 {{
{loads}
{body}
    memref.store %r, %out[%i] : memref<?x{t}>
  }}
  func.return
}}
"""


def _chain(t: str) -> str:
    return _loop1("chain", t, f"""    %one = arith.constant 1.0 : {t}
    %two = arith.constant 2.0 : {t}
    %three = arith.constant 3.0 : {t}
    %zero = arith.constant 0.0 : {t}
    %m = arith.mulf %two, %a0 : {t}
    %p = arith.addf %m, %one : {t}
    %relu = arith.maximumf %p, %zero : {t}
    %neg = arith.negf %a0 : {t}
    %e = math.exp %neg : {t}
    %d = arith.addf %one, %e : {t}
    %sig = arith.divf %one, %d : {t}
    %prod = arith.mulf %relu, %sig : {t}
    %third = arith.divf %a0, %three : {t}
    %r = arith.subf %prod, %third : {t}""")


def _chain_numpy(x: np.ndarray) -> np.ndarray:
    dt = x.dtype.type
    return np.maximum(dt(2) * x + dt(1), dt(0)) * (dt(1) / (dt(1) + np.exp(-x))) - x / dt(3)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_elementwise_chain(isa: str, dtype: type, n: int) -> None:
    fns = build(_chain(_T[dtype]), isa)
    x = np.random.default_rng(n).normal(0, 4, n).astype(dtype)
    out = np.full(n, np.nan, dtype)
    fns["chain"](x, out)
    np.testing.assert_allclose(out, _chain_numpy(x), rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).tiny)


_REDUCE_OPS = {"sum": ("addf", np.sum, 0.0), "max": ("maximumf", np.max, -np.inf), "min": ("minimumf", np.min, np.inf)}


def _reductions(t: str) -> str:
    """Row (axis 1) and column (axis 0) reductions in convert-linalg-to-loops' form."""
    out = []
    for name, (op, _, _) in _REDUCE_OPS.items():
        out.append(f"""func.func @{name}_rows(%x: memref<?x?x{t}>, %out: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?x{t}>
  %m = memref.dim %x, %c1 : memref<?x?x{t}>
  scf.for %i = %c0 to %n step %c1 {{
    scf.for %j = %c0 to %m step %c1 {{
      %a = memref.load %x[%i, %j] : memref<?x?x{t}>
      %acc = memref.load %out[%i] : memref<?x{t}>
      %s = arith.{op} %acc, %a : {t}
      memref.store %s, %out[%i] : memref<?x{t}>
    }}
  }}
  func.return
}}
func.func @{name}_cols(%x: memref<?x?x{t}>, %out: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?x{t}>
  %m = memref.dim %x, %c1 : memref<?x?x{t}>
  scf.for %i = %c0 to %n step %c1 {{
    scf.for %j = %c0 to %m step %c1 {{
      %a = memref.load %x[%i, %j] : memref<?x?x{t}>
      %acc = memref.load %out[%j] : memref<?x{t}>
      %s = arith.{op} %a, %acc : {t}
      memref.store %s, %out[%j] : memref<?x{t}>
    }}
  }}
  func.return
}}
""")
    out.append(f"""func.func @mean(%x: memref<?x{t}>, %out: memref<{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : {t}
  %n = memref.dim %x, %c0 : memref<?x{t}>
  memref.store %z, %out[] : memref<{t}>
  scf.for %i = %c0 to %n step %c1 {{
    %a = memref.load %x[%i] : memref<?x{t}>
    %acc = memref.load %out[] : memref<{t}>
    %s = arith.addf %acc, %a : {t}
    memref.store %s, %out[] : memref<{t}>
  }}
  %total = memref.load %out[] : memref<{t}>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to {t}
  %mean = arith.divf %total, %nf : {t}
  memref.store %mean, %out[] : memref<{t}>
  func.return
}}
""")
    return "".join(out)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 0), (1, 1), (2, 15), (17, 3), (5, 1000), (2, 100_003)])
@pytest.mark.parametrize("kind", list(_REDUCE_OPS))
def test_reductions_each_axis(isa: str, dtype: type, shape: tuple[int, int], kind: str) -> None:
    fns = build(_reductions(_T[dtype]), isa)
    _, ref, identity = _REDUCE_OPS[kind]
    x = np.random.default_rng(shape[1]).normal(0, 1, shape).astype(dtype)
    if kind != "sum" and x.size > 7:
        x.flat[7] = np.nan  # max/min propagate NaN like NumPy
    for axis, name in ((1, "rows"), (0, "cols")):
        out = np.full(shape[1 - axis], identity, dtype)
        fns[f"{kind}_{name}"](x, out)
        expect = ref(x, axis=axis, initial=identity) if kind != "sum" else np.sum(x.astype(np.float64), axis=axis)
        if kind == "sum":  # reassociated: error bounded by a few eps times the sum of magnitudes
            bound = 8 * np.finfo(dtype).eps * np.abs(x.astype(np.float64)).sum(axis=axis)
            assert np.all(np.abs(out - expect) <= bound)
        else:
            np.testing.assert_array_equal(out, expect.astype(dtype))


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("n", SIZES[1:])
def test_mean(isa: str, n: int) -> None:
    fns = build(_reductions("f32"), isa)
    x = np.random.default_rng(n).uniform(0, 1, n).astype(np.float32)
    out = np.zeros((), np.float32)
    fns["mean"](x, out)
    np.testing.assert_allclose(out, np.mean(x, dtype=np.float64), rtol=1e-5)


_BROADCAST = """func.func @affine(%x: memref<?x?xf32>, %s: memref<?xf32>, %b: memref<?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %a = memref.load %x[%i, %j] : memref<?x?xf32>
      %si = memref.load %s[%i] : memref<?xf32>
      %bj = memref.load %b[%j] : memref<?xf32>
      %p = arith.mulf %a, %si : f32
      %r = arith.addf %p, %bj : f32
      memref.store %r, %out[%i, %j] : memref<?x?xf32>
    }
  }
  func.return
}
"""


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("m", SIZES)
def test_broadcast(isa: str, m: int) -> None:
    fns = build(_BROADCAST, isa)
    rng = np.random.default_rng(m)
    x = rng.normal(size=(3, m)).astype(np.float32)
    s, b = rng.normal(size=3).astype(np.float32), rng.normal(size=m).astype(np.float32)
    out = np.empty_like(x)
    fns["affine"](x, s, b, out)
    np.testing.assert_array_equal(out, x * s[:, None] + b)


_PREDICATES = ("oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno")


def _compare(p: str) -> str:
    return _loop1(f"cmp_{p}", "f64", f"""    %c = arith.cmpf {p}, %a0, %a1 : f64
    %r = arith.select %c, %a0, %a1 : f64""", ins=2)


def _numpy_cmp(p: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        unordered = np.isnan(a) | np.isnan(b)
        base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": (a < b) | (a > b),
                "rd": ~unordered, "no": unordered}[p[1:] if p[1:] in ("eq", "gt", "ge", "lt", "le", "ne") else p[1:]]
    if p in ("ord", "uno"):
        return base
    return base | unordered if p[0] == "u" else base & ~unordered


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("pred", _PREDICATES)
def test_compare_select(isa: str, pred: str) -> None:
    fns = build(_compare(pred), isa)
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 2.5])
    a, b = (g.ravel() for g in np.meshgrid(vals, vals))
    a, b = np.tile(a, 3)[:131], np.tile(b, 3)[:131]
    out = np.empty_like(a)
    fns[f"cmp_{pred}"](a, b, out)
    expected = np.where(_numpy_cmp(pred, a, b), a, b)
    np.testing.assert_array_equal(out.view(np.int64), expected.view(np.int64))


_MAXMIN = _loop1("mx", "f32", """    %r0 = arith.maximumf %a0, %a1 : f32
    %r1 = arith.minimumf %a0, %a1 : f32
    %r2 = math.sqrt %r0 : f32
    %r3 = math.absf %r1 : f32
    %r = math.fma %r2, %r3, %r1 : f32""", ins=2)


@pytest.mark.parametrize("isa", ISAS)
def test_maximum_minimum_sqrt_abs_fma(isa: str) -> None:
    fns = build(_MAXMIN, isa)
    vals = np.array([0.0, -0.0, 1.0, -1.5, np.nan, np.inf, -np.inf, 2.5, 1e-40], np.float32)
    a, b = (np.tile(g.ravel(), 2) for g in np.meshgrid(vals, vals))
    out = np.empty_like(a)
    fns["mx"](a, b, out)
    with np.errstate(invalid="ignore"):
        mx, mn = np.maximum(a, b), np.minimum(a, b)
        zeros = (a == 0) & (b == 0)  # arith.maximumf/minimumf order -0 < +0; NumPy leaves it open
        mx[zeros] = np.where(np.signbit(a) & np.signbit(b), np.float32(-0.0), np.float32(0.0))[zeros]
        mn[zeros] = np.where(np.signbit(a) | np.signbit(b), np.float32(-0.0), np.float32(0.0))[zeros]
        expected = (np.sqrt(mx).astype(np.float64) * np.abs(mn) + mn).astype(np.float32)
    np.testing.assert_array_equal(out.view(np.int32), expected.view(np.int32))


def _max_min_constant(c: str) -> str:
    return _loop1("mxc", "f32", f"""    %c = arith.constant {c} : f32
    %m0 = arith.maximumf %a0, %c : f32
    %m1 = arith.minimumf %c, %a0 : f32
    %r = arith.subf %m0, %m1 : f32""")


def _ieee_max_min(a: np.ndarray, c: np.float32) -> tuple[np.ndarray, np.ndarray]:
    """arith.maximumf/minimumf of a and c: NaN propagates, -0 < +0."""
    cs = np.full_like(a, c)
    mx, mn = np.maximum(a, cs), np.minimum(a, cs)
    zeros = (a == 0) & (cs == 0)
    mx[zeros] = np.where(np.signbit(a) & np.signbit(cs), np.float32(-0.0), np.float32(0.0))[zeros]
    mn[zeros] = np.where(np.signbit(a) | np.signbit(cs), np.float32(-0.0), np.float32(0.0))[zeros]
    return mx, mn


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("c", ["0.0", "-0.0", "1.5", "-2.0"])
def test_maximum_minimum_with_constant(isa: str, c: str) -> None:
    """The short forms for a constant operand (maxps(c, a), + 0 for max with +0) keep NaN and ±0 exact."""
    fns = build(_max_min_constant(c), isa)
    vals = np.array([0.0, -0.0, 1.0, -1.5, np.nan, np.inf, -np.inf, 2.5, 1e-40, -2.0, 1.5], np.float32)
    a = np.tile(vals, 5)
    out = np.empty_like(a)
    fns["mxc"](a, out)
    with np.errstate(invalid="ignore"):
        mx, mn = _ieee_max_min(a, np.float32(float(c)))
        expected = mx - mn
    np.testing.assert_array_equal(out.view(np.int32), expected.view(np.int32))


_CAST = _loop1("cast", "f32", """    %b = arith.fptosi %a0 : f32 to i32
    %r = arith.sitofp %b : i32 to f32""")


@pytest.mark.parametrize("isa", ISAS)
def test_casts_stay_scalar_and_correct(isa: str) -> None:
    ctx = make_context()
    module = Parser(ctx, _CAST).parse_module()
    build_pipeline(f"kiln-vectorize{{isa={isa}}}").apply(ctx, module)
    assert "vector<" not in str(module)
    so = compile_shared(emit_c(module, isa=isa))
    fn = load_function(so, "cast", signature_of(next(o for o in module.ops if isinstance(o, func.FuncOp))))
    x = np.linspace(-100, 100, 1001).astype(np.float32)
    out = np.empty_like(x)
    fn(x, out)
    np.testing.assert_array_equal(out, np.trunc(x))


# --- vector math accuracy (docs/vector-math.md) --------------------------------------------------

#: max error in ulps: f32 against a float64 evaluation, f64 against NumPy
ULP_BOUND = {("exp", "f32"): 1.5, ("log", "f32"): 2.5, ("tanh", "f32"): 2.0, ("sigmoid", "f32"): 3.0,
             ("exp", "f64"): 1.5, ("log", "f64"): 2.5, ("tanh", "f64"): 2.5, ("sigmoid", "f64"): 4.5}


def _math_kernels(t: str) -> str:
    out = [_loop1(f"k_{fn}", t, f"    %r = math.{fn} %a0 : {t}") for fn in ("exp", "log", "tanh")]
    out.append(_loop1("k_sigmoid", t, f"""    %one = arith.constant 1.0 : {t}
    %neg = arith.negf %a0 : {t}
    %e = math.exp %neg : {t}
    %d = arith.addf %one, %e : {t}
    %r = arith.divf %one, %d : {t}"""))
    return "".join(out)


def math_inputs(fn: str, dtype: type) -> np.ndarray:
    """Random inputs over the whole useful range plus the edge cases."""
    rng = np.random.default_rng(1)
    fi = np.finfo(dtype)
    big = float(np.log(fi.max))
    if fn == "log":
        x = np.exp(rng.uniform(np.log(float(fi.smallest_subnormal)), big, 200_000))
        x = np.concatenate([x, rng.uniform(0.5, 2, 50_000)])
    else:
        x = np.concatenate([rng.uniform(-big - 20, big + 1, 200_000), rng.uniform(-1, 1, 50_000), rng.uniform(-1e-3, 1e-3, 1000)])
    edges = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, fi.tiny, fi.tiny / 3, fi.smallest_subnormal, fi.max, -fi.max,
             big, -big, np.log(float(fi.smallest_subnormal)), 0.625, -0.625, 1e-30, -1e-30]
    return np.concatenate([x, np.array(edges)]).astype(dtype)


def _reference(fn: str, x: np.ndarray) -> np.ndarray:
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        if fn == "sigmoid":
            return 1.0 / (1.0 + np.exp(-wide))
        return getattr(np, fn)(wide)


def ulp_error(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of the last place of ref rounded to got's type (0 where both agree)."""
    dtype = got.dtype.type
    with np.errstate(all="ignore"):
        ref_t = ref.astype(dtype)
        agree = (got == ref_t) | (np.isnan(got) & np.isnan(ref_t))
        spacing = np.spacing(np.abs(ref_t)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - ref) / spacing
    return np.where(agree, 0.0, np.nan_to_num(err, nan=np.inf))


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", ["exp", "log", "tanh", "sigmoid"])
def test_vector_math_accuracy(isa: str, dtype: type, fn: str) -> None:
    fns = build(_math_kernels(_T[dtype]), isa)
    x = math_inputs(fn, dtype)
    out = np.empty_like(x)
    fns[f"k_{fn}"](x, out)
    err = ulp_error(out, _reference(fn, x))
    if fn == "sigmoid":  # where exp(-x) overflows, 1/(1+exp(-x)) is 0 in this type (as in NumPy)
        overflow = -x.astype(np.float64) > np.log(float(np.finfo(dtype).max))
        assert np.all(out[overflow] == 0)
        err[overflow] = 0
    worst = int(np.argmax(err))
    assert err.max() <= ULP_BOUND[(fn, _T[dtype])], f"{fn}({x[worst]!r}) = {out[worst]!r}, {err.max():.2f} ulp"


def _every_f32(lo: float, hi: float) -> np.ndarray:
    """Every float32 from lo to hi (0 <= lo <= hi), in order."""
    a, b = np.array([lo, hi], np.float32).view(np.int32)
    return np.arange(a, b + 1, dtype=np.int32).view(np.float32)


@pytest.mark.parametrize("isa", ["scalar", "avx2"])
def test_exp_f32_every_input_of_some_binades(isa: str) -> None:
    """exp on every f32 in [1, 2) and [64, 89] of both signs, and on [-104, -64], where the
    results become denormal or 0: the reduction's every residue and both paths. AVX2 takes
    2^(j/8) from a table (docs/vector-math.md: 0.89 ulp over every input it handles)."""
    fns = build(_math_kernels("f32"), isa)
    bound = 1.0 if isa == "avx2" else ULP_BOUND[("exp", "f32")]
    for lo, hi in ((1.0, 2.0), (64.0, 89.0), (64.0, 104.0)):
        x = _every_f32(lo, hi)
        for part in (x, -x) if hi < 100 else (-x,):
            out = np.empty_like(part)
            fns["k_exp"](part, out)
            err = ulp_error(out, _reference("exp", part))
            worst = int(np.argmax(err))
            assert err.max() <= bound, f"exp({part[worst]!r}) = {out[worst]!r}: {err.max():.3f} ulp"


def test_isa_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_ISA", "scalar")
    assert resolve_isa() == "scalar"
    assert resolve_isa("avx2") == "avx2"
    monkeypatch.setenv("KILN_ISA", "sse9")
    with pytest.raises(ValueError, match="unknown ISA 'sse9'"):
        resolve_isa()


# -- masked tails --------------------------------------------------------------------------
#: (isa, tail): AVX2/AVX-512 use masked loads/stores by default; the scalar ISA keeps the
#: scalar tail by default and, forced, copies the tail through a stack buffer.
_TAILS = [("avx2", "auto"), ("avx512", "auto"), ("scalar", "auto"), ("scalar", "masked")]
_ODD = (1, 3, 7, 9, 15, 17, 1_000_003)
_MASKED_MARK = {"avx2": "_mm256_maskload_", "avx512": "_mm512_maskz_loadu_", "scalar": "tail["}


def _check_masked_source(text: str, isa: str, tail: str) -> None:
    source = _sources.get((text, isa, tail))
    if source is None:  # the build failed before emitting: that error is the one to see
        return
    masked = tail == "masked" or isa != "scalar"
    assert (_MASKED_MARK[isa] in source) == masked
    assert ("expf(" in source or " exp(" in source) == (not masked)  # no scalar libm tail


@pytest.mark.parametrize(("isa", "tail"), _TAILS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", _ODD)
def test_masked_tail_elementwise(isa: str, tail: str, dtype: type, n: int) -> None:
    """Odd sizes: the tail gives the same bits as the main loop for the same inputs."""
    text = _chain(_T[dtype])
    try:
        fns = build(text, isa, tail)
    finally:  # also when the host cannot run it (skip): the source is checked
        _check_masked_source(text, isa, tail)
    rng = np.random.default_rng(n)
    x = rng.normal(0, 4, n).astype(dtype)
    lanes = (64 if isa == "avx512" else 32 if isa == "avx2" else 16) // np.dtype(dtype).itemsize
    r = n % lanes
    if r and n > lanes:  # the tail's inputs repeat the first vector's
        x[n - r:] = x[:r]
    out = np.full(n, np.nan, dtype)
    fns["chain"](x, out)
    np.testing.assert_allclose(out, _chain_numpy(x), rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).tiny)
    if r and n > lanes:
        np.testing.assert_array_equal(out[n - r:].view(np.uint8), out[:r].view(np.uint8))


@pytest.mark.parametrize(("isa", "tail"), _TAILS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", _ODD[:-1])
@pytest.mark.parametrize("kind", list(_REDUCE_OPS))
def test_masked_tail_reductions(isa: str, tail: str, dtype: type, m: int, kind: str) -> None:
    """Masked-off lanes contribute the identity: a max of negatives, a min of positives,
    a sum of ones (a 0.0 filler lane would win the max/min)."""
    fns = build(_reductions(_T[dtype]), isa, tail)
    _, ref, identity = _REDUCE_OPS[kind]
    rng = np.random.default_rng(m)
    x = {"max": -rng.uniform(1, 2, (3, m)), "min": rng.uniform(1, 2, (3, m)), "sum": np.ones((3, m))}[kind].astype(dtype)
    out = np.full(3, identity, dtype)
    fns[f"{kind}_rows"](x, out)
    np.testing.assert_array_equal(out, ref(x, axis=1).astype(dtype))


def _guarded(nbytes: int) -> tuple[Any, int]:
    """An mmap of 2 pages whose second page is PROT_NONE; returns it and the guard's offset."""
    import ctypes
    import mmap

    page = mmap.PAGESIZE
    size = -(-nbytes // page) * page
    buf = mmap.mmap(-1, size + page)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert libc.mprotect(ctypes.c_void_p(addr + size), page, 0) == 0, ctypes.get_errno()  # PROT_NONE
    return buf, size


@pytest.mark.parametrize(("isa", "tail"), _TAILS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", (1, 3, 9, 17, 1003))
def test_masked_tail_does_not_touch_past_the_end(isa: str, tail: str, dtype: type, n: int) -> None:
    """Input and output end right before a PROT_NONE page: a wide load or store of the
    tail would fault (SIGSEGV)."""
    fns = build(_chain(_T[dtype]), isa, tail)
    item = np.dtype(dtype).itemsize
    src, end = _guarded(n * item)
    dst, end2 = _guarded(n * item)
    x = np.frombuffer(src, dtype, count=n, offset=end - n * item)
    out = np.frombuffer(dst, dtype, count=n, offset=end2 - n * item)
    x[:] = np.random.default_rng(n).normal(0, 4, n)
    out[:] = np.nan
    fns["chain"](x, out)
    np.testing.assert_allclose(out, _chain_numpy(x), rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).tiny)
