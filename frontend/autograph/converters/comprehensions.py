"""A list comprehension (or a generator expression folded by ``sum``/``min``/``max``/``any``/``all``)
becomes, before its statement, the loop that builds it, taken only when its iterable stages:

    y = [elt for x in X if c]   ->   comp__it = ag__.comprehension_iterable(X)
                                     if ag__.comprehension_stages(comp__it, lambda: (names read)):
                                         comp__ = ag__.comprehension_start()
                                         for comp__x in comp__it:
                                             comp__ = ag__.comprehension_next(comp__)
                                             if c':
                                                 comp__ = ag__.comprehension_put(comp__, elt')
                                         comp__ = ag__.comprehension_end(comp__)
                                     else:
                                         comp__ = [elt for x in comp__it if c]
                                     y = comp__

(``c'``, ``elt'``: with ``x`` renamed, so that the comprehension's variable stays its own.) Over a
tensor, ``kiln.range`` or a long ``range`` the later converters stage that loop and its ``if``
(``comprehension_next`` only where there is a filter): the body is traced once, not once per
element, and a nested comprehension in ``elt`` becomes a loop inside it. Over anything else the
comprehension runs as written (Python's own, lazy for a generator).

Only a comprehension whose list is read whole is hoisted: an argument of a fold, ``len`` or a
NumPy function (``np.array([...])``), a returned one, or one bound to a variable assigned once and
read only so (:func:`read_whole`); a list the function may index, change or pass on stays
Python's, with everything kiln does for Python lists. And only one the statement surely evaluates,
once, before anything after it:
not one under a ``lambda``, an ``if`` expression's branch, a short-circuit operand past the first,
another comprehension, or a ``while`` test; nor one with several ``for`` clauses, an ``async``
one, ``:=`` in its statement, or a nested scope that binds its variable again.
"""

from __future__ import annotations

import ast
import copy

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext

#: builtins whose generator-expression argument is folded whole (the fold needs every item)
FOLDS = frozenset({"sum", "min", "max", "any", "all"})
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_NO_HOIST = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)
#: statements whose expressions all run once, before the statement does anything else
_HOISTED_FROM = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr, ast.If, ast.For)


class _Finder(ast.NodeVisitor):
    """The hoistable comprehensions of one statement's expressions, in evaluation order: those
    before which the statement calls nothing that may change what they read (``return
    normalize(a), [v for v in a]`` keeps its order; calls of builtins and of ``np.``/``math.``
    functions are taken to change nothing)."""

    def __init__(self, reads: bool = False) -> None:
        self.found: list[ast.ListComp | ast.GeneratorExp] = []
        self.effects = False  # whether what was evaluated so far may have changed a Python object
        self.reads = reads  # whether it read a value (more than names of functions and constants)

    def visit(self, node: ast.AST) -> None:
        if not isinstance(node, (ast.Name, ast.Attribute, ast.Constant, ast.expr_context, ast.Call, ast.ListComp,
                                 ast.GeneratorExp)):
            self.reads = True
        super().visit(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return None

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.visit(node.test)
        self.effects = self.effects or _may_change(node.body) or _may_change(node.orelse)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self.visit(node.values[0])
        self.effects = self.effects or any(_may_change(v) for v in node.values[1:])

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self.visit(node.generators[0].iter)  # (a list used as a list stays Python's: it may be changed)
        self.effects = self.effects or _may_change(node)

    def visit_SetComp(self, node: ast.expr) -> None:
        self.effects = self.effects or _may_change(node)

    visit_DictComp = visit_GeneratorExp = visit_SetComp  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> None:
        self.visit(node.func)
        for arg in node.args:
            if isinstance(arg, ast.GeneratorExp) and _folded(node) or isinstance(arg, ast.ListComp) and _consumer(node):
                self.candidate(arg)
            else:
                self.visit(arg)
        for kw in node.keywords:
            self.visit(kw.value)
        self.effects = self.effects or not _pure(node)

    def candidate(self, node: ast.ListComp | ast.GeneratorExp) -> None:
        read_before = self.reads
        self.visit(node.generators[0].iter)
        # (moved before what the statement read first, it must not change that: `return y[0], [f(v) for v in x]`)
        if not self.effects and not (read_before and _may_change(node)) and _hoistable(node):
            self.found.append(node)
        else:
            self.effects = self.effects or _may_change(node)


#: builtins that change no Python object (the folds among them read a generator, which they use up)
_PURE_BUILTINS = FOLDS | {"len", "abs", "float", "int", "bool", "complex", "range", "round", "enumerate", "zip",
                          "list", "tuple", "sorted", "reversed", "isinstance", "str"}
_PURE_MODULES = frozenset({"np", "numpy", "math"})


def _pure(call: ast.Call) -> bool:
    """A call of a builtin or a NumPy or ``math`` function, which changes no Python object (``out=`` aside)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in _PURE_BUILTINS
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in _PURE_MODULES and isinstance(call.func, ast.Attribute)


def _may_change(node: ast.AST) -> bool:
    """Whether evaluating ``node`` may call something that changes a Python object."""
    return any(isinstance(n, ast.Call) and not _pure(n) for n in ast.walk(node))


def _consumer(call: ast.Call) -> bool:
    """A call that takes a list only to read it whole: a fold, ``len``, a NumPy function
    (``np.array``), or the operator that adds an element to a staged comprehension."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in FOLDS or func.id == "len"
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in _PURE_MODULES | {"ag__"} and isinstance(call.func, ast.Attribute)


def read_whole(func: ast.FunctionDef) -> frozenset[str]:
    """The variables bound once in ``func`` (in its own scope) and read only whole: as an argument
    of a :func:`_consumer` call or returned (``lst = [...]; return sum(lst), len(lst), lst``).
    Only such a variable may hold a staged comprehension's list; any other is Python's list."""
    parents: dict[int, ast.AST] = {}
    stores: dict[str, int] = {}
    other: set[str] = set()
    for node in ast.walk(func):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ast.walk(func):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and node is not func:
            other |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}  # (read or bound by a nested scope)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            other |= set(node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Name):
            parent = parents.get(id(node))
            if isinstance(parent, ast.Tuple) and isinstance(parents.get(id(parent)), ast.Return):
                parent = parents[id(parent)]
            if not (isinstance(parent, ast.Return) or isinstance(parent, ast.Call) and node in parent.args and _consumer(parent)):
                other.add(node.id)
    return frozenset(name for name, count in stores.items() if count == 1 and name not in other)


