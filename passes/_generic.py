"""What the linalg passes ask of a ``linalg.generic``: its indexing maps, whether one of them is the
identity, and whether every loop is parallel; how to reorder a body's arguments; and how to build
one, or give one new inputs, cheaply. Shared by convert-graph-to-linalg, the fusion passes and
``kiln-elide-copies``."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, DenseArrayBase, i32
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Attribute, Block, BlockArgument, Region, SSAValue
from xdsl.ir.affine import AffineMap


def indexing_maps(op: GenericOp) -> list[AffineMap]:
    """The indexing maps, inputs' then outputs'."""
    return [m.data for m in op.indexing_maps.data]


def is_identity_at(op: GenericOp, index: int) -> bool:
    """Operand ``index``'s map is the identity: loop point i reads or writes its element i."""
    m = op.indexing_maps.data[index].data
    return m == AffineMap.identity(m.num_dims)


def is_parallel(op: GenericOp) -> bool:
    """No reduction loop: each iteration writes its own output elements."""
    return all(it.data == IteratorType.PARALLEL for it in op.iterator_types.data)


def reorder_args(block: Block, order: list[BlockArgument]) -> None:
    """Give ``block`` its arguments in ``order`` (a permutation of them), uses unchanged.

    xDSL 0.74 can insert and erase a block argument but not move one; moving one by replacing
    its uses costs a step per use, which made fusing a chain whose every step reads one value
    quadratic in the chain's length."""
    assert sorted(a.index for a in order) == list(range(len(block.args))) and all(a.block is block for a in order)
    for i, arg in enumerate(order):
        arg.index = i
    block._args = tuple(order)  # noqa: SLF001 (no public way to move an argument)


def build_generic(
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    body: Region,
    maps: Sequence[AffineMap],
    iterators: Sequence[str],
    result_types: Sequence[Attribute],
) -> GenericOp:
    """The ``linalg.generic`` that ``GenericOp(...)`` builds (same operands, properties in the same
    order), without xDSL's generic op builder and with its attributes built once per shape: that
    builder was most of convert-graph-to-linalg on a long elementwise chain."""
    return GenericOp.create(
        operands=[*inputs, *outputs],
        result_types=result_types,
        properties={
            "indexing_maps": _maps_attr(tuple(maps)),
            "iterator_types": _iterators_attr(tuple(iterators)),
            "operandSegmentSizes": _segment_sizes(len(inputs), len(outputs)),
        },
        regions=[body],
    )


def set_inputs(op: GenericOp, inputs: Sequence[SSAValue], maps: Sequence[AffineMap]) -> None:
    """Give ``op`` new inputs and their indexing maps (then the outputs') in place; its body's
    arguments must already match. Fusion does this once per step: a new generic per step (xDSL's
    op builder and its checks) was most of linalg-fuse-elementwise on a long chain."""
    outputs = list(op.outputs)
    op.operands = [*inputs, *outputs]
    op.properties["operandSegmentSizes"] = _segment_sizes(len(inputs), len(outputs))
    op.properties["indexing_maps"] = _maps_attr(tuple(maps))


@functools.lru_cache(maxsize=4096)
def _maps_attr(maps: tuple[AffineMap, ...]) -> ArrayAttr[AffineMapAttr]:
    """The ``indexing_maps`` property for ``maps`` (attributes are immutable: one per distinct list;
    bounded, since maps with constant indices, ``x[i]`` for many ``i``, are many)."""
    return ArrayAttr([AffineMapAttr(m) for m in maps])


@functools.cache
def _iterators_attr(iterators: tuple[str, ...]) -> ArrayAttr[IteratorTypeAttr]:
    return ArrayAttr([IteratorTypeAttr(IteratorType(it)) for it in iterators])


@functools.cache
def _segment_sizes(inputs: int, outputs: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, [inputs, outputs])
