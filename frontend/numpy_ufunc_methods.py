"""The methods of NumPy's ufuncs on traced tensors: ``np.add.reduce``, ``np.add.accumulate``,
``np.multiply.outer`` and the like, which NumPy hands to ``__array_ufunc__`` with
``method`` set to ``"reduce"``, ``"accumulate"`` or ``"outer"``.

``reduce`` is the matching ``graph.reduce`` (``add`` is ``sum``, ``logical_or`` is
``any``...), ``accumulate`` the matching ``graph.scan``, both in the dtype NumPy's
ufunc method returns (``add`` and ``multiply`` widen bools and small ints to int64);
``outer`` is the ufunc itself on ``A`` reshaped to ``A.shape + (1,) * B.ndim``;
``at`` is a ``graph.scatter`` that combines every value of a repeated index.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend import advanced_index, array_ops, dtypes
from kiln.frontend.numpy_reductions import bool_reduce, scan
from kiln.frontend.numpy_shape import ranked, reject, unsupported
from kiln.frontend.tensor import Tensor, as_tensor, cast, reshape_to, shape_of

#: ufunc -> graph.reduce kind
_REDUCE_KINDS: dict[np.ufunc, str] = {np.add: "sum", np.multiply: "prod", np.maximum: "max", np.minimum: "min"}
#: ufunc -> or / and of bools
_LOGICAL_KINDS: dict[np.ufunc, str] = {np.logical_or: "max", np.logical_and: "min"}
#: ufunc -> graph.scan kind
_SCAN_KINDS: dict[np.ufunc, str] = {np.add: "add", np.multiply: "mul", np.maximum: "max", np.minimum: "min"}


def _name(ufunc: np.ufunc, method: str) -> str:
    return f"np.{ufunc.__name__}.{method}"


def _result_dtype(ufunc: np.ufunc, t: Tensor, dtype: Any) -> np.dtype[Any]:
    """The dtype NumPy's ``ufunc.reduce``/``accumulate`` computes in: ``dtype``, or the input's with
    ``add``/``multiply`` widening bools and small ints to int64 (``maximum``/``minimum`` keep it)."""
    if dtype is not None:
        return dtypes.canonical(dtype)
    return dtypes.sum_dtype(t.dtype) if ufunc in (np.add, np.multiply) else t.dtype


def reduce(ufunc: np.ufunc, array: Any, axis: Any = 0, dtype: Any = None, out: Any = None, keepdims: bool = False,
           initial: Any = np._NoValue, where: Any = True) -> Tensor:
    """``ufunc.reduce`` (``axis`` defaults to 0, as in NumPy; ``None`` reduces every axis)."""
    name = _name(ufunc, "reduce")
    reject(name.removeprefix("np."), out=out, initial=initial, where=None if where is True else where)
    t = as_tensor(array)
    if ufunc in _LOGICAL_KINDS:
        if dtype is not None:
            raise unsupported(f"{name}(..., dtype=)")
        return bool_reduce(_LOGICAL_KINDS[ufunc], t, axis, bool(keepdims))
    kind = _REDUCE_KINDS.get(ufunc)
    if kind is None:
        raise unsupported(name)
    return array_ops.reduce(kind, t, axis, bool(keepdims), _result_dtype(ufunc, t, dtype))


def accumulate(ufunc: np.ufunc, array: Any, axis: int = 0, dtype: Any = None, out: Any = None) -> Tensor:
    """``ufunc.accumulate`` along ``axis`` (default 0)."""
    name = _name(ufunc, "accumulate")
    reject(name.removeprefix("np."), out=out)
    kind = _SCAN_KINDS.get(ufunc)
    if kind is None:
        raise unsupported(name)
    t = ranked(array, name)
    if t.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    return scan(kind, t, axis, _result_dtype(ufunc, t, dtype))


def outer(ufunc: np.ufunc, a: Any, b: Any, **kwargs: Any) -> Tensor:
    """``ufunc.outer(A, B)``: ``ufunc(A[..., None, ...], B)`` with one new axis per axis of ``B``."""
    name = _name(ufunc, "outer")
    if kwargs:
        raise unsupported(f"{name}(..., {', '.join(f'{k}=' for k in kwargs)})")
    if ufunc.nin != 2:
        raise ValueError("method outer is only supported for binary functions")
    ta, tb = ranked(a, name), ranked(b, name)
    return ufunc(reshape_to(ta, [*shape_of(ta), *([1] * tb.ndim)]), tb)


#: ufunc -> graph.scatter kind for ``ufunc.at`` (subtract adds the negated values)
_AT_KINDS: dict[np.ufunc, str] = {np.add: "add", np.subtract: "add", np.multiply: "mul", np.maximum: "max", np.minimum: "min"}


def at(ufunc: np.ufunc, a: Any, indices: Any, b: Any = None) -> None:
    """``ufunc.at(a, indices, b)``: ``a[indices] = ufunc(a[indices], b)`` unbuffered, so a repeated
    index combines every one of its values (``np.add.at``); ``a`` must be a kiln array."""
    name = _name(ufunc, "at")
    if not isinstance(a, Tensor):
        raise TypeError(f"{name}: the first argument must be an array kiln traces, not {type(a).__name__}")
    if ufunc.nin != 2 or b is None:
        raise unsupported(f"{name} of a unary ufunc" if ufunc.nin != 2 else f"{name} without values")
    current = a[indices]
    combined = ufunc(current, b)
    if not np.can_cast(combined.dtype, a.dtype, "same_kind"):
        raise TypeError(
            f"Cannot cast ufunc '{ufunc.__name__}' output from {combined.dtype!r} to {a.dtype!r} with casting rule 'same_kind'"
        )
    if not advanced_index.is_advanced(indices):
        a[indices] = combined  # a basic key has no repeated elements: one read, one write
        return
    kind = _AT_KINDS.get(ufunc)
    if kind is None or (kind in ("max", "min") and combined.dtype.kind in "uc"):
        raise unsupported(f"{name} with an integer-array index")
    values = as_tensor(b)
    values = cast(values, combined.dtype)
    if ufunc is np.subtract:
        values = np.negative(values)
    advanced_index.accumulate(a, indices, kind, values)


METHODS: dict[str, Callable[..., Any]] = {"reduce": reduce, "accumulate": accumulate, "outer": outer, "at": at}


def call(ufunc: np.ufunc, method: str, inputs: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """Run ``ufunc.method(*inputs, **kwargs)`` on traced tensors."""
    impl = METHODS.get(method)
    if impl is None:
        raise unsupported(_name(ufunc, method))
    return impl(ufunc, *inputs, **kwargs)
