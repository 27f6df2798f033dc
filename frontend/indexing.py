"""``x[key]`` and ``x[key] = v`` with NumPy's basic indexing, as views (see :mod:`kiln.frontend.mutation`).

A basic key (integers, slices with any start/stop/step, ``None``, ``...``; any
integer or slice bound may be a traced 0-d integer, such as a loop index) makes
a view: a :class:`SliceStep` that reads with ``graph.slice`` (all bounds known)
or ``graph.dynamic_slice``, then reverses negative-step axes and reshapes away
integer axes / inserts ``None`` axes; its inverse writes with
``graph.insert_slice``. A leading traced integer on its own (``x[i]``) is a
:class:`RowStep` (``graph.gather_row`` / ``graph.scatter_row``).

Python's slice rules are computed on traced bounds too (negative bounds count
from the end, bounds are clamped), so a slice never leaves its array. A traced
*integer* index is checked at run time (``graph.check``: NumPy's IndexError)
unless index facts know it is in range. A traced boolean mask of the array's shape or of its
leading axes is :mod:`kiln.frontend.masked`'s (``x[mask]``, ``x[mask] = v``). Keys with
integer arrays are :mod:`kiln.frontend.advanced_index`'s.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import advanced_index, creation, index_facts, masked, runtime_checks
from kiln.frontend.mutation import ViewStep
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor, broadcast_to, cast, emit, require_rank, shape_of
from kiln.frontend.tensor import implements, key_signature, unit_axes_strides

#: a static size/offset or a traced 0-d int64 tensor
Bound = int | Tensor

_INDEX_DTYPES = "iu"


def _is_tensor_int(x: Any) -> bool:
    return isinstance(x, Tensor) and x.ndim == 0 and x.dtype.kind in _INDEX_DTYPES


def _selected(key: Any) -> Any:
    """``key`` as NumPy takes it: a selection ``b[m]`` (kiln.frontend.masked) used as an index is the
    array of its values (``out[np.abs(x[m]) < e] = 0``, a boolean mask of run-time length)."""
    return key.compressed() if isinstance(key, masked.MaskedSelection) else key


def _is_mask(t: Tensor, key: Any) -> bool:
    """A traced boolean mask (a constant one is read as its ``nonzero()`` integer arrays)."""
    return isinstance(key, Tensor) and key.dtype == np.bool_ and advanced_index.known(key) is None


def _mask_with_items(t: Tensor, key: Any) -> tuple[Tensor, Tensor] | None:
    """``t[i, mask, rest]``: a traced mask after integers only and before integers, slices and
    ``...`` only, as the view ``t[i][:, rest]`` masked on its leading axes, which is NumPy's meaning
    (the mask's axis comes first, where NumPy puts the axis of its advanced indices); None for
    any other key."""
    if not isinstance(key, tuple):
        return None
    items = tuple(_selected(item) for item in key)
    masks = [k for k, item in enumerate(items) if _is_mask(t, item)]
    if len(masks) != 1:
        return None
    (k,) = masks
    before, mask, after = items[:k], items[k], items[k + 1:]
    if not all(_is_int(i) for i in before) or not all(_is_int(i) or isinstance(i, slice) or i is Ellipsis for i in after):
        return None
    base = _view(t, before) if before else t
    return (_view(base, (slice(None),) * mask.ndim + after) if after else base), mask


def _is_int(item: Any) -> bool:
    return _is_tensor_int(item) or isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


@implements
def getitem(t: Tensor, key: Any) -> Tensor:
    """``t[key]``: a view of ``t`` for basic keys."""
    require_rank(t, "indexing")
    key = _selected(key)
    if _is_mask(t, key):
        return masked.select(t, key)
    if (found := _mask_with_items(t, key)) is not None:
        return masked.select(*found)
    if advanced_index.is_advanced(key):
        return advanced_index.getitem(t, key)
    items = key if isinstance(key, tuple) else (key,)
    view = _view(t, items)
    if _is_element(t, items):
        return as_scalar(view)
    view.origin = (id(t), key_signature(key))
    return view


def _is_element(t: Tensor, items: tuple[Any, ...]) -> bool:
    """Whether ``t[items]`` is one element, which NumPy returns as a scalar (not a view): an integer
    for every axis, and no ``...`` or ``None``."""
    return len(items) == t.ndim and all(_is_int(i) for i in items)


def _view(t: Tensor, items: tuple[Any, ...]) -> Tensor:
    if items and _is_tensor_int(items[0]) and t.ndim >= 1 and not _has_tensor(items[1:]):
        n = shape_of(t)[0]
        runtime_checks.in_bounds(as_tensor(items[0]), n if n >= 0 else emit(graph.DimOp(t.value, 0)), 0)
        row = t.make_view(RowStep(_index64(items[0])))
        return _view(row, items[1:]) if len(items) > 1 else row
    return t.make_view(SliceStep.parse(t, items))


@implements
def setitem(t: Tensor, key: Any, value: Any) -> None:
    """``t[key] = value`` with NumPy's meaning: ``value`` cast (unsafely, as NumPy's setitem does)
    and broadcast to the indexed region, written through to ``t``'s storage."""
    require_rank(t, "indexing")
    key = _selected(key)
    if isinstance(value, Tensor) and value.is_write_of(t, key):
        return  # `t[key] op= v`: the in-place operator already wrote through the view t[key]
    if _is_mask(t, key):
        t.overwrite(masked.write(t, key, value))
        return
    if (found := _mask_with_items(t, key)) is not None:
        inner, mask = found
        inner.overwrite(masked.write(inner, mask, value))
        return
    if advanced_index.is_advanced(key):
        v = value if isinstance(value, Tensor) else _constant_for(value, t.dtype)
        advanced_index.setitem(t, key, cast(v, t.dtype))
        return
    view = _view(t, key if isinstance(key, tuple) else (key,))
    view.overwrite(_value_for(value, t.dtype, view))


