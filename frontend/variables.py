"""``kiln.Variable``: state that lives outside functions and persists across calls.

A variable owns one C-contiguous NumPy array, its buffer, for its whole life:
eager reads and writes act on it directly (writes in place, never by
rebinding), and a compiled function receives the buffer itself and writes it
in place. While a function is traced, a read or write emits ``graph.read`` /
``graph.assign`` on a ``!graph.resource`` argument that :class:`Captures`
adds to the traced function for each variable it touches; the compiled
function's caller passes each captured variable's buffer for it.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np
from xdsl.ir import Block, SSAValue

from kiln.dialects import graph
from kiln.frontend import dtypes, trace_context
from kiln.frontend.tensor import Tensor, as_tensor, cast, emit

#: key of the :class:`Captures` in ``TraceContext.notes``
NOTES_KEY = "kiln.variables"


class Captures:
    """The variables one trace touches, each with its ``!graph.resource`` argument of ``block``
    (the traced function's entry block), in the order the trace first touched them."""

    def __init__(self, block: Block):
        self.block = block
        self.variables: list[Variable] = []
        self._args: dict[int, SSAValue] = {}
        #: the hidden variables holding large trace-time arrays, by dtype, shape and contents
        self._constants: dict[tuple[str, tuple[int, ...], bytes], Variable] = {}

    def resource(self, var: Variable, hint: str = "var") -> SSAValue:
        arg = self._args.get(id(var))
        if arg is None:
            ty = graph.ResourceType(graph.tensor_type(dtypes.to_element(var.dtype), var.shape))
            arg = self.block.insert_arg(ty, len(self.block.args))
            arg.name_hint = f"{hint}{len(self.variables)}"
            self._args[id(var)] = arg
            self.variables.append(var)
        return arg

    def constant(self, array: np.ndarray) -> Tensor:
        """``array`` (a trace-time value too large to embed in the code) read from a hidden variable
        that no one assigns: the compiled function receives its buffer with every call and reads
        it in place. Equal arrays share one variable."""
        key = (array.dtype.str, array.shape, hashlib.sha256(np.ascontiguousarray(array).data).digest())
        var = self._constants.get(key)
        if var is None:
            with creating_slots():  # made while tracing, kept by the traced function
                var = self._constants[key] = Variable(array)
        return emit(graph.ReadOp(self.resource(var, hint="const")))

    def captured(self, var: Variable) -> SSAValue | None:
        """``var``'s resource argument if this trace touched it (None otherwise)."""
        return self._args.get(id(var))


def captured_resource(var: Variable) -> SSAValue | None:
    """The resource argument of ``var`` in the trace in progress, if the trace touched it."""
    captures = _captures()
    return captures.captured(var) if captures is not None else None


class BufferSync(Protocol):
    """A backend keeping its own copy of variable buffers (the CUDA backend's device copies)."""

    def created(self, buffer: np.ndarray) -> None: ...
    def before_read(self, buffer: np.ndarray) -> None: ...
    def after_write(self, buffer: np.ndarray) -> None: ...


_sync_hooks: list[BufferSync] = []


class _EagerReads(threading.local):
    """What an eager read of a variable returns instead of the copy (an eager GradientTape
    records it), innermost tape last, per thread; kiln.frontend.eager_tape pushes and pops them."""

    def __init__(self) -> None:
        self.hooks: list[Callable[[Variable, np.ndarray], Any]] = []


EAGER_READS = _EagerReads()
_live: weakref.WeakValueDictionary[int, Variable] = weakref.WeakValueDictionary()  # by id: == is elementwise


def add_sync_hook(hook: BufferSync) -> None:
    """Keep ``hook`` told when Python creates, reads or writes a variable's buffer (also about
    the variables that already exist), so that a copy elsewhere is synchronized on eager access.
    Adding one again changes nothing."""
    if any(h is hook for h in _sync_hooks):
        return
    _sync_hooks.append(hook)
    for var in list(_live.values()):
        hook.created(var._buffer)


def _captures() -> Captures | None:
    ctx = trace_context.current()
    if ctx is None:
        return None
    captures = ctx.notes.get(NOTES_KEY)
    assert isinstance(captures, Captures), "kiln.Variable used in a trace that does not capture variables"
    return captures


def _python_dtype(value: Any) -> np.dtype[Any]:
    return value.dtype if isinstance(value, (Tensor, np.ndarray, np.generic)) else np.asarray(value).dtype


class _EagerCalls(threading.local):
    """Names of the kiln.functions running as plain Python on this thread, innermost last; how
    many optimizers are making slot variables."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.slots = 0


_eager = _EagerCalls()


@contextmanager
def creating_slots() -> Iterator[None]:
    """Let an optimizer create its slot variables (momenta) where users may not create variables:
    while a function is traced, on its first step. The optimizer keeps them, so they are made once."""
    _eager.slots += 1
    try:
        yield
    finally:
        _eager.slots -= 1


@contextmanager
def running_eagerly(name: str) -> Iterator[None]:
    """Mark a kiln.function's body running eagerly, so that creating a Variable in it raises as when traced."""
    _eager.names.append(name)
    try:
        yield
    finally:
        _eager.names.pop()


class Variable:
    """A mutable array shared by every call of every ``kiln.function`` that uses it."""

    __slots__ = ("_buffer", "__weakref__")
    __array_priority__ = 1000  # ndarray op Variable: NumPy defers to Variable's reflected operators

    def __init__(self, initial_value: Any, dtype: Any = None):
        ctx = trace_context.current()
        inside = f"tracing kiln.function `{ctx.name}`" if ctx is not None else None
        if _eager.slots:  # an optimizer's slot: made once, on the first trace, and kept by the optimizer
            inside = None
        elif inside is None and _eager.names:
            inside = f"running kiln.function `{_eager.names[-1]}` eagerly (kiln.config.run_functions_eagerly)"
        if inside is not None:
            raise ValueError(
                f"kiln.Variable(...) created while {inside}. A variable holds state "
                "across calls, so it must exist before the function runs: create it outside (at module level, "
                "or in your class's __init__ and use self.<name> in a decorated method) and use it inside."
            )
        if isinstance(initial_value, Variable):
            initial_value = initial_value.numpy()
        array = np.array(initial_value, dtype=None if dtype is None else dtypes.canonical(dtype), order="C")
        if array.dtype not in dtypes.SUPPORTED:
            raise dtypes.unsupported(array.dtype, "of a kiln.Variable")
        self._buffer: np.ndarray = array
        _live[id(self)] = self
        for hook in _sync_hooks:
            hook.created(array)

    def _synced(self) -> np.ndarray:
        """The buffer, after copies kept elsewhere (the GPU's) wrote their news back."""
        for hook in _sync_hooks:
            hook.before_read(self._buffer)
        return self._buffer

    # ------------------------------------------------------------------ attributes

    @property
    def shape(self) -> tuple[int, ...]:
        return self._buffer.shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._buffer.dtype

    @property
    def ndim(self) -> int:
        return self._buffer.ndim

    @property
    def buffer(self) -> np.ndarray:
        """The storage compiled functions read and write in place (never replaced)."""
        return self._buffer

    # ------------------------------------------------------------------ reads

    def read_value(self) -> Any:
        """The current value: a NumPy copy eagerly (recorded by an eager GradientTape), a
        ``graph.read`` while traced."""
        captures = _captures()
        if captures is None:
            value = self._synced().copy()
            hooks = EAGER_READS.hooks
            return hooks[-1](self, value) if hooks else value
        return emit(graph.ReadOp(captures.resource(self)))

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the current value (eager only)."""
        ctx = trace_context.current()
        if ctx is not None:
            raise TypeError(
                f"Variable.numpy() while tracing kiln.function `{ctx.name}` would freeze the value the variable "
                "has now into the compiled code; use v.read_value() (or v in an expression), which reads it "
                "on every call."
            )
        return self._synced().copy()

    def __kiln_tensor__(self) -> Any:
        return self.read_value()

    # ------------------------------------------------------------------ writes

    def assign(self, value: Any) -> Variable:
        """Write ``value`` (same shape; a dtype NumPy casts to this one with ``same_kind``)."""
        captures = _captures()
        self._check_dtype(_python_dtype(value), "assign")
        if captures is None:
            array = np.asarray(value)
            self._check_shape(array.shape, "assign")
            np.copyto(self._buffer, array, casting="same_kind")
            for hook in _sync_hooks:
                hook.after_write(self._buffer)
            return self
        tensor = as_tensor(value)
        self._check_shape(tensor.shape, "assign")
        trace_context.require().emit(graph.AssignOp(captures.resource(self), cast(tensor, self.dtype).value))
        return self

    def assign_add(self, delta: Any) -> Variable:
        """``v += delta`` (delta broadcasts; the result keeps the variable's shape and dtype)."""
        return self._update(np.add, delta, "assign_add")

    def assign_sub(self, delta: Any) -> Variable:
        """``v -= delta`` (delta broadcasts; the result keeps the variable's shape and dtype)."""
        return self._update(np.subtract, delta, "assign_sub")

    def _update(self, ufunc: np.ufunc, delta: Any, what: str) -> Variable:
        new = ufunc(self.read_value(), delta.read_value() if isinstance(delta, Variable) else delta)
        self._check_dtype(_python_dtype(new), what)
        self._check_shape(tuple(new.shape), what)
        return self.assign(new)

    def _check_dtype(self, dtype: np.dtype[Any], what: str) -> None:
        if not np.can_cast(dtype, self.dtype, "same_kind"):
            raise TypeError(
                f"kiln.Variable.{what}: a {dtype} value cannot be stored in a {self.dtype} variable "
                f"(NumPy's same_kind rule); convert it explicitly with .astype({self.dtype.name!r})"
            )

    def _check_shape(self, shape: tuple[int | None, ...], what: str) -> None:
        if tuple(shape) != self.shape:
            raise ValueError(
                f"kiln.Variable.{what}: a value of shape {tuple(shape)} does not fit a variable of shape "
                f"{self.shape}; a variable's shape is fixed (create a new variable for another shape)"
            )

    # ------------------------------------------------------------------ the value in expressions

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if trace_context.current() is not None:
            raise TypeError("np.asarray(kiln.Variable) while tracing: use v.read_value() to read it on every call")
        buffer = self._synced()
        return buffer.astype(dtype) if dtype is not None else buffer.copy()

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        values = [x.read_value() if isinstance(x, Variable) else x for x in inputs]
        return getattr(ufunc, method)(*values, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return func(*_read_all(args), **{k: _read_all(v) for k, v in kwargs.items()})

    def __bool__(self) -> bool:
        return bool(self.read_value())

    def __int__(self) -> int:
        return int(self.read_value())

    def __float__(self) -> float:
        return float(self.read_value())

    def __len__(self) -> int:
        return len(self._buffer)

    def __getitem__(self, key: Any) -> Any:
        return self.read_value()[key]

    def __getattr__(self, name: str) -> Any:
        """The value's other array attributes and methods (``v.T``, ``v.sum(axis=0)``, ``v.reshape(...)``):
        of a NumPy copy eagerly, of a ``graph.read`` while traced."""
        if name.startswith("_"):
            raise AttributeError(f"'Variable' object has no attribute {name!r}")
        return getattr(self.read_value(), name)

    def __repr__(self) -> str:
        return f"kiln.Variable(shape={self.shape}, dtype={self.dtype.name}, value={self._synced().tolist()!r})"

    __hash__ = object.__hash__  # identity, as the trace cache keys variables (``==`` is elementwise)


def _read_all(value: Any) -> Any:
    """``value`` with every variable in it (in lists and tuples too: ``np.stack([v, w])``) read."""
    if isinstance(value, Variable):
        return value.read_value()
    if isinstance(value, (list, tuple)):
        return type(value)(_read_all(v) for v in value)
    return value


def _binary(ufunc: np.ufunc) -> tuple[Any, Any]:
    def forward(self: Variable, other: Any) -> Any:
        return ufunc(self.read_value(), other)

    def reflected(self: Variable, other: Any) -> Any:
        return ufunc(other, self.read_value())

    return forward, reflected


for _name, _ufunc in {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "truediv": np.true_divide,
    "floordiv": np.floor_divide,
    "mod": np.remainder,
    "pow": np.power,
    "matmul": np.matmul,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}.items():
    _fwd, _rev = _binary(_ufunc)
    setattr(Variable, f"__{_name}__", _fwd)
    setattr(Variable, f"__r{_name}__", _rev)

for _name, _ufunc in {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
                      "eq": np.equal, "ne": np.not_equal}.items():
    setattr(Variable, f"__{_name}__", _binary(_ufunc)[0])

for _name, _ufunc in {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}.items():
    setattr(Variable, f"__{_name}__", lambda self, _u=_ufunc: _u(self.read_value()))
