"""Calls between kiln.functions while tracing: one traced callee per signature, shared by its callers.

A kiln.function (a ``kiln.grad`` function, a decorated method) called while another is traced is
traced once per *call signature* into a private ``func.func`` of the caller's module, and each
call is a ``func.call`` of it; when the module is lowered, ``graph-inline-calls`` inlines the
calls of small or effectful callees and keeps the others as functions, and ``graph_autodiff``
differentiates through calls. The signature is the structure of the arguments and each leaf's
``signature.leaf_key`` (as for a top-level call, ``in_trace``): each traced array's IR type,
abstract value and whether it is a C-contiguous array of its own, a Python constant or NumPy
scalar by ``constant_key``, a NumPy array by contents, any other object (the ``self`` of a
method) by identity. The callees live in the notes of the outermost trace (:class:`Callees`), so
callers share them however deeply they nest.

A callee whose trace cannot stand alone is traced into its caller instead, as before calls were
shared (:func:`traced_call` says when): one that writes an argument array, changes an argument
list or dict, returns an argument (or a view of one, or what may be one on some path of a staged
``if`` or loop), touches a ``kiln.Variable`` (random numbers too) or a large trace-time array,
uses a traced value of its caller that it was not passed, asks the memory layout of an argument
that is a view, or takes or returns arrays of run-time size or unknown rank. Its
effects then stay where they are in the caller's trace, in program order. Such a callee's Python
code runs once more for the inline trace; Python state a shared callee changes (an attribute it
sets) changes once per signature, as for any trace.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Block, Operation, Region, SSAValue

from kiln.frontend import argument_containers, pytree, trace_context
from kiln.frontend.abstract_value import AbstractValue
from kiln.frontend.mutation import Storage
from kiln.frontend.signature import leaf_key, plain_array, portable, static_type
from kiln.frontend.tensor import LAYOUT_ARGUMENTS, Tensor
from kiln.frontend.variables import NOTES_KEY as VARIABLES, Captures

#: key of the outermost trace's :class:`Callees` in ``TraceContext.notes``
NOTES_KEY = "kiln.calls"

#: result leaves that are trace-time constants, given back as they are
_CONSTANTS = (bool, int, float, complex, str, bytes, type(None), np.generic)


class _Unshareable(BaseException):
    """Raised inside a callee's trace when it cannot stand alone (see the module's docstring).
    A BaseException, so that the staging of the callee's own ``if`` and loops, which catches
    errors to try another way, lets it through to :func:`traced_call`."""


@dataclass(frozen=True)
class Output:
    """A result leaf that is the callee's ``index``-th ``func.return`` operand."""

    index: int


@dataclass(frozen=True)
class Callee:
    """One traced signature of a callee: its function, and how its results come back."""

    func_op: func.FuncOp
    #: the structure of the result, and its leaves: an :class:`Output` or a Python constant
    tree: pytree.TreeDef
    leaves: tuple[Any, ...]
    #: the abstract value of each ``func.return`` operand, given to the caller's result
    avals: tuple[AbstractValue, ...]
    #: the arguments whose memory layout the callee asked (they are C-contiguous arrays: the
    #: signature says so); each call asks its caller's arrays, so the caller's trace notes it too
    layout_params: tuple[int, ...] = ()
    #: the objects the signature names by identity, kept alive while the key is
    kept: tuple[Any, ...] = ()


#: a signature whose callee is traced into its callers (see the module's docstring)
INLINE = "inline"


@dataclass
class Callees:
    """The callees of one outermost trace, by function and signature, in the order traced."""

    #: the outermost function's symbol (no callee takes it)
    name: str
    by_key: dict[tuple[Any, ...], Callee | str] = field(default_factory=dict)
    #: the traced callees by symbol, in the order traced
    funcs: dict[str, func.FuncOp] = field(default_factory=dict)

    def symbol(self, name: str) -> str:
        """A new callee's symbol: ``name`` and a number that no other function of the module has."""
        k = 0
        while f"{name}_call{k}" in self.funcs or f"{name}_call{k}" == self.name:
            k += 1
        return f"{name}_call{k}"


def callees() -> Callees | None:
    """The callees of the trace in progress (None outside a trace)."""
    ctx = trace_context.current()
    found = ctx.notes.get(NOTES_KEY) if ctx is not None else None
    return found if isinstance(found, Callees) else None


