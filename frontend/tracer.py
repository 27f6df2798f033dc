"""Run a Python function on symbolic tensors and record what it does as ``graph`` IR.

The arguments arrive already split by :mod:`kiln.frontend.signature`: tensor
leaves become block arguments of a fresh ``func.func``, everything else is
passed through as a trace-time constant; each ``kiln.Variable`` the function
touches becomes a trailing ``!graph.resource`` argument. The function's results are flattened
(tuples, lists, dicts) into ``func.return`` operands; their structure is kept so
the compiled function can rebuild it.
"""

from __future__ import annotations

import inspect
import re

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from kiln.dialects import graph
from kiln.frontend import argument_containers, calls, list_numbers, python_raises, pytree, result_kinds, trace_context
from kiln.frontend import list_arrays
from kiln.frontend.mutation import Storage
from kiln.frontend.tensor import IMMUTABLE_REBOUND, LAYOUT_ARGUMENTS, Tensor, as_tensor
from kiln.frontend.variables import NOTES_KEY, Captures, Variable


@dataclass(frozen=True)
class TracedGraph:
    """A traced function: its module, and how to rebuild its Python results."""

    module: ModuleOp
    func_op: func.FuncOp
    output_tree: pytree.TreeDef
    #: the kiln.Variables it reads or writes, one trailing ``!graph.resource`` argument each
    variables: tuple[Variable, ...] = ()
    #: the arguments (tensor leaves, in order) it writes: ``!graph.resource`` arguments of the function
    written_arguments: tuple[int, ...] = ()
    #: an in-place operator made a new value of a NumPy scalar argument (a 0-d array would be written)
    scalar_rebound: bool = False
    #: the arguments whose memory layout (C-contiguous or strided) the trace depends on
    layout_arguments: tuple[int, ...] = ()
    #: per result leaf: what NumPy would return (kiln.backends.targets.OUTPUT_*, or
    #: result_kinds.DYNAMIC: the kind is one of the extra outputs after the leaves', in their order)
    output_kinds: tuple[int, ...] = ()
    #: result leaves that are Python values, not outputs (``(leaf index, value)``): a str, None, or
    #: an argument_containers.ContainerRef for a returned argument list or dict
    statics: tuple[tuple[int, Any], ...] = ()
    #: the argument lists and dicts the function changed (see argument_containers); with
    #: ``container_effects``, the result is ``(result, their new contents)`` for argument_containers.apply
    written_containers: tuple[int, ...] = ()
    container_effects: bool = False
    #: result leaves that are an argument array itself (``return a``, written or not): ``(leaf index,
    #: argument index)``; a call returns the caller's array there, as Python does (still an output too)
    returned_arguments: tuple[tuple[int, int], ...] = ()
    #: result leaves that are an argument array itself on some paths of a staged ``if`` only
    #: (``if c: return a``): ``(leaf index, argument index)``; the function's last outputs, after the
    #: kind flags, are one 0-d bool per pair, true on the calls where it is the caller's array there
    maybe_returned_arguments: tuple[tuple[int, int], ...] = ()


#: the errors a trace refuses a program with (located at the user's line, see _locate)
REFUSALS = (NotImplementedError, TypeError, ValueError, IndexError, ArithmeticError)


