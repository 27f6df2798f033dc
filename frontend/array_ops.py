"""kiln's public array ops (``kiln.matmul``, ``kiln.relu``, ...) and the tensor ops behind NumPy's functions.

Every public op works in two modes with one meaning. Given NumPy arrays (or
Python values) it runs eagerly on NumPy and returns NumPy results; given a
traced :class:`Tensor` it records ``graph`` ops. Most public ops are spelled
as the NumPy call they equal (``reduce_sum`` is ``np.sum``), which NumPy
routes to the traced implementation through ``__array_function__``, so
``kiln.reduce_sum(x)`` and ``np.sum(x)`` cannot disagree. ``zeros``, ``ones``
and ``constant`` have no tensor argument: they record a ``graph.constant``
whenever a trace is in progress.

The tensor-only helpers (:func:`reduce`, :func:`squeeze`, :func:`expand_dims`,
:func:`broadcast_to`, :func:`stack`, :func:`full`) implement NumPy's functions
of the same names for :mod:`kiln.frontend.numpy_dispatch`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import dtypes, runtime_checks, trace_context
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor, broadcast_to as _broadcast, cast as _cast, constant as _constant
from kiln.frontend.tensor import emit, follow_layout, require_rank, reshape_to, shape_of, with_source

ShapeLike = int | Sequence[int]
AxisLike = int | Sequence[int] | None


def _traced(*values: Any) -> bool:
    return any(isinstance(v, Tensor) for v in values)


# ---------------------------------------------------------------------- elementwise (public)


def relu(x: Any) -> Any:
    """Rectified linear unit, ``np.maximum(x, 0)``: keeps float and int dtypes, NaN stays NaN."""
    if not isinstance(x, Tensor):
        return np.maximum(x, 0)
    (dtype, _), _ = dtypes.resolve_ufunc(np.maximum, [x.dtype, int])
    return as_scalar(with_source(emit(graph.ReluOp(_cast(x, dtype).value)), x.shape_source))  # (0-d: as np.maximum)


def sigmoid(x: Any) -> Any:
    """Logistic function ``1 / (1 + np.exp(-x))``; integers compute in float64, as in NumPy."""
    if not isinstance(x, Tensor):
        return 1 / (1 + np.exp(-np.asarray(x)))
    _, negated = dtypes.resolve_ufunc(np.negative, [x.dtype])  # NumPy refuses -bool: so does kiln
    (dtype,), _ = dtypes.resolve_ufunc(np.exp, [negated])
    if dtype == np.float16 or dtype.kind == "c":  # each of the three ops rounds, as eagerly
        return 1 / (1 + np.exp(-x))
    return as_scalar(with_source(emit(graph.SigmoidOp(_cast(x, dtype).value)), x.shape_source))


def tanh(x: Any) -> Any:
    """Hyperbolic tangent, ``np.tanh``."""
    return np.tanh(x)


def exp(x: Any) -> Any:
    """``e ** x``, ``np.exp`` (integers compute in float64)."""
    return np.exp(x)


def log(x: Any) -> Any:
    """Natural logarithm, ``np.log``."""
    return np.log(x)


def sqrt(x: Any) -> Any:
    """Square root, ``np.sqrt``."""
    return np.sqrt(x)


def abs(x: Any) -> Any:  # noqa: A001 - the public name is kiln.abs
    """Absolute value, ``np.abs``."""
    return np.absolute(x)


def maximum(x: Any, y: Any) -> Any:
    """Elementwise maximum with broadcasting, ``np.maximum`` (NaN-propagating)."""
    return np.maximum(x, y)


def minimum(x: Any, y: Any) -> Any:
    """Elementwise minimum with broadcasting, ``np.minimum`` (NaN-propagating)."""
    return np.minimum(x, y)


def where(condition: Any, x: Any, y: Any) -> Any:
    """``x`` where ``condition`` holds, else ``y``: ``np.where(condition, x, y)``, all three broadcast."""
    return np.where(condition, x, y)


def cast(x: Any, dtype: Any) -> Any:
    """``x.astype(dtype)`` (float to int truncates toward zero); ``dtype`` must be one kiln supports."""
    dt = dtypes.canonical(dtype)
    return _cast(x, dt, warn=True) if isinstance(x, Tensor) else np.asarray(x).astype(dt)


def matmul(a: Any, b: Any) -> Any:
    """Matrix product ``a @ b`` with NumPy's rules: 1-D operands promoted, batch dimensions broadcast."""
    if not _traced(a, b):
        return np.matmul(a, b)
    ta, tb = as_tensor(a), as_tensor(b)
    for t in (ta, tb):
        require_rank(t, "matmul")
    (da, db), _ = dtypes.resolve_ufunc(np.matmul, [ta.dtype, tb.dtype])
    ta, tb = _cast(ta, da), _cast(tb, db)
    sa, sb = shape_of(ta), shape_of(tb)
    for i, s in enumerate((sa, sb)):
        if not s:
            raise ValueError(
                f"matmul: Input operand {i} does not have enough dimensions "
                "(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)"
            )
    graph.matmul_shape(sa, sb)  # raises NumPy-like errors for mismatched dimensions
    runtime_checks.same_length(
        ta, len(sa) - 1, tb, max(len(sb) - 2, 0),
        "matmul: Input operand 1 has a mismatch in its core dimension 0 (a length known only at run time)",
    )
    if len(sa) > 2 and len(sb) > 2 and sa[:-2] != sb[:-2]:
        batch = graph.broadcast_shapes(sa[:-2], sb[:-2])
        ta, tb = _broadcast(ta, (*batch, *sa[-2:])), _broadcast(tb, (*batch, *sb[-2:]))
    if da == np.float16:  # NumPy's float16 matmul sums in float32 and rounds once
        f32 = np.dtype(np.float32)
        return _cast(emit(graph.MatmulOp(_cast(ta, f32).value, _cast(tb, f32).value)), da)
    return emit(graph.MatmulOp(ta.value, tb.value))


