"""Shrink a failing program while it keeps failing the same way (delta debugging on the AST).

A candidate is the program with one change: statements deleted (large runs
first, then single ones), an ``if``/``for``/``while`` replaced by its body, an
``else`` dropped, an expression replaced by one of its operands, a keyword
argument dropped, an unused parameter (and its input) or helper removed. It is
kept when :func:`same_failure` holds: the same class and the same signature
(the normalized error, or which aspect of which output differs). A candidate
that is no longer well defined comes back ``invalid`` and is dropped, so the
result is still a program with one right answer.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any

from kiln.fuzz.check import Outcome

Path_ = tuple[tuple[str, int | None], ...]
Evaluate = Callable[[list[str]], list[Outcome]]


def same_failure(got: Outcome, want: Outcome) -> bool:
    return got.status == want.status and got.signature == want.signature


# ---------------------------------------------------------------------- addressing AST nodes


def _walk(node: ast.AST, path: Path_ = ()) -> Iterator[tuple[Path_, ast.AST]]:
    yield path, node
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _walk(item, path + ((name, i),))
        elif isinstance(value, ast.AST):
            yield from _walk(value, path + ((name, None),))


def _get(tree: ast.AST, path: Path_) -> Any:
    node: Any = tree
    for name, i in path:
        node = getattr(node, name)
        if i is not None:
            node = node[i]
    return node


def _replace(tree: ast.AST, path: Path_, new: Any) -> None:
    parent = _get(tree, path[:-1])
    name, i = path[-1]
    if i is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[i] = new


def _functions(tree: ast.Module) -> list[int]:
    """Indices of the module's function definitions other than ``inputs`` (what may shrink)."""
    return [i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef) and n.name != "inputs"]


def _is_np_attr(node: ast.AST) -> bool:
    """``np.float32``, ``np.add``: names, not values to simplify."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "np"


# ---------------------------------------------------------------------- candidates


def _edit(source: str, change: Callable[[ast.Module], bool]) -> str | None:
    tree = ast.parse(source)
    if not change(tree):
        return None
    ast.fix_missing_locations(tree)
    try:
        text = ast.unparse(tree) + "\n"
        compile(text, "<candidate>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    return text if text != source else None


def _stmt_lists(tree: ast.Module) -> list[tuple[Path_, int]]:
    out = []
    for f in _functions(tree):
        for path, node in _walk(tree.body[f], (("body", f),)):
            for name in ("body", "orelse"):
                block = getattr(node, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    out.append((path + ((name, None),), len(block)))
    return out


def deletions(source: str) -> Iterator[str]:
    """Runs of statements deleted, longest first."""
    tree = ast.parse(source)
    lists = _stmt_lists(tree)
    longest = max((n for _, n in lists), default=0)
    size = 1
    while size * 2 <= longest:
        size *= 2
    while size >= 1:
        for path, n in lists:
            for start in range(0, n, size):
                def change(t: ast.Module, path: Path_ = path, start: int = start) -> bool:
                    block = _get(t, path)
                    del block[start:start + size]
                    if not block:
                        block.append(ast.Pass())
                    return True

                text = _edit(source, change)
                if text:
                    yield text
        size //= 2


def unwrappings(source: str) -> Iterator[str]:
    """Compound statements replaced by their bodies; ``else`` branches dropped."""
    tree = ast.parse(source)
    for f in _functions(tree):
        for path, node in list(_walk(tree.body[f], (("body", f),))):
            if not isinstance(node, (ast.If, ast.For, ast.While)) or not path:
                continue
            options: list[Callable[[ast.stmt], list[ast.stmt]]] = [lambda n: list(n.body)]
            if isinstance(node, ast.For):
                options = [lambda n: [ast.Assign([n.target], _first_item(n.iter))] + list(n.body)]
            if node.orelse:
                options += [lambda n: list(n.orelse)]
            for make in options:
                def change(t: ast.Module, path: Path_ = path, make: Any = make) -> bool:
                    parent = _get(t, path[:-1])
                    name, i = path[-1]
                    block = getattr(parent, name)
                    assert i is not None
                    block[i:i + 1] = make(block[i]) or [ast.Pass()]
                    return True

                text = _edit(source, change)
                if text:
                    yield text
            if node.orelse:
                def drop(t: ast.Module, path: Path_ = path) -> bool:
                    _get(t, path).orelse = []
                    return True

                text = _edit(source, drop)
                if text:
                    yield text


def _first_item(iterable: ast.expr) -> ast.expr:
    """The first value a ``for`` loop binds: ``range(a, ...)`` gives ``a``, a sequence its ``[0]``."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
        args = iterable.args
        return args[0] if len(args) > 1 else ast.Constant(0)
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate":
        return ast.Tuple([ast.Constant(0), ast.Subscript(iterable.args[0], ast.Constant(0), ast.Load())], ast.Load())
    return ast.Subscript(iterable, ast.Constant(0), ast.Load())


