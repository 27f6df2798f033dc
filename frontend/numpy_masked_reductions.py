"""``np.sum``/``prod``/``max``/``min``/``mean`` with NumPy's ``where=`` and ``initial=``, on traced tensors.

NumPy's reduction skips the elements where ``where`` is False and starts from ``initial``:
kiln puts the reduction's identity (``initial`` for ``max``/``min``, which have none, so
NumPy requires it there) in the skipped places, reduces as without a mask, and combines
``initial`` with the result, cast to the result's dtype as NumPy casts it (``initial=2.5`` in an
int sum adds 2). ``mean`` divides the masked sum by the count of ``where`` over the axes, in
NumPy's float dtype, as NumPy's ``_mean`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend import array_ops, dtypes
from kiln.frontend.numpy_shape import reject, static_shape, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast
from kiln.frontend.tensor import is_traced

_NO = np._NoValue

#: how each reduction combines ``initial`` with its result, and the value that changes nothing
_COMBINE: dict[str, tuple[np.ufunc, Any]] = {
    "sum": (np.add, 0), "prod": (np.multiply, 1), "max": (np.maximum, None), "min": (np.minimum, None),
}
_UFUNC_NAME = {"max": "maximum", "min": "minimum"}


def _given(value: Any) -> bool:
    return value is not None and value is not _NO



def _mask(where: Any, t: Tensor) -> Any:
    """``where`` as bools broadcast to ``t``'s shape (NumPy's rule: it may not widen ``t``)."""
    shape = static_shape(t, "a reduction with where=")
    w = cast(as_tensor(where), np.dtype(np.bool_)) if is_traced(where) else np.asarray(where, dtype=bool)
    if np.broadcast_shapes(np.shape(w), shape) != shape:
        raise ValueError(f"operands could not be broadcast together with shapes {shape} {np.shape(w)}")
    return np.broadcast_to(w, shape)


def _in(value: Any, dtype: np.dtype[Any]) -> Any:
    """``value`` in ``dtype`` as NumPy casts a reduction's ``initial`` (unsafely)."""
    return cast(as_tensor(value), dtype) if is_traced(value) else np.asarray(value).astype(dtype)


def reduction(kind: str) -> Callable[..., Tensor]:
    """``np.sum``/``prod``/``max``/``min`` with ``where=`` and ``initial=``."""

    def impl(a: Any, axis: int | Sequence[int] | None = None, dtype: Any = None, out: Any = None,
             keepdims: Any = False, initial: Any = _NO, where: Any = True) -> Tensor:
        reject(kind, out=out)
        if dtype is not None and kind in _UFUNC_NAME:
            raise unsupported(f"np.{kind}(..., dtype=)")
        t = as_tensor(a)
        combine, identity = _COMBINE[kind]
        masked = where is not True and where is not _NO
        if masked:
            if not _given(initial) and identity is None:
                raise ValueError(f"reduction operation '{_UFUNC_NAME[kind]}' does not have an identity, "
                                 "so to use a where mask one has to specify 'initial'")
            t = np.where(_mask(where, t), t, _in(initial if identity is None else identity, t.dtype))
        keep = keepdims is not _NO and bool(keepdims)
        result = array_ops.reduce(kind, as_tensor(t), axis, keep, None if dtype is None else dtypes.canonical(dtype))
        return combine(result, _in(initial, result.dtype)) if _given(initial) else result

    impl.__name__ = kind
    impl.__doc__ = f"``np.{kind}`` (see the module's note on ``where=`` and ``initial=``)."
    return impl


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = False, *, where: Any = True) -> Tensor:
    """``np.mean``; with ``where=``, the masked sum over the count of ``where``, in NumPy's dtype."""
    reject("mean", out=out)
    t = as_tensor(a)
    keep = keepdims is not _NO and bool(keepdims)
    dt = None if dtype is None else dtypes.canonical(dtype)
    if where is True or where is _NO:
        return array_ops.reduce("mean", t, axis, keep, dt)
    w = _mask(where, t)
    work = dt if dt is not None else np.dtype(np.float64) if t.dtype.kind in "biu" else t.dtype
    total = array_ops.reduce("sum", as_tensor(np.where(w, t, np.zeros((), t.dtype))), axis, keep, work)
    count = array_ops.reduce("sum", as_tensor(w), axis, keep, np.dtype(np.intp))
    return cast(np.true_divide(total, count), total.dtype)
