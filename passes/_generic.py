"""What the linalg passes ask of a ``linalg.generic``: its indexing maps, whether one of them is the
identity, and whether every loop is parallel; and how to reorder a body's arguments. Shared by the
fusion passes and ``kiln-elide-copies``."""

from __future__ import annotations

from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, BlockArgument
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
