"""``kiln.random``: random numbers drawn on every call of a compiled function, in program order.

A :class:`Generator` keeps its state (a key and a counter, two uint64) in a
:class:`kiln.Variable`, so a draw is a variable read and write: ordered with the function's
other effects and fresh on every call. The numbers are SplitMix64 over a counter, computed with
NumPy's own uint64 operations, which kiln traces like any NumPy code: a generator gives the
same numbers run eagerly and compiled. They are not NumPy's numbers (NumPy's generators are
PCG64 and MT19937); the same seed gives the same numbers from one run to the next.

Inside a traced function NumPy's own ``np.random`` functions (``random``, ``rand``, ``randn``,
``uniform``, ``normal``, ``standard_normal``, ``randint``, ``permutation``, ``shuffle``, ``seed``) draw from
kiln's global stream, and ``np.random.default_rng(seed)`` makes a kiln Generator that starts from
its seed on each call, as NumPy's does. The global stream is seeded by :func:`seed`, and by
``np.random.seed`` (kiln wraps it: NumPy's generator is seeded as before, then kiln's).
Methods of a NumPy generator made outside the function would draw once, while tracing, and
freeze the numbers into the compiled code: they are refused.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend import creation, trace_context
from kiln.frontend.tensor import Tensor, as_tensor
from kiln.frontend.variables import Variable, creating_slots

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)

Size = int | Sequence[int] | None


def _mix(z: Any) -> Any:
    """SplitMix64's output function (on uint64 arrays, eager or traced)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _initial(seed: int | None) -> np.ndarray:
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"kiln.random: a seed is an int, got {type(seed).__name__}")
    key = _mix(np.array([int(seed) % 2**64], np.uint64) + _GOLDEN)[0]
    return np.array([key, 0], np.uint64)


def _shape(size: Size) -> tuple[int, ...]:
    if size is None:
        return ()
    dims = (size,) if isinstance(size, (int, np.integer, Tensor)) else tuple(size)
    if any(isinstance(d, Tensor) for d in dims):
        raise NotImplementedError(
            "a random array of a size known only at run time (a traced value, such as a NumPy scalar argument): "
            "kiln makes arrays whose sizes are known when it traces. Pass the size as a Python int (each new "
            "value traces again) or take it from an array's shape (x.shape[0])"
        )
    return tuple(int(d) for d in dims)


