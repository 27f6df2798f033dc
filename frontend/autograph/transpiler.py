"""``convert``: parse a function's source, run the converters, and rebuild the function from the result.

The rebuilt function shares the original's globals (so later global changes
are seen) and its closure cells (so the enclosing function's variables stay
shared); its code object carries the user's file name and line numbers, so
tracebacks and IR locations point at the user's source. Conversions are
cached per function object; a function that cannot or must not be converted
is returned as it is, with the reason kept for :func:`conversion_info`.
"""

from __future__ import annotations

import __future__
import ast
import builtins
import copy
import functools
import inspect
import linecache
import textwrap
import types
import weakref
from typing import Any, TypeVar

from kiln.frontend import clock_calls, creation, list_index, list_search, python_math, random_numbers, trace_context
from kiln.frontend.autograph import code_cache, escapes, operators, staged_recursion
from kiln.frontend.autograph.context import ConversionContext, ConversionInfo, record_converted
from kiln.frontend.autograph.libraries import is_higher_order, library_reason

F = TypeVar("F")

_converted: weakref.WeakKeyDictionary[types.FunctionType, types.FunctionType] = weakref.WeakKeyDictionary()
_not_converted: weakref.WeakKeyDictionary[types.FunctionType, ConversionInfo] = weakref.WeakKeyDictionary()

_INFO = "__autograph_info__"
#: the converted function's name in its factory (renamed to the user's once made)
_CONVERTED = "ag__converted"
_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_NOT_CONVERTED_KINDS = {
    inspect.CO_GENERATOR: "`yield` cannot be staged: generator functions run as Python",
    inspect.CO_COROUTINE: "`async` cannot be staged: coroutines run as Python",
    inspect.CO_ASYNC_GENERATOR: "`async` cannot be staged: async generators run as Python",
}


def convert(func: F) -> F:
    """The AutoGraph-converted ``func`` (bound methods stay bound); ``func`` itself when it is not converted."""
    if isinstance(func, types.MethodType):
        converted = convert(func.__func__)
        return func if converted is func.__func__ else types.MethodType(converted, func.__self__)  # type: ignore[return-value]
    if not isinstance(func, types.FunctionType) or hasattr(func, _INFO):
        return func
    if func in _converted:
        return _converted[func]  # type: ignore[return-value]
    if func in _not_converted:
        return func
    reason = _why_not(func)
    if reason is None:
        try:
            _converted[func] = _convert(func)
            return _converted[func]  # type: ignore[return-value]
        except (OSError, TypeError, SyntaxError) as error:
            reason = f"its source is not available ({error})"
    _not_converted[func] = ConversionInfo(converted=False, reason=f"{func.__qualname__} is not converted: {reason}")
    return func


def conversion_info(func: Any) -> ConversionInfo:
    """How ``func`` was converted, or why it was not (converting it first if needed)."""
    if isinstance(func, types.MethodType):
        func = func.__func__
    if not isinstance(func, types.FunctionType):
        return ConversionInfo(converted=False, reason=f"{type(func).__name__} objects are not Python functions")
    return getattr(convert(func), _INFO, None) or _not_converted[func]


def _why_not(func: types.FunctionType) -> str | None:
    for flag, reason in _NOT_CONVERTED_KINDS.items():
        if func.__code__.co_flags & flag:
            return f"{reason} ({func.__code__.co_filename}:{func.__code__.co_firstlineno})"
    return library_reason(func)


def _parse(func: types.FunctionType) -> ast.FunctionDef:
    """The function's ``def``, located at its lines and columns in its file (a lambda's as a
    ``def`` that returns its body)."""
    if func.__name__ == "<lambda>":
        return _parse_lambda(func)
    lines, first_line = inspect.getsourcelines(func)
    source = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip()) if source != "".join(lines) else 0
    node = ast.parse(source).body[0]
    if not isinstance(node, ast.FunctionDef) or node.name != func.__name__:
        raise TypeError(f"the source at line {first_line} is not the definition of {func.__name__}")
    ast.increment_lineno(node, first_line - 1)
    for child in ast.walk(node):
        for attr in ("col_offset", "end_col_offset"):
            if getattr(child, attr, None) is not None:
                setattr(child, attr, getattr(child, attr) + indent)
    return node


