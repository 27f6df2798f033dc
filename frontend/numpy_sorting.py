"""NumPy's sorting, searching and counting on traced tensors: ``sort``, ``argsort``,
``searchsorted``, ``bincount``, ``histogram``, and the positions of nonzero elements:
``nonzero``, ``flatnonzero``, ``argwhere``, ``extract`` and ``compress``.

They are ``graph.sort``, ``graph.argsort`` (stable, NaN last), ``graph.searchsorted``
(binary search in NumPy's order) and ``graph.bincount``. A histogram is a bincount of
the bin each value falls in (the last bin holds its right edge; values outside the edges
and NaN are not counted): for equal bins computed from the value as NumPy computes it,
for explicit edges found by a binary search in them. Result sizes must be known at trace time:
``bincount`` needs ``minlength=`` (or constant values), ``histogram`` an int ``bins`` or
edges of a known length.

The positions of the nonzero elements are ``graph.nonzero`` of the array flattened (one pass,
a length known only at run time; NaN is nonzero); ``np.nonzero`` and ``np.argwhere`` divide
them by each axis's stride in row-major order. Those results work inside the function (as
index arrays too) but cannot be returned, as ``x[mask]`` cannot. ``extract`` and ``compress``
gather at those positions; with a constant condition they are found while tracing, so the
result's length is static.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import advanced_index, array_ops, creation, dtypes, runtime_checks
from kiln.frontend.numpy_shape import ranked, reject, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, constant, emit, follow_layout, promotion_value, shape_of
from kiln.frontend.tensor import is_traced

_SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")



def _promotion_key(v: Any) -> Any:
    """What ``v`` brings to ``np.result_type``: a Python scalar itself (weak), else a dtype."""
    if is_traced(v):
        return promotion_value(as_tensor(v))
    if isinstance(v, (bool, int, float)) and not isinstance(v, np.generic):
        return v
    return np.asarray(v).dtype


def _sort_args(name: str, a: Any, axis: int | None, kind: Any, order: Any) -> tuple[Tensor, int]:
    reject(name, order=order)
    if kind not in _SORT_KINDS:
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got '{kind}')")
    t = as_tensor(a)
    if axis is None:
        t = Tensor(t.value) if t.shape_source is not None else array_ops.reshape(t, -1)
        return t, 0
    ranked(t, f"np.{name}(..., axis=)")
    return t, array_ops.normalize_axis(axis, t.ndim)


#: dtypes sorted as a wider one of the same order (the C sorts know bool, int32/64, float32/64)
_SORTED_AS = {np.dtype(d): np.dtype(w) for d, w in (
    (np.int8, np.int32), (np.int16, np.int32), (np.uint8, np.int32), (np.uint16, np.int32), (np.uint32, np.int64),
    (np.float16, np.float32),
)}


def _sort_keys(name: str, t: Tensor) -> Tensor:
    """``t`` in a dtype the sorts know, with the same order (exact: every value converts back)."""
    if t.dtype.kind == "c" or t.dtype == np.uint64:
        raise unsupported(f"np.{name} of {t.dtype} arrays")
    return cast(t, _SORTED_AS.get(t.dtype, t.dtype))


def sort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Tensor:
    """``np.sort``: ascending along ``axis`` (flattened when None), NaN last; every ``kind`` sorts alike."""
    t, ax = _sort_args("sort", a, axis, kind, order)
    return follow_layout(cast(emit(graph.SortOp(_sort_keys("sort", t).value, ax)), t.dtype), [t])


def argsort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Tensor:
    """``np.argsort`` as int64. kiln always sorts stably: for ``kind="stable"`` (or ``stable=True``) that is
    NumPy's answer; for the default quicksort NumPy leaves the order of equal elements unspecified."""
    t, ax = _sort_args("argsort", a, axis, kind, order)
    return emit(graph.ArgsortOp(_sort_keys("argsort", t).value, ax))


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Tensor:
    """``np.searchsorted`` of ``v`` (any shape) in the sorted 1-D ``a``, in their common dtype."""
    reject("searchsorted", sorter=sorter)
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    ta = ranked(a, "np.searchsorted")
    if ta.ndim != 1:
        raise ValueError("object too deep for desired array")
    dt = dtypes.result_type(ta.dtype, _promotion_key(v))
    tv = ranked(v if is_traced(v) else np.asarray(v, dt), "np.searchsorted")
    keys = _sort_keys("searchsorted", cast(ta, dt))
    return emit(graph.SearchsortedOp(side, keys.value, cast(tv, keys.dtype).value))


