"""Differential tests: every op compiled to C vs the same Python run eagerly on NumPy.

Each case is a Python function and its inputs; the compiled result must equal
NumPy's in shape, dtype and value (exactly for integers and bools; to a few
ulps for floats, where libm and NumPy's SIMD transcendentals differ slightly and
reductions may sum in another order).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree

RNG = np.random.default_rng(1234)
DTYPES = ["bool", "int32", "int64", "float32", "float64"]
NUMERIC = ["int32", "int64", "float32", "float64"]
FLOATS = ["float32", "float64"]


def arr(shape: tuple[int, ...], dtype: str, low: float = -5, high: float = 5, nonzero: bool = False) -> np.ndarray:
    if dtype == "bool":
        return RNG.random(shape) < 0.5
    if dtype.startswith("int"):
        a = RNG.integers(int(low), int(high) + 1, size=shape).astype(dtype)
        if nonzero:
            a[a == 0] = 3
        return a
    a = RNG.uniform(low, high, size=shape).astype(dtype)
    if nonzero:
        a[np.abs(a) < 0.1] = 0.5
    return np.asarray(a)


TARGET = "c"
"""The target ``check`` compiles for; tests/test_cuda.py reruns this suite with ``"cuda"``."""


def check(fn: Callable[..., Any], *args: Any, rtol: float | None = None, target: str | None = None) -> None:
    """Compile ``fn`` for ``target`` (default ``TARGET``), call it on ``args``, compare with ``fn`` run on NumPy."""
    with np.errstate(all="ignore"):
        want = fn(*args)
    got = kiln.function(fn, target=target or TARGET)(*args)
    got_leaves, got_tree = pytree.flatten(got)
    want_leaves, want_tree = pytree.flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        assert type(g) is type(w), f"{type(g).__name__}, NumPy's {type(w).__name__}"  # scalars as NumPy gives them
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"dtype {g.dtype} != {w.dtype}"
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w)
        else:
            tol = rtol if rtol is not None else (2e-6 if w.dtype == np.float32 else 1e-13)
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


# --------------------------------------------------------------------------- elementwise

BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "truediv": lambda x, y: x / y,
    "floordiv": lambda x, y: x // y,
    "mod": lambda x, y: x % y,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
}


DTYPE_PAIRS = [(d, d) for d in DTYPES] + [
    ("int32", "float32"),
    ("int64", "float64"),
    ("float32", "float64"),
    ("int32", "int64"),
    ("bool", "int32"),
]
# NumPy itself rejects boolean subtract (// and % on two bools compute in int8).
REJECTED = {("sub", "bool", "bool")}


@pytest.mark.parametrize(
    "op,da,db", [(op, a, b) for op in sorted(BINARY) for a, b in DTYPE_PAIRS if (op, a, b) not in REJECTED]
)
def test_binary_dtypes(op: str, da: str, db: str) -> None:
    x, y = arr((3, 4), da), arr((3, 4), db, nonzero=True)
    check(BINARY[op], x, y)


@pytest.mark.parametrize("op", sorted({op for op, _, _ in REJECTED}))
def test_binary_rejected_like_numpy(op: str) -> None:
    x = arr((3,), "bool")
    with pytest.raises(TypeError):
        kiln.function(BINARY[op])(x, x)


@pytest.mark.parametrize("op", ["add", "mul", "maximum", "lt", "truediv"])
@pytest.mark.parametrize(
    "sa,sb",
    [((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((), (3,)), ((5,), ()), ((0, 3), (3,)), ((1,), (0,))],
)
def test_binary_broadcasting(op: str, sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    check(BINARY[op], arr(sa, "float32"), arr(sb, "float32", nonzero=True))


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_division_edge_cases(op: str, dtype: str) -> None:
    """Signs, zero divisors and (for ints) INT_MIN // -1 follow NumPy, not C."""
    vals = [-7, -1, 0, 1, 7, 5, -5]
    if dtype.startswith("int"):
        vals.append(int(np.iinfo(dtype).min))
    x = np.array([a for a in vals for _ in vals], dtype=dtype)
    y = np.array([b for _ in vals for b in vals], dtype=dtype)
    if dtype.startswith("float"):
        x = np.concatenate([x, np.array([0.5, -0.5, np.inf, 1e300 if dtype == "float64" else 1e30], dtype)])
        y = np.concatenate([y, np.array([0.25, 0.3, 2.0, 3.0], dtype)])
    check(BINARY[op], x, y)


