"""``krt.check`` → C: a failed run-time check stops the call and reports its message.

The message goes to ``kiln_failed``, a thread-local of the shared object, and the function
returns at once (a scalar or vector result is then 0; temporaries allocated so far are not freed: the
call is abandoned). Callers learn of it through the exported ``kiln_take_error()``, which
returns the message and clears it: the native entry's trampoline returns it, and the ctypes
path calls it after the function (docs/abi.md, "Run-time errors"). A call to a function of
the same module that may fail is followed by the same early return.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from kiln.backends.c.c_types import c_type
from kiln.backends.c.dispatch import handles
from kiln.backends.c.print_ops import c_string
from kiln.dialects import krt

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter


def early_return(fn: func.FuncOp) -> str:
    """The statement that abandons a call of ``fn``: a zero of its first result's C type (a
    compound literal, so that a part returning a vector, ``kiln_v8f64``, returns one too)."""
    outputs = fn.function_type.outputs.data
    return f"return ({c_type(outputs[0])}){{0}};" if outputs else "return;"


def may_fail(fn: func.FuncOp) -> bool:
    """Whether a call of ``fn`` can end with a failed check (directly; kiln inlines callees)."""
    return any(isinstance(op, krt.CheckOp) for op in fn.walk())


@handles(krt.CheckOp)
def _check(em: FunctionEmitter, op: krt.CheckOp) -> None:
    em.use_helper("kiln_check")
    assert isinstance(op.cond.type, MemRefType)
    literal, _ = c_string(op.message.data)
    desc = em.memref(op.cond)
    em.open(f"if (!{desc.ptr if desc.scalar else '*' + desc.ptr}) {{")
    em.line(f"kiln_failed = {literal};")
    em.line(early_return(em.fn))
    em.close()
