"""kiln's C ABI for one ``func.func`` (docs/abi.md): its parameter list and return type. Its own
module so that the call handler and the emitter both use it without importing each other."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, NoneAttr, StringAttr
from xdsl.ir import Attribute

from kiln.backends.c.c_types import c_type, element_c_type
from kiln.backends.c.errors import CEmitError, op_error
from kiln.backends.c.names import is_reserved_c_name
from kiln.dialects.contracts import C_SYMBOL_ATTR, USER_PREFIX


def c_symbol(fn: func.FuncOp) -> str:
    """The C name of ``fn``: its ``kiln.c_symbol`` attribute, else its symbol name (docs/abi.md);
    a private function's name that C or kiln's helpers already use is given kiln's user prefix
    (private names are kiln's to choose: a callee or a part of a traced ``select`` must not be
    C's ``select``), a public one's is refused by the emitter, a declaration's is C's."""
    attr = fn.attributes.get(C_SYMBOL_ATTR)
    if isinstance(attr, StringAttr):
        return attr.data
    name = fn.sym_name.data
    private = fn.sym_visibility is not None and fn.sym_visibility.data == "private"
    if private and fn.body.blocks and is_reserved_c_name(name):  # (a declaration names C's own)
        return USER_PREFIX + name
    return name


def signature_params(fn: func.FuncOp, arg_names: Sequence[str]) -> list[str]:
    """C parameter list of a func.func under kiln's ABI (docs/abi.md)."""
    params: list[str] = []
    for arg_type, name in zip(fn.function_type.inputs.data, arg_names, strict=True):
        if isinstance(arg_type, MemRefType):
            check_abi_memref(fn, arg_type)
            params.append(f"{element_c_type(arg_type)} *restrict {name}")
            params += [
                f"int64_t {name}_d{i}" for i, dim in enumerate(arg_type.get_shape()) if dim < 0
            ]
        else:
            params.append(f"{_scalar_c_type(fn, arg_type)} {name}")
    for i, res_type in enumerate(fn.function_type.outputs.data[1:], start=1):
        params.append(f"{_scalar_c_type(fn, res_type)} *restrict out{i}")
    return params or ["void"]


def return_type(fn: func.FuncOp) -> str:
    """C return type: void, or the first (scalar) result."""
    outputs = fn.function_type.outputs.data
    for res in outputs:
        if isinstance(res, MemRefType):
            raise op_error(
                fn,
                f"@{fn.sym_name.data} returns a memref; kiln's ABI passes results as "
                "trailing memref out-parameters (destination passing)",
            )
    return _scalar_c_type(fn, outputs[0]) if outputs else "void"


def check_abi_memref(fn: func.FuncOp, ty: MemRefType) -> None:
    """Only identity-layout (contiguous row-major) memrefs cross a function boundary."""
    if not isinstance(ty.layout, NoneAttr):
        raise op_error(
            fn,
            f"@{fn.sym_name.data} takes {ty}: memref arguments must have the identity "
            "(contiguous row-major) layout",
        )
    element_c_type(ty)


def _scalar_c_type(fn: func.FuncOp, ty: Attribute) -> str:
    try:
        return c_type(ty)
    except CEmitError as e:
        raise op_error(fn, f"@{fn.sym_name.data}: {e}") from None
