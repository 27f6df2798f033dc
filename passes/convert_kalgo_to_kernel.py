"""``convert-kalgo-to-kernel``: buffer-level ``kalgo`` ops to the ``kernel`` calls of the same names.

Expects: the buffer level (after ``kiln-bufferize``), where each ``kalgo`` op reads
and writes memrefs and has no results.
Produces: ``kernel.scan``/``argreduce``/``sort``/``argsort``/``bincount``/``histogram``/``searchsorted``/``gather``/``scatter``/``iota``/``nonzero``/``compress`` with the same
operands and properties, which the C backend emits as calls into its runtime.
It must run before any pass that lowers ``LinalgStructuredOperation``s to loops
(``convert-linalg-to-loops``): a ``kalgo`` op's body is a placeholder, not its meaning.
A ``kalgo`` op still on tensors is an error: bufferize first.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import kalgo, kernel

KalgoOp = (
    kalgo.ScanOp
    | kalgo.ArgReduceOp
    | kalgo.SortOp
    | kalgo.ArgsortOp
    | kalgo.BincountOp
    | kalgo.HistogramOp
    | kalgo.IotaOp
    | kalgo.NonzeroOp
    | kalgo.CompressOp
    | kalgo.GatherOp
    | kalgo.ScatterOp
    | kalgo.SearchsortedOp
)


def _convert(op: KalgoOp) -> Operation:
    if isinstance(op, kalgo.ScanOp):
        return kernel.ScanOp(op.kind.data, op.inputs[0], op.outputs[0], op.axis.value.data)
    if isinstance(op, kalgo.ArgReduceOp):
        return kernel.ArgReduceOp(op.kind.data, op.inputs[0], op.outputs[0], op.axis.value.data)
    if isinstance(op, kalgo.SortOp):
        return kernel.SortOp(op.inputs[0], op.outputs[0], op.axis.value.data)
    if isinstance(op, kalgo.ArgsortOp):
        return kernel.ArgsortOp(op.inputs[0], op.outputs[0], op.axis.value.data)
    if isinstance(op, kalgo.BincountOp):
        weights = op.inputs[1] if len(op.inputs) > 1 else None
        return kernel.BincountOp(op.inputs[0], weights, op.outputs[0])
    if isinstance(op, kalgo.HistogramOp):
        return kernel.HistogramOp(list(op.inputs), list(op.outputs))
    if isinstance(op, kalgo.IotaOp):
        return kernel.IotaOp(op.outputs[0])
    if isinstance(op, kalgo.NonzeroOp):
        return kernel.NonzeroOp(op.inputs[0], op.outputs[0])
    if isinstance(op, kalgo.CompressOp):
        return kernel.CompressOp(op.inputs[0], op.inputs[1], op.outputs[0])
    if isinstance(op, kalgo.GatherOp):
        return kernel.GatherOp(op.inputs[0], list(op.inputs[1:]), op.outputs[0])
    if isinstance(op, kalgo.ScatterOp):
        return kernel.ScatterOp(op.kind.data, op.inputs[0], list(op.inputs[1:]), op.outputs[0])
    assert isinstance(op, kalgo.SearchsortedOp)
    return kernel.SearchsortedOp(op.side.data, op.inputs[0], op.inputs[1], op.outputs[0])


class KalgoToKernel(RewritePattern):
    """A buffer-level ``kalgo`` op becomes its ``kernel`` call, at its location."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: KalgoOp, rewriter: PatternRewriter) -> None:
        if op.results or any(isinstance(v.type, TensorType) for v in op.operands):
            raise DiagnosticException(f"convert-kalgo-to-kernel: '{op.name}' on tensors; run kiln-bufferize first")
        new = _convert(op)
        new.location = op.location
        rewriter.replace(op, new)


@dataclass(frozen=True)
class ConvertKalgoToKernel(ModulePass):
    """Replace every buffer-level ``kalgo`` op by its ``kernel`` call."""

    name = "convert-kalgo-to-kernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(KalgoToKernel(), apply_recursively=False).rewrite_module(op)
