"""NumPy's gathers and scatters by position, and orderings built on ``argsort``: ``take``,
``take_along_axis``, ``put``, ``lexsort``, ``partition``, ``argpartition``, ``rot90`` and ``kron``.

Each is the advanced indexing, flips, transposes or products kiln already traces, in NumPy's
order of steps. ``partition``/``argpartition`` sort fully: a sorted array is one of the
arrangements NumPy's contract allows (the k-th element in its sorted place, none larger
before it, none smaller after it), though not always the one NumPy's introselect leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend import array_ops
from kiln.frontend.numpy_shape import ranked, reject, static_shape, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, reshape_to
from kiln.frontend.tensor import is_traced

_MODES = ("raise", "wrap", "clip")



def _indices(indices: Any, n: int, mode: str) -> Any:
    """The positions NumPy's ``mode`` makes of ``indices`` along an axis of length ``n``."""
    if mode not in _MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    idx = as_tensor(indices) if is_traced(indices) else np.asarray(indices)
    if mode == "wrap":
        return np.mod(idx, n)
    if mode == "clip":
        return np.clip(idx, 0, n - 1)
    return idx


def take(a: Any, indices: Any, axis: int | None = None, out: Any = None, mode: str = "raise") -> Tensor:
    """``a[..., indices, ...]`` along ``axis`` (of the flattened array without one)."""
    reject("take", out=out)
    t = ranked(a, "np.take")
    if axis is None:
        t, ax = np.ravel(t), 0
    else:
        ax = array_ops.normalize_axis(axis, t.ndim)
    n = static_shape(t, "np.take")[ax]
    picked = t[(slice(None),) * ax + (_indices(indices, n, mode),)]
    return np.copy(picked) if np.ndim(indices) == 0 else picked  # (a new value, not a view, as NumPy's)


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1) -> Tensor:
    """NumPy's fancy index: ``indices`` along ``axis``, an ``arange`` along every other axis."""
    t = ranked(arr, "np.take_along_axis")
    idx = ranked(indices, "np.take_along_axis") if is_traced(indices) else np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return np.ravel(t)[idx]
    ax = array_ops.normalize_axis(axis, t.ndim)
    if idx.ndim != t.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    shape = static_shape(t, "np.take_along_axis")
    fancy: list[Any] = []
    for dim, n in enumerate(shape):
        if dim == ax:
            fancy.append(idx)
        else:
            fancy.append(np.arange(n).reshape([n if k == dim else 1 for k in range(t.ndim)]))
    return t[tuple(fancy)]


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """``a.flat[ind] = v``, ``v`` repeated to the length of ``ind`` as NumPy does."""
    t = ranked(a, "np.put")
    positions = np.ravel(_indices(ind, int(np.prod(static_shape(t, "np.put"), dtype=np.int64)), mode))
    values = np.ravel(v)
    k, m = int(np.size(positions)), int(np.size(values))
    if k and m != k:
        values = values[np.arange(k) % m]
    np.reshape(t, -1)[positions] = values


def lexsort(keys: Any, axis: int = -1) -> Tensor:
    """Stable ``argsort`` by each key in turn, the last key sorting last (the primary one)."""
    if is_traced(keys):
        k = ranked(keys, "np.lexsort")
        rows: Sequence[Any] = [k[i] for i in range(static_shape(k, "np.lexsort")[0])]
    else:
        rows = list(keys)
    if not rows:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    first = as_tensor(rows[0])
    if first.ndim != 1 or axis not in (-1, 0):
        raise unsupported("np.lexsort of keys that are not 1-D")
    order = np.argsort(first, kind="stable")
    for key in rows[1:]:
        order = order[np.argsort(as_tensor(key)[order], kind="stable")]
    return order


def _partition(name: str, sort: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def impl(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order: Any = None) -> Tensor:
        reject(name, order=order)
        t = ranked(a, f"np.{name}")
        n = static_shape(np.ravel(t) if axis is None else t, f"np.{name}")[0 if axis is None else array_ops.normalize_axis(axis, t.ndim)]
        for k in np.atleast_1d(np.asarray(kth)):
            if not -n <= int(k) < n:
                raise ValueError(f"kth(={int(k)}) out of bounds ({n})")
        return sort(t, axis=axis, kind="stable")

    impl.__name__ = name
    impl.__doc__ = f"``np.{name}`` as a full stable sort (see the module's note)."
    return impl


def rot90(m: Any, k: int = 1, axes: Sequence[int] = (0, 1)) -> Tensor:
    """NumPy's rotation: flips and a transpose of the two axes (views, as in NumPy)."""
    t = ranked(m, "np.rot90")
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    a0, a1 = (array_ops.normalize_axis(x, t.ndim) for x in axes)
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return t[...]
    if k == 2:
        return np.flip(np.flip(t, a0), a1)
    order = list(range(t.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    return np.transpose(np.flip(t, a1), order) if k == 1 else np.flip(np.transpose(t, order), a1)


def kron(a: Any, b: Any) -> Tensor:
    """Every product ``a[i] * b[j]`` laid out blockwise: an outer product reshaped, as NumPy."""
    u, v = ranked(a, "np.kron"), ranked(b, "np.kron")
    nd = max(u.ndim, v.ndim)
    su = (1,) * (nd - u.ndim) + tuple(static_shape(u, "np.kron"))
    sv = (1,) * (nd - v.ndim) + tuple(static_shape(v, "np.kron"))
    uu = reshape_to(u, [d for x in su for d in (x, 1)])
    vv = reshape_to(v, [d for x in sv for d in (1, x)])
    return reshape_to(np.multiply(uu, vv), [x * y for x, y in zip(su, sv)])


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.take: take,
    np.take_along_axis: take_along_axis,
    np.put: put,
    np.lexsort: lexsort,
    np.partition: _partition("partition", np.sort),
    np.argpartition: _partition("argpartition", np.argsort),
    np.rot90: rot90,
    np.kron: kron,
}
