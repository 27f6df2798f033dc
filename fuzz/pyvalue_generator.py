"""Random programs in the scalar-loop style with Python values, for ``--mode python``.

``f(a, lst, ints, n, t)`` takes a float64 array ``a`` (shape ``(N,)``), a list of Python floats
``lst``, a list of Python ints ``ints``, a Python int ``n`` and a Python float ``t``. It counts
with Python numbers under staged ``if``s on ``a``'s data (in loops that unroll and loops that are
staged, nested too), reads list elements, writes them (``lst[j] = ...``, ``lst[j] += ...``, under
staged ``if``s too, every element by index, and at an index of array data:
``lst[int(abs(a[k])) % 4] += float(...)``, and in a loop over ``a``'s rows, which appends too),
swaps two elements at indices of array data (``lst[i], lst[j] = lst[j], lst[i]``, of arrays too),
sorts the list (``lst.sort()``, by a key, reversed), searches it (``index``, ``count``, ``remove``),
picks by keys of array data (``max(range(N), key=lambda i: a[i])``, ``sorted(range(N), key=...)``),
rounds Python floats (``round(x, n)``),
iterates lists (``for v in lst``, ``zip``),
reduces them (``sum``, ``max``, ``min``), appends to them, makes Python numbers of array data
(``float(a[k])``), picks numbers with conditional expressions, steps a counter by a NumPy bool,
counts with a ``while`` on array data (one whose test binds a name with ``:=`` that the body,
a ``continue``/``break``, an ``else`` and the code after it read), multiplies Python complex
numbers and NumPy complex scalars in loops, divides Python numbers (``/``, ``//``, ``%``, ``divmod``,
``** -1``: Python's ``ZeroDivisionError`` where a divisor is zero), checks data with ``assert`` and ``raise`` under staged
``if``s (in loops too), and tests with ``and``/``or``/``not`` and chained comparisons,
as conditions and as values. It builds lists with comprehensions over ``a`` and ranges (staged as
loops; nested ones too), filtered on array data, and folds them (``sum``, ``len``, ``any``, ``max``,
``np.array``), generator expressions in folds too. Counters may change type by path (``c = c * 0.5`` on one path of
an int counter, ``c += a[i] if ... else 0``: an int or a float, a NumPy float), and dicts of
numbers and lists are changed under staged ``if``s. It returns a tuple or list of some of these:
lists, counters, flags, arrays, dicts. :mod:`kiln.fuzz.pyvalue_check` compares it with the same program run as Python.
"""

from __future__ import annotations

import random

from kiln.fuzz.emitter import Emitter
from kiln.fuzz.generator import Program

N, L = 6, 4
#: exception types the programs raise (with ``check K`` messages); any other eager error is invalid
RAISED = ("ValueError", "RuntimeError")


