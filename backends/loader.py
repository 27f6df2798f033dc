"""Load a compiled function from a shared object and call it with NumPy arrays and scalars.

Calls follow kiln's ABI (docs/abi.md): a memref parameter is the array's data
pointer followed by its dynamic (``?``) sizes; scalars are passed by value; the
first scalar result is returned, further ones through out-pointers. Arrays are
never copied: they must be C-contiguous and of the exact dtype, else
``TypeError``. Everything but the checks and the pointer reads is precomputed.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
)
from xdsl.ir import Attribute

from kiln.dialects.contracts import UNSIGNED_ATTR
from kiln.dialects.graph import check_error

_LIBRARIES: dict[Path, ctypes.CDLL] = {}

_CTYPES: dict[np.dtype[Any], type[Any]] = {
    np.dtype(np.bool_): ctypes.c_bool,
    np.dtype(np.int8): ctypes.c_int8,
    np.dtype(np.int16): ctypes.c_int16,
    np.dtype(np.int32): ctypes.c_int32,
    np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.uint8): ctypes.c_uint8,
    np.dtype(np.uint16): ctypes.c_uint16,
    np.dtype(np.uint32): ctypes.c_uint32,
    np.dtype(np.uint64): ctypes.c_uint64,
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
}


@dataclass(frozen=True)
class ScalarArg:
    """A scalar parameter passed by value."""

    dtype: np.dtype[Any]


@dataclass(frozen=True)
class MemrefArg:
    """A contiguous array parameter; ``None`` in ``shape`` is a dynamic dimension."""

    dtype: np.dtype[Any]
    shape: tuple[int | None, ...]


ArgKind = ScalarArg | MemrefArg


@dataclass(frozen=True)
class Signature:
    """What the loader needs to know about a compiled function's parameters and results."""

    args: tuple[ArgKind, ...]
    results: tuple[np.dtype[Any], ...]


def dtype_of(ty: Attribute, unsigned: bool = False) -> np.dtype[Any]:
    """The NumPy dtype of an MLIR scalar type (index is int64); ``unsigned`` for a value
    marked ``kiln.unsigned`` (a signless integer that holds NumPy's uintN)."""
    if isinstance(ty, IndexType):
        return np.dtype(np.int64)
    if isinstance(ty, IntegerType) and ty.width.data in (1, 8, 16, 32, 64):
        if ty.width.data == 1:
            return np.dtype(np.bool_)
        return np.dtype(f"{'u' if unsigned else ''}int{ty.width.data}")
    if isinstance(ty, Float16Type):
        return np.dtype(np.float16)
    if isinstance(ty, ComplexType) and isinstance(ty.element_type, Float32Type | Float64Type):
        return np.dtype(np.complex64 if isinstance(ty.element_type, Float32Type) else np.complex128)
    if isinstance(ty, Float32Type):
        return np.dtype(np.float32)
    if isinstance(ty, Float64Type):
        return np.dtype(np.float64)
    raise TypeError(f"type {ty} has no NumPy equivalent in kiln's ABI")


def _unsigned_marks(attrs: ArrayAttr | None, count: int) -> list[bool]:
    """Which of ``count`` arguments (results) carry ``kiln.unsigned`` in ``attrs``."""
    if attrs is None:
        return [False] * count
    return [isinstance(a, DictionaryAttr) and UNSIGNED_ATTR in a.data for a in attrs.data]


def signature_of(func_op: func.FuncOp) -> Signature:
    """The ABI signature of a func.func (its argument kinds and scalar result dtypes)."""
    args: list[ArgKind] = []
    inputs = func_op.function_type.inputs.data
    for ty, unsigned in zip(inputs, _unsigned_marks(func_op.arg_attrs, len(inputs)), strict=True):
        if isinstance(ty, MemRefType):
            if not isinstance(ty.layout, NoneAttr):
                raise TypeError(f"memref argument {ty} must have the identity layout")
            shape = tuple(d if d >= 0 else None for d in ty.get_shape())
            args.append(MemrefArg(dtype_of(ty.get_element_type(), unsigned), shape))
        else:
            args.append(ScalarArg(dtype_of(ty, unsigned)))
    results = []
    outputs = func_op.function_type.outputs.data
    for ty, unsigned in zip(outputs, _unsigned_marks(func_op.res_attrs, len(outputs)), strict=True):
        if isinstance(ty, MemRefType):
            raise TypeError("functions returning memrefs are not part of kiln's ABI")
        results.append(dtype_of(ty, unsigned))
    return Signature(tuple(args), tuple(results))


