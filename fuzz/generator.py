"""Random well-defined NumPy functions in the style users write, as Python source.

:func:`generate` returns the text of a module holding ``f`` (the function under
test), perhaps a helper it calls, and ``inputs()`` (the arguments, as literals).
The statements cover what kiln stages: ``if``/``else`` on traced conditions,
``while`` loops bounded by a counter, ``for i in range(k)``, ``for row in x``,
``break``/``continue``, early ``return``, nested loops, names bound in one
branch only, writes to elements, slices, masks, views and arguments, buffers
filled in loops, mixed dtypes, broadcasting, reductions and matmul.

Rules that keep every program well defined (so a difference is kiln's bug):

* indices are constants, loop indices whose range fits the axis, or ``e % n``;
  slices may be anything (NumPy and kiln both clamp them);
* integers stay far from overflow and divisors away from zero
  (:mod:`kiln.fuzz.model`), and only exact values decide branches, indices,
  comparisons and float-to-int casts;
* a name is read only where it is bound on every path, a loop rebinds a name
  only with a value of the same type, and ``while`` loops advance a counter
  first thing in their body;
* ``np.empty`` buffers are filled row by row before anything reads them.

The eager check (:mod:`kiln.fuzz.check`) re-verifies the dynamic part of these
rules and discards a program that breaks one.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kiln.fuzz.config import Config
from kiln.fuzz.expressions import ExprGen, Reject, proto_eval
from kiln.fuzz.model import (
    FLOAT_LIMIT,
    G_MAX,
    INT_LIMIT,
    Overflow,
    Scope,
    Val,
    Var,
    dtype_name,
    is_array,
    is_py,
    kind_of,
    root_of,
    shape_of,
)

Shape = tuple[int, ...]

_INPLACE = {
    "+": lambda a, b: a.__iadd__(b),
    "-": lambda a, b: a.__isub__(b),
    "*": lambda a, b: a.__imul__(b),
    "/": lambda a, b: a.__itruediv__(b),
    "//": lambda a, b: a.__ifloordiv__(b),
    "%": lambda a, b: a.__imod__(b),
    "&": lambda a, b: a.__iand__(b),
    "|": lambda a, b: a.__ior__(b),
    "^": lambda a, b: a.__ixor__(b),
}


@dataclass
class Program:
    """A generated module: its source and the seed it came from."""

    seed: str
    source: str


@dataclass
class _Loop:
    kind: str  # "for" or "while"
    #: statements that may not run after a break (buffer fills must complete)
    no_exit: bool = False
    #: the loop steps its counter last: a ``continue`` would skip the step and never end
    no_continue: bool = False


@dataclass
class _Helper:
    #: what a call names: ``helper0``, ``grad_helper1``, ``Helper2(1.5).apply``
    name: str
    params: list[tuple[Any, bool]]  # (proto, exact) per parameter
    written: list[bool]  # whether the helper writes into each parameter
    ret: Val | None = None
    #: a last parameter ``k`` holding a Python number, with the values a call may pass
    keyword: list[int | float] = field(default_factory=list)
    #: the largest magnitude an argument may have (the helper's own bounds assume it)
    max_mag: float | None = None


@dataclass
class _Arg:
    name: str
    literal: str
    proto: Any


@dataclass
class _State:
    lines: list[str] = field(default_factory=list)
    indent: int = 1


class ProgramGen(ExprGen):
    """Statements, functions and the module around them."""

    def __init__(self, rng: random.Random, config: Config) -> None:
        super().__init__(rng, config)
        self.st = _State()
        self.counter = 0
        self.loops: list[_Loop] = []
        self.budget = 0
        self.ret_spec: list[tuple[Shape, str]] | None = None
        self.helpers: list[_Helper] = []
        self.dims: list[int] = []
        self.in_helper = False
        self.arg_names: set[str] = set()
        #: Python numbers a ``while`` on Python numbers left at the function's top level (returnable)
        self.py_results: list[str] = []
        #: holders ``s_held`` read back at the function's top level (returned more often than other names)
        self.held_results: list[str] = []
        #: holders that are a selection ``x[x > c]`` read back as its sum: (exact, bound of the sum)
        self.held_selections: dict[str, tuple[bool, float]] = {}
        #: the helpers ``f`` calls so far
        self.called: set[str] = set()

    # ------------------------------------------------------------------ emission helpers

    def emit(self, line: str) -> None:
        self.st.lines.append("    " * self.st.indent + line)

    @contextmanager
    def block(self) -> Iterator[None]:
        self.st.indent += 1
        start = len(self.st.lines)
        yield
        if len(self.st.lines) == start:
            self.emit("pass")
        self.st.indent -= 1

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ------------------------------------------------------------------ binding names

    def bind(self, name: str, val: Val, exact_class: bool | None = None, **flags: Any) -> Var:
        old = self.scope.vars.get(name)
        if self.loops and old is not None and old.bound and old.usable:
            val.exact = val.exact and self.read(old).exact
        if exact_class is not None:
            val.exact = val.exact and exact_class
        if val.kind == "f" and val.exact and val.g > G_MAX:
            val.exact = False
        roots = self.roots_for(val)
        view = is_array(val.proto) and root_of(val.proto) is not val.proto
        var = Var(name, val.proto, roots, writable=is_array(val.proto), static_int=val.static_int, view=view,
                  seen=sum(self.storages[r].version for r in roots), **flags)
        self.scope.vars[name] = var
        return var

    def same_type(self, a: Any, b: Any) -> bool:
        return dtype_name(a) == dtype_name(b) and shape_of(a) == shape_of(b) and is_array(a) == is_array(b)

    def rebind_ok(self, var: Var, val: Val) -> bool:
        """Inside loops and branches a name keeps its type; in loops an exact name stays exact."""
        if var.reserved or var.lo is not None:
            return False
        if not self.cfg.rebind_args and var.name in self.arg_names and (self.loops or self.st.indent > 1):
            return False
        if (self.loops or self.st.indent > 1) and not self.same_type(var.proto, val.proto):
            return False
        if self.loops and self.read(var).exact and (not val.exact or (val.kind == "f" and val.g > G_MAX)):
            return False
        return True

    def merge(self, a: Scope, b: Scope) -> Scope:
        out = Scope()
        for name in {**a.vars, **b.vars}:
            va, vb = a.vars.get(name), b.vars.get(name)
            if va is vb:
                assert va is not None
                out.vars[name] = va
            elif va is not None and vb is not None:
                same = va.usable and vb.usable and self.same_type(va.proto, vb.proto)
                out.vars[name] = Var(
                    name, va.proto, va.roots | vb.roots, bound=va.bound and vb.bound, usable=same,
                    reserved=va.reserved or vb.reserved, writable=va.writable and vb.writable,
                    static_int=va.static_int and vb.static_int, view=va.view or vb.view,
                    seen=va.seen if (va.roots, va.seen) == (vb.roots, vb.seen) else -1,
                )
            else:
                only = va or vb
                assert only is not None
                out.vars[name] = Var(name, only.proto, only.roots, bound=False, usable=only.usable,
                                     reserved=only.reserved, writable=only.writable)
        return out

    # ------------------------------------------------------------------ shapes and values

    def shape(self, max_rank: int = 2) -> Shape:
        rank = self.rng.choice([0, 1, 1, 2, 2, 2][: 2 + 2 * max_rank])
        return tuple(self.rng.choice(self.dims) for _ in range(rank))

    def array_vars(self) -> list[Var]:
        return [v for v in self.vars_of(arrays_only=True) if not v.reserved]

    # ------------------------------------------------------------------ statements

    def statements(self, n: int) -> bool:
        """Up to ``n`` statements; True when the block ended in a jump (nothing after it runs)."""
        for _ in range(n):
            if self.budget <= 0:
                break
            if self.statement():
                return True
        return False

    def statement(self) -> bool:
        self.budget -= 1
        depth = len(self.loops) + self.st.indent
        nested_ok = depth < 5 and self.budget > 1
        cfg = self.cfg
        table: list[tuple[float, Any]] = [
            (4, self.s_assign),
            (1.5, self.s_rebind),
            (1.5, self.s_augassign),
        ]
        if cfg.writes:
            table += [(3, self.s_setitem), (0.7, self.s_out), (0.4, self.s_copyto)]
        if cfg.views:
            table.append((1.5, self.s_view))
        if nested_ok:
            table.append((2, self.s_if))
            if cfg.range_loops:
                table.append((2, self.s_for_range))
            if cfg.row_loops:
                table.append((1, self.s_for_rows))
            if cfg.while_loops:
                table.append((1.2, self.s_while))
            if cfg.python_loops:
                table.append((1.2, self.s_python_while))
            if cfg.buffers:
                table.append((1, self.s_buffer))
            if cfg.accumulators and (cfg.range_loops or cfg.row_loops):
                table.append((0.8, self.s_accumulate))
            if cfg.resize_loops:
                table.append((0.6, self.s_resize))
            if cfg.held_arrays:
                table.append((0.8, self.s_held))
        if self.loops and cfg.break_continue:
            table.append((0.8, self.s_jump))
        if cfg.early_return and self.ret_spec is not None and not self.in_helper:
            table.append((0.5, self.s_early_return))
        if self.helpers and not self.in_helper:
            table.append((1.2, self.s_call))
        total = sum(w for w, _ in table)
        for _ in range(6):
            pick = self.rng.random() * total
            for w, make in table:
                pick -= w
                if pick <= 0:
                    break
            mark, indent, loops = len(self.st.lines), self.st.indent, list(self.loops)
            saved = self.scope.copy()
            try:
                return bool(make())
            except (Reject, Overflow):
                del self.st.lines[mark:]
                self.scope, self.st.indent, self.loops = saved, indent, loops
        return False

    def s_assign(self) -> None:
        val = self.expr(self.shape(), self.rng.choice(["f", "f", "i", "b", "if"]), exact=self.chance(0.3), depth=self.rng.randint(1, 3))
        name = self.fresh()
        self.emit(f"{name} = {val.src}")
        self.bind(name, val)

    def s_rebind(self) -> None:
        cands = [v for v in self.vars_of() if not v.reserved and v.lo is None]
        if not cands:
            raise Reject("nothing to rebind")
        var = self.rng.choice(cands)
        cur = self.read(var)
        val = self.expr(cur.shape, cur.kind, exact=cur.exact and bool(self.loops), depth=2)
        if not self.rebind_ok(var, val):
            if val.kind == cur.kind and val.shape == cur.shape and cur.kind != "b" and not is_py(var.proto):
                val = self.astype_to(val, var.proto)
            if not self.rebind_ok(var, val):
                raise Reject("type change in a loop")
        self.emit(f"{var.name} = {val.src}")
        self.bind(var.name, val)

    def astype_to(self, val: Val, proto: Any) -> Val:
        dt = dtype_name(proto)
        if val.kind == "f" and kind_of(proto) != "f" and not val.exact:
            raise Reject("inexact cast")
        if is_py(val.proto):
            src, fn = f"np.asarray({val.src}, dtype=np.{dt})", lambda p: np.asarray(p, dtype=dt)
        else:
            src, fn = f"{val.src}.astype(np.{dt})", lambda p: p.astype(dt)
        new = proto_eval(fn, val.proto)
        if not is_array(proto) and is_array(new):
            raise Reject("scalar vs array")
        return Val(src, new, mag=val.mag, g=val.g if kind_of(proto) == "f" else 0, exact=val.exact).checked()

    def s_augassign(self, var: Var | None = None) -> None:
        cands = [v for v in self.vars_of("if") if not v.reserved and v.lo is None]
        if var is None and not cands:
            raise Reject("no target")
        var = var or self.rng.choice(cands)
        if isinstance(var.proto, np.generic) and not self.cfg.augassign_scalars:
            raise Reject("op= on a NumPy scalar")
        cur = self.read(var)
        op = self.rng.choice(["+", "-", "*", "+", "-", "/", "//", "%"] if cur.kind == "f" else ["+", "-", "*", "+", "//", "%", "&", "|"])
        rhs, stats = self.rhs_for(op, cur, self.bshape(cur.shape) if is_array(var.proto) else ())
        fn = _INPLACE[op]
        if is_array(var.proto) and not var.writable:
            raise Reject("may not be an array here")
        if is_array(var.proto):
            proto = proto_eval(lambda p, q: fn(p.copy(), q), var.proto, rhs.proto)
            if shape_of(proto) != cur.shape:
                raise Reject("broadcast")
            new = Val("", proto, **stats).checked()
            if not self.write_ok(var, new):
                raise Reject("inexact write into an exact array")
            self.emit(f"{var.name} {op}= {rhs.src}")
            self.note_write(var, new)
            return
        proto = proto_eval(lambda p, q: fn(p, q) if hasattr(p, "__iadd__") else _BIN[op](p, q), var.proto, rhs.proto)
        new = Val(f"({var.name} {op} {rhs.src})", proto, **stats).checked()
        if not self.rebind_ok(var, new):
            raise Reject("type change")
        self.emit(f"{var.name} {op}= {rhs.src}")
        self.bind(var.name, new)

    def rhs_for(self, op: str, cur: Val, shape: Shape) -> tuple[Val, dict[str, Any]]:
        """The right operand of ``cur op= rhs`` and the statistics of the result."""
        if op in ("//", "%"):
            if cur.kind == "f":
                k = self.rng.choice((1, 2, 0.5))
                rhs = Val(repr(k), k, mag=k)
                return rhs, {"mag": cur.mag * (2 if k == 0.5 else 1) if op == "//" else k, "g": cur.g + (1 if k == 0.5 else 0), "exact": cur.exact}
            if self.chance(0.6):
                k = self.rng.randint(1, 6)
                rhs = Val(str(k), k, mag=k, static_int=True)
            else:
                d = self.expr(shape, "i", True, 1)
                rhs = Val(f"(np.abs({d.src}) + 1)", proto_eval(lambda p: np.abs(p) + 1, d.proto), mag=d.mag + 1)
            return rhs, {"mag": cur.mag if op == "//" else rhs.mag, "exact": True}
        if op == "/":
            if self.chance(0.5):
                k = self.rng.choice((2, 4))
                rhs = Val(str(k), k, mag=k)
                return rhs, {"mag": cur.mag, "g": cur.g + (1 if k == 2 else 2), "exact": cur.exact}
            d = self.expr(shape, "if", False, 1)
            rhs = Val(f"(np.abs({d.src}) + 1)", proto_eval(lambda p: np.abs(p) + 1, d.proto), mag=d.mag + 1)
            return rhs, {"mag": cur.mag, "exact": False}
        kinds = "ib" if cur.kind == "i" else "b" if cur.kind == "b" else "if"
        rhs = self.operand(shape, kinds, cur.exact and self.chance(0.7), 2) if shape else self.expr((), kinds, cur.exact and self.chance(0.7), 1)
        ex = cur.exact and rhs.exact
        if op == "*":
            return rhs, {"mag": cur.mag * rhs.mag, "g": cur.g + rhs.g, "exact": ex}
        if op in "&|^":
            return rhs, {"mag": 2 * max(cur.mag, rhs.mag), "exact": ex}
        return rhs, {"mag": cur.mag + rhs.mag, "g": max(cur.g, rhs.g), "exact": ex}

    # ---- writes into arrays

    def target_key(self, var: Var) -> tuple[str, Any, str]:
        """An index into ``var`` for a write: source text, key for the proto, and ``"mask"``,
        ``"dynamic"`` (a slice bounded by a loop index: its shape varies) or ``""``."""
        shp = shape_of(var.proto)
        rng = self.rng
        r = rng.random()
        if r < 0.12:
            m = self.expr(shp, "b", True, 1)
            if m.shape == shp:
                return m.src, m.proto, "mask"
        if r < 0.2:
            for v in self.scope.readable():
                if v.lo is not None and v.lo >= 0 and v.hi is not None and v.hi <= shp[0]:
                    if rng.random() < 0.5:
                        return f":{v.name}", slice(None, v.lo), "dynamic"
                    return f"{v.name}:", slice(v.lo, None), "dynamic"
        parts, keys = [], []
        for axis, n in enumerate(shp):
            if axis and rng.random() < 0.35:
                break
            c = rng.random()
            if c < 0.45:
                i = self.index(n)
                parts.append(i.src)
                keys.append(i.proto)
            elif c < 0.85:
                text, key = self._slice_for(n, rng.randint(1, n))
                parts.append(text)
                keys.append(key)
            else:
                parts.append(":")
                keys.append(slice(None))
        if not parts:
            return "...", Ellipsis, ""
        if len(parts) < len(shp) and rng.random() < 0.2:
            return ", ".join(parts) + ", ...", tuple(keys) + (Ellipsis,), ""
        return ", ".join(parts), tuple(keys), ""

    def writable_target(self) -> Var:
        cands = [v for v in self.array_vars() if shape_of(v.proto)]
        if not self.cfg.arg_writes:
            cands = [v for v in cands if not any(r in self.arg_roots for r in v.roots)]
        if not cands:
            raise Reject("no array to write")
        return self.rng.choice(cands)

    def s_setitem(self, var: Var | None = None) -> None:
        var = var or self.writable_target()
        cur = self.read(var)
        text, key, how = self.target_key(var)
        region = proto_eval(lambda p: p[key], var.proto)
        rshape = shape_of(region)
        mask, dynamic = how == "mask", how == "dynamic"
        aug = self.rng.random() < 0.35
        if aug:
            op = self.rng.choice(["+", "-", "*", "+"] if cur.kind != "b" else ["|", "&"])
            rhs, stats = self.rhs_for(op, cur, () if mask or dynamic else self.bshape(rshape))
            fn = _INPLACE[op]

            def apply(p: Any, q: Any) -> Any:
                t = p.copy()
                k = key
                item = t[k]
                t[k] = fn(item, q) if isinstance(item, np.ndarray) else _BIN[op](item, q)
                return t

            proto_eval(apply, var.proto, rhs.proto)
            # what lands in the array: cur op rhs, cast back (the NumPy-scalar path casts unsafely)
            new = Val("", region, **stats).checked()
            res_kind = kind_of(proto_eval(lambda a, b: _BIN[op](a, b), region, rhs.proto))
            if res_kind == "f" and cur.kind != "f" and not new.exact:
                raise Reject("inexact value cast to int")
            self.check_write(var, new)
            self.emit(f"{var.name}[{text}] {op}= {rhs.src}")
            self.note_write(var, new)
            return
        vshape = () if mask or dynamic or self.rng.random() < 0.15 else self.bshape(rshape)
        need_exact = cur.kind != "f" or self.read(var).exact
        val = self.expr(vshape, self.rng.choice(["f", "i", "b"]) if cur.kind != "b" else "b", exact=need_exact, depth=2)
        if val.kind == "f" and cur.kind != "f" and not val.exact:
            raise Reject("inexact value cast to int")
        if cur.kind == "i" and val.mag > 2.0**30:
            raise Reject("cast overflow")

        def store(p: Any, q: Any) -> Any:
            t = p.copy()
            t[key] = q
            return t

        proto_eval(store, var.proto, val.proto)
        self.check_write(var, val)
        self.emit(f"{var.name}[{text}] = {val.src}")
        self.note_write(var, val)

    def check_write(self, var: Var, val: Val) -> None:
        if not self.write_ok(var, val):
            raise Reject("inexact write into an exact array")

    def s_out(self) -> None:
        var = self.writable_target()
        cur = self.read(var)
        whole = self.rng.random() < 0.5
        if whole:
            text, region = var.name, var.proto
        else:
            t, key, how = self.target_key(var)
            region = proto_eval(lambda p: p[key], var.proto)
            if how or not isinstance(region, np.ndarray):
                raise Reject("out= needs an array")
            text = f"{var.name}[{t}]"
        rshape = shape_of(region)
        name = self.rng.choice(["np.add", "np.subtract", "np.multiply", "np.maximum", "np.minimum", "np.negative", "np.abs"])
        unary = name in ("np.negative", "np.abs")
        kinds = cur.kind if cur.kind != "b" else "b"
        a = self.expr(self.bshape(rshape), kinds, cur.exact, 2)
        b = None if unary else self.operand(rshape, kinds, cur.exact, 2)
        ufunc = getattr(np, name[3:])
        protos = (a.proto,) if b is None else (a.proto, b.proto)
        proto_eval(lambda *ps: ufunc(*ps, out=region.copy()), *protos)
        if b is None:
            stats = {"mag": a.mag, "g": a.g, "exact": a.exact}
        elif name == "np.multiply":
            stats = {"mag": a.mag * b.mag, "g": a.g + b.g, "exact": a.exact and b.exact}
        else:
            stats = {"mag": a.mag + b.mag, "g": max(a.g, b.g), "exact": a.exact and b.exact}
        new = Val("", region, **stats).checked()
        self.check_write(var, new)
        args = a.src if b is None else f"{a.src}, {b.src}"
        self.emit(f"{name}({args}, out={text})")
        self.note_write(var, new)

    def s_copyto(self) -> None:
        var = self.writable_target()
        cur = self.read(var)
        t, key, how = self.target_key(var)
        region = proto_eval(lambda p: p[key], var.proto)
        if how or not isinstance(region, np.ndarray):
            raise Reject("copyto needs an array")
        val = self.expr(self.bshape(shape_of(region)), cur.kind, cur.exact, 2)
        proto_eval(lambda r, q: np.copyto(r.copy(), q), region, val.proto)
        self.check_write(var, val)
        self.emit(f"np.copyto({var.name}[{t}], {val.src})")
        self.note_write(var, val)

    def s_view(self) -> None:
        cands = [v for v in self.array_vars() if shape_of(v.proto)]
        if not cands:
            raise Reject("no array")
        name = self.fresh("w")
        self.emit(f"{name} = {self.view_of(self.read(self.rng.choice(cands)), name).src}")

    def view_of(self, x: Val, name: str) -> Val:
        """One of the view forms of ``x`` (a slice, ``.T``, ``reshape``...), bound to ``name``."""
        shp = x.shape
        rng = self.rng
        forms: list[tuple[str, Any]] = [("{}[::-1]", lambda p: p[::-1]), ("{}[:]", lambda p: p[:])]
        if shp[0] > 1:
            forms += [("{}[1:]", lambda p: p[1:]), ("{}[:-1]", lambda p: p[:-1]), ("{}[::2]", lambda p: p[::2])]
        if len(shp) >= 2:
            forms += [("{}.T", lambda p: p.T), ("np.transpose({})", np.transpose)] * 2
            i = self.index(shp[0])
            forms.append((f"{{}}[{i.src}]", lambda p, k=i.proto: p[k]))
            forms.append(("{}[:, 1:]" if shp[1] > 1 else "{}[:, ::-1]", lambda p: p[:, 1:] if shp[1] > 1 else p[:, ::-1]))
            forms.append(("{}[1:, ::2]", lambda p: p[1:, ::2]))
        forms += [("{}.reshape(-1)", lambda p: p.reshape(-1)), ("{}.ravel()", lambda p: p.ravel()), ("{}[None]", lambda p: p[None]),
                  ("np.expand_dims({}, 0)", lambda p: np.expand_dims(p, 0))]
        if len(shp) == 1 and shp[0] % 2 == 0 and shp[0] > 2:
            forms.append((f"{{}}.reshape(2, {shp[0] // 2})", lambda p: p.reshape(2, shp[0] // 2)))
        if len(shp) == 2 and 1 in shp:
            forms.append(("np.squeeze({})", np.squeeze))
        fmt, fn = rng.choice(forms)
        val = self.apply1(x, fmt, fn)
        if "reshape" in fmt or "ravel" in fmt:
            val = self.reshape_checked(val, x)
        if len(val.shape) > 3 or not val.shape:
            raise Reject("view rank")
        self.bind(name, val)
        return val

    # ---- control flow

    def s_if(self) -> bool:
        cond = self.condition()
        self.emit(f"if {cond.src}:")
        before = self.scope.copy()
        n = self.rng.randint(1, 3)
        with self.block():
            jumped_a = self.statements(n)
        after_a = self.scope
        has_else = self.rng.random() < 0.55
        jumped_b = False
        if has_else:
            self.scope = before.copy()
            self.emit("else:")
            with self.block():
                if self.rng.random() < 0.5 and not jumped_a:
                    self.mirror_bindings(before, after_a)
                jumped_b = self.statements(self.rng.randint(1, 3))
            after_b = self.scope
        else:
            after_b = before
        if jumped_a and jumped_b:
            self.scope = self.merge(after_a, after_b)
            return True
        self.scope = after_b if jumped_a else after_a if jumped_b else self.merge(after_a, after_b)
        return False

    def mirror_bindings(self, before: Scope, after_a: Scope) -> None:
        """Bind in the else branch the names the if branch bound, with values of the same type."""
        for name, var in after_a.vars.items():
            if before.vars.get(name) is var or not var.bound or not var.usable or var.lo is not None:
                continue
            want = self.read(var)
            val = self.expr(want.shape, want.kind, exact=want.exact, depth=2)
            if not self.same_type(val.proto, var.proto):
                try:
                    val = self.astype_to(val, var.proto)
                except (Reject, Overflow):
                    continue
                if not self.same_type(val.proto, var.proto):
                    continue
            self.emit(f"{name} = {val.src}")
            self.bind(name, val)

    def loop_body(self, loop: _Loop, first: list[str] | None = None, n: int | None = None,
                  counter: tuple[str, Val] | None = None) -> None:
        """The body of a loop: its scope merged back (a loop may run any number of times).

        ``first`` lines open the body; ``counter`` is a while loop's counter, bound
        (stepped) by them and written by nothing else.
        """
        before = self.scope.copy()
        self.widen_all()
        self.loops.append(loop)
        with self.block():
            for line in first or []:
                self.emit(line)
            if counter is not None:
                self.bind(*counter)
                self.scope.vars[counter[0]].reserved = True
            self.statements(n or self.rng.randint(1, 4))
        self.loops.pop()
        self.scope = self.merge(before, self.scope)

    def range_args(self) -> tuple[str, int, int]:
        """``range(...)`` text with at least one iteration, and the index's range."""
        rng = self.rng
        arrays = [v for v in self.array_vars() if shape_of(v.proto)]
        if arrays and rng.random() < 0.5:
            v = rng.choice(arrays)
            n = shape_of(v.proto)[0]
            stop = rng.choice([f"{v.name}.shape[0]", f"len({v.name})"])
        else:
            n = rng.choice([2, 3, 5, 6, 7, 8] + self.dims)
            stop = str(n)
        form = rng.random()
        if form < 0.55 or n < 2:
            return f"range({stop})", 0, n - 1
        if form < 0.75:
            return f"range(1, {stop})", 1, n - 1
        if form < 0.9:
            return f"range({stop} - 1, -1, -1)", 0, n - 1
        return f"range(0, {stop}, 2)", 0, n - 1 - (n - 1) % 2

    def s_for_range(self) -> None:
        text, lo, hi = self.range_args()
        name = self.fresh("i")
        self.emit(f"for {name} in {text}:")
        before = self.scope.vars.get(name)
        self.scope.vars[name] = Var(name, lo, frozenset(), lo=lo, hi=hi, writable=False)
        self.loop_body(_Loop("for"))
        self.scope.vars[name] = Var(name, lo, frozenset(), bound=False, writable=False) if before is None else before

    def s_for_rows(self) -> None:
        cands = [v for v in self.vars_of() if is_array(v.proto) and shape_of(v.proto) and not v.reserved]
        if not self.cfg.scalar_items:
            cands = [v for v in cands if len(shape_of(v.proto)) >= 2]
        if not cands:
            raise Reject("nothing to iterate")
        var = self.rng.choice(cands)
        seq = self.read(var)
        if self.rng.random() < 0.3 and self.cfg.views:
            seq = self.same_shape_view(seq) if self.rng.random() < 0.5 else seq
            if len(seq.shape) >= 2 and self.rng.random() < 0.5:
                seq = self.apply1(seq, "{}.T", lambda p: p.T)
        row = self.fresh("r")
        item = proto_eval(lambda p: p[0], seq.proto)
        if self.cfg.enumerate_loops and self.rng.random() < 0.1:
            k = self.fresh("k")
            self.emit(f"for {k}, {row} in enumerate({seq.src}):")
            self.scope.vars[k] = Var(k, 0, frozenset(), lo=0, hi=seq.shape[0] - 1, writable=False)
        else:
            k = None
            self.emit(f"for {row} in {seq.src}:")
        item_val = Val(row, item, mag=seq.mag, g=seq.g, exact=seq.exact)
        self.bind(row, item_val)
        self.scope.vars[row].reserved = not is_array(item) or not self.cfg.row_writes
        self.loop_body(_Loop("for"))
        self.scope.vars[row] = Var(row, item, frozenset(), bound=False)
        if k:
            self.scope.vars[k] = Var(k, 0, frozenset(), bound=False)

    def s_while(self) -> None:
        rng = self.rng
        t = self.fresh("t")
        limit = rng.randint(2, 6)
        form = rng.random()
        if form < 0.45:
            start = self.expr((), "i", True, 1)
            init = Val(f"({start.src} % 3)", proto_eval(lambda p: p % 3, start.proto), mag=3)
            step, test = "1", f"{t} < {limit}"
        elif form < 0.75:
            init = self.expr((), "f", True, 1)
            if init.mag > 8:
                init = self.const("f")
            step = rng.choice(["1", "1.5", "2.0"])
            test = f"{t} < {limit}.0"
        else:
            init = Val("np.zeros((), dtype=np.int64)", np.zeros((), np.int64), mag=1)
            if rng.random() < 0.5:
                init = Val("0", 0, mag=1, static_int=True)
            step, test = "1", f"{t} < {limit + 4}"
        self.emit(f"{t} = {init.src}")
        self.bind(t, init)
        self.widen_all()  # the test runs again after every iteration
        extra = ""
        if rng.random() < 0.3:
            extra = f" and {self.condition(1).src}"
        if rng.random() < 0.2:
            self.emit("while True:")
            scalar = isinstance(init.proto, np.generic) and not self.cfg.augassign_scalars
            first = [f"{t} = {t} + {step}" if scalar else f"{t} += {step}", f"if {t} > {limit + 4}:", "    break"]
        else:
            self.emit(f"while {test}{extra}:")
            scalar = isinstance(init.proto, np.generic) and not self.cfg.augassign_scalars
            first = [f"{t} += {step}" if rng.random() < 0.6 and not scalar else f"{t} = {t} + {step}"]
        stepped = proto_eval(lambda p: p + float(step) if "." in step else p + 1, init.proto)
        if "+=" in first[0] and is_array(init.proto):
            stepped = init.proto
        counter = Val(t, stepped, mag=max(init.mag, 0) + limit + 8, g=max(init.g, 1), exact=True)
        self.loop_body(_Loop("while"), first, counter=(t, counter))
        # after the loop the counter holds its start or a stepped value
        old = self.scope.vars[t]
        same = self.same_type(init.proto, stepped)
        self.bind(t, counter)
        self.scope.vars[t].roots |= old.roots
        self.scope.vars[t].usable = same

    def python_counter(self, t: str, trips: int) -> tuple[Any, str, str, float]:
        """A Python counter ``t`` for a loop of ``trips`` iterations: its start (a proto), the
        loop's test and step, and a bound on its magnitude. Counted up or down by ints or by
        floats that are multiples of 0.25 (exact: the trip count is the same in any arithmetic)."""
        rng = self.rng
        form = rng.random()
        n = self.scope.vars.get("n")
        if form < 0.15 and n is not None and n.static_int and isinstance(n.proto, int):
            per = max(1, trips // n.proto)
            return 0, f"{t} < n * {per}", f"{t} += 1", float(n.proto * per + 1)
        if form < 0.45:
            step, start = rng.choice([1, 1, 1, 2, 3]), rng.choice([0, 0, 1, -3])
            return start, f"{t} < {start + trips * step}", f"{t} += {step}", float(abs(start) + (trips + 1) * step)
        if form < 0.65:
            step = rng.choice([1, 1, 2])
            test = f"{t} > 0" if rng.random() < 0.5 else t
            return trips * step, test, f"{t} -= {step}", float(trips * step)
        d = rng.choice([0.25, 0.5, 1.5])
        if form < 0.85:
            return trips * d, rng.choice([f"{t} > 0.0", f"{t} > 0"]), f"{t} -= {d}", trips * d
        return 0.0, f"{t} < {trips * d}", f"{t} += {d}", (trips + 1) * d

    def python_accumulator(self, t: str, counter: Any, trips: int) -> tuple[str, Any, str, float]:
        """A Python number a Python-counted loop updates from its counter and constants: its name,
        its start, the line updating it and a bound on its magnitude."""
        k = self.fresh("k")
        if isinstance(counter, float) or self.rng.random() < 0.3:
            line = self.rng.choice([f"{k} += 0.5", f"{k} = {k} + {t} % 2 * 0.25", f"{k} -= 1.5"])
            return k, 0.0, line, 1.5 * trips + 1
        line = self.rng.choice([f"{k} += {t} % 4", f"{k} += 1", f"{k} -= 2", f"{k} = ({k} * 3 + {t}) % 11"])
        return k, 0, line, 3.0 * trips + 11

    def s_python_while(self) -> None:
        """A ``while`` on a Python number: 1-4 iterations (kiln traces them unrolled) or 5-200
        (kiln stages the loop after 4), a counter stepped first or last, perhaps a ``break`` on a
        Python value or on array data, and Python accumulators; the counter and the accumulators
        are Python numbers after the loop, read in arithmetic or returned."""
        rng = self.rng
        trips = rng.randint(1, 4) if rng.random() < 0.4 else rng.randint(5, 40 if self.loops or rng.random() < 0.5 else 200)
        t = self.fresh("t")
        start, test, step, bound = self.python_counter(t, trips)
        g = 0 if isinstance(start, int) else 2
        accs = [self.python_accumulator(t, start, trips) for _ in range(rng.choice([0, 1, 1, 2]))]
        self.emit(f"{t} = {start!r}")
        self.bind(t, Val(t, start, mag=bound, g=g))
        for k, k0, _, kmag in accs:
            self.emit(f"{k} = {k0!r}")
            self.bind(k, Val(k, k0, mag=kmag, g=2 if isinstance(k0, float) else 0))
        before = self.scope.copy()
        self.widen_all()
        step_first = rng.random() < 0.6
        self.loops.append(_Loop("while", no_continue=not step_first))
        self.emit(f"while {test}:")
        with self.block():
            for name, proto, mag, gran in [(t, start, bound, g)] + [(k, k0, kmag, 2 if isinstance(k0, float) else 0) for k, k0, _, kmag in accs]:
                self.bind(name, Val(name, proto, mag=mag, g=gran))
                self.scope.vars[name].reserved = True
            if step_first:
                self.emit(step)
            for _, _, line, _ in accs:
                self.emit(line)
            if rng.random() < 0.25:
                d = float(step.split()[-1]) if "." in step else int(step.split()[-1])
                self.emit(f"if {t} == {start + (trips // 2) * (1 if '+' in step else -1) * d!r}:")
                with self.block():
                    self.emit("break")
            if self.cfg.break_continue and rng.random() < 0.25:
                self.emit(f"if {self.condition(1).src}:")
                with self.block():
                    self.emit("break")
            self.statements(rng.randint(1, 3))
            if not step_first:
                self.emit(step)
        self.loops.pop()
        self.scope = self.merge(before, self.scope)
        top = self.st.indent == 1 and not self.loops
        for name, proto, mag, gran in [(t, start, bound, g)] + [(k, k0, kmag, 2 if isinstance(k0, float) else 0) for k, k0, _, kmag in accs]:
            self.bind(name, Val(name, proto, mag=mag, g=gran))
            if top:
                self.py_results.append(name)

    # ---- arrays held across a rebinding loop

    def s_held(self) -> None:
        """An array held by something else (a view, a list, a dict, another name; or the caller,
        when it is an argument) across a loop or a staged ``if`` whose body rebinds it on some
        paths, under a staged ``if`` on array data, and writes through it before or after; the
        holder is read afterwards. A write must show in the holder on the paths where the name is
        still the held array (a silent wrong answer of this family: tests/test_alias_chains.py)."""
        rng = self.rng
        name, orig = self.held_array()
        orig_g = self.read(orig).g
        holder, read_back = self.held_holder(name, orig)
        forms = ["if"] + ["pywhile", "pywhile"] * self.cfg.python_loops + ["range"] * self.cfg.range_loops
        forms += ["datawhile"] * self.cfg.while_loops
        form = rng.choice(forms)
        short = rng.random() < 0.5
        trips = rng.randint(1, 4) if short else rng.randint(5, 40)
        before = self.scope.copy()
        counter: tuple[str, Val] | None = None
        last: list[str] = []
        if form != "if":
            self.widen_all()
        if form == "pywhile":
            t = self.fresh("t")
            start, test, step, bound = self.python_counter(t, trips)
            counter = (t, Val(t, start, mag=bound, g=0 if isinstance(start, int) else 2))
            self.emit(f"{t} = {start!r}")
            step_first = rng.random() < 0.6
            self.emit(f"while {test}:")
            first, last = ([step], []) if step_first else ([], [step])
            self.loops.append(_Loop("while", no_continue=not step_first))
        elif form == "range":
            i = self.fresh("i")
            self.emit(f"for {i} in range({trips}):")
            first = []
            self.loops.append(_Loop("for"))
        elif form == "datawhile":
            j = self.fresh("j")
            self.emit(f"{j} = 0")
            counter = (j, Val(j, 0, mag=trips + 1))
            self.emit(f"while {j} < {trips} and {self.data_condition().src}:")
            first = [f"{j} += 1"]
            self.loops.append(_Loop("while"))
        else:
            first = []
        with self.block() if form != "if" else nullcontext():
            for line in first:
                self.emit(line)
            if counter is not None:
                self.bind(*counter)
                self.scope.vars[counter[0]].reserved = True
            if form == "range":
                self.scope.vars[i] = Var(i, 0, frozenset(), lo=0, hi=trips - 1, writable=False)
            self.held_body(name, orig, holder, counter, short)
            for line in last:
                self.emit(line)
        if form != "if":
            self.loops.pop()
        merged = self.merge(before, self.scope)
        self.scope = merged if form != "if" else self.scope
        if form == "range":
            self.scope.vars[i] = Var(i, 0, frozenset(), bound=False, writable=False)
        elif counter is not None:
            self.bind(*counter)
        if read_back and holder in self.held_selections:  # a new array holding the selection's sum
            exact, bound = self.held_selections.pop(holder)
            self.emit(f"{holder} = {read_back}")
            self.bind(holder, Val(holder, orig.proto, mag=bound, g=orig_g, exact=exact))
        elif read_back:
            self.emit(f"{holder} = {read_back}")
            self.bind(holder, Val(holder, orig.proto)).roots = orig.roots
        if rng.random() < 0.4:
            held = self.read(self.scope.vars[holder])
            other = self.expr(self.bshape(held.shape), held.kind, exact=False, depth=1)
            use, val = self.fresh(), self.binop("+", held, other, mag=held.mag + other.mag, g=max(held.g, other.g), exact=False)
            self.emit(f"{use} = {val.src}")
            self.bind(use, val)
        if self.st.indent == 1 and not self.in_helper:
            self.held_results.append(holder)

    def held_array(self) -> tuple[str, Var]:
        """The array to hold: a new one, a new name for an existing one, or an argument itself."""
        rng = self.rng
        cands = [v for v in self.array_vars() if shape_of(v.proto) and kind_of(v.proto) in "if" and v.lo is None
                 and (self.cfg.arg_writes or not v.roots & self.arg_roots)]
        args = [v for v in cands if v.name in self.arg_names and self.cfg.rebind_args]
        r = rng.random()
        if r < 0.25 and args:
            var = rng.choice(args)
            return var.name, var
        name = self.fresh("hb")
        if r < 0.5 and cands:
            var = rng.choice(cands)
            self.emit(f"{name} = {var.name}")
            self.scope.vars[name] = Var(name, var.proto, var.roots, view=var.view, seen=var.seen)
            return name, self.scope.vars[name]
        shape = self.shape(2) or (rng.choice(self.dims),)
        kind = rng.choice("fif")
        if rng.random() < 0.4:
            dt = rng.choice(["float64", "float32"] if kind == "f" else ["int64", "int32"])
            maker = rng.choice(["zeros", "ones"])
            shp = repr(shape) if len(shape) > 1 else str(shape[0])
            val = Val(f"np.{maker}({shp}, dtype=np.{dt})", getattr(np, maker)(shape, dtype=dt))
        else:
            val = self.expr(shape, kind, exact=self.chance(0.7), depth=rng.randint(1, 2))
            if not is_array(val.proto) or val.shape != shape:
                raise Reject("not an array")
            if id(root_of(val.proto)) in self.storages:  # a name or a view of one: hold a copy
                val = Val(f"{val.src}.copy()", val.proto.copy(), mag=val.mag, g=val.g, exact=val.exact)
        self.emit(f"{name} = {val.src}")
        return name, self.bind(name, val)

    def held_holder(self, name: str, orig: Var) -> tuple[str, str]:
        """Something holding ``name``'s array from before the construct: its name and, for a list
        or a dict, the expression reading the array back afterwards (else "")."""
        rng = self.rng
        holder = self.fresh("hold")
        form = rng.choice(["view", "view", "list", "alias", "dict", "select"] if self.cfg.views
                          else ["list", "alias", "dict", "select"])
        if form == "select":
            # NumPy's x[x > c] is a copy: writes to x after it must not show in it (kiln's lazy
            # selection read x when used: tests/test_dynamic_results.py). Read back as its sum.
            cur = self.read(orig)
            c = self.const(cur.kind, small=True)
            sel = self.fresh("sel")
            self.emit(f"{sel} = {name}[{name} > {c.src}]")
            self.held_selections[holder] = (cur.exact, cur.mag * max(1, cur.proto.size))
            return holder, f"np.full_like({name}, {sel}.sum())"
        if form == "view":
            self.emit(f"{holder} = {self.view_of(self.read(orig), holder).src}")
            return holder, ""
        if form == "alias":
            self.emit(f"{holder} = {name}")
            self.scope.vars[holder] = Var(holder, orig.proto, orig.roots, view=orig.view, seen=orig.seen)
            return holder, ""
        keep = self.fresh("keep")
        if form == "list":
            if rng.random() < 0.7:
                self.emit(f"{keep} = [{name}]")
            else:
                self.emit(f"{keep} = []")
                self.emit(f"{keep}.append({name})")
            return holder, f"{keep}[0]"
        self.emit(f"{keep} = {{'k': {name}}}")
        return holder, f"{keep}['k']"

    def held_body(self, name: str, orig: Var, holder: str, counter: tuple[str, Val] | None, short: bool) -> None:
        """``if <array data>: name = <same shape and dtype>`` and writes through ``name`` around it
        (and, sometimes, one through the holder, which must show in ``name`` where it is still the array)."""
        rng = self.rng
        want = self.read(orig)
        new = self.held_rebinding(want, counter)
        roots = orig.roots | self.roots_for(new)
        if not self.cfg.arg_writes and roots & self.arg_roots:
            raise Reject("writes to an argument")
        var = Var(name, orig.proto, roots, view=orig.view or root_of(new.proto) is not new.proto, seen=-1)
        self.scope.vars[name] = var
        places = rng.sample(["before", "inside", "after", "after", "else"], rng.randint(1, 2))
        if "before" in places:
            self.held_write(var, short)
        self.emit(f"if {self.data_condition().src}:")
        with self.block():
            self.emit(f"{name} = {new.src}")
            if "inside" in places:
                self.held_write(var, short)
        if "else" in places:
            self.emit("else:")
            with self.block():
                self.held_write(var, short)
        if "after" in places:
            self.held_write(var, short)
        through = self.scope.vars.get(holder)
        if through is not None and shape_of(through.proto) and rng.random() < 0.3:
            self.s_setitem(through)
        self.statements(rng.randint(0, 1))

    def held_rebinding(self, want: Val, counter: tuple[str, Val] | None) -> Val:
        """What the body rebinds the held name to: a new array of its shape and dtype (perhaps of a
        Python counter, ``x + t``), another array of them or a view of one."""
        rng = self.rng
        others = [v for v in self.array_vars() if self.same_type(v.proto, want.proto) and v.name != want.src
                  and (self.read(v).exact or not want.exact)]
        if others and rng.random() < 0.4:
            val = self.read(rng.choice(others))
            return self.same_shape_view(val) if rng.random() < 0.4 else val
        val = self.expr(want.shape, want.kind, exact=want.exact, depth=rng.randint(1, 2))
        if counter is not None and rng.random() < 0.5:
            val = self.binop("+", val, counter[1], mag=val.mag + counter[1].mag, g=max(val.g, counter[1].g), exact=val.exact)
        if not self.same_type(val.proto, want.proto):
            val = self.astype_to(val, want.proto)
        if not self.same_type(val.proto, want.proto) or (want.exact and not val.exact) or val.src == want.src:
            raise Reject("rebinding changes the type, or is no rebinding")
        return val

    def held_write(self, var: Var, short: bool) -> None:
        """A write through the held name: ``x[:] = x * 2 + 1`` (in short loops), ``x[:] = c - x``,
        an element or slice write or an ``op=``."""
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            cur = self.read(var)
            one = ".0" if cur.kind == "f" else ""
            c = self.const(cur.kind, small=True)
            form = f"{var.name} * 2{one} + 1{one}" if short and rng.random() < 0.6 else f"{c.src} - {var.name}"
            proto = proto_eval(lambda p: p * 2 + 1 if "*" in form else c.proto - p, cur.proto)
            val = Val("", proto.astype(cur.proto.dtype), mag=cur.mag * 2 + 1 + c.mag, g=max(cur.g, c.g), exact=cur.exact).checked()
            self.check_write(var, val)
            self.emit(f"{var.name}[:] = {form}")
            self.note_write(var, val)
        elif r < 0.75:
            self.s_setitem(var)
        else:
            self.s_augassign(var)

    def data_condition(self) -> Val:
        """An exact 0-d comparison of array data (a staged condition in kiln)."""
        for _ in range(6):
            cands = [v for v in self.vars_of(arrays_only=True) if kind_of(v.proto) in "if" and self.read(v).exact]
            if not cands:
                break
            try:
                x = self.adapt(self.read(self.rng.choice(cands)), ())
            except (Reject, Overflow):
                continue
            if x is None or not x.exact or x.kind not in "if":
                continue
            op = self.rng.choice(["<", "<=", ">", ">=", "!="])
            return self.binop(op, x, self.const(x.kind), mag=1, exact=True)
        raise Reject("no array data for a condition")

    def s_jump(self) -> bool:
        loop = self.loops[-1]
        if loop.no_exit:
            raise Reject("this loop must complete")
        word = "break" if loop.no_continue else self.rng.choice(["break", "continue"])
        if self.rng.random() < 0.25:
            self.emit(word)
            return True
        cond = self.condition(1)
        self.emit(f"if {cond.src}:")
        with self.block():
            self.emit(word)
        return False

    def s_buffer(self) -> None:
        rng = self.rng
        shape = (rng.choice(self.dims),) + self.shape(1)
        dt = rng.choice(["float64", "float64", "float32", "int64", "int32"])
        maker = rng.choice(["np.empty", "np.zeros", "np.zeros"])
        name = self.fresh("buf")
        shp = repr(shape) if len(shape) > 1 else str(shape[0])
        text = f"{maker}({shp}, dtype=np.{dt})" if rng.random() < 0.8 else f"{maker}({shp})"
        dt = dt if "dtype" in text else "float64"
        kind = "f" if "float" in dt else "i"
        inexact = kind == "f" and rng.random() < 0.5
        self.emit(f"{name} = {text}")
        self.bind(name, Val(text, np.zeros(shape, dtype=dt), mag=1), exact_class=not inexact)
        i = self.fresh("i")
        self.emit(f"for {i} in range({shape[0]}):")
        self.scope.vars[i] = Var(i, 0, frozenset(), lo=0, hi=shape[0] - 1, writable=False)
        self.widen_all()
        self.loops.append(_Loop("for", no_exit=True))
        val = self.expr(shape[1:], kind, exact=not inexact, depth=2)
        if val.kind == "f" and kind == "i" and not val.exact:
            val = self.filled(shape[1:], "i")
        buf = self.scope.vars[name]
        self.check_write(buf, val)
        self.note_write(buf, val)
        before = self.scope.copy()
        with self.block():
            self.emit(f"{name}[{i}] = {val.src}")
            self.statements(rng.randint(0, 2))
        self.loops.pop()
        self.scope = self.merge(before, self.scope)
        self.scope.vars[i] = Var(i, 0, frozenset(), bound=False, writable=False)
        self.scope.vars[name] = buf

    def s_accumulate(self) -> None:
        rng = self.rng
        acc = self.fresh("acc")
        kind = rng.choice("if")
        init = "0" if kind == "i" else rng.choice(["0.0", "0"])
        self.emit(f"{acc} = {init}")
        if rng.random() < 0.6 or not self.cfg.row_loops:
            text, lo, hi = self.range_args()
            i = self.fresh("i")
            self.emit(f"for {i} in {text}:")
            self.scope.vars[i] = Var(i, lo, frozenset(), lo=lo, hi=hi, writable=False)
        else:
            cands = [v for v in self.array_vars() if len(shape_of(v.proto)) >= 1]
            if not cands:
                raise Reject("nothing to iterate")
            seq = self.read(rng.choice(cands))
            i = self.fresh("r")
            self.emit(f"for {i} in {seq.src}:")
            self.bind(i, Val(i, proto_eval(lambda p: p[0], seq.proto), mag=seq.mag, g=seq.g, exact=seq.exact))
            self.scope.vars[i].reserved = not self.cfg.row_writes
        self.widen_all()
        self.loops.append(_Loop("for"))
        shape = self.shape(1)
        val = self.expr(shape, kind, exact=self.chance(0.5), depth=2)
        zero = 0 if init == "0" else 0.0
        proto = proto_eval(lambda p: zero + p, val.proto)
        line = f"{acc} = {acc} + {val.src}" if rng.random() < 0.5 else f"{acc} += {val.src}"
        before = self.scope.copy()
        with self.block():
            self.emit(line)
            self.statements(rng.randint(0, 2))
        self.loops.pop()
        self.scope = self.merge(before, self.scope)
        self.scope.vars[i] = Var(i, 0, frozenset(), bound=False, writable=False)
        self.bind(acc, Val(acc, proto, mag=INT_LIMIT if kind == "i" else FLOAT_LIMIT, g=val.g, exact=val.exact))

    def s_resize(self) -> None:
        """A 1-D array whose length changes in a loop (a mask or a slice shrinks it,
        ``np.concatenate`` grows it), reduced after the loop; the array itself is not used
        afterwards (its length depends on the data)."""
        rng = self.rng
        n = rng.choice(self.dims)
        src = self.expr((n,), rng.choice(["f", "i"]), exact=True, depth=rng.randint(0, 2))
        if not src.exact or src.kind not in "fi" or src.mag > 2**20:
            raise Reject("resize needs exact values")
        kind, trips = src.kind, rng.choice([2, 3, 5, 6, 9])
        w = self.fresh("sh")
        self.emit(f"{w} = {src.src}")
        if rng.random() < 0.6 or not self.cfg.while_loops:
            self.emit(f"for {self.fresh('i')} in range({trips}):")
            first: list[str] = []
        else:
            k = self.fresh("k")
            self.emit(f"{k} = 0")
            self.emit(f"while {k} < {trips}:")
            first = [f"{k} += 1"]
        grow = 0
        scale = 1
        lines = []
        for _ in range(rng.randint(1, 2)):
            pick = rng.random()
            if pick < 0.35:
                threshold = rng.choice(["0", "1", "-1", "2"])
                test = rng.choice([f"{w} > {threshold}", f"{w} < {threshold}", f"{w} != {threshold}"])
                if kind == "i" and rng.random() < 0.4:
                    test = f"{w} % 3 != 0"
                lines.append(f"{w} = {w}[{test}]")
            elif pick < 0.6:
                lines.append(f"{w} = {w}{rng.choice(['[1:]', '[:-1]', '[::2]', '[1::2]'])}")
            elif pick < 0.8:
                lines.append(f"{w} = np.concatenate(({w}, {w}[:2]))")
                grow += 2
            else:
                lines.append(f"{w} = {w} * 2" if kind == "f" else f"{w} = {w} - 1")
                scale = 2
        with self.block():
            for line in first + lines:
                self.emit(line)
        length = n + grow * trips
        mag = (src.mag * scale**trips + trips) * length + length
        if mag > (2**40 if kind == "i" else 2**50):
            raise Reject("resize values too large")
        acc = self.fresh("acc")
        form = rng.random()
        if form < 0.5:
            self.emit(f"{acc} = {w}.sum()")
        elif form < 0.8:
            self.emit(f"{acc} = {w}.sum() + {w}.shape[0]")
        else:
            self.emit(f"{acc} = {w}.sum() * len({w})")
            mag *= length
        proto = proto_eval(lambda p: p.sum(), src.proto)
        self.bind(acc, Val(acc, proto, mag=mag, g=src.g if kind == "f" else 0, exact=kind == "i").checked())

    def s_early_return(self) -> bool:
        cond = self.condition(1)
        self.emit(f"if {cond.src}:")
        with self.block():
            self.emit(f"return {self.return_text()}")
        return False

    def s_call(self, h: _Helper | None = None) -> None:
        h = h or self.rng.choice(self.helpers)
        args = []
        for (proto, exact), written in zip(h.params, h.written):
            val = self.expr(shape_of(proto), kind_of(proto), exact=exact, depth=1)
            if h.max_mag is not None and not val.exact:
                val = self.filled(shape_of(proto), kind_of(proto))
            if dtype_name(val.proto) != dtype_name(proto):
                val = self.astype_to(val, proto)
            if not is_array(val.proto):
                raise Reject("helper argument")
            if h.max_mag is not None and (val.mag > h.max_mag or not val.exact):
                if not val.exact:
                    raise Reject("the helper needs exact arguments")
                val = Val(f"np.clip({val.src}, {-h.max_mag}, {h.max_mag})", val.proto, mag=h.max_mag, g=val.g)
            if written:
                # the helper writes into the caller's memory: its values must suit those storages
                w = Val("", proto, mag=INT_LIMIT if kind_of(proto) == "i" else FLOAT_LIMIT, g=G_MAX, exact=exact)
                roots = self.roots_for(val)
                if all(self.storages[r].exact <= exact for r in roots):
                    for r in roots:
                        s = self.storages[r]
                        s.mag, s.g = max(s.mag, w.mag), max(s.g, w.g if s.kind == "f" else 0)
                else:
                    val = Val(f"{val.src}.copy()", np.array(val.proto), mag=val.mag, g=val.g, exact=val.exact)
            args.append(val.src)
        if h.keyword and self.rng.random() < 0.7:
            args.append(("k=" if self.rng.random() < 0.6 else "") + repr(self.rng.choice(h.keyword)))
        elif not h.name.startswith("helper") and len(args) == 2 and self.rng.random() < 0.4:
            args[1] = f"q={args[1]}"
        assert h.ret is not None
        name = self.fresh()
        self.emit(f"{name} = {h.name}({', '.join(args)})")
        self.called.add(h.name)
        ret = h.ret.proto
        if is_array(ret):  # a fresh array per call; a view (of the helper's temporary) stays a view
            ret = np.array(ret)[...] if root_of(ret) is not ret else np.array(ret)
        self.bind(name, Val(name, ret, mag=h.ret.mag, g=h.ret.g, exact=h.ret.exact))

    # ------------------------------------------------------------------ returns

    def return_text(self) -> str:
        assert self.ret_spec is not None
        parts = []
        for shape, dt in self.ret_spec:
            kind = kind_of(np.zeros((), dt))
            for attempt in range(8):
                val = self.expr(shape, kind, exact=kind != "f", depth=2 if attempt < 4 else 0)
                try:
                    if dtype_name(val.proto) != dt or not is_array(val.proto) and not isinstance(val.proto, np.generic):
                        val = self.astype_to(val, np.zeros(shape, dt))
                    break
                except (Reject, Overflow):
                    continue
            else:
                val = Val(f"np.zeros({shape!r}, dtype=np.{dt})", np.zeros(shape, dt))
            parts.append(val.src)
        return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"

    # ------------------------------------------------------------------ the module

    def arguments(self) -> list[_Arg]:
        rng = self.rng
        dtypes = ["bool", "int32", "int64", "float32", "float64"] if self.cfg.narrow_dtypes else ["bool", "int64", "float64"]
        weights = [1, 2, 2, 3, 4] if self.cfg.narrow_dtypes else [1, 2, 4]
        out = []
        for k in range(rng.randint(1, 4)):
            dt = rng.choices(dtypes, weights)[0]
            shape = self.shape(2) if rng.random() < 0.8 else (self.rng.choice(self.dims),) * 2
            if not shape and rng.random() < 0.5:
                shape = (rng.choice(self.dims),)
            name = "abcdxyz"[k]
            out.append(self.argument(name, dt, shape))
        if rng.random() < 0.2:
            n = rng.randint(2, 6)
            out.append(_Arg("n", str(n), n))
        return out

    def argument(self, name: str, dt: str, shape: Shape) -> _Arg:
        rng = self.rng
        strided = self.cfg.strided_args and len(shape) >= 1 and rng.random() < 0.15
        full = (shape[0], 2 * shape[1]) if strided and len(shape) == 2 else (2 * shape[0],) + shape[1:] if strided else shape
        size = int(np.prod(full))
        if dt == "bool":
            values = [rng.random() < 0.5 for _ in range(size)]
        elif dt.startswith("int"):
            values = [rng.randint(-6, 6) for _ in range(size)]
        else:
            values = [rng.randint(-16, 16) / 4 for _ in range(size)]
        data = np.array(values, dtype=dt).reshape(full)
        lit = f"np.array({data.tolist()!r}, dtype=np.{dt})" if full else f"np.{dt}({values[0]!r})" if rng.random() < 0.5 else f"np.array({values[0]!r}, dtype=np.{dt})"
        if strided:
            if len(shape) == 2:
                lit, data = f"{lit}[:, ::2]", data[:, ::2]
            else:
                lit, data = f"{lit}[::2]", data[::2]
        elif len(shape) == 2 and rng.random() < 0.1 and self.cfg.strided_args:
            data = np.ascontiguousarray(data.T).T
            lit = f"np.ascontiguousarray({lit}.T).T"
        proto = eval(lit, {"np": np})  # noqa: S307 - our own literal
        return _Arg(name, lit, proto)

    def helper(self, index: int, decorated: bool = False) -> tuple[str, _Helper]:
        """A small function the main one calls (AutoGraph converts it too); ``decorated``, a
        ``kiln.function`` (traced into its caller), perhaps with a keyword Python number ``k``."""
        name = f"helper{index}"
        params = []
        self.scope = Scope()
        self.arg_roots: set[int] = set()
        self.written.clear()
        lines_saved, self.st = self.st, _State()
        plist: list[str] = []
        param_roots: list[frozenset[int]] = []
        for k in range(self.rng.randint(1, 2)):
            dt = self.rng.choice(["float64", "int64", "float32", "bool"])
            shape = self.shape(2) or (self.rng.choice(self.dims),)
            proto = np.zeros(shape, dt)
            exact = dt != "float64" or self.rng.random() < 0.5
            pname = "pq"[k]
            val = Val(pname, proto, mag=8192 if dt.startswith("int") else 4096.0, g=G_MAX if exact else 0, exact=exact)
            var = self.bind(pname, val)
            self.arg_roots |= var.roots
            param_roots.append(var.roots)
            params.append((proto, exact))
            plist.append(pname)
        keyword: list[int | float] = []
        if decorated and self.rng.random() < 0.6:
            keyword = self.rng.choice([[1, 2, 3], [2, -1], [0.5, 1.5, -0.25], [2.0, 0.75]])
            plist.append(f"k={keyword[0]!r}")
            g = 0 if isinstance(keyword[0], int) else 2
            self.bind("k", Val("k", keyword[0], mag=max(abs(c) for c in keyword), g=g)).reserved = True
        self.in_helper = True
        self.budget = self.rng.randint(1, 4)
        self.statements(self.budget)
        shape = self.shape(2)
        ret = self.expr(shape, self.rng.choice("if"), exact=False, depth=2)
        self.emit(f"return {ret.src}")
        self.in_helper = False
        written = [bool(roots & self.written) for roots in param_roots]
        text = ("@kiln.function\n" if decorated else "") + f"def {name}({', '.join(plist)}):\n" + "\n".join(self.st.lines)
        self.st = lines_saved
        return text, _Helper(name, params, written, ret, keyword)

    def grad_helper(self, index: int) -> tuple[str, _Helper]:
        """``kiln.grad`` of a scalar helper (perhaps itself a ``kiln.function``): a sum of terms at
        most quadratic in ``p``, so that the eager check's central differences with step 1 are its
        exact gradient, with arguments and constants small enough that every value stays in bounds."""
        rng = self.rng
        name = f"helper{index}"
        shape = self.shape(2) or (rng.choice(self.dims),)
        qdt = rng.choice(["float64", "float64", "int64"])
        c = rng.choice([0.25, 0.5, -0.5, 0.75])
        terms = rng.sample([f"{c} * p * p", "p * q", f"{c} * p", f"(p + {c}) ** 2", f"p * q * {c}", "np.abs(q) * p",
                            "p * p"], rng.randint(1, 3))
        body = " + ".join(terms)
        loss = f"np.sum({body})" if rng.random() < 0.7 else f"({body}).sum()"
        deco = "@kiln.function\n" if rng.random() < 0.4 else ""
        text = f"{deco}def {name}(p, q):\n    return {loss}\n\n\ngrad_{name} = kiln.grad({name})"
        grad = Val("", np.zeros(shape), mag=2 * 5 * len(terms) * (1 + abs(c)), exact=False)
        params = [(np.zeros(shape), True), (np.zeros(shape, qdt), True)]
        return text, _Helper(f"grad_{name}", params, [False, False], grad, max_mag=4)

    def method_class(self, index: int) -> tuple[str, _Helper]:
        """A class whose ``kiln.function`` method ``apply`` calls another, ``scale``, on ``self``."""
        rng = self.rng
        name = f"Helper{index}"
        c = rng.choice([2, 3, -1, 0.5, 1.5, -0.75])
        inner = rng.choice(["p * self.c + 1", "np.maximum(p, self.c)", "p - self.c", "np.abs(p) * self.c"])
        outer = rng.choice(["self.scale(p) + q", "self.scale(p * q) - q", "self.scale(self.scale(p)) - q", "self.scale(q) * p"])
        text = (f"class {name}:\n\n    def __init__(self, c):\n        self.c = c\n\n"
                f"    @kiln.function\n    def scale(self, p):\n        return {inner}\n\n"
                f"    @kiln.function\n    def apply(self, p, q):\n        return {outer}")
        space: dict[str, Any] = {}
        exec(text.replace("@kiln.function", ""), {"np": np}, space)  # noqa: S102 - our own text, for the result's type
        shape = self.shape(2) or (rng.choice(self.dims),)
        dts = ["float64", "float32", "int64", "int32"]
        pp, qp = np.zeros(shape, rng.choice(dts)), np.zeros(shape, rng.choice(dts))
        proto = proto_eval(lambda a, b: space[name](c).apply(a, b), pp, qp)
        m = 8  # the arguments' bound; scale and apply grow it at most to this
        ret = Val("", proto, mag=(abs(c) + 1) ** 2 * (m + 2) ** 2, g=G_MAX, exact=False)
        return text, _Helper(f"{name}({c!r}).apply", [(pp, True), (qp, True)], [False, False], ret, max_mag=m)

    def module(self, seed: str) -> str:
        rng = self.rng
        self.dims = sorted({rng.randint(1, 6) for _ in range(3)} | {rng.randint(2, 5)})
        helper_text = []
        makers = []
        if self.cfg.helpers and rng.random() < 0.25:
            makers.append(lambda i: self.helper(i, decorated=self.cfg.nested_functions and rng.random() < 0.5))
        if self.cfg.nested_functions:
            if rng.random() < 0.15:
                makers.append(lambda i: self.helper(i, decorated=True))
            if rng.random() < 0.12:
                makers.append(self.grad_helper)
            if rng.random() < 0.12:
                makers.append(self.method_class)
        for make in makers:
            text, h = make(len(self.helpers))
            helper_text.append(text)
            self.helpers.append(h)
        self.scope = Scope()
        self.storages.clear()
        args = self.arguments()
        self.arg_names = {a.name for a in args}
        self.arg_roots = set()
        for a in args:
            if isinstance(a.proto, int):
                var = self.bind(a.name, Val(a.name, a.proto, mag=a.proto, static_int=True))
                var.lo = var.hi = None
                var.reserved = True
            else:
                g = 2 if kind_of(a.proto) == "f" else 0
                var = self.bind(a.name, Val(a.name, a.proto, mag=6 if kind_of(a.proto) == "i" else 4, g=g))
                self.arg_roots |= var.roots
        returns_none = self.cfg.arg_writes and self.cfg.writes and rng.random() < 0.12
        if not returns_none:
            self.ret_spec = []
            for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
                shape = self.shape(2)
                self.ret_spec.append((shape, rng.choice(["float64", "float64", "float32", "int64", "int32", "bool"])))
        self.budget = rng.randint(5, 16)
        self.statements(self.budget + 4)
        self.call_the_uncalled()
        if not returns_none:
            if rng.random() < 0.5 or not self.cfg.early_return:
                self.emit(f"return {self.natural_return()}")
            else:
                self.emit(f"return {self.return_text()}")
        body = "\n".join(self.st.lines)
        params = ", ".join(a.name for a in args)
        inputs = ",\n        ".join(a.literal for a in args)
        src = (
            f'"""kiln.fuzz program {seed} (generated: see docs/fuzzing.md)."""\n'
            + ("import kiln\n" if any("kiln." in t for t in helper_text) else "")
            + "import numpy as np\n\n\n"
            + "".join(t + "\n\n\n" for t in helper_text)
            + f"def f({params}):\n{body}\n\n\n"
            f"def inputs():\n    return [\n        {inputs},\n    ]\n"
        )
        return ast.unparse(ast.parse(src)) + "\n"

    def call_the_uncalled(self) -> None:
        """A call of each nested helper ``f`` has not called yet (it is there to be called)."""
        for h in self.helpers:
            if h.name in self.called:
                continue
            for _ in range(4):
                mark, saved = len(self.st.lines), self.scope.copy()
                try:
                    self.s_call(h)
                    break
                except (Reject, Overflow):
                    del self.st.lines[mark:]
                    self.scope = saved

    def natural_return(self) -> str:
        """The final return: the spec's values, or (when no early return needs them) whatever comes."""
        has_early = any(line.lstrip().startswith("return ") for line in self.st.lines)
        if has_early:
            return self.return_text()
        parts = []
        for shape, dt in self.ret_spec or []:
            parts.append(self.expr(shape, kind_of(np.zeros((), dt)), exact=False, depth=2).src)
        if self.rng.random() < 0.3:
            arrays = [v for v in self.array_vars()]
            if arrays:
                parts.append(self.rng.choice(arrays).name)
        held = [n for n in self.held_results if (v := self.scope.vars.get(n)) is not None and v.bound and v.usable]
        if held and self.rng.random() < 0.6:
            parts.append(self.rng.choice(held))
        numbers = [n for n in self.py_results if (v := self.scope.vars.get(n)) is not None and v.bound and v.usable]
        if numbers and self.rng.random() < 0.5:
            parts.append(self.rng.choice(numbers))
        return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"


_BIN = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}


def program_seed(seed: int, index: int, attempt: int = 0) -> str:
    """The name of one program of a campaign: regenerate it with :func:`generate`."""
    return f"{seed}-{index}" + (f"-{attempt}" if attempt else "")


def generate(seed: str, config: Config | None = None) -> Program:
    """The program named ``seed`` (``"S-I"`` or ``"S-I-A"``): the same text for the same seed and config."""
    rng = random.Random(seed)
    gen = ProgramGen(rng, config or Config())
    return Program(seed, gen.module(seed))
