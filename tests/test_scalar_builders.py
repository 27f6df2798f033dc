"""passes/_scalar: the float binary ops built by ``Operation.create`` (the fast path for the
bodies of elementwise generics) are the ops xDSL's constructors build."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float16Type, f32, f64
from xdsl.ir import Attribute, Block, Operation
from xdsl.printer import Printer

import kiln.universe  # noqa: F401  (xDSL patches, as in a compile)
from kiln.passes import _scalar

FLOAT_OPS = [arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp, arith.MinimumfOp]


def _generic_text(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


@pytest.mark.parametrize("op_type", FLOAT_OPS)
@pytest.mark.parametrize("element", [f64, f32, Float16Type()])
def test_a_float_binary_op_is_the_constructors(op_type: type[Operation], element: Attribute) -> None:
    block = Block(arg_types=[element, element])
    x, y = block.args
    made = _scalar._float_binary(op_type, x, y)  # noqa: SLF001
    expected = op_type(x, y)
    assert type(made) is op_type and made.result_types == (element,)
    assert made.properties == expected.properties and made.attributes == expected.attributes
    assert _generic_text(made) == _generic_text(expected)
    block.add_ops([made, expected])
    made.verify()

