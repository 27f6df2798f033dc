"""Random typed expressions over the names in scope, each with its NumPy proto and bounds.

:meth:`ExprGen.expr` returns a value of a requested shape, kind (``b``/``i``/``f``)
and, when asked, exactness (see :mod:`kiln.fuzz.model`). Every operation is first
applied to the operands' protos, so a combination NumPy rejects (``bool - bool``,
a cast ``+=`` cannot do) is never written, and the result's dtype, shape and
view-ness are NumPy's own.
"""

from __future__ import annotations

import math
import random
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.fuzz.config import Config
from kiln.fuzz.model import (
    FLOAT_LIMIT,
    G_MAX,
    INT_LIMIT,
    Overflow,
    Scope,
    Storage,
    Val,
    Var,
    is_array,
    is_py,
    kind_of,
    root_of,
)

Shape = tuple[int, ...]


class Reject(Exception):
    """This choice does not work here (NumPy rejects it, or it breaks a bound): choose again."""


def proto_eval(fn: Callable[..., Any], *protos: Any) -> Any:
    """Apply ``fn`` to protos as NumPy would, turning NumPy's refusal into :class:`Reject`."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(*protos)
    except Exception as e:  # NumPy's TypeError, ValueError, IndexError, UFuncTypeError...
        raise Reject(str(e)) from None
    if 0 in np.shape(out):
        raise Reject("empty array")  # reductions of it could fail, and it tests nothing
    return out


def np_dtype(name: str) -> str:
    return f"np.{name}"


class ExprGen:
    """Expressions; :class:`kiln.fuzz.generator.ProgramGen` adds statements on top."""

    def __init__(self, rng: random.Random, config: Config) -> None:
        self.rng = rng
        self.cfg = config
        self.scope = Scope()
        self.storages: dict[int, Storage] = {}
        self._alive: list[Any] = []  # keeps storage protos alive so their ids stay unique
        self._in_index = False
        #: storages written so far (a helper's written parameters)
        self.written: set[int] = set()

    # ------------------------------------------------------------------ storages and names

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def new_storage(self, val: Val) -> int:
        token = val.proto if is_array(val.proto) else object()
        self._alive.append(token)
        key = id(token)
        self.storages[key] = Storage(exact=val.exact, mag=val.mag, g=val.g, kind=val.kind)
        return key

    def roots_for(self, val: Val) -> frozenset[int]:
        """The storages a value lives in once bound to a name (a view keeps its base's)."""
        if is_array(val.proto):
            root = root_of(val.proto)
            if id(root) in self.storages:
                return frozenset({id(root)})
            key = id(root)
            self._alive.append(root)
            self.storages[key] = Storage(exact=val.exact, mag=val.mag, g=val.g, kind=val.kind)
            return frozenset({key})
        return frozenset({self.new_storage(val)})

    def read(self, var: Var) -> Val:
        if var.lo is not None:
            assert var.hi is not None
            return Val(var.name, var.lo, mag=max(abs(var.lo), abs(var.hi)), lo=var.lo, hi=var.hi,
                       static_int=var.static_int)
        stores = [self.storages[r] for r in var.roots]
        return Val(
            var.name,
            var.proto,
            mag=max(s.mag for s in stores),
            g=max(s.g for s in stores),
            exact=all(s.exact for s in stores),
            static_int=var.static_int,
        )

    def write_ok(self, var: Var, val: Val) -> bool:
        """Whether ``val`` may be stored into ``var``'s memory (exact storages take exact values only)."""
        for r in var.roots:
            s = self.storages[r]
            if s.exact and s.kind == "f" and (not val.exact or val.g > G_MAX):
                return False
            if s.exact and not val.exact:
                return False
        return True

    def note_write(self, var: Var, val: Val) -> None:
        self.written |= var.roots
        for r in var.roots:
            s = self.storages[r]
            s.version += 1
            s.mag = max(s.mag, min(val.mag, INT_LIMIT if s.kind == "i" else FLOAT_LIMIT))
            s.g = max(s.g, val.g) if s.kind == "f" else 0

    def widen_all(self) -> None:
        """Entering a loop: any storage may grow up to the limits the eager check enforces."""
        for s in self.storages.values():
            s.widen()

    def stale(self, var: Var) -> bool:
        """A view whose base was written after the view was made."""
        return var.view and sum(self.storages[r].version for r in var.roots) != var.seen

    def vars_of(self, kinds: str = "bif", arrays_only: bool = False) -> list[Var]:
        out = []
        for v in self.scope.readable():
            if self.loops and not self.cfg.stale_views and self.stale(v):
                continue
            if v.reserved and v.lo is None and v.name.startswith("acc"):
                continue
            if kind_of(v.proto) in kinds and (not arrays_only or (is_array(v.proto) and v.writable)):
                out.append(v)
        return out

    # ------------------------------------------------------------------ constants

    def const(self, kind: str, small: bool = False) -> Val:
        """A Python or NumPy scalar constant of ``kind``."""
        rng = self.rng
        if kind == "b":
            b = rng.random() < 0.5
            return Val(repr(b), b, mag=1)
        if kind == "i":
            n = rng.randint(1, 3) if small else rng.randint(-5, 6)
            if rng.random() < 0.2:
                dt = rng.choice(("int32", "int64"))
                return Val(f"np.{dt}({n})", getattr(np, dt)(n), mag=abs(n) or 1)
            return Val(f"({n})" if n < 0 else repr(n), n, mag=abs(n) or 1, lo=n, hi=n, static_int=True)
        q = rng.randint(1, 8) if small else rng.randint(-16, 16)
        x = q / 4
        if rng.random() < 0.2:
            dt = rng.choice(("float32", "float64"))
            return Val(f"np.{dt}({x!r})", getattr(np, dt)(x), mag=abs(x) or 1, g=2)
        return Val(f"({x!r})" if x < 0 else repr(x), x, mag=abs(x) or 1, g=2)

    def filled(self, shape: Shape, kind: str) -> Val:
        """``np.full``/``np.ones``/``np.zeros`` of ``shape`` (the fallback that always fits)."""
        dt = self.rng.choice({"b": ("bool",), "i": ("int32", "int64"), "f": ("float32", "float64")}[kind])
        if shape == ():
            c = self.const(kind)
            return c
        c = self.const(kind)
        shp = repr(shape) if len(shape) != 1 else str(shape[0])
        choice = self.rng.random()
        if choice < 0.2:
            src, fill = f"np.zeros({shp}, dtype=np.{dt})", 0
        elif choice < 0.4:
            src, fill = f"np.ones({shp}, dtype=np.{dt})", 1
        else:
            src, fill = f"np.full({shp}, {c.src}, dtype=np.{dt})", c.proto
        proto = proto_eval(lambda: np.full(shape, fill, dtype=dt))
        return Val(src, proto, mag=max(c.mag, 1), g=c.g).checked()

    # ------------------------------------------------------------------ indices

    def index(self, n: int, allow_data: bool = True) -> Val:
        """An integer index valid for an axis of length ``n`` on every path (no clamping needed)."""
        rng = self.rng
        options: list[Callable[[], Val]] = [lambda: self._const_index(n)]
        for v in self.scope.readable():
            if v.lo is not None and v.hi is not None:
                lo, hi = v.lo, v.hi
                if 0 <= lo and hi <= n - 1:
                    options += [lambda v=v: Val(v.name, v.lo, mag=v.hi, lo=v.lo, hi=v.hi)] * 3
                    options.append(lambda v=v: Val(f"({n - 1} - {v.name})", n - 1 - v.lo, mag=n, lo=n - 1 - v.hi, hi=n - 1 - v.lo))
                    options.append(lambda v=v: Val(f"(-1 - {v.name})", -1 - v.lo, mag=n, lo=-1 - v.hi, hi=-1 - v.lo))
                if 1 <= lo and hi - 1 <= n - 1:
                    options.append(lambda v=v: Val(f"({v.name} - 1)", v.lo - 1, mag=n, lo=v.lo - 1, hi=v.hi - 1))
                if 0 <= lo and hi + 1 <= n - 1:
                    options.append(lambda v=v: Val(f"({v.name} + 1)", v.lo + 1, mag=n, lo=v.lo + 1, hi=v.hi + 1))
        if allow_data and self.cfg.data_indices:
            options.append(lambda: self._data_index(n))
        for _ in range(4):
            try:
                return rng.choice(options)()
            except (Reject, Overflow):
                continue
        return self._const_index(n)

    def _const_index(self, n: int) -> Val:
        c = self.rng.randint(-n, n - 1)
        return Val(repr(c), c, mag=abs(c), lo=c, hi=c, static_int=True)

    def _data_index(self, n: int) -> Val:
        if self._in_index:
            raise Reject("an index inside an index")
        self._in_index = True
        try:
            e = self.expr((), "i", exact=True, depth=1)
        finally:
            self._in_index = False
        src = f"({e.src} % {n})"
        proto = proto_eval(lambda p: p % n, e.proto)
        if kind_of(proto) != "i":
            raise Reject("index kind")
        return Val(src, proto, mag=n, lo=0, hi=n - 1)

    # ------------------------------------------------------------------ leaves: names adapted to a shape

    def leaf(self, shape: Shape, kinds: str, exact: bool) -> Val:
        cands = [v for v in self.vars_of() if not (exact and not self.read(v).exact)]
        self.rng.shuffle(cands)
        for v in cands[:6]:
            base = self.read(v)
            try:
                got = self.adapt(base, shape)
            except (Reject, Overflow):
                continue
            if got is None:
                continue
            try:
                got = self.coerce(got, kinds, exact)
            except (Reject, Overflow):
                continue
            if got is not None:
                return got
        raise Reject("no leaf")

    def adapt(self, x: Val, shape: Shape) -> Val | None:
        """``x`` indexed, sliced, transposed or reduced to exactly ``shape`` (None if no way found)."""
        t = x.shape
        rng = self.rng
        if t == shape:
            if t and rng.random() < 0.25:
                return self.same_shape_view(x)
            return x
        if len(t) == len(shape) + 1:
            axis = rng.choice([k for k in range(len(t)) if t[:k] + t[k + 1:] == shape] or [None])
            if axis is None:
                return None
            if rng.random() < 0.55:
                return self.index_axis(x, axis)
            return self.reduce(x, axis)
        if len(t) > len(shape) + 1:
            axis = rng.randrange(len(t))
            y = self.index_axis(x, axis) if rng.random() < 0.5 else self.reduce(x, axis)
            return self.adapt(y, shape)
        if len(t) == len(shape) and len(t) >= 1:
            if len(t) >= 2 and t[::-1] == shape:
                return self.apply1(x, "{}.T", lambda p: p.T)
            if all(a >= b for a, b in zip(t, shape)):
                return self.slices(x, shape)
            if len(t) >= 2 and all(a >= b for a, b in zip(t[::-1], shape)):
                y = self.apply1(x, "{}.T", lambda p: p.T)
                return self.slices(y, shape)
        if math.prod(t) == math.prod(shape) and len(shape) >= 1 and rng.random() < 0.5:
            shp = repr(shape) if len(shape) != 1 else str(shape[0])
            return self.reshape_checked(self.apply1(x, "{}.reshape(%s)" % shp, lambda p: p.reshape(shape)), x)
        return None

    def reshape_checked(self, out: Val, x: Val) -> Val:
        """``out``, a reshape of ``x``, unless NumPy copied and the ``reshape_copies`` switch is off."""
        if not self.cfg.reshape_copies and is_array(x.proto) and not np.shares_memory(out.proto, x.proto):
            raise Reject("reshape copies")
        return out

    def same_shape_view(self, x: Val) -> Val:
        """``x`` as a view of itself, or as a new array of its shape that is easy to mistake for
        one (or for ``x`` itself): ``np.flip`` is a view, ``astype`` to the same dtype and
        ``np.positive`` copy, ``np.copy(x.T).T`` is a Fortran-ordered copy."""
        t = x.shape
        choice = self.rng.randrange(8)
        if choice == 0 and len(t) >= 1:
            return self.apply1(x, "{}[::-1]", lambda p: p[::-1])
        if choice == 1 and len(t) == 2 and t[0] == t[1]:
            return self.apply1(x, "{}.T", lambda p: p.T)
        if choice == 2 and len(t) >= 1:
            return self.apply1(x, "{}[:]", lambda p: p[:])
        if choice == 4 and len(t) >= 1:
            return self.apply1(x, "np.flip({}, 0)", lambda p: np.flip(p, 0))
        if choice == 5 and is_array(x.proto):
            return self.apply1(x, "{0}.astype({0}.dtype)", lambda p: p.astype(p.dtype))
        if choice == 6 and len(t) == 2:
            return self.apply1(x, "np.copy({}.T).T", lambda p: np.copy(p.T).T)
        if choice == 7 and is_array(x.proto) and x.kind != "b":
            return self.apply1(x, "np.positive({})", np.positive)
        return x

    def index_axis(self, x: Val, axis: int) -> Val:
        n = x.shape[axis]
        i = self.index(n)
        if axis == 0:
            src = f"{{}}[{i.src}]"
            key: Any = (i.proto,)
        elif axis == len(x.shape) - 1 and self.rng.random() < 0.5:
            src = f"{{}}[..., {i.src}]"
            key = (Ellipsis, i.proto)
        else:
            src = "{}[" + ":, " * axis + i.src + "]"
            key = (slice(None),) * axis + (i.proto,)
        out = self.apply1(x, src, lambda p: p[key])
        if not i.exact:
            raise Reject("inexact index")
        return out

    def slices(self, x: Val, shape: Shape) -> Val:
        """Slices of ``x`` per axis giving exactly ``shape``."""
        parts, keys = [], []
        for n, m in zip(x.shape, shape):
            text, key = self._slice_for(n, m)
            parts.append(text)
            keys.append(key)
        while parts and parts[-1] == ":":
            parts.pop()
            keys.pop()
        if not parts:
            return x
        src = "{}[" + ", ".join(parts) + "]"
        return self.apply1(x, src, lambda p: p[tuple(keys)])

    def _slice_for(self, n: int, m: int) -> tuple[str, slice]:
        rng = self.rng
        if n == m:
            return rng.choice([(":", slice(None)), (":", slice(None)), ("::-1", slice(None, None, -1))])
        forms = []
        a = rng.randint(0, n - m)
        forms.append((f"{a}:{a + m}", slice(a, a + m)))
        forms.append((f"{n - m}:", slice(n - m, None)))
        forms.append((f":{m}", slice(None, m)))
        forms.append((f"-{m}:", slice(-m, None)))
        forms.append((f":{m - n}", slice(None, m - n)))
        if 2 * m - 1 <= n:
            b = rng.randint(0, n - (2 * m - 1))
            forms.append((f"{b}::2" if b + 2 * m - 1 >= n - 1 else f"{b}:{b + 2 * m - 1}:2", slice(b, None, 2) if b + 2 * m - 1 >= n - 1 else slice(b, b + 2 * m - 1, 2)))
        forms.append((f"{n - 1}:{n - 1 - m}:-1" if n - 1 - m >= 0 else f"{n - 1}::-1", slice(n - 1, n - 1 - m if n - 1 - m >= 0 else None, -1)))
        text, key = rng.choice(forms)
        if len(range(*key.indices(n))) != m:
            return f"{a}:{a + m}", slice(a, a + m)
        return text, key

    def reduce(self, x: Val, axis: int) -> Val:
        n = x.shape[axis]
        ops = ["sum", "max", "min", "sum", "mean"] + (["prod"] if n <= 3 else [])
        op = self.rng.choice(ops)
        if x.kind == "b" and op in ("mean", "prod"):
            op = "sum"
        form = self.rng.random()
        if form < 0.6:
            src = f"{{}}.{op}(axis={axis})"
        else:
            src = f"np.{op}({{}}, axis={axis})"
        proto = proto_eval(lambda p: getattr(np, op)(p, axis=axis), x.proto)
        mag, g, exact = x.mag, x.g, x.exact
        if op == "sum":
            mag = x.mag * n
        elif op == "prod":
            mag, g = x.mag**n, x.g * n
        elif op == "mean":
            if n & (n - 1) == 0:
                g = x.g + int(math.log2(n))
            else:
                exact = False
        return Val(src.format(x.src), proto, mag=max(mag, 1), g=g, exact=exact).checked()

    # ------------------------------------------------------------------ coercion between kinds

    def coerce(self, x: Val, kinds: str, exact: bool) -> Val | None:
        if exact and not x.exact:
            return None
        if x.kind in kinds:
            return x
        want = self.rng.choice(kinds)
        if is_py(x.proto):
            return None  # Python scalars have no astype
        return self.astype(x, want)

    def astype(self, x: Val, kind: str) -> Val:
        dt = self.rng.choice({"b": ("bool",), "i": ("int32", "int64"), "f": ("float32", "float64")}[kind])
        if x.kind == "f" and kind != "f" and not x.exact:
            raise Reject("cast of an inexact float")
        if x.kind == "f" and kind == "i" and x.mag > 2.0**30:
            raise Reject("cast out of range")
        literal = re.fullmatch(r"\(?-?[\d.]+\)?", x.src) is not None
        if literal or (x.shape == () and not is_py(x.proto) and self.cfg.scalar_constructors and self.chance(0.006)):
            src, fn = f"np.{dt}({x.src})", lambda p: getattr(np, dt)(p)
        elif is_py(x.proto):  # perhaps a loop index, traced in kiln: np.asarray stages it
            src, fn = f"np.asarray({x.src}, dtype=np.{dt})", lambda p: np.asarray(p, dtype=dt)
        elif self.rng.random() < 0.8:
            src, fn = f"{x.src}.astype(np.{dt})", lambda p: p.astype(dt)
        else:
            src, fn = f"np.asarray({x.src}, dtype=np.{dt})", lambda p: np.asarray(p, dtype=dt)
        proto = proto_eval(fn, x.proto)
        mag = 1.0 if kind == "b" else x.mag + 1 if x.kind == "f" and kind == "i" else x.mag
        g = x.g if kind == "f" else 0
        return Val(src, proto, mag=mag, g=g, exact=x.exact).checked()

    # ------------------------------------------------------------------ composite expressions

    def apply1(self, x: Val, fmt: str, fn: Callable[[Any], Any], **stats: Any) -> Val:
        proto = proto_eval(fn, x.proto)
        out = Val(fmt.format(x.src), proto, mag=stats.get("mag", x.mag), g=stats.get("g", x.g),
                  exact=stats.get("exact", x.exact))
        return out.checked()

    def expr(self, shape: Shape, kinds: str = "bif", exact: bool = False, depth: int = 2) -> Val:
        """A value of exactly ``shape`` whose kind is in ``kinds`` (exact when asked)."""
        rng = self.rng
        for _ in range(12):
            try:
                r = rng.random()
                if depth <= 0 or r < 0.3:
                    val = self.leaf(shape, kinds, exact) if rng.random() < 0.85 else self.filled(shape, rng.choice(kinds))
                else:
                    val = self.composite(shape, kinds, exact, depth)
            except (Reject, Overflow):
                continue
            if val.shape == shape and val.kind in kinds and (val.exact or not exact):
                return val
        return self.filled(shape, rng.choice(kinds))

    def composite(self, shape: Shape, kinds: str, exact: bool, depth: int) -> Val:
        rng = self.rng
        want = rng.choice(kinds)
        table: list[tuple[float, Callable[[], Val]]] = []
        if want == "b":
            table += [(4, lambda: self.compare(shape, depth)), (2, lambda: self.logical(shape, depth))]
        else:
            table += [
                (5, lambda: self.arith(shape, want, exact, depth)),
                (2, lambda: self.unary(shape, want, exact, depth)),
                (1.5, lambda: self.reduction(shape, want, exact, depth)),
                (1, lambda: self.minmax(shape, want, exact, depth)),
            ]
            if self.cfg.matmul:
                table.append((1, lambda: self.matmul(shape, want, exact, depth)))
            if want == "f" and not exact:
                table.append((1.5, lambda: self.inexact_math(shape, depth)))
            if want == "i":
                table.append((1.2, lambda: self.intdiv(shape, exact, depth)))
        table += [
            (1, lambda: self.where(shape, want, exact, depth)),
            (0.5, lambda: self.astype(self.expr(shape, "bif".replace(want, ""), exact=True, depth=depth - 1), want)),
            (0.5, lambda: self.concat(shape, want, exact, depth)),
        ]
        total = sum(w for w, _ in table)
        pick = rng.random() * total
        for w, make in table:
            pick -= w
            if pick <= 0:
                return make()
        return table[-1][1]()

    def bshape(self, shape: Shape) -> Shape:
        """A shape that broadcasts to ``shape`` (a suffix, some axes set to 1)."""
        if not shape or self.rng.random() < 0.55:
            return shape
        k = self.rng.randint(0, len(shape))
        tail = list(shape[k:])
        for j in range(len(tail)):
            if self.rng.random() < 0.25:
                tail[j] = 1
        return tuple(tail)

    def operand(self, shape: Shape, kinds: str, exact: bool, depth: int) -> Val:
        if self.rng.random() < 0.3:
            return self.const(self.rng.choice(kinds))
        return self.expr(self.bshape(shape), kinds, exact, depth - 1)

    def binop(self, op: str, a: Val, b: Val, **stats: Any) -> Val:
        fn = _BINOPS[op]
        proto = proto_eval(fn, a.proto, b.proto)
        src = f"({a.src} {op} {b.src})" if op[0] not in "n" else f"{op}({a.src}, {b.src})"
        return Val(src, proto, **stats).checked()

    def arith(self, shape: Shape, kind: str, exact: bool, depth: int) -> Val:
        op = self.rng.choice(["+", "-", "*", "+", "-", "*", "/", "**"] if kind == "f" else ["+", "-", "*", "+", "-", "*", "**"])
        # bools take part in + and * (or / and), not in ** (NumPy computes bool ** 2 in int8)
        kinds = "if" if kind == "f" else "ib" if op in "+*" and self.chance(0.15) else "i"
        a = self.expr(shape, kinds, exact, depth - 1)
        b = self.operand(shape, kinds, exact, depth)
        if self.chance(0.5) and op != "**":
            a, b = b, a
        ex = a.exact and b.exact
        if op in "+-":
            return self.binop(op, a, b, mag=a.mag + b.mag, g=max(a.g, b.g), exact=ex)
        if op == "*":
            return self.binop(op, a, b, mag=a.mag * b.mag, g=a.g + b.g, exact=ex)
        if op == "**":
            p = self.rng.choice((2, 2, 3))
            c = Val(str(p), p, mag=p, static_int=True)
            return self.binop(op, a, c, mag=a.mag**p, g=a.g * p, exact=a.exact)
        # true division: by a power of two (exact) or by a value kept away from zero
        if self.chance(0.4):
            k = self.rng.choice((2, 4, 0.5))
            c = Val(repr(k), k, mag=k)
            return self.binop(op, a, c, mag=a.mag / min(k, 1) if k < 1 else a.mag, g=a.g + (int(math.log2(k)) if k > 1 else 0),
                              exact=a.exact)
        d = self.expr(self.bshape(shape), "if", False, depth - 1)
        denom = Val(f"(np.abs({d.src}) + 1)", proto_eval(lambda p: np.abs(p) + 1, d.proto), mag=d.mag + 1)
        return self.binop(op, a, denom, mag=a.mag, g=0, exact=False)

    def intdiv(self, shape: Shape, exact: bool, depth: int) -> Val:
        a = self.expr(shape, "i", exact, depth - 1)
        op = self.rng.choice(["//", "%"])
        if self.chance(0.6):
            k = self.rng.randint(1, 7)
            b = Val(str(k), k, mag=k, static_int=True)
        else:
            d = self.expr(self.bshape(shape), "i", True, depth - 1)
            b = Val(f"(np.abs({d.src}) + 1)", proto_eval(lambda p: np.abs(p) + 1, d.proto), mag=d.mag + 1)
        return self.binop(op, a, b, mag=a.mag if op == "//" else b.mag, g=0, exact=True)

    def unary(self, shape: Shape, kind: str, exact: bool, depth: int) -> Val:
        x = self.expr(shape, "if" if kind == "f" else "i", exact, depth - 1)
        forms = [
            ("(-{})", lambda p: -p, {}),
            ("np.abs({})", np.abs, {}),
            ("abs({})", abs, {}),
            ("np.square({})", np.square, {"mag": x.mag**2, "g": 2 * x.g}),
            ("np.negative({})", np.negative, {}),
        ]
        if x.kind == "f":
            forms += [("np.floor({})", np.floor, {"mag": x.mag + 1, "g": 0}), ("np.ceil({})", np.ceil, {"mag": x.mag + 1, "g": 0}),
                      ("np.rint({})", np.rint, {"mag": x.mag + 1, "g": 0}), ("np.trunc({})", np.trunc, {"g": 0})]
        forms += [("np.sign({})", np.sign, {"mag": 1, "g": 0}), ("np.clip({}, -3, 3)", lambda p: np.clip(p, -3, 3), {"mag": min(x.mag, 3)})]
        src, fn, stats = self.rng.choice(forms)
        return self.apply1(x, src, fn, **stats)

    def inexact_math(self, shape: Shape, depth: int) -> Val:
        x = self.expr(shape, "if", False, depth - 1)
        forms: list[tuple[str, Callable[[Any], Any], float]] = [
            ("np.sin({})", np.sin, 1), ("np.cos({})", np.cos, 1), ("np.tanh({})", np.tanh, 1),
            ("np.sqrt(np.abs({}))", lambda p: np.sqrt(np.abs(p)), math.sqrt(x.mag)),
            ("np.log1p(np.abs({}))", lambda p: np.log1p(np.abs(p)), math.log1p(x.mag)),
            ("np.log(np.abs({}) + 1)", lambda p: np.log(np.abs(p) + 1), math.log1p(x.mag)),
            ("np.arctan({})", np.arctan, 2), ("np.exp(np.tanh({}))", lambda p: np.exp(np.tanh(p)), 3),
            ("np.cbrt({})", np.cbrt, x.mag ** (1 / 3) + 1),
        ]
        if x.mag <= 6:
            forms.append(("np.exp({})", np.exp, math.exp(x.mag)))
        if self.chance(0.2):
            y = self.expr(self.bshape(shape), "if", False, depth - 1)
            two = [("np.arctan2({}, {})", np.arctan2, 4.0), ("np.hypot({}, {})", np.hypot, x.mag + y.mag)]
            fmt, fn2, mag = self.rng.choice(two)
            proto = proto_eval(fn2, x.proto, y.proto)
            return Val(fmt.format(x.src, y.src), proto, mag=mag, exact=False).checked()
        fmt, fn, mag = self.rng.choice(forms)
        return self.apply1(x, fmt, fn, mag=mag, g=0, exact=False)

    def minmax(self, shape: Shape, kind: str, exact: bool, depth: int) -> Val:
        a = self.expr(shape, "if" if kind == "f" else "i", exact, depth - 1)
        b = self.operand(shape, "if" if kind == "f" else "i", exact, depth)
        name = self.rng.choice(["np.maximum", "np.minimum", "np.fmax", "np.fmin"])
        fn = {"np.maximum": np.maximum, "np.minimum": np.minimum, "np.fmax": np.fmax, "np.fmin": np.fmin}[name]
        proto = proto_eval(fn, a.proto, b.proto)
        return Val(f"{name}({a.src}, {b.src})", proto, mag=max(a.mag, b.mag), g=max(a.g, b.g), exact=a.exact and b.exact).checked()

    def reduction(self, shape: Shape, kind: str, exact: bool, depth: int) -> Val:
        n = self.rng.randint(1, 5)
        axis = self.rng.randint(0, len(shape))
        big = shape[:axis] + (n,) + shape[axis:]
        x = self.expr(big, "if" if kind == "f" else "ib", exact, depth - 1)
        return self.reduce(x, axis)

    def matmul(self, shape: Shape, kind: str, exact: bool, depth: int) -> Val:
        k = self.rng.randint(1, 5)
        if len(shape) == 2:
            sa, sb = (shape[0], k), (k, shape[1])
        elif len(shape) == 1:
            sa, sb = ((shape[0], k), (k,)) if self.chance(0.5) else ((k,), (k, shape[0]))
        elif len(shape) == 0:
            sa, sb = (k,), (k,)
        else:
            sa, sb = shape[:-2] + (shape[-2], k), (k, shape[-1])
        kinds = "if" if kind == "f" else "i"
        a = self.expr(sa, kinds, exact, depth - 1)
        b = self.expr(sb, kinds, exact, depth - 1)
        form = self.rng.random()
        if form < 0.7 or len(sa) > 2:
            src, fn = f"({a.src} @ {b.src})", np.matmul
        elif form < 0.85:
            src, fn = f"np.dot({a.src}, {b.src})", np.dot
        else:
            src, fn = f"np.matmul({a.src}, {b.src})", np.matmul
        proto = proto_eval(fn, a.proto, b.proto)
        return Val(src, proto, mag=k * a.mag * b.mag, g=a.g + b.g, exact=a.exact and b.exact).checked()

    def where(self, shape: Shape, kind: str, exact: bool, depth: int) -> Val:
        c = self.expr(self.bshape(shape), "b", True, depth - 1)
        a = self.expr(shape, kind, exact, depth - 1)
        b = self.operand(shape, kind, exact, depth)
        if self.chance(0.5):
            a, b = b, a
        proto = proto_eval(np.where, c.proto, a.proto, b.proto)
        return Val(f"np.where({c.src}, {a.src}, {b.src})", proto, mag=max(a.mag, b.mag), g=max(a.g, b.g),
                   exact=a.exact and b.exact).checked()

    def concat(self, shape: Shape, kind: str, exact: bool, depth: int) -> Val:
        if not shape or shape[0] < 2:
            if shape and self.chance(0.5):
                parts = [self.expr(shape[1:], kind, exact, depth - 1) for _ in range(shape[0])]
                proto = proto_eval(lambda *ps: np.stack(ps), *(p.proto for p in parts))
                return Val(f"np.stack([{', '.join(p.src for p in parts)}])", proto, mag=max(p.mag for p in parts),
                           g=max(p.g for p in parts), exact=all(p.exact for p in parts)).checked()
            raise Reject("concat of a short axis")
        m = self.rng.randint(1, shape[0] - 1)
        a = self.expr((m,) + shape[1:], kind, exact, depth - 1)
        b = self.expr((shape[0] - m,) + shape[1:], kind, exact, depth - 1)
        proto = proto_eval(lambda p, q: np.concatenate([p, q]), a.proto, b.proto)
        return Val(f"np.concatenate([{a.src}, {b.src}])", proto, mag=max(a.mag, b.mag), g=max(a.g, b.g),
                   exact=a.exact and b.exact).checked()

    def compare(self, shape: Shape, depth: int) -> Val:
        a = self.expr(shape, "if", True, depth - 1)
        b = self.operand(shape, "if", True, depth)
        if not b.exact:
            raise Reject("inexact comparison")
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        return self.binop(op, a, b, mag=1, exact=True)

    def logical(self, shape: Shape, depth: int) -> Val:
        a = self.expr(shape, "b", True, depth - 1)
        r = self.rng.random()
        if r < 0.25:
            fmt = self.rng.choice(["(~{})", "np.logical_not({})"])
            return self.apply1(a, fmt, np.logical_not, mag=1)
        b = self.expr(self.bshape(shape), "b", True, depth - 1)
        op = self.rng.choice(["&", "|", "^", "np.logical_and", "np.logical_or", "np.logical_xor"])
        return self.binop(op, a, b, mag=1, exact=True)

    # ------------------------------------------------------------------ conditions for control flow

    def condition(self, depth: int = 2) -> Val:
        """A 0-d exact bool deciding an ``if``/``while`` (a traced value when it reads arrays)."""
        rng = self.rng
        r = rng.random()
        if r < 0.75:
            a = self.expr((), "if", True, depth)
            b = self.const(rng.choice("if")) if rng.random() < 0.6 else self.expr((), "if", True, depth - 1)
            op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
            return self.binop(op, a, b, mag=1, exact=True)
        return self.expr((), "b", True, depth)


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
    "@": lambda a, b: a @ b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "np.logical_and": np.logical_and,
    "np.logical_or": np.logical_or,
    "np.logical_xor": np.logical_xor,
}
