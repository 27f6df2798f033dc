"""Random float64 programs with a scalar result, for checking ``kiln.grad`` (``--mode grad``).

A program's ``f`` takes float vectors ``x``, ``w`` (shape ``(N,)``) and a matrix ``m`` (``(R, N)``),
and uses two int64 index vectors, arguments too or constants of ``f``: ``u`` (``K`` distinct
indices, for scatters that set) and ``g`` (``N`` indices with repeats, for gathers and ``np.add.at``). It copies arguments into local arrays and
changes them as users do: element and slice writes, ``op=``, scatters (``y[u] = v``, ``y[u] += v``,
``np.add.at``), gathers (``y[g]``), masked writes, staged ``if`` on reductions, ``for`` over
``range`` (unrolled and staged, with ``break`` on data), ``while`` on data bounded by a counter,
and a Python float accumulator. Kinks (``np.abs``, ``np.maximum``, ``np.clip``, a branch) are
allowed: :mod:`kiln.fuzz.grad_check` skips the coordinates where the eager function is not smooth.

The module says ``FUZZ_MODE = "grad"`` and which arguments to differentiate (``ARGNUMS``) and
whether through ``kiln.value_and_grad`` (``VALUE_AND_GRAD``); see docs/fuzzing.md.
"""

from __future__ import annotations

import random

from kiln.fuzz.emitter import Emitter
from kiln.fuzz.generator import Program

N, R, K = 5, 3, 3
FLOAT_ARGS = ("x", "w", "m")