@pytest.mark.parametrize("dtype", [d for d in NUMERIC if d.startswith("int")])
@pytest.mark.parametrize("divisor", [2, 8, 1 << 30, 3, -2, 1])
def test_division_by_constants(divisor: int, dtype: str) -> None:
    """A constant power-of-two divisor lowers to a shift and a mask: the same floor and sign
    rules for negative values and the extremes as the general lowering (and as NumPy)."""
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min + 1, -9, -8, -7, -2, -1, 0, 1, 2, 7, 8, 9, info.max - 1, info.max], dtype)
    check(lambda a: (a // divisor, a % divisor), x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_semantics(dtype: str) -> None:
    x = np.array([np.nan, 1.0, np.nan, -0.0, np.inf], dtype)
    y = np.array([1.0, np.nan, np.nan, 0.0, np.inf], dtype)
    check(lambda a, b: (np.maximum(a, b), np.minimum(a, b), a < b, a != b, a == b), x, y)


@pytest.mark.parametrize("scalar", [2, 2.5, True, -3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_python_scalars_are_weak(scalar: Any, dtype: str) -> None:
    x = arr((4,), dtype)
    if dtype == "bool" and isinstance(scalar, bool):
        check(lambda a: (a & scalar, a | scalar), x)
        return
    check(lambda a: (a + scalar, a * scalar, scalar * a), x)


UNARY: dict[str, tuple[Callable[[Any], Any], list[str]]] = {
    "neg": (lambda x: -x, NUMERIC),
    "abs": (lambda x: abs(x), NUMERIC),
    "np.abs": (np.abs, NUMERIC),
    "exp": (np.exp, FLOATS),
    "log": (lambda x: np.log(np.abs(x) + 0.5), FLOATS),
    "sqrt": (lambda x: np.sqrt(np.abs(x)), FLOATS),
    "tanh": (np.tanh, FLOATS),
    "sin": (np.sin, FLOATS),
    "cos": (np.cos, FLOATS),
    "floor": (np.floor, FLOATS),
    "ceil": (np.ceil, FLOATS),
    "relu": (kiln.relu, NUMERIC),
    "sigmoid": (kiln.sigmoid, FLOATS),
    "kiln.exp": (kiln.exp, FLOATS),
    "kiln.tanh": (kiln.tanh, FLOATS),
    "invert": (lambda x: ~x, ["bool", "int32", "int64"]),
    "square": (lambda x: x**2, NUMERIC),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(), (7,), (2, 3), (0, 4)])
def test_unary(name: str, shape: tuple[int, ...]) -> None:
    fn, dtypes = UNARY[name]
    for dtype in dtypes:
        check(fn, arr(shape, dtype), rtol=1e-5 if name in ("exp", "tanh", "sin", "cos", "sigmoid", "kiln.exp", "kiln.tanh", "log") else None)


@pytest.mark.parametrize("src,dst", list(itertools.permutations(DTYPES, 2)))
def test_cast(src: str, dst: str) -> None:
    x = arr((6,), src, low=-100, high=100)
    check(lambda a: a.astype(dst), x)


def test_where_and_logic() -> None:
    x, y = arr((3, 4), "float32"), arr((4,), "float32")
    check(lambda a, b: np.where(a > b, a, b * 2), x, y)
    check(lambda a, b: kiln.where((a > 0) & (b < 1), a, 0.0), x, y)
    check(lambda a: np.logical_not(a > 0) | (a < -1), x)


# --------------------------------------------------------------------------- shapes and reductions


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(dtype: str, axis: Any, keepdims: bool) -> None:
    x = arr((3, 5), dtype)
    check(lambda a: (a.sum(axis=axis, keepdims=keepdims), a.max(axis=axis, keepdims=keepdims), a.min(axis=axis, keepdims=keepdims)), x, rtol=1e-5)
    if dtype != "bool":
        check(lambda a: np.mean(a, axis=axis, keepdims=keepdims), x, rtol=1e-5)


def test_kiln_reductions() -> None:
    x = arr((4, 6), "float32")
    check(lambda a: (kiln.reduce_sum(a, axis=1), kiln.reduce_mean(a), kiln.reduce_max(a, axis=0)), x, rtol=1e-5)


@pytest.mark.parametrize(
    "sa,sb",
    [((3, 3), (3, 3)), ((2, 5), (5, 4)), ((5,), (5, 3)), ((2, 5), (5,)), ((5,), (5,)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 2)), ((1, 1), (1, 1))],
)
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_matmul(sa: tuple[int, ...], sb: tuple[int, ...], dtype: str) -> None:
    check(lambda a, b: a @ b, arr(sa, dtype), arr(sb, dtype), rtol=1e-5)


def test_matmul_spellings() -> None:
    a, b = arr((3, 4), "float32"), arr((4, 2), "float32")
    check(lambda x, y: (np.matmul(x, y), kiln.matmul(x, y), np.dot(x, y)), a, b, rtol=1e-5)


def test_shape_ops() -> None:
    x = arr((2, 3, 4), "float32")
    check(lambda a: (a.reshape(6, 4), a.reshape(-1), np.transpose(a), a.transpose(1, 0, 2), a.T), x)
    check(lambda a: (kiln.reshape(a, (4, 6)), kiln.transpose(a, (2, 0, 1))), x)
    check(lambda a: a.reshape(()), arr((1, 1), "int64"))


@pytest.mark.parametrize(
    "index",
    [
        (slice(None), slice(0, 2)),
        (1,),
        (-1, slice(None, None, 2)),
        (slice(None, None, -1),),
        (Ellipsis, 1),
        (None, 0),
        (slice(1, 3), slice(None), slice(3, 0, -2)),
    ],
)
def test_indexing(index: tuple[Any, ...]) -> None:
    check(lambda a: a[index], arr((4, 3, 5), "float64"))


def test_concatenate() -> None:
    a, b, e = arr((2, 3), "float32"), arr((2, 1), "float32"), arr((2, 0), "float32")
    check(lambda x, y, z: (np.concatenate([x, y * 2, z], axis=1), kiln.concat([x, x], axis=0) + 1), a, b, e)
    check(lambda x: np.concatenate([x, x, x]), arr((4,), "int32"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_special_float_constants(dtype: str) -> None:
    special = np.array([np.inf, -np.inf, np.nan, -0.0], dtype)
    check(lambda a: (a + special, np.maximum(a, special[1]), a * special[3]), arr((4,), dtype))


def test_constants_and_creation() -> None:
    x = arr((3,), "float32")
    check(lambda a: a + np.array([1.0, 2.0, 3.0], np.float32), x)
    check(lambda a: (kiln.zeros_like(a), kiln.ones_like(a) + a, np.zeros_like(a)), x)
    check(lambda a: a * kiln.constant([2.0, 3.0, 4.0], dtype="float32"), x)


def test_nested_outputs_and_helpers() -> None:
    def helper(v: Any) -> Any:
        return v * 2 + 1

    check(lambda a, b: {"s": helper(a) + b, "pair": (a, [b - 1])}, arr((2,), "int64"), arr((2,), "int64"))


def test_empty_and_zero_d() -> None:
    check(lambda a: (a * 2, a.sum()), arr((0,), "float32"))
    check(lambda a: (a + 1, np.exp(a)), np.float64(0.5))
    check(lambda a: a.sum(axis=0), arr((0, 3), "int32"))


# --------------------------------------------------------------------------- the seed programs


def test_seed_programs() -> None:
    from kiln.examples import deep_net, lstm_cell, simple_nn_layer

    assert deep_net.deep_net(np.array([1, 2, 3])).tolist() == [3, 5, 7]
    for example in (simple_nn_layer, lstm_cell, deep_net):
        got = example.FUNCTION(*example.inputs())
        want = example.reference(*example.inputs())
        for g, w in zip(pytree.flatten(got)[0], pytree.flatten(want)[0]):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
