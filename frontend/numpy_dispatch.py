"""NumPy's own API on traced tensors: ``__array_ufunc__`` and ``__array_function__``.

``np.exp(x)``, ``x + 1`` and ``np.sum(x, axis=0)`` on a :class:`Tensor` all
arrive here and record ``graph`` ops. Elementwise ufuncs are implemented in
this module (NumPy resolves the loop dtypes, so promotion is NumPy's exactly;
operands are then cast and broadcast as needed); the other functions map to
:mod:`kiln.frontend.array_ops`. A NumPy function or ufunc without an entry
raises ``NotImplementedError`` naming it, never computes something else.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np
from xdsl.irdl import IRDLOperation

from kiln.dialects import graph
from kiln.frontend import array_ops, array_types, creation, dtypes, index_facts, linalg, numpy_products, numpy_reductions, numpy_shape
from kiln.frontend import numpy_calculus, numpy_editing, numpy_functional, numpy_histograms, numpy_logic, numpy_masked_reductions, numpy_nan_stats, numpy_quantiles, numpy_sets, numpy_sorting, numpy_take, numpy_ufunc_methods, python_division, python_int_overflow, python_round, pytree, result_kinds, run_time_shape, runtime_checks, trace_context
from kiln.frontend import ufuncs, views
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor, broadcast_to, cast, common_source, constant, emit, require_rank
from kiln.frontend.tensor import follow_layout, implements, lay_out_fortran, path_promotions, promotion_value, shape_of
from kiln.frontend.tensor import WEAK_OF_KIND, in_python_operator, python_number, strong, weak_stand_in, with_source

#: an operand before promotion: a tensor, an array constant, or a weak Python scalar
Operand = Tensor | np.ndarray | bool | int | float | complex


def _np_name(obj: Any) -> str:
    """``np.fft.fft`` for NumPy's ``numpy.fft.fft``."""
    module = getattr(obj, "__module__", None) or "numpy"
    module = "np" + module.removeprefix("numpy").replace("._core", "").replace(".core", "")
    return f"{module}.{obj.__name__}"


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(f"{what} is not supported inside kiln.function")


# ---------------------------------------------------------------------- operands and promotion


def operand(x: Any) -> Operand:
    """Tensors stay, Python scalars stay weak, everything else becomes a NumPy array constant."""
    if isinstance(x, Tensor) or (isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)):
        return x
    if hasattr(type(x), "__kiln_tensor__"):
        return as_tensor(x)
    if isinstance(x, (list, tuple)) and creation.holds_tensor(x):  # NumPy takes a list as an array: stacked
        return creation.asarray(x)
    array_types.check_plain_array(x, "a constant operand")
    array = np.asarray(x)
    if array.dtype not in dtypes.SUPPORTED:
        raise dtypes.unsupported(array.dtype, f"of the operand {x!r}")
    return array


def promotion_key(x: Operand) -> dtypes.PromotionKey:
    """What ``x`` contributes to NumPy's loop resolution (weak for Python scalars)."""
    if isinstance(x, Tensor) and x.weak:  # a staged loop index: a Python int to NumPy
        return dtypes.weak_operand(weak_stand_in(x))
    if isinstance(x, (Tensor, np.ndarray)):
        return x.dtype
    return dtypes.weak_operand(x)


def materialize(x: Operand, dtype: np.dtype[Any]) -> Tensor:
    """``x`` as a tensor of ``dtype``; constants are converted by NumPy, so overflow raises as in NumPy."""
    if isinstance(x, Tensor):
        return cast(x, dtype)
    if isinstance(x, np.ndarray):
        return constant(x.astype(dtype))
    return constant(np.asarray(x, dtype=dtype))


def broadcast_all(tensors: Sequence[Tensor], what: str) -> tuple[list[Tensor], int | None]:
    """NumPy broadcasting, made explicit only for the operands whose shape changes; and the result's
    shape source (see kiln.frontend.unknown_rank): with operands of unknown rank, the 0-d ones
    are broadcast to their flattened size."""
    source = common_source(tensors, what)
    if source is not None:
        return [t if t.shape_source is not None else broadcast_to(t, (-1,)) for t in tensors], source
    shapes = [shape_of(t) for t in tensors]
    try:
        shape = graph.broadcast_shapes(*shapes)
    except ValueError:
        shown = " ".join(str(tuple(None if d < 0 else d for d in s)).replace(" ", "") for s in shapes)
        raise ValueError(f"operands could not be broadcast together with shapes {shown}") from None
    if len(tensors) > 1:
        runtime_checks.broadcastable(tensors, shape)
    return [broadcast_to(t, shape) for t in tensors], None


# ---------------------------------------------------------------------- ufuncs

Builder = Callable[..., Tensor]


def _binary(op: type[IRDLOperation], bool_op: type[IRDLOperation] | None = None) -> Builder:
    """Same-typed binary op; ``bool_op`` where NumPy's bool loop is a logical one (``+`` is ``or``)."""

    def build(a: Tensor, b: Tensor) -> Tensor:
        cls = bool_op if bool_op is not None and a.dtype == np.bool_ else op
        return emit(cls(a.value, b.value))  # type: ignore[call-arg]

    return build


def _unary(op: type[IRDLOperation], identity_kinds: str = "") -> Builder:
    """Unary op; a no-op on dtype kinds where NumPy's loop is the identity (``abs`` of bools)."""

    def build(x: Tensor) -> Tensor:
        return x if x.dtype.kind in identity_kinds else emit(op(x.value))  # type: ignore[call-arg]

    return build


def _compare(predicate: str) -> Builder:
    def build(a: Tensor, b: Tensor) -> Tensor:
        if a.dtype != b.dtype:
            return _mixed_sign_compare(predicate, a, b)
        return emit(graph.CmpOp(predicate, a.value, b.value))

    return build


_SWAPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def _mixed_sign_compare(predicate: str, a: Tensor, b: Tensor) -> Tensor:
    """NumPy's exact int64-vs-uint64 comparison loop (no common type holds both): a negative
    signed value is below every unsigned one; otherwise both compare as uint64."""
    if a.dtype.kind == "u":  # as ``signed pred unsigned``
        a, b, predicate = b, a, _SWAPPED[predicate]
    zero = constant(np.zeros((), a.dtype))
    negative = emit(graph.CmpOp("lt", a.value, broadcast_to(zero, graph.shape_of(a.value)).value))
    as_unsigned = emit(graph.CmpOp(predicate, cast(a, b.dtype).value, b.value))
    if predicate in ("lt", "le", "ne"):  # true for every negative a
        return emit(graph.OrOp(negative.value, as_unsigned.value))
    return emit(graph.AndOp(emit(graph.NotOp(negative.value)).value, as_unsigned.value))


_multiply = _binary(graph.MulOp, graph.AndOp)

_UFUNCS: dict[np.ufunc, Builder] = {
    np.add: _binary(graph.AddOp, graph.OrOp),
    np.subtract: _binary(graph.SubOp),
    np.multiply: _multiply,
    np.true_divide: _binary(graph.DivOp),
    np.floor_divide: _binary(graph.FloorDivOp),
    np.remainder: _binary(graph.ModOp),
    np.power: _binary(graph.PowOp),
    np.maximum: _binary(graph.MaximumOp, graph.OrOp),
    np.minimum: _binary(graph.MinimumOp, graph.AndOp),
    np.bitwise_and: _binary(graph.AndOp),
    np.bitwise_or: _binary(graph.OrOp),
    np.bitwise_xor: _binary(graph.XorOp),
    np.logical_and: _binary(graph.AndOp),
    np.logical_or: _binary(graph.OrOp),
    np.logical_xor: _binary(graph.XorOp),
    np.equal: _compare("eq"),
    np.not_equal: _compare("ne"),
    np.less: _compare("lt"),
    np.less_equal: _compare("le"),
    np.greater: _compare("gt"),
    np.greater_equal: _compare("ge"),
    np.negative: _unary(graph.NegOp),
    np.positive: lambda x: x,
    np.absolute: lambda x: emit(graph.CabsOp(x.value)) if x.dtype.kind == "c" else _unary(graph.AbsOp, "bu")(x),
    np.invert: _unary(graph.NotOp),
    np.logical_not: _unary(graph.NotOp),
    np.exp: _unary(graph.ExpOp),
    np.log: _unary(graph.LogOp),
    np.sqrt: _unary(graph.SqrtOp),
    np.tanh: _unary(graph.TanhOp),
    np.sin: _unary(graph.SinOp),
    np.cos: _unary(graph.CosOp),
    np.floor: _unary(graph.FloorOp, "biu"),
    np.ceil: _unary(graph.CeilOp, "biu"),
    np.square: lambda x: _multiply(x, x),
}
_UFUNCS.update(ufuncs.UFUNCS)  # trigonometry, logarithms, rounding, shifts, NaN tests
# complex conjugate: the identity on real numbers (NumPy's loop for bools is int8's)
_UFUNCS[np.conjugate] = lambda x: emit(graph.ConjOp(x.value)) if x.dtype.kind == "c" else x


_real_reciprocal = _UFUNCS[np.reciprocal]  # graph.reciprocal (kiln.frontend.ufuncs)


def _reciprocal(x: Tensor) -> Tensor:
    """``np.reciprocal``: ``1 / x`` on floats; on complex numbers NumPy's loop, which divides by
    the larger part first: with |im| <= |re|, q = im/re, d = re + im*q, 1/x = 1/d - (q/d)j;
    otherwise q = re/im, d = re*q + im, 1/x = q/d - (1/d)j."""
    if x.dtype.kind != "c":
        return _real_reciprocal(x)
    re, im = np.real(x), np.imag(x)
    by_re = np.abs(im) <= np.abs(re)
    q1, q2 = im / re, re / im
    d1, d2 = re + im * q1, re * q2 + im
    parts = where(by_re, 1 / d1, q2 / d2), where(by_re, -q1 / d1, -1 / d2)
    return emit(graph.ComplexOp(parts[0].value, parts[1].value))


_UFUNCS[np.reciprocal] = _reciprocal

_COMPARISONS = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)

#: ufuncs whose operands count by truthiness: cast to bool first (NumPy's int loops test != 0)
_LOGICAL = (np.logical_and, np.logical_or, np.logical_xor, np.logical_not)


@implements
def array_ufunc(ufunc: np.ufunc, method: str, inputs: Sequence[Any], kwargs: dict[str, Any]) -> Tensor:
    """``Tensor.__array_ufunc__``: record ``ufunc(*inputs)`` as graph ops."""
    name = _np_name(ufunc)
    if method != "__call__":
        result = numpy_ufunc_methods.call(ufunc, method, inputs, kwargs)
        reduced = method == "reduce" and isinstance(result, Tensor) and kwargs.get("out") is None
        return as_scalar(result) if reduced else result  # (np.add.reduce(v): a NumPy scalar)
    kwargs = dict(kwargs)
    out = kwargs.pop("out", None)
    if kwargs:
        raise _unsupported(f"{name}(..., {', '.join(f'{k}=' for k in kwargs)})")
    with python_division.checked(ufunc, inputs) if in_python_operator() else nullcontext():
        if ufunc is np.matmul:
            result = array_ops.matmul(*inputs)
        elif ufunc in ufuncs.COMPOSITE_UFUNCS:
            result = ufuncs.COMPOSITE_UFUNCS[ufunc](*inputs)
        elif ufunc is np.true_divide and in_python_operator() and (quotient := python_division.python_quotient(inputs)) is not None:
            result = quotient  # (a Python complex's: CPython's division, not NumPy's)
        else:
            build = _UFUNCS.get(ufunc)
            if build is None:
                raise _unsupported(name)
            result = elementwise(ufunc, build, inputs)
    if out is not None and not isinstance(result, Tensor):
        raise _unsupported(f"{name}(..., out=)")
    if out is not None:
        return write_out(name, result, out)
    if not isinstance(result, Tensor):
        return result
    scalar = as_scalar(result)  # NumPy returns a 0-d result as a scalar
    if in_python_operator() and (flag := result_kinds.of_python_operator(ufunc, inputs, scalar)) is not None:
        scalar.kind_flag = flag  # (a Python number on the paths where its operands are)
    return scalar