def bincount(x: Any, weights: Any = None, minlength: int = 0) -> Tensor:
    """``np.bincount`` with a length known at trace time: ``minlength``, or from constant values.
    Values at or above that length are not counted (NumPy would make the result longer)."""
    if minlength is None or minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if not is_traced(x):
        values = np.asarray(x)
        if values.size and values.min() < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = max(int(minlength), int(values.max()) + 1 if values.size else 0)
    elif minlength == 0:
        raise unsupported(
            "np.bincount(x) without minlength= (the result's length is max(x) + 1, known only from the values); "
            "pass minlength=N with every value below N"
        )
    else:
        length = int(minlength)
    t = ranked(x, "np.bincount")
    if t.ndim != 1:
        raise ValueError("object too deep for desired array" if t.ndim > 1 else "object of too small depth for desired array")
    if t.dtype.kind not in "bi":
        raise TypeError(f"Cannot cast array data from dtype('{t.dtype}') to dtype('int64') according to the rule 'safe'")
    w = None
    if weights is not None:
        w = cast(ranked(weights, "np.bincount(..., weights=)"), np.dtype(np.float64))
        if shape_of(w) != shape_of(t) and -1 not in shape_of(w) + shape_of(t):
            raise ValueError("The weights and list don't have the same length.")
    return emit(graph.BincountOp(cast(t, np.dtype(np.int64)).value, None if w is None else w.value, length))


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> tuple[Tensor, Any]:  # noqa: A002
    """``np.histogram`` with ``bins`` an int (equal bins over ``range=``, NumPy's own edges computed
    at trace time, or over the data's min and max at run time) or the edges themselves (an array or
    a tensor). Equal bins find each value's bin arithmetically, as NumPy does; explicit edges by a
    binary search."""
    t = ranked(a, "np.histogram")
    flat = array_ops.reshape(cast(t, np.dtype(np.uint8)) if t.dtype == np.bool_ else t, -1)  # NumPy's bool -> uint8
    if isinstance(bins, str):
        raise unsupported(f"np.histogram(..., bins={bins!r})")
    w = None if weights is None else ranked(weights, "np.histogram(..., weights=)")
    if w is not None and shape_of(w) != shape_of(t):
        raise ValueError("weights should have the same shape as a.")
    if isinstance(bins, (int, np.integer)):
        first, last, edges = _outer_edges(flat, int(bins), range)
        te = ranked(edges, "np.histogram")
        if _one_pass(flat, first, last, te, w):
            counts = _one_pass_histogram(flat, first, last, te, w)
            return _density(counts, edges) if density else counts, edges
        bin_ = _equal_bins(flat, first, last, int(bins), te)
        n = int(bins)
    else:
        edges = bins if is_traced(bins) else np.asarray(bins)
        te = ranked(edges, "np.histogram(..., bins=<edges>)")
        if te.ndim != 1:
            raise ValueError("`bins` must be 1d, when an array")
        n = shape_of(te)[0] - 1
        bin_ = _searched_bins(flat, te, n)
    counts = bincount(bin_, None if w is None else array_ops.reshape(w, -1), minlength=n)
    if w is not None:
        counts = cast(counts, w.dtype)
    return _density(counts, edges) if density else counts, edges


def _density(counts: Tensor, edges: Any) -> Tensor:
    """``counts`` divided by the bins' widths and their total (``density=True``)."""
    te = ranked(edges, "np.histogram")
    widths = np.diff(edges).astype(np.float64) if not is_traced(edges) else cast(np.subtract(te[1:], te[:-1]), np.dtype(np.float64))
    return np.true_divide(np.true_divide(counts, widths), array_ops.reduce("sum", counts, None, False))


