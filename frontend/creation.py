"""NumPy's array-creation functions called inside a traced function: they make kiln arrays.

``buf = np.empty((n, n))`` then ``buf[i] = ...`` is how NumPy code fills a result.
A real NumPy array could not hold traced values, so AutoGraph's call hook
(:func:`kiln.frontend.autograph.transpiler.call`) routes these functions
here while a trace is in progress: each returns a new kiln array (its own
storage), filled as NumPy fills it. ``np.empty``'s (and ``np.ndarray(shape)``'s) contents are
undefined in NumPy; kiln's are zeros. Functions of sizes and bounds (``np.arange``, ``np.linspace``...) are
run by NumPy when their arguments are Python values; their result becomes a new kiln array, so that
``x = np.arange(n); x[i] = v`` traces the write. ``np.eye``/``identity``/``tri`` compare two ranges
instead, so an n-by-n matrix is not an n-by-n constant in the IR.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import array_ops, dtypes, trace_context
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor, cast, constant, emit, lay_out_fortran


def _shape(shape: Any) -> tuple[int | Tensor, ...]:
    """The sizes of a new array: ints, or traced integers known only at run time (``np.empty(count)``)."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) or isinstance(shape, Tensor) else tuple(shape)
    for d in dims:
        if isinstance(d, Tensor) and (d.ndim != 0 or d.dtype.kind not in "iu"):
            raise TypeError(f"{trace_context.here()}: an array's size is an integer, got {d!r}")
    return tuple(d if isinstance(d, Tensor) else int(d) for d in dims)


def _filled(fill: Any) -> Callable[..., Tensor]:
    def make(shape: Any, dtype: Any = float, order: str = "C", *, like: Any = None) -> Tensor:
        if order not in ("C", "K", "A"):
            raise NotImplementedError(f"order={order!r} is not supported inside kiln.function")
        return array_ops.full(_shape(shape), fill, np.dtype(dtype))

    return make


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *, like: Any = None) -> Tensor:
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, Tensor) else np.asarray(fill_value).dtype
    return array_ops.full(_shape(shape), fill_value, np.dtype(dtype))


def array(obj: Any, dtype: Any = None, *, copy: bool = True, **kwargs: Any) -> Any:
    """``np.array``: a new kiln array (values may be traced: a list of 0-d tensors is stacked)."""
    if kwargs:
        raise NotImplementedError(f"np.array(..., {', '.join(kwargs)}=) is not supported inside kiln.function")
    if dtype is not None and isinstance(obj, (list, tuple, int, float, complex)) and not holds_tensor(obj):
        t = as_tensor(np.array(obj, dtype=dtypes.canonical(dtype)))  # NumPy converts: 1000 into int8 raises
        return t.copy("K") if copy else t
    t = _stacked(obj)
    t = cast(t, dtypes.canonical(dtype)) if dtype is not None else t
    # a NumPy scalar or Python number (immutable or weak) becomes a 0-d array: a new value
    return t.copy("K") if copy or t.immutable or t.weak else t