# ---------------------------------------------------------------------- reductions


def reduce_sum(x: Any, axis: AxisLike = None, keepdims: bool = False) -> Any:
    """Sum over ``axis`` (all axes if None), ``np.sum``: bools and int32 sum in int64, as in NumPy."""
    return np.sum(x, axis=axis, keepdims=keepdims)


def reduce_mean(x: Any, axis: AxisLike = None, keepdims: bool = False) -> Any:
    """Mean over ``axis``, ``np.mean``: bools and integers give float64."""
    return np.mean(x, axis=axis, keepdims=keepdims)


def reduce_max(x: Any, axis: AxisLike = None, keepdims: bool = False) -> Any:
    """Maximum over ``axis``, ``np.max`` (keeps the dtype; an empty reduction raises ``ValueError``)."""
    return np.max(x, axis=axis, keepdims=keepdims)


def reduce_min(x: Any, axis: AxisLike = None, keepdims: bool = False) -> Any:
    """Minimum over ``axis``, ``np.min`` (keeps the dtype; an empty reduction raises ``ValueError``)."""
    return np.min(x, axis=axis, keepdims=keepdims)


_IDENTITYLESS = {"max": "maximum", "min": "minimum"}


def reduce(kind: str, t: Tensor, axis: AxisLike, keepdims: bool, dtype: np.dtype[Any] | None = None) -> Tensor:
    """``np.sum``/``mean``/``max``/``min``/``prod`` of a tensor, in the dtype NumPy returns (or ``dtype``);
    a 0-d result is NumPy's scalar."""
    return as_scalar(_reduce(kind, t, axis, keepdims, dtype))


