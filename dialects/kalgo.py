"""The ``kalgo`` dialect: sequential array algorithms in destination-passing style.

Sorting, scans, arg-reductions, counting and binary search have no
``linalg.generic`` form (an element of the result depends on others of the result,
on the data as an index, or on a position). ``convert-graph-to-linalg`` lowers
``graph.sort``/``argsort``/``scan``/``argreduce``/``bincount``/``searchsorted``/``gather``/``scatter``/
``iota``/``nonzero``/``compress`` to the ``kalgo`` op of the same name, which reads
its ``ins`` and writes its ``outs`` whole, like a linalg op:

    %y = kalgo.scan {axis = 0 : i64, kind = "add"} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>

The ops are ``LinalgStructuredOperation``s, so ``kiln-bufferize`` gives them
buffers as it does linalg ops (their indexing maps say which loops each operand
spans; the loop along a scanned or sorted axis is a ``reduction``). Their body is a
placeholder that yields the ``outs`` unchanged and means nothing: no linalg
lowering may run on them. ``convert-kalgo-to-kernel`` turns the buffer-level ops
into the ``kernel`` calls of the same names before any linalg op becomes loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    I64,
    IntegerAttr,
    ShapedType,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

SCANS = ("add", "mul", "max", "min")
SIDES = ("left", "right")


def _element(t: Attribute) -> Attribute:
    assert isinstance(t, ShapedType)
    return t.get_element_type()  # type: ignore[no-any-return]


def _placeholder_body(operands: Sequence[SSAValue], n_outputs: int) -> Region:
    """One argument per operand; yields the ``outs`` arguments (the op's semantics are its name)."""
    block = Block(arg_types=[_element(v.type) for v in operands])
    block.add_op(YieldOp(*block.args[len(operands) - n_outputs :]))
    return Region(block)


def _result_types(outputs: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in outputs if isinstance(v.type, TensorType)]


def _iterators(kinds: Sequence[str]) -> ArrayAttr[IteratorTypeAttr]:
    return ArrayAttr([IteratorTypeAttr.reduction() if k == "reduction" else IteratorTypeAttr.parallel() for k in kinds])


def _shape(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, ShapedType)
    return tuple(v.type.get_shape())


class _AlgoOp(LinalgStructuredOperation):
    """Shared syntax: ``kalgo.<name> {props} ins(... : ...) outs(... : ...) (-> types)?``."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ()
    #: whether the op writes exactly one output (``kalgo.histogram`` writes several)
    ONE_OUTPUT: ClassVar[bool] = True

    def _init(self, inputs: Sequence[SSAValue], output: SSAValue | Sequence[SSAValue], properties: dict[str, Attribute]) -> None:
        outputs = [output] if isinstance(output, SSAValue) else list(output)
        super().__init__(
            operands=[list(inputs), outputs],
            result_types=[_result_types(outputs)],
            properties=properties,
            regions=[_placeholder_body([*inputs, *outputs], len(outputs))],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attr_dict({name: self.properties[name] for name in self.PROPERTY_NAMES})
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            printer.print_string(f" {keyword}(")
            if values:
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list(values.types, printer.print_attribute)
            printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            printer.print_list(self.res.types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        properties = parser.parse_optional_attr_dict()
        groups: list[list[SSAValue]] = []
        for keyword in ("ins", "outs"):
            parser.parse_keyword(keyword)
            parser.parse_punctuation("(")
            if parser.parse_optional_punctuation(")") is not None:
                groups.append([])
                continue
            names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(names) != len(types):
                parser.raise_error(f"{cls.name}: {len(names)} {keyword} operands but {len(types)} types")
            groups.append([parser.resolve_operand(n, t) for n, t in zip(names, types)])
        if parser.parse_optional_punctuation("->") is not None:
            parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        inputs, outputs = groups
        op = cls.create(
            operands=[*inputs, *outputs],
            result_types=_result_types(outputs),
            properties={**properties, "operandSegmentSizes": _segments(len(inputs), len(outputs))},
            regions=[_placeholder_body([*inputs, *outputs], len(outputs))],
        )
        return op

    def verify_(self) -> None:
        super().verify_()
        if self.ONE_OUTPUT and len(self.outputs) != 1:
            raise VerifyException(f"{self.name} has one output")
        if len(_result_types(self.outputs)) != len(self.res):
            raise VerifyException(f"{self.name}: a tensor output has a result, a memref output none")


def _segments(n_inputs: int, n_outputs: int) -> Attribute:
    return DenseArrayBase.from_list(i32, [n_inputs, n_outputs])


class _AlongAxis(_AlgoOp):
    """One input and one output of the same shape, each line along ``axis`` computed in order."""

    axis = prop_def(IntegerAttr[I64])

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = len(_shape(self.inputs[0]))
        return ArrayAttr([AffineMapAttr(AffineMap.identity(rank))] * 2)

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        rank, axis = len(_shape(self.inputs[0])), self.axis.value.data
        return _iterators(["reduction" if i == axis else "parallel" for i in range(rank)])

    def verify_(self) -> None:
        super().verify_()
        if len(self.inputs) != 1:
            raise VerifyException(f"{self.name} has one input")
        rank = len(_shape(self.inputs[0]))
        if not 0 <= self.axis.value.data < rank:
            raise VerifyException(f"{self.name}: axis {self.axis.value.data} is out of range for rank {rank}")


@irdl_op_definition
class ScanOp(_AlongAxis):
    """Inclusive scan (``kind`` add, mul, max or min) of each line along ``axis``."""

    name = "kalgo.scan"
    kind = prop_def(StringAttr)
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ("axis", "kind")

    def __init__(self, kind: str, operand: SSAValue, init: SSAValue, axis: int):
        self._init([operand], init, {"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)})

    def verify_(self) -> None:
        super().verify_()
        if self.kind.data not in SCANS:
            raise VerifyException(f"kalgo.scan: unknown kind {self.kind.data!r}")
        if _element(self.inputs[0].type) != _element(self.outputs[0].type):
            raise VerifyException("kalgo.scan: input and output share an element type")


@irdl_op_definition
class ArgReduceOp(_AlgoOp):
    """The i64 position of the first extreme element (``kind`` max or min), or first NaN, of each line
    along ``axis``; the output has the input's shape without that axis."""

    name = "kalgo.argreduce"
    kind = prop_def(StringAttr)
    axis = prop_def(IntegerAttr[I64])
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ("axis", "kind")

    def __init__(self, kind: str, operand: SSAValue, init: SSAValue, axis: int):
        self._init([operand], init, {"kind": StringAttr(kind), "axis": IntegerAttr(axis, i64)})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank, axis = len(_shape(self.inputs[0])), self.axis.value.data
        kept = tuple(AffineExpr.dimension(i) for i in range(rank) if i != axis)
        return ArrayAttr([AffineMapAttr(AffineMap.identity(rank)), AffineMapAttr(AffineMap(rank, 0, kept))])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        rank, axis = len(_shape(self.inputs[0])), self.axis.value.data
        return _iterators(["reduction" if i == axis else "parallel" for i in range(rank)])

    def verify_(self) -> None:
        rank = len(_shape(self.inputs[0])) if self.inputs else 0
        if not 0 <= self.axis.value.data < rank:
            raise VerifyException(f"kalgo.argreduce: axis {self.axis.value.data} is out of range for rank {rank}")
        super().verify_()
        if self.kind.data not in ("max", "min"):
            raise VerifyException(f"kalgo.argreduce: kind must be 'max' or 'min', got {self.kind.data!r}")


@irdl_op_definition
class SortOp(_AlongAxis):
    """Each line along ``axis`` sorted ascending, NaN last."""

    name = "kalgo.sort"
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ("axis",)

    def __init__(self, operand: SSAValue, init: SSAValue, axis: int):
        self._init([operand], init, {"axis": IntegerAttr(axis, i64)})


@irdl_op_definition
class ArgsortOp(_AlongAxis):
    """The i64 positions that sort each line along ``axis`` stably, NaN last."""

    name = "kalgo.argsort"
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ("axis",)

    def __init__(self, operand: SSAValue, init: SSAValue, axis: int):
        self._init([operand], init, {"axis": IntegerAttr(axis, i64)})


@irdl_op_definition
class BincountOp(_AlgoOp):
    """``ins(%x[, %w]) outs(%counts)``: occurrences (or summed weights) of each value of ``%x`` below
    the output's length; the loops are the elements of ``%x``, then the output's."""

    name = "kalgo.bincount"

    def __init__(self, operand: SSAValue, weights: SSAValue | None, init: SSAValue):
        self._init([operand] if weights is None else [operand, weights], init, {})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
        maps = [AffineMap(2, 0, (d0,))] * len(self.inputs) + [AffineMap(2, 0, (d1,))]
        return ArrayAttr([AffineMapAttr(m) for m in maps])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(["reduction", "parallel"])


@irdl_op_definition
class HistogramOp(_AlgoOp):
    """``ins(%x, %low, %high, %span, %edges, %w...) outs(%counts, %sums...)``: the counts of ``%x`` in
    equal bins and the sums of each weights operand per bin, in one pass (``graph.histogram``'s
    arithmetic and order of additions); the loops are the elements of ``%x``, the bins, the edges."""

    name = "kalgo.histogram"
    ONE_OUTPUT: ClassVar[bool] = False

    def __init__(self, operands: Sequence[SSAValue], inits: Sequence[SSAValue]):
        self._init(operands, inits, {})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))
        scalar = AffineMap(3, 0, ())
        maps = [AffineMap(3, 0, (d0,)), scalar, scalar, scalar, AffineMap(3, 0, (d2,))]
        maps += [AffineMap(3, 0, (d0,))] * (len(self.inputs) - 5) + [AffineMap(3, 0, (d1,))] * len(self.outputs)
        return ArrayAttr([AffineMapAttr(m) for m in maps])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(["reduction", "parallel", "reduction"])

    def verify_(self) -> None:
        super().verify_()
        if len(self.inputs) < 5 or len(self.outputs) != len(self.inputs) - 4:
            raise VerifyException("kalgo.histogram: x, low, high, span, edges and the weights; the counts and one sum per weights")