def trace_graph(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    tensor_types: Sequence[TensorType],
    name: str,
    arg_names: Sequence[str] = (),
    scalars: Sequence[int] = (),
    numbers: Sequence[int] = (),
    number_lists: Sequence[int] = (),
    aliases: Sequence[tuple[int, int]] = (),
    layouts: Sequence[tuple[int, tuple[int, ...]]] = (),
) -> TracedGraph:
    """Trace ``fn(*args, **kwargs)`` where the leaves marked :data:`pytree.TENSOR_SLOT`
    in ``args``/``kwargs`` become function arguments of the given tensor types, in order."""
    block = Block(arg_types=list(tensor_types))
    for arg, arg_name in zip(block.args, arg_names):
        if arg_name.isidentifier():
            arg.name_hint = arg_name
    arg_tensors = [Tensor(a, storage=Storage(a, argument=i)) for i, a in enumerate(block.args)]
    for i in scalars:  # a NumPy scalar argument is immutable: in-place operators rebind, as in NumPy
        arg_tensors[i].immutable = True
    for i in numbers:  # a Python number in a list argument: NumPy promotes it as a Python number
        arg_tensors[i].weak = True
    for i, strides in layouts:  # a non-contiguous argument: views of it are views of strided memory
        arg_tensors[i].storage.layout = strides
    for j, i in aliases:  # the same array passed twice: one storage, so a write through one shows in both
        arg_tensors[j] = arg_tensors[i]

    ctx = trace_context.TraceContext(block=block, name=name)
    captures = ctx.notes[NOTES_KEY] = Captures(block)
    ctx.notes[trace_context.LARGE_CONSTANTS] = captures.constant
    callees = ctx.notes[calls.NOTES_KEY] = calls.Callees(name)
    with trace_context.tracing(ctx):
        slots: list[Any] = list(arg_tensors)
        for i in number_lists:  # a list of Python numbers: the function sees the list (a long one held as one array)
            long_list = arg_tensors[i].ndim == 1 and arg_tensors[i].shape[0] >= list_arrays.HELD_FROM
            slots[i] = list_arrays.held_argument(arg_tensors[i]) if long_list else list_numbers.unpack(arg_tensors[i])
        symbolic = iter(slots)
        call_args = argument_containers.traced_lists(pytree.fill_slots(args, symbolic))
        call_kwargs = argument_containers.traced_lists(pytree.fill_slots(kwargs, symbolic))
        containers = argument_containers.snapshot(call_args, call_kwargs)
        try:
            result = fn(*call_args, **call_kwargs)
        except Exception as error:
            python_raises.note_pythons_own(error)
            if not python_raises.raised_when_run(error):
                if isinstance(error, REFUSALS) and not python_raises.raised_by_user(error):
                    _locate(error)
                raise
            result = None  # (every call raises where the trace ended)
        code = getattr(inspect.unwrap(fn), "__code__", None)
        if code is not None:
            ctx.notes[trace_context.RETURNING] = f"{code.co_filename}:{code.co_firstlineno}"
            ctx.returned_from = trace_context.definition(code)
        result, written_containers = containers.effects(result)
        # no result (a function run for its effects on variables): no outputs, and the call returns None
        leaves, tree = pytree.flatten(result) if result is not None else ([], pytree.LEAF)
        statics = tuple((j, leaf) for j, leaf in enumerate(leaves) if _static(leaf))
        returned = _returned_arguments(leaves, {i for pair in aliases for i in pair})
        maybe_returned = _maybe_returned_arguments(leaves, {i for pair in aliases for i in pair}, block)
        leaves = [leaf for leaf in leaves if not _static(leaf)]
        outputs = [_output(leaf, fn) for leaf in leaves]
        kinds = tuple(result_kinds.static_kind(leaf) for leaf in leaves)
        outputs += [leaf.kind_flag.value for leaf, kind in zip(leaves, kinds) if kind == result_kinds.DYNAMIC]
        outputs += [flag for _, _, flag in maybe_returned]
        written, reads = _write_back(ctx, block, arg_tensors)
        ctx.emit(func.ReturnOp(*[reads.get(v, v) for v in outputs]))

    func_op = func.FuncOp(
        name,
        (list(block.arg_types), [v.type for v in outputs]),
        Region(block),
    )
    func_op.sym_visibility = StringAttr("public")
    module = ModuleOp([func_op, *callees.funcs.values()])
    return TracedGraph(module=module, func_op=func_op, output_tree=tree, variables=tuple(captures.variables),
                       written_arguments=written, scalar_rebound=bool(ctx.notes.get(IMMUTABLE_REBOUND)),
                       layout_arguments=tuple(sorted(ctx.notes.get(LAYOUT_ARGUMENTS, ()))),
                       output_kinds=kinds, statics=statics, written_containers=written_containers or (),
                       container_effects=written_containers is not None, returned_arguments=returned,
                       maybe_returned_arguments=tuple((j, i) for j, i, _ in maybe_returned))


