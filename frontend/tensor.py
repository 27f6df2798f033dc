"""``Tensor``: the symbolic array a traced function sees, and the ops every other module builds on.

A ``Tensor`` wraps one SSA value of builtin tensor type. It has NumPy's
attributes (``shape``, ``dtype``, ``ndim``, ...) and operators; each operator
calls the matching NumPy ufunc (``x + y`` is ``np.add(x, y)``), which NumPy
hands back to :mod:`kiln.frontend.numpy_dispatch` through ``__array_ufunc__``,
so operators and NumPy's functions share one implementation. A traced tensor
has no value, so every conversion to a Python value raises.

The modules implementing indexing and NumPy's protocols build on this one, so
``Tensor`` does not import them: it calls them through :data:`_PROTOCOLS`, a
table they fill with :func:`implements` when imported (``kiln.frontend``
imports them, so the table is full before any trace).

A tensor derived from a ``kiln.TensorSpec(shape=None)`` argument has unknown
rank (:mod:`kiln.frontend.unknown_rank`): its ``shape`` and ``ndim`` are
``None``, its value is the flattened data, and :func:`shape_of` refuses it, so
an op that needs the rank cannot mistake it for a vector.

The module-level helpers (:func:`as_tensor`, :func:`cast`, :func:`broadcast_to`,
:func:`reshape_to`) append ops to the trace in progress; the ``cast``,
``broadcast_to`` and ``reshape_to`` helpers emit nothing when nothing changes.
"""

from __future__ import annotations

import dis
import math
import operator
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar

import numpy as np
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Operation, SSAValue

from kiln.dialects import graph
from kiln.frontend import array_types, dtypes, mutation, shape_sources, trace_context
from kiln.frontend.abstract_value import Fact, in_array

#: trace note: an in-place operator rebound a NumPy scalar argument (see ConcreteFunction.native_entry)
IMMUTABLE_REBOUND = "kiln.tensor.immutable_rebound"

#: trace note: the arguments (tensor leaf indices) whose memory layout the trace asked about
LAYOUT_ARGUMENTS = mutation.LAYOUT_ARGUMENTS

#: Python values that become tensors in arithmetic (anything else yields ``NotImplemented``)
_ARRAY_LIKE = (np.ndarray, np.generic, bool, int, float, complex, list, tuple)

#: ``Tensor``'s protocols implemented in modules that import this one, by the implementing function's
#: name: ``getitem``/``setitem`` (kiln.frontend.indexing), ``array_ufunc``/``array_function``
#: (kiln.frontend.numpy_dispatch), ``integral`` (kiln.frontend.runtime_checks), ``flat``/``tolist``
#: (kiln.frontend.numpy_iteration)
_PROTOCOLS: dict[str, Callable[..., Any]] = {}

_F = TypeVar("_F", bound=Callable[..., Any])


def implements(fn: _F) -> _F:
    """Make ``fn`` the implementation ``Tensor`` calls by its name (see :data:`_PROTOCOLS`)."""
    _PROTOCOLS[fn.__name__] = fn
    return fn


#: NumPy's `array ** scalar` fast paths for float and complex arrays (an exact Python int 2 or
#: -1, float 0.5), whose loops round differently from np.power's (a complex square fuses its
#: products, np.power's integer powers do not)
_FAST_POWERS: dict[tuple[type, Any], np.ufunc] = {(int, 2): np.square, (int, -1): np.reciprocal, (float, 0.5): np.sqrt}


def array_power(x: Any, exponent: Any) -> Any:
    """NumPy's ``array ** exponent`` of a traced array or masked selection ``x``: a fast path's
    one-operand ufunc for a float or complex array, else ``np.power`` (always for a Python number,
    whose power Python checks: kiln.frontend.python_division)."""
    python_number = isinstance(x, Tensor) and x.weak and x.ndim == 0 and in_python_operator()
    if x.dtype.kind in "fc" and type(exponent) in (int, float) and (type(exponent), exponent) in _FAST_POWERS \
            and not python_number:
        return _FAST_POWERS[type(exponent), exponent](x)
    return np.power(x, exponent)


class _Memo:
    """A tensor's cache, not its meaning (that is its abstract value): a view's value as last
    replayed from its storage (``value``) and the storage version then (``seen``), and the version
    this tensor's last write left (``wrote``: :meth:`Tensor.is_write_of`)."""

    __slots__ = ("value", "seen", "wrote")

    def __init__(self, value: SSAValue, seen: int) -> None:
        self.value, self.seen, self.wrote = value, seen, 0


class Rows:
    """The iterator ``iter(a)`` of a tensor ``a`` whose leading size is known while tracing: row
    ``position`` next, read when asked for. A loop over it (or over ``enumerate``/``zip`` of it) is
    staged over its rows (kiln.frontend.autograph.staging.staged_rows)."""

    def __init__(self, array: Tensor, count: int) -> None:
        self.array, self.count, self.position = array, count, 0

    def __iter__(self) -> Rows:
        return self

    def __next__(self) -> Any:
        if self.position >= self.count:
            raise StopIteration
        self.position += 1
        return self.array[self.position - 1]

    def __length_hint__(self) -> int:
        return self.count - self.position


