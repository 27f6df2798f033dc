"""``if``/``while``/``for`` become helper functions and a call of a control-flow operator.

    if x > 0:              def if_body():
        y = x                  nonlocal y
    else:          ->          y = x
        y = -x             def else_body():
                               nonlocal y
                               y = -x
                           def get_state():
                               return (y,)
                           def set_state(vars_):
                               nonlocal y
                               (y,) = vars_
                           ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',))

Each body declares ``nonlocal`` every name it binds, so the function's
variables behave as in Python. The *state* (``get_state``/``set_state``
and the symbol names) is what a staged op must thread: for ``if``, the names
bound in a branch and live after it; for loops, the names bound in the loop
and live after it or carried to the next iteration. An ``if`` also passes the
names a branch binds that are dead after it (``dead``, after the state in
``get_state``): a staged ``if`` traces both branches, and each must start
from the values before the ``if``, not from what the other branch bound. Runs after the jump
converters: no body holds ``break``, ``continue`` or ``return`` any more.

Every construct reuses the same helper names (each call follows its own ``def``s, and the
operators keep the function objects, not the names): CPython's compiler copies the names a
function binds into each function nested in it, so a name per construct made compiling a
function of n loops quadratic (1.3 s of symbol tables at 2,222 loops).
"""

from __future__ import annotations

import ast

from kiln.frontend.autograph import templates
from kiln.frontend.autograph.analysis import definitions, liveness
from kiln.frontend.autograph.analysis.activity import bound_names, declared, init_names
from kiln.frontend.autograph.context import ConversionContext


