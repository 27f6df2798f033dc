"""``kiln-symmetric-products``: a product of a matrix's transpose with itself computes half of C.

``x.T @ x`` and ``x @ x.T`` (a Gram matrix, ``np.cov``, the covariance loop that
``graph-hoist-row-products`` makes one product) are symmetric: NumPy's BLAS computes them as
``syrk``, half the multiply-adds, and its result is exactly symmetric. ``kernel.matmul
{symmetric}`` does the same (the lower triangle by the GEMM micro-kernel, mirrored; see
``dialects/kernel.py``). This pass marks a ``kernel.matmul`` symmetric when B's element (k, n) is
A's element (n, k), seen through what bufferization makes of the operands:

- views: both operands view one buffer (a function argument or an allocation) through static
  views (``memref.subview``, ``reinterpret_cast``...), at the same offset with swapped strides and
  shapes (``x.T @ x`` with the transpose folded to a view; ``y = x[1:, 2:]; y @ y.T``);
- a transposed copy: an operand is an allocation last written by a ``linalg.generic`` that copies
  a 2-D value transposed (or as it is), then its elements are that value's (``y.T @ y`` for a view
  ``y``, whose transpose ``kiln-fold-transposes`` leaves as a copy);
- the same elements computed twice: the operands' allocations are last written by two
  ``linalg.generic`` ops with the same inputs, maps and body (``y = x.astype(np.float32);
  y.T @ y``: elementwise fusion computes the cast once for each reader).

A copy's source and an allocation's inputs must keep their contents up to the product: every op
in between writes only other arguments or allocations (an op that may write what it is given, a
call or another kernel, leaves the product unmarked).

Expects the loops stage right after ``linalg-matmul-to-kernel`` (copies still ``linalg.generic``).
Guarantees: only the ``symmetric`` property changes; C holds the same sums (up to the GEMM's
reassociation) and is exactly symmetric.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, NoneAttr, StridedLayoutAttr, UnitAttr
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from kiln.dialects import kernel
from kiln.passes._buffer_facts import root, written
from kiln.passes._kernel_common import indexing_maps, row_major_strides

_IDENTITY = AffineMap.identity(2)
_SWAP = AffineMap.from_callable(lambda i, j: (j, i))
#: the dialects of the elementwise ops a generic's body may hold to compute a pure function
_PURE = ("arith.", "math.", "kmath.")


@dataclass(frozen=True)
class _Elements:
    """Element (i, j) of a 2-D value is element ``offset + i * strides[0] + j * strides[1]`` of
    ``contents``: a buffer, or the ``linalg.generic`` that last wrote an allocation."""

    contents: SSAValue | GenericOp
    offset: int
    strides: tuple[int, int]

    def transposed(self) -> _Elements:
        return _Elements(self.contents, self.offset, (self.strides[1], self.strides[0]))


def _layout(value: SSAValue) -> tuple[int, tuple[int, int]] | None:
    """A static 2-D memref's offset and strides (in elements) from its base buffer."""
    ty = value.type
    if not isinstance(ty, MemRefType) or len(ty.get_shape()) != 2:
        return None
    if isinstance(ty.layout, NoneAttr):
        strides = row_major_strides(ty)
        return None if strides is None else (0, (strides[0], strides[1]))
    if not isinstance(ty.layout, StridedLayoutAttr):
        return None
    offset, (s0, s1) = ty.layout.get_offset(), ty.layout.get_strides()
    return None if offset is None or s0 is None or s1 is None else (offset, (s0, s1))


def _last_writer(buffer: SSAValue, reader: Operation) -> GenericOp | None:
    """The all-parallel generic writing every element of the allocation ``buffer`` (its only
    output, identity map) last before ``reader`` in ``reader``'s block, when nothing after it up to
    ``reader`` writes what it reads."""
    block = reader.parent_block()
    if block is None or not isinstance(buffer.owner, memref.AllocOp):
        return None
    written_after: set[SSAValue | None] = set()
    for op in reversed(list(block.ops)[: block.get_operation_index(reader)]):
        writes = written(op)
        if writes is None:
            return None
        roots = {root(w) for w in writes}
        if buffer in roots:
            return op if _writes_all(op, buffer) and _kept(op, written_after) else None
        written_after |= roots
    return None


def _writes_all(op: Operation, buffer: SSAValue) -> bool:
    """``op`` is an all-parallel 2-D generic writing each element of ``buffer`` (its only output,
    through the identity map or, as ``kiln-write-transposed`` makes, the swapped one) as a pure
    function of its inputs: its body computes with arith and math ops and never reads the
    output's old element."""
    if not (isinstance(op, GenericOp) and list(op.outputs) == [buffer] and not op.results
            and op.get_num_loops() == 2 and all(it.data == IteratorType.PARALLEL for it in op.iterator_types.data)
            and indexing_maps(op)[-1] in (_IDENTITY, _SWAP)):
        return False
    block = op.body.block
    return not block.args[-1].uses and all(isinstance(inner, YieldOp) or inner.name.startswith(_PURE)
                                           for inner in block.ops)