@irdl_op_definition
class SearchsortedOp(_AlgoOp):
    """``ins(%sorted, %values) outs(%positions)``: binary search of each value (``side`` left or right);
    the loops are the elements of ``%sorted``, then those of ``%values``."""

    name = "kalgo.searchsorted"
    side = prop_def(StringAttr)
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ("side",)

    def __init__(self, side: str, sorted_: SSAValue, values: SSAValue, init: SSAValue):
        self._init([sorted_, values], init, {"side": StringAttr(side)})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = len(_shape(self.inputs[1]))
        dims = tuple(AffineExpr.dimension(1 + i) for i in range(rank))
        maps = [AffineMap(1 + rank, 0, (AffineExpr.dimension(0),)), AffineMap(1 + rank, 0, dims), AffineMap(1 + rank, 0, dims)]
        return ArrayAttr([AffineMapAttr(m) for m in maps])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(["reduction"] + ["parallel"] * len(_shape(self.inputs[1])))

    def verify_(self) -> None:
        super().verify_()
        if self.side.data not in SIDES:
            raise VerifyException(f"kalgo.searchsorted: side must be 'left' or 'right', got {self.side.data!r}")


def _own_dims(first: int, count: int) -> tuple[AffineExpr, ...]:
    return tuple(AffineExpr.dimension(first + i) for i in range(count))