def _reduce(kind: str, t: Tensor, axis: AxisLike, keepdims: bool, dtype: np.dtype[Any] | None = None) -> Tensor:
    if t.shape_source is not None:
        return _reduce_all(kind, t, axis, keepdims, dtype)
    if t.ndim == 0 and kind != "mean" and isinstance(axis, (int, np.integer)) and axis in (0, -1):
        axis = ()  # NumPy's ufunc reductions accept axis 0 / -1 on 0-d arrays
    axes = normalize_axes(axis, t.ndim)
    if dtype is None:
        dtype = {"sum": dtypes.sum_dtype, "prod": dtypes.sum_dtype, "mean": dtypes.mean_dtype}.get(kind, lambda d: d)(t.dtype)
    elif kind == "mean" and dtype.kind not in "fc":
        raise NotImplementedError(f"np.mean(..., dtype={dtype}) is not supported inside kiln.function (use a float dtype)")
    if kind in _IDENTITYLESS and any(shape_of(t)[a] == 0 for a in axes):
        raise ValueError(f"zero-size array to reduction operation {_IDENTITYLESS[kind]} which has no identity")
    x = _cast(t, dtype)
    if not axes:
        return Tensor(x.value) if x is t else x  # a new array, as NumPy's
    if kind == "mean" and any(shape_of(x)[a] < 0 for a in axes):
        return follow_layout(_dynamic_mean(x, axes, keepdims), [t], axes, keepdims)
    if dtype == np.float16 and kind not in _IDENTITYLESS:
        return follow_layout(_half_reduce(kind, x, axes, keepdims), [t], axes, keepdims)
    return follow_layout(emit(graph.ReduceOp(kind, x.value, axes, keepdims)), [t], axes, keepdims)


def _dynamic_mean(x: Tensor, axes: tuple[int, ...], keepdims: bool) -> Tensor:
    """A mean over an axis of a length known only at run time (``x[:n]``, ``np.diff(x[mask])``):
    the sum (float16 in float32, as NumPy) divided by the run-time count, as NumPy's mean divides."""
    work = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    total = emit(graph.ReduceOp("sum", _cast(x, work).value, axes, keepdims))
    return _cast(np.true_divide(total, _cast(as_tensor(element_count(x, axes)), work)), x.dtype)


def element_count(t: Tensor, axes: Sequence[int]) -> int | Tensor:
    """How many elements of ``t`` lie along ``axes``: an int, or a traced int64 where a length is
    known only at run time (``graph.dim``)."""
    n: int | Tensor = 1
    for a in axes:
        size = shape_of(t)[a]
        n = n * (size if size >= 0 else emit(graph.DimOp(t.value, a)))
    return n


def _half_reduce(kind: str, x: Tensor, axes: tuple[int, ...], keepdims: bool) -> Tensor:
    """A float16 sum, product or mean in NumPy's order of roundings. NumPy's iterator drops
    length-1 axes and runs its inner loop along the last axis: when that axis is reduced, the
    run of reduced axes it ends is one reduce loop, which accumulates in float32 and rounds
    once (``mean`` sums everything in float32); reduced axes outside that run add those
    results one float16 addition at a time, as an outer axis does alone. (Where NumPy adds a
    float32 partial sum to the float16 total, kiln rounds the partial sum first: an ulp-level
    difference, and only for such mixed reductions.)"""
    f32 = np.dtype(np.float32)
    shape = shape_of(x)
    if kind == "mean":
        return _cast(emit(graph.ReduceOp(kind, _cast(x, f32).value, axes, keepdims)), x.dtype)
    long_axes = [i for i, d in enumerate(shape) if d != 1]
    inner: list[int] = []
    for a in reversed(long_axes):
        if a not in axes:
            break
        inner.append(a)
    outer = [a for a in axes if a not in inner and shape[a] != 1]
    if not inner:
        return emit(graph.ReduceOp(kind, x.value, axes, keepdims))
    first = [a for a in axes if a not in outer]
    value = _cast(emit(graph.ReduceOp(kind, _cast(x, f32).value, first, True)), x.dtype)
    if outer:
        value = emit(graph.ReduceOp(kind, value.value, outer, True))
    return value if keepdims else reshape_to(value, [d for i, d in enumerate(shape) if i not in axes])