def _output_ordered_maps(writer: GenericOp) -> list[AffineMap]:
    """``writer``'s maps with its loops renamed so that the output's map is the identity: the
    same element correspondence, whichever loop order the generic walks."""
    maps = indexing_maps(writer)
    return maps if maps[-1] == _IDENTITY else [m.compose(_SWAP) for m in maps]


def _kept(writer: GenericOp, written_after: set[SSAValue | None]) -> bool:
    """Whether every buffer ``writer`` reads is known and none is written after it (``None``
    among ``written_after``: a buffer of unknown memory, which may be any)."""
    roots = [root(v) for v in writer.inputs if isinstance(v.type, MemRefType)]
    return None not in written_after and all(r is not None and r not in written_after for r in roots)


def _elements(value: SSAValue, reader: Operation) -> _Elements | None:
    """Where ``value``'s elements are, as ``reader`` sees them."""
    layout, buffer = _layout(value), root(value)
    if layout is None or buffer is None:
        return None
    offset, strides = layout
    writer = _last_writer(buffer, reader)
    if writer is None:
        return _Elements(buffer, offset, strides)
    copied = _copy_source(writer)
    inner = None if copied is None else _elements(copied[0], writer)
    if copied is not None and inner is not None:
        seen = _through_copy(inner, copied[1], buffer, offset, strides)
        if seen is not None:
            return seen
    return _Elements(writer, offset, strides)


def _through_copy(source: _Elements, transposed: bool, buffer: SSAValue, offset: int,
                  strides: tuple[int, int]) -> _Elements | None:
    """A view (``offset``, ``strides``) of ``buffer``, a row-major copy of ``source`` (element
    (p, q) is the source's (q, p) when ``transposed``), as a view of the source's contents: when
    each index of the view walks rows or columns of ``buffer``."""
    ty = buffer.type
    assert isinstance(ty, MemRefType)
    cols = ty.get_shape()[1]
    steps = {(cols, 1): ((1, 0), (0, 1)), (1, cols): ((0, 1), (1, 0))}.get(strides)
    if cols < 2 or steps is None or _layout(buffer) != (0, (cols, 1)):
        return None

    def at(p: int, q: int) -> int:  # the source's element (p, q) of the copy, as an offset
        u, v = (q, p) if transposed else (p, q)
        return u * source.strides[0] + v * source.strides[1]

    first = divmod(offset, cols)
    return _Elements(source.contents, source.offset + at(*first), (at(*steps[0]), at(*steps[1])))


def _copy_source(writer: GenericOp) -> tuple[SSAValue, bool] | None:
    """``(source, transposed)`` when ``writer`` copies a 2-D ``source`` as it is or transposed."""
    body = list(writer.body.block.ops)
    if len(writer.inputs) != 1 or len(body) != 1 or not isinstance(body[0], YieldOp):
        return None
    if list(body[0].operands) != [writer.body.block.args[0]]:
        return None
    source_map = _output_ordered_maps(writer)[0]
    if source_map not in (_IDENTITY, _SWAP) or _layout(writer.inputs[0]) is None:
        return None
    return writer.inputs[0], source_map == _SWAP


def _same_contents(a: SSAValue | GenericOp, b: SSAValue | GenericOp) -> bool:
    """The same buffer, or two generics computing the same elements from the same inputs."""
    if a is b:
        return True
    if not (isinstance(a, GenericOp) and isinstance(b, GenericOp)):
        return False
    return (list(a.inputs) == list(b.inputs) and _output_ordered_maps(a) == _output_ordered_maps(b)
            and a.outputs[0].type == b.outputs[0].type
            and a.body.is_structurally_equivalent(b.body))


def _transposes(product: kernel.MatmulOp) -> bool:
    """Is B's element (k, n) A's element (n, k)?"""
    a_type, b_type = product.a.type, product.b.type
    assert isinstance(a_type, MemRefType) and isinstance(b_type, MemRefType)
    if tuple(b_type.get_shape()) != tuple(a_type.get_shape())[::-1]:
        return False
    a, b = _elements(product.a, product), _elements(product.b, product)
    return (a is not None and b is not None and _same_contents(a.contents, b.contents)
            and a.offset == b.offset and a.strides == b.strides[::-1])


@dataclass(frozen=True)
class KilnSymmetricProducts(ModulePass):
    """Mark ``kernel.matmul`` ops whose B is A's transpose ``symmetric`` (see the module docstring)."""

    name = "kiln-symmetric-products"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for product in op.walk():
            if isinstance(product, kernel.MatmulOp) and product.symmetric is None and _transposes(product):
                product.properties["symmetric"] = UnitAttr()