@irdl_op_definition
class GatherOp(_AlgoOp):
    """``ins(%x, %i0, ...) outs(%out)``: ``out[b, ...] = x[i0[b], ..., ik-1[b], ...]`` (see
    ``graph.gather``); the loops are the output's (indices span its leading ones), then ``%x``'s own."""

    name = "kalgo.gather"

    def __init__(self, operand: SSAValue, indices: Sequence[SSAValue], init: SSAValue):
        self._init([operand, *indices], init, {})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        out_rank, x_rank, batch = len(_shape(self.outputs[0])), len(_shape(self.inputs[0])), len(_shape(self.inputs[1]))
        n = out_rank + x_rank
        maps = [AffineMap(n, 0, _own_dims(out_rank, x_rank))]
        maps += [AffineMap(n, 0, _own_dims(0, batch))] * (len(self.inputs) - 1)
        maps.append(AffineMap(n, 0, _own_dims(0, out_rank)))
        return ArrayAttr([AffineMapAttr(m) for m in maps])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        out_rank, x_rank = len(_shape(self.outputs[0])), len(_shape(self.inputs[0]))
        return _iterators(["parallel"] * out_rank + ["reduction"] * x_rank)

    def verify_(self) -> None:
        super().verify_()
        if len(self.inputs) < 2:
            raise VerifyException("kalgo.gather: an operand and at least one index array")


