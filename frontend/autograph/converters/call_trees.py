"""Calls go through ``ag__.call`` so that user functions they reach are converted too.

``f(x, *a, k=v)`` becomes ``ag__.call(f)(x, *a, k=v)``: the arguments stay as
written and are evaluated as before; ``ag__.call`` returns the converted
function (or ``f`` itself for library code). Calls that are library calls by
their very name are left as written, for readability: builtins that the
function does not shadow and functions reached through a library module
(``np.exp(x)``, ``math.gcd(a, b)``, ``kiln.range(n)``), except NumPy's
array-creation functions (``np.zeros``...), which make kiln arrays while tracing, ``np.ndenumerate``
(kiln.frontend.numpy_iteration), its scalar types (``np.float64(x)``), casts of a traced ``x``, and ``math``'s functions of numbers
(``math.sqrt(s)``: kiln.frontend.python_math). The builtins
``range``, ``len``, ``zip``, ``enumerate``, ``float``, ``int``, ``bool``, ``max``, ``min``, ``sum``, ``any`` and ``all`` become
``ag__.range_``, ``ag__.len_``, ``ag__.zip_``, ``ag__.enumerate_``, ``ag__.float_``... which accept tensors.
"""

from __future__ import annotations

import ast
import builtins
import types
from collections.abc import Mapping
from typing import Any

from kiln.frontend import clock_calls, dtypes, python_math
from kiln.frontend.autograph import templates
from kiln.frontend.autograph.context import ConversionContext, rule
from kiln.frontend.autograph.libraries import is_higher_order, is_library_module


#: NumPy functions that go through ``ag__.call``: inside a trace they make kiln arrays (or, for
#: ``np.ndenumerate``, iterate over one, and ``np.nditer``, refused on one: kiln.frontend.numpy_iteration)
_NUMPY_CREATION = frozenset(
    {"empty", "zeros", "ones", "full", "array", "asarray", "ascontiguousarray", "asfortranarray", "ndarray"}
    | {"eye", "identity", "arange", "linspace", "logspace", "tri", "indices", "copy", "ndenumerate", "nditer"}
)

#: NumPy's scalar types that go through ``ag__.call``: ``np.float64(x)`` of a traced ``x`` is a cast
SCALAR_TYPES = frozenset(d.type for d in dtypes.SUPPORTED)

#: builtins replaced by operators that accept tensors
_BUILTINS = {"range": "ag__.range_", "len": "ag__.len_", "zip": "ag__.zip_", "enumerate": "ag__.enumerate_"}
_BUILTINS.update({name: f"ag__.{name}_" for name in ("list", "float", "int", "complex", "bool", "max", "min", "sum", "any", "all",
                                                      "isinstance", "type", "sorted", "pow")})


class _Calls(ast.NodeTransformer):
    def __init__(self, ctx: ConversionContext):
        self.ctx = ctx

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        # Nested functions are converted when called; their decorators and defaults run here.
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if self._is_library(node.func):
            return node
        if isinstance(node.func, ast.Name) and node.func.id in _BUILTINS and self.ctx.is_builtin(node.func.id):
            node.func = templates.replace_expr(_BUILTINS[node.func.id], node.func)
            return node
        node.func = templates.replace_expr("ag__.call(func)", node.func, func=node.func)
        return node

    def _is_library(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Call) and _is_runtime(func.func):  # ag__.store_attribute(v)(obj, 'name')
            return True
        if isinstance(func, ast.Name):
            builtin = func.id not in _BUILTINS and self.ctx.is_builtin(func.id)
            return builtin and not is_higher_order(getattr(builtins, func.id))
        path: list[str] = []
        root = func
        while isinstance(root, ast.Attribute):
            path.insert(0, root.attr)
            root = root.value
        if not isinstance(root, ast.Name) or root is func:
            return False
        if root.id == "ag__":
            return True
        return self.ctx.decide("library", root.id, tuple(path))


def _is_runtime(func: ast.expr) -> bool:
    """Whether ``func`` is ``ag__.<name>``: a runtime operator, whose result is not user code either."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "ag__"


@rule("library")
def _library_call(namespace: Mapping[str, Any], root: str, path: tuple[str, ...]) -> bool:
    """Whether ``root.<path>`` (a call's callee) is library code, left as written."""
    value = namespace.get(root)
    if is_higher_order(_attribute(value, path)):  # functools.reduce(f, ...): f is converted first
        return False
    if _staged_random(value, path):  # np.random.normal(...): drawn on every call (kiln.frontend.random_numbers)
        return False
    if clock_calls.is_clock(_attribute(value, path)):  # time.perf_counter(): read while tracing, said so
        return False
    if isinstance(value, types.ModuleType) and value.__name__ == "math":
        if getattr(value, path[-1], None) in python_math.TRACED:  # math.sqrt(x) of a traced x
            return False
    if isinstance(value, types.ModuleType) and value.__name__ == "numpy":
        if path[-1] in _NUMPY_CREATION:  # they make kiln arrays while tracing (kiln.frontend.creation)
            return False
        if getattr(value, path[-1], None) in SCALAR_TYPES:  # np.float64(x) of a traced x is a cast
            return False
    return isinstance(value, types.ModuleType) and is_library_module(value.__name__)


def _attribute(value: object, path: tuple[str, ...]) -> object:
    """What the attribute chain ``path`` names, read from ``value`` through modules only (None if
    it passes through anything else: reading it must not run user code)."""
    obj = value
    for attr in path:
        if not isinstance(obj, types.ModuleType):
            return None
        obj = getattr(obj, attr, None)
    return obj


def _staged_random(value: object, path: tuple[str, ...]) -> bool:
    """Whether ``path`` (an attribute chain from ``value``) names one of NumPy's random
    functions that kiln stages: the call must reach ``ag__.call``, not run while tracing."""
    obj = _attribute(value, path)
    return callable(obj) and _is_staged(obj)


def _is_staged(obj: object) -> bool:
    """kiln's staged np.random functions, and the other methods of NumPy's global generator
    (``ag__.call`` refuses those: they would draw once, while tracing)."""
    from kiln.frontend.random_numbers import STAGED, is_numpy_generator_method

    try:
        return obj in STAGED or getattr(obj, "__kiln_wrapped__", False) or is_numpy_generator_method(obj)
    except TypeError:  # unhashable
        return False


def transform(func: ast.FunctionDef, ctx: ConversionContext) -> None:
    func.body = [_Calls(ctx).visit(stmt) for stmt in func.body]