def write_out(name: str, result: Tensor, out: Any) -> Tensor:
    """``out=``: ``result`` cast (``same_kind``, as NumPy's ufuncs) and broadcast into the array ``out``."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"{name}: out= takes one array, got {len(out)}")
        (out,) = out
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{name}(..., out=) into a {type(out).__name__} that is not a kiln array: inside kiln.function, "
            "out= must be an array of the function (an argument, or made with np.empty/np.zeros/...)"
        )
    if out.readonly:
        raise ValueError(f"{trace_context.here()}: output array is read-only")
    if not np.can_cast(result.dtype, out.dtype, "same_kind"):
        raise TypeError(
            f"Cannot cast ufunc '{name.removeprefix('np.')}' output from {result.dtype!r} to {out.dtype!r} "
            "with casting rule 'same_kind'"
        )
    target = shape_of(out)
    if graph.broadcast_shapes(shape_of(result), target) != target:
        raise ValueError(
            f"{name}: non-broadcastable output operand with shape {out.shape} doesn't match the broadcast shape {result.shape}"
        )
    out.overwrite(broadcast_to(cast(result, out.dtype), target))
    return out


#: the operators Python applies to bools as to the ints 0 and 1 (``True + True`` is 2, ``True - True`` 0),
#: where NumPy's ufunc stays bool (``np.add``: or, ``np.multiply``: and) or refuses (``np.subtract``)
_INT_ARITHMETIC_OF_BOOLS = (np.add, np.subtract, np.multiply, np.floor_divide, np.remainder, np.power,
                            np.left_shift, np.right_shift)


def _python_bool(x: Operand) -> bool:
    """A Python bool: a literal, or a traced one (weak, the same type on every path)."""
    if isinstance(x, Tensor):
        return x.weak and x.dtype == np.bool_ and x.ndim == 0 and x.kind_flag is None
    return type(x) is bool


def _python_as(x: Operand, kind: type[int] | type[float]) -> Operand:
    """The Python number ``x`` as the Python ``kind`` Python's operator computes in (a bool as an int
    in ``True + True``, an int as a float in ``2 ** -1``)."""
    return x._python_as(kind) if isinstance(x, Tensor) else kind(x)


def _python_integral(x: Operand) -> bool:
    """A Python int or bool: a literal, or a traced one (weak, the same type on every path)."""
    if isinstance(x, Tensor):
        return x.weak and x.dtype.kind in "biu" and x.ndim == 0 and x.kind_flag is None
    return type(x) in (bool, int)


def _keys(operands: Sequence[Operand]) -> list[dtypes.PromotionKey]:
    keys = [promotion_key(x) for x in operands]
    if all(k is int or k is float for k in keys):  # only Python numbers (loop indices among them): as NumPy's
        keys = [x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype for x in operands]
    return keys


def same_on_every_path(
    operands: Sequence[Any], resolve: Callable[[Sequence[Any]], Any], what: str, python_result: np.dtype[Any] | None = None,
    exact_in_complex: bool = False,
) -> bool:
    """Refuse when the dtype NumPy gives ``what`` depends on the path a staged construct took: an
    operand promotes one way on some paths and another on others (``t = 0.5`` on one path of an
    `if`, ``t = x.sum()`` of float64 on the other; ``t * float32_array`` is float32 on the first
    path, float64 on the second). ``resolve`` gives the result dtype for operands (tensors in
    them standing for their promotion values as given).

    With ``python_result``, a Python operator computed as that dtype whose operands' kinds are
    known per call: on the paths where every operand is a Python number its result is a Python
    number (its kind flag says which), so those paths only need the dtype to hold it (``c * 2``
    with ``c`` an int or a float; ``s + v`` with each a Python int or a NumPy float64; a Python
    float computed as complex128 where ``exact_in_complex``, the operator giving it exactly there:
    ``0 * s`` where another path makes ``0`` a complex). Returns whether some path's Python int is
    computed as a float (checked at run time, see result_kinds.require_exact_int)."""
    varying = [i for i, x in enumerate(operands) if isinstance(x, Tensor) and x.path_promotions is not None]
    if not varying:
        return False
    python_ok = python_result is not None and all(operands[i].kind_flag is not None for i in varying)  # type: ignore[union-attr]
    results, python_paths, int_in_float = set(), False, False
    for choice in itertools.product(*(operands[i].path_promotions[0] for i in varying)):  # type: ignore[union-attr]
        alternative = list(operands)
        for i, value in zip(varying, choice):
            alternative[i] = value
        dtype = np.dtype(resolve(alternative))
        holds = result_kinds.holds_python_number(python_result, dtype.kind) if python_ok and all(
            _python_on_path(x) for x in alternative) else None  # type: ignore[arg-type]
        if holds == result_kinds.FLOAT_IN_COMPLEX and not exact_in_complex:
            holds = None
        if holds is None:
            results.add(dtype)
        python_paths = python_paths or holds is not None
        int_in_float = int_in_float or holds == result_kinds.INT_IN_FLOAT
    if len(results) > 1 or python_paths and results and results != {python_result}:
        where = operands[varying[0]].path_promotions[1]  # type: ignore[union-attr]
        shown = " or ".join(sorted(str(d) for d in results) + ([f"a Python number (computed as {python_result})"] if python_paths else []))
        raise NotImplementedError(
            f"{trace_context.here()}: the dtype of {what} depends on the path taken through {where}: an operand is a "
            f"Python number on some paths and a NumPy value on others (or numbers of two kinds), and NumPy's "
            f"result is {shown} accordingly; give it one type on every path (np.float64(...) where it is a "
            "Python number, or float(...) / .item() where it is a NumPy value)"
        )
    return int_in_float


def _python_on_path(x: Any) -> bool:
    """Whether the operand ``x`` (a path's promotion value standing for a varying one) is a Python number there."""
    if isinstance(x, Tensor):
        return x.weak and x.path_promotions is None
    return type(x) in (bool, int, float, complex)


def _promotion_stand_in(x: Any) -> Any:
    """An operand for key resolution: a path's promotion value stands for itself (a Python
    number stays weak, a dtype becomes a 0-d array of it)."""
    return np.zeros((), x) if isinstance(x, np.dtype) else x


def elementwise(ufunc: np.ufunc, build: Builder, inputs: Sequence[Any]) -> Tensor:
    """Resolve NumPy's loop for ``ufunc``, cast and broadcast the operands to it, and ``build``."""
    operands = [operand(x) for x in inputs]
    if ufunc in _COMPARISONS:
        operands = _exact_int_comparison(operands)
    elif ufunc in _INT_ARITHMETIC_OF_BOOLS and in_python_operator() and all(map(_python_bool, operands)):
        operands = [_python_as(x, int) for x in operands]  # Python's True + True is 2, NumPy's np.True_
    if ufunc is np.power and in_python_operator() and all(map(_python_integral, operands)) \
            and _has_negative_constant(operands[1]):
        operands = [_python_as(x, float) for x in operands]  # Python's 2 ** -1 is 0.5, NumPy's an error
    keys = _keys(operands)
    in_dtypes, out_dtype = dtypes.resolve_ufunc(ufunc, keys)
    int_in_float = same_on_every_path(
        operands, lambda ops: dtypes.resolve_ufunc(ufunc, _keys([_promotion_stand_in(o) for o in ops]))[1], _np_name(ufunc),
        out_dtype if in_python_operator() else None, result_kinds.exact_in_wider(ufunc),
    )
    if ufunc in _LOGICAL:
        in_dtypes = (np.dtype(np.bool_),) * len(in_dtypes)
    elif ufunc in _COMPARISONS:
        settled = _settled_comparison(ufunc, operands, in_dtypes)
        if settled is not None:
            return settled
        in_dtypes = _widen_for_python_ints(operands, in_dtypes)
    if ufunc is np.power and dtypes.is_integer(in_dtypes[0]) and _has_negative_constant(operands[1]):
        raise ValueError("Integers to negative integer powers are not allowed.")
    if ufunc is np.power and in_dtypes[0].kind == "c":
        powered = _complex_power(operands, in_dtypes[0])
        if in_python_operator() and not any(powered is x for x in operands):
            _keep_python_numbers(ufunc, operands, powered)  # (z ** 2 of a Python complex is one)
        return powered
    tensors, source = broadcast_all([materialize(x, dt) for x, dt in zip(operands, in_dtypes)], _np_name(ufunc))
    scalar_math = _complex_scalar_math(ufunc, operands, out_dtype)
    result = with_source((scalar_math or build)(*tensors), source)
    if any(result.storage is t.storage for t in tensors):  # (np.positive, np.conjugate of reals): a new array
        result = Tensor(result.value, result.shape_source)
    result = follow_layout(result, operands)
    assert result.dtype == out_dtype, f"{_np_name(ufunc)}: built {result.dtype}, NumPy gives {out_dtype}"
    if in_python_operator():  # (np.add(t, 1) of Python numbers is a NumPy scalar: strong)
        _keep_python_numbers(ufunc, operands, result)
    if int_in_float:
        result_kinds.require_exact_int(ufunc, operands, result)
    exact = python_int_overflow.check(ufunc, operands, tensors, result) if python_int_overflow.applies(ufunc, result) else None
    if result.ndim == 0:
        index_facts.derive(ufunc, list(operands), result, exact)
    return result


def _number_kind(x: Operand) -> str | None:
    """``"python"`` for a Python number, ``"numpy"`` for a NumPy scalar, ``"array"`` for an array
    (a 0-d one too), None for a value whose kind a staged ``if`` leaves to the call."""
    kind = result_kinds.static_kind(x)
    if kind == result_kinds.DYNAMIC or isinstance(x, Tensor) and x.path_promotions is not None:
        return None
    if kind == result_kinds.OUTPUT_ARRAY:
        return "array"
    return "numpy" if kind == result_kinds.OUTPUT_NUMPY_SCALAR else "python"


def _complex_valued(x: Operand) -> bool:
    """Whether ``x`` is complex before promotion (a complex array, NumPy scalar or Python complex)."""
    if isinstance(x, (Tensor, np.ndarray, np.generic)):
        return x.dtype.kind == "c"
    return isinstance(x, complex)


def _complex_scalar_math(ufunc: np.ufunc, operands: Sequence[Operand], out: np.dtype[Any]) -> Builder | None:
    """How a complex product of numbers rounds: NumPy multiplies arrays (0-d ones too) with a
    fused multiply-add (graph.mul), and so does ``np.multiply`` of scalars; the operator ``*`` of
    NumPy scalars and Python complex numbers multiplies without one (NumPy's scalar math,
    CPython's ``complex.__mul__``), as NumPy's power does (:func:`_plain_multiply`).
    None where graph.mul is right; a refusal where the operands' kinds, and so the rounding, are
    known only per call. (A quotient of Python numbers is CPython's: kiln.frontend.python_division.)"""
    if ufunc is not np.multiply or not in_python_operator() or out.kind != "c" or not all(map(_complex_valued, operands)):
        return None  # (np.multiply of scalars runs the array loop; with a real factor both ways give the same bits)
    kinds = [_number_kind(x) for x in operands]
    if "array" in kinds:
        return None
    if None in kinds:
        raise _unsupported("a complex product of a value that is a number on some paths of a staged `if` and an array "
                           "on others (NumPy rounds the two differently)")
    return _plain_multiply


def _keep_python_numbers(ufunc: np.ufunc, operands: Sequence[Operand], result: Tensor) -> None:
    """A Python operator on Python numbers (``t + 1`` of a loop index) gives a Python number or
    bool: ``result`` is weak, and where an operand is one only on some paths, so is it."""
    if any(isinstance(x, Tensor) for x in operands) and all(
        x.weak if isinstance(x, Tensor) else isinstance(x, (int, float, complex)) for x in operands
    ) and result.dtype.kind in "iufbc":
        result.weak = True
    if ufunc in _COMPLEX_TAKES_FLOATS and len(operands) == 2 and _python_complex(operands[0]) \
            and _numpy_float64(operands[1]):
        result.weak = True  # (Python's complex.__add__ takes np.float64, a float subclass, before NumPy can)
    varying = next((x for x in operands if isinstance(x, Tensor) and x.path_promotions is not None), None)
    if varying is not None and result.ndim == 0 and all(
        isinstance(x, Tensor) and (x.weak or x is varying) or isinstance(x, (int, float)) for x in operands
    ):  # arithmetic on it with Python numbers (t + 1): a Python number on the paths where it is one
        alternatives, where = varying.path_promotions  # type: ignore[misc]
        on_paths = []
        for v in alternatives:
            dt = dtypes.resolve_ufunc(ufunc, _keys([_promotion_stand_in(v) if x is varying else x for x in operands]))[1]
            on_paths.append(WEAK_OF_KIND[dt.kind] if isinstance(v, (bool, int, float, complex)) else np.zeros((), dt))
        result.path_promotions = path_promotions(on_paths, where)


#: Python operators whose ``complex`` method takes a Python float (``z + x``, ``z * x``, ...)
_COMPLEX_TAKES_FLOATS = frozenset({np.add, np.subtract, np.multiply, np.true_divide, np.power})


def _python_complex(x: Operand) -> bool:
    """A Python complex: a literal, or a traced one (weak, the same kind on every path)."""
    if isinstance(x, Tensor):
        return x.weak and x.dtype.kind == "c" and x.ndim == 0 and x.kind_flag is None and x.path_promotions is None
    return type(x) is complex


def _numpy_float64(x: Operand) -> bool:
    """A NumPy float64 scalar (``a[i]`` of a float64 array), which is a Python float subclass: a
    Python complex on its left computes with it as Python floats, giving a Python complex."""
    if isinstance(x, Tensor):
        return result_kinds.static_kind(x) == result_kinds.OUTPUT_NUMPY_SCALAR and x.dtype == np.float64
    return type(x) is np.float64


def _exact_int_comparison(operands: list[Operand]) -> list[Operand]:
    """An integer array compared with a traced Python int: NumPy compares exactly, as int64 does
    (kiln compares int64 with uint64 exactly too), so the int is taken as int64 rather than
    converted to the array's narrower dtype (which would raise where it does not fit)."""
    if not any(isinstance(x, Tensor) and x.weak and x.dtype.kind == "i" for x in operands):
        return operands
    others = [x for x in operands if isinstance(x, (Tensor, np.ndarray)) and not (isinstance(x, Tensor) and x.weak)]
    if not others or any(x.dtype.kind not in "iu" for x in others):
        return operands
    return [strong(x) if isinstance(x, Tensor) else x for x in operands]


def _widen_for_python_ints(operands: Sequence[Operand], in_dtypes: tuple[np.dtype[Any], ...]) -> tuple[np.dtype[Any], ...]:
    """NumPy compares integers with Python ints outside their range exactly: compare in int64,
    which holds both (the other cases are settled by :func:`_settled_comparison`)."""
    ints = [x for x in operands if isinstance(x, int) and not isinstance(x, bool)]
    if not ints or not dtypes.is_any_integer(in_dtypes[0]):
        return in_dtypes
    info = np.iinfo(in_dtypes[0])
    if all(info.min <= v <= info.max for v in ints):
        return in_dtypes
    return (np.dtype(np.int64),) * len(in_dtypes)


#: ``x pred v`` for a ``v`` below every x, and for a ``v`` above every x
_BELOW_ALL = {np.less: False, np.less_equal: False, np.greater: True, np.greater_equal: True, np.equal: False, np.not_equal: True}
_ABOVE_ALL = {np.less: True, np.less_equal: True, np.greater: False, np.greater_equal: False, np.equal: False, np.not_equal: True}
_MIRROR = {np.less: np.greater, np.less_equal: np.greater_equal, np.greater: np.less, np.greater_equal: np.less_equal}


def _settled_comparison(ufunc: np.ufunc, operands: Sequence[Operand], in_dtypes: tuple[np.dtype[Any], ...]) -> Tensor | None:
    """An integer array compared with a Python int outside both its range and int64's (no
    common type holds both): every element compares the same way, by which side of the range
    the int lies on. The all-True / all-False result is ``x == x`` / ``x != x`` (exact for
    integers), so it keeps x's shape, dynamic sizes included. None when not such a case."""
    if not dtypes.is_any_integer(in_dtypes[0]) or len(operands) != 2:
        return None
    for k, v in enumerate(operands):
        if isinstance(v, int) and not isinstance(v, bool):
            info, i64 = np.iinfo(in_dtypes[0]), np.iinfo(np.int64)
            if info.min <= v <= info.max or (i64.min <= v <= i64.max and in_dtypes[0] != np.uint64):
                return None
            pred = ufunc if k == 1 else _MIRROR.get(ufunc, ufunc)  # as ``x pred v``
            truth = (_BELOW_ALL if v < info.min else _ABOVE_ALL)[pred]
            x = materialize(operands[1 - k], in_dtypes[0])
            (x,), source = broadcast_all([x], _np_name(ufunc))
            return with_source(emit(graph.CmpOp("eq" if truth else "ne", x.value, x.value)), source)
    return None


def _has_negative_constant(x: Operand) -> bool:
    """Whether an exponent known at trace time has a negative element."""
    if isinstance(x, Tensor):
        owner = x.value.owner
        return isinstance(owner, graph.ConstantOp) and any(v < 0 for v in owner.value.get_values())
    return bool(np.any(np.asarray(x) < 0))


def _complex_power(operands: Sequence[Operand], dtype: np.dtype[Any]) -> Tensor:
    """``z ** n`` for a complex ``z`` and an integral exponent known at trace time, |n| < 100,
    as NumPy computes it: z, z*z and z*(z*z) for n = 1, 2, 3; otherwise square-and-multiply
    from 1+0j over the bits of |n|, and the reciprocal 1/r for a negative n; 1+0j for n = 0.
    Other exponents (traced, fractional, complex, large) are refused."""
    exponent = operands[1]
    if isinstance(exponent, np.ndarray) and exponent.ndim == 0:
        exponent = exponent.item()
    if not isinstance(exponent, (int, float, complex)) or isinstance(exponent, bool):
        raise _unsupported("np.power of complex numbers with an array exponent (use an integer exponent known at trace time)")
    value = complex(exponent)
    if value.imag != 0 or not value.real.is_integer() or abs(value.real) >= 100:
        raise _unsupported(f"np.power of complex numbers to the power {exponent!r} (integer exponents below 100 are)")
    n = int(value.real)
    (z,), source = broadcast_all([materialize(operands[0], dtype)], "np.power")
    return with_source(_integer_power(z, n), source)


def _integer_power(z: Tensor, n: int) -> Tensor:
    if n == 0:
        return cast(np.logical_or(np.not_equal(z, z), True), z.dtype)
    # a zero base gives 0 to a positive power, NaN to a negative one (NumPy's four signed zeros)
    at_zero = complex(0.0 if n > 0 else np.nan, 0.0 if n > 0 else np.nan)
    return where(np.equal(z, 0), at_zero, _nonzero_power(z, n))


def _plain_multiply(a: Tensor, b: Tensor) -> Tensor:
    """``a * b`` on complex tensors as NumPy's power computes it: (ar*br - ai*bi) + (ar*bi +
    ai*br)j, without the fused multiply-add of its multiply loop (graph.mul)."""
    ar, ai, br, bi = np.real(a), np.imag(a), np.real(b), np.imag(b)
    return emit(graph.ComplexOp((ar * br - ai * bi).value, (ar * bi + ai * br).value))


def _nonzero_power(z: Tensor, n: int) -> Tensor:
    mul = _plain_multiply
    if n in (1, 2, 3):
        return z if n == 1 else mul(z, z) if n == 2 else mul(z, mul(z, z))
    one = broadcast_to(constant(np.ones((), z.dtype)), graph.shape_of(z.value))
    result, power, bits = one, z, abs(n)
    while True:
        if bits & 1:
            result = mul(result, power)
        bits >>= 1
        if not bits:
            break
        power = mul(power, power)
    return emit(graph.DivOp(one.value, result.value)) if n < 0 else result


# ---------------------------------------------------------------------- functions


@implements
def array_function(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Tensor.__array_function__``: run kiln's implementation of NumPy's ``func``."""
    impl = _FUNCTIONS.get(func)
    if impl is None:
        raise _unsupported(_np_name(func))
    result = impl(*args, **kwargs)
    if func not in _SCALAR_RESULTS:
        return result
    inputs = {id(t.storage) for t in pytree.flatten((args, kwargs))[0] if isinstance(t, Tensor)}
    return _as_scalars(result, inputs)


def _as_scalars(result: Any, inputs: set[int]) -> Any:
    """A 0-d result (or each of a tuple's) as the NumPy scalar NumPy returns there, unless it is
    an argument's memory (``out=``)."""
    if isinstance(result, tuple):
        return tuple(_as_scalars(r, inputs) for r in result)
    if isinstance(result, Tensor) and id(result.storage) not in inputs:
        return as_scalar(result)
    return result


def _reject(name: str, **given: Any) -> None:
    """Raise for NumPy keyword arguments kiln does not implement (given a non-default value)."""
    bad = [k for k, v in given.items() if v is not None and v is not np._NoValue]
    if bad:
        raise _unsupported(f"np.{name}(..., {', '.join(f'{k}=' for k in bad)})")


def _reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None) -> Tensor:
    if order != "C":
        raise _unsupported(f"np.reshape(..., order={order!r})")
    x = as_tensor(a)
    return views.reshaped(x, array_ops.reshape(x, shape if shape is not None else newshape))


def _transpose(a: Any, axes: Sequence[int] | None = None) -> Tensor:
    x = as_tensor(a)
    return views.transposed(x, array_ops.transpose(x, axes))


def _like(fill: Any) -> Callable[..., Tensor]:
    def impl(a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None, *, device: Any = None) -> Tensor:
        return _full_like(a, fill, dtype, order, subok, shape, device=device)

    return impl


def _full_like(
    a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None, *, device: Any = None
) -> Tensor:
    t = as_tensor(a)
    if shape is None:
        require_rank(t, "np.full_like / np.zeros_like / np.ones_like")
    dims = shape if shape is not None else [emit(graph.DimOp(t.value, a)) if d is None else d for a, d in enumerate(t.shape)]
    result = array_ops.full(dims, fill_value, t.dtype if dtype is None else dtype)
    if shape is None and (order == "K" or (order == "A" and t.is_fortran_contiguous())):
        follow_layout(result, [t])
    elif order == "F":
        lay_out_fortran(result)
    return result


def _where(condition: Any, x: Any = None, y: Any = None) -> Tensor | tuple[Tensor, ...]:
    """``np.where(condition, x, y)``; with the condition alone, ``np.nonzero(condition)``."""
    if x is None and y is None:
        return numpy_sorting.nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return where(condition, x, y)


def where(condition: Any, x: Any, y: Any) -> Tensor:
    """NumPy's ``where(condition, x, y)``: ``condition`` as bool, ``x``/``y`` promoted together, all broadcast."""
    c = materialize(operand(condition), np.dtype(np.bool_))
    a, b = operand(x), operand(y)
    same_on_every_path([a, b], lambda ops: dtypes.result_type(*(o if isinstance(o, np.dtype) else promotion_value(o) for o in ops)),
                       "np.where")
    dtype = dtypes.result_type(promotion_value(a), promotion_value(b))
    # a Python number is cast to the result's dtype as NumPy's where casts it (1000 into int8: -24)
    a, b = (v if isinstance(v, (Tensor, np.ndarray)) else constant(np.asarray(v).astype(dtype)) for v in (a, b))
    a, b = (strong(v) if isinstance(v, Tensor) else v for v in (a, b))  # a traced Python number too
    (c, ta, tb), source = broadcast_all([c, materialize(a, dtype), materialize(b, dtype)], "np.where")
    return follow_layout(with_source(emit(graph.SelectOp(c.value, ta.value, tb.value)), source), [condition, a, b])


def _clip(a: Any, a_min: Any = np._NoValue, a_max: Any = np._NoValue, out: Any = None, *, min: Any = np._NoValue, max: Any = np._NoValue, **kwargs: Any) -> Tensor:
    """``np.clip`` as ``minimum(maximum(a, lo), hi)``: NumPy 2 promotes each bound the same way."""
    _reject("clip", out=out, **kwargs)
    lo = a_min if a_min is not np._NoValue else min
    hi = a_max if a_max is not np._NoValue else max
    dt = as_tensor(a).dtype
    if dt.kind in "iu":  # as NumPy 2: a Python int bound at or beyond the dtype's range clips nothing
        info = np.iinfo(dt)
        lo = None if type(lo) is int and lo <= info.min else lo
        hi = None if type(hi) is int and hi >= info.max else hi
        # the same for a traced Python int: one beyond the range on that side clips like the
        # range's end; beyond it on the other side it still raises NumPy's OverflowError
        if isinstance(lo, Tensor) and lo.weak and lo.dtype.kind == "i":
            lo = python_number(np.maximum(lo, int(info.min)))
        if isinstance(hi, Tensor) and hi.weak and hi.dtype.kind == "i":
            hi = python_number(np.minimum(hi, int(info.max)))
    result = a
    if lo is not None and lo is not np._NoValue:
        result = np.maximum(result, lo)
    if hi is not None and hi is not np._NoValue:
        result = np.minimum(result, hi)
    return as_tensor(result)


def _concatenate(arrays: Sequence[Any], axis: int | None = 0, out: Any = None, *, dtype: Any = None, casting: str = "same_kind") -> Tensor:
    _reject("concatenate", out=out)
    return array_ops.concat(arrays, axis, None if dtype is None else dtypes.canonical(dtype))


def _stack(arrays: Sequence[Any], axis: int = 0, out: Any = None, *, dtype: Any = None, casting: str = "same_kind") -> Tensor:
    _reject("stack", out=out)
    return array_ops.stack(arrays, axis, None if dtype is None else dtypes.canonical(dtype))


def _real(val: Any) -> Tensor:
    """``np.real``: the real part of a complex tensor (a view, written through as NumPy's); a real tensor itself."""
    t = as_tensor(val)
    return views.complex_part(t, imag=False) if t.dtype.kind == "c" else t


def _imag(val: Any) -> Tensor:
    """``np.imag``: the imaginary part of a complex tensor (a view); of a real tensor, read-only zeros."""
    t = as_tensor(val)
    if t.dtype.kind == "c":
        return views.complex_part(t, imag=True)
    zeros = cast(where(np.equal(t, t), 0, 0), t.dtype)  # 0 where t is NaN too
    zeros.readonly = True
    return zeros


def _angle(z: Any, deg: bool = False) -> Tensor:
    """``np.angle``: ``arctan2(imag, real)``, in the float type of ``arctan2(0, z)`` for a real
    ``z`` (computed as the angle of ``z + 0j`` in the complex type of that precision)."""
    t = as_tensor(z)
    if t.dtype.kind != "c":
        _, out = dtypes.resolve_ufunc(np.arctan2, [int, t.dtype])
        work = np.dtype(np.complex64) if out.itemsize <= 4 else np.dtype(np.complex128)
        angle = cast(with_source(emit(graph.AngleOp(cast(t, work).value)), t.shape_source), out)
    else:
        angle = with_source(emit(graph.AngleOp(t.value)), t.shape_source)
    return np.multiply(angle, 180 / np.pi) if deg else angle


def _size(a: Any, axis: int | None = None) -> Any:
    """``np.size``: a traced Python int where the size is known only at run time (run_time_shape)."""
    t = as_tensor(a)
    if axis is not None:
        require_rank(t, "np.size(..., axis=)")
    return run_time_shape.size(t) if axis is None else run_time_shape.shape(t)[array_ops.normalize_axis(axis, t.ndim)]


def _copyto(dst: Any, src: Any, casting: str, where_: Any) -> None:
    """``np.copyto(dst, src)``: ``src`` cast (``casting``) and broadcast into ``dst``."""
    if not isinstance(dst, Tensor):
        raise TypeError(
            f"np.copyto into a NumPy {type(dst).__name__} that is not one of the traced arrays "
            "(a global, or one NumPy made from Python values only, as np.stack([1.25]) does): the compiled code cannot "
            "write into it; copy into an argument or an array made in the function (np.zeros, np.empty, x.copy())"
        )
    value = as_tensor(src) if not isinstance(src, (bool, int, float)) else src
    if isinstance(value, Tensor) and not np.can_cast(value.dtype, dst.dtype, casting):
        raise TypeError(f"Cannot cast array data from {value.dtype!r} to {dst.dtype!r} according to the rule {casting!r}")
    if where_ is True:
        dst[...] = value
    else:
        dst[...] = where(where_, value, dst)


def _unit_axes_view(a: Any, op: Callable[[Tensor], Tensor]) -> Tensor:
    """``np.squeeze`` / ``np.expand_dims``: always views in NumPy."""
    x = as_tensor(a)
    return views.reshaped(x, op(x), always_view=True)


_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.where: _where,
    np.sum: numpy_masked_reductions.reduction("sum"),
    np.prod: numpy_masked_reductions.reduction("prod"),
    np.max: numpy_masked_reductions.reduction("max"),
    np.amax: numpy_masked_reductions.reduction("max"),
    np.min: numpy_masked_reductions.reduction("min"),
    np.amin: numpy_masked_reductions.reduction("min"),
    np.mean: numpy_masked_reductions.mean,
    np.reshape: _reshape,
    np.transpose: _transpose,
    np.zeros_like: _like(0),
    np.empty_like: _like(0),
    np.copy: lambda a, order="K", subok=False: as_tensor(a).copy(order),
    np.copyto: lambda dst, src, casting="same_kind", where=True: _copyto(dst, src, casting, where),
    np.ones_like: _like(1),
    np.full_like: _full_like,
    np.concatenate: _concatenate,
    np.stack: _stack,
    np.clip: _clip,
    np.squeeze: lambda a, axis=None: _unit_axes_view(a, lambda x: array_ops.squeeze(x, axis)),
    np.expand_dims: lambda a, axis: _unit_axes_view(a, lambda x: array_ops.expand_dims(x, axis)),
    np.broadcast_to: lambda array, shape, subok=False: views.broadcast_view(as_tensor(array), shape),
    np.shape: lambda a: run_time_shape.shape(as_tensor(a)),
    np.ndim: lambda a: as_tensor(a).ndim,
    np.size: _size,
    np.real: _real,
    np.imag: _imag,
    np.angle: _angle,
}
_FUNCTIONS.update(ufuncs.FUNCTIONS)  # np.round, np.nan_to_num, np.isclose, np.allclose


# NumPy's wider API, one module per family (each maps NumPy functions to implementations)
_FUNCTIONS.update(numpy_shape.FUNCTIONS)
_FUNCTIONS.update(numpy_reductions.FUNCTIONS)
_FUNCTIONS.update(numpy_products.FUNCTIONS)
_FUNCTIONS.update(numpy_sorting.FUNCTIONS)
_FUNCTIONS.update(linalg.FUNCTIONS)  # np.linalg.cholesky, solve, inv, det
_FUNCTIONS.update(numpy_quantiles.FUNCTIONS)
_FUNCTIONS.update(numpy_calculus.FUNCTIONS)
_FUNCTIONS.update(numpy_take.FUNCTIONS)
_FUNCTIONS.update(numpy_nan_stats.FUNCTIONS)
_FUNCTIONS.update(numpy_editing.FUNCTIONS)
_FUNCTIONS.update(numpy_logic.FUNCTIONS)
_FUNCTIONS.update(numpy_functional.FUNCTIONS)
_FUNCTIONS.update(numpy_histograms.FUNCTIONS)
_FUNCTIONS.update(numpy_sets.FUNCTIONS)

#: the functions whose 0-d results NumPy returns as NumPy scalars (``np.argmax(x)``, ``np.dot(v, v)``,
#: ``np.linalg.det(m)``); the others' are arrays (``np.where``, ``np.copy``, ``np.cov``, views)
_SCALAR_RESULTS = (
    {np.sum, np.prod, np.max, np.amax, np.min, np.amin, np.mean, np.clip, np.angle, np.trace, np.round, np.around,
     np.nan_to_num, np.isclose}
    | set(numpy_reductions.FUNCTIONS) | set(numpy_products.FUNCTIONS) | set(numpy_sorting.FUNCTIONS)
    | set(linalg.FUNCTIONS) | set(numpy_quantiles.FUNCTIONS) | set(numpy_calculus.FUNCTIONS) | set(numpy_take.FUNCTIONS)
    | set(numpy_nan_stats.FUNCTIONS) | {np.fix}
) - {np.cov, np.tensordot}


def supports_ufunc(ufunc: Any) -> bool:
    """Whether a traced call of ``ufunc`` (its ``__call__``) builds graph ops rather than refusing."""
    return isinstance(ufunc, np.ufunc) and (ufunc is np.matmul or ufunc in ufuncs.COMPOSITE_UFUNCS or ufunc in _UFUNCS)
