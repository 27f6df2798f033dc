"""Natives for user.rules: a constraint that returns a value, and a rewrite that folds constants."""

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import SSAValue

import kiln
from kiln.dialects import graph


@kiln.register_rule_native
def exact_log2(value: object) -> int | None:
    """k when ``value`` is 2**k for an integer k >= 1, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 1 and value & (value - 1) == 0:
        return value.bit_length() - 1
    return None


@kiln.register_rule_native(rewrite=True)
def add_splats(b: kiln.RuleBuilder, result: SSAValue, dtype: str, lhs: int, rhs: int) -> SSAValue:
    """``lhs + rhs`` wrapped as NumPy wraps it, as a 0-d constant broadcast to ``result``'s shape."""
    total = (np.array(lhs, dtype) + np.array(rhs, dtype)).item()
    element = result.type.get_element_type()
    scalar = b.insert(graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(element, []), [total])))
    return b.insert(graph.BroadcastOp(scalar.result, graph.shape_of(result))).result
