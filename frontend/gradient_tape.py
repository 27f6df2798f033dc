"""``kiln.GradientTape``: TensorFlow's tape, on kiln's traced graph.

Inside a ``kiln.function`` the tape marks where its ``with`` block starts and ends in the
trace; :meth:`GradientTape.gradient` differentiates the ops recorded between the two (with
:func:`kiln.passes.graph_autodiff.backprop`): the reads of every :class:`kiln.Variable` and
the values passed to :meth:`GradientTape.watch`. A variable's gradient is the sum over its
reads in the block. Outside a function the tape records eagerly (:mod:`kiln.frontend.eager_tape`).
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Block, Operation, SSAValue

from kiln.dialects import graph
from kiln.dialects.ir_utils import describe_location
from kiln.frontend import calls, mutation, pytree, trace_context
from kiln.frontend.tensor import Tensor, as_tensor
from kiln.frontend.variables import Variable, captured_resource
from kiln.frontend.gradients import refusal
from kiln.passes.graph_autodiff import Adjoints, AutodiffError, backprop, differentiable

UNCONNECTED = (None, "none", "zero")


class GradientTape:
    """Records the operations of its ``with`` block for :meth:`gradient` (``persistent=True``:
    more than one call)."""

    #: entering and leaving it act while tracing only: AutoGraph stages a ``with`` of it (in a loop body)
    __kiln_trace_time__ = True

    def __init__(self, persistent: bool = False) -> None:
        self.persistent = persistent
        self._block: Block | None = None
        self._start: Operation | None = None
        self._stop: Operation | None = None
        self._watched: list[tuple[Any, SSAValue]] = []
        self._recording = False
        self._used = False
        self._eager: Any = None

    # ------------------------------------------------------------------ recording

    def __enter__(self) -> GradientTape:
        ctx = trace_context.current()
        if ctx is None:
            from kiln.frontend.eager_tape import EagerRecording

            self._eager = EagerRecording(self)
            self._eager.start()
        else:
            self._block, self._start = ctx.block, ctx.block.last_op
        self._recording = True
        return self

    def __exit__(self, *exc: object) -> None:
        self._recording = False
        if self._eager is not None:
            self._eager.stop()
        elif self._block is not None:
            self._stop = self._block.last_op

    def watch(self, value: Any) -> None:
        """Record operations on ``value`` (a float array or a nested structure of them) too."""
        leaves, _ = pytree.flatten(value)
        for leaf in leaves:
            if self._eager is not None:
                self._eager.watch(leaf)
            elif isinstance(leaf, Variable):
                continue  # variables are watched already
            else:
                tensor = as_tensor(leaf)
                self._watched.append((leaf, tensor.value))

    # ------------------------------------------------------------------ gradients

    def gradient(self, target: Any, sources: Any, unconnected_gradients: str | None = None) -> Any:
        """The gradient of ``sum(target)`` with respect to ``sources`` (a variable, an array or a
        nested structure of them), in the structure of ``sources``: ``None`` for a source the
        target does not depend on, or zeros with ``unconnected_gradients="zero"``."""
        if unconnected_gradients not in UNCONNECTED:
            raise ValueError(f"GradientTape.gradient: unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}")
        if self._used and not self.persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients; "
                "use kiln.GradientTape(persistent=True) for more"
            )
        self._used = True
        leaves, tree = pytree.flatten(sources)
        zero = unconnected_gradients == "zero"
        if self._eager is not None:
            grads = self._eager.gradient(target, leaves, zero)
        else:
            grads = self._traced_gradient(target, leaves, zero)
        return pytree.unflatten(tree, iter(grads))

    def _traced_gradient(self, target: Any, leaves: list[Any], zero: bool) -> list[Any]:
        ctx = trace_context.require()
        if self._block is None:
            raise RuntimeError("GradientTape.gradient called on a tape that recorded nothing (use it in a `with` block)")
        if ctx.block is not self._block:
            raise NotImplementedError(
                f"{trace_context.here()}: GradientTape.gradient inside a staged `if` or loop of the tape's block is "
                "not supported yet: compute the gradient after the loop"
            )
        target_value = as_tensor(target).value
        recorded = self._recorded_ops()
        groups: list[list[SSAValue]] = [self._source_values(leaf, recorded) for leaf in leaves]
        flat = [v for group in groups for v in group]
        try:
            with mutation.reading_by_value():
                grads = backprop(target_value, flat, ctx.emit, callees=calls.callee_of) if flat else []
        except AutodiffError as e:
            raise NotImplementedError(f"GradientTape.gradient: {refusal(e)}") from None
        b = Adjoints(ctx.emit)
        out: list[Any] = []
        it = iter(grads)
        for leaf, group in zip(leaves, groups, strict=True):
            parts = [g for g in (next(it) for _ in group) if g is not None]
            total = parts[0] if parts else None
            for p in parts[1:]:
                total = b.add(total, p)
            if total is None and zero:
                total = b.const(0.0, _leaf_type(leaf))
            out.append(Tensor(total) if total is not None else None)
        return out

    def _recorded_ops(self) -> list[Operation]:
        assert self._block is not None
        ops: list[Operation] = []
        started = self._start is None
        for op in self._block.ops:
            if started:
                ops.append(op)
                if op is self._stop and not self._recording:
                    break
            elif op is self._start:
                started = True
        return ops

    def _source_values(self, leaf: Any, recorded: list[Operation]) -> list[SSAValue]:
        """The values whose gradient is ``leaf``'s: a variable's reads in the block, a watched
        value as it was when watched."""
        if isinstance(leaf, Variable):
            resource = captured_resource(leaf)
            for op in recorded:
                nested = next((inner for region in op.regions for inner in region.walk()
                               if isinstance(inner, graph.ReadOp) and inner.resource is resource), None)
                if nested is not None:
                    raise NotImplementedError(
                        f"{describe_location(nested.location)}: GradientTape.gradient with respect to a variable read "
                        "inside a staged loop or `if` of the tape's block is not supported yet: read it once "
                        "before (`w_now = w.read_value()`), use that inside, and take the gradient with respect "
                        "to w_now (watch it)"
                    )
            return [op.value for op in recorded if isinstance(op, graph.ReadOp) and op.resource is resource]
        for watched, value in self._watched:
            if watched is leaf:
                return [value]
        if isinstance(leaf, Tensor) and differentiable(leaf.value):
            return [leaf.value]  # TensorFlow would need a watch; any value on the path has a gradient here
        raise TypeError(f"GradientTape.gradient: a source must be a kiln.Variable or a watched float array, got {type(leaf).__name__}")


def _leaf_type(leaf: Any) -> Any:
    if isinstance(leaf, Variable):
        return graph.tensor_type(_element(leaf.dtype), leaf.shape)
    return as_tensor(leaf).value.type


def _element(dtype: Any) -> Any:
    from kiln.frontend import dtypes

    return dtypes.to_element(dtype)
