"""NumPy's shape and layout functions on traced tensors, built from existing ``graph`` ops.

Every function here rearranges elements it can name at trace time: triangles and
diagonals are a ``graph.select`` on a comparison of row and column positions or a
strided ``graph.slice`` of the flattened matrix, flips are negative-stride slices, ``roll``/``pad``/``split``
are slices and ``graph.concat``, ``tile``/``repeat`` are ``graph.broadcast`` plus
``graph.reshape``. So the values are NumPy's exactly, and they need every size at
trace time: a dynamic dimension where a size matters raises ``NotImplementedError``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import array_ops, dtypes, views
from kiln.frontend.tensor import Tensor, as_tensor, broadcast_to, c_contiguous, constant, emit, follow_layout, require_rank, reshape_to, shape_of


def unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(f"{what} is not supported inside kiln.function")


def reject(name: str, **given: Any) -> None:
    """Raise naming NumPy keyword arguments kiln does not implement that were given a value."""
    bad = [k for k, v in given.items() if v is not None and v is not np._NoValue]
    if bad:
        raise unsupported(f"np.{name}(..., {', '.join(f'{k}=' for k in bad)})")


def ranked(x: Any, what: str) -> Tensor:
    """``x`` as a tensor of known rank."""
    t = as_tensor(x)
    require_rank(t, what)
    return t


def static_shape(t: Tensor, what: str) -> tuple[int, ...]:
    """``t``'s shape, every dimension known at trace time."""
    shape = shape_of(t)
    if -1 in shape:
        raise NotImplementedError(
            f"{what} on {t!r} is not supported inside kiln.function: it needs every dimension's size at trace time"
        )
    return shape


def slice_axis(t: Tensor, axis: int, start: int, size: int, step: int = 1) -> Tensor:
    """Elements ``start, start+step, ...`` (``size`` of them) along ``axis``; no op for the whole axis."""
    shape = list(shape_of(t))
    if start == 0 and step == 1 and size == shape[axis]:
        return t
    starts = [0] * len(shape)
    strides = [1] * len(shape)
    starts[axis], strides[axis] = (start if size else 0), step
    shape[axis] = size
    return emit(graph.SliceOp(t.value, starts, shape, strides))


def fill(shape: Sequence[int], value: Any, dtype: np.dtype[Any]) -> Tensor:
    """A constant of ``shape`` holding ``value`` cast to ``dtype`` (NumPy's unsafe cast, as assignment does)."""
    return broadcast_to(constant(np.asarray(value).astype(dtype)), tuple(shape))


#: up to this many positions are a constant; more are computed, so no constant grows with the data
_IOTA_CONSTANT_MAX = 64


def iota(n: int, axis: int = 0, ndim: int = 1) -> Tensor:
    """``0, 1, ..., n-1`` (int64) along ``axis`` of an otherwise length-1 ``ndim``-D tensor, to be
    broadcast: a constant when short, else an add-scan of ones (no constant of size ``n``)."""
    shape = [n if i == axis else 1 for i in range(ndim)]
    if n <= _IOTA_CONSTANT_MAX:
        return reshape_to(constant(np.arange(n, dtype=np.int64)), shape)
    ones = broadcast_to(constant(np.ones((), np.int64)), (n,))
    counts = emit(graph.ScanOp("add", ones.value, 0))
    return reshape_to(np.subtract(counts, np.int64(1)), shape)


def concat(parts: Sequence[Tensor], axis: int) -> Tensor:
    """``graph.concat`` of the non-empty parts (all of one dtype); the one part itself when alone."""
    kept = [p for p in parts if shape_of(p)[axis] != 0] or list(parts[:1])
    return kept[0] if len(kept) == 1 else emit(graph.ConcatOp([p.value for p in kept], axis))


# ---------------------------------------------------------------------- triangles and diagonals


