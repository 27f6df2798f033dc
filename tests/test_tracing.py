"""Tracing records NumPy's semantics: every traced result has the shape and dtype NumPy gives.

Each case runs one Python function twice: on concrete NumPy arrays (the
reference) and traced on symbolic tensors of the same shapes and dtypes. The
traced module must verify, and its results must have NumPy's shapes and dtypes;
where NumPy raises, tracing raises the same kind of error, and where NumPy's
result dtype is one kiln lacks (longdouble, datetime64), tracing raises ``TypeError``.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from kiln.dialects import graph
from kiln.frontend import array_ops, dtypes
from kiln.frontend.pytree import TENSOR_SLOT
from kiln.frontend.tensor import Tensor, as_tensor
from kiln.frontend.tracer import TracedGraph, trace_graph

DTYPES = [np.dtype(d) for d in ("bool", "int8", "int32", "int64", "uint8", "uint64", "float32", "float64")]
Signature = list[tuple[tuple[int, ...], np.dtype[Any]]]


def trace(fn: Callable[..., Any], *args: Any) -> TracedGraph:
    """Trace ``fn`` with every ndarray argument a symbolic tensor of its shape and dtype."""
    slots, types = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            slots.append(TENSOR_SLOT)
            types.append(TensorType(dtypes.to_element(a.dtype), a.shape))
        else:
            slots.append(a)
    traced = trace_graph(fn, slots, {}, types, "f")
    traced.module.verify()
    return traced


def traced_signature(fn: Callable[..., Any], *args: Any) -> Signature:
    outputs = trace(fn, *args).func_op.function_type.outputs
    return [(graph.shape_of(t), dtypes.from_element(graph.element_of(t))) for t in outputs]


def _builtin_error(e: BaseException) -> type[BaseException]:
    """The builtin exception class NumPy's error derives from (``AxisError`` -> ``ValueError``)."""
    return next(c for c in type(e).__mro__ if c.__module__ == "builtins")


def check(fn: Callable[..., Any], *args: Any) -> None:
    """Tracing ``fn(*args)`` gives NumPy's shapes and dtypes, or NumPy's kind of error."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            results = fn(*args)
    except Exception as e:  # NumPy refuses: so must tracing
        with pytest.raises(_builtin_error(e)):
            traced_signature(fn, *args)
        return
    outputs = results if isinstance(results, tuple) else (results,)
    expected = [(np.shape(r), np.asarray(r).dtype) for r in outputs]
    if any(dt not in dtypes.SUPPORTED for _, dt in expected):
        with pytest.raises(TypeError, match="kiln does not support dtype"):
            traced_signature(fn, *args)
        return
    assert traced_signature(fn, *args) == expected


def arr(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Concrete ones: no value-dependent NumPy errors (negative powers) in shape/dtype checks."""
    return np.ones(shape, dtype)


# ---------------------------------------------------------------------- elementwise binary

BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}

