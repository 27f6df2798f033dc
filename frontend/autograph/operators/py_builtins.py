"""Builtins that must accept tensors: ``range_`` stands for ``range``, ``len_`` for ``len``,
``list_ float_ int_ complex_ bool_ max_ min_ sum_ any_ all_`` for the conversions and folds of the same names,
``isinstance_``/``type_`` for the type Python gives the value a tensor stands for, and
``shape_``/``size_`` for the attributes ``a.shape``/``a.size``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import numpy as np

from kiln.dialects import graph
from kiln.frontend import array_ops, dtypes, list_index, python_modpow, result_kinds, run_time_shape, runtime_checks, trace_context
from kiln.frontend.autograph import staging
from kiln.frontend.autograph.comprehension_lists import PYTHON, StagedList
from kiln.frontend.list_arrays import held_list, ordered_numbers
from kiln.frontend.python_division import python_message
from kiln.frontend.masked import MaskedSelection
from kiln.frontend.tensor import WEAK_OF_KIND, Tensor, as_python_operator, as_scalar, as_tensor, emit, python_number


def range_(*args: Any) -> Any:
    if any(staging.is_tensor(a) for a in args):
        return staging.staged_range(*args)
    return range(*args)


def _count(selection: MaskedSelection) -> Tensor:
    """``len(x[mask])``: the count of selected elements, standing for Python's int."""
    return python_number(selection.count().astype(np.int64))


def list_(*args: Any) -> Any:
    """``list(iterable)``; while tracing, of a long ``range`` or of a list kiln holds as one array, a
    list held as one array (kiln.frontend.list_arrays.held_list: not one traced value per element)."""
    if len(args) == 1 and trace_context.current() is not None:
        held = held_list(args[0])
        if held is not None:
            return held
    return list(*args)


_PYTHON_TYPE_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _python_type(value: Any) -> type:
    """The type of the value ``value`` stands for in Python: a traced Python number's own type, a
    NumPy scalar's (``np.float64``), ``np.ndarray`` for an array (a selection ``x[m]`` too), ``list``
    for a comprehension's list; a value that is a Python number on some paths and a NumPy scalar on
    others is refused naming the line, as its type depends on the path."""
    if isinstance(value, Tensor):
        if value.ndim != 0 or value.shape_source is not None:
            return np.ndarray
        if value.kind_flag is not None:
            raise NotImplementedError(
                f"{trace_context.here()}: the type of this value depends on the path a staged `if` or loop took "
                "(a Python number on some paths, a NumPy scalar on others), so isinstance() and type() of it "
                "have no one answer inside kiln.function; make it one kind on every path (float(x), np.float64(x))"
            )
        if value.weak:
            return _PYTHON_TYPE_OF_KIND[value.dtype.kind]
        return value.dtype.type if value.immutable else np.ndarray
    if isinstance(value, MaskedSelection):
        return np.ndarray
    if isinstance(value, StagedList):
        return list
    return type(value)


def isinstance_(obj: Any, classinfo: Any) -> bool:
    """``isinstance(obj, classinfo)`` of what ``obj`` stands for: ``isinstance(int(x[0]), int)`` is
    True, as ``isinstance(a, np.ndarray)`` of a traced array and ``isinstance(a.sum(), np.float64)``."""
    if not isinstance(obj, (Tensor, MaskedSelection, StagedList)):
        return isinstance(obj, classinfo)
    return issubclass(_python_type(obj), classinfo)


def type_(*args: Any) -> Any:
    """``type(obj)`` of what ``obj`` stands for (see :func:`isinstance_`); ``type(name, bases, dict)`` as Python's."""
    if len(args) == 1 and isinstance(args[0], (Tensor, MaskedSelection, StagedList)):
        return _python_type(args[0])
    return type(*args)


