"""Run a Python function on symbolic tensors and record what it does as ``graph`` IR.

The arguments arrive already split by :mod:`kiln.frontend.signature`: tensor
leaves become block arguments of a fresh ``func.func``, everything else is
passed through as a trace-time constant; each ``kiln.Variable`` the function
touches becomes a trailing ``!graph.resource`` argument. The function's results are flattened
(tuples, lists, dicts) into ``func.return`` operands; their structure is kept so
the compiled function can rebuild it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Region

from kiln.frontend import pytree, trace_context
from kiln.frontend.tensor import Tensor, as_tensor
from kiln.frontend.variables import NOTES_KEY, Captures, Variable


@dataclass(frozen=True)
class TracedGraph:
    """A traced function: its module, and how to rebuild its Python results."""

    module: ModuleOp
    func_op: func.FuncOp
    output_tree: pytree.TreeDef
    #: the kiln.Variables it reads or writes, one trailing ``!graph.resource`` argument each
    variables: tuple[Variable, ...] = ()


def trace_graph(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    tensor_types: Sequence[TensorType],
    name: str,
    arg_names: Sequence[str] = (),
) -> TracedGraph:
    """Trace ``fn(*args, **kwargs)`` where the leaves marked :data:`pytree.TENSOR_SLOT`
    in ``args``/``kwargs`` become function arguments of the given tensor types, in order."""
    block = Block(arg_types=list(tensor_types))
    for arg, arg_name in zip(block.args, arg_names):
        if arg_name.isidentifier():
            arg.name_hint = arg_name
    symbolic = iter([Tensor(a) for a in block.args])
    call_args = pytree.fill_slots(args, symbolic)
    call_kwargs = pytree.fill_slots(kwargs, symbolic)

    ctx = trace_context.TraceContext(block=block, name=name)
    captures = ctx.notes[NOTES_KEY] = Captures(block)
    with trace_context.tracing(ctx):
        result = fn(*call_args, **call_kwargs)
        # no result (a function run for its effects on variables): no outputs, and the call returns None
        leaves, tree = pytree.flatten(result) if result is not None else ([], pytree.LEAF)
        outputs = [as_tensor(leaf) for leaf in leaves]
        ctx.emit(func.ReturnOp(*[t.value for t in outputs]))

    func_op = func.FuncOp(
        name,
        (list(block.arg_types), [t.value.type for t in outputs]),
        Region(block),
    )
    func_op.sym_visibility = StringAttr("public")
    module = ModuleOp([func_op])
    return TracedGraph(module=module, func_op=func_op, output_tree=tree, variables=tuple(captures.variables))