def _parse_lambda(func: types.FunctionType) -> ast.FunctionDef:
    """A lambda's expression found in its whole file (a lambda's own lines need not parse alone:
    ``[lambda x: x + 1,`` is one), told from others on its line by its code's columns."""
    code = func.__code__
    filename = inspect.getsourcefile(func)
    if filename is None:
        raise OSError("no source file")
    tree = _parse_file("".join(linecache.getlines(filename, func.__globals__)))
    spans = [(p[0], p[2], p[1], p[3]) for p in code.co_positions() if p[0] is not None and p[2] is not None and p[3]]
    if not spans:
        raise TypeError(f"the lambda at line {code.co_firstlineno} has no source positions")
    first, last = min((a, b) for a, b, _, _ in spans), max((c, d) for _, _, c, d in spans)
    found = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno
        and (node.body.lineno, node.body.col_offset) <= first
        and last <= (node.body.end_lineno or 0, node.body.end_col_offset or 0)
    ]
    if len(found) != 1:
        raise TypeError(f"the lambda at line {code.co_firstlineno} is not found alone in its source")
    lam = copy.deepcopy(found[0])  # the file's tree is cached: conversion must not rewrite it (a second closure of this lambda)
    if not _same_code(lam, code, filename):
        raise TypeError(f"the source of the lambda at line {code.co_firstlineno} is not the code it runs (the file changed?)")
    node = ast.FunctionDef(name="ag__lambda", args=lam.args, body=[ast.copy_location(ast.Return(lam.body), lam.body)],
                           decorator_list=[], returns=None, type_comment=None)
    node.type_params = []  # (Python 3.12's field; unused before)
    return ast.copy_location(node, lam)


def _same_code(lam: ast.Lambda, code: types.CodeType, filename: str) -> bool:
    """Whether ``lam`` compiles to ``code``'s names, variables and constants (a file edited since
    it was imported could put another lambda at the same place). Not its instructions: those
    depend on the module around it (a call on an imported module's attribute compiles apart)."""
    compiled = compile(ast.Expression(body=lam), filename, "eval", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    made = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))

    def key(c: types.CodeType) -> tuple[object, ...]:
        consts = tuple(k for k in c.co_consts if not isinstance(k, types.CodeType))
        # a name the lambda closes over is a free variable there and a global name here
        names = tuple(sorted({*c.co_names, *c.co_freevars}))
        return (names, c.co_varnames, c.co_argcount, c.co_kwonlyargcount, consts)

    return key(made) == key(code)


@functools.lru_cache(maxsize=8)
def _parse_file(source: str) -> ast.Module:
    return ast.parse(source)


def _hashable(func: Any) -> bool:
    try:
        hash(func)
    except TypeError:
        return False
    return True


def call(func: Any) -> Any:
    """``ag__.call``, AutoGraph's ``converted_call``: the callee of every call in converted code.
    The converted version of ``func`` (library code and non-functions come back as they are);
    while tracing, NumPy's array-creation functions make kiln arrays (kiln.frontend.creation)."""
    traced = (creation.TRACED.get(func) or python_math.TRACED.get(func)) if _hashable(func) else None
    if traced is not None and trace_context.current() is not None:
        return traced
    if trace_context.current() is not None:
        random_numbers.refuse_numpy_generator(func)  # a NumPy generator's method would draw once, while tracing
        clock_calls.warn_if_clock(func)  # `t0 = time()` reads the clock once, while tracing
        copied = creation.ndarray_copy(func)  # W.copy() of a plain array: a kiln array the function may write
        if copied is not None:
            return copied
        searched = _list_method(func)
        if searched is not None:
            return searched
    if isinstance(func, (types.FunctionType, types.MethodType)):
        converted = convert(func)
        if trace_context.current() is not None:
            staged_recursion.refuse(converted)
        return converted
    if isinstance(func, functools.partial):
        return functools.partial(call(func.func), *func.args, **func.keywords)
    if is_higher_order(func):
        return _calling_back_converted(func)
    method = getattr(type(func), "__call__", None)
    if isinstance(method, types.FunctionType) and not isinstance(func, type):
        converted = convert(method)
        return func if converted is method else types.MethodType(converted, func)
    return escapes.checked_method(func)  # SEEN.append(v) of a traced v: refused, SEEN is from outside the trace


def _list_method(func: Any) -> Any:
    """While tracing, kiln's ``sort``, ``index``, ``count`` or ``remove`` of a Python list (a bound
    builtin method), which compare traced numbers where Python would need their values; None for
    other callables."""
    owner = getattr(func, "__self__", None)
    name = getattr(func, "__name__", None)
    if not isinstance(owner, list) or not isinstance(func, types.BuiltinMethodType) or name not in _LIST_METHODS:
        return None
    return functools.partial(_LIST_METHODS[name], owner)


def _searched(name: str) -> Any:
    def method(lst: list[Any], value: Any, *args: Any) -> Any:
        if not list_search.applies(lst, value):
            return getattr(lst, name)(value, *args)
        return getattr(list_search, name)(lst, value, *args)

    return method