def _value_for(value: Any, dtype: np.dtype[Any], dest: Tensor) -> Tensor:
    """``value`` as written into ``dest``: cast and broadcast to its shape as NumPy's setitem
    does; a length known only at run time on either side is checked when the call runs."""
    shape = shape_of(dest)
    v = value if isinstance(value, Tensor) else _constant_for(value, dtype)
    v = cast(v, dtype)
    src = shape_of(v)
    fits = len(src) <= len(shape) and all(a == b or a == 1 or a < 0 or b < 0 for a, b in zip(reversed(src), reversed(shape)))
    if not fits:
        raise ValueError(
            f"could not broadcast input array from shape {v.shape} into shape "
            f"{tuple(None if d < 0 else d for d in shape)}"
        )
    for k, (a, b) in enumerate(zip(reversed(src), reversed(shape)), start=1):
        if (a < 0 or b < 0) and not (a == 1 or (a < 0 and b < 0 and v.value is dest.value)):
            runtime_checks.same_length(
                v, len(src) - k, dest, len(shape) - k,
                f"could not broadcast input array from shape {v.shape} into shape "
                f"{tuple(None if d < 0 else d for d in shape)}: a length known only at run time (None) differs"
                + (" (kiln does not broadcast a run-time length of 1)" if a < 0 else ""),
            )
    return broadcast_to(v, shape)


def _constant_for(value: Any, dtype: np.dtype[Any]) -> Tensor:
    """A Python or NumPy value written into an array of ``dtype``: converted as NumPy's setitem does."""
    if hasattr(type(value), "__kiln_tensor__"):
        return as_tensor(value)
    if isinstance(value, (list, tuple)) and creation.holds_tensor(value):
        return creation.array(value)  # `g[:] = a, b` of traced values: stacked, then cast as NumPy casts
    if not isinstance(value, (np.ndarray, np.generic)):
        # a Python number or list: converted as NumPy converts it, so 1000 into int8 raises
        # OverflowError and nan into an int array ValueError (NumPy arrays and scalars are cast)
        try:
            return as_tensor(np.asarray(value, dtype=dtype))
        except (TypeError, ValueError) as error:
            if np.asarray(value).dtype == object:
                raise TypeError(f"cannot write {value!r} into a kiln array") from error
            raise
    array = np.asarray(value)
    if array.dtype == object:
        raise TypeError(f"cannot write {value!r} into a kiln array")
    return as_tensor(array.astype(dtype))


