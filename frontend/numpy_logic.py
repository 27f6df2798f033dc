"""NumPy's comparisons of whole arrays and choices among them, on traced tensors: ``isin``,
``array_equal``, ``array_equiv``, ``select``, ``fix`` and the dtype query ``result_type``.

``array_equal``/``array_equiv`` give a Python bool, as NumPy does (False at trace time when
the shapes cannot match). ``select`` promotes as NumPy 2, which treats Python-number choices
weakly (``np.select([c], [x32], 0)`` stays float32). ``result_type`` is answered
while tracing from the operands' dtypes and weakness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend.numpy_shape import static_shape
from kiln.frontend.tensor import Tensor, as_tensor, cast, promotion_value, python_number, reshape_to
from kiln.frontend.tensor import is_traced



def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *, kind: Any = None) -> Tensor:
    """``element == t`` for any ``t`` of the flattened ``test_elements`` (NaN is in nothing)."""
    e = as_tensor(element)
    tests = np.ravel(as_tensor(test_elements) if is_traced(test_elements) else np.asarray(test_elements))
    shape = list(static_shape(e, "np.isin"))
    # (keepdims and a reshape: a 0-d element gives a 0-d array, as NumPy's isin, not a scalar)
    found = reshape_to(np.any(np.equal(e[..., None], tests), axis=-1, keepdims=True), shape) if np.size(tests) else np.zeros(shape, bool)
    return np.logical_not(found) if invert else found


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(static_shape(as_tensor(x), "np.array_equal")) if is_traced(x) else np.shape(x)


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """Same shape and every element equal (NaN equal to NaN with ``equal_nan``): a Python bool."""
    if _shape(a1) != _shape(a2):
        return False
    same = np.equal(a1, a2)
    if equal_nan:
        both = np.logical_and(np.isnan(a1), np.isnan(a2)) if np.result_type(a1, a2).kind in "fc" else False
        same = np.logical_or(same, both)
    return python_number(as_tensor(np.all(same)))


def array_equiv(a1: Any, a2: Any) -> Any:
    """Broadcastable shapes with every element equal: a Python bool."""
    try:
        np.broadcast_shapes(_shape(a1), _shape(a2))
    except ValueError:
        return False
    return python_number(as_tensor(np.all(np.equal(a1, a2))))


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Tensor:
    """The choice of the first true condition, else ``default``, in NumPy's promoted dtype
    (Python-number choices weak, as NumPy 2's ``select``)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(choicelist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    def operand(c: Any) -> Any:  # (NumPy 2 keeps Python numbers weak here, arrays otherwise)
        return as_tensor(c) if is_traced(c) else c if type(c) in (int, float, complex) else np.asarray(c)

    choices = [operand(c) for c in choicelist]
    fallback = operand(default)
    dtype = np.result_type(*(promotion_value(c) if isinstance(c, Tensor) else c for c in [*choices, fallback]))
    conds = [as_tensor(c) if is_traced(c) else np.asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    result: Any = fallback
    for cond, choice in zip(reversed(conds), reversed(choices)):
        result = np.where(cond, choice, result)
    shape = np.broadcast_shapes(*(tuple(static_shape(c, "np.select")) if is_traced(c) else np.shape(c) for c in [*conds, *choices, fallback]))
    result = np.broadcast_to(as_tensor(result), shape)
    return cast(result, dtype) if result.dtype != dtype else np.copy(result)


def fix(x: Any, out: Any = None) -> Tensor:
    """Rounded toward zero: ``floor`` where ``x >= 0``, ``ceil`` elsewhere (in ``ceil``'s dtype)."""
    if out is not None:
        raise NotImplementedError("np.fix(..., out=) is not supported inside kiln.function")
    t = as_tensor(x)
    up = np.ceil(t)
    return np.where(np.greater_equal(t, 0), cast(np.floor(t), up.dtype), up)


def result_type(*arrays_and_dtypes: Any) -> np.dtype[Any]:
    """NumPy's answer for the operands' dtypes, a traced Python number counting as weak."""
    return np.result_type(*(promotion_value(as_tensor(a)) if is_traced(a) else a for a in arrays_and_dtypes))


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.isin: isin,
    np.array_equal: array_equal,
    np.array_equiv: array_equiv,
    np.select: select,
    np.fix: fix,
    np.result_type: result_type,
}