def in_callee() -> bool:
    """Whether the trace in progress is a callee's of its own (not its caller's, see :func:`traced_call`)."""
    ctx = trace_context.current()
    return ctx is not None and isinstance(ctx.notes.get(VARIABLES), _NoVariables)


def trace_into_caller() -> None:
    """Give up the callee's own trace: it is traced into its caller instead."""
    raise _Unshareable


def callee_of(call: func.CallOp) -> func.FuncOp | None:
    """The traced callee a ``func.call`` of the trace in progress calls (graph_autodiff's lookup:
    the trace has no module yet)."""
    found = callees()
    return found.funcs.get(call.callee.string_value()) if found is not None else None


def traced_call(function: object, name: str, body: Callable[..., Any], args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> Any:
    """``body(*args, **kwargs)`` traced as a call of ``function``: a ``func.call`` of its callee for
    this signature (traced now if new), or ``body`` traced into the caller when that callee cannot
    stand alone."""
    table = callees()
    signature = _signature(args, kwargs)
    if table is None or signature is None:
        return body(*args, **kwargs)
    key, tensors, kept = signature
    found = table.by_key.get((function, key))
    if found is None:
        found = table.by_key[(function, key)] = _trace(table, name, body, args, kwargs, tensors, kept)
    if isinstance(found, str):
        return body(*args, **kwargs)
    for i in found.layout_params:
        tensors[i].is_contiguous()
    ctx = trace_context.require()
    call = ctx.emit(func.CallOp(found.func_op.sym_name.data, [t.value for t in tensors],
                                list(found.func_op.function_type.outputs.data)))
    outputs = []
    for result, aval in zip(call.results, found.avals, strict=True):
        out = Tensor(result)
        out.aval = aval.in_memory_of(out.aval)
        outputs.append(out)
    return pytree.unflatten(found.tree, iter([outputs[x.index] if isinstance(x, Output) else x for x in found.leaves]))


def _signature(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], list[Tensor], tuple[Any, ...]] | None:
    """The call's signature key, its traced arrays (the callee's arguments, in order) and the
    objects keyed by identity; None when the callee must be traced into the caller."""
    leaves, tree = pytree.flatten((args, kwargs))
    parts: list[Any] = [tree]
    tensors: list[Tensor] = []
    kept: list[Any] = []
    for leaf in leaves:
        key = leaf_key(leaf, in_trace=True)
        if key is None:
            return None
        parts.append(key)
        if isinstance(leaf, Tensor):
            tensors.append(leaf)
        elif key[0] == "object" or key[0] == "variable":
            kept.append(leaf)
    return tuple(parts), tensors, tuple(kept)


class _NoVariables(Captures):
    """A callee's captures: touching a variable makes it unshareable (its effects are the caller's)."""

    def resource(self, var: Any, hint: str = "var") -> SSAValue:
        raise _Unshareable


def _refuse(*_: Any) -> Tensor:
    raise _Unshareable


def _trace(table: Callees, name: str, body: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
           tensors: list[Tensor], kept: tuple[Any, ...]) -> Callee | str:
    """Trace ``body`` on fresh arguments like ``tensors`` into a new private function of the module."""
    block = Block(arg_types=[t.type for t in tensors])
    params = []
    for i, (arg, tensor, hint) in enumerate(zip(block.args, tensors, _names(body, args, kwargs), strict=True)):
        if hint.isidentifier():
            arg.name_hint = hint
        param = Tensor(arg, storage=Storage(arg, argument=i))
        param.aval = portable(tensor.aval).in_memory_of(param.aval)  # type: ignore[union-attr]
        params.append(param)
    ctx = trace_context.TraceContext(block=block, name=name, notes={
        NOTES_KEY: table, VARIABLES: _NoVariables(block), trace_context.LARGE_CONSTANTS: _refuse,
    })
    ctx.operand_checks.append(_inside_callee)
    leaves, tree = pytree.flatten((args, kwargs))
    fresh = iter(params)
    call_args, call_kwargs = pytree.unflatten(tree, iter([next(fresh) if isinstance(x, Tensor) else x for x in leaves]))
    try:
        with trace_context.tracing(ctx):
            traced = _run(ctx, body, call_args, call_kwargs, params)
    except _Unshareable:
        traced = None
    asked = tuple(sorted(ctx.notes.get(LAYOUT_ARGUMENTS, ())))  # type: ignore[call-overload]
    # (the layout of a view or of strided memory is the caller's to know)
    if traced is None or not _closed(block) or not all(plain_array(tensors[i]) for i in asked):
        block.drop_all_references()  # (the caller's values must not keep its ops as uses)
        return INLINE
    tree, refs, outputs = traced
    symbol = table.symbol(name)
    func_op = table.funcs[symbol] = func.FuncOp(symbol, (list(block.arg_types), [t.type for t in outputs]),
                                                Region(block), visibility="private")
    avals = tuple(portable(t.aval) or AbstractValue() for t in outputs)
    return Callee(func_op, tree, refs, avals, asked, kept)