class GradGen(Emitter):
    """Statements over float64 vectors of shape (N,) (names in ``vecs``) and Python/0-d floats."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.vecs: list[str] = ["x", "w"]
        self.mats: list[str] = ["m"]
        #: Python floats or 0-d values bound on every path (the accumulator ``s``)
        self.scalars: list[str] = ["s"]
        self.loop_index: str | None = None
        self.in_loop = 0

    def const(self, lo: float = -2.0, hi: float = 2.0) -> str:
        return repr(round(self.rng.uniform(lo, hi) * 4) / 4)

    # ------------------------------------------------------------------ expressions

    def vec(self, depth: int = 2) -> str:
        """An expression of shape (N,), bounded when its operands are (tanh, clip, quotients by 1 + v²)."""
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.vec_leaf()
        a = self.vec(depth - 1)
        choice = r.randrange(17)
        if choice == 0:
            return f"np.tanh({a})"
        if choice == 1:
            return f"np.sin({a})"
        if choice == 2:
            return f"np.exp(np.tanh({a}))"
        if choice == 3:
            return f"({a}) * ({self.vec(depth - 1)})"
        if choice == 4:
            return f"np.sqrt(1.0 + ({a}) ** 2)"
        if choice == 5:
            return f"np.log1p(({a}) * ({a}))"
        if choice == 6:
            return f"np.abs({a})"
        if choice == 7:
            return f"np.maximum({a}, {self.vec(depth - 1) if r.random() < 0.5 else self.const()})"
        if choice == 8:
            return f"np.clip({a}, -1.5, 1.5)"
        if choice == 9:
            return f"({a}) / (1.0 + ({self.vec(depth - 1)}) ** 2)"
        if choice == 10:
            return f"np.where({a} > {self.const()}, {self.vec(depth - 1)}, {self.vec(depth - 1)})"
        if choice == 11:
            return f"{self.scalar(depth - 1)} * ({a})"
        if choice == 12:
            return f"({a})[g]"
        if choice == 13:
            return f"np.cos({a}) - ({self.vec(depth - 1)})"
        if choice == 14:
            return f"np.minimum({a}, {self.vec(depth - 1)})"
        if choice == 15:
            return f"np.cumsum({a}) * 0.5"
        return f"({a}) {r.choice('+-')} ({self.vec(depth - 1)})"

    def vec_leaf(self) -> str:
        r = self.rng
        v = r.choice(self.vecs)
        m = r.choice(self.mats)
        return r.choice([
            v, v, v, f"{v}[::-1]", f"{v}[g]", f"{m}[{r.randrange(R)}]", f"np.sum({m}, axis=0)",
            f"np.tanh({m}.T @ ({m} @ {v}))", f"{m}.max(axis=0)", f"np.concatenate([{v}[2:], {v}[:2]])",
        ])

    def scalar(self, depth: int = 1) -> str:
        """A 0-d float expression (a NumPy scalar, or a Python float accumulator)."""
        r = self.rng
        if self.scalars and r.random() < 0.25:
            return r.choice(self.scalars)
        v = self.vec(max(depth, 0))
        return r.choice([
            f"np.sum({v})", f"np.mean({v})", f"np.max({v})", f"np.min({v})", f"({v})[{r.randrange(N)}]",
            f"np.dot({v}, {self.vec(0)})", f"({v})[u].sum()", f"np.tanh(np.sum({v}))",
        ] + ([f"({v})[{self.loop_index}]"] if self.loop_index else []))

    # ------------------------------------------------------------------ statements

    def local_vec(self) -> str:
        return self.rng.choice([v for v in self.vecs if v not in ("x", "w")] or [self.new_vec()])

    def new_vec(self) -> str:
        name = self.fresh("y")
        src = self.rng.choice(["x * 1.0", "w.copy()", "np.zeros(%d)" % N, "np.zeros_like(x)", self.vec(1)])
        self.emit(f"{name} = {src}")
        self.vecs.append(name)
        return name

    def statement(self, depth: int) -> None:
        r = self.rng
        kinds = ["new", "set", "slice", "aug", "scatter", "scatter_add", "add_at", "mask", "rebind", "acc", "mat"]
        if depth > 0:
            kinds += ["if", "for", "while"]
        if self.in_loop:
            kinds += ["break"] if self.loop_index else []
        kind = r.choice(kinds)
        if kind == "new" and not self.in_loop and self.indent == 1:
            self.new_vec()
            return
        if kind in self.WRITES:
            self.write(kind, self.local_vec())
        elif kind == "acc":
            self.emit(f"s = s + {self.scalar()}")
        elif kind == "mat":
            mk = self.mats[-1] if len(self.mats) > 1 else None
            if mk is None:
                if self.in_loop or self.indent > 1:
                    self.emit(f"s = s + np.sum({self.vec()})")
                    return
                mk = self.fresh("q")
                self.emit(f"{mk} = m * 1.0")
                self.mats.append(mk)
            if r.random() < 0.5:
                self.emit(f"{mk}[{r.randrange(R)}] = {self.vec()}")
            else:
                self.emit(f"{mk}[:, {r.randrange(N)}] += ({self.vec()})[:{R}]")
        elif kind == "if":
            self.emit(f"if {self.scalar()} > {self.const()}:")
            self.body(depth - 1)
            if r.random() < 0.6:
                self.emit("else:")
                self.body(depth - 1)
        elif kind == "for":
            trips = r.choice([2, 3, N]) if r.random() < 0.5 else N
            i = self.fresh("i")
            outer = self.loop_index
            self.emit(f"for {i} in range({trips}):")
            self.loop_index, self.in_loop = i, self.in_loop + 1
            self.body(depth - 1)
            self.loop_index, self.in_loop = outer, self.in_loop - 1
        elif kind == "while":
            k, y = self.fresh("k"), self.local_vec()
            self.emit(f"{k} = 0")
            self.emit(f"while np.sum({y} * {y}) < {self.const(5.0, 40.0)} and {k} < {r.randrange(2, 9)}:")
            self.in_loop += 1
            outer, self.loop_index = self.loop_index, None
            with self.block():
                self.emit(f"{k} += 1")
                self.emit(f"{y} = {y} * 1.25 + np.tanh({self.vec(1)})")
                for _ in range(r.randrange(2)):
                    self.statement(0)
            self.in_loop -= 1
            self.loop_index = outer
        elif kind == "break":
            self.emit(f"if {self.scalar(0)} > {self.const()}:")
            with self.block():
                self.emit("break")

    #: the statements that write a local vector
    WRITES = ("new", "set", "slice", "aug", "scatter", "scatter_add", "add_at", "mask", "rebind")

    def write(self, kind: str, y: str) -> None:
        """One of :data:`WRITES` into the local vector ``y``."""
        r = self.rng
        if kind in ("new", "set"):
            k = self.loop_index if self.loop_index and r.random() < 0.5 else str(r.randrange(-N, N))
            self.emit(f"{y}[{k}] = {self.scalar()}")
        elif kind == "slice":
            a = r.randrange(N - 1)
            b = r.randrange(a + 1, N + 1)
            self.emit(f"{y}[{a}:{b}] {r.choice(['=', '+=', '*='])} ({self.vec()})[{a}:{b}]")
        elif kind == "aug":
            self.emit(f"{y} {r.choice(['+=', '-=', '*='])} {self.vec()}")
        elif kind == "scatter":
            self.emit(f"{y}[u] = ({self.vec()})[:{K}]")
        elif kind == "scatter_add":
            value = y if r.random() < 0.25 else f"({self.vec()})"
            self.emit(f"{y}[u] {r.choice(['+=', '*='])} {value}[{r.choice(['u', ':%d' % K])}]")
        elif kind == "add_at":
            # the updates may be the written array itself (its adjoint has two parts, issue 40)
            self.emit(f"np.add.at({y}, g, {y if r.random() < 0.25 else self.vec()})")
        elif kind == "mask":
            self.emit(f"{y}[{y} > {self.const()}] {r.choice(['*=', '='])} {self.scalar(0)}")
        else:
            self.emit(f"{y} = {self.vec()}")

    def body(self, depth: int) -> None:
        with self.block():
            for _ in range(self.rng.randrange(1, 4)):
                self.statement(depth)

    # ------------------------------------------------------------------ the module

    def function(self) -> None:
        r = self.rng
        self.emit("s = 0.0")
        for _ in range(r.randrange(1, 3)):
            self.new_vec()
        for _ in range(r.randrange(2, 6)):
            self.statement(2)
        terms = [f"np.sum({v} * {r.choice(['x', 'w', '1.0', 'np.tanh(%s)' % v])})" for v in self.vecs[2:]]
        terms += [f"np.sum({q} * m)" for q in self.mats[1:]] + ["s"]
        self.emit("return " + " + ".join(terms))

    def module(self, seed: str) -> str:
        r = self.rng
        u = r.sample(range(N), K)
        g = [r.randrange(N) for _ in range(N)]
        # index arrays as arguments (checked at run time: kiln refuses that check inside a staged
        # loop it differentiates) or as constants of the function (checked while tracing)
        index_args = r.random() < 0.4
        if not index_args:
            self.emit(f"u = np.array({u})")
            self.emit(f"g = np.array({g})")
        self.function()
        argnums = tuple(sorted(r.sample(range(3), r.randrange(1, 4))))
        # inputs off the quarter grid of the program's constants, so that ties and kinks are rare
        x = [f"{r.uniform(-2.0, 2.0):.4f}" for _ in range(N)]
        w = [f"{r.uniform(-2.0, 2.0):.4f}" for _ in range(N)]
        m = [[f"{r.uniform(-2.0, 2.0):.4f}" for _ in range(N)] for _ in range(R)]
        indices = f", np.array({u}, dtype=np.int64), np.array({g}, dtype=np.int64)" if index_args else ""
        header = ['FUZZ_MODE = "grad"', f"ARGNUMS = {argnums if len(argnums) > 1 else argnums[0]}",
                  f"VALUE_AND_GRAD = {r.random() < 0.3}"]
        matrix = ", ".join("[" + ", ".join(row) + "]" for row in m)
        return self.module_text(f"gradient program {seed}", header, "x, w, m" + (", u, g" if index_args else ""),
                                f"[np.array([{', '.join(x)}]), np.array([{', '.join(w)}]), np.array([{matrix}]){indices}]")


def generate_grad(seed: str) -> Program:
    """The gradient program named ``seed``: the same text for the same seed."""
    return Program(seed, GradGen(random.Random("grad-" + seed)).module(seed))