class PyValueGen(Emitter):
    """Statements over Python numbers, the two lists, flags and arrays made of ``a``."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        #: Python numbers bound at the top level, on every path
        self.numbers: list[str] = ["n", "t"]
        #: those of them known while tracing
        self.pure: list[str] = ["n", "t"]
        self.flags: list[str] = []
        self.arrays: list[str] = ["a"]
        self.dicts: list[str] = []
        self.checks = 0
        #: what the counter being generated may be stepped by (of its Python type)
        self.steps: list[str] = []
        #: values only returned (a comprehension's list, a fold whose type the data decides)
        self.made: list[str] = []

    def const(self) -> str:
        return repr(round(self.rng.uniform(-2.0, 2.0) * 4) / 4)

    def message(self) -> str:
        self.checks += 1
        return f"check {self.checks}: {self.rng.choice(['too large', 'out of range', 'bad data', 'negative'])}"

    # ------------------------------------------------------------------ expressions

    def elem(self, index: str | None = None) -> str:
        """An element of array data (a NumPy scalar), perhaps at a loop index."""
        r = self.rng
        k = index if index is not None and r.random() < 0.7 else str(r.randrange(-N, N))
        return r.choice([f"a[{k}]", f"a[{k}]", f"np.sum(a) * 0.25", f"np.max(a)", f"{r.choice(self.arrays)}[{k}]"])

    def number(self, pure: bool = False) -> str:
        """A Python number: list elements, counters, arguments and their arithmetic; ``pure``: known
        while tracing (no counter a staged ``if`` changed, no number made of array data)."""
        r = self.rng
        numbers = self.pure if pure else self.numbers
        leaf = r.choice([f"lst[{r.randrange(-L, L)}]", f"ints[{r.randrange(3)}]", r.choice(numbers),
                         "len(lst)", self.const(), "sum(lst)", "max(lst)", "min(ints)", f"abs(lst[{r.randrange(L)}])"])
        if r.random() < 0.5:
            return leaf
        return f"{leaf} {r.choice(['+', '-', '*'])} {r.choice([self.const(), r.choice(numbers), f'lst[{r.randrange(L)}]'])}"

    def cond(self, index: str | None = None, depth: int = 1) -> str:
        """A test on array data (staged) or on Python values, with ``and``/``or``/``not`` and chains."""
        r = self.rng
        choice = r.randrange(8 if depth > 0 else 4)
        if choice == 0:
            return f"{self.elem(index)} {r.choice(['>', '<', '>=', '<='])} {r.choice([self.const(), self.number()])}"
        if choice == 1:
            lo, hi = sorted([float(self.const()), float(self.const())])
            return f"{lo} <= {self.elem(index)} {r.choice(['<', '<='])} {hi}"
        if choice == 2:
            return f"{self.elem(index)} < {self.elem(index)} < {self.const()}"
        if choice == 3:
            if self.flags and r.random() < 0.5:
                return r.choice(self.flags)
            return f"{self.number()} {r.choice(['>', '<', '=='])} {self.const()}"
        if choice in (4, 5):
            return f"{self.cond(index, depth - 1)} {r.choice(['and', 'or'])} {self.cond(index, depth - 1)}"
        if choice == 6:
            return f"not {self.cond(index, depth - 1)}"
        return f"np.any(a > {self.const()}) {r.choice(['and', 'or'])} not {self.cond(index, depth - 1)}"

    def py_cond(self, depth: int = 1) -> str:
        """A test on Python values only (Python's own ``if``), with ``and``/``or``/``not`` and chains."""
        r = self.rng
        choice = r.randrange(5 if depth > 0 else 2)
        if choice == 0:
            return f"{self.number(pure=True)} {r.choice(['>', '<', '>=', '!='])} {self.const()}"
        if choice == 1:
            return f"{self.const()} <= {self.number(pure=True)} < {float(self.const()) + 2.0}"
        if choice in (2, 3):
            return f"{self.py_cond(depth - 1)} {r.choice(['and', 'or'])} {self.py_cond(depth - 1)}"
        return f"not {self.py_cond(depth - 1)}"

    # ------------------------------------------------------------------ statements

    def counter_loop(self) -> None:
        """A Python number counted under a staged ``if`` in a loop (nested sometimes)."""
        r = self.rng
        c = self.fresh("c")
        start = r.choice(['0', '0.0', 'ints[0]', 'lst[1]', 't'])
        self.emit(f"{c} = {start}")
        # an int counter sometimes becomes a float on some paths (its Python type then known per call)
        self.steps = ['1', 'ints[1]', 'n'] if start in ('0', 'ints[0]') else ['1', '0.5', 'lst[0]', 'n']
        if r.random() < 0.5:
            self.steps.append('0.5')
        i = self.fresh("i")
        self.emit(f"for {i} in range({r.choice([3, N, N])}):")
        with self.block():
            if r.random() < 0.25:
                i = self.fresh("j")
                self.emit(f"for {i} in range({r.choice([2, N])}):")
                with self.block():
                    self.count_step(c, i)
            else:
                self.count_step(c, i)
        self.numbers.append(c)

    def count_step(self, c: str, i: str) -> None:
        """The body of a counting loop: ``c`` changed under a staged ``if`` on ``a[i]``, perhaps a raise."""
        r = self.rng
        if r.random() < 0.15:  # a Python int or a NumPy float, as the data says (`s += a[i] if ... else 0`)
            self.emit(f"{c} += {self.elem(i)} if {self.cond(i, 0)} else {r.choice(['0', '1', '0.5'])}")
            return
        self.emit(f"if {self.cond(i)}:")
        with self.block():
            step = r.choice(self.steps + [f"({self.elem(i)} > {self.const()})"])  # `+= np.bool_` makes a NumPy int
            self.emit(f"{c} {r.choice(['+=', '-='])} {step}")
            if r.random() < 0.1:  # kiln refuses a list write under a staged `if` (by design)
                self.list_write(i)
        if r.random() < 0.4:
            self.emit("else:")
            with self.block():
                self.emit(f"{c} = {c} * {r.choice(['2', '1', '0.5' if '0.5' in self.steps else '-1'])}")
        if r.random() < 0.2:
            self.raise_if(i, 0)

    def raise_if(self, index: str | None = None, depth: int = 1) -> None:
        """``if <test>: raise ...("check K: ...")``, the test perhaps on ``a[index]``."""
        self.emit(f"if {self.cond(index, depth)}:")
        with self.block():
            self.emit(f"raise {self.rng.choice(RAISED)}({self.message()!r})")

    def list_write(self, index: str | None = None) -> None:
        r = self.rng
        if index is None and r.random() < 0.15:  # at an index known only at run time (`counts[b] += 1`)
            self.emit(f"lst[int(abs({self.elem()})) % {L}] {r.choice(['=', '+='])} float({self.number()})")
            return
        j = r.randrange(-L, L)
        value = self.number()
        if index is not None and r.random() < 0.3:
            value = f"{value} + {self.elem(index)}"
        self.emit(f"lst[{j}] {r.choice(['=', '=', '+=', '*='])} {value}")

    def statement(self) -> None:
        r = self.rng
        kind = r.choice(["counter", "counter", "list", "assert", "raise", "flag", "iterate", "array", "branch",
                         "scale", "convert", "list", "flag", "while", "ifexp", "append", "arith", "dict", "rows",
                             "comprehension", "swap", "listops", "walrus", "complex"])
        if kind == "branch" and r.random() < 0.5:  # kiln traces list elements and number arguments, so
            kind = "list"  # a list written under any `if` on them is refused (by design): fewer of those
        if kind == "counter":
            self.counter_loop()
        elif kind == "list":
            self.list_write()
        elif kind == "assert":
            msg = f", {self.message()!r}" if r.random() < 0.7 else ""
            self.emit(f"assert {self.cond()}{msg}")
        elif kind == "raise":
            self.raise_if()
        elif kind == "flag":
            name = self.fresh("b")
            self.emit(f"{name} = {self.cond()}")
            self.flags.append(name)
        elif kind == "iterate":
            s = self.fresh("s")
            self.emit(f"{s} = {r.choice(['0.0', '0', 't'])}")
            if r.random() < 0.5:
                self.emit(f"for v in lst:")
                with self.block():
                    self.emit(f"{s} += v * {r.choice([self.const(), 'n', 't'])}")
            else:
                self.emit(f"for v, k in zip(lst, ints):")
                with self.block():
                    self.emit(f"{s} = {s} + v * k")
            self.numbers.append(s)
            self.pure.append(s)
        elif kind == "scale":  # every element of the list argument rewritten, by index
            i = self.fresh("i")
            self.emit(f"for {i} in range(len(lst)):")
            with self.block():
                self.emit(f"lst[{i}] = lst[{i}] * {r.choice([self.const(), 'n', 't', 'ints[0]'])}")
        elif kind == "while":  # a Python counter of a `while` on array data, a raise inside
            k = self.fresh("k")
            self.emit(f"{k} = 0")
            self.emit(f"while {k} < {N - 1} and {self.cond(k, 0)}:")
            with self.block():
                self.emit(f"{k} += 1")
                if r.random() < 0.5:
                    self.raise_if(k, 0)
            self.numbers.append(k)
        elif kind == "walrus":  # a `while` whose test binds a name the body and the code after it read
            k, w, acc = self.fresh("k"), self.fresh("w"), self.fresh("s")
            self.emit(f"{k} = 0")
            self.emit(f"{acc} = {r.choice(['0.0', '0', 't'])}")
            self.emit(f"while ({w} := {k} + a[{k} % {N}]) < {r.choice(['1.5', '2.75', '4.0'])}:")  # (a[...] >= -2: ends)
            with self.block():
                self.emit(f"{k} += 1")
                if r.random() < 0.3:
                    self.emit(f"if {w} < {self.const()}:")
                    with self.block():
                        self.emit(r.choice(["continue", "break"]))
                self.emit(f"{acc} += {w} * {r.choice([self.const(), 'n', 't'])}")
            if r.random() < 0.4:
                self.emit("else:")
                with self.block():
                    self.emit(f"{acc} = -{acc}")
            self.numbers += [k, w, acc]
        elif kind == "complex":  # products of Python complex numbers and of NumPy complex scalars
            z, i = self.fresh("z"), self.fresh("i")
            self.emit(f"{z} = complex({self.elem()}, {self.const()})")
            self.emit(f"for {i} in range({r.choice([2, N])}):")
            with self.block():
                step = r.choice([f"complex(a[{i}], {self.const()})", f"(a[{i}] + 0.5j)", f"np.complex128(a[{i}] - 1j)"])
                self.emit(f"{z} = {z} * {step} * 0.25 + {r.choice([self.const(), '1j', 't'])}")
            name = self.fresh("p")
            self.emit(f"{name} = {r.choice([f'{z}.real', f'{z}.imag', f'abs({z})', f'({z} * {z}).real'])}")
            self.numbers.append(name)
        elif kind == "ifexp":  # a conditional expression (staged on array data): one Python type on both paths
            name = self.fresh("e")
            self.emit(f"{name} = lst[{r.randrange(L)}] if {self.cond()} else {r.choice(['t', self.const(), 'sum(lst)'])}")
            self.numbers.append(name)
        elif kind == "append":  # the caller's list grows (at the top level: Python's own list)
            self.emit(f"lst.append({self.number(pure=True)} * 1.0)")
        elif kind == "arith":  # Python's arithmetic on numbers some of which are traced
            name = self.fresh("q")
            a, b = r.choice(self.numbers), r.choice(self.numbers)
            forms = [f'min({a}, {b})', f'max({a}, {b}) * 2', f'abs({a}) + {b}', f'-{a} + 0.5', f'{a} * {a}']
            if r.random() < 0.4:  # Python's division of Python numbers (ZeroDivisionError where one is zero)
                forms = [f'{a} / {b}', f'{a} // {b}', f'{a} % {b}', f'divmod({a}, {b})[{r.randrange(2)}]',
                         f'{a} ** -1', f'abs({a}) ** 0.5', f'{a} / (abs({b}) + 1)']
            self.emit(f"{name} = {r.choice(forms)}")
            self.numbers.append(name)
        elif kind == "convert":  # a Python number made from array data
            name = self.fresh("p")
            self.emit(f"{name} = {r.choice(['float', 'float', 'int'])}({self.elem()})")
            self.numbers.append(name)
            if r.random() < 0.5:
                self.emit(f"lst[{r.randrange(-L, L)}] = {name} {r.choice(['+', '*'])} {self.number()}")
        elif kind == "dict":  # a dict of Python numbers changed under staged `if`s on array data
            d, i = self.fresh("d"), self.fresh("i")
            self.emit(f"{d} = {{'n': 0, 'lo': t, 'seen': []}}")
            self.emit(f"for {i} in range({r.choice([3, N])}):")
            appends = r.random() < 0.5  # (on both paths: a list keeps one length on every path)
            with self.block():
                self.emit(f"if {self.cond(i)}:")
                with self.block():
                    self.emit(f"{d}['n'] += 1")
                    self.emit(f"{d}['lo'] = min({d}['lo'], {self.elem(i)})")
                    if appends:
                        self.emit(f"{d}['seen'].append({i})")
                self.emit("else:")
                with self.block():
                    self.emit(f"{d}['seen'].append(-1)" if appends else f"{d}['lo'] = {d}['lo'] * {r.choice(['1', '0.5'])}")
            self.numbers += [f"{d}['n']", f"{d}['lo']"]
            self.dicts.append(d)
        elif kind == "rows":  # a loop over the array's rows changing the list (run as Python's loop)
            self.emit("for v in a:")
            with self.block():
                self.emit(r.choice([f"lst[int(abs(v)) % {L}] += float(v)", "lst.append(float(v) * 2)"]))
        elif kind == "comprehension":
            self.comprehension()
        elif kind == "swap":
            self.swap()
        elif kind == "listops":
            self.list_ops()
        elif kind == "array":
            name = self.fresh("y")
            self.emit(f"{name} = a * {self.number()} + {r.choice(self.numbers)}")
            self.arrays.append(name)
        else:  # list writes under an `if` (on Python values: still staged, kiln traces them as values)
            self.emit(f"if {self.py_cond() if r.random() < 0.7 else self.cond()}:")
            with self.block():
                self.list_write()
            self.emit("else:")
            with self.block():
                self.list_write()

    def list_ops(self) -> None:
        """Python's list methods and key functions on traced numbers: ``lst.sort()`` (a key, reversed),
        ``index``/``count`` of an element or a number, ``remove`` of an element (one appended after, so
        the list keeps its length), ``max``/``min``/``sorted`` of a range keyed by array data, and
        ``round(x, n)`` of a Python float."""
        r = self.rng
        name = self.fresh("m")
        form = r.choice(["sort", "index", "count", "remove", "argmax", "argsort", "round"])
        if form == "sort":
            self.emit(r.choice(["lst.sort()", "lst.sort(reverse=True)", "lst.sort(key=abs)", "lst.sort(key=lambda v: -v)"]))
            return
        if form == "remove":
            self.emit(f"lst.remove(lst[{r.randrange(L)}])")
            self.emit(f"lst.append({self.const()})")
            return
        if form == "index":
            self.emit(f"{name} = lst.index(lst[{r.randrange(L)}])")
        elif form == "count":
            self.emit(f"{name} = lst.count({r.choice([f'lst[{r.randrange(L)}]', self.const(), 't'])})")
        elif form == "argmax":
            self.emit(f"{name} = {r.choice(['max', 'min'])}(range({N}), key=lambda i: {r.choice(['a[i]', 'abs(a[i] - t)', '-a[i]'])})")
        elif form == "argsort":
            self.emit(f"{name} = sorted(range({N}), key=lambda i: {r.choice(['a[i]', 'abs(a[i])'])}{r.choice(['', ', reverse=True'])})[{r.randrange(N)}]")
        else:
            self.emit(f"{name} = round(float({self.elem()}) * {self.const()}, {r.choice([0, 1, 2, -1])})")
        self.numbers.append(name)

    def swap(self) -> None:
        """Two elements of the list (or of an array) swapped at indices of array data, under a staged
        ``if`` or not: ``lst[i], lst[j] = lst[j], lst[i]`` reads both before writing either."""
        r = self.rng
        i, j = self.fresh("i"), self.fresh("i")
        target, size = r.choice([("lst", L), ("lst", L), (r.choice(self.arrays), N)])
        self.emit(f"{i}, {j} = int(abs({self.elem()})) % {size}, int(abs({self.elem()})) % {size}")
        swap = f"{target}[{i}], {target}[{j}] = {target}[{j}], {target}[{i}]"
        if r.random() < 0.3:
            self.emit(swap)
            return
        self.emit(f"if {self.cond()}:")
        with self.block():
            self.emit(swap)

    def comprehension(self) -> None:
        """A list built by a comprehension over ``a``'s elements or a range (staged as a loop), perhaps
        filtered on array data, nested, or a generator folded; folded or kept to be returned."""
        r = self.rng
        name = self.fresh("c")
        over_rows = r.random() < 0.5
        var = self.fresh("v" if over_rows else "i")
        item = var if over_rows else f"a[{var}]"
        over = "a" if over_rows else f"range({r.choice([3, N])})"
        element = r.choice([f"{item} * {self.const()}", f"float({item}) + {self.const()}", f"abs({item})",
                            f"{item} * {item}", f"{item} if {item} > {self.const()} else {self.const()}"])
        # (a short range runs as Python's loop, where a filter on array data is refused)
        filtered = over != "range(3)" and r.random() < 0.5
        test = f" if {item} {r.choice(['>', '<'])} {self.const()}" if filtered else ""
        if r.random() < 0.15:
            self.emit(f"{name} = [[{element} * w for w in a] for {var} in {over}]")
            self.made.append(name)
            return
        folds = ["sum", "any", "all"] + ([] if filtered else ["max", "min"])
        if r.random() < 0.3:  # a generator expression in a fold
            fold = r.choice(folds)
            self.emit(f"{name} = {fold}({element}{' > 0' if fold in ('any', 'all') else ''} for {var} in {over}{test})")
            (self.made if filtered else self.numbers).append(name)
            return
        self.emit(f"{name} = [{element} for {var} in {over}{test}]")
        fold = r.choice([*folds, "len", "np.array", "keep"])
        if fold == "keep":
            self.made.append(name)
        else:  # (into another variable: the list's, bound once and read whole, is staged)
            folded = self.fresh("c")
            if fold == "np.array":  # (of kept elements: float64 ones, as NumPy's array of none is float64)
                self.emit(f"{folded} = np.array({name}) * 0.5")
                (self.made if filtered else self.arrays).append(folded)
            else:
                self.emit(f"{folded} = {fold}({name})")
                (self.made if filtered else self.numbers).append(folded)

    def function(self) -> None:
        r = self.rng
        for _ in range(r.randrange(2, 6)):
            self.statement()
        returnable = self.numbers[2:] + self.flags + ["lst", "ints", "n", "t"] + self.arrays[1:] + self.dicts + self.made
        parts = r.sample(returnable, k=min(r.randrange(1, 4), len(returnable)))
        if len(parts) == 1:
            self.emit(f"return {parts[0]}")
        elif r.random() < 0.3:
            self.emit(f"return [{', '.join(parts)}]")
        else:
            self.emit(f"return {', '.join(parts)}")

    def module(self, seed: str) -> str:
        r = self.rng
        self.function()
        a = [f"{r.uniform(-2.0, 2.0):.3f}" for _ in range(N)]
        lst = [repr(round(r.uniform(-2.0, 2.0) * 4) / 4) for _ in range(L)]
        ints = [str(r.randrange(-3, 4)) for _ in range(3)]
        inputs = (f"[np.array([{', '.join(a)}]), [{', '.join(lst)}], [{', '.join(ints)}], {r.randrange(0, 5)}, "
                  f"{r.choice(['0.5', '-1.25', '2.0', '0.75'])}]")
        return self.module_text(f"Python-value program {seed}", ['FUZZ_MODE = "python"'], "a, lst, ints, n, t", inputs)


def generate_pyvalues(seed: str) -> Program:
    """The Python-value program named ``seed``: the same text for the same seed."""
    return Program(seed, PyValueGen(random.Random("python-" + seed)).module(seed))