def _triangle(lower: bool) -> Callable[..., Tensor]:
    name = "tril" if lower else "triu"

    def impl(m: Any, k: int = 0) -> Tensor:
        t = ranked(m, f"np.{name}")
        if t.ndim == 0:
            raise ValueError("input array must be at least 1-d")
        if t.ndim == 1:  # NumPy treats a vector as the rows of a square matrix
            (n,) = static_shape(t, f"np.{name}")
            t = broadcast_to(t, (n, n))
        rows, cols = static_shape(t, f"np.{name}")[-2:]
        offset = np.subtract(iota(cols, 1, 2), iota(rows, 0, 2))  # column - row
        keep = np.less_equal(offset, operator.index(k)) if lower else np.greater_equal(offset, operator.index(k))
        return _select_mask(keep, t)

    impl.__name__ = name
    return impl


def _select_mask(keep: Tensor, t: Tensor) -> Tensor:
    """``t`` where the bool ``keep`` (broadcast over leading axes) holds, else zero."""
    shape = shape_of(t)
    mask = broadcast_to(keep, shape)
    zero = fill(shape, 0, t.dtype)
    return emit(graph.SelectOp(mask.value, t.value, zero.value))


tril = _triangle(lower=True)
triu = _triangle(lower=False)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """``np.diagonal``: NumPy's read-only view (later writes to ``a`` show in it)."""
    t = ranked(a, "np.diagonal")
    if t.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = array_ops.normalize_axis(axis1, t.ndim), array_ops.normalize_axis(axis2, t.ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [i for i in range(t.ndim) if i not in (a1, a2)]
    static_shape(t, "np.diagonal")

    def strides(parent: tuple[int, ...]) -> tuple[int, ...]:
        return (*(parent[i] for i in rest), parent[a1] + parent[a2])

    return views.read_only_view(t, lambda p: _diagonal_values(p, offset, a1, a2, rest), strides)


def _diagonal_values(t: Tensor, offset: int, a1: int, a2: int, rest: list[int]) -> Tensor:
    """The other axes first, then the diagonal, read as one strided slice of the flattened last
    two axes (element ``(i, i + offset)`` is ``i * (cols + 1) + offset``)."""
    t = array_ops.transpose(t, [*rest, a1, a2])
    shape = static_shape(t, "np.diagonal")
    *lead, rows, cols = shape
    k = operator.index(offset)
    length = max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))
    start = k if k >= 0 else -k * cols
    flat = reshape_to(t, [*lead, rows * cols])
    return slice_axis(flat, len(lead), start, length, cols + 1)


def diag(v: Any, k: int = 0) -> Tensor:
    """``np.diag``: a 1-D ``v`` becomes the ``k``-th diagonal of a square matrix, a 2-D ``v`` gives its diagonal."""
    t = ranked(v, "np.diag")
    k = operator.index(k)
    if t.ndim == 2:
        return diagonal(t, k)
    if t.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    (length,) = static_shape(t, "np.diag")
    n = length + abs(k)
    padded = concat([t, fill((abs(k),), 0, t.dtype)], 0)  # v[i] for i < length, zeros beyond
    # row r holds v[r] on the diagonal above (k >= 0); column c holds v[c] below it
    spread = broadcast_to(reshape_to(padded, (n, 1) if k >= 0 else (1, n)), (n, n))
    on_diagonal = np.equal(np.subtract(iota(n, 1, 2), iota(n, 0, 2)), k)  # column - row == k
    return _select_mask(on_diagonal, spread)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None) -> Tensor:
    """``np.trace``: the sum of ``np.diagonal`` along its last axis, in ``np.sum``'s dtype (or ``dtype``)."""
    reject("trace", out=out)
    d = diagonal(a, offset, axis1, axis2)
    return array_ops.reduce("sum", d, -1, False, None if dtype is None else dtypes.canonical(dtype))


# ---------------------------------------------------------------------- axes


def swapaxes(a: Any, axis1: int, axis2: int) -> Tensor:
    t = ranked(a, "np.swapaxes")
    a1, a2 = array_ops.normalize_axis(axis1, t.ndim), array_ops.normalize_axis(axis2, t.ndim)
    perm = list(range(t.ndim))
    perm[a1], perm[a2] = a2, a1
    return array_ops.transpose(t, perm)


