"""Differential tests over every dtype kiln supports: each compiled result equals eager
NumPy's in dtype and value (integers exactly), over the promotion grid, the integer ops at
their extremes, every cast, the reductions, weak Python scalars and NumPy scalar arguments."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree

RNG = np.random.default_rng(20240)
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
INTS = SIGNED + UNSIGNED
REALS = ["bool", *INTS, "float32", "float64"]


def values(dtype: str, n: int = 24) -> np.ndarray:
    """``n`` values of ``dtype``: its extremes, small numbers around zero, random ones."""
    dt = np.dtype(dtype)
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
        w = np.asarray(w)
        assert isinstance(g, np.ndarray), f"result {k}: {type(g)}"
        assert g.shape == w.shape, f"result {k}: shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"result {k}: dtype {g.dtype} != {w.dtype}"
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=f"result {k}")
        else:
            tol = {4: 2e-6, 8: 1e-13}[w.dtype.itemsize]
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=f"result {k}")


def check(fn: Callable[..., Any], *args: Any) -> None:
    """``fn`` compiled and run eagerly on NumPy give the same dtypes and values."""
    with np.errstate(all="ignore"):
        want = fn(*args)
    _compare(kiln.function(fn)(*args), want)


# --------------------------------------------------------------------------- promotion grid


def _grid_pairs(op: Callable[[Any, Any], Any]) -> list[tuple[str, str]]:
    """The dtype pairs on which NumPy defines ``op`` (it refuses e.g. bool - bool)."""
    pairs = []
    for a, b in itertools.product(REALS, repeat=2):
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
    data = {d: values(d) for d in REALS}

    def grid(*arrays: np.ndarray) -> tuple[Any, ...]:
        by = dict(zip(REALS, arrays))
        return tuple(op(by[a], by[b]) for a, b in pairs)

    check(grid, *(data[d] for d in REALS))


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


@pytest.mark.parametrize("src", REALS)
def test_casts(src: str) -> None:
    """``astype`` to every dtype: integer narrowing wraps, unsigned sources zero-extend,
    floats truncate toward zero (negative floats to unsigned wrap, as NumPy on x86-64)."""
    x = values(src) if src in ("bool", *INTS) else RNG.uniform(-120, 120, size=24).astype(src)
    check(lambda a: tuple(a.astype(d) for d in REALS), x)


def test_float_to_unsigned_in_range() -> None:
    x = np.array([0.0, 0.9, 1.5, 255.9, 65535.0, 4294967295.0, 1e19, 2.0**63, -1.0, -2.5], np.float64)
    check(lambda a: (a[:4].astype(np.uint8), a[:5].astype(np.uint16), a[:6].astype(np.uint32), a[:8].astype(np.uint64)), x)
    check(lambda a: tuple(a[8:].astype(d) for d in UNSIGNED), x)


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
    assert str(kiln_error.value) == str(numpy_error.value)


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
            _compare(got, tuple(np.asarray(w) for w in want))


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
