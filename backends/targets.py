"""Compilation targets of ``kiln.function(target=...)``: which stages lower to them, how their
source is emitted, built and loaded. A new backend (CUDA) adds one entry here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

if TYPE_CHECKING:
    from kiln.backends.loader import Signature


#: what a compiled function returns for each output (``Backend.entry``'s ``kinds``): the array, or
#: for a 0-d one what NumPy gives there, a NumPy scalar (``x.sum()``) or a Python number (``float(s)``)
OUTPUT_ARRAY, OUTPUT_NUMPY_SCALAR, OUTPUT_PYTHON_NUMBER = 0, 1, 2
#: a Python number of each type: the values of a kind flag besides the three above
OUTPUT_BOOL, OUTPUT_INT, OUTPUT_FLOAT, OUTPUT_COMPLEX = 3, 4, 5, 6
#: an output returned as the kind flag the call computed says (a value a staged ``if`` merged from
#: two kinds): the n-th such output takes the n-th OUTPUT_KIND_FLAG output (a 0-d int8, not returned)
OUTPUT_PER_CALL, OUTPUT_KIND_FLAG = -1, -2

#: what each argument of a call form (``Backend.call_form``) must be: an exact array, a NumPy scalar,
#: an exact list or tuple of so many exact arrays, or a Python constant equal to the traced one
PART_ARRAY, PART_SCALAR, PART_LIST, PART_TUPLE, PART_CONSTANT = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Backend:
    """One target: the stages after ``graph`` (names in ``kiln.pipelines.STAGES``), then
    ``emit(module) -> source``, ``build(source) -> shared object``, ``load(so, func_op) -> callable``."""

    name: str
    stages: tuple[str, ...]
    emit: Callable[[ModuleOp], str]
    build: Callable[[str], Path]
    load: Callable[[Path, func.FuncOp], Callable[..., Any]]
    #: ``entry(source, name, abi_signature, n_inputs, *, wait, kinds) -> (callable, final)``: a native
    #: callable taking the input arrays and returning the outputs, or NotImplemented when an
    #: argument does not fit exactly (kiln.backends.c.pyext); with ``wait=False``, possibly an
    #: interim one (final False) to use until the native one can be had. ``kinds`` (OUTPUT_*, one
    #: per output): what a final one returns for each; an interim one returns arrays. None: kiln
    #: calls ``load``'s function from Python.
    entry: Callable[..., tuple[Callable[..., Any], bool]] | None = None
    #: whether ``entry`` would now give a final entry (cheap: asked on calls that used an interim one)
    entry_ready: Callable[[], bool] | None = None
    #: ``call_form(entry, n_args, kwnames, parts, extra) -> callable``: a final ``entry`` called with a
    #: call's own arguments of one form (``n_args`` positional, then the keywords ``kwnames`` in that
    #: order; ``parts``, one ``(PART_*, length or constant)`` per argument), ``extra`` appended to its
    #: leaves, NotImplemented for another form (kiln.frontend.call_forms). None: no such callable.
    call_form: Callable[..., Callable[..., Any]] | None = None
    #: ``function_call(switches) -> callable or None``: ``kiln.Function.__call__`` made native once
    #: the backend's entries are (None before): the steps of the Python one, without its frame (it
    #: reads the function's ``_last_entry``, ``_last_keywords`` and ``_call``; ``switches``,
    #: ``((a module's vars(), name), ...)``, turn its hot path off while one is true). None: no such call.
    function_call: Callable[[tuple[tuple[dict[str, Any], str], ...]], Any] | None = None
    #: a backend keeping its own copies of kiln.Variable buffers (CUDA's device copies): the
    #: frontend tells it when Python creates, reads or writes one (kiln.frontend.variables.BufferSync)
    buffer_sync: Any = None
    #: told that a function is about to be lowered and built (not found in the caches): the C
    #: backend checks its precompiled headers in the background meanwhile
    prepare: Callable[[], None] | None = None


def _emit_c(module: ModuleOp) -> str:
    """The C emitter, imported on first use: a call whose C is in the plan cache never needs it
    (with the xDSL dialects it imports, 0.1-0.2 s of a process's start)."""
    from kiln.backends.c.emitter import emit_c

    return emit_c(module)


def _c_backend() -> Backend:
    from kiln.backends.c import pyext
    from kiln.backends.c.abi import c_symbol
    from kiln.backends.c.isa import resolve_isa, table
    from kiln.backends.c.toolchain import compile_shared, prefetch_prelude
    from kiln.backends.loader import load_function, signature_of

    pyext.prefetch()  # the first decoration starts getting the entry extension: tracing overlaps its build
    prefetch_prelude(table(resolve_isa()).includes)  # and the kernels' precompiled headers

    return Backend(
        name="c",
        stages=("tensor", "buffer", "loops"),
        emit=_emit_c,
        build=compile_shared,
        load=lambda so, fn: load_function(so, c_symbol(fn), signature_of(fn)),
        entry=pyext.build_entry,
        entry_ready=lambda: pyext.ready(),
        call_form=pyext.call_form,
        function_call=pyext.function_call,
        prepare=lambda: prefetch_prelude(table(resolve_isa()).includes, check=True),
    )


def _cuda_backend() -> Backend:
    from kiln.backends.cuda.emitter import emit_cuda
    from kiln.backends.cuda.toolchain import compile_cuda, load_cuda

    from kiln.backends.cuda import residency

    return Backend(
        name="cuda",
        stages=("tensor", "buffer", "parallel", "gpu"),
        emit=emit_cuda,
        build=compile_cuda,
        load=load_cuda,
        buffer_sync=residency.REGISTRY,
    )


#: target name -> factory (imported on first use)
BACKENDS: dict[str, Callable[[], Backend]] = {
    "c": _c_backend,
    "cuda": _cuda_backend,
}

_loaded: dict[str, Backend] = {}


def get_backend(name: str) -> Backend:
    """The backend for ``target=name``; ``ValueError`` naming the known targets otherwise."""
    if name not in BACKENDS:
        raise ValueError(f"unknown target {name!r}; known targets: {', '.join(BACKENDS)}")
    if name not in _loaded:
        _loaded[name] = BACKENDS[name]()
    return _loaded[name]
