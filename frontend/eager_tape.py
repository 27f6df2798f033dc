"""An eager ``kiln.GradientTape``: records NumPy calls on variables' values, then replays them
compiled to differentiate.

Outside a ``kiln.function`` a tape cannot see ordinary NumPy arithmetic, so inside its
``with`` block every read of a :class:`kiln.Variable` returns a :class:`TapeArray`: an ndarray
that computes with NumPy as usual and records each NumPy call made on it (ufuncs and their
methods, NumPy functions, indexing, ``.T``/``reshape``/``sum``...). ``gradient`` replays the
recorded calls in a ``kiln.grad`` of a function whose arguments are the values read, so the
derivative rules are the traced ones (:mod:`kiln.passes.graph_autodiff`), and adds up each
variable's reads. Python control flow was run eagerly: the gradient is that of the path taken,
as in TensorFlow's eager mode. What the tape cannot record (in-place writes to a recorded
array, ``out=``, a method that makes an unrecorded copy) raises instead of giving a wrong
gradient. Watching plain NumPy arrays eagerly is refused: their operations cannot be seen;
use a variable, or the tape inside a ``kiln.function``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kiln.frontend.variables import EAGER_READS, Variable

if TYPE_CHECKING:
    from kiln.frontend.gradient_tape import GradientTape


@dataclass(frozen=True)
class _Ref:
    """A recorded value in a replayed call: the ``index``-th result of entry ``node``."""

    node: int
    index: int | None = None


@dataclass
class _Entry:
    """A source read (``fn`` None: a variable's value) or a recorded call."""

    fn: Callable[..., Any] | None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] | None = None
    variable: Variable | None = None