def _folded(call: ast.Call) -> bool:
    """``sum(v for v in x)`` and the like: a builtin fold of one generator expression."""
    return isinstance(call.func, ast.Name) and call.func.id in FOLDS and len(call.args) >= 1


def _hoistable(node: ast.ListComp | ast.GeneratorExp) -> bool:
    if len(node.generators) != 1 or node.generators[0].is_async:
        return False
    gen = node.generators[0]
    names = _target_names(gen.target)
    if names is None:
        return False
    inner = [node.elt, *gen.ifs]
    for part in inner:
        for sub in ast.walk(part):
            if isinstance(sub, _NO_HOIST):
                return False
            if isinstance(sub, ast.Lambda) and names & {a.arg for a in ast.walk(sub.args) if isinstance(a, ast.arg)}:
                return False
            if isinstance(sub, _COMPREHENSIONS) and any(
                names & (_target_names(g.target) or names) for g in sub.generators
            ):
                return False
    return True


def _free_values(comp: ast.ListComp | ast.GeneratorExp) -> ast.Lambda:
    """``lambda: (a, b, ...)`` of the names the comprehension's element and conditions read from
    outside it (not the names its own or nested comprehensions bind): what the operator looks at to
    tell whether the comprehension over a Python ``range`` reaches traced values at all."""
    gen = comp.generators[0]
    bound = set(_target_names(gen.target) or ())
    parts = [comp.elt, *gen.ifs]
    for part in parts:
        for sub in ast.walk(part):
            if isinstance(sub, _COMPREHENSIONS):
                bound |= {n for g in sub.generators for n in (_target_names(g.target) or ())}
            elif isinstance(sub, ast.Lambda):
                bound |= {a.arg for a in ast.walk(sub.args) if isinstance(a, ast.arg)}
            elif isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                bound.add(sub.target.id)
    names = sorted({sub.id for part in parts for sub in ast.walk(part)
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in bound})
    values = ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names], ctx=ast.Load())
    no_args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.copy_location(ast.Lambda(args=no_args, body=values), comp)


def _target_names(target: ast.expr) -> set[str] | None:
    """The names a ``for`` target binds, when it is a name or a (nested) tuple of names."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        out: set[str] = set()
        for elt in target.elts:
            names = _target_names(elt)
            if names is None:
                return None
            out |= names
        return out
    return None


def _bound(stmt: ast.stmt) -> str | None:
    """The one variable an assignment binds (``lst = ...``), if that is what it does."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        return node


class _Replace(ast.NodeTransformer):
    def __init__(self, old: ast.expr, name: str):
        self.old, self.name = old, name

    def visit(self, node: ast.AST) -> ast.AST:
        if node is self.old:
            return ast.copy_location(ast.Name(id=self.name, ctx=ast.Load()), node)
        return super().visit(node)