def sorted_(iterable: Any, /, *, key: Any = None, reverse: bool = False) -> Any:
    """``sorted(xs)`` of numbers of one type some of which are traced (a list argument's, ``[float(x[i])
    for ...]``), or of a 1-D tensor: the list of their values in order, each of their type (NumPy's
    sort order: a NaN sorts last); Python's ``sorted`` for anything else, ``key=`` included."""
    if isinstance(iterable, Iterator) and trace_context.current() is not None:
        iterable = list(iterable)  # (a generator or `map(float, x)`: its items, which may be traced)
    if key is not None and isinstance(reverse, bool) and isinstance(iterable, (list, tuple, range)) \
            and trace_context.current() is not None:
        return _sorted_by_key(list(iterable), key, reverse)
    if key is None and isinstance(reverse, bool):
        if isinstance(iterable, Tensor) and iterable.ndim == 1 and iterable.shape[0] is not None:
            values = np.sort(iterable)
            values = values[::-1] if reverse else values
            return [as_scalar(values[i]) for i in range(iterable.shape[0])]
        found = list_index.sorted_numbers(iterable, reverse)
        if found is not None:
            return found
        if list_index.number_types(iterable) > 1:
            raise NotImplementedError(
                f"{trace_context.here()}: sorted() (or list.sort()) of numbers of several types (an int and a "
                "float, say), some traced: Python orders them by value, so which type each position holds "
                "would depend on the data, which kiln cannot give; make them one type first (float(x))"
            )
    return sorted(iterable, key=key, reverse=reverse)


def _sorted_by_key(seq: list[Any], key: Any, reverse: bool) -> list[Any]:
    """``sorted(seq, key=f)`` while tracing: Python's own where no key is traced (on the keys made
    once), else the items in the order of their traced keys (kiln.frontend.list_index.sorted_by_keys)."""
    keys = [_callback(key)(v) for v in seq]
    if not any(run_time_shape.traced(k) for k in keys):
        return [seq[i] for i in sorted(range(len(seq)), key=keys.__getitem__, reverse=reverse)]
    found = list_index.sorted_by_keys(seq, keys, reverse)
    if found is None:
        raise NotImplementedError(
            f"{trace_context.here()}: sorted(..., key=) whose keys are traced orders the items when the call runs; "
            "kiln orders numbers of one type by numeric keys only: sort indices instead "
            "(sorted(range(len(xs)), key=...)) and read the items with them"
        )
    return found


def pow_(base: Any, exponent: Any, modulus: Any = None) -> Any:
    """``pow(base, exponent[, modulus])``: ``base ** exponent``; with a modulus and a traced operand,
    Python's modular exponentiation of ints (kiln.frontend.python_modpow)."""
    if modulus is None or not any(isinstance(x, Tensor) for x in (base, exponent, modulus)):
        return pow(base, exponent, modulus)
    return python_modpow.modpow(base, exponent, modulus)


def len_(value: Any) -> Any:
    """``len(value)``; for a tensor whose first dimension is dynamic, or ``x[mask]``, its runtime
    size as a traced Python int (Python's ``len`` returns an int, whose value a trace does not know)."""
    if isinstance(value, MaskedSelection):
        return _count(value)
    if _kept(value):
        return _count(value.selection())
    if staging.is_tensor(value) and value.ndim and value.shape[0] is None:
        return python_number(run_time_shape.dim(value, 0))  # an int, as Python's len gives
    return len(value)


def shape_(value: Any) -> Any:
    """``value.shape``; of a tensor with sizes known only at run time, a :class:`run_time_shape.Shape`
    giving them as traced Python ints (``Tensor.shape`` has ``None`` there), of ``x[mask]`` its count."""
    if isinstance(value, MaskedSelection):
        return run_time_shape.Shape((_count(value),))
    return run_time_shape.shape(value) if isinstance(value, Tensor) else value.shape


def size_(value: Any) -> Any:
    """``value.size``; the traced element count where a size is known only at run time."""
    if isinstance(value, MaskedSelection):
        return _count(value)
    return run_time_shape.size(value) if isinstance(value, Tensor) else value.size


# ---------------------------------------------------------------------- conversions and folds
# A traced tensor has no Python value, and Python requires float()/int()/bool() to return a
# real float/int/bool, so they cannot be methods of the tensor. Converted code calls these
# instead: on a tensor they return the 0-d tensor NumPy's scalar conversion would give the
# value of; on anything else they are the builtins.


def _scalar(value: Any, what: str) -> Tensor:
    """``value`` as a 0-d tensor: NumPy 2 converts only 0-d arrays to Python scalars."""
    t = as_tensor(value)
    if t.ndim != 0:
        raise TypeError(f"only 0-dimensional arrays can be converted to Python scalars ({what} of {t!r})")
    return t