def _returned_arguments(leaves: Sequence[Any], aliased: set[int]) -> tuple[tuple[int, int], ...]:
    """``(leaf index, argument index)`` of each result leaf that is an argument array itself: its
    storage with no view chain (a NumPy scalar argument, a value a staged construct merged and an
    argument passed twice are left out: Python's result there is not one known caller's array)."""
    found = []
    for j, leaf in enumerate(leaves):
        if isinstance(leaf, Tensor) and not (leaf.immutable or leaf.weak or leaf.aval.steps):
            storage = leaf.aval.storage
            if storage is not None and storage.argument is not None and storage.argument not in aliased:
                found.append((j, storage.argument))
    return tuple(found)


def _maybe_returned_arguments(leaves: Sequence[Any], aliased: set[int], block: Block) -> list[tuple[int, int, SSAValue]]:
    """``(leaf index, argument index, flag)`` for each argument array that a result leaf, which
    staged constructs merged, is on some paths, with the flag (made in the function's ``block``)
    true where it is that argument (mutation.MaybeAlias, followed through merges of merges)."""
    found = []
    for j, leaf in enumerate(leaves):
        if not isinstance(leaf, Tensor) or leaf.immutable or leaf.weak or leaf.aval.steps:
            continue
        storage = leaf.aval.storage
        if storage is not None and storage.argument is None:
            found += [(j, i, flag.value) for i, flag in _arguments_where(storage, block) if i not in aliased]
    return found


def _arguments_where(storage: Storage, block: Block) -> list[tuple[int, Tensor]]:
    """The arguments a merged array ``storage`` is on some paths, each with the 0-d bool saying
    where (an argument kiln has no flag for at the function's level is left out). Followed through
    merges of merges without recursion: a function of many staged ``if``s rebinding an array on one
    path makes a chain of them as long as it."""
    found: list[tuple[int, Tensor]] = []
    # depth first, in the outers' order: per merged array on the way, its (outer, flag) pairs left
    # and its flag from the one before (the flags on the way are and-ed, innermost first)
    stack: list[tuple[Any, SSAValue | None]] = [(_outers_flags(storage), None)]
    while stack:
        pairs, _ = stack[-1]
        pair = next(pairs, None)
        if pair is None:
            stack.pop()
            continue
        outer, flag = pair
        owner = flag.owner if flag is not None else None
        if not (owner is block or isinstance(owner, Operation) and owner.parent_block() is block):
            continue
        if outer.argument is not None and outer.alias is None:
            where = Tensor(flag)
            for _, outer_flag in reversed(stack[1:]):
                where = Tensor(outer_flag) & where
            found.append((outer.argument, where))
        elif outer.argument is None:
            stack.append((_outers_flags(outer), flag))
    return found


def _outers_flags(storage: Storage) -> Any:
    """An iterator over the (outer, flag) pairs of a merged array's MaybeAlias (none for another array)."""
    alias = storage.alias
    return iter(zip(alias.outers, alias.flags) if alias is not None else ())


#: result leaves returned as the Python values they are (a ContainerRef stands for an argument list;
#: a set's items are values known while tracing, since traced values are unhashable, and each call
#: gets a copy of it, a set of its own as from Python; a dtype is known while tracing too)
_STATIC = (str, type(None), argument_containers.ContainerRef, set, frozenset, np.dtype)


def _static(leaf: Any) -> bool:
    """A result leaf returned as the Python value it is: :data:`_STATIC`, or a Python int made while
    tracing that has no int64 form (``fib(100)`` of a Python ``n``: Python's ints are unbounded, and
    a value made while tracing is the same for every call of the trace)."""
    if isinstance(leaf, _STATIC):
        return True
    return type(leaf) is int and not -(2**63) <= leaf < 2**63


