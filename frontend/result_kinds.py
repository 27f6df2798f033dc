"""What a compiled function returns for each result: NumPy's kind of value, not only its contents.

NumPy gives a NumPy scalar for ``x.sum()``, ``x[i]`` or a ufunc of 0-d values, a Python number
for ``float(s)`` or ``len(x) * 2``, and a 0-d array only for ``np.asarray(s)``, ``np.zeros(())``
and the like. The trace knows which each 0-d value is (``Tensor.immutable``: a NumPy scalar;
``Tensor.weak``: a Python number), so a result is returned as NumPy would return it. Where a
staged ``if`` merges two kinds (``return x.sum()`` on one path, ``return np.asarray(...)`` on
the other), the merged value carries a 0-d int8 ``kind_flag`` the ``if`` yields, and the
function returns it as an extra result that says, per call, what to make of that one.

A Python number's kind names its Python type (PYTHON_BOOL ... PYTHON_COMPLEX): ``c = 0`` on one
path and ``c = x[1]`` (a float64) on the other merge into a float64 value, which the path that
kept ``c = 0`` must still return as the int ``0``, as Python does; so do ``c = 0`` and
``c = 1.5``. A staged loop carries such a flag, and a Python operator on such a value computes its
result's kind per call (:func:`of_python_operator`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType, i8
from xdsl.ir import SSAValue

from kiln.backends.targets import (OUTPUT_ARRAY, OUTPUT_BOOL, OUTPUT_COMPLEX, OUTPUT_FLOAT, OUTPUT_INT,
                                   OUTPUT_NUMPY_SCALAR, OUTPUT_PER_CALL, OUTPUT_PYTHON_NUMBER)
from kiln.frontend import runtime_checks, trace_context
from kiln.frontend.tensor import Tensor, as_tensor, constant, implements

#: an output whose kind is known only at run time: an extra int8 result holds it (see module doc)
DYNAMIC = OUTPUT_PER_CALL

#: a Python number of each type (the compiled entry's OUTPUT_PYTHON_NUMBER, made that type)
PYTHON_BOOL, PYTHON_INT, PYTHON_FLOAT, PYTHON_COMPLEX = OUTPUT_BOOL, OUTPUT_INT, OUTPUT_FLOAT, OUTPUT_COMPLEX
PYTHON_KINDS = (PYTHON_BOOL, PYTHON_INT, PYTHON_FLOAT, PYTHON_COMPLEX)
_PYTHON_KIND_OF = {"b": PYTHON_BOOL, "i": PYTHON_INT, "u": PYTHON_INT, "f": PYTHON_FLOAT, "c": PYTHON_COMPLEX}
_PYTHON_KIND_OF_TYPE = {bool: PYTHON_BOOL, int: PYTHON_INT, float: PYTHON_FLOAT, complex: PYTHON_COMPLEX}


def entry_kind(kind: int) -> int:
    """What a compiled entry returns for a result of the static ``kind`` (its OUTPUT_* kinds; a
    DYNAMIC one as its kind flag says, OUTPUT_PER_CALL)."""
    return OUTPUT_PYTHON_NUMBER if kind in PYTHON_KINDS else kind

#: the type of a kind flag
FLAG_TYPE = TensorType(i8, [])


def static_kind(value: Any) -> int:
    """What NumPy returns for ``value`` (a result leaf), as far as tracing knows: an array (a 0-d
    one too), a NumPy scalar (an immutable 0-d tensor, a NumPy scalar) or a Python number of its
    type (a weak 0-d tensor, a Python number); DYNAMIC where a staged ``if`` merged two kinds."""
    if isinstance(value, Tensor):
        if value.shape_source is not None or value.ndim != 0:
            return OUTPUT_ARRAY
        if value.kind_flag is not None:
            return DYNAMIC
        if value.weak:
            return _PYTHON_KIND_OF[value.dtype.kind]
        return OUTPUT_NUMPY_SCALAR if value.immutable else OUTPUT_ARRAY
    if isinstance(value, np.generic):
        return OUTPUT_NUMPY_SCALAR
    if isinstance(value, (bool, int, float, complex)):
        return _PYTHON_KIND_OF_TYPE[type(value)] if type(value) in _PYTHON_KIND_OF_TYPE else PYTHON_FLOAT
    return OUTPUT_ARRAY


def differ(a: Any, b: Any) -> bool:
    """Whether the value a staged ``if`` merges from ``a`` and ``b`` (one per path) is of a kind
    known only at run time. A path's placeholder (a value it never reads) takes the other's kind."""
    if not _has_kind(a) or not _has_kind(b):
        return any(_has_kind(v) and static_kind(v) == DYNAMIC for v in (a, b))
    ka, kb = static_kind(a), static_kind(b)
    return ka == DYNAMIC or kb == DYNAMIC or ka != kb


def merged_kind(a: Any, b: Any) -> int | None:
    """The kind known when tracing of the value a staged ``if`` merges from ``a`` and ``b``: theirs
    when they agree or one is a placeholder (None: neither has one, or it is known only per call)."""
    kinds = {_coarse(static_kind(v)) for v in (a, b) if _has_kind(v)}
    return kinds.pop() if len(kinds) == 1 and DYNAMIC not in kinds else None


def _coarse(kind: int) -> int:
    """``kind`` with the Python number types as one: a value that is a Python number on both paths
    is a Python number after the ``if`` (its type per call is its kind flag, see :func:`differ`)."""
    return OUTPUT_PYTHON_NUMBER if kind in PYTHON_KINDS else kind


def _has_kind(value: Any) -> bool:
    if isinstance(value, Tensor):
        return id(value) not in _placeholders()
    return isinstance(value, (np.generic, np.ndarray, bool, int, float, complex))


_PLACEHOLDERS = "kiln.result_kinds.placeholders"


def _placeholders() -> dict[int, Tensor]:
    ctx = trace_context.current()
    return ctx.notes.setdefault(_PLACEHOLDERS, {}) if ctx is not None else {}  # type: ignore[return-value]


def mark_placeholder(value: Tensor) -> None:
    """``value`` (a loop's carried return value as an iteration starts: a placeholder, since a loop
    that returned stops) has no kind of its own: a staged ``if`` merging it takes the other path's."""
    _placeholders()[id(value)] = value


