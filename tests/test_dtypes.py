"""Differential tests over every dtype kiln supports: each compiled result equals eager
NumPy's in dtype and value (integers exactly), over the promotion grid, the integer ops at
their extremes, every cast, the reductions, weak Python scalars and NumPy scalar arguments."""

from __future__ import annotations

import itertools
import re
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree

RNG = np.random.default_rng(20240)
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
INTS = SIGNED + UNSIGNED
REALS = ["bool", *INTS, "float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
ALL = REALS + COMPLEX


def values(dtype: str, n: int = 24) -> np.ndarray:
    """``n`` values of ``dtype``: its extremes, small numbers around zero, random ones."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        special = [0, -0.0, 1j, -1j, 2.5 - 1.5j, 1e-3 + 4j]
        rest = RNG.uniform(-50, 50, size=n) + 1j * RNG.uniform(-50, 50, size=n)
        return np.concatenate([np.array(special), rest])[:n].astype(dt)
    if dt.kind == "b":
        return RNG.random(n) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        edges = [info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2, 3, 7]
        if dt.kind == "i":
            edges += [-1, -2, -7]
        rest = RNG.integers(info.min, info.max, size=max(n - len(edges), 0), dtype=dt, endpoint=True)
        return np.concatenate([np.array(edges, dt), rest])[:n]
    return RNG.uniform(-50, 50, size=n).astype(dt)


def _compare(got: Any, want: Any) -> None:
    got_leaves, got_tree = pytree.flatten(got)
    want_leaves, want_tree = pytree.flatten(want)
    assert got_tree == want_tree
    for k, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        assert type(g) is type(w), f"result {k}: {type(g)}, NumPy's {type(w)}"  # scalars as NumPy gives them
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"result {k}: shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"result {k}: dtype {g.dtype} != {w.dtype}"
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=f"result {k}")
        else:
            tol = {16: 1e-3, 32: 2e-6, 64: 1e-13}[np.finfo(w.dtype).bits]
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=f"result {k}")


def check(fn: Callable[..., Any], *args: Any) -> None:
    """``fn`` compiled and run eagerly on NumPy give the same dtypes and values."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        want = fn(*args)
        got = kiln.function(fn)(*args)
    _compare(got, want)


# --------------------------------------------------------------------------- promotion grid


def _grid_pairs(op: Callable[[Any, Any], Any]) -> list[tuple[str, str]]:
    """The dtype pairs on which NumPy defines ``op`` (it refuses e.g. bool - bool)."""
    pairs = []
    for a, b in itertools.product(ALL, repeat=2):
        try:
            with np.errstate(all="ignore"):
                op(values(a, 2), values(b, 2))
        except TypeError:
            continue
        pairs.append((a, b))
    return pairs


GRID_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add,
    "multiply": np.multiply,
    "true_divide": np.true_divide,
    "floor_divide": np.floor_divide,
    "maximum": np.maximum,
    "less": np.less,
}


@pytest.mark.parametrize("name", sorted(GRID_OPS))
def test_promotion_grid(name: str) -> None:
    """``op(x, y)`` for every pair of dtypes (one compiled function for the whole grid): the
    result dtype is NumPy's promotion (uint8 + int8 -> int16, uint64 + int64 -> float64)."""
    op = GRID_OPS[name]
    pairs = _grid_pairs(op)
    data = {d: values(d) for d in ALL}

    def grid(*arrays: np.ndarray) -> tuple[Any, ...]:
        by = dict(zip(ALL, arrays))
        return tuple(op(by[a], by[b]) for a, b in pairs)

    check(grid, *(data[d] for d in ALL))


def test_numpy_refuses_what_kiln_refuses() -> None:
    """Pairs NumPy has no loop for raise NumPy's TypeError when traced."""
    with pytest.raises(TypeError):
        kiln.function(lambda a, b: a - b)(values("bool"), values("bool"))
    with pytest.raises(TypeError):
        kiln.function(lambda a: -a)(values("bool"))


# --------------------------------------------------------------------------- integer ops