def _output(leaf: Any, fn: Callable[..., Any]) -> SSAValue:
    """A result leaf as an output of the traced function; a value kiln cannot return is refused
    naming the user's return statements."""
    try:
        return as_tensor(leaf).value
    except TypeError as error:
        name = type(leaf).__name__
        raise TypeError(f"{_return_lines(fn)}: kiln.function cannot return {'an' if name[:1] in 'aeiou' else 'a'} {name} "
                        f"({error}); return arrays, numbers, strings, None, or tuples, lists and dicts of them") from None


def _return_lines(fn: Callable[..., Any]) -> str:
    """``file:line`` of the user's ``return`` statements in ``fn`` (its ``def`` line if none is found)."""
    original = inspect.unwrap(getattr(fn, "__kiln_original__", fn))
    original = getattr(original, "__wrapped__", original)
    try:
        lines, first = inspect.getsourcelines(original)
        filename = inspect.getsourcefile(original)
    except (OSError, TypeError):
        return trace_context.here()
    import ast
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return f"{filename}:{first}"
    returns = [node.lineno + first - 1 for node in ast.walk(tree) if isinstance(node, ast.Return)]
    return ", ".join(f"{filename}:{line}" for line in sorted(returns)) if returns else f"{filename}:{first}"


def _locate(error: Exception) -> None:
    """Prefix ``error``'s message with the user's ``file:line:col`` where it was raised (the
    innermost user frame of its traceback) unless the message names a place already."""
    if len(error.args) != 1 or not isinstance(error.args[0], str) or _LOCATED.match(error.args[0]):
        return
    tb, where = error.__traceback__, None
    while tb is not None:
        if trace_context.is_user_file(tb.tb_frame.f_code.co_filename):
            where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    message = error.args[0]
    if isinstance(error, TypeError) and _UNHASHABLE.match(message):
        message += (" (a value known only when the compiled code runs, such as an array's element or an item of a "
                    "list argument, cannot be a dict key or a set item: kiln's dicts and sets are Python's, built "
                    "while tracing; index an array by it instead)")
    if where is not None and where not in message:
        message = f"{where}: {message}"
    error.args = (message,)


#: Python's message for a traced value used as a dict key or set item
_UNHASHABLE = re.compile(r"^unhashable type: '\w*Tensor'$")
#: a message that starts with ``file:line:`` or ``file:line:col:``
_LOCATED = re.compile(r"^[^\s:]+:\d+(:\d+)?: ")


def _write_back(
    ctx: trace_context.TraceContext, block: Block, arg_tensors: list[Tensor]
) -> tuple[tuple[int, ...], dict[SSAValue, SSAValue]]:
    """Arguments the function wrote: each becomes a ``!graph.resource`` read at entry and assigned
    its final value at the end, so the caller's array holds what NumPy would leave in it. Also
    returns, for each such argument, its ``graph.read`` value by the block argument it replaces."""
    written = []
    reads: dict[SSAValue, SSAValue] = {}
    seen: set[object] = set()
    for i, t in enumerate(arg_tensors):
        storage = t.storage
        if storage.value is block.args[i] or storage in seen:  # unwritten, or an alias of an earlier one
            continue
        seen.add(storage)
        old = block.args[i]
        assert isinstance(old.type, TensorType)
        resource = block.insert_arg(graph.ResourceType(old.type), i)
        resource.name_hint = old.name_hint
        read = graph.ReadOp(resource)
        first = block.first_op
        assert first is not None  # the insert_slice that wrote the argument, at least
        read.location = first.location
        block.insert_op_before(read, first)
        old.replace_all_uses_with(read.value)
        reads[old] = read.value
        block.erase_arg(old)
        ctx.emit(graph.AssignOp(resource, reads.get(storage.value, storage.value)))
        written.append(i)
    return tuple(written), reads