SHAPE_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (4,)), ((2, 1), (1, 3)), ((0, 3), (1, 3)), ((3, 1, 2), (4, 2))]


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("lhs", DTYPES, ids=str)
@pytest.mark.parametrize("rhs", DTYPES, ids=str)
def test_binary_dtypes(op: str, lhs: np.dtype[Any], rhs: np.dtype[Any]) -> None:
    check(BINARY[op], arr((2, 3), lhs), arr((3,), rhs))


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_binary_broadcasting(op: str, shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    a, b = shapes
    check(BINARY[op], arr(a, "float32"), arr(b, "int64"))
    check(BINARY[op], arr(b, "int32"), arr(a, "int32"))


SCALARS = [True, 2, -3, 2.5, 2**40, np.float64(2.0), np.int32(3), np.array(1.5, np.float32), [1.0, 2.0, 3.0]]


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_binary_with_python_and_numpy_values(op: str, dtype: np.dtype[Any], scalar: Any) -> None:
    """Python scalars are weak (NEP 50), NumPy scalars and arrays strong, on either side."""
    x = arr((3,), dtype)
    if (op, dtype, scalar) == ("**", np.bool_, 2) and type(scalar) is int:
        # NumPy's ``bool_array ** 2`` takes a fast path through np.square (int8); kiln is np.power (int64)
        assert traced_signature(lambda t: t**2, x) == [((3,), np.dtype(np.int64))]
    else:
        check(lambda t: BINARY[op](t, scalar), x)
    check(lambda t: BINARY[op](scalar, t), x)


def test_matching_types_need_no_cast_or_broadcast() -> None:
    text = str(trace(lambda a, b: a * b, arr((2, 3), "float32"), arr((2, 3), "float32")).module)
    assert "graph.cast" not in text and "graph.broadcast" not in text


def test_weak_float_keeps_float32() -> None:
    text = str(trace(lambda a: a * 2.0, arr((3,), "float32")).module)
    assert "dense<2.000000e+00> : tensor<f32>" in text and "graph.cast" not in text


def test_negative_integer_power_of_known_exponent_raises() -> None:
    for exponent in (-1, np.array([1, -2]), np.int64(-1)):
        with pytest.raises(ValueError, match="negative integer powers"):
            trace(lambda t: t**exponent, arr((2,), "int32"))
    with pytest.raises(ValueError, match="negative integer powers"):
        trace(lambda t: t ** as_tensor(np.array([-1])), arr((1,), "int64"))
    trace(lambda t: t**-1, arr((2,), "float32"))


def test_python_int_out_of_range_overflows_like_numpy() -> None:
    with pytest.raises(OverflowError, match="out of bounds for int32"):
        trace(lambda t: t + 2**40, arr((2,), "int32"))
    check(lambda t: (t < 2**40, t == -(2**70), t >= 2**63), arr((2,), "int32"))


def test_broadcast_mismatch_message() -> None:
    with pytest.raises(ValueError, match=r"could not be broadcast together with shapes \(2,3\) \(4,\)"):
        trace(lambda a, b: a + b, arr((2, 3), "float32"), arr((4,), "float32"))


# ---------------------------------------------------------------------- elementwise unary

UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": operator.neg,
    "pos": operator.pos,
    "abs": abs,
    "invert": operator.invert,
    **{
        name: getattr(np, name)
        for name in (
            "negative", "positive", "absolute", "exp", "log", "sqrt", "tanh", "sin", "cos",
            "floor", "ceil", "square", "logical_not", "bitwise_not", "invert",
        )
    },
}


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (3,), (0, 2)], ids=str)
def test_unary(op: str, dtype: np.dtype[Any], shape: tuple[int, ...]) -> None:
    check(UNARY[op], arr(shape, dtype))


# ---------------------------------------------------------------------- reductions

AXES = [None, 0, 1, -1, (0, 1), (), (1, 0), 2, (0, 0)]


@pytest.mark.parametrize("kind", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(kind: str, dtype: np.dtype[Any], axis: Any, keepdims: bool) -> None:
    check(lambda t: getattr(t, kind)(axis=axis, keepdims=keepdims), arr((2, 3), dtype))
    check(lambda t: getattr(np, kind)(t, axis=axis, keepdims=keepdims), arr((2, 3), dtype))


@pytest.mark.parametrize("kind", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (2, 0)], ids=str)
@pytest.mark.parametrize("axis", [None, 0, -1, ()], ids=str)
def test_reductions_of_empty_and_0d(kind: str, shape: tuple[int, ...], axis: Any) -> None:
    check(lambda t: getattr(np, kind)(t, axis=axis), arr(shape, "int32"))


def test_reduction_dtype_argument() -> None:
    check(lambda t: (np.sum(t, dtype=np.float32), np.mean(t, axis=0, dtype=np.float32)), arr((2, 3), "int32"))


# ---------------------------------------------------------------------- indexing

INDEXES = [
    0, -1, 3, -4, 4, -5,
    slice(None), slice(1, 3), slice(None, None, -1), slice(3, 0, -2), slice(-2, None), slice(5, 10), slice(2, 1),
    (1, 2), (1, -1, 0), (slice(None), 0), (0, slice(1, 4, 2)), (Ellipsis, 1), (1, Ellipsis), (None,), (None, 1, None),
    (slice(None), None, slice(None, None, -1)), (Ellipsis,), (), (1, 2, 3, 4), (Ellipsis, Ellipsis), np.int64(2),
    (np.newaxis, Ellipsis, np.newaxis),
]


@pytest.mark.parametrize("key", INDEXES, ids=repr)
def test_indexing(key: Any) -> None:
    check(lambda t: t[key], np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6))


@pytest.mark.parametrize("key", [(), Ellipsis, None, (None, Ellipsis)], ids=repr)
def test_indexing_0d(key: Any) -> None:
    check(lambda t: t[key], arr((), "int64"))