class _Hoister:
    def __init__(self, ctx: ConversionContext, func: ast.FunctionDef):
        self.ctx = ctx
        self.whole = read_whole(func)
        #: variables the function returns (a callee's returned list becomes Python's, for its caller)
        self.returned = {n.id for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None
                         for n in (r.value.elts if isinstance(r.value, ast.Tuple) else [r.value]) if isinstance(n, ast.Name)}

    def body(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                setattr(stmt, field, self.body(getattr(stmt, field)))
        if isinstance(stmt, ast.Try):
            for handler in stmt.handlers:
                handler.body = self.body(handler.body)
        if not isinstance(stmt, _HOISTED_FROM):
            return [stmt]
        parts = (
            [stmt.test] if isinstance(stmt, ast.If) else [stmt.iter] if isinstance(stmt, ast.For)
            else [stmt.value] if getattr(stmt, "value", None) is not None else []
        )
        if any(isinstance(n, ast.NamedExpr) for part in parts for n in ast.walk(part)):
            return [stmt]  # (`f(n := 3, [v * n for v in x])`: the comprehension reads what `:=` binds first)
        finder = _Finder(reads=isinstance(stmt, ast.AugAssign))  # (`t += ...` reads t first)
        for part in parts:
            if isinstance(part, ast.ListComp) and self.consumed(stmt):
                finder.candidate(part)
            elif isinstance(part, ast.Tuple) and isinstance(stmt, ast.Return):
                for elt in part.elts:
                    finder.candidate(elt) if isinstance(elt, ast.ListComp) else finder.visit(elt)
            else:
                finder.visit(part)
        returned = isinstance(stmt, ast.Return) or self.consumed(stmt) and _bound(stmt) in self.returned
        before: list[ast.stmt] = []
        for comp in finder.found:
            name = self.ctx.new_name("comp__")
            before.extend(self.loop(comp, name, returned and (comp is parts[0] or comp in getattr(parts[0], "elts", ()))))
            _Replace(comp, name).visit(stmt)
        return [*before, stmt]

    def consumed(self, stmt: ast.stmt) -> bool:
        """Whether the list ``stmt`` makes is read only whole: returned, or bound to such a variable."""
        return isinstance(stmt, ast.Return) or _bound(stmt) in self.whole

    def loop(self, comp: ast.ListComp | ast.GeneratorExp, name: str, returned: bool = False) -> list[ast.stmt]:
        gen = comp.generators[0]
        iterable = self.ctx.new_name("comp__it")
        names = {n: self.ctx.new_name(f"comp__{n}") for n in sorted(_target_names(gen.target) or ())}
        rename = _Rename(names)
        put: list[ast.stmt] = templates.replace(
            "name = ag__.comprehension_put(name, elt)", comp, name=name, elt=rename.visit(copy.deepcopy(comp.elt))
        )
        put = self.body(put)  # a comprehension in `elt` becomes a loop inside this one
        for test in reversed(gen.ifs):
            put = [ast.copy_location(ast.If(test=rename.visit(copy.deepcopy(test)), body=put, orelse=[]), comp)]
        if gen.ifs:
            put = templates.replace("name = ag__.comprehension_next(name)", comp, name=name) + put
        original = copy.copy(comp)
        original.generators = [ast.comprehension(target=gen.target, iter=ast.Name(id=iterable, ctx=ast.Load()),
                                                 ifs=gen.ifs, is_async=0)]
        out = templates.replace(
            """
            iterable = ag__.comprehension_iterable(source)
            if ag__.comprehension_stages(iterable, free):
                name = ag__.comprehension_start()
                for target in iterable:
                    put
                name = ag__.comprehension_end(name, returned)
            else:
                name = original
            """,
            comp,
            iterable=iterable,
            source=gen.iter,
            name=name,
            target=rename.visit(copy.deepcopy(gen.target)),
            put=put,
            original=original,
            returned=ast.Constant(value=returned),
            free=_free_values(comp),
        )
        ast.fix_missing_locations(ast.Module(body=out, type_ignores=[]))
        return out


def _truth_of_items(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    """``any(e for ...)`` / ``all(...)`` read only each item's truth: ``bool(e)`` gives the same
    answer and items of one type, so a generator whose items are numbers of a type the data pick
    (``v if v > 2 else v > 0``) is staged too, not refused."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("any", "all") \
                and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp) \
                and ctx.is_builtin(node.func.id) and ctx.is_builtin("bool"):
            gen = node.args[0]
            gen.elt = ast.copy_location(ast.Call(func=ast.Name(id="bool", ctx=ast.Load()), args=[gen.elt], keywords=[]),
                                        gen.elt)


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    if not any(isinstance(node, (ast.ListComp, ast.GeneratorExp)) for node in ast.walk(func)):
        return  # (nothing to hoist nor to fold: one walk instead of the hoister's several per statement)
    _truth_of_items(func, ctx)
    func.body = _Hoister(ctx, func).body(func.body)
