"""Trace-cache keys: which calls can share one compiled function.

The rules (docs/semantics.md):

* NumPy arrays and NumPy scalars are tensors: ``(dtype, shape)`` and their abstract value
  (kiln.frontend.abstract_value: a NumPy scalar is immutable, an array is not).
* A list is a Python list (docs/python-semantics.md): its structure is part of the key, and
  its Python numbers are traced Python numbers (kiln.frontend.list_numbers), keyed by type:
  ``[1.0]`` and ``[2.0]`` share a trace, ``[1.0, 2.0]`` and ``[1, 2.0]`` retrace. Tuples and
  dicts keep their numbers as constants (keyed by value).
* ``kiln.Variable``: identity, dtype and shape (the function reads the
  variable's own buffer, so its value is not part of the key).
* Objects that hash by identity (instances of classes without ``__eq__``,
  such as a decorated method's ``self``) are keyed by identity and held
  weakly, so a cache never keeps an instance alive.
* Other hashable values (Python scalars, strings, ...) by type and value.
* Tuples, lists and dicts: their structure and their elements' keys.

``TensorSpec`` stands for a tensor with ``None`` (dynamic) dims, or of any rank
(``shape=None``: one trace for every rank, see :mod:`kiln.frontend.unknown_rank`).

A call of one kiln.function while another is traced (kiln.frontend.calls) is keyed by the same
:func:`leaf_key`, with ``in_trace=True``: its arguments are then the caller's traced arrays, keyed
by IR type and abstract value, and a NumPy array or scalar is a constant of the caller's trace
(an array by its contents).
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType

from kiln.dialects.graph import tensor_type
from kiln.frontend import array_types, pytree
from kiln.frontend.abstract_value import PLAIN, AbstractValue, abstract_of
from kiln.frontend.dtypes import SUPPORTED, to_element, unsupported_argument
from kiln.frontend.index_facts import Facts
from kiln.frontend.list_numbers import ListNumber, NumberList, lift_list_numbers
from kiln.frontend.tensor import Tensor

@dataclass(frozen=True)
class TensorSpec:
    """The type of a tensor argument: ``shape`` with ``None`` for dynamic dims
    (``shape=None`` for any rank), and a dtype (default float32)."""

    shape: tuple[int | None, ...] | None
    dtype: np.dtype

    def __init__(self, shape: Sequence[int | None] | None, dtype: Any = "float32"):
        object.__setattr__(self, "shape", None if shape is None else tuple(shape))
        object.__setattr__(self, "dtype", np.dtype(dtype))

    @classmethod
    def from_value(cls, value: Any) -> TensorSpec:
        arr = np.asarray(value)
        return cls(arr.shape, arr.dtype)

    def mismatch(self, value: Any) -> str | None:
        """Why ``value`` cannot be passed for this spec (None when it can).

        NumPy values must have exactly this dtype; Python numbers and lists of them
        convert when NumPy calls that cast safe (``same_kind``: 1.0 fits float32)."""
        if isinstance(value, TensorSpec):
            dtype, shape = value.dtype, value.shape
        else:
            arr = np.asarray(value)
            dtype, shape = arr.dtype, arr.shape
            if not isinstance(value, (np.ndarray, np.generic)) and np.can_cast(dtype, self.dtype, "same_kind"):
                dtype = self.dtype
        if dtype != self.dtype:
            return f"dtype {dtype} is not {self.dtype}"
        if self.shape is None:
            return None
        if shape is None or len(shape) != len(self.shape):
            return f"rank {'any' if shape is None else len(shape)} is not {len(self.shape)}"
        for axis, (want, got) in enumerate(zip(self.shape, shape)):
            if want is not None and want != got:
                return f"dimension {axis} is {'dynamic' if got is None else got}, not {want}"
        return None

    def tensor_type(self) -> TensorType:
        """The traced argument's type; for ``shape=None``, its flattened data ``tensor<?xT>``
        (the call flattens the argument, see kiln.frontend.unknown_rank)."""
        dims = (None,) if self.shape is None else self.shape
        return tensor_type(to_element(self.dtype), [-1 if d is None else d for d in dims])

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name})"


class WeakIdentity:
    """A key part that matches only its own object (by identity) and does not keep it alive."""

    __slots__ = ("ref", "ref_id", "kind")

    def __init__(self, obj: Any, kind: str):
        self.ref = weakref.ref(obj)
        self.ref_id = id(obj)
        self.kind = kind

    def __hash__(self) -> int:
        return self.ref_id

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WeakIdentity):
            return NotImplemented
        obj = self.ref()
        return other is self or (obj is not None and obj is other.ref())

    def __repr__(self) -> str:
        obj = self.ref()
        return f"<{self.kind} {type(obj).__name__ if obj is not None else 'deleted'} at {self.ref_id:#x}>"


def is_tensor_value(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic, ListNumber, NumberList))


@dataclass(frozen=True)
class CallSignature:
    """What a call looks like to the cache: its key and its tensor leaves' specs."""

    #: ``((position or keyword, (tree, leaf keys)), ...)``: one entry per top-level argument
    key: tuple[tuple[int | str, Any], ...]
    specs: tuple[TensorSpec, ...]
    #: args/kwargs with each tensor leaf replaced by pytree.TENSOR_SLOT
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    #: the tensor leaves (by index) that are NumPy scalars: immutable, as in NumPy
    scalars: tuple[int, ...] = ()
    #: the tensor leaves (by index) that are Python numbers of a list argument (immutable and weak)
    numbers: tuple[int, ...] = ()
    #: the tensor leaves (by index) that are list arguments of Python numbers of one type (1-d)
    number_lists: tuple[int, ...] = ()
    #: ``(j, i)``: tensor leaf ``j`` is the same array as leaf ``i`` (a function writing one sees it in both)
    aliases: tuple[tuple[int, int], ...] = ()
    #: ``(i, strides)``: tensor leaf ``i`` is not C-contiguous and has these element strides (see
    #: ConcreteFunction.layout_arguments: only for arguments whose layout the trace depends on)
    layouts: tuple[tuple[int, tuple[int, ...]], ...] = ()

    def detached(self) -> CallSignature:
        """This signature without the call's Python values (what a cached function keeps,
        so that caching never keeps a ``self`` or another argument alive)."""
        return replace(self, args=tuple(_strip(a) for a in self.args), kwargs=_strip(self.kwargs))


