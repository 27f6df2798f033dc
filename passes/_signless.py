"""Signedness erasure: the last step of convert-graph-to-linalg.

The ``graph`` dialect spells NumPy's unsigned integers ``uiN`` (signless ``iN`` are the
signed ones). Below it, as in MLIR, integers are signless: the meaning of a value's bits
lies in the ops that use it, which the lowering chose from the graph types (``divui``,
``cmpi ult``, ``extui``, ``uitofp``, ...; see passes/_scalar.py). This module rewrites
every remaining ``uiN``/``siN`` -- result and block argument types, types inside
attributes (``func.func``'s type, constants) -- to ``iN``.

What the bits mean still matters at one place: a function's boundary, where the caller
passes and receives NumPy arrays. Each argument and result whose element type was
unsigned gets the ``kiln.unsigned`` unit attribute in ``arg_attrs`` / ``res_attrs`` (the
analogue of LLVM's ``zeroext``); bufferization carries result attributes to the output
parameters, and the loader (backends/loader.py) reads them back as ``uintN`` dtypes.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.rewriter import Rewriter

from kiln.dialects import graph
from kiln.dialects.contracts import UNSIGNED_ATTR


def signless(attr: Attribute, memo: dict[Attribute, Attribute]) -> Attribute:
    """``attr`` with every signed or unsigned integer type in it made signless; ``memo`` holds
    the attributes already seen (a module repeats a few types thousands of times: walking each
    again was a fifth of convert-graph-to-linalg on a long chain)."""
    done = memo.get(attr)
    if done is not None:
        return done
    if isinstance(attr, IntegerType):
        new: Attribute = attr if attr.signedness.data == Signedness.SIGNLESS else IntegerType(attr.width.data)
    elif isinstance(attr, ArrayAttr):
        items = tuple(signless(a, memo) for a in attr.data)
        new = attr if items == attr.data else ArrayAttr(items)
    elif isinstance(attr, DictionaryAttr):
        entries = {k: signless(v, memo) for k, v in attr.data.items()}
        new = attr if entries == dict(attr.data) else DictionaryAttr(entries)
    elif isinstance(attr, ParametrizedAttribute):
        params = tuple(signless(p, memo) for p in attr.parameters)
        new = attr if params == attr.parameters else type(attr).new(params)
    else:
        new = attr
    memo[attr] = new
    return new


def _has_unsigned(ty: Attribute) -> bool:
    """Whether a value of type ``ty`` holds unsigned integers (scalar, tensor or resource)."""
    if isinstance(ty, graph.ResourceType):
        ty = ty.value_type
    element = ty.get_element_type() if hasattr(ty, "get_element_type") else ty  # type: ignore[attr-defined]
    return graph.is_unsigned(element)


def _marked(attrs: ArrayAttr | None, types: tuple[Attribute, ...]) -> ArrayAttr | None:
    """``attrs`` (one dictionary per type) with ``kiln.unsigned`` added where the type is unsigned."""
    if not any(_has_unsigned(t) for t in types):
        return attrs
    old = list(attrs.data) if attrs is not None else [DictionaryAttr({})] * len(types)
    new: list[Attribute] = []
    for entry, ty in zip(old, types, strict=True):
        assert isinstance(entry, DictionaryAttr)
        new.append(DictionaryAttr({**entry.data, UNSIGNED_ATTR: UnitAttr()}) if _has_unsigned(ty) else entry)
    return ArrayAttr(new)


def _erase_in_op(op: Operation, memo: dict[Attribute, Attribute]) -> None:
    for result in op.results:
        new = signless(result.type, memo)
        if new != result.type:
            Rewriter.replace_value_with_new_type(result, new)
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                new = signless(arg.type, memo)
                if new != arg.type:
                    Rewriter.replace_value_with_new_type(arg, new)
    for name, value in list(op.properties.items()):
        op.properties[name] = signless(value, memo)
    for name, value in list(op.attributes.items()):
        op.attributes[name] = signless(value, memo)


def erase_signedness(module: ModuleOp) -> None:
    """Make every integer type in ``module`` signless, marking unsigned function arguments and
    results with ``kiln.unsigned`` first."""
    for op in module.walk():
        if isinstance(op, func.FuncOp):
            fn_type = op.function_type
            arg_attrs = _marked(op.arg_attrs, tuple(fn_type.inputs.data))
            res_attrs = _marked(op.res_attrs, tuple(fn_type.outputs.data))
            if arg_attrs is not None:
                op.arg_attrs = arg_attrs
            if res_attrs is not None:
                op.res_attrs = res_attrs
    memo: dict[Attribute, Attribute] = {}
    for op in module.walk():
        _erase_in_op(op, memo)
