"""``x[mask]`` read inside a traced function: a lazy selection.

NumPy's ``x[mask]`` is an array whose first length is known only at run time (1-D for a
mask of ``x``'s shape; ``(count, *rest)`` for a mask of ``x``'s leading axes, ``A[rows_mask]``).
kiln keeps it lazy instead: a :class:`MaskedSelection` holds the mask and the values at
*every* position of ``x``'s shape. What NumPy code does with a selection works on that form
exactly:

- elementwise ufuncs with scalars or selections by the same mask stay selections
  (``x[m] ** -1.5``); float math on unselected elements is computed and dropped;
- ``x[m] = sel`` / ``x[m] op= v`` write the selected elements (``graph.select``), and so does
  ``x[m] = v`` of a value that broadcasts to one selected element (a row for a row mask);
- reductions ``sum``, ``mean``, ``prod``, ``max``, ``min``, ``any``, ``all`` over the whole
  selection or its first axis reduce the masked values (``max``/``min`` of an empty
  selection give the dtype's lowest/highest value instead of NumPy's ValueError);
- ``x[m][b[m]]`` (both by one mask) is the selection by ``m & b``; ``len(x[m])`` the count.

``x[m] = array`` of one value per selected element (``x[m] = np.arange(3.0)``, ``x[m] =
y[other]``) scatters the array's rows to the selected positions (``graph.nonzero`` of the
mask, ``graph.scatter``), its length checked against the count when the call runs (NumPy's
ValueError).

Anything else (``np.sort(x[m])``, ``x[m] @ y[m]``, a selection with another array or
a selection by another mask, integer division, which could trap on an unselected
zero, indexing it, its methods) works on :meth:`MaskedSelection.compressed`, NumPy's 1-D
array of a length known only at run time (``graph.compress`` of the values by the mask),
whose lengths are checked when the call runs where they must agree, as NumPy checks
them. Such an array cannot be returned (results' sizes follow from the inputs').
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np
from xdsl.ir import OpResult, SSAValue

from kiln.dialects import graph
from kiln.frontend import creation, runtime_checks, trace_context
from kiln.frontend.tensor import Tensor, array_power, as_tensor, broadcast_to, cast, emit, reshape_to, shape_of


def _refuse(what: str = "this use of x[mask]") -> NoReturn:
    raise NotImplementedError(
        f"{trace_context.here()}: {what} is not supported inside "
        "kiln.function: x[mask] has a length known only at run time; kiln supports elementwise math on it, "
        "x[mask] = ..., x[mask] op= v and reductions (sum, mean, max, min, prod, any, all, var, std); "
        "else use np.where(mask, x, ...)"
    )


def same_value(a: SSAValue, b: SSAValue, depth: int = 6) -> bool:
    """Whether two values are provably equal: the same SSA value, or the same pure graph op on
    provably equal operands (two ``x > 0`` written twice), constants compared by value."""
    if a is b:
        return True
    if depth == 0 or a.type != b.type or not isinstance(a, OpResult) or not isinstance(b, OpResult):
        return False
    oa, ob = a.op, b.op
    if type(oa) is not type(ob) or oa.dialect_name() != "graph" or oa.regions or a.index != b.index:
        return False
    if dict(oa.properties) != dict(ob.properties) or dict(oa.attributes) != dict(ob.attributes):
        return False
    return len(oa.operands) == len(ob.operands) and all(
        same_value(x, y, depth - 1) for x, y in zip(oa.operands, ob.operands)
    )


def _flat(t: Tensor) -> SSAValue:
    """The elements of ``t`` in row-major order, as a 1-D value."""
    shape = shape_of(t)
    return reshape_to(t, (-1 if -1 in shape else math.prod(shape),)).value


class MaskedSelection:
    """``base[mask]``: the mask (of the base's shape or of its leading axes), and values at every
    position of the base's shape."""

    __slots__ = ("base", "mask", "values")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, base: Tensor | None, mask: Tensor, values: Tensor) -> None:
        self.base, self.mask, self.values = base, mask, values

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.values.dtype

    @property
    def rest(self) -> tuple[int, ...]:
        """The shape of one selected element: the axes after the mask's (``()`` for a full mask)."""
        return shape_of(self.values)[self.mask.ndim:]

    def full_mask(self) -> Tensor:
        """The mask at every position of the values (a row mask repeated along the rows)."""
        return _spread(self.mask, shape_of(self.values))

    # ------------------------------------------------------------------ elementwise

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if method == "__call__" and set(kwargs) == {"out"} and isinstance(out, tuple) and len(out) == 1 \
                and isinstance(out[0], MaskedSelection):
            return _into(out[0], ufunc, ufunc(*inputs))
        if method != "__call__" or kwargs:
            return getattr(ufunc, method)(*_compressed(inputs), **kwargs)
        mask: Tensor | None = None
        operands = []
        lazy = ufunc.nout == 1
        for x in inputs:
            if isinstance(x, MaskedSelection):
                if mask is not None and not same_value(mask.value, x.mask.value):
                    lazy = False  # two masks: NumPy's arrays, whose lengths must agree
                mask = x.mask if mask is None else mask
                operands.append(x.values)
                if x.dtype.kind in "iub" and ufunc in _TRAPPING:
                    lazy = False  # an unselected zero divisor must not trap
            elif np.ndim(x) != 0:
                lazy = False  # another array: its length must match the selection's
            else:
                operands.append(x)
        if not lazy:  # (the lengths are checked when the call runs, as NumPy checks them)
            return ufunc(*_compressed(inputs))
        assert mask is not None
        return MaskedSelection(None, mask, ufunc(*operands))

    def _ufunc(ufunc: np.ufunc, reflected: bool = False) -> Callable[..., Any]:  # type: ignore[misc]
        def op(self: MaskedSelection, other: Any = None) -> Any:
            if ufunc.nin == 1:
                return ufunc(self)
            return ufunc(other, self) if reflected else ufunc(self, other)

        return op

    __add__, __radd__ = _ufunc(np.add), _ufunc(np.add, True)
    __sub__, __rsub__ = _ufunc(np.subtract), _ufunc(np.subtract, True)
    __mul__, __rmul__ = _ufunc(np.multiply), _ufunc(np.multiply, True)
    __truediv__, __rtruediv__ = _ufunc(np.true_divide), _ufunc(np.true_divide, True)
    __rpow__ = _ufunc(np.power, True)

    def __pow__(self, other: Any) -> Any:
        # `x[mask] ** 2` is an array's power in NumPy: its fast paths (np.square) apply
        return array_power(self, other)
    __lt__, __le__, __gt__, __ge__ = _ufunc(np.less), _ufunc(np.less_equal), _ufunc(np.greater), _ufunc(np.greater_equal)
    __eq__, __ne__ = _ufunc(np.equal), _ufunc(np.not_equal)  # type: ignore[assignment]
    __neg__, __abs__, __invert__ = _ufunc(np.negative), _ufunc(np.absolute), _ufunc(np.invert)
    __and__, __rand__ = _ufunc(np.bitwise_and), _ufunc(np.bitwise_and, True)
    __or__, __ror__ = _ufunc(np.bitwise_or), _ufunc(np.bitwise_or, True)
    __xor__, __rxor__ = _ufunc(np.bitwise_xor), _ufunc(np.bitwise_xor, True)
    __lshift__, __rshift__ = _ufunc(np.left_shift), _ufunc(np.right_shift)
    __floordiv__, __rfloordiv__ = _ufunc(np.floor_divide), _ufunc(np.floor_divide, True)
    __mod__, __rmod__ = _ufunc(np.remainder), _ufunc(np.remainder, True)

    def _inplace(ufunc: np.ufunc) -> Callable[..., Any]:  # type: ignore[misc]
        def op(self: MaskedSelection, other: Any) -> Any:
            result = ufunc(self, other)
            if not isinstance(result, MaskedSelection):  # with an array: NumPy's array of the count,
                return cast(as_tensor(result), self.dtype)  # which `x[m] = ` then scatters back
            self.values = cast(result.values, self.values.dtype)
            return self

        return op

    __iadd__, __isub__ = _inplace(np.add), _inplace(np.subtract)
    __imul__, __itruediv__ = _inplace(np.multiply), _inplace(np.true_divide)
    __iand__, __ior__, __ixor__ = _inplace(np.bitwise_and), _inplace(np.bitwise_or), _inplace(np.bitwise_xor)
    __ifloordiv__, __imod__, __ipow__ = _inplace(np.floor_divide), _inplace(np.remainder), _inplace(np.power)
    __ilshift__, __irshift__ = _inplace(np.left_shift), _inplace(np.right_shift)
    del _ufunc, _inplace

    # ------------------------------------------------------------------ reductions

    def _filled(self, fill: Any) -> Tensor:
        return np.where(self.full_mask(), self.values, np.asarray(fill, self.dtype))

    def count(self) -> Tensor:
        return np.sum(self.mask)

    def _axes(self, axis: Any) -> tuple[int, ...] | None:
        """The axes of the values that a reduction of the selection over ``axis`` reduces (all of
        them for the whole selection, the mask's for its first axis); None where NumPy's array of
        run-time length must reduce (another axis)."""
        ndim = 1 + len(self.rest)
        if axis is None:
            return tuple(range(self.values.ndim))
        if isinstance(axis, (int, np.integer)) and axis in (0, -ndim):
            return tuple(range(self.mask.ndim))
        return None

    def _reduce(self, func: Callable[..., Any], fill: Any, axis: Any) -> Tensor:
        axes = self._axes(axis)
        if axes is None:
            return func(self.compressed(), axis=axis)
        return func(self._filled(fill), axis=axes)

    def sum(self, axis: Any = None) -> Tensor:
        return self._reduce(np.sum, 0, axis)

    def prod(self, axis: Any = None) -> Tensor:
        return self._reduce(np.prod, 1, axis)

    def mean(self, axis: Any = None) -> Tensor:
        axes = self._axes(axis)
        if axes is None:
            return np.mean(self.compressed(), axis=axis)
        total = np.sum(self._filled(0), axis=axes)
        counted = self.mask if axes == tuple(range(self.mask.ndim)) else self.full_mask()  # rows, or elements
        if self.dtype.kind in "f":  # counted as a float64 sum of ones (exact below 2**53), so that
            # the count is one more float reduction beside the sum: one vector loop for both
            return total / cast(np.sum(np.where(counted, 1.0, 0.0)), self.dtype)
        return total / np.sum(counted)

    def max(self, axis: Any = None) -> Tensor:
        return self._reduce(np.max, _lowest(self.dtype), axis)

    def min(self, axis: Any = None) -> Tensor:
        return self._reduce(np.min, _highest(self.dtype), axis)

    def any(self, axis: Any = None) -> Tensor:
        return self._reduce(np.any, False, axis)

    def all(self, axis: Any = None) -> Tensor:
        return self._reduce(np.all, True, axis)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        method = _REDUCTIONS.get(func)
        if method is None or args[0] is not self or len(args) > 1 or set(kwargs) - {"axis"}:
            return func(*_compressed(args), **dict(zip(kwargs, _compressed(tuple(kwargs.values())))))
        return getattr(self, method)(kwargs.get("axis"))

    def compressed(self) -> Tensor:
        """The selected values as NumPy's array, its first length known only at run time: one
        ``graph.compress`` of the flattened values by the flattened mask (one pass, in order; no
        positions are formed), then the rows' shape for a mask of leading axes. The values have
        the base's shape (``select`` checks sizes known only at run time to agree; ufuncs keep the
        shape), so the two flatten to one length. It serves values used inside the function and
        returned ones (graph-bound-results returns them in a buffer of their bound). The flattening is of values, not
        ``np.ravel``'s view of the memory, so the trace does not depend on the arguments' layouts
        (which sent every call of ``return x[m]`` through the checks of the slow path)."""
        flat = emit(graph.CompressOp(_flat(self.values), _flat(self.full_mask())))
        return flat if not self.rest else reshape_to(flat, (-1, *self.rest))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compressed(), name)

    def _refused(self, *args: Any, **kwargs: Any) -> Any:
        _refuse()

    def __kiln_tensor__(self) -> Tensor:
        return self.compressed()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, MaskedSelection) and key.dtype == np.bool_ and same_value(key.mask.value, self.mask.value) \
                and shape_of(key.values) == shape_of(self.mask):
            # x[m][b[m]] is x[m & b] (one flat order): no array of the first selection is formed
            return MaskedSelection(None, np.logical_and(self.mask, key.values), self.values)
        return self.compressed()[key]

    def __matmul__(self, other: Any) -> Any:
        a, b = _compressed((self, other))
        return a @ b

    def __rmatmul__(self, other: Any) -> Any:
        a, b = _compressed((other, self))
        return a @ b

    __len__ = __iter__ = __bool__ = __array__ = __setitem__ = _refused


