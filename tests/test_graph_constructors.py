"""The graph dialect's Python constructors: the table in docs/ir-reference.md is current, and
each constructor builds an op that verifies, with the result type it infers."""

from __future__ import annotations

import inspect
from io import StringIO

import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, f32, i1, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.printer import Printer

from kiln.dialects import graph
from kiln.tools import graph_constructors

X = TensorType(f32, [2, 3])


def test_doc_table_is_current() -> None:
    text = graph_constructors.DOC.read_text()
    assert graph_constructors.in_doc(text) == graph_constructors.markdown(), (
        "docs/ir-reference.md's constructor table is out of date: run `python -m kiln.tools.graph_constructors --write`"
    )


@pytest.mark.parametrize("cls", graph_constructors.op_classes(), ids=lambda c: c.name)
def test_every_op_has_a_documented_annotated_constructor(cls: type) -> None:
    assert graph_constructors.summary(cls), f"{cls.name} has no docstring of its own"
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        assert p.annotation is not inspect.Parameter.empty, f"{cls.name}: parameter {p.name} has no annotation"


def _values(*types: TensorType) -> list[SSAValue]:
    return list(Block(arg_types=types).args)


def _binary_and_unary() -> list[type]:
    return [c for c in graph_constructors.op_classes()
            if issubclass(c, (graph.ElementwiseBinaryOp, graph.ElementwiseUnaryOp))
            and getattr(c, "ACCEPTS", "numeric") in ("numeric", "float", "inexact")]


@pytest.mark.parametrize("cls", _binary_and_unary(), ids=lambda c: c.name)
def test_elementwise_constructors_infer_the_type(cls: type) -> None:
    (x, y) = _values(X, X)
    op = cls(x, y) if issubclass(cls, graph.ElementwiseBinaryOp) else cls(x)
    op.verify()
    assert op.result.type == X


def test_shape_constructors_infer_the_type() -> None:
    (x,) = _values(X)
    cases = [
        (graph.BroadcastOp(x, [4, 2, 3]), TensorType(f32, [4, 2, 3])),
        (graph.ReshapeOp(x, [3, 2]), TensorType(f32, [3, 2])),
        (graph.TransposeOp(x, [1, 0]), TensorType(f32, [3, 2])),
        (graph.ReduceOp("sum", x, [0]), TensorType(f32, [3])),
        (graph.CmpOp("lt", x, x), TensorType(i1, [2, 3])),
        (graph.CastOp(x, i64), TensorType(i64, [2, 3])),
        (graph.ConstantOp(DenseIntOrFPElementsAttr.from_list(X, [1.0] * 6)), X),
    ]
    for op, want in cases:
        op.verify()
        assert op.results[0].type == want, op.name
    cond = graph.CmpOp("lt", x, x)
    select = graph.SelectOp(cond.result, x, x)
    select.verify()
    assert select.result.type == X


def _generic(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


def test_staged_control_flow_ops_are_built_as_xdsls_builder_builds_them() -> None:
    """graph.yield, graph.condition, graph.cond and graph.while skip xDSL's generic builder: the
    same op (printed in generic form, so operand, result and region groups show) as it builds."""
    pred, a, b = _values(TensorType(i1, []), X, X)

    def regions() -> tuple[Region, Region]:
        return Region(Block(arg_types=[X, X])), Region(Block(arg_types=[X, X]))

    cases = [
        (graph.YieldOp(a, b), graph.YieldOp, {"operands": [[a, b]]}),
        (graph.YieldOp(), graph.YieldOp, {"operands": [[]]}),
        (graph.ConditionOp(pred, a, b), graph.ConditionOp, {"operands": [pred, [a, b]]}),
        (graph.CondOp(pred, [X, f32], *regions()), graph.CondOp,
         {"operands": [pred], "result_types": [[X, f32]], "regions": list(regions())}),
        (graph.WhileOp([a, b], *regions()), graph.WhileOp,
         {"operands": [[a, b]], "result_types": [[X, X]], "regions": list(regions())}),
    ]
    for built, cls, parts in cases:
        by_xdsl = cls.__new__(cls)
        IRDLOperation.__init__(by_xdsl, **parts)
        assert _generic(built) == _generic(by_xdsl)
        assert (built.properties, built.attributes) == (by_xdsl.properties, by_xdsl.attributes)