class Generator:
    """``kiln.random.Generator(seed=None)``: ``random``, ``uniform``, ``normal``,
    ``standard_normal``, ``integers``, ``permutation`` and ``shuffle``, in the style of NumPy's Generator
    and ``tf.random.Generator``. Made outside a function, its state lives across calls; made
    inside one (``np.random.default_rng(seed)``), each call starts from the seed."""

    def __init__(self, seed: int | None = None) -> None:
        initial = _initial(seed)
        if trace_context.current() is None:
            self._state = Variable(initial)
            return
        with creating_slots():  # state for this trace, reset from the seed where the generator is made
            self._state = Variable(initial)
        self._state.assign(initial)

    def _bits(self, shape: tuple[int, ...]) -> Any:
        """``prod(shape)`` fresh uint64 words in ``shape``; the counter moves past them."""
        n = int(np.prod(shape, dtype=np.int64))
        state = self._state.read_value()
        count = state[1:]
        index = count + np.arange(1, n + 1, dtype=np.uint64)
        self._state.assign(np.concatenate([state[:1], count + np.uint64(n)]))
        return _mix(state[0] + index * _GOLDEN).reshape(shape)

    def seed(self, seed: int | None = None) -> None:
        """Start again from ``seed`` (in program order inside a function)."""
        self._state.assign(_initial(seed))

    def random(self, size: Size = None, dtype: Any = np.float64) -> Any:
        """Uniform in [0, 1): 53 random bits for float64, 24 for float32."""
        dt = np.dtype(dtype)
        bits = self._bits(_shape(size))
        if dt == np.float32:
            return (bits >> np.uint64(40)).astype(np.float32) * np.float32(2.0**-24)
        if dt != np.float64:
            raise TypeError(f"Generator.random: dtype float64 or float32, got {dt}")
        return (bits >> np.uint64(11)).astype(np.float64) * (2.0**-53)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Size = None) -> Any:
        """Uniform in [low, high)."""
        return low + (high - low) * self.random(size if size is not None else np.broadcast_shapes(np.shape(low), np.shape(high)))

    def standard_normal(self, size: Size = None, dtype: Any = np.float64) -> Any:
        """Normal(0, 1) by the Box-Muller transform of two uniforms."""
        shape = _shape(size)
        u1 = 1.0 - self.random(shape)  # in (0, 1]: log is finite
        u2 = self.random(shape)
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos((2.0 * np.pi) * u2)
        return z.astype(dtype) if np.dtype(dtype) != np.float64 else z

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Size = None) -> Any:
        """Normal(loc, scale)."""
        shape = size if size is not None else np.broadcast_shapes(np.shape(loc), np.shape(scale))
        return loc + scale * self.standard_normal(shape)

    def integers(self, low: int, high: int | None = None, size: Size = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> Any:
        """Integers in [low, high) ([low, high] with ``endpoint``); ``high=None``: [0, low)."""
        if high is None:
            low, high = 0, low
        if not all(isinstance(v, (int, np.integer)) for v in (low, high)):
            raise TypeError("Generator.integers: low and high are Python or NumPy ints (known when tracing)")
        span = int(high) - int(low) + (1 if endpoint else 0)
        if span <= 0:
            raise ValueError(f"Generator.integers: high must be above low, got low={low}, high={high}")
        words = self._bits(_shape(size)) % np.uint64(span)  # bias below span / 2**64
        return (words.astype(np.int64) + np.int64(low)).astype(dtype)

    def permutation(self, x: Any) -> Any:
        """A shuffled ``arange(x)`` for an int, else a shuffled copy of ``x`` along its first axis."""
        order = self._order(int(x) if isinstance(x, (int, np.integer)) else len(x))
        if isinstance(x, (int, np.integer)):
            return order
        if trace_context.current() is not None:
            x = as_tensor(x)  # a NumPy array indexed by traced positions
        return x[order]

    def shuffle(self, x: Any, axis: int = 0) -> None:
        """Permute ``x`` in place along its first axis, by :meth:`permutation`'s order."""
        if axis != 0:
            raise NotImplementedError(f"{trace_context.here()}: Generator.shuffle(x, axis={axis}): kiln shuffles along axis 0")
        if isinstance(x, list):
            raise NotImplementedError(
                f"{trace_context.here()}: kiln.random shuffles arrays in place, not a list: the positions are known "
                "only when the call runs, and a list's elements are Python values; shuffle np.array(xs)"
            )
        if trace_context.current() is not None:
            x = as_tensor(x)
        x[...] = x[self._order(len(x))]

    def _order(self, n: int) -> Any:
        """A random permutation of ``0 .. n-1``: the order that sorts ``n`` uniforms."""
        return np.argsort(self.random(n), kind="stable")


def _numpy_seed() -> int:
    """A seed from NumPy's global generator's state, without drawing from it: kiln's global
    stream follows an ``np.random.seed`` made before kiln was imported."""
    state = np.random.get_state(legacy=True)
    keys, pos = state[1], state[2]  # type: ignore[index]
    digest = hashlib.sha256(keys.tobytes() + int(pos).to_bytes(8, "little")).digest()
    return int.from_bytes(digest[:8], "little")


_GLOBAL = Generator(_numpy_seed())


def seed(value: int | None = None) -> None:
    """Seed kiln's global stream (what ``np.random`` functions draw from in compiled code)."""
    _GLOBAL.seed(value)


def default_rng(seed: int | None = None) -> Generator:
    """``np.random.default_rng`` inside a traced function: a kiln Generator."""
    return Generator(seed)


def _global(method: str) -> Callable[..., Any]:
    def draw(*args: Any, **kwargs: Any) -> Any:
        return getattr(_GLOBAL, method)(*args, **kwargs)

    draw.__name__ = method
    return draw


def _rand(*dims: int) -> Any:
    return _GLOBAL.random(dims or None)


def _randn(*dims: int) -> Any:
    return _GLOBAL.standard_normal(dims or None)


def _randint(low: int, high: int | None = None, size: Size = None, dtype: Any = np.int64) -> Any:
    return _GLOBAL.integers(low, high, size, dtype)


def _random(size: Size = None) -> Any:
    return _GLOBAL.random(size)


#: NumPy's random functions and their staged versions inside a trace
STAGED: dict[Any, Callable[..., Any]] = {
    np.random.random: _random,
    np.random.random_sample: _random,
    np.random.rand: _rand,
    np.random.randn: _randn,
    np.random.uniform: _global("uniform"),
    np.random.normal: _global("normal"),
    np.random.standard_normal: _global("standard_normal"),
    np.random.randint: _randint,
    np.random.permutation: _global("permutation"),
    np.random.shuffle: _global("shuffle"),
    np.random.seed: seed,
    np.random.default_rng: default_rng,
}
creation.TRACED.update(STAGED)


def is_numpy_generator_method(func: Any) -> bool:
    """Whether ``func`` is a method of a NumPy random generator (``np.random.choice`` is one of
    NumPy's global RandomState)."""
    return isinstance(getattr(func, "__self__", None), (np.random.Generator, np.random.RandomState, np.random.BitGenerator))


def refuse_numpy_generator(func: Any) -> None:
    """Raise for a method of a NumPy random generator called while tracing (it would draw once)."""
    if is_numpy_generator_method(func):
        owner = func.__self__
        name = getattr(func, "__name__", "a method")
        what = (f"np.random.{name} (not one of the np.random functions kiln stages: docs/random.md)"
                if owner is np.random.mtrand._rand else f"{type(owner).__name__}.{name} of a NumPy generator")
        raise NotImplementedError(
            f"{trace_context.here()}: {what} would draw once, while "
            "tracing, and the compiled code would return those numbers on every call. Use kiln.random.Generator "
            "(made outside the function: its state lives across calls), np.random.default_rng(seed) inside the "
            "function, or the np.random functions, which kiln stages"
        )


def _wrap_numpy_seed() -> None:
    """``np.random.seed(s)`` seeds kiln's global stream too (NumPy's is seeded as before)."""
    original = np.random.seed
    if getattr(original, "__kiln_wrapped__", False):
        return

    def seed_both(*args: Any, **kwargs: Any) -> None:
        original(*args, **kwargs)
        value = args[0] if args else kwargs.get("seed")
        if trace_context.current() is None and (value is None or isinstance(value, (int, np.integer))):
            seed(None if value is None else int(value))

    seed_both.__name__ = seed_both.__qualname__ = "seed"  # it is np.random.seed
    seed_both.__module__ = getattr(original, "__module__", None) or "numpy.random"
    seed_both.__kiln_wrapped__ = True  # type: ignore[attr-defined]
    seed_both.__doc__ = original.__doc__
    np.random.seed = seed_both  # type: ignore[assignment]
    creation.TRACED[seed_both] = seed


_wrap_numpy_seed()
sys.modules.setdefault("kiln.random", sys.modules[__name__])  # `import kiln.random` works too