def _reduce_all(kind: str, t: Tensor, axis: AxisLike, keepdims: bool, dtype: np.dtype[Any] | None) -> Tensor:
    """A full reduction of a tensor of unknown rank: over its flattened data, a 0-d result.
    The mean divides by the runtime element count (``graph.dim``), which the flat data has."""
    assert t.shape_source is not None
    if axis is not None:
        require_rank(t, f"np.{kind}(..., axis={axis!r})")
    if keepdims:
        require_rank(t, f"np.{kind}(..., keepdims=True)")
    if kind == "mean" and dtype is not None and dtype.kind not in "fc":
        raise NotImplementedError(f"np.mean(..., dtype={dtype}) is not supported inside kiln.function (use a float dtype)")
    flat = Tensor(t.value)
    if kind != "mean":
        return reduce(kind, flat, None, False, dtype)
    result = dtype or dtypes.mean_dtype(t.dtype)
    work = np.dtype(np.float32) if result == np.float16 else result  # float16: in float32, as NumPy
    total = reduce("sum", flat, None, False, work)
    count = _cast(emit(graph.DimOp(flat.value, 0)), total.dtype)
    return _cast(np.true_divide(total, count), result)


def normalize_axis(axis: int, ndim: int) -> int:
    """``axis`` in ``range(ndim)`` (negative counts from the end); NumPy's ``AxisError`` otherwise."""
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise np.exceptions.AxisError(a, ndim)
    return a % ndim


def normalize_axes(axis: AxisLike, ndim: int) -> tuple[int, ...]:
    """Sorted distinct axes; ``None`` means all of them."""
    if axis is None:
        return tuple(range(ndim))
    axes = [normalize_axis(a, ndim) for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)]
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(axes))


# ---------------------------------------------------------------------- shapes


def reshape(x: Any, shape: ShapeLike) -> Any:
    """``np.reshape(x, shape)`` in row-major order; one dimension may be ``-1`` (inferred)."""
    if not isinstance(x, Tensor):
        return np.reshape(x, shape)
    if x.shape_source is not None:  # a reshape needs only the row-major data and its size: the flat data has both
        x = Tensor(x.value)
    given = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dims = [operator.index(d) for d in given]
    if dims.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if any(d < -1 for d in dims):
        raise ValueError(f"negative dimensions not allowed in shape {tuple(dims)}")
    src = shape_of(x)
    if -1 in src:  # dynamic input: a -1 stays dynamic, the element count is checked when the function runs
        known = math.prod(d for d in dims if d != -1)
        if -1 not in dims or known != 1:
            count = _constant(np.int64(math.prod(d for d in src if d != -1)))
            for axis, d in enumerate(src):
                if d == -1:
                    count = count * emit(graph.DimOp(x.value, axis))
            fits = count % known == 0 if -1 in dims and known else count == known
            runtime_checks.require(
                fits, f"cannot reshape an array whose size is known only at run time into shape {tuple(dims)}"
            )
        return reshape_to(x, dims)
    size, known = math.prod(src), math.prod(d for d in dims if d != -1)
    if -1 in dims and known and size % known == 0:
        dims[dims.index(-1)] = size // known
    if -1 in dims or math.prod(dims) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {tuple(dims)}")
    return reshape_to(x, dims)


def transpose(x: Any, axes: Sequence[int] | None = None) -> Any:
    """``np.transpose(x, axes)``: reverses the axes by default; no op for a 0-d/1-d tensor or identity."""
    if not isinstance(x, Tensor):
        return np.transpose(x, axes)
    require_rank(x, "transpose")
    n = x.ndim
    perm = list(range(n - 1, -1, -1)) if axes is None else [normalize_axis(a, n) for a in axes]
    if len(perm) != n:
        raise ValueError("axes don't match array")
    if len(set(perm)) != n:
        raise ValueError("repeated axis in transpose")
    if perm == list(range(n)):
        return x
    return emit(graph.TransposeOp(x.value, perm))