def float_(*args: Any) -> Any:
    """``float(x)``: a 0-d float64 tensor for a tensor ``x``, promoting as a Python float."""
    if len(args) == 1 and run_time_shape.traced(args[0]):
        return python_number(_scalar(args[0], "float()").astype(np.float64))
    return float(*args)


def int_(*args: Any) -> Any:
    """``int(x)``: a 0-d int64 tensor for a tensor ``x`` (floats truncate toward zero, as ``int`` does),
    promoting as a Python int."""
    if len(args) == 1 and run_time_shape.traced(args[0]):
        x = _scalar(args[0], "int()")
        runtime_checks.integral(x, "int()")
        return python_number(x.astype(np.int64))
    return int(*args)


def complex_(*args: Any) -> Any:
    """``complex(x)`` and ``complex(re, im)`` of tensors: a 0-d complex128 tensor standing for the
    Python complex (``z = complex(a[k], 0.5)`` in a Mandelbrot loop). As Python's ``complex``, a
    complex ``re`` or ``im`` adds its parts crosswise, and a real one is its part exactly (no
    ``re + im*1j``, which turns an infinite ``im`` into a NaN real part)."""
    if not 1 <= len(args) <= 2 or not any(run_time_shape.traced(a) for a in args):
        return complex(*args)
    parts = [_scalar(a, "complex()") for a in args]
    for p in parts:
        if p.dtype.kind not in "biufc":
            raise TypeError(f"complex() argument must be a number, not {p.dtype} ({p!r})")
    first = parts[0]
    re, im = np.real(first), np.imag(first) if first.dtype.kind == "c" else None
    if len(parts) == 2:
        second = parts[1]
        if second.dtype.kind == "c":
            re, second = re - np.imag(second), np.real(second)
        im = second if im is None else im + second
    re = as_tensor(re).astype(np.float64)
    im = as_tensor(0.0 if im is None else im).astype(np.float64)
    z = python_number(emit(graph.ComplexOp(re.value, im.value)))
    z.weak = True  # a Python complex: NEP 50 keeps complex64 arrays complex64
    return z


def bool_(*args: Any) -> Any:
    """``bool(x)``: a 0-d bool tensor (``x != 0``) standing for the Python bool, for a tensor ``x``."""
    if len(args) == 1 and run_time_shape.traced(args[0]):
        return python_number(_scalar(args[0], "bool()").astype(np.bool_))
    return bool(*args)


def _kept(value: Any) -> bool:
    """Whether ``value`` is a comprehension's list of the elements a traced condition keeps."""
    return isinstance(value, StagedList) and value.mask is not None and value.items_unmade()


def _stacked(value: Any) -> bool:
    """Whether ``value`` is a comprehension's list of numbers, all of them stacked in one tensor."""
    return isinstance(value, StagedList) and value.items_unmade() and not isinstance(value.kind, tuple) \
        and value.values.ndim == 1


def _empty(value: Any) -> bool:
    """Whether ``value`` is a comprehension's list of no elements (a loop over no rows): Python's fold of ``[]``."""
    return isinstance(value, StagedList) and value.mask is None and value.items_unmade() and value.values.shape[0] == 0


def _as_element(lst: StagedList, value: Tensor) -> Tensor:
    """A fold of the list's elements, of their kind (a Python number where they are)."""
    return python_number(value) if lst.kind == PYTHON else value


def _filtered_or_default(name: str, lst: StagedList, default: Any) -> Any:
    """``min``/``max`` of a comprehension filtered on traced values, with a ``default``: the
    extreme of the kept items, or ``default`` where none is kept, each of its own type (a kind
    flag where they differ); refused where their dtypes differ (the dtype would be the data's
    choice: ``default=0`` over floats) or ``default`` is no number."""
    if isinstance(default, (bool, int, float, complex, np.generic)):
        dtype = np.asarray(default).dtype
    else:  # a traced number (`default=a[0]`)
        dtype = as_tensor(default).dtype if run_time_shape.traced(default) and as_tensor(default).ndim == 0 else None
    if dtype != lst.values.dtype:
        raise NotImplementedError(
            f"{trace_context.here()}: {name}(..., default=) of a list whose length the data decide returns the "
            f"default or an item, by the data; kiln does so where both are numbers of one dtype (here a default "
            f"of type {type(default).__name__} and {lst.values.dtype} items): write a default of the items' type"
        )
    selection = lst.selection()
    picked = _as_element(lst, getattr(selection, name)())
    kept = np.greater(selection.count(), 0)
    kind = _kind_where(lambda: kept, result_kinds.kind_of(picked), result_kinds.kind_of(default))
    fallback = default if run_time_shape.traced(default) else np.asarray(default, dtype=dtype)
    return result_kinds.with_kind(as_tensor(np.where(kept, picked, fallback)), kind)