def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    t = ranked(a, "np.moveaxis")
    src = _axis_list(source, t.ndim, "source")
    dst = _axis_list(destination, t.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [i for i in range(t.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return array_ops.transpose(t, order)


def _axis_list(axis: int | Sequence[int], ndim: int, what: str) -> list[int]:
    axes = [array_ops.normalize_axis(a, ndim) for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)]
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in `{what}` argument")
    return axes


def flip(m: Any, axis: int | Sequence[int] | None = None) -> Tensor:
    """``np.flip``: a view, negative-stride along the flipped axes (all of them by default)."""
    t = ranked(m, "np.flip")
    axes = array_ops.normalize_axes(axis, t.ndim)
    if not axes or t.ndim == 0:
        return t
    return t[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(t.ndim))]  # NumPy's view


def fliplr(m: Any) -> Tensor:
    t = ranked(m, "np.fliplr")
    if t.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(t, 1)


def flipud(m: Any) -> Tensor:
    t = ranked(m, "np.flipud")
    if t.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(t, 0)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = np._NoValue, append: Any = np._NoValue) -> Tensor:
    """``np.diff``: ``n`` times the difference of neighbours along ``axis`` (``!=`` for bools), after
    ``prepend``/``append`` are joined on; laid out like ``a``, as NumPy's."""
    t = ranked(a, "np.diff")
    n = operator.index(n)
    if n == 0:
        return t
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if t.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = array_ops.normalize_axis(axis, t.ndim)
    shape = shape_of(t)
    parts = []
    for extra in (prepend, append):
        if extra is np._NoValue:
            parts.append(None)
            continue
        e = as_tensor(extra)
        if e.ndim == 0:
            e = broadcast_to(e, [1 if i == ax else d for i, d in enumerate(static_shape(t, "np.diff(..., prepend/append=scalar)"))])
        parts.append(e)
    joined = t if parts == [None, None] else as_tensor(np.concatenate([p for p in (parts[0], t, parts[1]) if p is not None], axis=ax))
    op = np.not_equal if joined.dtype == np.bool_ else np.subtract
    out = joined
    lead = (slice(None),) * ax
    for _ in range(n):
        length = shape_of(out)[ax]
        if length == 0:
            break
        if length < 0:  # a length known only at run time: slices clamped as Python's (0 stays 0)
            out = op(out[(*lead, slice(1, None))], out[(*lead, slice(None, -1))])
        else:
            out = op(slice_axis(out, ax, 1, length - 1), slice_axis(out, ax, 0, length - 1))
    return follow_layout(Tensor(out.value) if out is t else out, [joined])


#: ``np.convolve``'s modes: where the result starts in the full convolution, and its length
_CONVOLVE_MODES: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "full": lambda n, m: (0, n + m - 1), "same": lambda n, m: ((m - 1) // 2, n), "valid": lambda n, m: (m - 1, n - m + 1),
}


def convolve(a: Any, v: Any, mode: str = "full") -> Tensor:
    """``np.convolve`` of two vectors: per element of the shorter one (NumPy swaps them), the
    longer one shifted and weighted by it, written at its offset into zeros where it does not
    cover the result, summed: slices and static writes, so a stencil whose reach is the shorter
    vector's length less one (its halo on Dask arrays)."""
    x, w = ranked(a, "np.convolve"), ranked(v, "np.convolve")
    if x.ndim != 1 or w.ndim != 1:
        raise ValueError("object too deep for desired array")
    (n,), (m,) = static_shape(x, "np.convolve"), static_shape(w, "np.convolve")
    if n == 0 or m == 0:
        raise ValueError(f"{'a' if n == 0 else 'v'} cannot be empty")
    if mode not in _CONVOLVE_MODES:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    if m > n:
        x, w, n, m = w, x, m, n
    start, length = _CONVOLVE_MODES[mode](n, m)
    out: Tensor | None = None
    for j in range(m):  # out[k] += w[j] * x[k + start - j] where that is inside x
        shift = start - j
        lo, hi = max(0, -shift), min(length, n - shift)
        if hi <= lo:
            continue
        term = w[j] * slice_axis(x, 0, lo + shift, hi - lo)
        if (lo, hi) != (0, length):
            zeros = broadcast_to(constant(np.zeros((), term.dtype)), [length])
            term = emit(graph.InsertSliceOp(term.value, zeros.value, [lo], [hi - lo], [1]))
        out = term if out is None else out + term
    assert out is not None  # j = start - lo covers k = lo for every mode
    return out


