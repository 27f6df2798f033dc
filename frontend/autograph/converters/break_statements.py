"""``break`` becomes a flag that ends the loop; a loop's ``else`` clause moves after it.

    while c:                 break_1 = False
        A                    while not break_1 and c:
        if p:                    A
            break       ->       if p:
        B                            break_1 = True
    else:                        if not break_1:
        E                            B
                             if not break_1:
                                 E

For ``for`` loops the flag becomes the loop's extra test (``kiln_extra_tests``),
checked before each next item is fetched, as Python's ``break`` would.

An ``else`` clause is guarded by a flag of its own, ``loop_else_N``, cleared where the loop
breaks: after the loop the ``break`` is over, and the code after the clause reads what the
loop bound, so its guard must not be a jump flag (staging takes ``if not break_N`` for the
guard of code a jump skips, whose unbound variables nothing reads: ``found = i; break`` in
the loop and ``else: found = -1`` returned -1 whether or not the loop broke).
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.analysis.activity import contains
from kiln.frontend.autograph.context import ConversionContext, mark_init
from kiln.frontend.autograph.converters import jumps


class _Breaks(ast.NodeTransformer):
    def __init__(self, ctx: ConversionContext):
        self.ctx = ctx

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # nested functions are converted when they are called

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef  # type: ignore[assignment]

    def visit_While(self, node: ast.While | ast.For) -> list[ast.stmt]:
        self.generic_visit(node)  # inner loops first: what breaks remain are this loop's
        orelse, node.orelse = node.orelse, []
        if not contains(node.body, (ast.Break,), through_loops=False):
            return [node, *orelse]
        construct = self.ctx.construct_id()
        flag = self.ctx.numbered("break", construct)
        names, jump = {"flag": flag}, "flag = True"
        if orelse:
            names["no_break"], jump = self.ctx.numbered("loop_else", construct), "flag = True\nno_break = False"

        def is_break(s: ast.stmt) -> bool:
            return isinstance(s, ast.Break)

        def may_break(s: ast.stmt) -> bool:
            return not isinstance(s, (ast.For, ast.While)) and contains([s], (ast.Break,), through_loops=False)

        breaking = jumps.deciding(node, is_break, may_break)  # (the `if` holding the first `break`)
        node.body = jumps.lower_block(node.body, flag, is_jump=is_break,
                                      lower_jump=lambda s: templates.replace(jump, s, **names), may_jump=may_break)
        if isinstance(node, ast.While):
            jumps.prepend_test(node, jumps.not_flag(flag, node))
        else:
            node.kiln_extra_tests = [jumps.not_flag(flag, node), *getattr(node, "kiln_extra_tests", [])]  # type: ignore[attr-defined]
        init = [mark_init(templates.replace("flag = False", node, flag=flag)[0])]
        if not orelse:
            return [*init, node]
        init.append(mark_init(templates.replace("no_break = True", node, no_break=names["no_break"])[0]))
        return [*init, node, *templates.replace("if no_break:\n    orelse", breaking, no_break=names["no_break"], orelse=orelse)]

    visit_For = visit_While  # type: ignore[assignment]


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    """Lowers every ``break`` of ``func`` (not of the functions nested in it)."""
    func.body = [s for stmt in func.body for s in _as_list(_Breaks(ctx).visit(stmt))]


def _as_list(result: ast.AST | list[ast.stmt]) -> list[ast.stmt]:
    return result if isinstance(result, list) else [result]  # type: ignore[list-item]
