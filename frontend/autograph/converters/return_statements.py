"""``return`` becomes a flag and a single return value, returned once at the end.

    def f(x):                        def f(x):
        while c:                         do_return = False
            if p:                        retval_ = ag__.NOT_RETURNED
                return a        ->       while not do_return and c:
            B                                if p:
        return b                                 do_return = True
                                                 retval_ = ag__.returning(a)
                                             if not do_return:
                                                 B
                                         if not do_return:
                                             do_return = True
                                             retval_ = ag__.returning(b)
                                         return ag__.returned(retval_, 'retval_')

Loops that may return stop on the flag (``for`` loops through their extra
test). A function whose only ``return`` is its last statement is left as is.
A function that may fall off its end gets ``return None`` there, so that
every path sets ``retval_``: ``NOT_RETURNED`` is a placeholder for staging
(a path that has not returned yet), distinct from a ``None`` returned.
``ag__.returned`` tells the tracer the function ends there (staging.returned);
``ag__.returning`` notes where each ``return`` is (staging.returning).
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.analysis.activity import contains
from kiln.frontend.autograph.context import ConversionContext, mark_init
from kiln.frontend.autograph.converters import jumps


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    """Lowers every ``return`` of ``func`` (not of the functions nested in it)."""
    if not contains(func.body[:-1], (ast.Return,)) and not any(
        contains(block, (ast.Return,)) for block in jumps.nested_blocks(func.body[-1])
    ):
        return
    flag, value = ctx.new_name("do_return"), ctx.new_name("retval_")

    def lower_return(stmt: ast.stmt) -> list[ast.stmt]:
        assert isinstance(stmt, ast.Return)
        result = stmt.value or ast.Constant(value=None)
        code = "value = ag__.returning(result, True)" if getattr(stmt, "kiln_falls_off", False) else "value = ag__.returning(result)"
        return templates.replace("flag = True\n" + code, stmt, flag=flag, value=value, result=result)

    def lower(stmts: list[ast.stmt]) -> list[ast.stmt]:
        return jumps.lower_block(
            stmts,
            flag,
            is_jump=lambda s: isinstance(s, ast.Return),
            lower_jump=lower_return,
            may_jump=lambda s: contains([s], (ast.Return,)),
            lower_other=lower_loop,
        )

    def lower_loop(stmt: ast.stmt) -> ast.stmt:
        if not isinstance(stmt, (ast.For, ast.While)) or not contains(stmt.body, (ast.Return,)):
            return stmt
        stmt.body = lower(stmt.body)
        if isinstance(stmt, ast.While):
            jumps.prepend_test(stmt, jumps.not_flag(flag, stmt))
        else:
            stmt.kiln_extra_tests = [jumps.not_flag(flag, stmt), *getattr(stmt, "kiln_extra_tests", [])]  # type: ignore[attr-defined]
        return stmt

    body = func.body
    if not isinstance(body[-1], ast.Return):
        falls_off = templates.replace("return None", body[-1])
        falls_off[0].kiln_falls_off = True  # type: ignore[attr-defined]
        body = [*body, *falls_off]
    init = templates.replace("flag = False\nvalue = ag__.NOT_RETURNED", func.body[0], flag=flag, value=value)
    end = templates.replace("return ag__.returned(value, name)", func.body[-1], value=value,
                            name=ast.Constant(value=value))
    func.body = [*map(mark_init, init), *lower(body), *end]