_ONE_PASS_TYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _one_pass(flat: Tensor, first: Any, last: Any, te: Tensor, w: Tensor | None) -> bool:
    """Whether ``graph.histogram`` computes NumPy's bins exactly: all of NumPy's arithmetic and
    comparisons happen in the edges' float type. That holds for the data's own range (``first`` and
    ``last`` are then 0-d tensors of that type) and for float64 data with a ``range=`` whose ends
    are floats exactly; float32 data with ``range=`` divides in float64 (NumPy's span is a float64
    scalar), integers compare exactly: those take the general path, as do other weights' types."""
    if te.dtype not in _ONE_PASS_TYPES or (w is not None and w.dtype not in _ONE_PASS_TYPES):
        return False
    if is_traced(first):
        return True
    return flat.dtype == np.float64 == te.dtype and all(float(e) == e for e in (first, last))


def _one_pass_histogram(flat: Tensor, first: Any, last: Any, te: Tensor, w: Tensor | None) -> Tensor:
    """Counts (or the weights' sums) of ``flat`` in equal bins by one ``graph.histogram``."""
    dt = te.dtype
    if is_traced(first):
        lo, hi = cast(first, dt), cast(last, dt)
        span = np.subtract(hi, lo)
    else:
        lo, hi = as_tensor(np.asarray(first, dt)), as_tensor(np.asarray(last, dt))
        span = as_tensor(np.asarray(_unsigned_subtract(last, first), dt))
    weights = [] if w is None else [array_ops.reshape(w, -1).value]
    op = graph.HistogramOp(cast(flat, dt).value, lo.value, hi.value, span.value, te.value, weights)
    counts = emit(op)
    return counts if w is None else Tensor(op.sums[0])


def _searched_bins(flat: Tensor, te: Tensor, n: int) -> Tensor:
    """Each value's bin among explicit edges, by a binary search (the last bin holds its right
    edge; -1 or ``n`` outside the edges and for NaN: not counted)."""
    dt = dtypes.result_type(te.dtype, flat.dtype)
    x, te_ = cast(flat, dt), cast(te, dt)
    bin_ = np.subtract(emit(graph.SearchsortedOp("right", te_.value, x.value)), np.int64(1))
    return np.where(np.equal(x, te_[n]), np.int64(n - 1), bin_)


def _outer_edges(flat: Tensor, bins: int, range_: Any) -> tuple[Any, Any, Any]:
    """NumPy's first and last edge (Python or NumPy scalars from ``range=``, 0-d tensors from the
    data) and the edges between them."""
    if bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range_ is None and shape_of(flat)[0] != 0:
        return data_edges(flat, bins)
    if range_ is not None and (is_traced(range_[0]) or is_traced(range_[1])):
        raise unsupported("np.histogram(..., range=<traced values>)")
    edges = np.histogram_bin_edges(np.empty(0, flat.dtype), bins, range_)  # NumPy's checks and edges
    first, last = (0, 1) if range_ is None else (range_[0], range_[1])
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last, edges


def data_edges(flat: Tensor, bins: int) -> tuple[Tensor, Tensor, Tensor]:
    """NumPy's edges for ``bins`` equal bins over the data's range, at run time: from ``min`` to
    ``max`` (widened by 0.5 each way when they are equal), ``np.linspace`` in the data's float type
    (float64 for integers and bools). NumPy raises for a NaN or infinite range; kiln's edges are
    then NaN and no value is counted."""
    dt = flat.dtype if flat.dtype.kind in "fc" else np.dtype(np.float64)
    lo = cast(array_ops.reduce("min", flat, None, False), dt)
    hi = cast(array_ops.reduce("max", flat, None, False), dt)
    same = np.equal(lo, hi)
    lo, hi = np.where(same, lo - 0.5, lo), np.where(same, hi + 0.5, hi)
    return lo, hi, creation.linspace_traced(lo, hi, bins + 1, dtype=dt)


def _unsigned_subtract(a: Any, b: Any) -> Any:
    """``a - b`` (``a >= b``) as NumPy's histogram takes it: in their common type, unsigned for
    signed integers (an int16 range may span more than int16 holds)."""
    if is_traced(a) or is_traced(b):
        return np.subtract(a, b)
    dt = np.result_type(a, b)
    if dt.kind != "i":
        return np.subtract(a, b, dtype=dt)
    return np.subtract(np.asarray(a, dt), np.asarray(b, dt), casting="unsafe", dtype=np.dtype(f"u{dt.itemsize}"))