def _kind_where(cond: Callable[[], Any], a: int | Tensor, b: int | Tensor) -> int | Tensor:
    """The kind of a value that is ``a``'s where ``cond()`` holds and ``b``'s elsewhere: the one static
    kind where both are it, else a traced flag (``cond`` traced only then). A kind known only per
    call is a tensor, compared first: ``!=`` of two would trace an elementwise test."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor) and a == b:
        return a
    return np.where(cond(), *(k if isinstance(k, Tensor) else np.int8(k) for k in (a, b)))


def _static_length(items: Any) -> int | None:
    """How many items ``items`` yields, where tracing knows it (a list, tuple or range, a traced
    array of a static first size, a comprehension's stacked items); None otherwise (a list whose
    length the data decide: a filter on traced values)."""
    if isinstance(items, (list, tuple, range)):
        return len(items)
    if isinstance(items, Tensor) and items.shape and items.shape[0] is not None:
        return items.shape[0]
    if isinstance(items, StagedList) and items.mask is None and items.items_unmade() and items.values.ndim >= 1:
        return items.values.shape[0]  # (a comprehension's items stacked: one per row)
    return None


def _empty_message(builtin: Any) -> str:
    """Python's own message for ``max([])`` (its words differ between versions)."""
    return python_message(lambda: builtin([]), ValueError)


#: how a key function a builtin calls back runs: AutoGraph-converted (kiln.frontend.autograph.transpiler
#: sets its ``call`` here when it loads; this module cannot import it, which imports this one)
_CALLBACK: list[Callable[[Any], Any]] = [lambda fn: fn]


def converting_callbacks_with(convert: Callable[[Any], Any]) -> None:
    """Make key functions run as ``convert(key)`` (AutoGraph's ``call``)."""
    _CALLBACK[0] = convert


def _callback(fn: Any) -> Any:
    return _CALLBACK[0](fn)


def _by_key(name: str, builtin: Any, items: Any, key: Any) -> Any:
    """``max(items, key=f)`` / ``min`` where some key is traced (``max(range(n), key=lambda i: x[i])``):
    Python's scan, which keeps the first item unless a later one's key compares greater (less),
    staged as selections among the items, which must be numbers of one kind (or tuples of them, picked
    position by position, each position's numbers of one kind); ``NotImplemented``
    where no key is traced (Python's own then runs on the keys already computed)."""
    seq = list(items)
    if not seq:
        raise ValueError(_empty_message(builtin))
    keys = [_callback(key)(v) for v in seq]
    wins = np.greater if name == "max" else np.less
    if not any(run_time_shape.traced(k) for k in keys):
        best = 0
        for i in range(1, len(seq)):
            if wins(keys[i], keys[best]):
                best = i
        return seq[best]
    # items that are tuples of numbers (`max(pairs, key=lambda p: p[1])`) are picked position by position
    tuples = all(isinstance(v, tuple) for v in seq) and len({len(v) for v in seq}) == 1
    columns = [list(c) for c in zip(*seq)] if tuples else [seq]
    kinds = [_one_kind(name, column) for column in columns]
    if any(run_time_shape.traced(k) and as_tensor(k).ndim != 0 for k in keys):
        _refuse_by_key(name)
    pick = as_python_operator(lambda taken, new, old: np.where(taken, new, old))
    result, best_key = [column[0] for column in columns], keys[0]
    for i, k in enumerate(keys[1:], start=1):
        taken = as_python_operator(wins)(k, best_key)
        result = [pick(taken, column[i], r) for column, r in zip(columns, result)]
        best_key = pick(taken, k, best_key)
    picked = [result_kinds.with_kind(as_tensor(r), kind) for r, kind in zip(result, kinds)]
    return tuple(picked) if tuples else picked[0]