def _data_pointer_reader() -> Callable[[np.ndarray], int]:
    """Fastest way to read an array's data pointer, checked once against ``arr.ctypes.data``.

    NumPy's ``PyArrayObject`` starts with ``PyObject_HEAD`` followed by ``char *data``;
    reading that field is ~7x faster than ``arr.ctypes.data`` (~270 ns vs ~1.8 µs).
    """
    offset = object.__basicsize__
    read = ctypes.c_void_p.from_address

    def fast(arr: np.ndarray) -> int:
        return read(id(arr) + offset).value or 0

    probe = np.arange(4, dtype=np.float64)[1:]
    if fast(probe) == probe.ctypes.data:
        return fast
    return lambda arr: arr.__array_interface__["data"][0]


_data_pointer = _data_pointer_reader()


def _write_to_python_stdout(data: int, size: int) -> None:
    """Where ``krt.print`` output goes: Python's current ``sys.stdout`` (so it interleaves
    with Python's own prints and pytest's capsys sees it), flushed per print."""
    sys.stdout.write(ctypes.string_at(data, size).decode("utf-8", "replace"))
    sys.stdout.flush()


#: the output sink a library that prints exports (backends/c/print_runtime.py)
WRITE_HOOK = "kiln_write_hook"
_WRITE_HOOK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t)(_write_to_python_stdout)


def attach_output(so_path: Path, hook: int | None = None) -> None:
    """Send ``krt.print`` output of the library at ``so_path`` to Python's ``sys.stdout`` (a library
    opened by the native entry's own ``dlopen`` keeps the default sink, C's stdout, otherwise):
    through ``hook``, the address of a native sink that does so, when given, else through ctypes."""
    lib = _library(so_path)
    if hook is not None:
        _set_hook(lib, hook)


def _library(so_path: Path) -> ctypes.CDLL:
    path = Path(so_path).resolve()
    lib = _LIBRARIES.get(path)
    if lib is None:
        lib = _LIBRARIES[path] = ctypes.CDLL(str(path))
        _set_hook(lib, ctypes.cast(_WRITE_HOOK, ctypes.c_void_p).value)
    return lib


def _set_hook(lib: ctypes.CDLL, address: int | None) -> None:
    """Point the output sink of ``lib`` at ``address``, if it prints (docs/printing.md)."""
    try:
        hook = ctypes.c_void_p.in_dll(lib, WRITE_HOOK)
    except ValueError:
        return
    hook.value = address