def _equal_bins(flat: Tensor, first: Any, last: Any, n: int, te: Tensor) -> Tensor:
    """Each value's bin among ``n`` equal bins from ``first`` to ``last`` (edges ``te``), NumPy's
    way and in its types: ``int((x - first) / (last - first) * n)``, moved down one when ``x`` is
    below that bin's left edge and up one when it is at or past its right edge (the arithmetic
    may miss by one near an edge), so the bin is the one the edges say, without a binary
    search. The last bin holds its right edge; values outside ``[first, last]`` and NaN are -1
    (not counted). Both edges are gathered at the first guess (the right one from ``te[1:]``),
    so that one index array feeds both gathers."""
    keep = np.logical_and(np.greater_equal(flat, first), np.less_equal(flat, last))
    x = cast(flat, te.dtype)
    f = np.multiply(np.true_divide(_unsigned_subtract(x, first), _unsigned_subtract(last, first)), n)
    # f is NaN or out of range only where a value is not kept; f == n is the last edge
    guess = np.minimum(cast(np.where(keep, f, -1), np.dtype(np.int64)), np.int64(n - 1))
    below = np.less(x, _gather(te, guess))
    above = np.logical_and(np.greater_equal(x, _gather(te[1:], guess)), np.not_equal(guess, np.int64(n - 1)))
    moved = np.where(below, guess - np.int64(1), np.where(above, guess + np.int64(1), guess))
    return np.where(np.less(guess, np.int64(0)), np.int64(-1), moved)


def _gather(te: Tensor, idx: Tensor) -> Tensor:
    """``te[idx]`` (-1 reads the last edge: its result is not used)."""
    return emit(graph.GatherOp(te.value, [idx.value]))


# ---------------------------------------------------------------------- positions of nonzero elements


def _flat(t: Tensor) -> Tensor:
    """``t`` flattened in row-major order (a tensor of unknown rank is flat already)."""
    return Tensor(t.value) if t.shape_source is not None else array_ops.reshape(t, -1)


def flatnonzero(a: Any) -> Tensor:
    """``np.flatnonzero``: the positions (int64, increasing) of the nonzero elements of ``a``
    flattened, by one ``graph.nonzero``; NaN is nonzero, a complex number is when either part is."""
    return emit(graph.NonzeroOp(_flat(as_tensor(a)).value))


def _unravel(flat: Tensor, t: Tensor) -> tuple[Tensor, ...]:
    """Per axis of ``t``, the index of each flat position: ``flat // stride % size`` in row-major
    order (the first axis needs no modulo, the last no division); sizes known only at run time
    are read with ``graph.dim``."""
    sizes = [d if d >= 0 else emit(graph.DimOp(t.value, a)) for a, d in enumerate(shape_of(t))]
    indices: list[Tensor] = []
    stride: int | Tensor = 1
    for axis in reversed(range(len(sizes))):
        q = flat if isinstance(stride, int) and stride == 1 else np.floor_divide(flat, stride)
        indices.append(q if axis == 0 else np.remainder(q, sizes[axis]))
        stride = np.multiply(stride, sizes[axis]) if isinstance(sizes[axis], Tensor) else stride * sizes[axis]
    return tuple(reversed(indices))


def nonzero(a: Any) -> tuple[Tensor, ...]:
    """``np.nonzero`` (also ``np.where(condition)`` and ``x.nonzero()``): one int64 array per axis,
    the indices of the nonzero elements in row-major order; NumPy 2's ValueError for a 0-d array."""
    t = ranked(a, "np.nonzero")
    if t.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.")
    return _unravel(flatnonzero(t), t)


def argwhere(a: Any) -> Tensor:
    """``np.argwhere``: the indices of the nonzero elements as rows, shape ``(count, ndim)``; a 0-d
    array's are ``(1, 0)`` or ``(0, 0)``, as NumPy's."""
    t = ranked(a, "np.argwhere")
    if t.ndim == 0:
        return argwhere(array_ops.reshape(t, (1,)))[:, :0]
    return np.stack(nonzero(t), axis=1)


