"""``linalg-cse``: ``cse`` that also merges identical linalg ops on tensors.

xDSL 0.74 declares no memory effects for ``linalg`` ops, so its ``cse`` keeps every copy of
one: each ``x[mask]`` lowered by ``convert-graph-to-linalg`` counts its mask with its own
``linalg.generic`` reduction, and NPBench's mandelbrot2 selects four arrays by one mask per
step (four counting passes where one does). On tensors a linalg op is a pure function of its
operands (its ``outs`` are values too), as in MLIR; with a body free of side effects, two with
the same operands, attributes and body compute the same tensors.

Expects: tensors (before ``kiln-bufferize``); on memrefs linalg ops write and are left alone.
Guarantees: everything ``cse`` does, and no linalg op on tensors with a side-effect-free body
that an identical earlier one in scope (its block or an enclosing one) already computes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, is_side_effect_free
from xdsl.transforms.common_subexpression_elimination import CSEDriver


def _pure_on_tensors(op: Operation) -> bool:
    """A linalg op reading and yielding only tensors and scalars, whose body has no side effects."""
    if not isinstance(op, GenericOp | FillOp):
        return False
    if not all(isinstance(r.type, TensorType) for r in op.results) or not op.results:
        return False
    body = (inner for region in op.regions for inner in region.walk())
    return all(inner.has_trait(IsTerminator) or is_side_effect_free(inner) for inner in body)


@dataclass
class _LinalgCSEDriver(CSEDriver):
    """xDSL's CSE driver, with linalg ops on tensors counted as free of side effects."""

    def _simplify_operation(self, op: Operation) -> None:
        if not _pure_on_tensors(op):
            super()._simplify_operation(op)
            return
        if existing := self._known_ops.get(op):
            self._replace_and_delete(op, existing)
        else:
            self._known_ops[op] = op


@dataclass(frozen=True)
class LinalgCSE(ModulePass):
    """Common subexpressions, linalg ops on tensors among them."""

    name = "linalg-cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _LinalgCSEDriver().simplify(op)