@irdl_op_definition
class ScatterOp(_AlgoOp):
    """``ins(%updates, %i0, ...) outs(%x)``: ``%x`` (read and written) with each update combined
    into ``x[i0[b], ..., ik-1[b], ...]`` in row-major order (``kind`` as ``graph.scatter``); the
    loops are the updates' (indices span the leading ones), then ``%x``'s own."""

    name = "kalgo.scatter"
    kind = prop_def(StringAttr)
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ("kind",)

    def __init__(self, kind: str, updates: SSAValue, indices: Sequence[SSAValue], init: SSAValue):
        self._init([updates, *indices], init, {"kind": StringAttr(kind)})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        u_rank, x_rank, batch = len(_shape(self.inputs[0])), len(_shape(self.outputs[0])), len(_shape(self.inputs[1]))
        n = u_rank + x_rank
        maps = [AffineMap(n, 0, _own_dims(0, u_rank))]
        maps += [AffineMap(n, 0, _own_dims(0, batch))] * (len(self.inputs) - 1)
        maps.append(AffineMap(n, 0, _own_dims(u_rank, x_rank)))
        return ArrayAttr([AffineMapAttr(m) for m in maps])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        u_rank, x_rank = len(_shape(self.inputs[0])), len(_shape(self.outputs[0]))
        return _iterators(["reduction"] * u_rank + ["parallel"] * x_rank)

    def verify_(self) -> None:
        super().verify_()
        if len(self.inputs) < 2:
            raise VerifyException("kalgo.scatter: updates and at least one index array")


@irdl_op_definition
class IotaOp(_AlgoOp):
    """``ins() outs(%out)``: ``out[i] = i`` over the 1-D output (``graph.iota``)."""

    name = "kalgo.iota"

    def __init__(self, init: SSAValue):
        self._init([], init, {})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return ArrayAttr([AffineMapAttr(AffineMap.identity(1))])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(["parallel"])


@irdl_op_definition
class NonzeroOp(_AlgoOp):
    """``ins(%x) outs(%positions)``: the positions of the nonzero elements of the 1-D ``%x``, in
    increasing order (``graph.nonzero``), into an output of exactly their count; the loops are the
    elements of ``%x``, read in order (each position's place is the count before it), then the output's."""

    name = "kalgo.nonzero"

    def __init__(self, operand: SSAValue, init: SSAValue):
        self._init([operand], init, {})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
        return ArrayAttr([AffineMapAttr(AffineMap(2, 0, (d0,))), AffineMapAttr(AffineMap(2, 0, (d1,)))])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(["reduction", "parallel"])

    def verify_(self) -> None:
        super().verify_()
        if len(self.inputs) != 1 or len(_shape(self.inputs[0])) != 1:
            raise VerifyException("kalgo.nonzero: one 1-D input")
        if len(_shape(self.outputs[0])) != 1 or _element(self.outputs[0].type) != i64:
            raise VerifyException("kalgo.nonzero: the output is 1-D i64")


@irdl_op_definition
class CompressOp(_AlgoOp):
    """``ins(%values, %mask) outs(%selected)``: the elements of the 1-D ``%values`` whose element of
    the 1-D ``%mask`` (of one length) is nonzero, in order (``graph.compress``), into an output of
    exactly their count; the loops are the positions of both inputs, read in order (each element's
    place is the count before it), then the output's."""

    name = "kalgo.compress"

    def __init__(self, values: SSAValue, mask: SSAValue, init: SSAValue):
        self._init([values, mask], init, {})

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
        span = AffineMapAttr(AffineMap(2, 0, (d0,)))
        return ArrayAttr([*[span] * len(self.inputs), AffineMapAttr(AffineMap(2, 0, (d1,)))])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(["reduction", "parallel"])

    def verify_(self) -> None:
        super().verify_()
        if len(self.inputs) != 2 or any(len(_shape(v)) != 1 for v in self.inputs):
            raise VerifyException("kalgo.compress: 1-D values and mask")
        (n,), (m,) = _shape(self.inputs[0]), _shape(self.inputs[1])
        if n >= 0 and m >= 0 and n != m:
            raise VerifyException(f"kalgo.compress: the values and the mask have one length, got {n} and {m}")
        if len(_shape(self.outputs[0])) != 1 or _element(self.outputs[0].type) != _element(self.inputs[0].type):
            raise VerifyException("kalgo.compress: the output is 1-D, of the values' element type")


KAlgo = Dialect(
    "kalgo",
    [ScanOp, ArgReduceOp, SortOp, ArgsortOp, BincountOp, HistogramOp, SearchsortedOp, GatherOp, ScatterOp, IotaOp, NonzeroOp, CompressOp],
    [],
)