def squeeze(t: Tensor, axis: AxisLike = None) -> Tensor:
    """``np.squeeze``: drop the given length-1 axes, or every static length-1 axis."""
    require_rank(t, "np.squeeze")
    src = shape_of(t)
    axes = [i for i, d in enumerate(src) if d == 1] if axis is None else normalize_axes(axis, t.ndim)
    if any(src[a] != 1 for a in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return reshape_to(t, [d for i, d in enumerate(src) if i not in axes])


def expand_dims(t: Tensor, axis: int | Sequence[int]) -> Tensor:
    """``np.expand_dims``: insert length-1 axes at the given positions of the result."""
    require_rank(t, "np.expand_dims")
    count = 1 if isinstance(axis, (int, np.integer)) else len(axis)
    axes = normalize_axes(axis, t.ndim + count)
    dims = iter(shape_of(t))
    return reshape_to(t, [1 if i in axes else next(dims) for i in range(t.ndim + count)])


def broadcast_to(t: Tensor, shape: ShapeLike) -> Tensor:
    """``np.broadcast_to``: the result has exactly ``shape``."""
    require_rank(t, "np.broadcast_to")
    dims = (operator.index(shape),) if isinstance(shape, (int, np.integer)) else tuple(operator.index(d) for d in shape)
    src = shape_of(t)
    if any(d < 0 for d in dims):
        raise ValueError("all elements of broadcast shape must be non-negative")
    try:
        ok = len(dims) >= len(src) and graph.broadcast_shapes(src, dims) == dims
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"operands could not be broadcast together with remapped shapes [original->remapped]: {t.shape} and requested shape {dims}"
        )
    runtime_checks.broadcastable([t], dims)  # (a length known only at run time must be the requested one)
    return _broadcast(t, dims)


def concat(values: Sequence[Any], axis: int | None = 0, dtype: Any = None, stacked: Sequence[Tensor] = ()) -> Any:
    """Join arrays along an existing axis, ``np.concatenate(values, axis)`` (``axis=None`` flattens first);
    ``stacked``: the arrays ``np.stack`` expanded at ``axis`` into ``values`` (the result is laid out like them)."""
    if not _traced(*values):
        return np.concatenate(values, axis=axis, dtype=dtype)
    tensors = [as_tensor(v) for v in values]
    if not tensors:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        tensors, axis = [reshape(t, -1) for t in tensors], 0
    for t in tensors:
        require_rank(t, "concatenate")
    ndim = tensors[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for i, t in enumerate(tensors):
        if t.ndim != ndim:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at index 0 has "
                f"{ndim} dimension(s) and the array at index {i} has {t.ndim} dimension(s)"
            )
    ax = normalize_axis(axis, ndim)
    first = shape_of(tensors[0])
    for i, t in enumerate(tensors[1:], 1):
        for d, (a, b) in enumerate(zip(first, shape_of(t))):
            if d != ax and a >= 0 and b >= 0 and a != b:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match exactly, but "
                    f"along dimension {d}, the array at index 0 has size {a} and the array at index {i} has size {b}"
                )
            if d != ax and (a < 0 or b < 0) and tensors[0].value is not t.value:  # a length known only at run time
                runtime_checks.same_length(
                    tensors[0], d, t, d,
                    "all the input array dimensions except for the concatenation axis must match exactly, but "
                    f"along dimension {d} a length known only at run time differs (arrays at index 0 and {i})",
                )
    dt = dtypes.canonical(dtype) if dtype is not None else dtypes.result_type(*(t.dtype for t in tensors))
    cast = [_cast(t, dt) for t in tensors]
    result = Tensor(cast[0].value) if len(cast) == 1 else emit(graph.ConcatOp([t.value for t in cast], ax))
    if stacked:
        return follow_layout(result, stacked, new_axis=ax, joined=True)
    return follow_layout(result, tensors, joined=True)  # a new array (of one array too), laid out like them