def _strip(obj: Any) -> Any:
    """``obj`` with every leaf but the tensor slots replaced by None."""
    leaves, tree = pytree.flatten(obj)
    return pytree.unflatten(tree, iter([x if x is pytree.TENSOR_SLOT else None for x in leaves]))


def leaf_key(leaf: Any, *, in_trace: bool = False) -> Any:
    """One leaf's part of the cache key (see the module docstring): a tensor by its type and
    abstract value, a constant by :func:`constant_key`. ``in_trace``: the key of a call between
    kiln.functions while one is traced (kiln.frontend.calls), whose tensors are the caller's traced
    arrays (None for one whose abstract value holds only in its trace: the callee is then traced
    into the caller); a NumPy array or scalar is then a constant of the caller's trace."""
    from kiln.frontend.variables import Variable  # variables imports the tracer: imported late

    if isinstance(leaf, Tensor):
        aval = portable(leaf.aval)
        if aval is None or not static_type(leaf.type) or leaf.storage.stale is not None:
            return None
        return ("tensor", leaf.type, aval, plain_array(leaf))
    if in_trace and isinstance(leaf, np.ndarray):
        if type(leaf) is np.ndarray and not leaf.dtype.hasobject:
            return ("array", leaf.dtype.str, leaf.shape, hashlib.sha256(np.ascontiguousarray(leaf).data).digest())
        return ("object", id(leaf))  # (the caller keeps it alive while the key is)
    if in_trace and isinstance(leaf, np.generic):
        return ("value", type(leaf), constant_key(leaf))
    if isinstance(leaf, np.ndarray):
        return ("tensor", leaf.dtype.str, leaf.shape, PLAIN)
    if isinstance(leaf, np.generic):  # immutable, unlike a 0-d array: `x += 1` rebinds
        return ("scalar", leaf.dtype.str, _SCALAR)
    if isinstance(leaf, TensorSpec):
        return ("tensor", leaf.dtype.str, leaf.shape, PLAIN)
    if isinstance(leaf, ListNumber):
        return ("number", type(leaf.value))
    if isinstance(leaf, NumberList):
        return ("numbers", leaf.kind, leaf.shape)
    if isinstance(leaf, Variable):
        return ("variable", WeakIdentity(leaf, "kiln.Variable"), leaf.dtype.str, leaf.shape)
    cls = type(leaf)
    if cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__:
        try:
            return ("object", WeakIdentity(leaf, "object"))
        except TypeError:  # no weak references to it: keyed (and kept) as a value
            pass
    try:
        hash(leaf)
    except TypeError:
        if in_trace:  # (the caller keeps it alive while the key is)
            return ("object", id(leaf))
        raise TypeError(
            f"kiln.function: argument of type {cls.__name__} is neither an array nor hashable; "
            "pass NumPy arrays, Python scalars, or hashable values"
        ) from None
    # bool/int/float are equal across types (1 == 1.0 == True): key by type too
    return ("value", cls, constant_key(leaf))


#: the abstract value of a NumPy scalar argument (immutable: ``s += 1`` rebinds)
_SCALAR = abstract_of(np.float64(0))

#: the types whose zeros and NaNs :func:`constant_key` keys by ``repr``
_INEXACT = frozenset({float, complex, np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128,
                      np.clongdouble})


def constant_key(value: Any) -> Any:
    """``value`` as a trace cache key: itself, except a float or complex zero or NaN (Python's or
    NumPy's), keyed by its ``repr``. ``-0.0 == 0.0`` (``x / s`` differs: -inf against inf) and a
    NaN equals nothing (each call with a new one would trace again)."""
    if type(value) in _INEXACT:
        return value if value == value and value != 0 else repr(value)
    return value