def asarray(obj: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """``np.asarray``: a kiln array as it is (no copy), anything else as a new kiln array."""
    if isinstance(obj, Tensor) and not (obj.immutable or obj.weak) and (dtype is None or np.dtype(dtype) == obj.dtype):
        return obj
    return array(obj, dtype, copy=False, **kwargs)


def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> Tensor:
    """``np.ascontiguousarray``: the array itself when C-contiguous (at least 1-D), else a C-ordered copy."""
    t = as_tensor(asarray(a, dtype))
    if t.ndim == 0:
        return np.reshape(t.copy(), (1,))
    return t if t.is_contiguous() else t.copy()


def asfortranarray(a: Any, dtype: Any = None, *, like: Any = None) -> Tensor:
    """``np.asfortranarray``: the array itself when Fortran-contiguous (at least 1-D), else a
    Fortran-ordered copy."""
    t = as_tensor(asarray(a, dtype))
    if t.ndim == 0:
        return np.reshape(t.copy(), (1,))
    if t.is_fortran_contiguous():
        return t
    return lay_out_fortran(t.copy())


def _stacked(obj: Any) -> Tensor:
    if isinstance(obj, (list, tuple)) and any(holds_tensor(o) for o in obj):
        return np.stack([_stacked(o) for o in obj])
    return as_tensor(obj)


def holds_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor or a (nested) list or tuple holding one."""
    if isinstance(obj, Tensor):
        return True
    return isinstance(obj, (list, tuple)) and any(holds_tensor(o) for o in obj)


def _run_by_numpy(func: Callable[..., Any], traced: Callable[..., Tensor] | None = None) -> Callable[..., Any]:
    """``func`` run by NumPy on Python arguments, its array result a new kiln array; with a traced
    argument, ``traced`` builds it from kiln ops, or the call is refused by name."""

    def make(*args: Any, **kwargs: Any) -> Any:
        if holds_tensor([*args, *kwargs.values()]):
            if traced is None:
                raise NotImplementedError(
                    f"np.{func.__name__} with a traced argument is not supported inside kiln.function: "
                    "the result's shape must be known when tracing; pass Python numbers"
                )
            return traced(*args, **kwargs)
        result = func(*args, **kwargs)
        return array(result) if isinstance(result, np.ndarray) else result

    make.__name__ = make.__qualname__ = func.__name__
    return make


def arange_traced(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, *, like: Any = None) -> Tensor:
    """``np.arange`` with traced 0-d bounds: ``start + i * step`` for the ``ceil((stop - start) / step)``
    values of ``i`` (none when that is negative), a 1-D array of a length known only at run time
    (``graph.iota``). The step must be a Python number: a traced zero step could not raise."""
    if like is not None:
        raise NotImplementedError("np.arange(..., like=) is not supported inside kiln.function")
    if stop is None:
        start, stop = 0, start
    if isinstance(step, Tensor) or hasattr(type(step), "__kiln_tensor__"):
        raise NotImplementedError(
            "np.arange with a traced step is not supported inside kiln.function (a zero step could not raise); "
            "pass the step as a Python number"
        )
    if step == 0:
        raise ZeroDivisionError("division by zero")
    lo, hi = as_tensor(start), as_tensor(stop)
    for bound in (lo, hi):
        if bound.ndim != 0:
            raise TypeError("np.arange bounds must be scalars")
    keys = [b if not isinstance(b, Tensor) else b.dtype for b in (start, stop, step)]
    result = dtypes.canonical(dtype) if dtype is not None else dtypes.result_type(*keys)
    if result.kind not in "iuf":
        raise NotImplementedError(f"np.arange of {result} is not supported inside kiln.function")
    int64 = np.dtype(np.int64)
    if result.kind == "f" or lo.dtype.kind == "f" or hi.dtype.kind == "f" or isinstance(step, float):
        span = (cast(hi, np.dtype(np.float64)) - cast(lo, np.dtype(np.float64))) / float(step)
        count = cast(np.ceil(span), int64)
    else:
        count = -((cast(lo, int64) - cast(hi, int64)) // int(step))
    positions = emit(graph.IotaOp(cast(count, int64).value))
    compute = np.dtype(np.float64) if result.kind == "f" else int64
    values = cast(lo, compute) + cast(positions, compute) * np.asarray(step, compute)
    return cast(values, result).copy()


def linspace_traced(
    start: Any, stop: Any, num: Any = 50, endpoint: bool = True, retstep: bool = False, dtype: Any = None,
    axis: int = 0,
) -> Any:
    """``np.linspace`` with traced 0-d ``start``/``stop`` and a Python ``num``: NumPy's formula
    (``start + i * step``, the last sample exactly ``stop`` when ``endpoint``)."""
    bounds = [as_tensor(start), as_tensor(stop)]
    if isinstance(num, Tensor) or any(b.ndim != 0 for b in bounds) or axis != 0:
        raise NotImplementedError(
            "np.linspace with a traced argument is supported inside kiln.function only for 0-d start "
            "and stop and a Python num"
        )
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    lo, hi = (cast(b, np.result_type(b.dtype, np.float64)) if b.dtype.kind in "biu" else b for b in bounds)
    div = num - 1 if endpoint else num
    step = (hi - lo) / div if div > 0 else (hi - lo) * np.nan
    steps = constant(np.arange(num, dtype=dtypes.result_type(lo.dtype, hi.dtype)))
    samples = steps * step + lo if div > 0 else steps * (hi - lo) + lo
    if endpoint and num > 1:
        samples = np.where(steps == num - 1, hi, samples)
    samples = cast(samples, np.dtype(dtype)) if dtype is not None else samples
    return (samples.copy(), step) if retstep else samples.copy()


def _eye(N: int, M: int | None = None, k: int = 0, dtype: Any = float, order: str = "C", *, like: Any = None) -> Tensor:
    """``np.eye`` as a comparison of two broadcast ranges: the IR holds O(N + M) constants, not
    the O(N * M) matrix, whatever the size."""
    rows, cols = _ranges(N, N if M is None else M)
    return _new(rows + int(k) == cols, dtype)


def _identity(n: int, dtype: Any = float, *, like: Any = None) -> Tensor:
    return _eye(n, dtype=dtype)


def _tri(N: int, M: int | None = None, k: int = 0, dtype: Any = float, *, like: Any = None) -> Tensor:
    """``np.tri``: ones at and below the ``k``-th diagonal, built like :func:`_eye`."""
    rows, cols = _ranges(N, N if M is None else M)
    return _new(cols <= rows + int(k), dtype)


def _ranges(n: Any, m: Any) -> tuple[Tensor, Tensor]:
    if holds_tensor([n, m]):
        raise NotImplementedError(
            "np.eye / np.identity / np.tri with a traced size are not supported inside kiln.function: "
            "the result's shape must be known when tracing; pass Python ints"
        )
    return constant(np.arange(int(n)).reshape(-1, 1)), constant(np.arange(int(m)).reshape(1, -1))


def _new(mask: Tensor, dtype: Any) -> Tensor:
    """A new kiln array (its own storage) of ``mask`` as ``dtype``."""
    return cast(mask, dtypes.canonical(np.dtype(dtype))).copy()


#: NumPy's scalar types of the supported dtypes (``np.float64``, ``np.int32``, ``np.bool_``...)
SCALAR_TYPES: tuple[type[np.generic], ...] = tuple(d.type for d in dtypes.SUPPORTED)


def _scalar_type(kind: type[np.generic]) -> Callable[..., Any]:
    """``np.float64(x)`` and friends: of a traced value a cast, as NumPy's (a new value: of a 0-d
    array NumPy makes a scalar, of an array a new array); of Python values NumPy's own scalar."""

    def make(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and holds_tensor(args[0]):
            return as_scalar(_new(_stacked(args[0]), kind))
        return kind(*args, **kwargs)

    make.__name__ = make.__qualname__ = kind.__name__
    return make


def copy(a: Any, order: str = "K", subok: bool = False) -> Any:
    """``np.copy`` (and ``W.copy()``) of a plain NumPy array inside a trace: a new kiln array, so
    that the function can write into it (``r = W.copy(); r[0] = x.sum()`` with a global ``W``)."""
    if not isinstance(a, np.ndarray):
        return np.copy(a, order=order, subok=subok)
    t = array(a)
    if order in ("K", "A") and a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous:
        lay_out_fortran(t)
    return t


def ndarray_copy(method: Any) -> Callable[..., Any] | None:
    """``W.copy`` (the bound method of a plain NumPy array): its kiln version inside a trace, else None."""
    owner = getattr(method, "__self__", None)
    if type(owner) is not np.ndarray or getattr(method, "__name__", None) != "copy" or not callable(method):
        return None
    return lambda order="C": copy(owner, order)


#: NumPy's functions and their kiln versions inside a trace
TRACED: dict[Any, Callable[..., Any]] = {
    np.empty: _filled(0),
    np.ndarray: _filled(0),
    np.zeros: _filled(0),
    np.ones: _filled(1),
    np.full: full,
    np.array: array,
    np.asarray: asarray,
    np.ascontiguousarray: ascontiguousarray,
    np.asfortranarray: asfortranarray,
    np.linspace: _run_by_numpy(np.linspace, linspace_traced),
    np.eye: _eye,
    np.identity: _identity,
    np.tri: _tri,
    np.copy: copy,
}
TRACED[np.arange] = _run_by_numpy(np.arange, arange_traced)
TRACED.update({t: _scalar_type(t) for t in SCALAR_TYPES})
TRACED.update({f: _run_by_numpy(f) for f in (np.indices, np.logspace)})