def take_kind(value: Tensor, kind: int) -> None:
    """Make the 0-d ``value`` the ``kind`` NumPy gives it (a loop's result that was a placeholder
    before it takes its iterations': a loop's ``return i`` of a Python int index is a Python int)."""
    if kind == DYNAMIC or value.shape_source is not None or value.ndim != 0:
        return
    value.weak = (kind in PYTHON_KINDS or kind == OUTPUT_PYTHON_NUMBER) and value.dtype.kind in "iufbc"
    value.immutable = kind != OUTPUT_ARRAY


def kind_of(value: Any) -> int | Tensor:
    """What NumPy returns for ``value``: its static kind, or its traced kind flag where that is known only per call."""
    if isinstance(value, Tensor) and value.kind_flag is not None:
        return value.kind_flag
    return static_kind(value)


def of_python_operator(ufunc: np.ufunc, operands: Sequence[Any], result: Tensor) -> Tensor | None:
    """The kind flag of the 0-d ``result`` of a Python operator (``c * 2``, ``-c``, ``c > 0``) on
    ``operands`` of which one's kind is known only per call: where every operand is a Python number,
    the Python type Python's operator gives (the widest operand's, a bool made an int by arithmetic,
    a float by ``/``, a bool by a comparison), a NumPy scalar elsewhere. None where no operand's kind
    is per call, or another operand is a NumPy value on every path (a NumPy scalar then)."""
    flags = [x.kind_flag for x in operands if isinstance(x, Tensor) and x.kind_flag is not None]
    if not flags or result.ndim != 0 or result.shape_source is not None or result.dtype.kind not in _PYTHON_KIND_OF:
        return None
    if not all(isinstance(x, Tensor) and (x.kind_flag is not None or x.weak) or type(x) in _PYTHON_KIND_OF_TYPE
               for x in operands):
        return None
    python = functools.reduce(np.logical_and, [np.greater_equal(f, np.int8(PYTHON_BOOL)) for f in flags])
    if result.dtype.kind == "b":
        kind: Any = np.int8(PYTHON_BOOL)
    else:
        kinds = [x.kind_flag if isinstance(x, Tensor) and x.kind_flag is not None else np.int8(static_kind(x)) for x in operands]
        kind = np.maximum(functools.reduce(np.maximum, kinds), np.int8(PYTHON_FLOAT if ufunc is np.true_divide else PYTHON_INT))
    return as_tensor(np.where(python, kind, np.int8(OUTPUT_NUMPY_SCALAR)))


@implements
def number_part(value: Tensor, part: str) -> Tensor:
    """``value.real``, ``.imag`` or ``.conjugate()`` of the 0-d ``value``, a Python number (weak) or
    one on the paths its kind flag says: of Python's type there (a complex's parts are floats, a
    bool's are ints: ``True.imag`` is ``0``), NumPy's scalar on the paths where ``value`` is one."""
    x = value.astype(np.int64) if value.dtype == np.bool_ else value
    if part == "real":
        out = np.real(x)
    elif part == "imag":
        out = np.imag(x) if x.dtype.kind == "c" else np.zeros((), x.dtype)
    else:
        out = np.conjugate(x) if x.dtype.kind == "c" else x
    out = as_tensor(out)
    if value.kind_flag is None:
        return with_kind(out, _PYTHON_KIND_OF[out.dtype.kind])
    flag = np.where(np.equal(value.kind_flag, np.int8(PYTHON_BOOL)), np.int8(PYTHON_INT), value.kind_flag)
    if part != "conjugate":
        flag = np.where(np.equal(flag, np.int8(PYTHON_COMPLEX)), np.int8(PYTHON_FLOAT), flag)
    return with_kind(out, as_tensor(flag))