def _has_tensor(items: tuple[Any, ...]) -> bool:
    for item in items:
        if isinstance(item, Tensor):
            return True
        if isinstance(item, slice) and any(isinstance(p, Tensor) for p in (item.start, item.stop, item.step)):
            return True
    return False


def _index64(x: Tensor) -> Tensor:
    return cast(x, np.dtype(np.int64))


# ---------------------------------------------------------------------- x[i]: one row


@dataclass(eq=False)
class RowStep(ViewStep):
    """``x[i]`` with a traced ``i`` on axis 0 (negative counts from the end, clamped)."""

    index: Tensor

    def forward(self, parent: Tensor) -> Tensor:
        if parent.ndim == 0:
            raise IndexError("too many indices for array: array is 0-dimensional, but 1 were indexed")
        return emit(graph.GatherRowOp(parent.value, self.index.value))

    def inverse(self, parent: Tensor, new: Tensor) -> Tensor:
        return emit(graph.ScatterRowOp(parent.value, self.index.value, new.value))

    def out_shape(self, parent: tuple[int, ...]) -> tuple[int, ...]:
        return parent[1:]

    def keeps_contiguous(self, parent: tuple[int, ...]) -> bool:
        return True

    def view_strides(self, parent: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
        return strides[1:]


# ---------------------------------------------------------------------- basic slicing


@dataclass(eq=False)
class SliceStep(ViewStep):
    """A basic-index view: per source axis an ascending offset, a size and a positive stride; axes
    whose step was negative are reversed after the slice; then integer axes are dropped and
    ``None`` axes inserted (``shape``)."""

    offsets: list[Bound]
    sizes: list[Bound]
    strides: list[int]
    reversed_axes: list[int]
    shape: list[int]

    def _slice_shape(self) -> list[int]:
        return [s if isinstance(s, int) else -1 for s in self.sizes]

    def forward(self, parent: Tensor) -> Tensor:
        src = shape_of(parent)
        static = all(isinstance(b, int) for b in (*self.offsets, *self.sizes))
        if (static and not self.reversed_axes and list(self.sizes) == list(src) and all(b == 0 for b in self.offsets)
                and all(s == 1 for s in self.strides)):
            x = parent
        elif static:  # one graph.slice, negative strides included
            starts = [b + (m - 1) * s if a in self.reversed_axes and m > 0 else b  # type: ignore[operator]
                      for a, (b, m, s) in enumerate(zip(self.offsets, self.sizes, self.strides))]
            strides = [-s if a in self.reversed_axes else s for a, s in enumerate(self.strides)]
            x = emit(graph.SliceOp(parent.value, starts, self.sizes, strides))  # type: ignore[arg-type]
        else:
            source, step = _through_dynamic_slice(parent, self)
            flipped, offsets = step._flipped_source(source)
            x = emit(graph.DynamicSliceOp(flipped.value, _values(offsets), _values(step.sizes), step.strides))
        return _reshape(x, self.shape)

    def inverse(self, parent: Tensor, new: Tensor) -> Tensor:
        x = _reshape(new, self._slice_shape())
        if all(isinstance(b, int) for b in (*self.offsets, *self.sizes)):
            x = _reverse(x, self.reversed_axes)
            return emit(graph.InsertSliceOp(x.value, parent.value, _values(self.offsets), _values(self.sizes), self.strides))
        flipped, offsets = self._flipped_source(parent)
        written = emit(graph.InsertSliceOp(x.value, flipped.value, _values(offsets), _values(self.sizes), self.strides))
        return _reverse(written, self.reversed_axes)

    def _flipped_source(self, parent: Tensor) -> tuple[Tensor, list[Bound]]:
        """A slice of run-time size reversed on some axes is an ascending slice of the parent
        reversed on those axes (whose sizes must be static): element ``b + (m-1-j)*s`` of the parent
        is element ``(n-1-b-(m-1)*s) + j*s`` of its reversal. Returns that reversal and the offsets."""
        if not self.reversed_axes:
            return parent, list(self.offsets)
        src = shape_of(parent)
        offsets = list(self.offsets)
        for a in self.reversed_axes:
            n, b, m, st = src[a], self.offsets[a], self.sizes[a], self.strides[a]
            if n < 0:
                raise NotImplementedError(
                    "a negative-step slice of an axis whose length is known only at run time is not supported yet"
                )
            first = (n - 1) - b - (m - 1) * st  # type: ignore[operator]
            offsets[a] = first if isinstance(first, int) else np.minimum(np.maximum(first, 0), n)
        return _reverse(parent, self.reversed_axes), offsets

    def out_shape(self, parent: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(self.shape)

    def keeps_contiguous(self, parent: tuple[int, ...]) -> bool:
        """C-contiguous when, past leading single-index axes, one axis is cut with stride 1 and the
        rest are whole (dynamic bounds count as cut)."""
        if self.reversed_axes:
            return False
        started = False
        for n, b, m, s in zip(parent, self.offsets, self.sizes, self.strides):
            if not started and isinstance(m, int) and m == 1:
                continue
            if started:
                if not (isinstance(b, int) and b == 0 and isinstance(m, int) and m == n and s == 1):
                    return False
            elif s != 1:
                return False
            started = True
        return True

    def view_strides(self, parent: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
        """Each axis's stride times the step (negated where reversed); then the integer axes
        (length 1) dropped and ``None`` axes added."""
        sliced = [p * s * (-1 if a in self.reversed_axes else 1) for a, (p, s) in enumerate(zip(strides, self.strides))]
        return unit_axes_strides(self._slice_shape(), sliced, self.shape)

    def then(self, step: ViewStep) -> SliceStep | None:
        """Two static slices that drop and add no axis are one: element ``i`` of this slice's axis
        is the parent's ``b + i*s`` (``b + (m-1-i)*s`` reversed), so a slice ``(b2, m2, s2)`` of it
        takes the parent's ``b + b2*s`` on with stride ``s*s2`` (reversed: from the other end),
        reversed where exactly one of them is. ``np.flip`` of ``np.flip`` is the whole array."""
        if not (isinstance(step, SliceStep) and self._plain() and step._plain()):
            return None
        offsets, sizes, strides, rev = [], [], [], []
        for a, (b1, m1, s1, b2, m2, s2) in enumerate(zip(self.offsets, self.sizes, self.strides,
                                                          step.offsets, step.sizes, step.strides)):
            if m2 == 0:
                return None
            r1, r2 = a in self.reversed_axes, a in step.reversed_axes
            first = b1 + ((m1 - 1 - b2 - s2 * (m2 - 1)) if r1 else b2) * s1  # type: ignore[operator]
            offsets.append(first)
            sizes.append(m2)
            strides.append(s1 * s2)
            if r1 != r2:
                rev.append(a)
        return SliceStep(offsets, sizes, strides, rev, list(step.shape))

    def _plain(self) -> bool:
        """Static bounds, no axis dropped or added."""
        return (all(isinstance(b, int) for b in (*self.offsets, *self.sizes))
                and list(self.shape) == list(self.sizes))

    @staticmethod
    def parse(t: Tensor, items: tuple[Any, ...]) -> SliceStep:
        items_list = _expand(items, t.ndim)
        src = shape_of(t)
        offsets: list[Bound] = []
        sizes: list[Bound] = []
        strides: list[int] = []
        reversed_axes: list[int] = []
        shape: list[int] = []
        axis = 0
        for item in items_list:
            if item is None:
                shape.append(1)
                continue
            n = src[axis]
            if isinstance(item, slice):
                b, m, s = _slice(item, n, axis, t)
                if s < 0:
                    reversed_axes.append(axis)
                shape.append(m if isinstance(m, int) else -1)
                strides.append(abs(s))
            else:
                b, m = _integer(item, n, axis, t), 1
                strides.append(1)
            offsets.append(b)
            sizes.append(m)
            axis += 1
        return SliceStep(offsets, sizes, strides, reversed_axes, shape)


def _through_dynamic_slice(parent: Tensor, step: SliceStep) -> tuple[Tensor, SliceStep]:
    """A reversed slice of a run-time-size slice of a static array (``np.flip(y[:k])``), read as
    one slice of that array, so that the reversal is of the static array; else as it is."""
    owner = parent.value.owner
    src = shape_of(parent)
    if not any(src[a] < 0 for a in step.reversed_axes) or not isinstance(owner, graph.DynamicSliceOp):
        return parent, step
    outer = shape_of(Tensor(owner.source))
    if any(outer[a] < 0 for a in step.reversed_axes):
        return parent, step
    dynamic = iter(owner.offsets)
    outer_offsets: list[Bound] = [
        Tensor(next(dynamic)) if o == graph.DYNAMIC else int(o) for o in owner.static_offsets.get_values()
    ]
    outer_strides = list(owner.strides.get_values())
    offsets = [o + st * b for o, st, b in zip(outer_offsets, outer_strides, step.offsets)]  # type: ignore[operator]
    strides = [st * s for st, s in zip(outer_strides, step.strides)]
    composed = SliceStep(offsets, list(step.sizes), strides, list(step.reversed_axes), step.shape)
    return Tensor(owner.source), composed


def _values(bounds: list[Bound]) -> list[Any]:
    return [b if isinstance(b, int) else b.value for b in bounds]


def _reverse(x: Tensor, axes: list[int]) -> Tensor:
    if not axes:
        return x
    shape = shape_of(x)
    if any(shape[a] < 0 for a in axes):
        raise NotImplementedError("a negative-step slice whose length is known only at run time is not supported yet")
    start = [shape[a] - 1 if a in axes and shape[a] > 0 else 0 for a in range(len(shape))]
    stride = [-1 if a in axes else 1 for a in range(len(shape))]
    return emit(graph.SliceOp(x.value, start, shape, stride))


def _reshape(x: Tensor, shape: list[int]) -> Tensor:
    if shape_of(x) == tuple(shape):
        return x
    if shape.count(-1) > 1 or shape_of(x).count(-1) > 1:
        raise NotImplementedError(
            "indexing that both drops or adds axes and leaves more than one axis of run-time length is not supported yet"
        )
    return emit(graph.ReshapeOp(x.value, shape))


def _expand(items: tuple[Any, ...], ndim: int) -> list[Any]:
    """Check the index items and replace ``...`` by full slices; one entry per axis (plus ``None`` s)."""
    for item in items:
        if isinstance(item, Tensor):
            if not _is_tensor_int(item):
                raise NotImplementedError(
                    f"indexing with {item!r} is not supported yet inside kiln.function: a tensor index must be a "
                    "0-d integer (a loop index, say); integer-array and boolean-array indexing are not supported yet"
                )
            continue
        if isinstance(item, slice):
            for part in (item.start, item.stop, item.step):
                if part is not None and not isinstance(part, Tensor) and not hasattr(type(part), "__index__"):
                    raise TypeError("slice indices must be integers or None or have an __index__ method")
            if isinstance(item.step, Tensor):
                raise NotImplementedError("a slice step known only at run time is not supported inside kiln.function")
            continue
        if isinstance(item, (list, np.ndarray)) and np.ndim(item) > 0:
            raise NotImplementedError(
                f"indexing with a NumPy {np.asarray(item).dtype} array of shape {np.shape(item)} is not supported yet inside kiln.function: "
                "integer-array and boolean-array indexing are not supported yet"
            )
        if isinstance(item, (bool, np.bool_)) or not (item is None or item is Ellipsis or hasattr(type(item), "__index__")):
            raise NotImplementedError(
                f"advanced indexing with {item!r} is not supported yet inside kiln.function "
                "(use integers, slices, None and ...)"
            )
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(item is not None and item is not Ellipsis for item in items)
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed")
    fill = [slice(None)] * (ndim - used)
    if any(item is Ellipsis for item in items):
        at = next(i for i, item in enumerate(items) if item is Ellipsis)
        return [*items[:at], *fill, *items[at + 1 :]]
    return [*items, *fill]


# ---------------------------------------------------------------------- scalar arithmetic, folded when static


def _i64(x: Bound) -> Tensor:
    return _index64(x) if isinstance(x, Tensor) else as_tensor(np.int64(x))


def _dim(t: Tensor, axis: int, n: int) -> Bound:
    return n if n >= 0 else emit(graph.DimOp(t.value, axis))


def _integer(item: Any, n: int, axis: int, t: Tensor) -> Bound:
    if isinstance(item, Tensor) and n >= 0 and index_facts.within(item, 0, n - 1):
        return _index64(item)  # a loop index known to be in range: no wrap-around, no clamp
    if isinstance(item, Tensor):
        size = _dim(t, axis, n)
        runtime_checks.in_bounds(item, size, axis)
        i = _index64(item)
        wrapped = np.where(i < 0, i + size, i)
        return np.minimum(np.maximum(wrapped, 0), np.maximum(_i64(size) - 1, 0))
    i = operator.index(item)
    if n < 0:  # an axis of run-time length: the constant is checked when the call runs
        size = _dim(t, axis, n)
        runtime_checks.in_bounds(as_tensor(np.int64(i)), size, axis)
        return i if i >= 0 else np.maximum(_i64(size) + i, 0)
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return i % n


def _slice(item: slice, n: int, axis: int, t: Tensor) -> tuple[Bound, Bound, int]:
    """(ascending offset, size, step) of ``item`` on an axis of size ``n`` (``-1``: dynamic)."""
    step = 1 if item.step is None else operator.index(item.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    parts = (item.start, item.stop)
    if n >= 0 and not any(isinstance(p, Tensor) for p in parts):
        begin, end, step = item.indices(n)
        count = len(range(begin, end, step))
        first = begin if step > 0 else begin + (count - 1) * step
        return (first if count else 0), count, step
    known = _known_slice(item, n, step)
    if known is not None:
        return known
    size = _i64(_dim(t, axis, n))
    if step > 0:
        start = _clamp_bound(item.start, 0, size, lo=0)
        stop = _clamp_bound(item.stop, size, size, lo=0)
        count = np.maximum((stop - start + (step - 1)) // step, 0)
        return start, count, step
    start = _clamp_bound(item.start, size - 1, size, lo=-1, hi_minus_one=True)
    stop = _clamp_bound(item.stop, None, size, lo=-1, hi_minus_one=True)
    count = np.maximum((start - stop + (-step - 1)) // -step, 0)
    first = start + (count - 1) * step
    return np.minimum(np.maximum(first, 0), size), count, step


def _known_bound(value: Any, default: int, n: int) -> Bound | None:
    """A positive-step slice bound that needs no normalization: a constant, or a traced integer
    known to lie in ``[0, n]``; None when the general (clamping) computation is needed."""
    if value is None:
        return default
    if isinstance(value, Tensor):
        return _index64(value) if index_facts.within(value, 0, n) else None
    v = operator.index(value)
    return max(v + n, 0) if v < 0 else min(v, n)


def _known_slice(item: slice, n: int, step: int) -> tuple[Bound, Bound, int] | None:
    """``x[a:b:step]`` on a static axis when the bounds need no clamping: ``i:i + k`` has the static
    size ``k``; otherwise the size is one subtraction (and a division for steps other than 1)."""
    if n < 0 or step < 0:
        return None
    start, stop = _known_bound(item.start, 0, n), _known_bound(item.stop, n, n)
    if start is None or stop is None:
        return None
    diff = index_facts.difference(item.stop if item.stop is not None else n, item.start if item.start is not None else 0)
    if diff is not None:
        return start, max(-(-diff // step), 0), step
    if index_facts.of(stop).lo is not None and index_facts.of(start).hi is not None \
            and index_facts.of(stop).lo >= index_facts.of(start).hi and step == 1:  # type: ignore[operator]
        return start, _i64(stop) - start, step
    return start, np.maximum((_i64(stop) - start + (step - 1)) // step, 0), step


def _clamp_bound(value: Any, default: Any, size: Tensor, *, lo: int, hi_minus_one: bool = False) -> Tensor:
    """A slice bound as Python normalizes it: negative counts from the end, then clamped."""
    if value is None:
        return as_tensor(np.int64(-1)) if default is None else _i64(default) if not isinstance(default, Tensor) else default
    v = _i64(value) if isinstance(value, Tensor) else as_tensor(np.int64(operator.index(value)))
    hi = size - 1 if hi_minus_one else size
    return np.where(v < 0, np.maximum(v + size, lo), np.minimum(v, hi))