class Tensor:
    """A traced array: NumPy's interface over one SSA value of tensor type and its abstract value."""

    __slots__ = ("aval", "_memo")

    # Tensors are unhashable, like ndarrays: ``==`` builds a tensor.
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, value: SSAValue, shape_source: int | None = None, *, storage: mutation.Storage | None = None):
        if not isinstance(value.type, TensorType):
            raise TypeError(f"kiln.Tensor wraps a value of tensor type, got {value.type}")
        storage = mutation.Storage(value) if storage is None else storage
        #: everything tracing knows of this value beyond its IR type, the array memory it is or
        #: shows included (kiln.frontend.abstract_value)
        self.aval = in_array(storage, shape_source)
        self._memo = _Memo(value, storage.version)

    # The abstract value's facts, read and set as attributes (kiln.frontend.abstract_value has their
    # meanings); ``immutable`` is its ``scalar``: a NumPy scalar.
    shape_source = Fact("shape_source")
    weak = Fact("weak")
    immutable = Fact("scalar")
    readonly = Fact("readonly")
    facts = Fact("facts")
    path_promotions = Fact("path_promotions")
    kind_flag = Fact("kind_flag")
    origin = Fact("origin")

    @property
    def value(self) -> SSAValue:
        """The SSA value of this array's contents now (a view replays its chain when its base changed)."""
        aval = self.aval
        storage = aval.storage
        if not aval.steps:
            return storage.value  # type: ignore[union-attr]
        if storage.alias is not None:  # a view of an array a staged construct merged: reads are checked as
            storage.alias.check_read()  # the base's (its value may be from before the outer was written)
        memo = self._memo
        stale = memo.seen != storage.version
        if stale or (not trace_context.visible(memo.value) and trace_context.visible(storage.value)):
            # (a view last shown inside a staged region that has ended is shown again where it is used)
            parent = Tensor(storage.value)
            for step in aval.steps:
                parent = step.forward(parent)
            memo.value, memo.seen = parent.value, storage.version
        return memo.value

    @property
    def type(self) -> TensorType:
        """The tensor type of :attr:`value`, without replaying a view (its type never changes)."""
        aval = self.aval
        return (self._memo.value if aval.steps else aval.storage.value).type  # type: ignore[return-value,union-attr]

    # ------------------------------------------------------------------ views and writes

    def make_view(self, step: mutation.ViewStep, shown: Tensor | None = None) -> Tensor:
        """A view of this tensor: the same storage, one more step in the chain (``shown``: the
        step's result, when the caller already built it). Of a NumPy scalar, NumPy makes a new
        array (``s.reshape(1, 1)``, ``s[None]``), or a scalar where the result is 0-d: never a view."""
        shown = step.forward(self) if shown is None else shown
        if self.immutable:
            return as_scalar(Tensor(shown.value, self.shape_source))
        out = Tensor(shown.value, self.shape_source, storage=self.storage)
        steps = self.aval.steps
        joined = steps[-1].then(step) if steps else None
        out.aval = out.aval.but(readonly=self.readonly, steps=(*steps[:-1], joined) if joined else (*steps, step))
        return out

    @property
    def storage(self) -> mutation.Storage:
        """The array memory this tensor is or shows (its abstract value's)."""
        return self.aval.storage  # type: ignore[return-value]

    @property
    def is_view(self) -> bool:
        return bool(self.aval.steps)

    def is_contiguous(self) -> bool:
        """Whether this array is C-contiguous in NumPy (a base is; a view when its chain keeps it).
        Of an argument's memory, the trace depends on the argument's layout: noted, so that a
        non-contiguous argument is traced with its strides (``Storage.layout``)."""
        storage = self.storage
        if storage.argument is not None:
            mutation.note_layout_arguments((storage.argument,))
        layout = storage.base_layout()
        if layout is not None:
            return self._strided_contiguous(layout)
        shape = shape_of(Tensor(storage.value))
        steps = self.aval.steps
        strides = self._view_strides(c_strides(shape)) if steps and -1 not in shape else None
        if strides is not None:
            return c_contiguous(shape_of(self), strides)  # NumPy's rule: `a.T` of 1xN is C-contiguous
        for step in steps:
            if not step.keeps_contiguous(shape):
                return False
            shape = step.out_shape(shape)
        return True

    def element_strides(self) -> tuple[int, ...] | None:
        """NumPy's strides of this array in elements, from its base's (an argument's layout, else
        C-contiguous) through its view chain; None where a step or a size is not known. Of an
        argument's memory, noted like :meth:`is_contiguous`."""
        storage = self.storage
        if storage.argument is not None:
            mutation.note_layout_arguments((storage.argument,))
        base_shape = shape_of(Tensor(storage.value))
        if -1 in base_shape:
            return None
        layout = storage.base_layout()
        return self._view_strides(layout if layout is not None else c_strides(base_shape))

    def _view_strides(self, layout: tuple[int, ...]) -> tuple[int, ...] | None:
        """This view's element strides when its base has the element strides ``layout``; None
        where a step's are not known."""
        shape = shape_of(Tensor(self.storage.value))
        strides: tuple[int, ...] | None = layout
        for step in self.aval.steps:
            strides = step.view_strides(shape, strides)
            if strides is None:
                return None
            shape = step.out_shape(shape)
        return strides

    def _strided_contiguous(self, layout: tuple[int, ...]) -> bool:
        """:meth:`is_contiguous` of a view of a base with the element strides ``layout``."""
        strides = self._view_strides(layout)
        return strides is not None and c_contiguous(shape_of(self), strides)

    def overwrite(self, new: Tensor) -> None:
        """Make ``new`` (this tensor's shape and dtype) its contents, through the view chain to the base."""
        if self.immutable:
            raise TypeError(f"'numpy.{self.dtype}' object does not support item assignment (a NumPy scalar)")
        if self.readonly:
            raise ValueError(f"{trace_context.here()}: assignment destination is read-only")
        assert new.value.type == self.value.type, (new.value.type, self.value.type)
        storage, steps = self.storage, self.aval.steps
        if steps:
            parents = [Tensor(storage.value)]
            for step in steps[:-1]:
                parents.append(step.forward(parents[-1]))
            for step, parent in zip(reversed(steps), reversed(parents)):
                new = step.inverse(parent, new)
        mutation.write(storage, new.value)
        self._memo.wrote = storage.version

    def is_write_of(self, target: Tensor, key: Any) -> bool:
        """Whether this is ``target[key]`` just written in place (``target[key] op= v``): the
        setitem Python then calls would write the same values again."""
        storage = self.storage
        return (
            storage is target.storage and self._memo.wrote == storage.version
            and self.origin == (id(target), key_signature(key))
        )

    def copy(self, order: str = "C") -> Tensor:
        """A new array with the same contents (free while tracing: values are immutable)."""
        if order not in ("C", "K", "A"):
            raise NotImplementedError(f"x.copy(order={order!r}) is not supported inside kiln.function")
        if not self.immutable and trace_context.current() is not None:
            mutation.check_contents_read(self.storage)  # (no op reads the contents: the copy is the same value)
        new = Tensor(self.value, self.shape_source)
        if order == "K" or (order == "A" and self.is_fortran_contiguous()):
            follow_layout(new, [self])
        return new

    def is_fortran_contiguous(self) -> bool:
        """NumPy's F-contiguity (``order='A'`` copies such an array in Fortran order)."""
        strides = self.element_strides()
        return strides is not None and c_contiguous(shape_of(self)[::-1], strides[::-1])

    def __setitem__(self, key: Any, value: Any) -> None:
        _PROTOCOLS["setitem"](self, key, value)

    def _inplace(self, ufunc: np.ufunc, other: Any) -> Tensor:
        """``self op= other``: NumPy's ``ufunc(self, other, out=self)``."""
        if not _operand(other):
            return NotImplemented  # type: ignore[return-value]
        if self.immutable:  # the same code on a 0-d array would write it: no fast path may mix them
            if self.storage.argument is not None:
                trace_context.require().notes[IMMUTABLE_REBOUND] = True
            return ufunc(self, other)
        _PROTOCOLS["array_ufunc"](ufunc, "__call__", (self, other), {"out": (self,)})
        return self

    # ------------------------------------------------------------------ attributes

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        """Dimensions as ints; ``None`` for a dimension known only when the function runs,
        and ``None`` as a whole when the rank is unknown."""
        if self.shape_source is not None:
            return None
        return tuple(None if d < 0 else d for d in graph.shape_of(self.type))

    @shape.setter
    def shape(self, new_shape: int | Sequence[int]) -> None:
        """``a.shape = s``: this array object becomes a view of its memory with shape ``s``; as in
        NumPy, only where no copy is needed (a C-contiguous array)."""
        if self.immutable:
            raise AttributeError("cannot set the shape of a NumPy scalar")
        if self.storage.argument is not None and not self.is_view:
            raise NotImplementedError(
                "setting .shape of an argument array inside kiln.function is not supported: in Python it reshapes "
                "the caller's array object, which compiled code cannot do; use x = x.reshape(...)"
            )
        view = np.reshape(self, new_shape)
        if not isinstance(view, Tensor) or view.storage is not self.storage:
            raise AttributeError("Incompatible shape for in-place modification. Use `.reshape()` to make a copy with the desired shape.")
        self.aval = self.aval.but(steps=view.aval.steps)
        self._memo.value, self._memo.seen = view.value, view._memo.seen

    @property
    def dtype(self) -> np.dtype[Any]:
        return dtypes.from_element(graph.element_of(self.type))

    @property
    def ndim(self) -> int | None:
        """The rank; ``None`` when unknown."""
        return None if self.shape_source is not None else len(graph.shape_of(self.type))

    @property
    def size(self) -> int | None:
        """Number of elements; ``None`` when a dimension (or the rank) is unknown."""
        dims = graph.shape_of(self.value)
        return None if any(d < 0 for d in dims) else math.prod(dims)

    @property
    def T(self) -> Tensor:
        return np.transpose(self)

    def __len__(self) -> int:
        if self.shape_source is not None:
            raise shape_sources.rank_error(self.shape_source, "len()")
        dims = graph.shape_of(self.value)
        if not dims:
            raise TypeError("len() of unsized object (a 0-d kiln tensor)")
        if dims[0] < 0:
            raise TypeError(f"len() of {self!r}: its first dimension is dynamic; use x.shape[0] after kiln.function")
        return dims[0]

    def __getattr__(self, name: str) -> Any:
        """An attribute kiln's arrays lack (normal lookup failed): named, with the user's line.
        Still an AttributeError, so ``hasattr`` and ``getattr(x, name, default)`` keep working."""
        if name.startswith("_"):
            raise AttributeError(name)
        where = trace_context.here()
        python_type = {"bool": bool, "int": int, "float": float, "complex": complex}.get(self._type_name())
        if python_type is not None and self.weak and hasattr(python_type, name):
            raise AttributeError(f"{where}: {python_type.__name__}.{name} of a traced Python number is not supported inside kiln.function")
        if hasattr(np.ndarray, name):
            raise AttributeError(
                f"{where}: ndarray.{name} is not supported inside kiln.function "
                "(docs/numpy-semantics.md lists what is)"
            )
        raise AttributeError(f"{where}: 'numpy.ndarray' object has no attribute {name!r}")

    def __repr__(self) -> str:
        if self.shape is None:
            return f"Tensor(shape=<unknown rank>, dtype={self.dtype})"
        shape = "(" + ", ".join("None" if d is None else str(d) for d in self.shape) + ("," if self.ndim == 1 else "") + ")"
        return f"Tensor(shape={shape}, dtype={self.dtype})"

    # ------------------------------------------------------------------ NumPy protocols

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return _PROTOCOLS["array_ufunc"](ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return _PROTOCOLS["array_function"](func, args, kwargs)

    def __array__(self, dtype: Any = None, copy: Any = None) -> NoReturn:
        _no_value(self, "np.asarray() / np.array()")

    # ------------------------------------------------------------------ no Python value at trace time

    def __bool__(self) -> NoReturn:
        where = trace_context.here()
        if _asked_by_a_comprehensions_condition():
            raise TypeError(
                f"{where}: a condition of this comprehension needs the truth value of a traced kiln tensor {self!r}, "
                "which has no Python value while kiln.function traces it: kiln runs this comprehension as Python's, "
                "as it does one whose list the function indexes, changes or passes on, or one over a Python iterable "
                "other than a list of traced numbers of one type. Read the list whole (sum, len, np.array of it, or "
                "return it) over an array, a kiln.range or a list of numbers, or select with a mask (x[x > 0])."
            )
        if _asked_by_converted_code():
            raise TypeError(
                f"{where}: a call here needs the truth value of a traced kiln tensor {self!r} (a builtin or library "
                "function, which AutoGraph leaves as it is, such as sorted() or a comparison inside it): a tensor "
                "has no Python value while kiln.function traces it. Use NumPy's functions of tensors instead "
                "(np.sort, np.any, np.all, np.max, np.where)."
            )
        raise TypeError(
            f"{where}: Python control flow (`if`, `while`, `and`, `or`, `not`) on a traced kiln tensor {self!r}: "
            "a tensor has no Python value while kiln.function traces it. This function is not converted by "
            "AutoGraph (kiln.function(autograph=False), or its source is not available): use autograph=True "
            "(the default), which stages `if`/`while`/`for` on tensors as graph.cond / graph.while, or "
            "restructure with np.where / kiln.where for elementwise choices."
        )

    def __int__(self) -> NoReturn:
        _no_value(self, "int() (write x.astype(np.int64) for a 0-d int64 tensor; AutoGraph does so for int(x) in converted code)")

    def __float__(self) -> NoReturn:
        _no_value(self, "float() (write x.astype(np.float64) for a 0-d float64 tensor; AutoGraph does so for float(x) "
                  "in converted code; math.* functions need Python floats: use np.* instead)")

    def __complex__(self) -> NoReturn:
        _no_value(self, "complex()")

    def __index__(self) -> NoReturn:
        _no_value(self, "use as a Python index (range(), list[...], a shape)")

    def __iter__(self) -> Iterator[Any]:
        """Rows, as NumPy iterates (``a, b = np.indices(s)``): views ``self[i]`` when the leading
        size is known while tracing; a run-time size has no Python iteration. Each row is read
        when it is asked for, as NumPy's iterator reads the live array: a loop over
        ``enumerate(a)`` whose body writes ``a`` sees those writes in later rows."""
        dims = graph.shape_of(self.value) if self.shape_source is None else None
        if dims == ():
            raise TypeError("iteration over a 0-d array")
        if dims is None or dims[0] < 0:
            _no_value(self, "iteration (`for ... in tensor`, unpacking, list())")
        return Rows(self, dims[0])

    # ------------------------------------------------------------------ operators (NumPy ufuncs)

    def __add__(self, other: Any) -> Any:
        return np.add(self, other) if _operand(other) else NotImplemented

    def __radd__(self, other: Any) -> Any:
        return np.add(other, self) if _operand(other) else NotImplemented

    def __sub__(self, other: Any) -> Any:
        return np.subtract(self, other) if _operand(other) else NotImplemented

    def __rsub__(self, other: Any) -> Any:
        return np.subtract(other, self) if _operand(other) else NotImplemented

    def __mul__(self, other: Any) -> Any:
        return np.multiply(self, other) if _operand(other) else NotImplemented

    def __rmul__(self, other: Any) -> Any:
        return np.multiply(other, self) if _operand(other) else NotImplemented

    def __truediv__(self, other: Any) -> Any:
        return np.true_divide(self, other) if _operand(other) else NotImplemented

    def __rtruediv__(self, other: Any) -> Any:
        return np.true_divide(other, self) if _operand(other) else NotImplemented

    def __floordiv__(self, other: Any) -> Any:
        return np.floor_divide(self, other) if _operand(other) else NotImplemented

    def __rfloordiv__(self, other: Any) -> Any:
        return np.floor_divide(other, self) if _operand(other) else NotImplemented

    def __mod__(self, other: Any) -> Any:
        return np.remainder(self, other) if _operand(other) else NotImplemented

    def __rmod__(self, other: Any) -> Any:
        return np.remainder(other, self) if _operand(other) else NotImplemented

    def __pow__(self, other: Any) -> Any:
        if not _operand(other):
            return NotImplemented
        return array_power(self, other)

    def __rpow__(self, other: Any) -> Any:
        return np.power(other, self) if _operand(other) else NotImplemented

    def __matmul__(self, other: Any) -> Any:
        return np.matmul(self, other) if _operand(other) else NotImplemented

    def __rmatmul__(self, other: Any) -> Any:
        return np.matmul(other, self) if _operand(other) else NotImplemented

    def __and__(self, other: Any) -> Any:
        return np.bitwise_and(self, other) if _operand(other) else NotImplemented

    def __rand__(self, other: Any) -> Any:
        return np.bitwise_and(other, self) if _operand(other) else NotImplemented

    def __or__(self, other: Any) -> Any:
        return np.bitwise_or(self, other) if _operand(other) else NotImplemented

    def __ror__(self, other: Any) -> Any:
        return np.bitwise_or(other, self) if _operand(other) else NotImplemented

    def __xor__(self, other: Any) -> Any:
        return np.bitwise_xor(self, other) if _operand(other) else NotImplemented

    def __rxor__(self, other: Any) -> Any:
        return np.bitwise_xor(other, self) if _operand(other) else NotImplemented

    def __lt__(self, other: Any) -> Any:
        return np.less(self, other) if _operand(other) else NotImplemented

    def __le__(self, other: Any) -> Any:
        return np.less_equal(self, other) if _operand(other) else NotImplemented

    def __gt__(self, other: Any) -> Any:
        return np.greater(self, other) if _operand(other) else NotImplemented

    def __ge__(self, other: Any) -> Any:
        return np.greater_equal(self, other) if _operand(other) else NotImplemented

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return np.equal(self, other) if _operand(other) else NotImplemented

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return np.not_equal(self, other) if _operand(other) else NotImplemented

    def __iadd__(self, other: Any) -> Tensor:
        return self._inplace(np.add, other)

    def __isub__(self, other: Any) -> Tensor:
        return self._inplace(np.subtract, other)

    def __imul__(self, other: Any) -> Tensor:
        return self._inplace(np.multiply, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self._inplace(np.true_divide, other)

    def __ifloordiv__(self, other: Any) -> Tensor:
        return self._inplace(np.floor_divide, other)

    def __imod__(self, other: Any) -> Tensor:
        return self._inplace(np.remainder, other)

    def __ipow__(self, other: Any) -> Tensor:
        return self._inplace(np.power, other)

    def __imatmul__(self, other: Any) -> Tensor:
        return self._inplace(np.matmul, other)

    def __iand__(self, other: Any) -> Tensor:
        return self._inplace(np.bitwise_and, other)

    def __ior__(self, other: Any) -> Tensor:
        return self._inplace(np.bitwise_or, other)

    def __ixor__(self, other: Any) -> Tensor:
        return self._inplace(np.bitwise_xor, other)

    def __lshift__(self, other: Any) -> Any:
        return np.left_shift(self, other) if _operand(other) else NotImplemented

    def __rlshift__(self, other: Any) -> Any:
        return np.left_shift(other, self) if _operand(other) else NotImplemented

    def __rshift__(self, other: Any) -> Any:
        return np.right_shift(self, other) if _operand(other) else NotImplemented

    def __rrshift__(self, other: Any) -> Any:
        return np.right_shift(other, self) if _operand(other) else NotImplemented

    def __divmod__(self, other: Any) -> Any:
        return np.divmod(self, other) if _operand(other) else NotImplemented

    def __rdivmod__(self, other: Any) -> Any:
        return np.divmod(other, self) if _operand(other) else NotImplemented

    def __neg__(self) -> Tensor:
        return np.negative(self._python_as(int) if self._python_bool() else self)

    def __pos__(self) -> Tensor:
        return np.positive(self._python_as(int) if self._python_bool() else self)

    def __abs__(self) -> Tensor:
        if self.ndim == 0 and self.dtype.kind == "c" and self.kind_flag is None and (self.weak or self.immutable):
            # a Python complex's abs and a NumPy complex scalar's are hypot of the parts; np.abs's loop differs by an ulp
            magnitude = np.hypot(np.real(self), np.imag(self))
            return python_number(magnitude) if self.weak else as_scalar(magnitude)
        return np.absolute(self._python_as(int) if self._python_bool() else self)

    def __round__(self, ndigits: int | None = None) -> Tensor:
        """``round(x)`` of a NumPy scalar: without ``ndigits`` the Python int NumPy returns (half to
        even, weak to promotion), with it a NumPy scalar (``np.round``); of a traced Python number
        with ``ndigits``, a Python number of its type. Arrays have no ``__round__``."""
        if not self.immutable or self.ndim != 0:
            raise TypeError("type numpy.ndarray doesn't define __round__ method")
        if self.dtype.kind == "c":
            raise TypeError(f"type {self._type_name()} doesn't define __round__ method")
        if ndigits is not None and self.weak and self.dtype.kind == "f":
            return _PROTOCOLS["python_round"](self, operator.index(ndigits))  # (Python's exact rounding: not NumPy's)
        if ndigits is not None:
            return python_number(np.round(self, ndigits)) if self.weak else as_scalar(np.round(self, ndigits))
        rounded = np.round(self)
        if rounded.dtype.kind == "f":
            _PROTOCOLS["integral"](rounded, "round()")
        return python_number(cast(rounded, np.dtype(np.int64)))

    def __invert__(self) -> Tensor:
        if self._python_bool():  # Python's ~True is -2, NumPy's ~np.True_ is False
            return np.subtract(np.negative(self._python_as(int)), 1)
        return np.invert(self)

    def _python_bool(self) -> bool:
        """A Python bool in the user's program (a comparison of a staged loop index with a Python
        number): Python's unary operators treat it as the int 0 or 1."""
        return self.weak and self.dtype == np.bool_

    def _python_as(self, kind: type[int] | type[float]) -> Tensor:
        """This traced Python number as the Python ``kind`` an operator computes in (a bool as an
        int in ``-True`` and ``True + True``, an int as a float in ``2 ** -1``): weak, as Python's are."""
        out = cast(self, np.dtype(np.int64 if kind is int else np.float64))
        if out is self:
            return self
        out.weak = True
        return out

    # ------------------------------------------------------------------ methods (NumPy functions)

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False, **kwargs: Any) -> Tensor:
        """NumPy's method, its arguments in its order (``initial=``, ``where=`` as keywords)."""
        return np.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False, **kwargs: Any) -> Tensor:
        return np.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)

    def max(self, axis: Any = None, out: Any = None, keepdims: bool = False, **kwargs: Any) -> Tensor:
        return np.max(self, axis=axis, out=out, keepdims=keepdims, **kwargs)

    def min(self, axis: Any = None, out: Any = None, keepdims: bool = False, **kwargs: Any) -> Tensor:
        return np.min(self, axis=axis, out=out, keepdims=keepdims, **kwargs)

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False, **kwargs: Any) -> Tensor:
        return np.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``; one dimension may be ``-1``."""
        target = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return np.reshape(self, target)

    def transpose(self, *axes: int | Sequence[int] | None) -> Tensor:
        """``x.transpose()`` reverses the axes; ``x.transpose(1, 0)`` or ``x.transpose((1, 0))`` permutes them."""
        perm = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else (axes or None)
        return np.transpose(self, perm)

    @property
    def real(self) -> Tensor:
        """A NumPy scalar's real part is a scalar, an array's a view (as in NumPy), a Python number's
        a Python number (kiln.frontend.result_kinds.number_part)."""
        if self._python_number():
            return _PROTOCOLS["number_part"](self, "real")
        return as_scalar(np.real(self)) if self.immutable else np.real(self)

    @real.setter
    def real(self, value: Any) -> None:
        self._set_part("real", value)

    @property
    def imag(self) -> Tensor:
        if self._python_number():
            return _PROTOCOLS["number_part"](self, "imag")
        return as_scalar(np.imag(self)) if self.immutable else np.imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        self._set_part("imag", value)

    def _set_part(self, part: str, value: Any) -> None:
        """``a.real = v`` and ``a.imag = v``: NumPy's ``a.real[...] = v``, with its errors (a
        scalar's parts are read-only; a real array has no imaginary part to set)."""
        if self.immutable:
            raise AttributeError(f"attribute '{part}' of 'numpy.generic' objects is not writable")
        if part == "imag" and self.dtype.kind != "c":
            raise TypeError("array does not have imaginary part to set")
        view = np.real(self) if part == "real" else np.imag(self)
        view[...] = value

    def conj(self) -> Tensor:
        """NumPy's method gives a real array itself (``np.conj`` a new one)."""
        return np.conjugate(self) if self.dtype.kind == "c" else self

    def conjugate(self) -> Tensor:
        """NumPy's ``conj``; of a Python number, Python's ``conjugate`` (a Python number)."""
        if self._python_number():
            return _PROTOCOLS["number_part"](self, "conjugate")
        return self.conj()

    def is_integer(self) -> Tensor:
        """A float's (Python's or NumPy's) ``is_integer()``: a Python bool, false for NaN and infinity."""
        if self.shape_source is not None or self.ndim != 0 or not self.immutable or self.dtype.kind != "f":
            raise AttributeError(f"{trace_context.here()}: '{self._type_name()}' object has no attribute 'is_integer'")
        return python_number(np.logical_and(np.isfinite(self), np.equal(np.floor(self), self)))

    def _type_name(self) -> str:
        """The name of the Python type this value stands for, as Python's errors give it."""
        if self.shape_source is not None or self.ndim != 0 or not self.immutable:
            return "numpy.ndarray"
        if self.weak:
            return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[self.dtype.kind]
        return f"numpy.{self.dtype}"

    def _python_number(self) -> bool:
        """A traced Python number, or a 0-d value that is one on some paths (its kind flag says)."""
        return self.shape_source is None and self.ndim == 0 and (self.weak or self.kind_flag is not None)

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True, copy: bool = True) -> Tensor:
        """A NumPy scalar's ``astype`` gives a scalar, an array's an array: a new one, laid out like
        this one, unless ``copy=False`` and the dtype is already right."""
        if order != "K" or casting != "unsafe":
            raise NotImplementedError("x.astype(..., order=, casting=) is not supported inside kiln.function")
        result = cast(self, dtypes.canonical(dtype), warn=True)
        if result is self and copy:
            result = self.copy("K")
        return as_scalar(result) if self.immutable else result

    def flatten(self) -> Tensor:
        """Always a copy, as in NumPy."""
        return np.reshape(self.copy(), (-1,))

    def ravel(self, order: str = "C") -> Tensor:
        return np.ravel(self, order)

    def squeeze(self, axis: int | Sequence[int] | None = None) -> Tensor:
        return np.squeeze(self, axis=axis)

    def fill(self, value: Any) -> None:
        """``x.fill(v)``: every element becomes ``v`` (cast to ``x``'s dtype)."""
        self[...] = value

    def round(self, decimals: int = 0, out: Any = None) -> Tensor:
        return np.round(self, decimals, out=out)

    def item(self, *args: Any) -> Tensor:
        """``x.item()`` of a one-element array: a 0-d value standing for the Python number NumPy
        returns (float64, int64, bool or complex128, weak to NumPy's promotion as Python numbers are)."""
        if args:
            raise NotImplementedError("x.item(index) is not supported inside kiln.function: index x first (x[i].item())")
        if self.size is None:
            raise NotImplementedError("x.item() of an array whose size is known only at run time is not supported inside kiln.function")
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        python = {"b": np.bool_, "i": np.int64, "u": np.uint64, "f": np.float64, "c": np.complex128}[self.dtype.kind]
        return python_number(cast(reshape_to(self, ()), np.dtype(python)))

    @property
    def flat(self) -> Any:
        """``a.flat``: reads and writes by flat position, iteration (kiln.frontend.numpy_iteration)."""
        return _PROTOCOLS["flat"](self)

    def tolist(self) -> Any:
        """Nested lists of (traced) Python numbers, as NumPy's (kiln.frontend.numpy_iteration)."""
        return _PROTOCOLS["tolist"](self)

    # ------------------------------------------------------------------ more ndarray methods (NumPy functions)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int | None:
        return None if self.size is None else self.size * self.dtype.itemsize

    def argmax(self, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> Tensor:
        return np.argmax(self, axis=axis, out=out, keepdims=keepdims)

    def argmin(self, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> Tensor:
        return np.argmin(self, axis=axis, out=out, keepdims=keepdims)

    def any(self, axis: int | Sequence[int] | None = None, out: Any = None, keepdims: bool = False) -> Tensor:
        return np.any(self, axis=axis, out=out, keepdims=keepdims)

    def all(self, axis: int | Sequence[int] | None = None, out: Any = None, keepdims: bool = False) -> Tensor:
        return np.all(self, axis=axis, out=out, keepdims=keepdims)

    def cumsum(self, axis: int | None = None, dtype: Any = None, out: Any = None) -> Tensor:
        return np.cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis: int | None = None, dtype: Any = None, out: Any = None) -> Tensor:
        return np.cumprod(self, axis=axis, dtype=dtype, out=out)

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0, keepdims: bool = False) -> Tensor:
        return np.var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0, keepdims: bool = False) -> Tensor:
        return np.std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def argsort(self, axis: int | None = -1, kind: Any = None, order: Any = None) -> Tensor:
        return np.argsort(self, axis=axis, kind=kind, order=order)

    def sort(self, axis: int = -1, kind: Any = None, order: Any = None) -> None:
        """Sorts in place, as NumPy's ``x.sort()``."""
        self[...] = np.sort(self, axis=axis, kind=kind, order=order)

    def searchsorted(self, v: Any, side: str = "left", sorter: Any = None) -> Tensor:
        return np.searchsorted(self, v, side=side, sorter=sorter)

    def nonzero(self) -> tuple[Tensor, ...]:
        return np.nonzero(self)

    def take(self, indices: Any, axis: int | None = None, out: Any = None, mode: str = "raise") -> Tensor:
        return np.take(self, indices, axis=axis, out=out, mode=mode)

    def put(self, indices: Any, values: Any, mode: str = "raise") -> None:
        np.put(self, indices, values, mode=mode)

    def partition(self, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None) -> None:
        """Partitions in place (as a full sort: frontend/numpy_take.py says why that is NumPy's contract)."""
        self[...] = np.partition(self, kth, axis=axis, kind=kind, order=order)

    def argpartition(self, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None) -> Tensor:
        return np.argpartition(self, kth, axis=axis, kind=kind, order=order)

    def compress(self, condition: Any, axis: int | None = None, out: Any = None) -> Tensor:
        return np.compress(condition, self, axis=axis, out=out)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None) -> Tensor:
        return np.trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype, out=out)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
        return np.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    def swapaxes(self, axis1: int, axis2: int) -> Tensor:
        return np.swapaxes(self, axis1, axis2)

    def repeat(self, repeats: Any, axis: int | None = None) -> Tensor:
        return np.repeat(self, repeats, axis=axis)

    def dot(self, b: Any, out: Any = None) -> Tensor:
        return np.dot(self, b, out=out)

    def clip(self, min: Any = None, max: Any = None, out: Any = None) -> Tensor:  # noqa: A002 - NumPy's names
        return np.clip(self, min, max, out=out)

    def __getitem__(self, key: Any) -> Tensor:
        return _PROTOCOLS["getitem"](self, key)