def roll(a: Any, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Tensor:
    """``np.roll``: per axis, the last ``shift`` elements move to the front (one concat of two slices)."""
    t = rolled = ranked(a, "np.roll")
    if axis is None:
        shape = static_shape(t, "np.roll")
        return reshape_to(roll(reshape_to(t, [math.prod(shape)]), shift, 0), shape)
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    shifts = [shift] if isinstance(shift, (int, np.integer)) else list(shift)
    if len(shifts) == 1:
        shifts *= len(axes)
    if len(axes) == 1:
        axes *= len(shifts)
    if len(axes) != len(shifts):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total: dict[int, int] = {}
    for ax, s in zip(axes, shifts):  # repeated axes add up, as in NumPy
        a_ = array_ops.normalize_axis(ax, t.ndim)
        total[a_] = total.get(a_, 0) + operator.index(s)
    shape = static_shape(t, "np.roll")
    for ax, s in total.items():
        n = shape[ax]
        if n and s % n:
            s %= n
            t = concat([slice_axis(t, ax, n - s, s), slice_axis(t, ax, 0, n - s)], ax)
    return Tensor(t.value) if t is rolled else follow_layout(t, [rolled])  # a new array, laid out like `a`


# ---------------------------------------------------------------------- padding, tiling, repeating


def _pairs(value: Any, ndim: int, what: str) -> list[tuple[Any, Any]]:
    """NumPy's ``pad_width`` / ``constant_values`` forms (scalar, pair, one pair per axis) as a pair per axis."""
    array = np.asarray(value)
    try:
        pairs = np.broadcast_to(array, (ndim, 2)) if array.ndim <= 2 else None
    except ValueError:
        pairs = None
    if pairs is None:
        raise ValueError(f"unable to create correctly shaped tuple from {value!r} ({what})")
    return [(pairs[i, 0], pairs[i, 1]) for i in range(ndim)]


_PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Tensor:
    """``np.pad`` with modes constant (``constant_values``), edge, wrap, reflect and symmetric,
    axis by axis as NumPy does (so corners take the later axis's padding)."""
    t = ranked(array, "np.pad")
    if not isinstance(mode, str) or mode not in _PAD_MODES:
        raise unsupported(f"np.pad(..., mode={mode!r}) (supported: {', '.join(_PAD_MODES)})")
    allowed = {"constant_values"} if mode == "constant" else {"reflect_type"} if mode in ("reflect", "symmetric") else set()
    extra = sorted(set(kwargs) - allowed)
    if extra:
        raise unsupported(f"np.pad(..., mode={mode!r}, {', '.join(f'{k}=' for k in extra)})")
    if kwargs.get("reflect_type", "even") != "even":
        raise unsupported("np.pad(..., reflect_type='odd')")
    if any(isinstance(v, Tensor) or hasattr(type(v), "__kiln_tensor__") for v in kwargs.values()):
        raise unsupported("np.pad(..., constant_values=<a traced tensor>)")
    widths = [(operator.index(int(b)), operator.index(int(a))) for b, a in _pairs(pad_width, t.ndim, "pad_width")]
    if any(b < 0 or a < 0 for b, a in widths):
        raise ValueError("index can't contain negative values")
    values = _pairs(kwargs.get("constant_values", 0), t.ndim, "constant_values")
    static_shape(t, "np.pad")
    padded = t
    for axis, ((before, after), (vb, va)) in enumerate(zip(widths, values)):
        if before or after:
            padded = _pad_axis(padded, axis, before, after, mode, vb, va)
    return Tensor(t.value) if padded is t else follow_layout(padded, [t])  # a new array, laid out like `array`


def _pad_axis(t: Tensor, axis: int, before: int, after: int, mode: str, vb: Any, va: Any) -> Tensor:
    shape = shape_of(t)
    n = shape[axis]

    def block(size: int, value: Any) -> Tensor:
        return fill([size if i == axis else d for i, d in enumerate(shape)], value, t.dtype)

    if mode == "constant":
        return concat([block(before, vb), t, block(after, va)], axis)
    if n == 0:
        raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
    if mode == "edge":
        edge_shape = [1 if i == axis else d for i, d in enumerate(shape)]

        def edge(index: int, size: int) -> Tensor:
            return broadcast_to(slice_axis(t, axis, index, 1), [size if i == axis else d for i, d in enumerate(edge_shape)])

        return concat([edge(0, before), t, edge(n - 1, after)], axis)
    limit = n - 1 if mode == "reflect" else n
    if before > limit or after > limit:
        raise unsupported(f"np.pad(..., mode={mode!r}) wider than the axis ({max(before, after)} > {limit})")
    if mode == "wrap":
        return concat([slice_axis(t, axis, n - before, before), t, slice_axis(t, axis, 0, after)], axis)
    skip = 1 if mode == "reflect" else 0  # reflect leaves out the edge element, symmetric repeats it
    head = slice_axis(t, axis, before - 1 + skip, before, -1) if before else None
    tail = slice_axis(t, axis, n - 1 - skip, after, -1) if after else None
    return concat([p for p in (head, t, tail) if p is not None], axis)


def tile(A: Any, reps: int | Sequence[int]) -> Tensor:
    """``np.tile``: ``A`` (with leading 1s) interleaved with the repeat counts, broadcast, reshaped."""
    t = ranked(A, "np.tile")
    counts = [operator.index(reps)] if isinstance(reps, (int, np.integer)) else [operator.index(r) for r in reps]
    if any(r < 0 for r in counts):
        raise ValueError("negative dimensions are not allowed")
    ndim = max(t.ndim, len(counts))
    shape = (1,) * (ndim - t.ndim) + static_shape(t, "np.tile")
    counts = [1] * (ndim - len(counts)) + counts
    spread = broadcast_to(reshape_to(t, [x for d in shape for x in (1, d)]), [x for r, d in zip(counts, shape) for x in (r, d)])
    return reshape_to(spread, [r * d for r, d in zip(counts, shape)])


def repeat(a: Any, repeats: Any, axis: int | None = None) -> Tensor:
    """``np.repeat``: each element ``repeats`` times along ``axis`` (flattened when None).
    One count: a broadcast of a new axis after ``axis``; one count per element: a concat."""
    t = ranked(a, "np.repeat")
    if isinstance(repeats, Tensor) or hasattr(type(repeats), "__kiln_tensor__"):
        raise unsupported("np.repeat(..., repeats=<a traced tensor>) (the result's size would depend on its values)")
    if axis is None:
        t, axis = reshape_to(t, [math.prod(static_shape(t, "np.repeat"))]), 0
    ax = array_ops.normalize_axis(axis, t.ndim)
    shape = static_shape(t, "np.repeat")
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "biu":
        raise TypeError(f"Cannot cast array data from {counts.dtype!r} to dtype('int64') according to the rule 'safe'")
    if np.any(counts < 0):
        raise ValueError("repeats may not contain negative values.")
    if counts.ndim == 0 or counts.size == 1:
        r = int(counts.reshape(()))
        expanded = reshape_to(t, [*shape[: ax + 1], 1, *shape[ax + 1 :]])
        spread = broadcast_to(expanded, [*shape[: ax + 1], r, *shape[ax + 1 :]])
        return reshape_to(spread, [*shape[:ax], shape[ax] * r, *shape[ax + 1 :]])
    if counts.shape != (shape[ax],):
        raise ValueError(f"operands could not be broadcast together with shape ({shape[ax]},) ({counts.size},)")
    pieces = []
    for i, r in enumerate(counts.tolist()):
        if r:
            row = slice_axis(t, ax, i, 1)
            pieces.append(broadcast_to(row, [r if j == ax else d for j, d in enumerate(shape_of(row))]))
    if not pieces:
        return slice_axis(t, ax, 0, 0)
    return concat(pieces, ax)


# ---------------------------------------------------------------------- joining and splitting


def atleast(ndim: int) -> Callable[..., Any]:
    """``np.atleast_1d/2d/3d``: NumPy's placement of the new length-1 axes; a tuple for several arrays."""

    def one(x: Any) -> Tensor:
        t = ranked(x, f"np.atleast_{ndim}d")
        shape = shape_of(t)
        if t.ndim >= ndim:
            return t
        if ndim == 1 or t.ndim == 0:
            new = [1] * (ndim - t.ndim) + list(shape)
        elif ndim == 2:
            new = [1, *shape]
        else:  # 3-D: (n,) -> (1, n, 1) and (m, n) -> (m, n, 1)
            new = [1, *shape, 1] if t.ndim == 1 else [*shape, 1]
        return views.reshaped(t, reshape_to(t, new))  # only length-1 axes added: NumPy's view

    def impl(*arys: Any) -> Any:
        results = [one(x) for x in arys]
        return results[0] if len(results) == 1 else tuple(results)

    return impl


def _joined(name: str, arrays: Sequence[Any], prepare: Callable[[Any], Tensor], axis: Callable[[list[Tensor]], int],
            dtype: Any, casting: str) -> Tensor:
    if casting != "same_kind":
        raise unsupported(f"np.{name}(..., casting={casting!r})")
    if isinstance(arrays, Tensor) or hasattr(type(arrays), "__kiln_tensor__"):
        raise unsupported(f"np.{name}(<one tensor>) (pass a list or tuple of arrays)")
    tensors = [prepare(x) for x in arrays]
    if not tensors:
        raise ValueError("need at least one array to concatenate")
    return array_ops.concat(tensors, axis(tensors), dtype)


def vstack(tup: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Tensor:
    return _joined("vstack", tup, atleast(2), lambda ts: 0, dtype, casting)


def hstack(tup: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Tensor:
    return _joined("hstack", tup, atleast(1), lambda ts: 0 if ts[0].ndim == 1 else 1, dtype, casting)


def dstack(tup: Sequence[Any]) -> Tensor:
    return _joined("dstack", tup, atleast(3), lambda ts: 2, None, "same_kind")


def column_stack(tup: Sequence[Any]) -> Tensor:
    def column(x: Any) -> Tensor:
        t = ranked(x, "np.column_stack")
        return reshape_to(t, [shape_of(t)[0], 1]) if t.ndim == 1 else atleast(2)(t)

    return _joined("column_stack", tup, column, lambda ts: 1, None, "same_kind")


def _split_points(n: int, sections: Any, equal: bool) -> list[tuple[int, int]]:
    """(start, size) of each piece of an axis of length ``n``, as ``np.split``/``np.array_split`` cut it."""
    if isinstance(sections, (int, np.integer)):
        count = operator.index(sections)
        if count <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and n % count:
            raise ValueError("array split does not result in an equal division")
        base, extra = divmod(n, count)
        sizes = [base + 1] * extra + [base] * (count - extra)
        starts = [sum(sizes[:i]) for i in range(count)]
        return list(zip(starts, sizes))
    if isinstance(sections, Tensor) or hasattr(type(sections), "__kiln_tensor__"):
        raise unsupported("np.split at traced indices (the pieces' sizes would depend on their values)")
    bounds = [0, *(operator.index(i) for i in sections), n]
    pieces = []
    for lo, hi in zip(bounds, bounds[1:]):
        lo, hi = (lo + n if lo < 0 else lo), (hi + n if hi < 0 else hi)
        lo, hi = min(max(lo, 0), n), min(max(hi, 0), n)
        pieces.append((lo, max(hi - lo, 0)))
    return pieces


def _splitter(name: str, equal: bool, axis_for: Callable[[int], int] | None = None) -> Callable[..., list[Tensor]]:
    """``np.split``-like, views of ``ary`` as NumPy's: ``axis_for(ndim)`` fixes the axis (``hsplit``...),
    else the ``axis`` argument."""

    def impl(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Tensor]:
        t = ranked(ary, f"np.{name}")
        ax = array_ops.normalize_axis(axis_for(t.ndim) if axis_for is not None else axis, t.ndim)
        n = static_shape(t, f"np.{name}")[ax]
        before = (slice(None),) * ax
        return [t[(*before, slice(start, start + size))] for start, size in _split_points(n, indices_or_sections, equal)]

    return impl


def _fixed_axis(name: str, min_ndim: int, axis: Callable[[int], int]) -> Callable[[int], int]:
    def axis_for(ndim: int) -> int:
        if ndim < min_ndim:
            raise ValueError(f"{name} only works on arrays of {min_ndim} or more dimensions")
        return axis(ndim)

    return axis_for


split = _splitter("split", equal=True)
array_split = _splitter("array_split", equal=False)
hsplit = _splitter("hsplit", True, _fixed_axis("hsplit", 1, lambda ndim: 1 if ndim > 1 else 0))
vsplit = _splitter("vsplit", True, _fixed_axis("vsplit", 2, lambda ndim: 0))
dsplit = _splitter("dsplit", True, _fixed_axis("dsplit", 3, lambda ndim: 2))


def ravel(a: Any, order: str = "C") -> Tensor:
    """``np.ravel`` / ``x.ravel()``: a view of a C-contiguous array, a copy of any other. 'K' and 'A'
    read an array contiguous in another axis order (``x.T``, ``x.T + 1``) in memory order, a view
    too; of other non-contiguous arrays they are refused (memory order of gaps and reversals)."""
    if order not in ("C", "K", "A"):
        raise unsupported(f"np.ravel(..., order={order!r})")
    t = as_tensor(a)
    if order != "C" and not t.is_contiguous():
        perm = _memory_order(t)
        if perm is None or (order == "A" and perm != tuple(range(t.ndim))[::-1]):
            raise unsupported(f"np.ravel(..., order={order!r}) of a non-contiguous array")
        t = views.transposed(t, array_ops.transpose(t, perm))
    if t.shape_source is not None:
        return Tensor(t.value)
    return views.raveled(t, array_ops.reshape(t, -1))


def _memory_order(t: Tensor) -> tuple[int, ...] | None:
    """The axes of ``t`` from the largest stride to the smallest, when ``t`` is contiguous in
    that order with positive strides (a permuted contiguous array); else None."""
    strides = t.element_strides()
    if strides is None or any(s <= 0 for s, d in zip(strides, shape_of(t)) if d != 1):
        return None
    perm = tuple(sorted(range(t.ndim), key=lambda i: -strides[i] if shape_of(t)[i] != 1 else 0))
    shape = [shape_of(t)[i] for i in perm]
    return perm if c_contiguous(shape, [strides[i] for i in perm]) else None


# ---------------------------------------------------------------------- grids


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple[Tensor, ...]:
    """``np.meshgrid``: each input flattened onto its own output axis (the first two swapped for 'xy')."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    vectors = [ravel(ranked(x, "np.meshgrid")) for x in xi]
    n = len(vectors)
    lengths = [shape_of(v)[0] for v in vectors]
    position = list(range(n))
    if indexing == "xy" and n > 1:
        position[0], position[1] = 1, 0
    full = [0] * n
    for i, length in enumerate(lengths):
        full[position[i]] = length
    grids = []
    for i, v in enumerate(vectors):
        shape = [1] * n
        shape[position[i]] = lengths[i]
        g = reshape_to(v, shape)
        grids.append(g if sparse else broadcast_to(g, full))
    return tuple(grids)


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.tril: tril,
    np.triu: triu,
    np.diag: diag,
    np.diagonal: diagonal,
    np.trace: trace,
    np.swapaxes: swapaxes,
    np.moveaxis: moveaxis,
    np.flip: flip,
    np.fliplr: fliplr,
    np.flipud: flipud,
    np.roll: roll,
    np.diff: diff,
    np.convolve: convolve,
    np.pad: pad,
    np.tile: tile,
    np.repeat: repeat,
    np.atleast_1d: atleast(1),
    np.atleast_2d: atleast(2),
    np.atleast_3d: atleast(3),
    np.vstack: vstack,
    np.hstack: hstack,
    np.dstack: dstack,
    np.column_stack: column_stack,
    np.split: split,
    np.array_split: array_split,
    np.hsplit: hsplit,
    np.vsplit: vsplit,
    np.dsplit: dsplit,
    np.ravel: ravel,
    np.meshgrid: meshgrid,
}