def flag_value(value: Any) -> SSAValue:
    """The kind of ``value`` as a 0-d int8 value, traced where a branch ends (its yield)."""
    if isinstance(value, Tensor) and value.kind_flag is not None:
        return value.kind_flag.value
    return constant(np.int8(static_kind(value))).value


def with_kind(value: Tensor, kind: int | Tensor) -> Tensor:
    """``value`` (a new 0-d tensor) returned as ``kind``: a static kind, or a traced 0-d int8 one
    (``max(s, t, 0.5)`` of 0-d arrays is one of them: an array or the Python float)."""
    out = Tensor(value.value)
    out.aval = value.aval.but(shape_source=None, readonly=False, kind_flag=None).in_memory_of(out.aval)  # (a new value: its kind is set below)
    if isinstance(kind, Tensor):
        out.kind_flag = kind
    else:
        take_kind(out, kind)
    return out


#: how a dtype holds a Python number a path gives (:func:`holds_python_number`)
HOLDS, INT_IN_FLOAT, FLOAT_IN_COMPLEX = 1, 2, 3

#: Python operators on ints whose result, computed in floats from ints a float holds exactly, is
#: exact while it stays below 2**53 (for float64; ``//``, ``%`` and ``**`` are not among them); on
#: floats computed as complex numbers of zero imaginary part, exactly the float's
_EXACT_ON_INTS = (np.add, np.subtract, np.multiply, np.negative, np.positive, np.absolute, np.maximum, np.minimum)


def exact_in_wider(ufunc: np.ufunc) -> bool:
    """Whether the Python operator ``ufunc`` gives a Python float exactly when computed in complex128
    from its operands' real values (``0 * s`` where another path makes the operand complex)."""
    return ufunc in _EXACT_ON_INTS


def holds_python_number(dtype: np.dtype[Any], kind: str) -> int | None:
    """Whether a result computed as ``dtype`` holds the Python number of NumPy's ``kind`` a path
    gives (a bool, an int: INT_IN_FLOAT where a float holds it, exact only below 2**53 for float64;
    a float: FLOAT_IN_COMPLEX where complex128 holds it, its real part, for operators exact there)."""
    if kind == "b" and dtype.kind == "b" or kind in "iu" and dtype == np.int64 or kind == "f" and dtype == np.float64:
        return HOLDS
    if kind == "c" and dtype == np.complex128:
        return HOLDS
    if kind == "f" and dtype == np.complex128:
        return FLOAT_IN_COMPLEX
    return INT_IN_FLOAT if kind in "iu" and dtype.kind == "f" else None


def require_exact_int(ufunc: np.ufunc, operands: Sequence[Any], result: Tensor) -> None:
    """``result`` of a Python operator computed as a float is a Python int on the calls where
    every operand is a Python int or bool (``c * 2`` where an earlier path left ``c`` an int):
    check at run time that it is exact there (below 2**53 for a float64), as Python's int is;
    refuse an operator that is not exact on ints in floats."""
    if ufunc not in _EXACT_ON_INTS:
        raise NotImplementedError(
            f"{trace_context.here()}: {ufunc.__name__} of a Python int whose operand is an int on some paths of a "
            "staged construct and a float on others: kiln computes it in floats, where it is not exact as "
            "Python's int is; give the operand one type on every path (float(...))"
        )
    flags = [x.kind_flag for x in operands if isinstance(x, Tensor) and x.kind_flag is not None]
    ints = functools.reduce(np.logical_and, [np.logical_and(np.greater_equal(f, np.int8(PYTHON_BOOL)),
                                                            np.less_equal(f, np.int8(PYTHON_INT))) for f in flags])
    limit = np.asarray(2.0 ** (np.finfo(result.dtype).nmant + 1), result.dtype)
    exact = np.less(np.absolute(Tensor(result.value)), limit)  # (its value alone: the check is no Python operator)
    runtime_checks.require(as_tensor(np.logical_or(np.logical_not(ints), exact)),
                           f"the Python int is beyond what a {result.dtype} holds exactly, which kiln computes it as "
                           "where another path of a staged construct leaves a float in an operand")