def _condition(condition: Any) -> Tensor | np.ndarray:
    """A condition as a tensor, or as its NumPy value when it is a constant (also one made in the
    function: ``np.array([1, 0, 1])``), whose positions tracing can find."""
    if not is_traced(condition):
        return np.asarray(condition)
    t = as_tensor(condition)
    value = advanced_index.known(t)
    return t if value is None else value


def _where_true(condition: Tensor | np.ndarray, t: Tensor, axis: int) -> Tensor:
    """The positions of the nonzero elements of the 1-D ``condition``, as indices along ``axis`` of
    ``t``. NumPy's ``take`` raises IndexError for one at or past the axis's length: for a constant
    condition while tracing (its positions are constants, of a static count), else when the
    function runs, unless the condition is known to be no longer than the axis."""
    n = shape_of(t)[axis]
    if isinstance(condition, np.ndarray):
        found = np.flatnonzero(condition)
        if n >= 0 and found.size and found[-1] >= n:
            raise IndexError(f"index {found[found >= n][0]} is out of bounds for axis {axis} with size {n}")
        positions = constant(found.astype(np.int64))
        if n < 0 and found.size:
            runtime_checks.all_in_bounds(positions, emit(graph.DimOp(t.value, axis)), axis)
        return positions
    positions = flatnonzero(condition)
    length = shape_of(condition)[0]
    if n < 0 or length < 0 or length > n:
        runtime_checks.all_in_bounds(positions, n if n >= 0 else emit(graph.DimOp(t.value, axis)), axis)
    return positions


def _take(t: Tensor, positions: Tensor, axis: int) -> Tensor:
    """``np.take(t, positions, axis)`` for positions within the axis: one ``graph.gather``, the
    axis moved first for it and back after."""
    if axis == 0:
        return emit(graph.GatherOp(t.value, [positions.value]))
    rank = len(shape_of(t))
    moved = emit(graph.TransposeOp(t.value, [axis, *(a for a in range(rank) if a != axis)]))
    got = emit(graph.GatherOp(moved.value, [positions.value]))
    return emit(graph.TransposeOp(got.value, [*range(1, axis + 1), 0, *range(axis + 1, rank)]))


def _select(condition: Tensor | np.ndarray, t: Tensor, axis: int) -> Tensor:
    """``np.take(t, <positions of the nonzero elements of condition>, axis)``; a traced condition of
    the 1-D ``t``'s static length is one ``graph.compress`` instead (no positions are formed)."""
    if isinstance(condition, Tensor) and len(shape_of(t)) == 1 and shape_of(t)[0] >= 0 and shape_of(condition) == shape_of(t):
        return emit(graph.CompressOp(t.value, condition.value))
    return _take(t, _where_true(condition, t, axis), axis)


def extract(condition: Any, arr: Any) -> Tensor:
    """``np.extract``: ``arr`` flattened, at the positions of the nonzero elements of ``condition``
    flattened (a shorter condition selects among the first elements; a longer one raises IndexError
    where it is nonzero past ``arr``'s size)."""
    values = _flat(as_tensor(arr))
    cond = _condition(condition)
    cond = np.ravel(cond) if isinstance(cond, np.ndarray) else _flat(cond)
    return _select(cond, values, 0)


def compress(condition: Any, a: Any, axis: int | None = None, out: Any = None) -> Tensor:
    """``np.compress``: the slices of ``a`` along ``axis`` (of ``a`` flattened when None) at the
    positions of the nonzero elements of the 1-D ``condition``; a shorter condition selects among the
    first slices, a longer one raises IndexError where it is nonzero past the axis's end."""
    reject("compress", out=out)
    cond = _condition(condition)
    if isinstance(cond, Tensor):
        ranked(cond, "np.compress")
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None:
        t, ax = _flat(as_tensor(a)), 0
    else:
        t = ranked(a, "np.compress(..., axis=)")
        ax = array_ops.normalize_axis(axis, t.ndim)
    return _select(cond, t, ax)


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.sort: sort,
    np.argsort: argsort,
    np.searchsorted: searchsorted,
    np.bincount: bincount,
    np.histogram: histogram,
    np.nonzero: nonzero,
    np.flatnonzero: flatnonzero,
    np.argwhere: argwhere,
    np.extract: extract,
    np.compress: compress,
}
