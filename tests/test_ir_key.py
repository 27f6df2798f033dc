"""The plan cache's key digests a traced module's structure instead of printing it: equal where
the generic printed form with locations is equal, different wherever that text differs (an
attribute, a type, a location, an operand, a name, where an op sits). A warm start that found
another module's plan would run stale code (tests/test_warm_start.py: a changed body, a changed
global, another kiln each compile again)."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FileLineColLoc, FloatAttr, IntAttr, ModuleOp, StringAttr, TensorType, f32, f64
from xdsl.ir import Block, Operation
from xdsl.printer import Printer

import kiln
from kiln.dialects import graph
from kiln.frontend.ir_key import ir_digest


def _traced(fn: kiln.Function, *args: object) -> ModuleOp:
    return fn.get_concrete_function(*args)._traced.module  # noqa: SLF001


def _generic(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out, print_debuginfo=True, print_generic_format=True).print_op(module)
    return out.getvalue()


def _f(x: np.ndarray, n: np.ndarray) -> object:
    y = np.sum(x, axis=0) * 2.0 + x[0]
    for i in range(n.shape[0]):
        if y[0] > i:
            y = y - 1.0
    return y, np.tanh(y)


_F = kiln.function(_f)
_ARGS = (np.ones((3, 4)), np.arange(6, dtype=np.int32))


def _module() -> ModuleOp:
    """A copy of ``_f``'s traced module, to change."""
    return _traced(_F, *_ARGS).clone()


def _ops(module: ModuleOp, kind: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, kind)]


def test_two_traces_of_one_function_have_one_key():
    first, second = _traced(kiln.function(_f), *_ARGS), _traced(kiln.function(_f), *_ARGS)  # two traces
    assert first is not second and _generic(first) == _generic(second)
    assert ir_digest(first) == ir_digest(second) == ir_digest(first.clone())


def _constant(module: ModuleOp) -> None:
    op = next(op for op in _ops(module, graph.ConstantOp) if "2.0" in _generic(ModuleOp([op.clone()])))
    value = op.attributes["value"] if "value" in op.attributes else op.properties["value"]
    changed = DenseIntOrFPElementsAttr.from_list(value.type, [3.0]) if hasattr(value, "type") else FloatAttr(3.0, f64)
    (op.attributes if "value" in op.attributes else op.properties)["value"] = changed


def _location(module: ModuleOp) -> None:
    op = next(op for op in module.walk() if isinstance(op.location, FileLineColLoc))
    loc = op.location
    op.location = FileLineColLoc(loc.filename, IntAttr(loc.line.data + 1), loc.column)


def _name(module: ModuleOp) -> None:
    next(op for op in module.walk() if op.results).results[0].name_hint = "renamed"


def _operands(module: ModuleOp) -> None:
    op = next(op for op in module.walk() if len(op.operands) == 2 and op.operands[0] is not op.operands[1]
              and op.operands[0].type == op.operands[1].type)
    op.operands = (op.operands[1], op.operands[0])


def _loop_block(module: ModuleOp) -> Block:
    return next(op for op in module.walk() if op.name == "graph.while").regions[1].blocks.first


def _argument(module: ModuleOp) -> None:
    _loop_block(module).insert_arg(TensorType(f32, [2]), 0)


def _attribute(module: ModuleOp) -> None:
    next(op for op in module.walk() if op.name.startswith("graph.")).attributes["kiln.note"] = StringAttr("x")


def _moved(module: ModuleOp) -> None:
    block = next(op for op in module.walk() if op.name == "func.func").regions[0].blocks.first
    ops = list(block.ops)
    first = next(op for op in ops if not op.operands and not op.regions)  # (a constant: no operand to dominate)
    first.detach()
    block.insert_op_before(first, ops[-1])


@pytest.mark.parametrize("change", [_constant, _location, _name, _operands, _argument, _attribute, _moved])
def test_a_module_whose_printed_form_differs_has_another_key(change: Callable[[ModuleOp], None]):
    module = _module()
    before_text, before_key = _generic(module), ir_digest(module)
    change(module)
    assert _generic(module) != before_text  # (the change is one the printed key saw)
    assert ir_digest(module) != before_key


def test_block_arguments_of_other_types_give_other_keys():
    one, other = _module(), _module()
    _loop_block(one).insert_arg(TensorType(f32, [2]), 0)
    _loop_block(other).insert_arg(TensorType(f64, [2]), 0)
    assert _generic(one) != _generic(other)
    assert ir_digest(one) != ir_digest(other)