def _int_ops(x: np.ndarray, y: np.ndarray, e: np.ndarray) -> tuple[Any, ...]:
    return (
        x + y, x - y, x * y, x // y, x % y, x**e, np.maximum(x, y), np.minimum(x, y),
        x < y, x <= y, x > y, x >= y, x == y, x != y,
        x & y, x | y, x ^ y, ~x, -x, abs(x), np.abs(x), +x, np.square(x),
        x / y, np.floor(x), np.ceil(x), kiln.relu(x), np.where(x > y, x, y),
    )  # fmt: skip


@pytest.mark.parametrize("dtype", INTS)
def test_integer_ops(dtype: str) -> None:
    """Wraparound on overflow, NumPy's 0 for a zero divisor, unsigned division, comparison,
    max/min and power, negation and abs wrapping at the extremes."""
    x, y = values(dtype), values(dtype)[::-1].copy()
    e = (values(dtype) % 70).astype(dtype)  # powers past the width too, never negative
    check(_int_ops, x, y, e)


@pytest.mark.parametrize("dtype", INTS)
def test_division_signs_and_zero(dtype: str) -> None:
    info = np.iinfo(dtype)
    vals = [v for v in (-7, -1, 0, 1, 7, 5, -5, int(info.min), int(info.max)) if info.min <= v <= info.max]
    x = np.array([a for a in vals for _ in vals], dtype)
    y = np.array([b for _ in vals for b in vals], dtype)
    check(lambda a, b: (a // b, a % b, a // 4, a % 4, a // 3, a % 8), x, y)


def test_unsigned_power_with_huge_exponents() -> None:
    """uint64 exponents >= 2**63 (negative when read as signed) and powers past 64 bits."""
    x = np.array([3, 2, 5, 0, 1, 2**64 - 1, 7, 6], np.uint64)
    e = np.array([2**63 + 5, 2**63, 2**64 - 1, 2**63 + 1, 2**64 - 2, 3, 64, 65], np.uint64)
    check(lambda a, b: a**b, x, e)
    check(lambda a, b: a**b, x.astype(np.uint8), (e % 256).astype(np.uint8))


def test_matmul_and_dot_of_small_and_unsigned_ints() -> None:
    for dtype in ("int8", "uint8", "uint16", "uint64"):
        a = RNG.integers(0, 40, size=(3, 5)).astype(dtype)
        b = RNG.integers(0, 40, size=(5, 4)).astype(dtype)
        check(lambda p, q: (p @ q, np.dot(p, q), p @ q[:, 0]), a, b)


# --------------------------------------------------------------------------- casts


@pytest.mark.parametrize("src", ALL)
def test_casts(src: str) -> None:
    """``astype`` to every dtype: integer narrowing wraps, unsigned sources zero-extend,
    floats truncate toward zero (negative floats to unsigned wrap, as NumPy on x86-64)."""
    x = values(src) if src in ("bool", *INTS) else RNG.uniform(-120, 120, size=24).astype(src)
    if src in COMPLEX:
        x = x + 1j * RNG.uniform(-5, 5, size=24)
    check(lambda a: tuple(a.astype(d) for d in ALL), x)


def test_float_to_unsigned_in_range() -> None:
    x = np.array([0.0, 0.9, 1.5, 255.9, 65535.0, 4294967295.0, 1e19, 2.0**63, -1.0, -2.5], np.float64)
    check(lambda a: (a[:4].astype(np.uint8), a[:5].astype(np.uint16), a[:6].astype(np.uint32), a[:8].astype(np.uint64)), x)
    check(lambda a: tuple(a[8:].astype(d) for d in UNSIGNED), x)


# --------------------------------------------------------------------------- float16

ALL_HALVES = np.arange(2**16, dtype=np.uint16).view(np.float16)  # every float16, NaNs and infinities too

HALF_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "power": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "less": np.less, "not_equal": np.not_equal,
    "sqrt": lambda a, b: np.sqrt(a), "exp": lambda a, b: np.exp(a), "log": lambda a, b: np.log(a),
    "tanh": lambda a, b: np.tanh(a), "sin": lambda a, b: np.sin(a), "cos": lambda a, b: np.cos(a),
    "sigmoid": lambda a, b: kiln.sigmoid(a), "floor": lambda a, b: np.floor(a), "negative": lambda a, b: -a,
    "absolute": lambda a, b: np.abs(a), "relu": lambda a, b: kiln.relu(a),
    "from float64": lambda a, b: (a.astype(np.float64) / 3).astype(np.float16),
    "from float32": lambda a, b: (a.astype(np.float32) * np.float32(1.1)).astype(np.float16),
    "from int32": lambda a, b: (np.where(np.abs(a) < 6e4, a, 0).astype(np.int32) * 37).astype(np.float16),
    "to int16": lambda a, b: np.where(np.abs(a) < 3e4, a, 0).astype(np.int16),
}  # fmt: skip


#: functions NumPy computes with its own SIMD code on some CPUs (AVX-512: exp, log, arctan2 ...;
#: NumPy documents those as within 4 ulp) and with libm on others: there its results differ
#: from libm's, hence from kiln's, by a few ulp
CPU_DEPENDENT = frozenset({"exp", "log", "tanh", "sin", "cos", "sigmoid", "angle", "angle deg"})


def _within_simd_ulps(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Equal, or within NumPy's documented 4 ulp of its SIMD functions (NaN where NumPy has NaN)."""
    with np.errstate(all="ignore"):
        near = np.abs(g.astype(np.float64) - w.astype(np.float64)) <= 4 * np.spacing(np.abs(w)).astype(np.float64)
    return (g == w) | near | (np.isnan(g) & np.isnan(w))


def test_float16_is_bit_exact_on_every_value() -> None:
    """Every float16 (and its mirror image as the second operand) through every op: the bits
    equal NumPy's, whose float16 loops compute in float32 and round once per op, as kiln does.
    The functions of CPU_DEPENDENT are libm's float32 functions rounded to float16: equal to
    NumPy's where NumPy calls libm (AVX2), within its 4 ulp where it has SIMD code of its own."""
    x, y = ALL_HALVES, ALL_HALVES[::-1].copy()

    def every_op(a: Any, b: Any) -> tuple[Any, ...]:
        return tuple(op(a, b) for op in HALF_OPS.values())

    with np.errstate(all="ignore"):
        want = every_op(x, y)
    got = kiln.function(every_op)(x, y)
    for name, g, w in zip(HALF_OPS, got, want):
        assert g.dtype == w.dtype, name
        same = (g == w) | (np.isnan(g) & np.isnan(w)) if w.dtype.kind == "f" else g == w
        if w.dtype == np.float16:
            same &= (np.signbit(g) == np.signbit(w)) | np.isnan(w)
        if name in CPU_DEPENDENT:
            same = _within_simd_ulps(g, w)
        assert same.all(), f"{name}: {int((~same).sum())} values differ, e.g. x={x[~same][:3]} -> {g[~same][:3]}, NumPy {w[~same][:3]}"


def test_float16_sums_accumulate_in_float32() -> None:
    """NumPy sums (and takes the mean and product of) float16 in float32 and rounds once: a
    sum of 10000 ones is 10000, where float16 additions would stop at 2048."""
    ones = np.ones(10000, np.float16)
    check(lambda a: (np.sum(a), np.mean(a), a.reshape(100, 100).sum(axis=1), np.prod(a[:20] * np.float16(1.5))), ones)
    x = RNG.uniform(-1, 1, 5000).astype(np.float16)
    check(lambda a: (np.sum(a), np.mean(a), np.sum(a.astype(np.float32), dtype=np.float16)), x)


@pytest.mark.parametrize(
    "shape,axis",
    [((40, 30), 0), ((40, 30), 1), ((40, 30), None), ((6, 7, 8), 1), ((6, 7, 8), (1, 2)), ((6, 7, 8), (0, 1)),
     ((50, 1), 0), ((1, 50), 1), ((3, 50, 1), 1)],
)
def test_float16_reductions_round_where_numpy_does(shape: tuple[int, ...], axis: Any) -> None:
    """Bit for bit: along the last axis (length-1 axes aside) float32 accumulation, along an
    outer axis one float16 rounding per addition, as NumPy's iteration does it."""
    x = RNG.uniform(-30, 30, shape).astype(np.float16)

    def f(a: Any) -> Any:
        return np.sum(a, axis=axis), np.sum(a, axis=axis, keepdims=True), np.prod(a / 16, axis=axis), np.mean(a, axis=axis)

    with np.errstate(all="ignore"):
        want = f(x)
    for g, w in zip(kiln.function(f)(x), want):
        assert g.dtype == w.dtype == np.float16
        np.testing.assert_array_equal(g, w)


def test_float16_matmul_accumulates_in_float32() -> None:
    a = RNG.uniform(-1, 1, (30, 40)).astype(np.float16)
    b = RNG.uniform(-1, 1, (40, 20)).astype(np.float16)
    with np.errstate(all="ignore"):
        want = (a @ b, np.dot(a, b[:, 0]))
    got = kiln.function(lambda p, q: (p @ q, np.dot(p, q[:, 0])))(a, b)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.float16
        np.testing.assert_array_max_ulp(g, w, maxulp=1)


def test_float16_promotion_with_scalars() -> None:
    x = values("float16")
    check(lambda a: (a * 2.5, a + 1, a + np.float32(1), a + np.int8(3), a + np.int16(3), a / 7, a > 0.1, np.exp(a.astype(np.int8))), x)


# --------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("dtype", REALS)
def test_reductions(dtype: str) -> None:
    """np.sum of uint8 is uint64, of int8 int64; mean is float64; max/min keep the dtype."""
    x = values(dtype, 24).reshape(4, 6)
    if dtype in INTS:
        x = (x % 50).astype(dtype)  # products without float-like overflow differences
    check(
        lambda a: (
            np.sum(a), a.sum(axis=0), np.sum(a, axis=1, keepdims=True), np.prod(a[:2], axis=0),
            np.mean(a), a.mean(axis=1), np.sum(a, dtype=np.int16),
        ) + ((np.max(a), a.max(axis=0), np.min(a, axis=1)) if dtype != "bool" else ()),
        x,
    )  # fmt: skip


# --------------------------------------------------------------------------- scalars


@pytest.mark.parametrize("dtype", INTS)
def test_python_scalars_are_weak(dtype: str) -> None:
    x = values(dtype)
    check(lambda a: (a + 3, 5 * a, 100 - a, a // 3, a % 7, a > 1, a * 1.5, a == 0), x)


@pytest.mark.parametrize("dtype,scalar", [("uint8", 300), ("uint8", -1), ("int8", 128), ("uint64", -1), ("int16", 2**15)])
def test_out_of_range_python_int_raises_like_numpy(dtype: str, scalar: int) -> None:
    """NEP 50: a Python int that does not fit the array's dtype is an OverflowError."""
    x = values(dtype)
    with pytest.raises(OverflowError) as numpy_error:
        x + scalar
    with pytest.raises(OverflowError) as kiln_error:
        kiln.function(lambda a: a + scalar)(x)
    assert re.fullmatch(r".*test_dtypes\.py:\d+: " + re.escape(str(numpy_error.value)), str(kiln_error.value))


@pytest.mark.parametrize("dtype", INTS)
def test_comparison_with_out_of_range_python_ints(dtype: str) -> None:
    """NumPy compares exactly with any Python int, also beyond int64 and uint64."""
    x = values(dtype)
    big, small = 2**64 + 3, -(2**64) - 3
    check(lambda a: (a < -1, a >= 2**63, a == 2**64, a != -1, a > big, small < a, a <= small, big == a, 2**63 > a), x)


def test_int64_compared_with_two_to_the_63() -> None:
    """2**63 - 1 < 2**63 (a float64 comparison would round both to 2**63)."""
    x = np.array([2**63 - 1, 0, -(2**63)], np.int64)
    check(lambda a: (a < 2**63, a >= 2**63, a > -(2**63) - 1, a == 2**63), x)


def test_numpy_scalar_arguments() -> None:
    """NumPy scalars of every dtype are 0-d tensors, passed by value to the native entry."""
    fn = kiln.function(lambda a, b: (a + b, a * 2, b))
    for dtype in REALS:
        a, b = np.dtype(dtype).type(values(dtype)[3]), np.dtype(dtype).type(values(dtype)[1])
        with np.errstate(all="ignore"):
            want = (a + b, a * 2, b) if dtype != "bool" else (a | b, a * 2, b)
        for _ in range(2):  # the second call takes the native entry's fast path
            got = fn(a, b) if dtype != "bool" else kiln.function(lambda p, q: (p | q, p * 2, q))(a, b)
            _compare(got, want)


def test_unsupported_argument_dtype_names_the_argument() -> None:
    def f(x, y):
        return x

    with pytest.raises(TypeError, match=r"argument 'y' has dtype <U3, which kiln does not support; supported: bool, int8"):
        kiln.function(f)(np.zeros(2, np.float32), np.array(["abc"]))
    with pytest.raises(TypeError, match=r"argument 'x' \(an array inside it\) has dtype object"):
        kiln.function(f)([np.array([None])], 1)


def test_print_of_unsigned(capfd: pytest.CaptureFixture[str]) -> None:
    @kiln.function
    def f(x: np.ndarray) -> None:
        kiln.print("x =", x, x.astype(np.int8))

    x = np.array([0, 200, 255], np.uint8)
    f(x)
    assert capfd.readouterr().out == f"x = {x} {x.astype(np.int8)}\n"
    with pytest.raises(NotImplementedError, match="uint64"):
        f(x.astype(np.uint64))


def test_print_of_float16_is_refused() -> None:
    with pytest.raises(NotImplementedError, match="kiln.print of a float16 tensor"):
        kiln.function(lambda x: kiln.print(x))(values("float16"))


# --------------------------------------------------------------------------- CUDA


@pytest.mark.parametrize("dtype", ["float16", "complex64", "complex128"])
def test_cuda_refuses_dtypes_it_cannot_compute(dtype: str) -> None:
    def f(a: Any) -> Any:
        return a * 2

    with pytest.raises(Exception, match=f"the CUDA target does not support dtype {dtype}; compile for target='c'") as info:
        kiln.function(f, target="cuda").get_concrete_function(values(dtype)).source
    assert "test_dtypes.py" in str(info.value)  # the user's line


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_compiles_small_and_unsigned_ints(tmp_path: Path) -> None:
    from kiln.backends.cuda.toolchain import nvcc_command, run_nvcc

    for dtype in ("uint8", "int16", "uint64"):
        x = values(dtype)
        source = kiln.function(_int_ops, target="cuda").get_concrete_function(x, x, x).source
        path = tmp_path / f"{dtype}.cu"
        path.write_text(source)
        run_nvcc(nvcc_command(path, path.with_suffix(".o"), compile_only=True), path)


# --------------------------------------------------------------------------- complex

COMPLEX_SPECIAL = [0, -0.0 - 0.0j, 1j, complex(np.nan, 1), complex(1, np.nan), complex(np.inf, 2), complex(-2, np.inf),
                   complex(np.inf, np.nan), 3 + 4j, 1e-300 + 1e300j]


def _complex_operands(dtype: str, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    x = (RNG.uniform(-3, 3, n) + 1j * RNG.uniform(-3, 3, n)).astype(dtype)
    y = (RNG.uniform(-3, 3, n) + 1j * RNG.uniform(-3, 3, n)).astype(dtype)
    k = len(COMPLEX_SPECIAL)
    x[:k] = COMPLEX_SPECIAL
    y[k : 2 * k] = COMPLEX_SPECIAL
    y[2 * k : 3 * k] = x[2 * k : 3 * k]  # equal operands
    y[3 * k] = complex(x[3 * k].real, 7)  # equal real parts
    return x, y


COMPLEX_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "negative": lambda a, b: -a, "conj": lambda a, b: np.conj(a), "conjugate": lambda a, b: a.conjugate(),
    "abs": lambda a, b: abs(a), "real": lambda a, b: a.real, "imag": lambda a, b: np.imag(a),
    "angle": lambda a, b: np.angle(a), "angle deg": lambda a, b: np.angle(a, deg=True),
    "exp": lambda a, b: np.exp(a), "log": lambda a, b: np.log(a), "sqrt": lambda a, b: np.sqrt(a),
    "sin": lambda a, b: np.sin(a), "cos": lambda a, b: np.cos(a), "tanh": lambda a, b: np.tanh(a),
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal, "maximum": np.maximum, "minimum": np.minimum,
    "square": lambda a, b: np.square(a), "** 2": lambda a, b: a**2, "** -1": lambda a, b: a**-1,
    "** 0.5": lambda a, b: a**0.5, "power 2": lambda a, b: np.power(a, 2), "power 3.0": lambda a, b: np.power(a, 3.0),
    "** 3": lambda a, b: a**3, "power 5": lambda a, b: np.power(a, 5),  # unfused products, the loop vectorized by gcc
    "** 7": lambda a, b: a**7, "** -4": lambda a, b: a**-4, "** 0": lambda a, b: a**0, "reciprocal": lambda a, b: np.reciprocal(a),
    "with Python complex": lambda a, b: a * (2 - 1j) + 1j, "to bool": lambda a, b: a.astype(bool),
    "logical_and": np.logical_and, "where": lambda a, b: np.where(a.real > 0, a, 1j),
    "sigmoid": lambda a, b: kiln.sigmoid(a), "relu": lambda a, b: kiln.relu(a),
}  # fmt: skip


def _same_bits(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Equal values with equal signs (of zeros too), NaN where NumPy has NaN."""
    if w.dtype.kind != "f":
        return g == w
    return ((g == w) & (np.signbit(g) == np.signbit(w))) | (np.isnan(g) & np.isnan(w))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_ops_are_bit_exact(dtype: str) -> None:
    """Every complex op, special values (0, -0, NaN and infinite parts, equal real parts)
    included, gives NumPy's bits: the arithmetic is NumPy's formulas on the parts (its FMA
    multiply, Smith's division, its hypot-like abs, lexicographic order), the functions glibc's
    (``angle`` within 4 ulp: NumPy's arctan2 is its own SIMD code on AVX-512)."""
    x, y = _complex_operands(dtype)

    def every_op(a: Any, b: Any) -> tuple[Any, ...]:
        return tuple(op(a, b) for op in COMPLEX_OPS.values())

    with np.errstate(all="ignore"):
        want = every_op(x, y)
        got = kiln.function(every_op)(x, y)
    for name, g, w in zip(COMPLEX_OPS, got, want):
        assert g.dtype == w.dtype, name
        same = _same_bits(g.real, w.real) & _same_bits(g.imag, w.imag) if w.dtype.kind == "c" else _same_bits(g, w)
        if name in CPU_DEPENDENT and w.dtype.kind == "f":  # angle: NumPy's own SIMD arctan2 on AVX-512
            same = _within_simd_ulps(g, w)
        assert same.all(), f"{name}: {int((~same).sum())} differ, e.g. x={x[~same][:3]}: {g[~same][:3]}, NumPy {w[~same][:3]}"


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_reductions_and_products(dtype: str) -> None:
    x = (RNG.uniform(-1, 1, (6, 8)) + 1j * RNG.uniform(-1, 1, (6, 8))).astype(dtype)
    w = (RNG.uniform(-1, 1, (8, 5)) + 1j * RNG.uniform(-1, 1, (8, 5))).astype(dtype)
    check(
        lambda a, b: (np.sum(a), a.sum(axis=0), np.mean(a, axis=1), np.prod(a, axis=1), np.prod(a), a.mean(),
                      np.max(a), np.min(a, axis=0), a @ b, np.dot(a[0], b[:, 0]), a.T @ a.conj()),
        x, w,
    )  # fmt: skip


def test_complex_promotion_and_constants() -> None:
    """Real with complex: float32 with a Python complex is complex64, float64 with complex64
    complex128, int16 with complex64 complex64; constants of complex arrays and NumPy scalars."""
    f32, f64, i16 = values("float32"), values("float64"), values("int16")
    c64 = values("complex64")
    check(
        lambda a, b, c, z: (a * 1j, b + z, c + z, z + np.complex128(1 - 2j), z * np.array([1j, 2, -1j] * 8),
                            a + 1j * b, np.where(a > 0, z, 2j), -2.0j * np.pi * a / 3, np.sum(z) * (1 + 2j),
                            np.float32(2) * 1j),
        f32, f64, i16, c64,
    )  # fmt: skip


def test_complex_numpy_scalar_arguments() -> None:
    fn = kiln.function(lambda a, b: (a * b, abs(a), a.real))
    for dtype in COMPLEX:
        a, b = np.dtype(dtype).type(1.5 - 2j), np.dtype(dtype).type(0.25 + 3j)
        for _ in range(2):
            _compare(fn(a, b), (a * b, abs(a), a.real))


def test_complex_to_real_cast_warns_like_numpy() -> None:
    with pytest.warns(np.exceptions.ComplexWarning):
        kiln.function(lambda z: z.astype(np.float64)).get_concrete_function(values("complex128"))


@pytest.mark.parametrize(
    "fn",
    [lambda z: np.floor(z), lambda z: z // 2, lambda z: z % 2, lambda z: np.ceil(z), lambda z: ~z, lambda z: z & z],
)
def test_complex_ops_numpy_refuses(fn: Callable[[Any], Any]) -> None:
    z = values("complex128")
    with pytest.raises(TypeError):
        fn(z)
    with pytest.raises(TypeError):
        kiln.function(fn)(z)


@pytest.mark.parametrize(
    "fn,what",
    [(lambda z: z**0.3, "to the power 0.3"), (lambda z: z ** np.abs(z), "array exponent"),
     (lambda z: np.power(z, 200), "to the power 200"), (lambda z: kiln.print(z), "kiln.print of a complex128")],
)  # fmt: skip
def test_complex_unsupported_is_named(fn: Callable[[Any], Any], what: str) -> None:
    with pytest.raises(NotImplementedError, match=what):
        kiln.function(fn)(values("complex128"))


# --------------------------------------------------------------------------- beyond elementwise


def test_new_dtypes_through_loops_variables_and_dynamic_shapes() -> None:
    """A staged loop carrying complex and uint8 values, variables of uint8 and complex128, and
    dynamic sizes of uint16, complex64 and float16 arguments."""

    def mandelbrot(c: Any, n: int) -> Any:
        z = np.zeros_like(c)
        count = np.zeros(c.shape, np.int64)
        for _ in range(n):
            z = np.where(abs(z) < 2.0, z**2 + c, z)
            count = count + (abs(z) < 2.0)
        return z, count

    c = np.linspace(-2, 1, 30)[None, :] + 1j * np.linspace(-1.5, 1.5, 20)[:, None]
    check(mandelbrot, c, 25)

    def staged(x: Any) -> Any:
        s = np.complex128(0)  # (a 0-d array here would be a scalar after the loop only if it ran: see numpy-semantics.md)
        for i in kiln.range(4):
            s = s + x[i] * (1 + 1j)
        t, k = np.uint8(0), 0
        while k < 300:
            t = t + np.uint8(1)
            k += 1
        return s, t

    with np.errstate(over="ignore"):
        want = staged(np.arange(4.0))
    _compare(kiln.function(staged)(np.arange(4.0)), want)

    counts = kiln.Variable(np.array([250, 3], np.uint8))
    phase = kiln.Variable(np.array([1 + 1j]))

    @kiln.function
    def step(x: Any) -> Any:
        counts.assign_add(x)
        phase.assign(phase.read_value() * 1j)
        return counts.read_value(), phase.read_value()

    step(np.array([10, 1], np.uint8))
    got = step(np.array([10, 1], np.uint8))
    np.testing.assert_array_equal(got[0], np.array([14, 5], np.uint8))
    np.testing.assert_array_equal(got[1], np.array([-1 - 1j]))

    specs = [kiln.TensorSpec([None], "uint16"), kiln.TensorSpec([None, 3], "complex64"), kiln.TensorSpec([None], "float16")]
    dynamic = kiln.function(lambda u, z, h: (u * 3 + 7, z.sum(axis=0), (z * 2).real.max(), h * h + 1), input_signature=specs)
    for n in (4, 9):
        u, z = np.arange(n, dtype=np.uint16) * 9000, (np.arange(3 * n) + 1j).reshape(n, 3).astype(np.complex64)
        h = np.linspace(0, 3, n).astype(np.float16)
        with np.errstate(over="ignore"):
            want = dynamic.python_function(u, z, h)
        _compare(dynamic(u, z, h), want)


def test_large_odd_sizes_of_every_dtype() -> None:
    """Long loops with a tail (gcc's vectorization of kiln's scalar loops, kiln's own SIMD for
    the float32/float64 parts) on every dtype."""
    n = 1003
    data = [values(d, n) if d not in ("float16",) else RNG.uniform(-4, 4, n).astype(d) for d in ALL]

    def f(*arrays: Any) -> Any:
        out = []
        for a in arrays:
            if a.dtype.kind in "iu":
                out += [a * 3 + a // 7, np.maximum(a, a[::-1]), a.astype(np.float32) * 0.5, (a > 5).sum()]
            elif a.dtype.kind == "b":
                out += [a & a[::-1], a.sum()]
            else:
                out += [a * a - a / 3, np.abs(a), np.exp(a / 64), a.sum() if a.dtype.kind == "c" else a.max()]
        return tuple(out)

    check(f, *data)


@pytest.mark.parametrize("shape", [(2,), (3,), (2, 5), (7,), (4, 4)])
def test_narrowing_round_trips_round_like_numpy(shape: tuple[int, ...]) -> None:
    """``x.astype(f32).astype(f64)`` rounds every element (gcc 12's straight-line vectorizer
    dropped the round trip on two-element groups: the kernel is compiled with it off)."""

    def round_trip(x):
        return x.astype(np.float32).astype(np.float64), x.astype(np.float16).astype(np.float64)

    x = np.random.default_rng(3).random(shape)
    for got, want in zip(kiln.function(round_trip)(x), round_trip(x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def _set_one(x):
    y = x.copy()
    y[0] = 1000
    return y


def _fill(x):
    y = x.copy()
    y.fill(-129)
    return y


def _set_slice_list(x):
    y = x.copy()
    y[:2] = [1, 300]
    return y


def _set_nan(x):
    y = x.copy()
    y[1] = float("nan")
    return y


PYTHON_INTS_OUT_OF_RANGE: list[Callable[[np.ndarray], Any]] = [
    _set_one, _fill, _set_slice_list, _set_nan,
    lambda x: np.full(3, 1000, dtype=x.dtype),
    lambda x: np.full_like(x, 1000),
    lambda x: np.array([1, 1000], dtype=x.dtype),
    lambda x: np.where(x > 1, x, 1000),
    lambda x: np.where(x > 1, -129, x),
    lambda x: np.clip(x, 0, 1000),
    lambda x: np.clip(x, -1000, 1),
    lambda x: np.clip(x, 200, 300),
    lambda x: x.clip(None, 127),
    lambda x: np.maximum(x, 1000),
    lambda x: x == 1000,
]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("fn", PYTHON_INTS_OUT_OF_RANGE)
def test_python_ints_beyond_an_integer_dtype(fn: Callable[[np.ndarray], Any], dtype: str) -> None:
    """NumPy 2 (NEP 50) raises OverflowError for a Python int an integer array cannot hold where it
    converts it (setitem, fill, np.full, np.array, ufuncs), casts it in np.where, and ignores a
    clip bound beyond the dtype's range. kiln does the same: it wrapped 1000 to -24 in the first
    and raised in the others; every error it raises names the line."""
    x = np.arange(4, dtype=dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want = fn(x.copy())
    except (OverflowError, ValueError) as error:
        with pytest.raises(type(error)) as info:
            kiln.function(fn)(x.copy())
        assert "test_dtypes.py:" in str(info.value)
        return
    got = kiln.function(fn)(x.copy())
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [
    lambda x: x * float(x.sum()),
    lambda x: x.astype(np.int8) + int(x.sum()),
    lambda x: x * x.sum().item(),
    lambda x: x.astype(np.int16) * x[:1].astype(np.int8).item(),
    lambda x: (x.sum().item(), float(x[0]), int(x[1])),
    lambda x: x * round(x.sum() / 3),
    lambda x: (round(x[0] * 2.5), round(x[0] * 3.5), round(x[0] * -0.5), round(x.sum() / 3, 1)),
])
def test_python_numbers_made_from_arrays_are_weak(fn: Callable[[np.ndarray], Any]) -> None:
    """float(x), int(x) and x.item() are Python numbers in NumPy, weak to its promotion
    (`float32_array * float(s)` stays float32); kiln made them strong float64/int64 scalars."""
    x = np.arange(1, 5, dtype=np.float32)
    check(fn, x)