def _names(body: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """A name for each traced array of the call, in order: its parameter's when it is one
    argument (``x``), else ``""`` (one inside a list or dict)."""
    try:
        params = list(inspect.signature(body).parameters)
    except (TypeError, ValueError):
        params = []
    names: list[str] = []
    for key, arg in [*enumerate(args), *kwargs.items()]:
        count = sum(1 for leaf in pytree.flatten(arg)[0] if isinstance(leaf, Tensor))
        named = isinstance(arg, Tensor) and (isinstance(key, str) or key < len(params))
        names.extend([key if isinstance(key, str) else params[key]] if named else [""] * count)
    return names


def _run(ctx: trace_context.TraceContext, body: Callable[..., Any], args: Any, kwargs: Any,
         params: list[Tensor]) -> tuple[pytree.TreeDef, tuple[Any, ...], list[Tensor]] | None:
    """Run ``body`` in the callee's trace ``ctx`` and return its results: their structure, each
    leaf (an output's index or a Python constant) and the outputs; None when the callee changed
    what its caller sees (an argument array, list or dict) or returns what cannot come back."""
    containers = argument_containers.snapshot(args, kwargs)
    result = body(*args, **kwargs)
    if containers.effects(result)[1] is not None:
        return None
    if any(p.storage.value is not arg for p, arg in zip(params, ctx.block.args)):  # an argument written
        return None
    leaves, tree = pytree.flatten(result)
    outputs: list[Tensor] = []
    refs: list[Any] = []
    for leaf in leaves:
        if isinstance(leaf, Tensor) and _returnable(leaf, params):
            refs.append(Output(len(outputs)))
            outputs.append(leaf)
        elif isinstance(leaf, _CONSTANTS):
            refs.append(leaf)
        else:
            return None
    ctx.emit(func.ReturnOp(*[t.value for t in outputs]))
    return tree, tuple(refs), outputs


def _returnable(result: Tensor, params: list[Tensor]) -> bool:
    """Whether a result leaf can come back through a call: a static array of the callee's own,
    not an argument or a view of one, nor (on some path of a staged ``if`` or loop) perhaps one,
    which the caller would see as a new array."""
    if not static_type(result.type) or portable(result.aval) is None:
        return False
    arguments = {id(p.storage) for p in params}
    seen: set[int] = set()
    pending = [result.storage]
    while pending:
        storage = pending.pop()
        if id(storage) in arguments:
            return False
        if id(storage) not in seen and storage.alias is not None:
            seen.add(id(storage))
            pending.extend(storage.alias.outers)
    return True


def _inside_callee(op: Operation, operand: SSAValue) -> None:
    """An operand from the caller's trace (a value the callee reads from a closure or an object):
    the callee cannot stand alone."""
    if not trace_context.visible(operand):
        op.drop_all_references()  # (the op goes nowhere: the caller's value must not keep it as a use)
        raise _Unshareable


def _closed(block: Block) -> bool:
    """Whether every operand of the ops in ``block`` (nested ones too) is defined inside it: no op
    added without :meth:`TraceContext.emit`'s check took a value of the caller."""
    for op in block.walk():
        for operand in op.operands:
            owner = operand.owner
            where = owner if isinstance(owner, Block) else owner.parent_block()
            while where is not None and where is not block:
                parent = where.parent_op()
                where = parent.parent_block() if parent is not None else None
            if where is None:
                return False
    return True
