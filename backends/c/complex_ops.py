"""``complex`` dialect ops -> C: ``float _Complex`` / ``double _Complex`` values built and
taken apart with GCC's ``__builtin_complex``, ``__real__`` and ``__imag__`` (no
``<complex.h>``, whose ``I`` and ``complex`` macros could collide with generated names).

Only construction, the parts, constants and the library functions reach this emitter: the
arithmetic was written out on the parts by convert-graph-to-linalg (passes/_complex.py), so
C's own complex ``*`` and ``/`` (Annex G) never decide a result. The functions are the C
library's (``__builtin_cexp`` is glibc's ``cexp``), which NumPy's complex loops call too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import memref
from xdsl.dialects import complex as cplx
from xdsl.dialects.builtin import ComplexType, Float32Type, FloatAttr
from xdsl.ir import Operation

from kiln.backends.c.c_types import c_type, float_literal
from kiln.backends.c.dispatch import handles
from kiln.backends.c.errors import CEmitError

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter

#: complex op -> the C library function (the complex64 variant appends "f")
_LIBRARY: dict[type, str] = {
    cplx.ExpOp: "cexp",
    cplx.LogOp: "clog",
    cplx.SqrtOp: "csqrt",
    cplx.SinOp: "csin",
    cplx.CosOp: "ccos",
    cplx.TanhOp: "ctanh",
    cplx.AbsOp: "cabs",
    cplx.AngleOp: "carg",
}


def _suffix(ty: object) -> str:
    if not isinstance(ty, ComplexType):
        raise CEmitError(f"expected a complex type, got {ty}")
    return "f" if isinstance(ty.element_type, Float32Type) else ""


@handles(cplx.CreateOp)
def _create(em: FunctionEmitter, op: cplx.CreateOp) -> None:
    if op.complex.uses and all(isinstance(u.operation, memref.StoreOp) and u.index == 0 for u in op.complex.uses):
        return  # only stored: store_parts writes its parts
    em.define(op.complex, f"__builtin_complex({em.expr(op.real)}, {em.expr(op.imaginary)})")


#: a part op -> GCC's operator for that part
_PART: dict[type[Operation], str] = {cplx.ReOp: "__real__", cplx.ImOp: "__imag__"}


def load_parts(em: FunctionEmitter, load: memref.LoadOp, place: str) -> bool:
    """Read a loaded complex value part by part (``__real__ p[i]``), at the load, when the
    program only takes it apart (kiln-loops-simplify's loops-complex rules leave loads so): gcc
    vectorizes a loop over the parts, never one over a ``double _Complex`` temporary."""
    users = [use.operation for use in load.res.uses]
    if not users or not all(isinstance(u, cplx.ReOp | cplx.ImOp) for u in users):
        return False
    part = c_type(load.res.type.element_type)  # type: ignore[attr-defined]
    for kind, which in _PART.items():
        readers = [u for u in users if isinstance(u, kind)]
        if readers:
            name = em.fresh(f"{load.res.name_hint or 'v'}_{which.strip('_')}")
            em.line(f"{part} {name} = {which} {place};")
            for user in readers:
                em.bind(user.results[0], name)
    return True


def store_parts(em: FunctionEmitter, store: memref.StoreOp, place: str) -> bool:
    """Write a stored ``complex.create`` part by part (``__real__ p[i] = re``), for the same reason."""
    create = store.value.owner
    if not isinstance(create, cplx.CreateOp):
        return False
    em.line(f"__real__ {place} = {em.expr(create.real)};")
    em.line(f"__imag__ {place} = {em.expr(create.imaginary)};")
    return True


@handles(cplx.ReOp, cplx.ImOp)
def _part(em: FunctionEmitter, op: cplx.ReOp) -> None:
    if op.result in em.values:  # read at its load (load_parts)
        return
    em.define(op.result, f"{_PART[type(op)]} ({em.expr(op.complex)})")


@handles(cplx.ConstantOp)
def _constant(em: FunctionEmitter, op: cplx.ConstantOp) -> None:
    parts = op.value.data
    if not all(isinstance(p, FloatAttr) for p in parts):
        raise CEmitError(f"complex.constant of {op.complex.type} is not supported")
    re, im = (float_literal(p.value.data, p.type) for p in parts)  # type: ignore[union-attr]
    em.define(op.complex, f"__builtin_complex({re}, {im})")


@handles(*_LIBRARY)
def _library(em: FunctionEmitter, op: cplx.ExpOp) -> None:
    fn = f"__builtin_{_LIBRARY[type(op)]}{_suffix(op.complex.type)}"
    em.define(op.result, f"{fn}({em.expr(op.complex)})")