class _ControlFlow(ast.NodeTransformer):
    def __init__(self, ctx: ConversionContext, globals_: set[str]):
        self.ctx = ctx
        self.globals = globals_

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # nested functions are converted when they are called

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        body_bound, orelse_bound = self._bound(node.body), self._bound(node.orelse)
        bound = (body_bound | orelse_bound) - self.globals
        state = sorted(bound & node.kiln_live_out)  # type: ignore[attr-defined]
        # bound in a branch but unused after the `if`: not merged, but each branch must start without them
        dead = sorted(bound - node.kiln_live_out)  # type: ignore[attr-defined]
        self.generic_visit(node)
        body_name, doc = self.ctx.helper_name("if_body"), _doc("if", node)
        out = self._helper(body_name, node.body, body_bound, node, doc)
        orelse: ast.expr = ast.Constant(value=None)
        if node.orelse:
            else_name = self.ctx.helper_name("else_body")
            out += self._helper(else_name, node.orelse, orelse_bound, node.orelse[0], doc)
            orelse = ast.Name(id=else_name, ctx=ast.Load())
        get_state, set_state, state_out = self._state(state + dead, node, doc)
        call = templates.replace(
            "ag__.if_stmt(test, body, orelse, get_state, set_state, names" + (", dead)" if dead else ")"),
            node,
            test=node.test,
            body=body_name,
            orelse=orelse,
            get_state=get_state,
            set_state=set_state,
            names=templates.names_tuple(state),
            dead=templates.names_tuple(dead),
        )
        return self._undefined(node) + out + state_out + call

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        body_bound = self._bound(node.body)
        bound = body_bound | bound_names([node.test])
        state = sorted((bound - self.globals) & (node.kiln_live_out | node.kiln_live_in))  # type: ignore[attr-defined]
        self.generic_visit(node)
        test_name, body_name, doc = self.ctx.helper_name("loop_test"), self.ctx.helper_name("loop_body"), _doc("while", node)
        out = self._test(test_name, node.test, node, doc) + self._helper(body_name, node.body, body_bound, node, doc)
        get_state, set_state, state_out = self._state(state, node, doc)
        call = templates.replace(
            "ag__.while_stmt(test, body, get_state, set_state, names)",
            node,
            test=test_name,
            body=body_name,
            get_state=get_state,
            set_state=set_state,
            names=templates.names_tuple(state),
        )
        return self._undefined(node) + out + state_out + call

    def visit_For(self, node: ast.For) -> list[ast.stmt]:
        extra_tests: list[ast.expr] = getattr(node, "kiln_extra_tests", [])
        bound = self._bound([node.target, *node.body])
        state = sorted((bound - self.globals) & (node.kiln_live_out | node.kiln_live_in))  # type: ignore[attr-defined]
        self.generic_visit(node)
        body_name, item, doc = self.ctx.helper_name("loop_body"), self.ctx.helper_name("itr"), _doc("for", node)
        unpack = templates.replace("target = item", node.target, target=node.target, item=item)
        out = self._helper(body_name, unpack + node.body, bound, node, doc, arg=item)
        extra: ast.expr = ast.Constant(value=None)
        if extra_tests:
            test_name = self.ctx.helper_name("loop_test")
            test = extra_tests[0] if len(extra_tests) == 1 else ast.BoolOp(op=ast.And(), values=extra_tests)
            out = self._test(test_name, test, node, doc) + out
            extra = ast.Name(id=test_name, ctx=ast.Load())
        get_state, set_state, state_out = self._state(state, node, doc)
        call = templates.replace(
            "ag__.for_stmt(iter_, extra_test, body, get_state, set_state, names)",
            node,
            iter_=node.iter,
            extra_test=extra,
            body=body_name,
            get_state=get_state,
            set_state=set_state,
            names=templates.names_tuple(state),
        )
        return self._undefined(node) + out + state_out + call

    # ------------------------------------------------------------------ pieces

    def _bound(self, nodes: list[ast.AST]) -> set[str]:
        """Names bound inside and visible outside: not flags local to a body."""
        return bound_names(nodes) - init_names(nodes)

    def _helper(
        self, name: str, body: list[ast.stmt], bound: set[str], origin: ast.AST, doc: ast.Constant,
        arg: str | None = None,
    ) -> list[ast.stmt]:
        """``def name(arg): doc; nonlocal ...; body``, where ``bound`` are the names the user's body binds."""
        return _helpers(templates.replace(
            f"def name({'arg' if arg else ''}):\n    doc\n    global globals_\n    nonlocal nonlocals\n    body",
            origin,
            name=name,
            doc=doc,
            arg=arg or "arg",
            globals_=sorted(bound & self.globals),
            nonlocals=sorted(bound - self.globals),
            body=body,
        ))

    def _test(self, name: str, test: ast.expr, origin: ast.AST, doc: ast.Constant) -> list[ast.stmt]:
        """``def loop_test(): doc; return test`` (walrus targets stay the function's)."""
        walrus = bound_names([test])
        return _helpers(templates.replace(
            "def name():\n    doc\n    nonlocal nonlocals\n    return test",
            origin,
            name=name,
            doc=doc,
            nonlocals=sorted(walrus),
            test=test,
        ))

    def _state(self, state: list[str], origin: ast.AST, doc: ast.Constant) -> tuple[ast.expr, ast.expr, list[ast.stmt]]:
        """The ``get_state``/``set_state`` pair for ``state`` (shared empty ones when there is none)."""
        if not state:
            empty = templates.replace_expr("ag__.get_no_state", origin), templates.replace_expr("ag__.set_no_state", origin)
            return empty[0], empty[1], []
        get_name, set_name = self.ctx.helper_name("get_state"), self.ctx.helper_name("set_state")
        stmts = templates.replace(
            "def get_state():\n    doc\n    return values\n"
            "def set_state(vars_):\n    doc\n    nonlocal names\n    targets = vars_",
            origin,
            doc=doc,
            get_state=get_name,
            set_state=set_name,
            values=templates.names_target(state, ast.Load()),
            names=state,
            targets=templates.names_target(state, ast.Store()),
        )
        return ast.Name(id=get_name, ctx=ast.Load()), ast.Name(id=set_name, ctx=ast.Load()), _helpers(stmts)

    def _undefined(self, node: ast.stmt) -> list[ast.stmt]:
        """``x = ag__.Undefined('x')`` for names the construct binds first (function level only)."""
        return [
            s
            for name in getattr(node, "kiln_undefined", [])
            for s in templates.replace("name = ag__.Undefined(quoted)", node, name=name, quoted=ast.Constant(name))
        ]


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    globals_, nonlocals = declared(func)
    liveness.annotate(func, live_at_exit=nonlocals | globals_)
    definitions.annotate(func, declared=nonlocals | globals_)
    transformer = _ControlFlow(ctx, globals_)
    func.body = [s for stmt in func.body for s in _as_list(transformer.visit(stmt))]


def _doc(kind: str, node: ast.stmt) -> ast.Constant:
    """The docstring of a construct's helpers, which says where it is: without it, the helpers of
    constructs written alike compile to code objects that differ only in their line numbers, and
    CPython's compiler, which keys a function's constants by a hash that leaves line numbers out,
    compiled n of them in O(n^2) (2.4 s of the 100,000-op loops program, 5,555 loops)."""
    return ast.Constant(value=f"the {kind} at line {node.lineno}")


def _helpers(defs: list[ast.stmt]) -> list[ast.stmt]:
    """Marks generated functions, which the expression converters enter (unlike the user's own)."""
    for node in defs:
        node.kiln_helper = True  # type: ignore[attr-defined]
    return defs


def _as_list(result: ast.AST | list[ast.stmt]) -> list[ast.stmt]:
    return result if isinstance(result, list) else [result]  # type: ignore[list-item]
