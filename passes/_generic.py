"""What the linalg passes ask of a ``linalg.generic``: its indexing maps, whether one of them is the
identity, and whether every loop is parallel. Shared by the fusion passes and ``kiln-elide-copies``."""

from __future__ import annotations

from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
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
