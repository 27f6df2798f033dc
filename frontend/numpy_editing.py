"""NumPy's functions that build an array from pieces of others, on traced tensors: ``append``,
``insert``, ``delete``, ``resize``, ``block``, ``broadcast_arrays``, ``ediff1d``,
``fill_diagonal``, ``tril_indices_from``/``triu_indices_from`` and ``unravel_index``.

Positions are known while tracing (sizes are static, and the ``obj`` of ``insert``/``delete``
must be a constant), so NumPy itself computes where each element of the result comes from,
on an ``arange`` of positions, and kiln gathers the elements from there: the result is
NumPy's by construction, including its rules for several insertion points.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend import array_ops, runtime_checks
from kiln.frontend.numpy_shape import ranked, static_shape, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, reshape_to, shape_of
from kiln.frontend.tensor import is_traced



def _static(obj: Any, name: str) -> Any:
    if is_traced(obj):
        raise unsupported(f"np.{name} with positions computed inside the function (pass them as constants)")
    return obj


def _with_axis(arr: Any, axis: int | None, name: str) -> tuple[Tensor, int]:
    t = ranked(arr, f"np.{name}")
    if axis is None:
        return np.ravel(t), 0
    return t, array_ops.normalize_axis(axis, t.ndim)


def append(arr: Any, values: Any, axis: int | None = None) -> Tensor:
    """``concatenate`` of the two (both flattened without an axis)."""
    if axis is None:
        return np.concatenate((np.ravel(arr), np.ravel(values)))
    return np.concatenate((arr, values), axis=axis)


def delete(arr: Any, obj: Any, axis: int | None = None) -> Tensor:
    """The elements NumPy keeps, gathered by their positions along ``axis``."""
    t, ax = _with_axis(arr, axis, "delete")
    n = static_shape(t, "np.delete")[ax]
    keep = np.delete(np.arange(n), _static(obj, "delete"))
    return t[(slice(None),) * ax + (keep,)]


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Tensor:
    """NumPy's ``insert``: ``values`` (cast to ``arr``'s dtype, broadcast to the inserted
    block) placed where NumPy places them, found by inserting markers into positions."""
    t, ax = _with_axis(arr, axis, "insert")
    shape = list(static_shape(t, "np.insert"))
    n = shape[ax]
    where = _static(obj, "insert")
    v = as_tensor(values) if is_traced(values) else np.asarray(values)
    v = cast(as_tensor(v), t.dtype) if is_traced(v) or v.dtype != t.dtype else v
    vshape = list(shape_of(v) if is_traced(v) else v.shape)
    if len(vshape) < t.ndim:
        vshape = [1] * (t.ndim - len(vshape)) + vshape
        v = reshape_to(as_tensor(v), vshape)
    if np.ndim(where) == 0 and not isinstance(where, slice):
        v = np.moveaxis(v, 0, ax)
        vshape = list(shape_of(v) if is_traced(v) else v.shape)
        count = vshape[ax]
    else:
        count = len(np.arange(n)[where]) if isinstance(where, slice) else np.size(where)
    block_shape = shape.copy()
    block_shape[ax] = count
    block = np.broadcast_to(v, block_shape)
    markers = np.insert(np.arange(n), where, n + np.arange(count)) if count else np.arange(n)
    whole = np.concatenate((t, block), axis=ax)
    return whole[(slice(None),) * ax + (markers,)]


def resize(a: Any, new_shape: Any) -> Tensor:
    """The flattened ``a`` repeated to the new size and reshaped (zeros for an empty ``a``)."""
    t = as_tensor(a)
    shape = (int(new_shape),) if np.ndim(new_shape) == 0 else tuple(int(d) for d in new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = int(np.prod(shape, dtype=np.int64))
    flat = np.ravel(t)
    size = static_shape(flat, "np.resize")[0]
    if size == 0 or total == 0:
        return np.zeros(shape, t.dtype)
    return reshape_to(flat[np.arange(total) % size], list(shape))


def _block(arrays: Any, depth: int, ndim: int) -> Tensor:
    if isinstance(arrays, list):
        parts = [_block(a, depth + 1, ndim) for a in arrays]
        if not parts:
            raise ValueError("Lists cannot be empty")
        return np.concatenate(parts, axis=-(ndim - depth)) if len(parts) > 1 else parts[0]
    t = as_tensor(arrays)
    return reshape_to(t, [1] * (ndim - t.ndim) + list(shape_of(t)))


def _depth_and_ndim(arrays: Any) -> tuple[int, int]:
    if isinstance(arrays, list):
        found = [_depth_and_ndim(a) for a in arrays]
        depths = {d for d, _ in found}
        if len(depths) > 1:
            raise ValueError("List depths are mismatched")
        return 1 + (found[0][0] if found else 0), max((n for _, n in found), default=0)
    if isinstance(arrays, tuple):
        raise TypeError("arrays is a tuple. Only lists can be used to arrange blocks, and np.block does not allow implicit conversion from tuple to ndarray.")
    return 0, np.ndim(arrays) if not is_traced(arrays) else as_tensor(arrays).ndim


def block(arrays: Any) -> Tensor:
    """Nested lists concatenated innermost along the last axis, each level out one axis further."""
    depth, ndim = _depth_and_ndim(arrays)
    return _block(arrays, 0, max(depth, ndim)) if depth else np.copy(as_tensor(arrays))


def broadcast_arrays(*args: Any, subok: bool = False) -> tuple[Tensor, ...]:
    """Each argument as a read-only broadcast view of the common shape."""
    tensors = [as_tensor(a) for a in args]
    shape = np.broadcast_shapes(*(tuple(static_shape(t, "np.broadcast_arrays")) for t in tensors))
    return tuple(np.broadcast_to(t, shape) for t in tensors)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Tensor:
    """``diff`` of the flattened array, with ``to_begin``/``to_end`` (cast to its dtype) around it."""
    flat = np.ravel(as_tensor(ary))
    pieces = [np.diff(flat)]
    if to_begin is not None:
        pieces.insert(0, cast(as_tensor(np.ravel(to_begin)), flat.dtype))
    if to_end is not None:
        pieces.append(cast(as_tensor(np.ravel(to_end)), flat.dtype))
    return np.concatenate(pieces) if len(pieces) > 1 else pieces[0]


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """Writes ``val`` (repeated) on the main diagonal, in place, at NumPy's flat positions."""
    t = ranked(a, "np.fill_diagonal")
    shape = static_shape(t, "np.fill_diagonal")
    if t.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if t.ndim == 2:
        step = shape[1] + 1
        end = None if wrap else shape[1] * shape[1]
    else:
        if len(set(shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step, end = 1 + int(np.cumprod(shape[:-1]).sum()), None
    positions = np.arange(int(np.prod(shape)))[:end:step]
    values = np.ravel(as_tensor(val) if is_traced(val) else np.asarray(val))
    m = int(np.size(values)) if not is_traced(values) else static_shape(values, "np.fill_diagonal")[0]
    if m != len(positions) and len(positions):
        values = values[np.arange(len(positions)) % m]
    np.reshape(t, -1)[positions] = values


def _indices_from(triangle: Callable[..., tuple[np.ndarray, ...]], name: str) -> Callable[..., tuple[np.ndarray, ...]]:
    def impl(arr: Any, k: int = 0) -> tuple[np.ndarray, ...]:
        t = ranked(arr, f"np.{name}")
        if t.ndim != 2:
            raise ValueError("input array must be 2-d")
        rows, cols = static_shape(t, f"np.{name}")
        return triangle(rows, k=k, m=cols)

    impl.__name__ = name
    impl.__doc__ = f"``np.{name}``: the constant indices of the array's triangle (its shape is static)."
    return impl


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Tensor, ...]:
    """Flat positions as one index per axis (int64), by division from the last axis (``order='C'``)."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    if not is_traced(indices):
        return np.unravel_index(indices, dims, order=order)
    idx = as_tensor(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    idx = cast(idx, np.dtype(np.int64))
    size = int(np.prod(dims, dtype=np.int64))
    runtime_checks.require(np.all((idx >= 0) & (idx < size)), f"index out of bounds for array with size {size}")
    out: list[Tensor] = []
    axes = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    for axis in axes:
        out.append(np.remainder(idx, dims[axis]))
        idx = np.floor_divide(idx, dims[axis])
    return tuple(reversed(out)) if order == "C" else tuple(out)


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.append: append,
    np.delete: delete,
    np.insert: insert,
    np.resize: resize,
    np.block: block,
    np.broadcast_arrays: broadcast_arrays,
    np.ediff1d: ediff1d,
    np.fill_diagonal: fill_diagonal,
    np.tril_indices_from: _indices_from(np.tril_indices, "tril_indices_from"),
    np.triu_indices_from: _indices_from(np.triu_indices, "triu_indices_from"),
    np.unravel_index: unravel_index,
}
