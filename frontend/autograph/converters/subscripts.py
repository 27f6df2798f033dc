"""Reads ``a[k]`` become ``ag__.getitem(a, k)``, so a NumPy array (a global table, ``np.mgrid``'s
result) indexed by a traced value is lifted into the trace instead of NumPy asking the
tensor for a value it does not have. Slices in the key become ``ag__.slice_(...)`` (the builtin) calls, ``...``
stays ``Ellipsis``. A key of literals only stays as written. A write ``a[k] = v`` becomes
``ag__.store(v)(a, k)`` (Python's order: the value first), so that a traced value written into a
plain NumPy array is refused with a clear error. An unpacking whose targets hold a subscript
(``xs[i], xs[j] = xs[j], xs[i]``) unpacks into fresh names first, then assigns each target from its
name, left to right: every read happens before any write, as in Python, and each subscript target is
an ``ag__.store`` (a list at a traced index is written through :mod:`list_index`). ``a[k] += v`` (any augmented operator) becomes
``ag__.store_augmented(a, k, 'Add', lambda: v)``, which reads, applies the in-place operator and
writes back in Python's order (a list element at a traced index is written so too). Deletions are
left as written.
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext
from kiln.frontend.autograph.converters.expressions import ExpressionConverter, transform_with


def _key(node: ast.expr) -> ast.expr:
    """The key of a subscript as an ordinary expression."""
    if isinstance(node, ast.Slice):
        parts = [p if p is not None else ast.Constant(None) for p in (node.lower, node.upper, node.step)]
        call = ast.Call(func=templates.replace_expr("ag__.slice_", node), args=parts, keywords=[])
        return ast.copy_location(call, node)
    if isinstance(node, ast.Tuple):
        return ast.copy_location(ast.Tuple(elts=[_key(e) for e in node.elts], ctx=ast.Load()), node)
    return node


def _constant(key: ast.expr) -> bool:
    """A key of literals only (``x[1:3, ::2]``, ``y[..., 0]``) cannot hold a traced value: left as written."""
    return all(isinstance(n, (ast.Constant, ast.Slice, ast.Tuple, ast.UnaryOp, ast.USub, ast.Load)) for n in ast.walk(key))


def _store(value: ast.expr, target: ast.Subscript, origin: ast.AST) -> ast.stmt:
    """``target = value`` for a subscript ``target``, as ``ag__.store(value)(obj, key)``."""
    call = templates.replace_expr("ag__.store(value)(obj, key)", origin, value=value, obj=target.value,
                                  key=_key(target.slice))
    return ast.copy_location(ast.Expr(value=call), origin)


class _Subscripts(ExpressionConverter):
    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or _constant(node.slice):
            return node
        return templates.replace_expr("ag__.getitem(value, key)", node, value=node.value, key=_key(node.slice))

    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        """``a[k] = v`` becomes ``ag__.store(v)(a, k)``: ``v`` still evaluated first, then ``a`` and ``k``."""
        self.generic_visit(node)
        if len(node.targets) != 1:
            return node
        target = node.targets[0]
        if isinstance(target, (ast.Tuple, ast.List)) and any(isinstance(t, ast.Subscript) for t in ast.walk(target)):
            return self._unpacking(node, target)
        if not isinstance(target, ast.Subscript):
            return node
        return _store(node.value, target, node)

    def _unpacking(self, node: ast.Assign, target: ast.Tuple | ast.List) -> list[ast.stmt]:
        """``t1, t2 = v`` as ``n1, n2 = v; t1 = n1; t2 = n2`` (nested and starred targets keep their shape)."""
        leaves: list[tuple[ast.expr, str]] = []

        def fresh(t: ast.expr) -> ast.expr:
            if isinstance(t, (ast.Tuple, ast.List)):
                return ast.copy_location(type(t)(elts=[fresh(e) for e in t.elts], ctx=ast.Store()), t)
            if isinstance(t, ast.Starred):
                return ast.copy_location(ast.Starred(value=fresh(t.value), ctx=ast.Store()), t)
            leaves.append((t, self.ctx.new_name("unpacked")))
            return ast.copy_location(ast.Name(id=leaves[-1][1], ctx=ast.Store()), t)

        out: list[ast.stmt] = [ast.copy_location(ast.Assign(targets=[fresh(target)], value=node.value), node)]
        for leaf, name in leaves:
            value = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), leaf)
            if isinstance(leaf, ast.Subscript):
                out.append(_store(value, leaf, leaf))
            else:
                out.append(ast.copy_location(ast.Assign(targets=[leaf], value=value), leaf))
        return out

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        """``a[k] op= v`` becomes ``ag__.store_augmented(a, k, 'Op', lambda: v)``: ``a``, ``k``, then ``a[k]``, then ``v``."""
        self.generic_visit(node)
        if not isinstance(node.target, ast.Subscript) or _constant(node.target.slice):
            return node
        target = node.target
        call = templates.replace_expr("ag__.store_augmented(obj, key, op, lambda: value)", node, obj=target.value,
                                      key=_key(target.slice), op=ast.Constant(type(node.op).__name__), value=node.value)
        return ast.copy_location(ast.Expr(value=call), node)

    def visit_ListComp(self, node: ast.expr) -> ast.AST:  # no lambda is made: comprehensions too
        return self.generic_visit(node)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    transform_with(_Subscripts, func, ctx)