class EagerRecording:
    """The calls one eager tape recorded."""

    def __init__(self, tape: GradientTape) -> None:
        self.tape = tape
        self.entries: list[_Entry] = []
        self.values: list[np.ndarray] = []  # the source reads' values, in order

    def start(self) -> None:
        EAGER_READS.hooks.append(self.read)

    def stop(self) -> None:
        EAGER_READS.hooks.remove(self.read)

    def watch(self, value: Any) -> None:
        if isinstance(value, Variable):
            return
        if isinstance(value, TapeArray) and value._rec is self:
            return
        raise NotImplementedError(
            "GradientTape.watch of a NumPy array outside kiln.function: NumPy's own operations on it cannot be "
            "recorded eagerly. Hold it in a kiln.Variable (its reads are recorded), or use the tape inside a "
            "kiln.function, where watch works on any array"
        )

    # ------------------------------------------------------------------ recording

    def read(self, var: Variable, value: np.ndarray) -> Any:
        """A variable's value, recorded as a source."""
        if value.dtype.kind != "f":
            return value
        self.entries.append(_Entry(None, variable=var))
        self.values.append(value)
        return self._wrap(value, _Ref(len(self.entries) - 1))

    def record(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Any:
        """``result`` of ``fn(*args, **kwargs)`` as recorded arrays."""
        node = len(self.entries)
        self.entries.append(_Entry(fn, _refs(args, self), {k: _refs(v, self) for k, v in kwargs.items()}))
        if isinstance(result, tuple):
            return tuple(self._wrap(r, _Ref(node, i)) for i, r in enumerate(result))
        return self._wrap(result, _Ref(node))

    def _wrap(self, value: Any, ref: _Ref) -> Any:
        if not isinstance(value, (np.ndarray, np.generic)):
            return value
        out = np.asarray(value).view(TapeArray)
        out._rec, out._ref = self, ref
        return out

    # ------------------------------------------------------------------ replaying

    def gradient(self, target: Any, leaves: list[Any], zero: bool) -> list[Any]:
        from kiln.frontend.gradients import transform

        if self.tape._recording:
            raise RuntimeError("GradientTape.gradient inside the tape's `with` block: call it after the block")
        reads = {i: e.variable for i, e in enumerate(self.entries) if e.fn is None}
        order = list(reads)
        wanted = [i for i in order if any(reads[i] is leaf for leaf in leaves)]
        for leaf in leaves:
            if not isinstance(leaf, Variable):
                self.watch(leaf)  # raises for what cannot be a source eagerly
        grads: dict[int, np.ndarray] = {}
        if isinstance(target, TapeArray) and target._rec is self and wanted:
            target_ref = target._ref

            def replay(*sources: Any) -> Any:
                values: dict[int, Any] = dict(zip(order, sources, strict=True))
                for i, entry in enumerate(self.entries):
                    if entry.fn is not None:
                        values[i] = entry.fn(*_resolve(entry.args, values), **_resolve(entry.kwargs or {}, values))
                return np.sum(_resolve(target_ref, values))

            positions = tuple(order.index(i) for i in wanted)
            # the recorded calls are the path Python took: replayed as they are, not converted
            gradient = transform(replay, positions, with_value=False, autograph=False)
            found = gradient(*(self.values[order.index(i)] for i in order))
            grads = dict(zip(wanted, found, strict=True))
        out: list[Any] = []
        for leaf in leaves:
            parts = [g for i, g in grads.items() if reads[i] is leaf]
            total = sum(parts[1:], parts[0]) if parts else None
            if total is None and zero:
                total = np.zeros(leaf.shape, leaf.dtype)
            out.append(total)
        return out


def _refs(value: Any, rec: EagerRecording) -> Any:
    """``value`` with this recording's arrays replaced by references (other arrays copied: the
    user may change them before the gradient is taken)."""
    if isinstance(value, TapeArray):
        if value._rec is not rec or value._ref is None:
            raise NotImplementedError(_UNRECORDED)
        return value._ref
    if isinstance(value, (list, tuple)):
        return type(value)(_refs(v, rec) for v in value)
    if isinstance(value, dict):
        return {k: _refs(v, rec) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


def _resolve(value: Any, values: dict[int, Any]) -> Any:
    if isinstance(value, _Ref):
        v = values[value.node]
        return v if value.index is None else v[value.index]
    if isinstance(value, (list, tuple)):
        return type(value)(_resolve(v, values) for v in value)
    if isinstance(value, dict):
        return {k: _resolve(v, values) for k, v in value.items()}
    return value


def _read_variables(value: Any) -> Any:
    """``value`` with its variables read (through the tape's read hook: recorded sources)."""
    if isinstance(value, Variable):
        return value.read_value()
    if isinstance(value, (list, tuple)):
        return type(value)(_read_variables(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """``value`` with recorded arrays as plain ndarrays (for NumPy to compute on)."""
    if isinstance(value, TapeArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _recording(values: Any) -> EagerRecording:
    """The recording of the first followed array among ``values`` (in lists and tuples too)."""
    found = _find_recording(values)
    assert found is not None, "a TapeArray call without a recorded operand"
    return found


def _find_recording(values: Any) -> EagerRecording | None:
    for v in values:
        if isinstance(v, TapeArray) and v._rec is not None:
            return v._rec
        if isinstance(v, (list, tuple)) and (found := _find_recording(v)) is not None:
            return found
    return None


_UNRECORDED = (
    "an eager GradientTape cannot follow this array (made by an in-place write, out=, or a method the tape "
    "does not record); compute it from the variables with NumPy functions and operators, or use the tape "
    "inside a kiln.function"
)


class TapeArray(np.ndarray):
    """An ndarray an eager GradientTape follows (see the module docstring)."""

    _rec: EagerRecording | None = None
    _ref: _Ref | None = None

    def __array_finalize__(self, obj: Any) -> None:
        # a view NumPy made by itself (not through a recorded call) is not followed
        self._rec, self._ref = getattr(obj, "_rec", None), None

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if kwargs.get("out") is not None:
            raise NotImplementedError(_UNRECORDED + f" ({ufunc.__name__} with out=)")
        inputs = _read_variables(inputs)  # each read recorded as a source, not read again in the replay
        rec = _recording(inputs)
        result = getattr(ufunc, method)(*_plain(inputs), **_plain(kwargs))
        return rec.record(getattr(ufunc, method), inputs, kwargs, result)

    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if kwargs.get("out") is not None:
            raise NotImplementedError(_UNRECORDED + f" ({func.__name__} with out=)")
        args, kwargs = _read_variables(args), {k: _read_variables(v) for k, v in kwargs.items()}
        rec = _recording([*args, *kwargs.values()])
        result = func(*_plain(args), **_plain(kwargs))
        return rec.record(func, args, kwargs, result)

    def __getitem__(self, key: Any) -> Any:
        rec = _recording([self])
        return rec.record(operator.getitem, (self, key), {}, self.view(np.ndarray)[_plain(key)])

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))

    def __str__(self) -> str:
        return str(self.view(np.ndarray))

    def __setitem__(self, key: Any, value: Any) -> None:
        raise NotImplementedError(_UNRECORDED + " (x[...] = v)")

    def __reduce__(self) -> Any:
        return np.asarray(self).__reduce__()

    @property
    def T(self) -> Any:  # noqa: N802 (NumPy's name)
        return np.transpose(self)

    def transpose(self, *axes: Any) -> Any:
        return np.transpose(self, axes[0] if len(axes) == 1 else (axes or None))

    def reshape(self, *shape: Any, **kwargs: Any) -> Any:
        return np.reshape(self, shape[0] if len(shape) == 1 else shape, **kwargs)

    def ravel(self, order: str = "C") -> Any:
        return np.ravel(self, order)

    def flatten(self, order: str = "C") -> Any:
        return np.ravel(self, order).copy()

    def copy(self, order: str = "C") -> Any:
        return np.copy(self, order)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        rec = _recording([self])
        return rec.record(_astype, (self, dtype), {}, self.view(np.ndarray).astype(dtype, *args, **kwargs))

    def dot(self, other: Any) -> Any:
        return np.dot(self, other)


def _astype(x: Any, dtype: Any) -> Any:
    return x.astype(dtype)


def _method(name: str) -> Callable[..., Any]:
    fn = getattr(np, name)

    def method(self: TapeArray, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("sum", "mean", "max", "min", "prod", "std", "var", "clip", "cumsum", "cumprod", "squeeze", "swapaxes"):
    setattr(TapeArray, _name, _method(_name))