def stack(values: Sequence[Any], axis: int = 0, dtype: np.dtype[Any] | None = None) -> Tensor:
    """``np.stack``: join same-shaped arrays along a new axis."""
    tensors = [as_tensor(v) for v in values]
    if not tensors:
        raise ValueError("need at least one array to stack")
    for t in tensors:
        require_rank(t, "np.stack")
    first = shape_of(tensors[0])
    for t in tensors:  # (a length known only at run time is checked by the concatenation, when the call runs)
        shape = shape_of(t)
        if len(shape) != len(first) or any(a >= 0 and b >= 0 and a != b for a, b in zip(first, shape)):
            raise ValueError("all input arrays must have the same shape")
    ax = normalize_axis(axis, tensors[0].ndim + 1)
    return concat([expand_dims(t, ax) for t in tensors], ax, dtype, stacked=tensors)


# ---------------------------------------------------------------------- constants


def full(shape: ShapeLike | Sequence[int | Tensor], value: Any, dtype: Any) -> Tensor:
    """``np.full(shape, value, dtype)`` traced: a 0-d (or ``value``-shaped) constant broadcast to
    ``shape``, whose sizes are ints or (one of them) a traced 0-d int known only at run time."""
    dims = (shape,) if isinstance(shape, (int, np.integer, Tensor)) else tuple(shape)
    if any(d is None for d in dims) or sum(isinstance(d, Tensor) for d in dims) > 1:
        raise NotImplementedError(
            f"{trace_context.here()}: kiln cannot yet build an array of several sizes known only at run time "
            f"(shape {tuple(None if isinstance(d, Tensor) else d for d in dims)}) inside kiln.function; "
            "use x * 0 or np.where on an array of that shape, or give the sizes static values"
        )
    dt = dtypes.canonical(dtype)
    if type(value) is int and dt.kind in "iu":
        np.asarray(value, dtype=dt)  # NumPy's OverflowError for a Python int out of the dtype's range
    fill = _cast(value, dt) if isinstance(value, Tensor) else _constant(np.asarray(value).astype(dt))
    if any(isinstance(d, Tensor) for d in dims):
        return _sized_at_run_time(dims, fill)
    return broadcast_to(fill, dims)


def _sized_at_run_time(dims: Sequence[int | Tensor], fill: Tensor) -> Tensor:
    """``fill`` at every position of ``dims``, one of which is a traced size (``np.empty(count)``):
    positions along that axis (``graph.iota``, broadcast over the static axes) carry the size that
    the compiled code allocates by, and a select of them puts ``fill`` everywhere."""
    if fill.ndim != 0:
        raise NotImplementedError(f"{trace_context.here()}: np.full of a size known only at run time with an array fill value")
    axis = next(a for a, d in enumerate(dims) if isinstance(d, Tensor))
    size = _cast(dims[axis], np.dtype(np.int64))  # type: ignore[arg-type]
    runtime_checks.require(np.greater_equal(size, 0), "negative dimensions are not allowed")
    shape = [-1 if a == axis else int(d) for a, d in enumerate(dims)]
    iota = reshape_to(emit(graph.IotaOp(size.value)), [-1 if a == axis else 1 for a in range(len(dims))])
    positions = _broadcast(iota, shape)
    return np.where(np.greater_equal(positions, 0), fill, _cast(positions, fill.dtype))


def zeros(shape: ShapeLike, dtype: Any = "float32") -> Any:
    """An array of zeros (float32 unless ``dtype`` says otherwise), a constant inside a trace."""
    if trace_context.current() is not None:
        return full(shape, 0, dtype)
    return np.zeros(shape, dtypes.canonical(dtype))


def ones(shape: ShapeLike, dtype: Any = "float32") -> Any:
    """An array of ones (float32 unless ``dtype`` says otherwise), a constant inside a trace."""
    if trace_context.current() is not None:
        return full(shape, 1, dtype)
    return np.ones(shape, dtypes.canonical(dtype))


