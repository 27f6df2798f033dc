"""What the generator knows about a value: its NumPy type, a bound, and whether it is exact.

A generated program must have one right answer, so the generator reasons about
every expression it writes:

* **Type and aliasing** come from NumPy itself. Each value carries a *proto*: a
  real NumPy object of the value's type and shape (an array, a NumPy scalar or a
  Python number) computed by applying the same operation to the operands'
  protos. ``x[0]`` of a 1-D proto is a NumPy scalar (a copy), ``x[1:]`` is a
  view sharing the proto's memory: the generator learns NEP 50 promotion,
  broadcasting, views and casting errors from NumPy rather than from a table.
* **Bounds** (``mag``, an upper bound on ``|v|``) keep integers far from
  overflow: an expression whose bound exceeds its dtype's range is not
  written. The check that runs the program eagerly enforces the bounds that
  loops could break (:data:`INT_LIMIT`, :data:`FLOAT_LIMIT` on every local at
  every line), so the static reasoning holds between statements.
* **Exactness**: a floating value is *exact* when it is a multiple of
  ``2**-g`` small enough for its mantissa, so any evaluation order gives the
  same bits. Only exact values decide control flow, indices, comparisons and
  float-to-int casts; inexact ones (``/``, ``sin``, a sum that could round) only
  flow to results, which are compared with a tolerance. A rounding difference
  therefore never flips a branch into a false "mismatch".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: every integer a generated function holds between statements stays within this
INT_LIMIT = 2**14
#: every float a generated function holds between statements stays within this
FLOAT_LIMIT = 2.0**12
#: exact floats stored in variables are multiples of 2**-G_MAX
G_MAX = 8
#: bits of the significand, per floating dtype
MANTISSA = {"float32": 24, "float64": 53}
#: the largest magnitude an integer expression may reach inside one statement
INT_RANGE = {"int32": 2.0**30, "int64": 2.0**60, "pyint": 2.0**60}

DTYPES = ("bool", "int32", "int64", "float32", "float64")


def kind_of(proto: Any) -> str:
    """``'b'``, ``'i'`` or ``'f'``: the kind of a proto's dtype (Python scalars included)."""
    k = np.asarray(proto).dtype.kind
    return {"b": "b", "i": "i", "u": "i", "f": "f"}.get(k, "?")


def dtype_name(proto: Any) -> str:
    """The dtype of a proto; Python scalars are ``pyint``/``pyfloat``/``pybool`` (weak in NEP 50)."""
    if isinstance(proto, bool):
        return "pybool"
    if isinstance(proto, int):
        return "pyint"
    if isinstance(proto, float):
        return "pyfloat"
    return str(np.asarray(proto).dtype)


def shape_of(proto: Any) -> tuple[int, ...]:
    return tuple(np.shape(proto))


def is_array(proto: Any) -> bool:
    """An ndarray (mutable, may be a view), as opposed to a NumPy scalar or a Python number."""
    return isinstance(proto, np.ndarray)


def is_py(proto: Any) -> bool:
    """A Python number (weak in NEP 50, no ``astype``), not a NumPy scalar (``np.float64`` is a ``float``)."""
    return type(proto) in (int, float, bool)


def root_of(proto: np.ndarray) -> np.ndarray:
    """The array owning a proto's memory (NumPy's ``.base`` chain)."""
    while isinstance(proto.base, np.ndarray):
        proto = proto.base
    return proto


def fits(dtype: str, mag: float, g: int) -> bool:
    """Whether every multiple of ``2**-g`` up to ``mag`` is exactly representable in ``dtype``."""
    if dtype in ("float32", "float64", "pyfloat"):
        bits = math.ceil(math.log2(mag + 1.0)) + g
        return bits <= MANTISSA.get(dtype, 53) - 1
    if dtype in INT_RANGE:
        return mag <= INT_RANGE[dtype]
    return True


@dataclass
class Val:
    """A generated expression: source text, NumPy proto, bound, granularity and exactness."""

    src: str
    proto: Any
    mag: float = 1.0
    g: int = 0
    exact: bool = True
    #: integer range known exactly (loop indices and constants), for indexing
    lo: int | None = None
    hi: int | None = None
    #: the value is a Python int at trace time in kiln too (literals, shapes)
    static_int: bool = False

    @property
    def kind(self) -> str:
        return kind_of(self.proto)

    @property
    def dtype(self) -> str:
        return dtype_name(self.proto)

    @property
    def shape(self) -> tuple[int, ...]:
        return shape_of(self.proto)

    def checked(self) -> Val:
        """This value with ``exact`` cleared when its bits no longer fit (floats) or ``None`` on overflow."""
        if self.kind == "f" and self.exact and not fits(self.dtype, self.mag, self.g):
            self.exact = False
        if self.kind == "i" and not fits(self.dtype, self.mag, 0):
            raise Overflow(self.src)
        return self


class Overflow(Exception):
    """An integer expression could leave its dtype's range: the generator picks something else."""


@dataclass
class Storage:
    """One array memory (or one immutable scalar) of the generated program.

    ``exact`` is a class fixed when the storage is made: an exact storage only
    ever receives exact values, so every read of it is exact.
    """

    exact: bool
    mag: float
    g: int
    kind: str
    #: how many writes it has had (a view made before the last one is "stale")
    version: int = 0

    def widen(self) -> None:
        """Forget the bound: in a loop, the storage may grow up to the checked limits."""
        self.mag = max(self.mag, INT_LIMIT if self.kind == "i" else FLOAT_LIMIT if self.kind == "f" else 1.0)
        if self.kind == "f" and self.exact:
            self.g = max(self.g, G_MAX)


@dataclass
class Var:
    """A name bound in the generated function."""

    name: str
    proto: Any
    roots: frozenset[int]
    #: definitely bound on every path to here
    bound: bool = True
    #: the name may hold different types on different paths (not read again)
    usable: bool = True
    #: written only by its own construct (a while loop's counter, an accumulator)
    reserved: bool = False
    #: a Python int loop index with this exact range
    lo: int | None = None
    hi: int | None = None
    #: an ndarray on every path (writes through it are in place)
    writable: bool = True
    #: a traced value in kiln (False for Python ints known at trace time)
    static_int: bool = False
    #: a view (of another array's memory), and its storages' versions when it was made
    view: bool = False
    seen: int = 0


@dataclass
class Scope:
    """The names visible at a point of the generated function."""

    vars: dict[str, Var] = field(default_factory=dict)

    def copy(self) -> Scope:
        return Scope(dict(self.vars))

    def readable(self) -> list[Var]:
        return [v for v in self.vars.values() if v.bound and v.usable]