def key_signature(key: Any) -> tuple[Any, ...]:
    """A comparable form of an index key (tensors by identity), to recognise ``x[k] op= v``."""
    items = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    for item in items:
        if isinstance(item, slice):
            out.append(("s", *(_atom(p) for p in (item.start, item.stop, item.step))))
        else:
            out.append(_atom(item))
    return tuple(out)


def _atom(x: Any) -> Any:
    if isinstance(x, Tensor):
        return ("t", id(x))
    if x is None or x is Ellipsis or isinstance(x, (int, bool)):
        return (type(x).__name__, x)
    return ("o", id(x))


#: how deep the trace is in Python operators on tensors (see :func:`in_python_operator`)
_PYTHON_OPERATORS = [0]


def in_python_operator() -> bool:
    """Whether a Python operator (``t + 1``, ``abs(t)``, ``t < 3``) is being applied: on Python
    numbers it gives a Python number (weak), where the NumPy function (``np.add(t, 1)``,
    ``np.abs(t)``) gives a NumPy scalar (strong) — NEP 50's difference between the two."""
    return _PYTHON_OPERATORS[0] > 0


def as_python_operator(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (a Tensor dunder, or Python's ``max``/``min``) applied as a Python operator."""

    def applied(*args: Any) -> Any:
        _PYTHON_OPERATORS[0] += 1
        try:
            return method(*args)
        finally:
            _PYTHON_OPERATORS[0] -= 1

    applied.__name__, applied.__doc__ = method.__name__, method.__doc__
    return applied


_OPERATORS = [f"__{p}{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
                                            "lshift", "rshift", "divmod") for p in ("", "r", "i")]
_OPERATORS += ["__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__neg__", "__pos__", "__abs__", "__invert__"]
for _name in _OPERATORS:
    if _name in vars(Tensor):
        setattr(Tensor, _name, as_python_operator(vars(Tensor)[_name]))


def _operand(other: Any) -> bool:
    """Whether an operator should take ``other`` (else Python tries ``other``'s reflected method)."""
    return isinstance(other, (Tensor, *_ARRAY_LIKE)) or hasattr(type(other), "__kiln_tensor__")


def _user_frame() -> Any:
    """The innermost frame on the stack running a user's file (None if none)."""
    frame = sys._getframe(2)
    while frame is not None and not trace_context.is_user_file(frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]
    return frame


def _asked_by_converted_code() -> bool:
    """Whether the innermost user frame on the stack runs code AutoGraph converted: then ``bool()``
    of a tensor comes from a function it calls that is not converted (a builtin, a library's)."""
    from kiln.frontend.autograph.context import is_converted_code

    frame = _user_frame()
    return frame is not None and (is_converted_code(frame.f_code) or "ag__converted" in frame.f_code.co_qualname)


#: the code objects of comprehensions (Python 3.11 runs each in a frame of its own)
_COMPREHENSION_CODE = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


def _asked_by_a_comprehensions_condition() -> bool:
    """Whether the innermost user frame is a comprehension testing one of its ``if`` conditions
    (a conditional jump), not a call inside its element asking (``sorted(...)``)."""
    frame = _user_frame()
    if frame is None or frame.f_code.co_name not in _COMPREHENSION_CODE:
        return False
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and dis.opname[code[frame.f_lasti]].startswith("POP_JUMP")


def _no_value(t: Tensor, what: str) -> NoReturn:
    raise TypeError(
        f"{what} needs the value of a traced kiln tensor {t!r}, but a tensor has no Python value "
        "while kiln.function traces it. Let AutoGraph stage control flow on tensors "
        "(kiln.function(autograph=True), the default, converts `if`/`while`/`for` on tensors), "
        "use np.where / kiln.where for elementwise choices, return the tensor to get a NumPy array, "
        "or debug with kiln.config.run_functions_eagerly(True)."
    )


# ---------------------------------------------------------------------- building ops


def emit(op: Operation) -> Tensor:
    """Append ``op`` to the trace in progress (at the user's source line); its result as a Tensor."""
    trace_context.require().emit(op)
    return Tensor(op.results[0])


#: trace-time arrays from this size on are passed to the compiled function, not written into its
#: code: a large table embedded as C text costs seconds of compiling and a cache entry as large
LARGE_CONSTANT_BYTES = 256 * 1024


def constant(array: np.ndarray[Any, Any]) -> Tensor:
    """``array`` (its dtype must be supported) as a value of the trace: a ``graph.constant`` (a
    complex array is the ``graph.complex`` of two float constants, its real and imaginary parts),
    or, from :data:`LARGE_CONSTANT_BYTES` on, a read of a hidden variable holding a copy."""
    dt = dtypes.canonical(array.dtype)
    if array.nbytes >= LARGE_CONSTANT_BYTES:
        capture = trace_context.require().notes.get(trace_context.LARGE_CONSTANTS)
        if capture is not None:
            return capture(array.astype(dt, copy=False))
    if dt.kind == "c":
        return emit(graph.ComplexOp(constant(array.real.copy()).value, constant(array.imag.copy()).value))
    data = np.where(array, -1, 0).astype("<i1") if dt == np.bool_ else array.astype(dt.newbyteorder("<"))
    raw = np.ascontiguousarray(data).tobytes()
    key = (dt.str, array.shape, raw)
    attr = _small_constants.get(key)
    if attr is None:
        attr = DenseIntOrFPElementsAttr(graph.tensor_type(dtypes.to_element(dt), array.shape), BytesAttr(raw))
        if len(raw) <= _SMALL_CONSTANT_BYTES:
            if len(_small_constants) >= _MAX_SMALL_CONSTANTS:
                _small_constants.clear()
            _small_constants[key] = attr
    return emit(graph.ConstantOp(attr))


#: the attributes of small constants, made once (attributes are immutable): a traced program
#: writes the same few numbers at every step (the 10^5-op chain: 4 values, 28,560 constants)
_small_constants: dict[tuple[str, tuple[int, ...], bytes], DenseIntOrFPElementsAttr] = {}
_SMALL_CONSTANT_BYTES = 64
_MAX_SMALL_CONSTANTS = 4096


def as_tensor(x: Any) -> Tensor:
    """``x`` as a Tensor: tensors as they are; arrays, NumPy and Python scalars, nested lists as constants.

    Constants take NumPy's dtype for ``x`` (a Python float is float64, an int int64).
    Objects with a ``__kiln_tensor__()`` method (e.g. variables) convert through it.
    """
    if isinstance(x, Tensor):
        return x
    if hasattr(type(x), "__kiln_tensor__"):
        return as_tensor(x.__kiln_tensor__())
    if not isinstance(x, _ARRAY_LIKE):
        raise TypeError(f"kiln cannot turn a {type(x).__name__} into a tensor: {x!r}")
    array_types.check_plain_array(x, "a constant array")
    try:
        array = np.asarray(x)
    except ValueError as e:
        raise TypeError(f"kiln cannot turn {x!r} into a tensor: {e}") from e
    if array.dtype not in dtypes.SUPPORTED:
        raise dtypes.unsupported(array.dtype, f"of the constant {x!r}" if array.size <= 8 else "of a constant")
    return constant(array)


def shape_of(t: Tensor) -> tuple[int, ...]:
    """Internal shape convention: ``-1`` marks a dynamic dimension (as in :mod:`kiln.dialects.graph`).

    A tensor of unknown rank has none: every op that asks raises the unknown-rank error, so no
    op can mistake its flattened data for a vector."""
    if t.shape_source is not None:
        raise shape_sources.rank_error(t.shape_source, "this operation")
    return graph.shape_of(t.type)


def require_rank(t: Tensor, what: str) -> None:
    """Raise the unknown-rank error naming ``what`` when ``t``'s rank is unknown."""
    if t.shape_source is not None:
        raise shape_sources.rank_error(t.shape_source, what)


def with_source(t: Tensor, source: int | None) -> Tensor:
    """``t`` as a tensor of the call-time shape of argument ``source`` (unchanged when None or already so)."""
    return t if source is None or t.shape_source == source else Tensor(t.value, source)


def common_source(tensors: Sequence[Tensor], what: str) -> int | None:
    """The shape source of an elementwise op's result: operands of unknown rank combine only with 0-d
    operands and with each other (whose arguments each call then checks to have one shape)."""
    sources = [t.shape_source for t in tensors if t.shape_source is not None]
    if not sources:
        return None
    for t in tensors:
        if t.shape_source is None and t.ndim != 0:
            raise shape_sources.rank_error(sources[0], f"{what} with an operand of shape {t.shape}")
    for other in sources[1:]:
        shape_sources.same_shape(sources[0], other)
    return sources[0]


def c_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """NumPy's C-contiguity of ``shape`` with element ``strides`` (size-1 axes do not count; a
    dimension of unknown size (-1) counts as longer than one)."""
    if 0 in shape:
        return True
    expected: int | None = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if d == 1:
            continue
        if expected is None or s != expected:
            return False
        expected = expected * d if d > 0 else None
    return True


def c_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """The element strides of a C-contiguous array of ``shape`` (static sizes)."""
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= max(d, 1)
    return tuple(reversed(out))


def reshape_strides(source: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> tuple[int, ...] | None:
    """The element strides of ``source`` (with ``strides``) reshaped to ``target`` without a copy,
    or None where a copy is needed: NumPy's ``_attempt_nocopy_reshape`` (C order), which makes a
    view of any array whose axes merged into one target axis (or split from one) are laid out
    contiguously relative to each other, e.g. ``x[::2].reshape(2, 3)``. Static sizes only."""
    if 0 in source or -1 in source or -1 in target:
        return None
    old = [(d, s) for d, s in zip(source, strides) if d != 1]
    out = [0] * len(target)
    oi = ni = 0
    while ni < len(target) and oi < len(old):
        oj, nj = oi + 1, ni + 1
        np_, op = target[ni], old[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= target[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        if any(old[k][1] != old[k + 1][0] * old[k + 1][1] for k in range(oi, oj - 1)):
            return None
        out[nj - 1] = old[oj - 1][1]
        for nk in range(nj - 1, ni, -1):
            out[nk - 1] = out[nk] * target[nk]
        ni, oi = nj, oj
    last = out[ni - 1] if ni >= 1 else 1
    for nk in range(ni, len(target)):
        out[nk] = last
    return tuple(out)


def _sort_axes(order: list[int], votes: Callable[[int, int], list[bool]]) -> list[int]:
    """NumPy's stable insertion sort of axes (its iterator's, and its multi-array stride sort's):
    ``votes(axis, earlier)`` says, per operand that has both axes, whether ``axis`` goes before
    ``earlier``; the first vote moves it unless another says no (C order wins a disagreement)."""
    for i in range(1, len(order)):
        axis, insert_at = order[i], i
        for j in range(i - 1, -1, -1):
            decided = swap = False
            for before in votes(axis, order[j]):
                if not before:
                    swap = False
                elif not decided:
                    swap = True
                decided = True
            if decided:
                if not swap:
                    break
                insert_at = j
        order[insert_at + 1:i + 1] = order[insert_at:i]
        order[insert_at] = axis
    return order


def _contiguous_strides(shape: Sequence[int], inner_first: Sequence[int]) -> tuple[int, ...]:
    """The element strides of a new array of ``shape`` laid out with the axes ``inner_first``."""
    out, step = [0] * len(shape), 1
    for axis in inner_first:
        out[axis] = step
        step *= max(shape[axis], 1)
    return tuple(out)


def k_order_strides(shape: Sequence[int], operands: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The element strides of a new array of ``shape`` that NumPy lays out like its ``operands``
    (``order='K'``, each given by its element strides on ``shape``'s axes, 0 where broadcast or
    of length 1): NumPy's iterator orders the axes by stride, innermost first, an operand that
    disagrees with C order leaving C order there; the new array is contiguous in that order."""
    order = _sort_axes(list(range(len(shape) - 1, -1, -1)), lambda axis, earlier: [
        abs(s[earlier]) > abs(s[axis]) for s in operands if s[axis] and s[earlier]])
    return _contiguous_strides(shape, order)


def joined_order_strides(shape: Sequence[int], operands: Sequence[Sequence[tuple[int, int]]]) -> tuple[int, ...]:
    """The element strides NumPy gives ``np.concatenate``'s (and ``np.stack``'s) result of
    ``shape`` from its ``operands`` (each as ``(length, stride)`` per axis): the axes sorted from
    the largest stride to the smallest, an operand that disagrees with C order leaving C order
    there, axes of length 1 in an operand not counted. (Not quite the ufuncs' rule, which sorts
    from the innermost axis: the two part where operands disagree.)"""
    order = _sort_axes(list(range(len(shape))), lambda axis, earlier: [
        abs(d[axis][1]) > abs(d[earlier][1]) for d in operands if d[axis][0] != 1 and d[earlier][0] != 1])
    return _contiguous_strides(shape, order[::-1])


def follow_layout(
    result: Tensor, operands: Sequence[Any], reduced: Sequence[int] = (), keepdims: bool = False,
    new_axis: int | None = None, joined: bool = False,
) -> Tensor:
    """Lay ``result``, a new array, out as NumPy does one made from ``operands`` with
    ``order='K'`` (ufuncs, ``astype``, ``np.copy``, ``*_like``; reductions over the axes
    ``reduced`` of the one operand; ``joined``: ``np.concatenate``'s and ``np.stack``'s, each
    operand of a stack without its ``new_axis``): like them, so ``x.T.astype(int).reshape(-1)``
    is a copy, as in NumPy. The strides are worked out only if a reshape or ravel asks."""
    storage = result.storage
    if result.is_view or storage.argument is not None or storage.layout is not None or result.shape_source is not None:
        return result
    arrays = [x for x in operands if isinstance(x, (Tensor, np.ndarray)) and getattr(x, "shape_source", None) is None and x.ndim > 1]
    shape = shape_of(result)
    if not arrays or len(shape) < 2 or -1 in shape or any(isinstance(x, Tensor) and x.storage is storage for x in arrays):
        return result

    def rule() -> tuple[int, ...] | None:
        aligned = []
        for x in arrays:
            strides = x.element_strides() if isinstance(x, Tensor) else tuple(s // x.itemsize for s in x.strides)
            if strides is None:
                return None
            dims = list(zip(shape_of(x) if isinstance(x, Tensor) else x.shape, strides))
            if keepdims:
                dims = [(1, 0) if i in reduced else d for i, d in enumerate(dims)]
            else:
                dims = [d for i, d in enumerate(dims) if i not in reduced]
            if new_axis is not None:
                dims = [*dims[:new_axis], (1, 0), *dims[new_axis:]]
            aligned.append([(1, 0)] * (len(shape) - len(dims)) + dims)
        if joined:
            out = joined_order_strides(shape, aligned)
        else:
            out = k_order_strides(shape, [[0 if d == 1 else s for d, s in dims] for dims in aligned])
        return None if c_contiguous(shape, out) else out

    storage.layout_rule = rule
    return result


def lay_out_fortran(t: Tensor) -> Tensor:
    """``t``, a new array, Fortran-ordered (``np.asfortranarray``, ``*_like(order='F')``)."""
    if t.ndim > 1:
        t.storage.layout = c_strides(shape_of(t)[::-1])[::-1]
    return t


def layout_of(x: Any) -> tuple[int, ...] | None:
    """The element strides of the array ``x`` when NumPy has it laid out other than C-contiguous
    (None: C-contiguous, or a Python value, which becomes a new C-contiguous array)."""
    if not isinstance(x, Tensor) or x.shape_source is not None or x.ndim == 0:
        return None
    strides = x.element_strides()
    return None if strides is None or c_contiguous(shape_of(x), strides) else strides


def merge_layout(merged: Tensor, paths: Sequence[Any], where: str, construct: str) -> bool:
    """Lay ``merged``, the array a staged construct made of ``paths`` (the values it has on each
    path), out as those are; where they differ (``x.T + 1`` on one path, ``x + 1`` on another),
    NumPy's reshape of it is a view on some paths and a copy on others: refused when asked."""
    storage = merged.storage
    if merged.shape_source is not None or merged.is_view or merged.ndim == 0 or storage.layout is not None:
        return False
    # worked out now (a rule holding the paths' arrays would keep them reachable: mutation._unreachable)
    with mutation.peeking() as asked:
        try:
            layouts = {layout_of(p) for p in paths}
        except NotImplementedError:  # (a path's own layout depends on a path before)
            layouts = set()
    if len(layouts) == 1:
        storage.layout_rule = mutation.known_layout(layouts.pop(), asked)
        return True

    def rule() -> tuple[int, ...] | None:
        raise NotImplementedError(
            f"{trace_context.here()}: this array's memory layout depends on the path taken through the staged "
            f"{construct} at {where} (NumPy's reshape or ravel of it is a view on some paths and a copy on others); "
            "make it one layout where it is bound, e.g. with np.ascontiguousarray(...)"
        )

    storage.layout_rule = rule
    return True


def unit_axes_strides(source: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> tuple[int, ...] | None:
    """The strides of ``target``, which is ``source`` with length-1 axes dropped or added: each
    longer axis keeps its stride (None when the two do not match up that way)."""
    long = [s for d, s in zip(source, strides) if d != 1]
    if len(long) != sum(1 for d in target if d != 1):
        return None
    it = iter(long)
    return tuple(next(it) if d != 1 else 0 for d in target)


def as_scalar(t: Tensor) -> Tensor:
    """A 0-d ``t`` (a ufunc's result, a whole reduction, an element read) as the NumPy scalar NumPy
    returns there: a new immutable value, so ``s += 1`` rebinds ``s`` (with NumPy's promotion) and
    leaves other names for it alone. Anything else is returned as it is."""
    if t.shape_source is not None or t.ndim != 0 or t.immutable:
        return t
    scalar = Tensor(t.value)
    scalar.aval = t.aval.but(scalar=True, readonly=False, kind_flag=None).in_memory_of(scalar.aval)  # (a new value, of NumPy's scalar kind)
    return scalar


def is_traced(x: Any) -> bool:
    """Whether ``x`` is a traced array: a Tensor, or an object that converts to one (a Variable)."""
    return isinstance(x, Tensor) or hasattr(type(x), "__kiln_tensor__")


def is_scalar_like(value: Any) -> bool:
    """A value that is immutable as NumPy and Python see it: a NumPy or Python scalar, or a kiln
    tensor standing for a NumPy scalar."""
    return value.immutable if isinstance(value, Tensor) else isinstance(value, (bool, int, float, complex, np.generic))


def cast(t: Tensor, dtype: np.dtype[Any], warn: bool = False) -> Tensor:
    """``t.astype(dtype)``; no op when the dtype already matches. With ``warn``, a complex to
    real cast warns as NumPy's ``astype`` does (the imaginary part is discarded)."""
    if t.dtype == dtype:
        return t
    if t.weak and t.dtype.kind == "i" and dtype.kind in "iu":
        _PROTOCOLS["python_int_fits"](t, dtype)  # runtime_checks: NumPy raises where a Python int does not fit
    if warn and t.dtype.kind == "c" and dtype.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning, stacklevel=3)
    return follow_layout(with_source(emit(graph.CastOp(t.value, dtypes.to_element(dtype))), t.shape_source), [t])


def strong(t: Tensor) -> Tensor:
    """The weak ``t`` (a Python number as kiln traces it) as a NumPy value of its dtype, for the
    places NumPy takes the number at that type: compared exactly (``int8_array < n``), or cast as
    ``np.where`` casts it (1000 into int8: -24) rather than checked."""
    if not t.weak:
        return t
    out = Tensor(t.value)
    out.aval = t.aval.but(weak=False, readonly=False, path_promotions=None, kind_flag=None).in_memory_of(out.aval)  # (one type on every path)
    return out


def broadcast_to(t: Tensor, shape: Sequence[int]) -> Tensor:
    """Broadcast to ``shape`` (``-1`` = dynamic); no op when the shape already matches."""
    if shape_of(t) == tuple(shape):
        return t
    return emit(graph.BroadcastOp(t.value, shape))


def reshape_to(t: Tensor, shape: Sequence[int]) -> Tensor:
    """Reshape to a fully resolved ``shape``; no op when the shape already matches."""
    if shape_of(t) == tuple(shape):
        return t
    return emit(graph.ReshapeOp(t.value, shape))


#: a Python number of a dtype's kind, standing for a weak value of that kind in NumPy's promotion
WEAK_OF_KIND: dict[str, bool | int | float | complex] = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def weak_stand_in(x: Tensor) -> bool | int | float | complex:
    """A Python scalar of the weak tensor ``x``'s kind, for ``np.result_type``: a Python number
    carried through staged control flow promotes as one (``np.where(c, f32, t)`` stays float32)."""
    return WEAK_OF_KIND[x.dtype.kind]


def python_number(t: Tensor) -> Tensor:
    """The 0-d ``t`` standing for the Python number NumPy gives there (``float(x)``, ``int(x)``,
    ``x.item()``, ``round(s)``, ``math.isnan(s)``): a new immutable value, weak to promotion
    (NEP 50: ``float32_array * float(s)`` stays float32; a bool is Python's, ``~b`` is ``-2``)."""
    out = Tensor(t.value)
    out.weak = True  # Python complex is weak as well (NEP 50: float32 * 1j is complex64)
    out.immutable = True
    return out


def promotion_value(x: Any) -> Any:
    """What ``x`` brings to ``np.result_type``: Python scalars (and weak tensors) as values, else a dtype."""
    if isinstance(x, Tensor):
        return weak_stand_in(x) if x.weak else x.dtype
    return x if isinstance(x, (bool, int, float, complex)) else x.dtype


def path_promotions(values: Sequence[Any], where: str) -> tuple[tuple[Any, ...], str] | None:
    """What a value merged from ``values`` (one per path of a staged construct at ``where``)
    promotes as on each path, when that is not the same on all: Python numbers are weak (their
    kind: ``0``, ``0.0``), NumPy values and arrays are their dtype. None when all agree."""
    seen: list[Any] = []
    place = where
    for v in values:
        if isinstance(v, Tensor) and v.path_promotions is not None:
            alternatives, place = v.path_promotions
        elif isinstance(v, Tensor):
            alternatives = (promotion_value(v),)
        elif isinstance(v, (np.ndarray, np.generic)):
            alternatives = (np.asarray(v).dtype,)
        elif isinstance(v, (bool, int, float, complex)):
            alternatives = ({bool: False, int: 0, float: 0.0, complex: 0j}[type(v)],)
        else:
            continue  # (a placeholder: never read on its path)
        for a in alternatives:
            if not any(type(a) is type(b) and a == b for b in seen):
                seen.append(a)
    return (tuple(seen), place) if len(seen) > 1 else None