def zeros_like(x: Any, dtype: Any = None) -> Any:
    """Zeros of ``x``'s shape and (unless given) dtype, ``np.zeros_like``."""
    return np.zeros_like(x, dtype=dtype)


def ones_like(x: Any, dtype: Any = None) -> Any:
    """Ones of ``x``'s shape and (unless given) dtype, ``np.ones_like``."""
    return np.ones_like(x, dtype=dtype)


def constant(value: Any, dtype: Any = None) -> Any:
    """``value`` as an array of NumPy's dtype for it (or ``dtype``); a ``graph.constant`` inside a trace."""
    if isinstance(value, Tensor):
        return value if dtype is None else _cast(value, dtypes.canonical(dtype))
    array = np.asarray(value, dtype=None if dtype is None else dtypes.canonical(dtype))
    if array.dtype not in dtypes.SUPPORTED:
        raise dtypes.unsupported(array.dtype, "of a kiln.constant")
    return _constant(array) if trace_context.current() is not None else array


# ---------------------------------------------------------------------- convolution


def _conv_strides(strides: int | Sequence[int]) -> tuple[int, int]:
    pair = (strides, strides) if isinstance(strides, (int, np.integer)) else tuple(strides)
    if len(pair) != 2:
        raise ValueError(f"conv2d: strides must be an int or two ints, got {strides!r}")
    return operator.index(pair[0]), operator.index(pair[1])


def _conv2d_eager(x: np.ndarray, filters: np.ndarray, strides: tuple[int, int], padding: str) -> np.ndarray:
    """NumPy reference: SAME pads with zeros as TensorFlow does, then sliding windows . filters."""
    if padding == "SAME":
        (top, bottom), (left, right) = (
            graph.conv2d_same_padding(x.shape[1 + i], filters.shape[i], strides[i]) for i in range(2)
        )
        x = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    kh, kw = filters.shape[:2]
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2))[:, :: strides[0], :: strides[1]]
    # windows: (n, oh, ow, ci, kh, kw)
    return np.tensordot(windows, filters, axes=([4, 5, 3], [0, 1, 2])).astype(x.dtype, copy=False)


def conv2d(x: Any, filters: Any, strides: int | Sequence[int] = 1, padding: str = "VALID") -> Any:
    """2-D convolution as TensorFlow's ``tf.nn.conv2d``: ``x`` NHWC, ``filters`` HWIO
    (height, width, in channels, out channels), ``strides`` one int or (height, width),
    ``padding`` ``"VALID"`` (no padding) or ``"SAME"`` (zeros, output size ceil(size / stride)).
    Float inputs keep their dtype (both promoted to a common one); integers compute in float64."""
    pair = _conv_strides(strides)
    if not isinstance(padding, str) or padding.upper() not in graph.CONV_PADDINGS:
        raise ValueError(f"conv2d: padding must be 'VALID' or 'SAME', got {padding!r}")
    pad = padding.upper()
    if not _traced(x, filters):
        xa, fa = np.asarray(x), np.asarray(filters)
        dt = np.result_type(xa.dtype, fa.dtype, np.float32 if xa.dtype.kind == fa.dtype.kind == "f" else np.float64)
        graph.conv2d_shape(xa.shape, fa.shape, pair, pad)
        return _conv2d_eager(xa.astype(dt, copy=False), fa.astype(dt, copy=False), pair, pad)
    tx, tf = as_tensor(x), as_tensor(filters)
    for t in (tx, tf):
        require_rank(t, "conv2d")
    dt = dtypes.result_type(tx.dtype, tf.dtype)
    if dt.kind == "c":
        raise NotImplementedError("kiln.conv2d of complex arrays is not supported")
    if dt.kind != "f":
        dt = np.dtype(np.float64)
    tx, tf = _cast(tx, dt), _cast(tf, dt)
    graph.conv2d_shape(shape_of(tx), shape_of(tf), pair, pad)  # NumPy-style ValueError before any IR
    return emit(graph.Conv2DOp(tx.value, tf.value, pair, pad))