def test_integer_index_is_slice_and_reshape() -> None:
    text = str(trace(lambda t: t[1], arr((4, 5), "float32")).module)
    assert "graph.slice %0 start array<i64: 1, 0> stride array<i64: 1, 1> : tensor<4x5xf32> -> tensor<1x5xf32>" in text
    assert "graph.reshape" in text


def test_full_slice_emits_nothing() -> None:
    text = str(trace(lambda t: t[:, ...], arr((4, 5), "float32")).module)
    assert "graph.slice" not in text and "graph.reshape" not in text


def test_index_errors() -> None:
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        trace(lambda t: t[4], arr((4,), "float32"))
    with pytest.raises(NotImplementedError, match="not supported yet"):
        trace(lambda t, i: t[i], arr((4,), "float32"), arr((), "float32"))  # 0-d int tensors read a row
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        trace(lambda t: t[[0.0, 1.0]], arr((4,), "float32"))
    with pytest.raises(ValueError, match="could not broadcast"):
        trace(lambda t: t.__setitem__(0, np.ones(2)), arr((4,), "float32"))


# ---------------------------------------------------------------------- matmul

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)),
    ((2, 3), (4, 3)), ((), (3,)), ((0, 3), (3, 2)), ((2, 0), (0, 2)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_shapes(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    a, b = shapes
    check(lambda x, y: x @ y, arr(a, "float32"), arr(b, "float32"))
    check(np.matmul, arr(a, "float64"), arr(b, "float64"))


@pytest.mark.parametrize("lhs", DTYPES, ids=str)
@pytest.mark.parametrize("rhs", DTYPES, ids=str)
def test_matmul_dtypes(lhs: np.dtype[Any], rhs: np.dtype[Any]) -> None:
    check(lambda x, y: x @ y, arr((2, 3), lhs), arr((3, 2), rhs))


def test_matmul_with_constant_operand_both_sides() -> None:
    w = np.ones((3, 4), np.float32)
    check(lambda x: (x @ w, w.T @ x.T, np.dot(x, w), np.dot(x, 2.0)), arr((2, 3), "float32"))


# ---------------------------------------------------------------------- shape functions and methods

SHAPE_FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "T": lambda t: t.T,
    "transpose()": lambda t: t.transpose(),
    "transpose(1,0,2)": lambda t: t.transpose(1, 0, 2),
    "transpose((2,-3,1))": lambda t: t.transpose((2, -3, 1)),
    "np.transpose": lambda t: np.transpose(t, (0, 2, 1)),
    "transpose repeated": lambda t: t.transpose(0, 0, 1),
    "reshape(-1)": lambda t: t.reshape(-1),
    "reshape(6,4)": lambda t: t.reshape(6, 4),
    "reshape((4,-1,2))": lambda t: t.reshape((4, -1, 2)),
    "reshape bad": lambda t: t.reshape(5, -1),
    "np.reshape": lambda t: np.reshape(t, (2, 12)),
    "flatten": lambda t: t.flatten(),
    "ravel": lambda t: t.ravel(),
    "squeeze": lambda t: t[:1].squeeze(),
    "squeeze(0)": lambda t: np.squeeze(t[:, :1], axis=1),
    "squeeze bad": lambda t: t.squeeze(0),
    "expand_dims": lambda t: np.expand_dims(t, (0, -1)),
    "broadcast_to": lambda t: np.broadcast_to(t, (5, 2, 3, 4)),
    "broadcast_to bad": lambda t: np.broadcast_to(t, (3, 4)),
    "concatenate": lambda t: np.concatenate([t, t[:1], t.astype(np.int32)], axis=0),
    "concatenate -1": lambda t: np.concatenate((t, t), axis=-1),
    "concatenate None": lambda t: np.concatenate((t, t[0]), axis=None),
    "concatenate bad": lambda t: np.concatenate((t, t[:, :1]), axis=0),
    "stack": lambda t: np.stack([t, t], axis=1),
    "stack -1": lambda t: np.stack([t, t, t], axis=-1),
    "where": lambda t: np.where(t > 0, t, 0),
    "where bcast": lambda t: np.where(t[0] > 1, 1.5, t[:, :, :1].astype(np.int32)),
    "clip": lambda t: np.clip(t, 0, 2),
    "clip float bound": lambda t: np.clip(t.astype(np.int32), 0, 2.5),
    "zeros_like": lambda t: np.zeros_like(t),
    "ones_like": lambda t: np.ones_like(t, dtype=np.int32),
    "full_like": lambda t: np.full_like(t, 2.5),
    "full_like tensor": lambda t: np.full_like(t, t[0, 0]),
    "size shape ndim": lambda t: t + np.size(t) + np.ndim(t) + np.shape(t)[0] + t.size + len(t),
}


@pytest.mark.parametrize("fn", SHAPE_FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_shape_functions(fn: str, dtype: str) -> None:
    check(SHAPE_FUNCTIONS[fn], np.arange(24, dtype=dtype).reshape(2, 3, 4))


def test_astype() -> None:
    check(lambda t: (t.astype(np.int32), t.astype("bool"), t.astype(float)), arr((2, 3), "float32"))


# ---------------------------------------------------------------------- constants and conversions


def test_as_tensor_follows_numpy_dtypes() -> None:
    values = [1.5, 3, True, 2**40, [[1, 2], [3, 4]], np.float32(1.0), np.zeros((2, 0), np.int32), (1.0, 2)]
    expected = [(np.shape(v), np.asarray(v).dtype) for v in values]
    assert traced_signature(lambda: tuple(as_tensor(v) for v in values)) == expected
    with pytest.raises(TypeError, match="cannot turn"):
        trace(lambda: as_tensor("text"))


def test_tensor_attributes() -> None:
    seen: dict[str, Any] = {}

    def f(t: Tensor) -> Tensor:
        seen.update(shape=t.shape, dtype=t.dtype, ndim=t.ndim, size=t.size, len=len(t), repr=repr(t))
        return t

    trace(f, arr((2, 3), "float32"))
    assert seen == {
        "shape": (2, 3), "dtype": np.dtype(np.float32), "ndim": 2, "size": 6, "len": 2,
        "repr": "Tensor(shape=(2, 3), dtype=float32)",
    }


def test_dynamic_dimensions() -> None:
    def f(t: Tensor) -> Any:
        assert t.shape == (None, 3) and t.size is None
        return t + 1.0, t.sum(axis=0), t.T, t[:, None], t.reshape(-1)

    traced = trace_graph(f, [TENSOR_SLOT], {}, [graph.tensor_type(dtypes.to_element("float32"), [-1, 3])], "f")
    traced.module.verify()
    assert "tensor<?x3xf32>" in str(traced.module)


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "convert",
    [bool, int, float, complex, operator.index, np.asarray, lambda t: len(t[0, 0]), lambda t: 1 if t > 0 else 2],
    ids=["bool", "int", "float", "complex", "index", "asarray", "len0d", "if"],
)
def test_no_python_value_at_trace_time(convert: Callable[[Any], Any]) -> None:
    with pytest.raises(TypeError, match="no Python value|unsized"):
        trace(convert, arr((2, 3), "float32"))


def test_iteration_gives_rows_when_the_leading_size_is_static() -> None:
    """``a, b = t`` and ``list(t)`` give the rows, as NumPy; a run-time size or a 0-d tensor cannot."""
    traced = trace(lambda t: tuple(list(t)), arr((2, 3), "float32"))
    assert str(traced.module).count("tensor<3xf32>") >= 2
    with pytest.raises(TypeError, match="no Python value"):
        trace_graph(list, [TENSOR_SLOT], {}, [graph.tensor_type(dtypes.to_element("float32"), [-1, 3])], "f")
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        trace(lambda t: list(t[0, 0]), arr((2, 3), "float32"))


def test_no_python_value_message_says_how() -> None:
    with pytest.raises(TypeError, match="AutoGraph") as info:
        trace(bool, arr((2,), "float32"))
    assert "kiln.function" in str(info.value)


@pytest.mark.parametrize(
    "make", [lambda t: t + np.ones(2, np.longdouble), lambda t: t.astype("datetime64[s]"), lambda t: as_tensor(np.ones(2, np.clongdouble)),
             lambda t: as_tensor(np.str_("a")), lambda t: array_ops.cast(t, "timedelta64[s]")],
    ids=["longdouble operand", "astype datetime64", "clongdouble constant", "str scalar", "cast timedelta64"],
)
def test_unsupported_dtypes(make: Callable[[Any], Any]) -> None:
    with pytest.raises(TypeError, match=r"kiln does not support dtype .*; supported dtypes are bool, int8, int16, int32, int64, uint8"):
        trace(make, arr((2,), "float32"))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda t: np.fft.fft(t), "np.fft.fft"),
        (lambda t: np.unique_values(t), "np.unique_values"),
        (lambda t: np.linalg.svd(t), "np.linalg.svd"),
        (lambda t: np.nextafter(t, t), "np.nextafter"),
        (lambda t: np.add.reduceat(t, [0]), "np.add.reduceat"),
        (lambda t: np.linalg.norm(t, ord=2), "np.linalg.norm(..., ord=2)"),
        (lambda t: np.exp(t, where=t > 0), "np.exp(..., where=)"),
        (lambda t: np.sum(t, out=t), "np.sum(..., out=)"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_unsupported_numpy_functions(call: Callable[[Any], Any], name: str) -> None:
    with pytest.raises(NotImplementedError, match="not supported inside kiln.function") as info:
        trace(call, arr((2, 2), "float32"))
    assert name in str(info.value)


def test_unknown_operand_defers_to_its_reflected_method() -> None:
    class Scaled:
        def __radd__(self, other: Any) -> str:
            return "reflected"

    seen: list[Any] = []
    trace(lambda t: seen.append(t + Scaled()) or t, arr((2,), "float32"))
    assert seen == ["reflected"]


def test_helper_functions_are_traced_through() -> None:
    def helper(a: Tensor) -> Tensor:
        return np.tanh(a) * 2

    text = str(trace(lambda t: helper(helper(t)), arr((2,), "float64")).module)
    assert text.count("graph.tanh") == 2 and "call" not in text


# ---------------------------------------------------------------------- public array ops, eager vs traced

PUBLIC_UNARY = ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "abs"]