def _into(target: MaskedSelection, ufunc: np.ufunc, result: Any) -> MaskedSelection:
    """``np.ufunc(..., out=sel)``: ``sel`` (NumPy's fresh array ``x[mask]``) takes the result, cast
    as NumPy's ``same_kind`` rule allows; the result must be a selection by the same mask."""
    if not isinstance(result, MaskedSelection) or not same_value(result.mask.value, target.mask.value):
        _refuse(f"np.{ufunc.__name__}(..., out=x[mask]) of values that are not selected by the same mask")
    if not np.can_cast(result.dtype, target.dtype, "same_kind"):
        raise TypeError(
            f"Cannot cast ufunc '{ufunc.__name__}' output from dtype('{result.dtype}') to dtype('{target.dtype}') "
            "with casting rule 'same_kind'"
        )
    target.values = cast(result.values, target.dtype)
    return target


def _spread(mask: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A mask of leading axes repeated along the trailing axes of ``shape``."""
    if shape_of(mask) == shape:
        return mask
    return broadcast_to(reshape_to(mask, (*shape_of(mask), *(1,) * (len(shape) - mask.ndim))), shape)


#: integer ufuncs that trap on a zero divisor: computed on the selected values only
_TRAPPING = (np.floor_divide, np.remainder, np.fmod, np.divmod)

_REDUCTIONS = {np.sum: "sum", np.prod: "prod", np.mean: "mean", np.max: "max", np.amax: "max",
               np.min: "min", np.amin: "min", np.any: "any", np.all: "all"}


def _compressed(values: tuple[Any, ...]) -> list[Any]:
    """Arguments with every selection (also inside a list or tuple) as its compressed array."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, MaskedSelection):
            v = v.compressed()
        elif isinstance(v, (list, tuple)) and any(isinstance(e, MaskedSelection) for e in v):
            v = type(v)(_compressed(tuple(v)))
        out.append(v)
    return out


def _lowest(dtype: np.dtype[Any]) -> Any:
    return -np.inf if dtype.kind == "f" else (False if dtype.kind == "b" else np.iinfo(dtype).min)


def _highest(dtype: np.dtype[Any]) -> Any:
    return np.inf if dtype.kind == "f" else (True if dtype.kind == "b" else np.iinfo(dtype).max)


def _check_mask(base: Tensor, m: Tensor) -> None:
    """NumPy's IndexError for a mask that does not fit ``base``'s leading axes (sizes known only at
    run time are checked when the call runs)."""
    ms, bs = shape_of(m), shape_of(base)
    if not ms or len(ms) > len(bs):
        if not ms:
            _refuse("x[mask] with a 0-d mask")
        raise IndexError(f"too many indices for array: array is {len(bs)}-dimensional, but {len(ms)} were indexed")
    for axis, (a, b) in enumerate(zip(ms, bs)):
        if a >= 0 and b >= 0 and a != b:
            raise IndexError(f"boolean index did not match indexed array along axis {axis}; size of axis is {b} but "
                             f"size of corresponding boolean axis is {a}")
    for axis, (a, b) in enumerate(zip(ms, bs)):
        if a < 0 or b < 0:
            runtime_checks.same_length(
                base, axis, m, axis,
                f"boolean index did not match indexed array along axis {axis} (a length known only at run time differs)",
                error=graph.INDEX_ERROR,
            )


def select(base: Tensor, mask: Any) -> MaskedSelection:
    """``base[mask]`` for a boolean mask of ``base``'s shape or of its leading axes."""
    m = as_tensor(mask)
    _check_mask(base, m)
    # NumPy's x[mask] is a copy: a later write to x, or to the mask, must not show through it
    return MaskedSelection(base, Tensor(m.value, m.shape_source), Tensor(base.value, base.shape_source))


def write(target: Tensor, mask: Any, value: Any) -> Tensor:
    """The new contents of ``target`` after ``target[mask] = value``: a select where the value is
    one per element (a selection by the same mask) or broadcasts to one selected element, else
    the value's rows scattered to the selected positions."""
    m = as_tensor(mask)
    _check_mask(target, m)
    shape, rest = shape_of(target), shape_of(target)[m.ndim:]
    if isinstance(value, MaskedSelection) and same_value(value.mask.value, m.value) and shape_of(value.values) == shape:
        return emit(graph.SelectOp(_spread(m, shape).value, cast(value.values, target.dtype).value, target.value))
    if isinstance(value, MaskedSelection):
        value = value.compressed()  # by another mask: NumPy's array, whose length must be the count
    elif isinstance(value, (list, tuple)) and creation.holds_tensor(value):
        value = creation.array(value)
    v = cast(value if isinstance(value, Tensor) else as_tensor(np.asarray(value).astype(target.dtype)), target.dtype)
    vs = shape_of(v)
    if len(vs) == len(rest) + 1 and vs[0] == 1:
        v = reshape_to(v, vs[1:])  # one value for every selected element, as NumPy broadcasts it
    if v.ndim <= len(rest):
        return emit(graph.SelectOp(_spread(m, shape).value, broadcast_to(v, shape).value, target.value))
    return _scatter(target, m, v)


def _scatter(target: Tensor, m: Tensor, v: Tensor) -> Tensor:
    """``target[m] = v`` for ``v`` of one row per selected element: row ``k`` of ``v`` to the
    ``k``-th true position of ``m`` (in C order), the count checked to be ``len(v)``."""
    shape, rest = shape_of(target), shape_of(target)[m.ndim:]
    if v.ndim > len(rest) + 1 or any(a >= 0 and b >= 0 and a not in (1, b) for a, b in zip(shape_of(v)[1:], rest)):
        raise ValueError(f"shape mismatch: value array of shape {v.shape} could not be broadcast to indexing result "
                         f"of shape {(None, *rest)}")
    rows = target
    if m.ndim > 1:
        if -1 in shape_of(m):
            _refuse("x[mask] = array with a mask of several axes of lengths known only at run time")
        rows = reshape_to(target, (math.prod(shape_of(m)), *rest))
    positions = emit(graph.NonzeroOp(np.ravel(m).value))
    runtime_checks.same_length(
        v, 0, positions, 0,
        "NumPy boolean array indexing assignment cannot assign the input values to the output values where the "
        "mask is true: the array's length is not the mask's count (known only at run time)",
    )
    updates = broadcast_to(v, (shape_of(v)[0], *rest))
    written = emit(graph.ScatterOp("set", rows.value, [positions.value], updates.value))
    return written if rows is target else reshape_to(written, shape)