def _operands(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.Subscript):
        return [node.value]
    if isinstance(node, ast.Call):
        out = [a for a in node.args if not isinstance(a, ast.Starred)]
        if isinstance(node.func, ast.Attribute) and not _is_np_attr(node.func):
            out.insert(0, node.func.value)  # x.sum(axis=0) -> x
        return out
    if isinstance(node, ast.Attribute) and not _is_np_attr(node):
        return [node.value]  # x.T -> x
    if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) > 1:
        return list(node.elts)
    return []


def simplifications(source: str) -> Iterator[str]:
    """Expressions replaced by an operand (largest expressions first); keyword arguments dropped."""
    tree = ast.parse(source)
    sites: list[tuple[int, Path_, int]] = []
    for f in _functions(tree):
        for path, node in _walk(tree.body[f], (("body", f),)):
            if isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
                if _operands(node):
                    sites.append((-len(ast.unparse(node)), path, len(_operands(node))))
            if isinstance(node, ast.Call) and node.keywords:
                sites.append((0, path, -len(node.keywords)))
    sites.sort(key=lambda s: s[0])
    for _, path, n in sites:
        if n < 0:
            for k in range(-n):
                def drop_kw(t: ast.Module, path: Path_ = path, k: int = k) -> bool:
                    del _get(t, path).keywords[k]
                    return True

                text = _edit(source, drop_kw)
                if text:
                    yield text
            continue
        for k in range(n):
            def change(t: ast.Module, path: Path_ = path, k: int = k) -> bool:
                node = _get(t, path)
                ops = _operands(node)
                if k >= len(ops):
                    return False
                _replace(t, path, ops[k])
                return True

            text = _edit(source, change)
            if text:
                yield text


def removals(source: str) -> Iterator[str]:
    """Unused parameters (with their inputs) and unused helper functions removed."""
    tree = ast.parse(source)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    main, inputs = funcs.get("f"), funcs.get("inputs")
    if main is not None and inputs is not None:
        used = {n.id for n in ast.walk(main) if isinstance(n, ast.Name)}
        for k, arg in enumerate(main.args.args):
            if arg.arg in used:
                continue

            def change(t: ast.Module, k: int = k) -> bool:
                fs = {n.name: n for n in t.body if isinstance(n, ast.FunctionDef)}
                ret = fs["inputs"].body[-1]
                if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.List)):
                    return False
                del fs["f"].args.args[k]
                del ret.value.elts[k]
                return True

            text = _edit(source, change)
            if text:
                yield text
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name not in ("f", "inputs") and node.name not in called:
            def drop(t: ast.Module, i: int = i) -> bool:
                del t.body[i]
                return True

            text = _edit(source, drop)
            if text:
                yield text


PASSES = (removals, deletions, unwrappings, simplifications)


def minimize(source: str, target: Outcome, evaluate: Evaluate, budget: int = 150, batch: int = 1) -> tuple[str, Outcome, int]:
    """The smallest program found that fails like ``target``; also its outcome and the evaluations spent.

    ``evaluate`` checks a list of sources (in parallel, ideally ``batch`` at a time).
    Each pass's candidates are tried in order; the first that still fails the
    same way is taken and the passes start over from it.
    """
    spent = 0
    best, best_out = source, target
    seen: set[str] = {source}
    progress = True
    while progress and spent < budget:
        progress = False
        for make in PASSES:
            pending: list[str] = []
            candidates = make(best)
            exhausted = False
            while not exhausted and spent < budget:
                pending = []
                for text in candidates:
                    if text not in seen:
                        seen.add(text)
                        pending.append(text)
                        if len(pending) >= batch:
                            break
                else:
                    exhausted = True
                if not pending:
                    break
                outs = evaluate(pending)
                spent += len(pending)
                hit = next((k for k, o in enumerate(outs) if same_failure(o, target)), None)
                if hit is not None:
                    best, best_out = pending[hit], outs[hit]
                    progress = True
                    break
            if progress:
                break
    return best, best_out, spent