@pytest.mark.parametrize("name", PUBLIC_UNARY)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_public_unary_ops_eager_and_traced_agree(name: str, dtype: np.dtype[Any]) -> None:
    check(getattr(array_ops, name), arr((2, 3), dtype))


def test_public_ops_eager_values() -> None:
    x = np.array([[-1.0, 0.5], [2.0, -3.0]], np.float32)
    np.testing.assert_array_equal(array_ops.relu(x), np.maximum(x, 0))
    assert array_ops.relu(x).dtype == np.float32 and array_ops.relu(x.astype(np.int32)).dtype == np.int32
    np.testing.assert_allclose(array_ops.sigmoid(x), 1 / (1 + np.exp(-x)))
    assert array_ops.sigmoid(x).dtype == np.float32
    np.testing.assert_array_equal(array_ops.reduce_sum(x, axis=0), x.sum(axis=0))
    np.testing.assert_array_equal(array_ops.reduce_max(x, axis=1, keepdims=True), x.max(axis=1, keepdims=True))
    assert array_ops.reduce_mean(np.arange(4)).dtype == np.float64
    assert array_ops.zeros((2, 3)).dtype == np.float32 and array_ops.ones(2, "int32").dtype == np.int32
    np.testing.assert_array_equal(array_ops.concat([x, x], axis=1), np.concatenate([x, x], axis=1))
    np.testing.assert_array_equal(array_ops.transpose(x), x.T)
    np.testing.assert_array_equal(array_ops.reshape(x, (4,)), x.reshape(4))
    np.testing.assert_array_equal(array_ops.where(x > 0, x, 0), np.where(x > 0, x, 0))
    np.testing.assert_array_equal(array_ops.matmul(x, x), x @ x)
    assert array_ops.cast(x, "int64").dtype == np.int64
    assert array_ops.constant(1.5).dtype == np.float64 and array_ops.constant([1, 2], "float32").dtype == np.float32
    with pytest.raises(TypeError, match="kiln does not support dtype float128"):
        array_ops.constant(1.0, np.longdouble)


def test_public_ops_traced() -> None:
    def f(x: Tensor, y: Tensor) -> Any:
        a = array_ops
        return (
            a.matmul(x, y.T), a.maximum(x, 0.5), a.minimum(x, y), a.where(x > y, x, y), a.cast(x, "int32"),
            a.reduce_sum(x), a.reduce_mean(x, axis=1), a.reduce_max(x, 0, True), a.reduce_min(x),
            a.zeros((2, 3)), a.ones(3, "int64"), a.zeros_like(x), a.ones_like(y, "bool"),
            a.reshape(x, (3, 2)), a.transpose(x), a.concat([x, y], axis=0), a.constant([1.0, 2.0], "float32"),
        )

    def reference(x: np.ndarray, y: np.ndarray) -> Any:
        return f(x, y)  # eager: the same code on NumPy arrays

    x, y = np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)
    expected = [(np.shape(r), np.asarray(r).dtype) for r in reference(x, y)]
    assert traced_signature(f, x, y) == expected
