"""IR builders shared by kiln-bufferize: memref types, allocations, copies, views.

Kept apart from the conversion logic so that the rules for *what* buffer a
tensor gets stay readable; everything here only says *how* to build it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    IndexType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.utils.exceptions import DiagnosticException

from kiln.passes._kernel_common import layout_strides


def memref_type_of(tensor_type: TensorType[Attribute]) -> MemRefType[Attribute]:
    """The identity-layout memref that holds a value of ``tensor_type``."""
    return MemRefType(tensor_type.get_element_type(), tensor_type.get_shape())


def strided_reshape_type(source: MemRefType[Attribute], groups: list[list[int]], result_shape: Sequence[int],
                         collapse: bool) -> MemRefType[Attribute] | None:
    """The type of a reshape of the strided ``source`` as a view, no copy: one that only drops or
    adds unit dimensions within each group (``x[i, :n]`` seen as 1-D, a column ``x[:n, j]``), that
    splits a dimension (its parts' strides follow from the sizes), or that joins dimensions each of
    which steps over the whole of the next (``ham[n]`` of a 3-D ``ham`` as a matrix). None when a
    group joins two that do not."""
    if not isinstance(source.layout, NoneAttr | StridedLayoutAttr):
        return None
    strides = layout_strides(source)
    offset = source.layout.get_offset() if isinstance(source.layout, StridedLayoutAttr) else 0
    shape = source.get_shape()
    result: list[int | None] = [None] * len(result_shape)
    for position, group in enumerate(groups):
        sizes = [shape[d] for d in group] if collapse else [result_shape[d] for d in group]
        moving = [i for i, size in enumerate(sizes) if size != 1]
        if collapse and len(moving) > 1 and not _joinable([group[i] for i in moving], shape, strides):
            return None
        if collapse:
            result[position] = strides[group[moving[-1] if moving else -1]]  # the innermost one
        else:
            stride = strides[position]
            for d in reversed(group):  # as the C backend's expand_shape strides them
                result[d] = stride
                stride = None if stride is None or result_shape[d] == DYNAMIC_INDEX else stride * result_shape[d]
    return MemRefType(source.get_element_type(), result_shape, StridedLayoutAttr(result, offset))


def _joinable(dims: list[int], shape: Sequence[int], strides: Sequence[int | None]) -> bool:
    """Whether the ``dims`` of a strided buffer are one run of memory: each one's stride is the
    next one's times its (static) size."""
    for outer, inner in zip(dims, dims[1:]):
        so, si = strides[outer], strides[inner]
        if so is None or si is None or shape[inner] == DYNAMIC_INDEX or so != si * shape[inner]:
            return False
    return True


def is_contiguous(buffer: SSAValue) -> bool:
    """True for identity-layout memrefs (allocations, arguments, globals)."""
    assert isinstance(buffer.type, MemRefType)
    return isinstance(buffer.type.layout, NoneAttr)


def index_constant(value: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(value, IndexType())


def dims_of(buffer: SSAValue, shape: Sequence[int] | None = None) -> tuple[list[Operation], list[SSAValue]]:
    """``memref.dim`` ops giving the sizes of ``buffer`` along the dynamic dimensions of ``shape``
    (its own by default), in dimension order."""
    assert isinstance(buffer.type, MemRefType)
    ops: list[Operation] = []
    sizes: list[SSAValue] = []
    for d, size in enumerate(buffer.type.get_shape() if shape is None else shape):
        if size == DYNAMIC_INDEX:
            cst = index_constant(d)
            dim = memref.DimOp(buffer, cst.result)
            ops += [cst, dim]
            sizes.append(dim.result)
    return ops, sizes


def alloc(memref_type: MemRefType[Attribute], dynamic_sizes: list[SSAValue]) -> memref.AllocOp:
    return memref.AllocOp(dynamic_sizes, [], memref_type)


def alloc_like(buffer: SSAValue, memref_type: MemRefType[Attribute] | None = None) -> list[Operation]:
    """A fresh buffer of ``memref_type`` (by default identity-layout with the shape of ``buffer``),
    its dynamic sizes those of ``buffer``; the alloc is last."""
    assert isinstance(buffer.type, MemRefType)
    if memref_type is None:
        memref_type = MemRefType(buffer.type.get_element_type(), buffer.type.get_shape())
    ops, sizes = dims_of(buffer, memref_type.get_shape())
    return [*ops, alloc(memref_type, sizes)]


def copy(source: SSAValue, dest: SSAValue) -> linalg.GenericOp:
    """An identity ``linalg.generic`` copy; convert-linalg-to-loops lowers it, unlike memref.copy."""
    assert isinstance(dest.type, MemRefType)
    rank = dest.type.get_num_dims()
    el_type = dest.type.get_element_type()
    identity = AffineMapAttr(AffineMap.identity(rank))
    body = Block(arg_types=[el_type, el_type])
    body.add_op(linalg.YieldOp(body.args[0]))
    return linalg.GenericOp(
        [source],
        [dest],
        Region(body),
        [identity, identity],
        [IteratorTypeAttr.parallel()] * rank,
    )


def mixed(static: tuple[int, ...], dynamic: Sequence[SSAValue]) -> list[SSAValue | int]:
    """Static values with each ``DYNAMIC_INDEX`` replaced by the next dynamic operand."""
    rest = iter(dynamic)
    return [next(rest) if v == DYNAMIC_INDEX else v for v in static]


def _reduced_dims(sizes: Sequence[int], result_shape: tuple[int, ...], op: Operation) -> list[int]:
    """Which slice dimensions survive a rank-reducing slice (MLIR's greedy matching)."""
    kept: list[int] = []
    j = 0
    for d, size in enumerate(sizes):
        if j < len(result_shape) and result_shape[j] == size:
            kept.append(d)
            j += 1
        elif size != 1:
            raise DiagnosticException(f"kiln-bufferize: cannot match the rank reduction of '{op.name}'")
    if j != len(result_shape):
        raise DiagnosticException(f"kiln-bufferize: cannot match the rank reduction of '{op.name}'")
    return kept


def subview(source: SSAValue, slice_op: Operation, offsets: Sequence[SSAValue | int],
            sizes: Sequence[SSAValue | int], strides: Sequence[SSAValue | int],
            result_type: TensorType[Attribute]) -> memref.SubviewOp:
    """The strided ``memref.subview`` of ``source`` that a ``tensor.extract_slice`` (or the
    destination of a ``tensor.insert_slice``) covers; offsets, sizes and strides may be dynamic."""
    assert isinstance(source.type, MemRefType)
    full = memref.SubviewOp.infer_result_type(source.type, offsets, sizes, strides)
    layout = full.layout
    full_strides = layout.get_strides() if isinstance(layout, StridedLayoutAttr) else full.get_strides()
    assert full_strides is not None
    static_sizes = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    kept = _reduced_dims(static_sizes, result_type.get_shape(), slice_op)
    view_type = MemRefType(
        full.get_element_type(),
        [static_sizes[d] for d in kept],
        StridedLayoutAttr([full_strides[d] for d in kept], full.get_offset()),
    )
    return memref.SubviewOp.get(source, list(offsets), list(sizes), list(strides), view_type)


def with_location(op: Operation, location: Attribute) -> Operation:
    """Give ``op`` and everything nested in it the location of the op it replaces."""
    for nested in op.walk():
        nested.location = location
    return op


def writes_whole_output(op: LinalgStructuredOperation, out_index: int) -> bool:
    """Whether ``op`` writes every element of ``outs[out_index]``: its map is a permutation of
    loop dims. A shifted map (a generic on memrefs writing one slab) leaves the rest of ``outs`` as it was."""
    out_map = op.get_indexing_maps().data[len(op.inputs) + out_index].data
    dims = [e.position for e in out_map.results if isinstance(e, AffineDimExpr)]
    return len(dims) == len(out_map.results) and len(set(dims)) == len(dims)
