"""The views NumPy makes besides indexing: transposes and reshapes (see :mod:`kiln.frontend.mutation`).

``x.T``, ``np.transpose``, ``np.swapaxes`` and friends are always views; a
reshape (``reshape``, ``ravel``, ``squeeze``, ``expand_dims``) is a view when
NumPy makes one: of a C-contiguous array, one that only drops or adds
length-1 axes, or one whose merged or split axes are laid out contiguously
relative to each other (``x[::2].reshape(2, 3)``; ``ravel``: only of a
C-contiguous array). Otherwise NumPy copies, and so does kiln: the result is a new
array, and writing to it leaves the original alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kiln.dialects import graph
from kiln.frontend import array_ops
from kiln.frontend.mutation import ViewStep
from kiln.frontend.tensor import Tensor, c_contiguous, c_strides, emit, reshape_strides, reshape_to, shape_of, unit_axes_strides
from kiln.frontend.tensor import with_source


@dataclass(eq=False)
class TransposeStep(ViewStep):
    perm: tuple[int, ...]

    def forward(self, parent: Tensor) -> Tensor:
        return emit(graph.TransposeOp(parent.value, list(self.perm)))

    def inverse(self, parent: Tensor, new: Tensor) -> Tensor:
        back = [0] * len(self.perm)
        for i, p in enumerate(self.perm):
            back[p] = i
        return emit(graph.TransposeOp(new.value, back))

    def out_shape(self, parent: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(parent[p] for p in self.perm)

    def view_strides(self, parent: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
        return tuple(strides[p] for p in self.perm)


@dataclass(eq=False)
class ReshapeStep(ViewStep):
    shape: tuple[int, ...]

    def forward(self, parent: Tensor) -> Tensor:
        return reshape_to(parent, self.shape)

    def inverse(self, parent: Tensor, new: Tensor) -> Tensor:
        return reshape_to(new, shape_of(parent))

    def out_shape(self, parent: tuple[int, ...]) -> tuple[int, ...]:
        return self.shape

    def keeps_contiguous(self, parent: tuple[int, ...]) -> bool:
        return True

    def view_strides(self, parent: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
        """A reshape view of a contiguous parent is contiguous; of another, NumPy's no-copy strides."""
        if c_contiguous(parent, strides) and -1 not in self.shape:
            return c_strides(self.shape)
        out = reshape_strides(parent, strides, self.shape)
        return out if out is not None else unit_axes_strides(parent, strides, self.shape)


@dataclass(eq=False)
class ReadOnlyStep(ViewStep):
    """A view NumPy makes read-only (``np.broadcast_to``, ``np.diagonal``): replayed from its
    parent on every read, so it shows the parent's later writes; never written (``readonly``)."""

    build: Callable[[Tensor], Tensor]
    strides: Callable[[tuple[int, ...]], tuple[int, ...] | None]
    #: the view's shape (its parent's is fixed: the array it was made of)
    shape: tuple[int, ...] = ()

    def forward(self, parent: Tensor) -> Tensor:
        return self.build(parent)

    def out_shape(self, parent: tuple[int, ...]) -> tuple[int, ...]:
        return self.shape

    def inverse(self, parent: Tensor, new: Tensor) -> Tensor:
        raise AssertionError("internal: a write through a read-only view")

    def view_strides(self, parent: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
        return self.strides(strides)


def read_only_view(
    x: Tensor, build: Callable[[Tensor], Tensor], strides: Callable[[tuple[int, ...]], tuple[int, ...] | None],
) -> Tensor:
    """``build(x)`` as NumPy's read-only view of ``x``: later writes to ``x`` show in it, and
    a write to it raises NumPy's ValueError. (Of an array of unknown rank: a read-only copy.)"""
    if x.shape_source is not None:
        view = build(x)
    else:
        step = ReadOnlyStep(build, strides)
        view = x.make_view(step)
        step.shape = shape_of(view)
    view.readonly = True
    return view


def broadcast_view(x: Tensor, shape: Any) -> Tensor:
    """``np.broadcast_to``: a read-only view, stride 0 along the broadcast axes."""
    out = array_ops.broadcast_to(x, shape)  # NumPy's errors, and the target shape
    target, source = shape_of(out), shape_of(x)
    lead = len(target) - len(source)

    def strides(parent: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(0 if i < lead or (source[i - lead] == 1 and d != 1) else parent[i - lead] for i, d in enumerate(target))

    return read_only_view(x, lambda p: array_ops.broadcast_to(p, target), strides)


@dataclass(eq=False)
class PartStep(ViewStep):
    """``z.real`` / ``z.imag`` of a complex array: a view NumPy lets one write through."""

    imag: bool

    def forward(self, parent: Tensor) -> Tensor:
        return emit(graph.ImagOp(parent.value) if self.imag else graph.RealOp(parent.value))

    def inverse(self, parent: Tensor, new: Tensor) -> Tensor:
        re = emit(graph.RealOp(parent.value)) if self.imag else new
        im = new if self.imag else emit(graph.ImagOp(parent.value))
        return emit(graph.ComplexOp(re.value, im.value))

    def out_shape(self, parent: tuple[int, ...]) -> tuple[int, ...]:
        return parent

    def view_strides(self, parent: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
        return tuple(2 * s for s in strides)  # in elements of the part, half a complex element


def complex_part(z: Tensor, imag: bool) -> Tensor:
    """The real or imaginary part of the complex ``z``, as NumPy's writable view."""
    step = PartStep(imag)
    if z.shape_source is not None:  # (of unknown rank: a copy)
        return with_source(step.forward(z), z.shape_source)
    return z.make_view(step)


def transposed(x: Tensor, result: Tensor) -> Tensor:
    """``result`` (a ``graph.transpose`` of ``x``, or ``x``) as a view of ``x``."""
    if result is x or x.shape_source is not None:
        return result
    op = result.value.owner
    assert isinstance(op, graph.TransposeOp)
    return x.make_view(TransposeStep(tuple(op.perm.get_values())), result)


def reshaped(x: Tensor, result: Tensor, *, always_view: bool = False) -> Tensor:
    """``result`` (a reshape of ``x``) as a view of ``x`` when NumPy makes one, else a new array."""
    if x.shape_source is not None or result.shape_source is not None:
        return result
    if result is x:
        return x.make_view(ReshapeStep(shape_of(x))) if x.is_view else x
    if always_view or _only_unit_axes(shape_of(x), shape_of(result)) or x.is_contiguous():
        return x.make_view(ReshapeStep(shape_of(result)), result)
    strides = x.element_strides()
    if strides is not None and reshape_strides(shape_of(x), strides, shape_of(result)) is not None:
        return x.make_view(ReshapeStep(shape_of(result)), result)
    return result


def raveled(x: Tensor, result: Tensor) -> Tensor:
    """``result`` (``x`` reshaped to 1-D) as NumPy's ``ravel`` makes it: a view of a C-contiguous
    array, else a copy (unlike ``reshape(-1)``, even when a view would be possible)."""
    if x.shape_source is not None or result.shape_source is not None:
        return result
    if not x.is_contiguous():
        return Tensor(result.value) if result is x else result
    return x.make_view(ReshapeStep(shape_of(result)), result)


def _only_unit_axes(a: Sequence[int], b: Sequence[int]) -> bool:
    return [d for d in a if d != 1] == [d for d in b if d != 1]