def _one_kind(name: str, items: list[Any]) -> int:
    """The one kind of ``items`` that ``max(..., key=)`` picks among (numbers, traced ones 0-d)."""
    each = [result_kinds.kind_of(v) for v in items]  # (a kind decided per call is a traced flag: no set member)
    kinds = set() if any(isinstance(k, Tensor) for k in each) else set(each)
    numbers = all(isinstance(v, (bool, int, float, complex, np.generic, np.ndarray)) or
                  (run_time_shape.traced(v) and as_tensor(v).ndim == 0) for v in items)
    if len(kinds) != 1 or not numbers:
        _refuse_by_key(name)
    return next(iter(kinds))


def _refuse_by_key(name: str) -> NoReturn:
    raise NotImplementedError(
        f"{trace_context.here()}: {name}(..., key=) whose keys are traced picks an item when the call runs; kiln "
        "picks among numbers of one kind only, or tuples of them (an index, a list's numbers): pick an index "
        f"instead ({name}(range(len(xs)), key=...)) and read the item with it"
    )


def _extreme(name: str, builtin: Any, reduce: Any, combine: Any) -> Any:
    def impl(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and "default" in kwargs and trace_context.current() is not None:
            if isinstance(args[0], Iterator):
                args = (list(args[0]),)
            count = _static_length(args[0])
            if count == 0:
                return kwargs["default"]
            if count is not None:  # Python reads `default` only for an empty iterable
                kwargs = {k: v for k, v in kwargs.items() if k != "default"}
            elif set(kwargs) == {"default"} and _stacked(args[0]):
                return _filtered_or_default(name, args[0], kwargs["default"])
        if len(args) == 1 and set(kwargs) == {"key"} and kwargs["key"] is not None and trace_context.current() is not None \
                and isinstance(args[0], (list, tuple, range)):
            return _by_key(name, builtin, args[0], kwargs["key"])
        held = ordered_numbers(args[0]) if len(args) == 1 and not kwargs else None
        if held is not None:  # a list held as one array: one of its numbers, of their type
            return python_number(reduce(held))
        if len(args) == 1 and _empty(args[0]):
            return builtin(args[0].items(), **kwargs)
        if len(args) == 1 and not kwargs and _stacked(args[0]) and args[0].values.shape[0] != 0:
            lst = args[0]
            if lst.mask is None:
                return _as_element(lst, reduce(lst.values))
            selection = lst.selection()
            runtime_checks.require(selection.count() > 0, _empty_message(builtin))
            return _as_element(lst, getattr(selection, name)())
        if len(args) == 1 and isinstance(args[0], Iterator):  # a generator: its items may be tensors
            args = (list(args[0]),)
        items = args[0] if len(args) == 1 else args
        if len(args) == 1 and run_time_shape.traced(items):
            if kwargs:
                raise NotImplementedError(f"{name}(tensor, {', '.join(f'{k}=' for k in kwargs)}) is not supported inside kiln.function")
            t = as_tensor(items)
            if t.ndim != 1:
                raise ValueError(
                    f"{name}() of a tensor of shape {t.shape} compares its rows, whose truth value is ambiguous "
                    f"(as in NumPy); use np.{name}(x) or np.{name}(x, axis=0)"
                )
            return _python_extreme(t, reduce)
        if not isinstance(items, (list, tuple)) or not any(run_time_shape.traced(v) for v in items):
            return builtin(*args, **kwargs)
        if kwargs:
            raise NotImplementedError(f"{name}(..., {', '.join(f'{k}=' for k in kwargs)}) of tensors is not supported inside kiln.function")
        if not items:
            raise ValueError(f"{name}() iterable argument is empty")
        for v in items:
            if run_time_shape.traced(v) and as_tensor(v).ndim != 0:
                raise ValueError(
                    f"{name}() of tensors of shape {as_tensor(v).shape} needs the truth value of an elementwise "
                    f"comparison, which is ambiguous (as in NumPy); use np.{'maximum' if name == 'max' else 'minimum'}"
                )
        result, kind = items[0], result_kinds.kind_of(items[0])
        wins = np.greater if name == "max" else np.less
        for v in items[1:]:
            kind = _kind_where(functools.partial(wins, v, result), result_kinds.kind_of(v), kind)  # Python keeps the first extreme
            result = combine(result, v)
        _one_type(name, items, as_tensor(result).dtype)
        return result_kinds.with_kind(result, kind)

    impl.__name__ = f"{name}_"
    impl.__doc__ = (
        f"``{name}(...)``: Python's, which keeps the first operand unless a later one compares "
        f"{'greater' if name == 'max' else 'less'} (so a NaN after the first is passed over, a NaN first is kept); "
        f"of a 1-D tensor, ``np.nan{name}`` unless its first element is NaN."
    )
    return impl


def _one_type(name: str, items: Any, dtype: np.dtype[Any]) -> None:
    """Python's ``max``/``min`` returns the operand that wins, of its own type. kiln merges them into
    one ``dtype`` (NumPy's promotion), whose kind flag makes a Python number its type again (``0``
    as an int), but not a NumPy scalar (or 0-d array) of another dtype: which type the call returns
    would depend on the data, so kiln refuses it, as it refuses ``a if c else b`` of such values
    (kiln.fuzz python 20800-4266: ``min(np.int64(0), 0.75)`` gave ``np.float64(0.0)``)."""
    for v in items:
        own = v.dtype if isinstance(v, (np.generic, np.ndarray)) or (isinstance(v, Tensor) and not v.weak) else None
        if own is not None and own != dtype:
            raise TypeError(
                f"{trace_context.here()}: {name}() of {'an' if own.name[0] in 'aeiou' else 'a'} {own} NumPy value and values of other types returns, in "
                f"Python, whichever wins with its own type, which the data decide; kiln gives a call's results one "
                f"type. Convert the operands to one type first (float(x), np.float64(x))"
            )


def _python_extreme(t: Tensor, reduce: Any) -> Tensor:
    """Python's ``max``/``min`` of the 1-D tensor ``t``, which keeps the first element unless a later
    one compares greater (less): NaN if the first is NaN, else the extreme of the others, NaNs passed over."""
    if t.dtype.kind != "f":
        return reduce(t)
    first = t[0]
    return as_scalar(np.where(np.isnan(first), first, (np.nanmax if reduce is np.max else np.nanmin)(t)))


def _kept_unless(wins: Any) -> Any:
    """Python's two-operand ``max``/``min``: the first unless the second ``wins`` (compares greater
    or less: never against a NaN, so ``min(1.0, nan)`` is 1.0 and ``min(nan, 1.0)`` NaN)."""
    def combine(first: Any, second: Any) -> Any:
        return np.where(wins(second, first), second, first)

    return combine


# Python's max/min return one of their operands: of Python numbers, a Python number (weak)
max_ = _extreme("max", max, np.max, as_python_operator(_kept_unless(np.greater)))
min_ = _extreme("min", min, np.min, as_python_operator(_kept_unless(np.less)))


def sum_(iterable: Any, /, start: Any = 0) -> Any:
    """``sum(x, start)`` of a tensor: ``start`` plus the sum over its first axis, in the dtype of Python's
    left-to-right additions (the element dtype with ``start`` weak: ``sum`` of int32 stays int32)."""
    if _stacked(iterable) and iterable.values.shape[0] != 0 and not run_time_shape.traced(start):
        return _sum_of_list(iterable, start)
    held = ordered_numbers(iterable)
    if held is not None and type(start) in (bool, int, float):  # a list held as one array: Python numbers added
        if held.dtype.kind == "f" or type(start) is float:  # left to right from ``start``, as Python rounds
            return python_number(_running_sum(held, None, True, start))
        return python_number(as_tensor(np.add(start, held.sum())))
    if _kept(iterable) and run_time_shape.traced(start):
        iterable.refuse(
            "`sum` of it from a traced `start` (kiln adds the kept elements to a start known while tracing; "
            "where the condition keeps none, Python's sum is the traced start itself, that very object)"
        )
    if not run_time_shape.traced(iterable) or _empty(iterable):
        return sum(iterable, start)
    t = as_tensor(iterable)
    if t.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    key = as_tensor(start).dtype if run_time_shape.traced(start) else start.dtype if isinstance(start, (np.ndarray, np.generic)) else start
    dt = dtypes.result_type(t.dtype, key)  # a Python number is weak
    return np.add(start, array_ops.reduce("sum", t, 0, False, dt))


def _sum_of_list(lst: StagedList, start: Any) -> Any:
    """``sum(lst, start)`` of a comprehension's numbers: ``start`` plus their sum, of the type Python's
    additions give; where a condition keeps none, ``start`` itself (its kind too: the int ``0``)."""
    if lst.values.dtype.kind in "fc" or type(start) in (float, complex):
        total = _running_sum(lst.values, lst.mask, lst.kind == PYTHON, start)
    else:  # integers: any order gives Python's answer
        values = lst.values if lst.mask is None else lst.selection()
        total = as_tensor(np.add(start, _as_element(lst, as_tensor(values.sum(axis=0)))))
    if lst.kind == PYTHON and type(start) in (bool, int, float, complex):
        total = python_number(total)  # Python numbers added: a Python number
    if lst.mask is None:
        return total
    kept, empty = result_kinds.static_kind(total), result_kinds.static_kind(start)
    if kept == empty:
        return total
    return result_kinds.with_kind(total, as_tensor(np.where(lst.selection().count() > 0, np.int8(kept), np.int8(empty))))


def _running_sum(values: Any, mask: Any, python: bool, start: Any) -> Tensor:
    """``start`` plus the rows of ``values`` one at a time, left to right, as Python's ``sum`` rounds
    (a pairwise or vector sum differs in the last bits); a row ``mask`` drops adds ``-0.0``, which
    changes no sum. ``python``: the elements are Python numbers, weak to promotion."""
    if mask is not None:
        keep = mask.reshape(mask.shape + (1,) * (values.ndim - 1))
        values = np.where(keep, values, np.array(-0.0, values.dtype))
    first = np.broadcast_to(np.asarray(start), values.shape[1:])[None]
    element = WEAK_OF_KIND[values.dtype.kind] if python else values.dtype
    dt = dtypes.result_type(element, start)
    running = np.cumsum(np.concatenate([first.astype(dt), values.astype(dt)]), axis=0)
    return as_tensor(running[-1])


def _truth_fold(name: str, builtin: Any, reduce: Any, combine: Any) -> Any:
    def impl(iterable: Any, /) -> Any:
        if _empty(iterable):
            return builtin(iterable)
        if _kept(iterable) and not isinstance(iterable.kind, tuple) and iterable.values.ndim == 1:
            return python_number(getattr(iterable.selection(), name)())
        if isinstance(iterable, Iterator):  # a generator: its items may be tensors
            iterable = list(iterable)
        if run_time_shape.traced(iterable):
            t = as_tensor(iterable)
            if t.ndim == 0:
                raise TypeError("iteration over a 0-d array")
            if t.ndim != 1:
                raise ValueError(
                    f"{name}() of a tensor of shape {t.shape} takes the truth value of its rows, which is ambiguous "
                    f"(as in NumPy); use np.{name}(x) or np.{name}(x, axis=0)"
                )
            return python_number(reduce(t))
        if not isinstance(iterable, (list, tuple)) or not any(run_time_shape.traced(v) for v in iterable):
            return builtin(iterable)
        result: Any = builtin(())
        for v in iterable:
            if not run_time_shape.traced(v):
                result = combine(result, bool(v))
                continue
            if as_tensor(v).ndim != 0:
                raise ValueError(
                    f"{name}() of tensors of shape {as_tensor(v).shape} needs the truth value of each, which is "
                    f"ambiguous (as in NumPy); use np.{name}"
                )
            result = combine(result, as_tensor(v).astype(np.bool_))
        return python_number(result)

    impl.__name__ = f"{name}_"
    impl.__doc__ = (
        f"``{name}(...)``: of a 1-D tensor, ``np.{name}``; of 0-d tensors and Python values (a list, a tuple "
        f"or a generator, evaluated whole: a trace has no value to stop early at), their truth values folded "
        f"with ``np.logical_{'or' if name == 'any' else 'and'}``; a Python bool where nothing is traced."
    )
    return impl


any_ = _truth_fold("any", any, np.any, np.logical_or)
all_ = _truth_fold("all", all, np.all, np.logical_and)