def _sort_list(lst: list[Any], *, key: Any = None, reverse: bool = False) -> None:
    """``lst.sort()`` as ``sorted(lst)`` gives it (traced numbers ordered when the call runs, by
    traced keys too: kiln.frontend.autograph.operators.sorted_), the list's items replaced in place."""
    lst[:] = operators.sorted_(lst, key=key, reverse=reverse)


#: the list methods kiln stages while tracing (see :func:`_list_method`)
_LIST_METHODS: dict[str, Any] = {"sort": _sort_list, "index": _searched("index"), "count": _searched("count"),
                                 "remove": _searched("remove")}


def _calling_back_converted(func: Any) -> Any:
    """``func`` with every function among its arguments (``key=`` and ``initial`` included) converted."""

    @functools.wraps(func)
    def calling(*args: Any, **kwargs: Any) -> Any:
        return func(*[_callback(a) for a in args], **{k: _callback(v) for k, v in kwargs.items()})

    return calling


def _callback(value: Any) -> Any:
    if isinstance(value, (types.FunctionType, types.MethodType, functools.partial)):
        return call(value)
    return _BUILTIN_OPERATORS.get(value, value) if _hashable(value) else value


#: builtins passed as callbacks (``map(float, x)``, ``sorted(xs, key=abs)``...) run as the operators
#: a converted call of them becomes, which take traced values (converters.call_trees)
_BUILTIN_OPERATORS: dict[Any, Any] = {
    getattr(builtins, name): getattr(operators, f"{name}_")
    for name in ("float", "int", "complex", "bool", "len", "list", "max", "min", "sum", "any", "all", "sorted", "pow")
}


operators.py_builtins.converting_callbacks_with(call)  # (key functions of sorted/max/min run converted)

#: what generated code sees as ``ag__``: the runtime operators, and :func:`call`
RUNTIME = types.SimpleNamespace(**{name: getattr(operators, name) for name in operators.__all__}, call=call)


def _convert(func: types.FunctionType) -> types.FunctionType:
    """``func`` converted: its conversion kept on disk by an earlier process when there is one
    (kiln.frontend.autograph.code_cache), else converted now and kept."""
    closure = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    namespace = {**func.__globals__, **{name: _cell_value(cell) for name, cell in closure.items()}}
    conversion = code_cache.load(func, namespace)
    if conversion is None:
        conversion = _transform(func, namespace, closure)
        code_cache.store(func, conversion)
    return _converted_function(func, conversion, closure)


def _transform(func: types.FunctionType, namespace: dict[str, Any], closure: dict[str, types.CellType]
               ) -> code_cache.Conversion:
    from kiln.frontend.autograph import converters

    node = _parse(func)
    code = func.__code__
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
    ctx = ConversionContext(filename=code.co_filename, namespace=namespace, used_names=used | {"ag__"})
    for converter in converters.PIPELINE:
        converter.transform(node, ctx)
    source = ast.unparse(node)

    # def ag__factory(): ag__ = None; <closure names> = None; def ag__converted(...): ...
    # The factory only makes the cells the new code expects; the def is renamed so that
    # it does not shadow the function's own name (recursion reads the global).
    node.name = _CONVERTED
    factory = ast.FunctionDef(
        name="ag__factory",
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[
            *(ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=ast.Constant(None)) for n in ["ag__", *closure]),
            node,
        ],
        decorator_list=[],
    )
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(ast.copy_location(factory, node))
    ast.fix_missing_locations(module)
    module_code = compile(module, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    return code_cache.Conversion(module_code, source, tuple(ctx.unsupported), tuple(ctx.records), ctx.decisions)


def _converted_function(func: types.FunctionType, conversion: code_cache.Conversion,
                        closure: dict[str, types.CellType]) -> types.FunctionType:
    """The function ``conversion`` made of ``func``: its globals and closure cells, its name and attributes."""
    code = func.__code__
    factory_code = _const_code(conversion.module_code, "ag__factory")
    new_code = _const_code(factory_code, _CONVERTED).replace(co_name=func.__name__, co_qualname=func.__qualname__)
    cells = {**closure, "ag__": types.CellType(RUNTIME)}
    new = types.FunctionType(
        new_code, func.__globals__, func.__name__, func.__defaults__, tuple(cells[n] for n in new_code.co_freevars)
    )
    new.__kwdefaults__ = func.__kwdefaults__
    new.__dict__.update(func.__dict__)
    for attr in ("__qualname__", "__module__", "__doc__", "__annotations__"):
        setattr(new, attr, getattr(func, attr))
    record_converted(new_code, code.co_filename, conversion.unsupported, conversion.records)
    setattr(new, _INFO, ConversionInfo(converted=True, source=conversion.source, unsupported=conversion.unsupported))
    return new


def _const_code(code: types.CodeType, name: str) -> types.CodeType:
    return next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _cell_value(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell: the enclosing function has not bound it yet
        return None
