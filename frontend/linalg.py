"""``np.linalg.cholesky`` / ``solve`` / ``inv`` / ``det`` on traced tensors: one ``graph.linalg`` each;
``matrix_power`` as NumPy computes it, from ``matmul`` (and ``inv`` for a negative exponent).

Static 2-D float32/float64 matrices (integers and bools are computed in float64, as NumPy does);
batched (3-D and up) or dynamically-shaped operands are refused by name. Shape errors are NumPy's
own ``LinAlgError``/``ValueError``, raised while tracing. Singular or not positive-definite inputs
cannot raise in compiled code: kiln returns NaNs (see docs/numpy-semantics.md).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.dialects import graph
from kiln.frontend import array_ops, creation, trace_context
from kiln.frontend.tensor import Tensor, as_tensor, broadcast_to, cast, emit, require_rank


def _unsupported(what: str) -> NotImplementedError:
    where = trace_context.here()
    return NotImplementedError(f"{where}: {what} is not supported inside kiln.function")


def _result_dtype(name: str, tensors: list[Tensor]) -> np.dtype[Any]:
    """LAPACK's common type: float32 when every operand is float32, else float64; complex64 or
    complex128 when an operand is complex (not for cholesky, which would need the conjugate)."""
    for t in tensors:
        if t.dtype.kind not in "biufc" or (t.dtype.kind == "c" and name.endswith("cholesky")):
            raise _unsupported(f"{name} on {t.dtype} arrays")
    single = all(t.dtype in (np.float32, np.complex64) for t in tensors)
    if any(t.dtype.kind == "c" for t in tensors):
        return np.dtype(np.complex64) if single else np.dtype(np.complex128)
    return np.dtype(np.float32) if single else np.dtype(np.float64)


def _square(name: str, a: Any) -> Tensor:
    t = as_tensor(a)
    require_rank(t, name)
    if t.ndim != 2:
        if t.ndim is not None and t.ndim > 2:
            raise _unsupported(f"{name} on stacks of matrices ({t.ndim}-D arrays)")
        raise np.linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be at least two-dimensional")
    if None in t.shape:
        raise _unsupported(f"{name} on a matrix of dynamic shape {t.shape}")
    if t.shape[0] != t.shape[1]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    return t


def _routine(kind: str, args: list[Tensor]) -> Tensor:
    dtype = _result_dtype(f"np.linalg.{kind}", args)
    return emit(graph.LinalgOp(kind, [cast(t, dtype).value for t in args]))


def _cholesky(a: Any, /, *, upper: bool = False) -> Tensor:
    if upper:
        raise _unsupported("np.linalg.cholesky(..., upper=True)")
    return _routine("cholesky", [_square("np.linalg.cholesky", a)])


def _inv(a: Any) -> Tensor:
    return _routine("inv", [_square("np.linalg.inv", a)])


def _det(a: Any) -> Tensor:
    return _routine("det", [_square("np.linalg.det", a)])


def _solve(a: Any, b: Any) -> Tensor:
    ta = _square("np.linalg.solve", a)
    tb = as_tensor(b)
    require_rank(tb, "np.linalg.solve")
    if tb.ndim not in (1, 2):
        raise _unsupported(f"np.linalg.solve with a {tb.ndim}-D b")
    if None in tb.shape:
        raise _unsupported(f"np.linalg.solve with b of dynamic shape {tb.shape}")
    if tb.shape[0] != ta.shape[0]:
        raise ValueError(
            f"np.linalg.solve: b of shape {tb.shape} does not match a of shape {ta.shape} "
            f"(b needs {ta.shape[0]} rows)"
        )
    return _routine("solve", [ta, tb])


def _matrix_power(a: Any, n: Any) -> Tensor:
    """NumPy's ``matrix_power``: the same products in the same order (squares of ``a`` multiplied
    in for each set bit of ``n``, low bit first), so the roundings are NumPy's up to ``matmul``'s.
    ``n`` must be known when tracing: the number of products is the program's shape."""
    t = as_tensor(a)
    require_rank(t, "np.linalg.matrix_power")
    if t.ndim < 2:
        raise np.linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be at least two-dimensional")
    if None in t.shape[-2:]:
        raise _unsupported(f"np.linalg.matrix_power on a matrix of dynamic shape {t.shape}")
    if t.shape[-1] != t.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if isinstance(n, Tensor):
        raise _unsupported("np.linalg.matrix_power with an exponent known only at run time (pass a Python int)")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:  # the identity in a's dtype and shape, a new array
        eye = creation.TRACED[np.eye](t.shape[-1], dtype=t.dtype)
        return eye if t.ndim == 2 else broadcast_to(eye, tuple(t.shape)).copy()
    if n < 0:
        if t.ndim > 2:
            raise _unsupported("np.linalg.matrix_power with a negative exponent on stacks of matrices")
        t, n = _inv(t), -n
    if n == 1:
        return t
    if n == 2:
        return array_ops.matmul(t, t)
    if n == 3:
        return array_ops.matmul(array_ops.matmul(t, t), t)
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:
        z = t if z is None else array_ops.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else array_ops.matmul(result, z)
    assert result is not None
    return result


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.linalg.cholesky: _cholesky,
    np.linalg.inv: _inv,
    np.linalg.det: _det,
    np.linalg.solve: _solve,
    np.linalg.matrix_power: _matrix_power,
}