def portable(aval: AbstractValue) -> AbstractValue | None:
    """``aval`` as it holds in another trace (a callee's argument or a caller's result): bounds of
    an integer kept, its relation to a value of this trace dropped, in no array yet (the other
    trace's arrays are its own); None for facts tied to this trace (a merged value's run-time kind
    flag or per-path promotions, an unknown rank)."""
    if aval.kind_flag is not None or aval.path_promotions is not None or aval.shape_source is not None:
        return None
    facts = aval.facts
    if isinstance(facts, Facts) and facts.base is not None:
        aval = aval.but(facts=Facts(facts.lo, facts.hi))
    return aval.in_memory_of(PLAIN)


def static_type(ty: Any) -> bool:
    """Whether ``ty`` is a tensor type of static sizes."""
    return isinstance(ty, TensorType) and all(d >= 0 for d in ty.get_shape())


def plain_array(tensor: Tensor) -> bool:
    """Whether ``tensor`` is a C-contiguous array of its own (not a view, not strided memory): the
    layout of a view or of strided memory is its trace's to know."""
    return not tensor.is_view and tensor.storage.base_layout() is None


def _arg_key(arg: Any) -> tuple[pytree.TreeDef, tuple[Any, ...]]:
    leaves, tree = pytree.flatten(arg)
    return tree, tuple(leaf_key(leaf) for leaf in leaves)


def _check_dtypes(args: Sequence[Any], kwargs: dict[str, Any], arg_name: Callable[[int | str], str] | None) -> None:
    """Raise the error naming the first argument whose array (or spec) has a dtype kiln lacks."""
    for position, arg in [*enumerate(args), *kwargs.items()]:
        leaves, _ = pytree.flatten(arg)
        for leaf in leaves:
            if is_tensor_value(leaf) or isinstance(leaf, TensorSpec):
                if leaf.dtype not in SUPPORTED:
                    name = arg_name(position) if arg_name is not None else str(position)
                    inner = "" if leaf is arg else " (an array inside it)"
                    raise unsupported_argument(leaf.dtype, f"'{name}'{inner}")


def signature_of(
    args: Sequence[Any], kwargs: dict[str, Any], arg_name: Callable[[int | str], str] | None = None
) -> CallSignature:
    """Key for a call with concrete values (or TensorSpecs standing for tensors); ``arg_name``
    names a position (or keyword) in the error for an argument of an unsupported dtype."""
    args, kwargs = lift_list_numbers(tuple(args)), lift_list_numbers(kwargs)
    _check_dtypes(args, kwargs, arg_name)
    leaves, tree = pytree.flatten((tuple(args), kwargs))
    specs: list[TensorSpec] = []
    slotted: list[Any] = []
    scalars: list[int] = []
    numbers: list[int] = []
    number_lists: list[int] = []
    for leaf in leaves:
        if isinstance(leaf, (np.generic, ListNumber)):
            scalars.append(len(specs))
        if isinstance(leaf, ListNumber):
            numbers.append(len(specs))
        if isinstance(leaf, NumberList):
            number_lists.append(len(specs))
        if isinstance(leaf, np.ndarray) and type(leaf) is not np.ndarray:
            _check_argument(leaf, args, kwargs, arg_name)
        if is_tensor_value(leaf) or isinstance(leaf, TensorSpec):
            spec = leaf if isinstance(leaf, TensorSpec) else TensorSpec.from_value(leaf)
            specs.append(spec)
            slotted.append(pytree.TENSOR_SLOT)
        else:
            slotted.append(leaf)
    key = tuple((i, _arg_key(a)) for i, a in enumerate(args)) + tuple((k, _arg_key(v)) for k, v in kwargs.items())
    new_args, new_kwargs = pytree.unflatten(tree, iter(slotted))
    return CallSignature(key=key, specs=tuple(specs), args=tuple(new_args), kwargs=new_kwargs, scalars=tuple(scalars),
                         numbers=tuple(numbers), number_lists=tuple(number_lists))


def _check_argument(
    leaf: np.ndarray, args: Sequence[Any], kwargs: dict[str, Any], arg_name: Callable[[int | str], str] | None
) -> None:
    """Refuse an ndarray subclass among the arguments (kiln.frontend.array_types), naming its argument."""
    for position, arg in [*enumerate(args), *kwargs.items()]:
        if any(x is leaf for x in pytree.flatten(arg)[0]):
            name = arg_name(position) if arg_name is not None else str(position)
            array_types.check_plain_array(leaf, f"argument '{name}'" + ("" if arg is leaf else " (inside it)"))


def tensor_leaves(args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    """The tensor arguments of a call, in the order the compiled function takes them."""
    leaves, _ = pytree.flatten(lift_list_numbers((tuple(args), kwargs)))
    return [leaf for leaf in leaves if is_tensor_value(leaf)]