def _check_array(value: Any, position: int, kind: MemrefArg) -> None:
    """Raise the TypeError explaining why ``value`` does not fit a memref parameter."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"argument {position}: expected a numpy array, got {type(value).__name__}")
    if value.dtype != kind.dtype:
        raise TypeError(f"argument {position}: expected dtype {kind.dtype}, got {value.dtype}")
    if not value.flags.c_contiguous:
        raise TypeError(f"argument {position}: array must be C-contiguous")
    want = "x".join("?" if n is None else str(n) for n in kind.shape) or "0-d"
    raise TypeError(f"argument {position}: expected shape {want}, got {value.shape}")


def _call_source(signature: Signature, extra_results: int) -> str:
    """Python source of a call wrapper specialised to the signature (checks inlined)."""
    params = [f"a{i}" for i in range(len(signature.args))]
    body: list[str] = []
    c_args: list[str] = []
    for i, kind in enumerate(signature.args):
        a = params[i]
        if isinstance(kind, ScalarArg):
            conv = "float" if kind.dtype.kind == "f" else "bool" if kind.dtype.kind == "b" else "int"
            c_args.append(f"{conv}({a})")
            continue
        shape_ok = [f"len({a}.shape) == {len(kind.shape)}"] + [
            f"{a}.shape[{d}] == {n}" for d, n in enumerate(kind.shape) if n is not None
        ]
        body.append(
            f"  if type({a}) is not ndarray or {a}.dtype is not dt{i} "
            f"or not {a}.flags.c_contiguous or not ({' and '.join(shape_ok)}):\n"
            f"    if not (isinstance({a}, ndarray) and {a}.dtype == dt{i} "
            f"and {a}.flags.c_contiguous and {' and '.join(shape_ok)}):\n"
            f"      check({a}, {i}, kinds[{i}])"
        )
        c_args.append(f"ptr({a})")
        c_args += [f"{a}.shape[{d}]" for d, n in enumerate(kind.shape) if n is None]
    if extra_results:
        body.append(f"  outs = [t() for t in extra]")
        c_args += [f"byref(outs[{k}])" for k in range(extra_results)]
        body.append(f"  first = cfunc({', '.join(c_args)})")
        body.append("  return (first, *(o.value for o in outs))")
    else:
        body.append(f"  return cfunc({', '.join(c_args)})")
    return f"def call({', '.join(params)}):\n" + "\n".join(body) + "\n"


def load_function(so_path: Path, name: str, signature: Signature) -> Callable[..., Any]:
    """A Python callable for function ``name`` in ``so_path`` following ``signature``.

    Returns ``None``, the single scalar result, or a tuple of scalar results.
    """
    cfunc = _library(so_path)[name]  # a fresh function object: argtypes are ours alone
    argtypes: list[Any] = []
    for kind in signature.args:
        if isinstance(kind, ScalarArg):
            argtypes.append(_CTYPES[kind.dtype])
        else:
            argtypes.append(ctypes.c_void_p)
            argtypes += [ctypes.c_int64] * sum(1 for n in kind.shape if n is None)
    result_types = [_CTYPES[dt] for dt in signature.results]
    argtypes += [ctypes.POINTER(t) for t in result_types[1:]]
    cfunc.argtypes = argtypes
    cfunc.restype = result_types[0] if result_types else None
    namespace: dict[str, Any] = {
        "cfunc": cfunc,
        "ndarray": np.ndarray,
        "ptr": _data_pointer,
        "check": _check_array,
        "kinds": signature.args,
        "extra": result_types[1:],
        "byref": ctypes.byref,
        **{f"dt{i}": kind.dtype for i, kind in enumerate(signature.args)},
    }
    exec(_call_source(signature, len(result_types) - 1), namespace)  # noqa: S102 (generated here)
    call = namespace["call"]
    call.__name__ = call.__qualname__ = name
    return _raising_failed_checks(so_path, call)


#: exported by a shared object whose code has run-time checks (krt.check, docs/abi.md)
CHECK_SYMBOL = "kiln_take_error"


def _raising_failed_checks(so_path: Path, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call``, raising ``ValueError`` (or the builtin exception its prefix names: graph.error_prefix)
    with the message of a run-time check that failed in it."""
    try:
        take = getattr(_library(so_path), CHECK_SYMBOL)
    except AttributeError:
        return call
    take.argtypes, take.restype = [], ctypes.c_char_p

    @functools.wraps(call)
    def checked(*args: Any) -> Any:
        result = call(*args)
        failed = take()
        if failed:
            raise check_error(failed.decode("utf-8", "replace"))
        return result

    return checked


def python_entry(
    native: Callable[..., Any], in_dtypes: list[np.dtype[Any]], outputs: list[tuple[np.dtype[Any], tuple[int, ...]]]
) -> Callable[..., Any]:
    """Entry semantics (see Backend.entry) over a loaded function that takes its outputs, for
    backends without a native entry (and the C backend's calls before its entry extension is built)."""

    def entry(*inputs: Any) -> Any:
        if len(inputs) != len(in_dtypes) or not all(
            type(v) is np.ndarray and v.dtype == dt and v.flags.c_contiguous and v.flags.aligned
            for v, dt in zip(inputs, in_dtypes)
        ):
            return NotImplemented
        outs = [np.empty(shape, dtype) for dtype, shape in outputs]
        native(*inputs, *outs)
        return outs[0] if len(outs) == 1 else (tuple(outs) or None)

    return entry
