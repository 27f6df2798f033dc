"""Native entry points: a compiled kiln function called from Python at close to C-call cost.

Two pieces, so that no kernel compile pays for ``Python.h`` and the NumPy headers (~0.25 s
of gcc time):

* ``kiln_entry.c``, a CPython extension shared by every function, built once per machine
  (Python, NumPy, compiler and host are in its cache key) and imported from the cache.
  Its ``Entry`` type is a vectorcall callable that checks NumPy arguments, allocates the
  outputs and calls a kernel through a packed trampoline; NotImplemented means "an argument
  does not fit exactly", and the caller then converts or retraces (see kiln_entry.c).
* the trampoline ``const char *kiln_packed_<name>(void *const *slots)``, plain C appended to the
  kernel's source when it is compiled (``ConcreteFunction.source`` stays the kernel alone;
  the cache's ``<key>.c`` beside the ``.so`` shows both). Slots follow docs/abi.md: each
  array's data pointer, then its dynamic sizes; then each output's data pointer. It returns
  the message of a failed run-time check (``krt.check``), which the entry raises as ValueError.
"""

from __future__ import annotations

import atexit
import importlib.machinery
import importlib.util
import sys
import sysconfig
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from kiln.backends.c import tiering, toolchain
from kiln.backends.c.abi import USER_PREFIX
from kiln.backends.c.parts import END, MAIN, guard
from kiln.backends.loader import CHECK_SYMBOL, WRITE_HOOK, MemrefArg, Signature, attach_output, load_function, python_entry

_SOURCE = Path(__file__).with_name("kiln_entry.c")
_MODULE_NAME = "kiln._kiln_entry"

_lock = threading.Lock()
_builder: threading.Thread | None = None
_module: ModuleType | None = None


def _source_and_flags() -> tuple[str, tuple[str, ...]]:
    # The versions are part of the source, hence of the cache key: the ABI of both may change.
    source = f"/* for Python {sys.version}, NumPy {np.__version__} */\n" + _SOURCE.read_text()
    return source, ("-O2", f"-I{sysconfig.get_paths()['include']}", f"-I{np.get_include()}")


def _build(background: bool = False) -> Path:
    """The extension's shared object, from the cache or compiled now (~0.3 s, once per machine)."""
    source, flags = _source_and_flags()
    return toolchain.compile_shared(source, opt_flags=flags, background=background)


def ready() -> bool:
    """Whether :func:`module` would return without compiling: loaded, built by the background
    builder (asked on every call made while it builds, so this must stay cheap), or in the cache."""
    if _module is not None:
        return True
    builder = _builder
    if builder is not None:
        return not builder.is_alive()
    source, flags = _source_and_flags()
    return toolchain.shared_object_path(source, opt_flags=flags).exists()


def prefetch() -> None:
    """Start getting the extension in the background, so that the first compile on a machine
    runs its gcc in parallel with the kernel's. A process that ends sooner waits for the build at
    exit, so the extension is in the cache for the next one (a warm start)."""
    global _builder
    with _lock:
        if _module is None and _builder is None:
            _builder = threading.Thread(target=_build, kwargs={"background": True}, daemon=True)
            _builder.start()
            atexit.register(_builder.join)


def module() -> ModuleType:
    """The imported extension."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        builder = _builder
    if builder is not None:
        builder.join()
    with _lock:
        if _module is None:
            path = str(_build())
            loader = importlib.machinery.ExtensionFileLoader(_MODULE_NAME, path)
            spec = importlib.util.spec_from_file_location(_MODULE_NAME, path, loader=loader)
            assert spec is not None
            mod = importlib.util.module_from_spec(spec)
            loader.exec_module(mod)
            _module = mod
        return _module


def trampoline_name(name: str) -> str:
    return f"kiln_packed_{name}"


def trampoline(name: str, signature: Signature, can_fail: bool = False) -> str:
    """C for ``kiln_packed_<name>``: unpack the slots into the kernel's parameters, call it and
    return the message of a failed run-time check (``can_fail``: the kernel has ``krt.check``s),
    else NULL."""
    if signature.results or not all(isinstance(kind, MemrefArg) for kind in signature.args):
        raise NotImplementedError(f"{name}: native entries take arrays only and return nothing")
    params: list[str] = []
    for kind in signature.args:
        assert isinstance(kind, MemrefArg)
        params.append(f"kiln_slots[{len(params)}]")
        params += [f"(int64_t)(intptr_t)kiln_slots[{len(params) + k}]" for k in range(sum(n is None for n in kind.shape))]
    error = "kiln_take_error()" if can_fail else "0"
    return (
        f"\n{guard(MAIN)}\n"
        f"__attribute__((visibility(\"default\"))) const char *{trampoline_name(name)}(void *const *kiln_slots);\n"
        f"const char *{trampoline_name(name)}(void *const *kiln_slots) {{\n  {name}({', '.join(params)});\n"
        f"  return {error};\n}}\n{END}\n"
    )


def _mentions(source: str, word: str) -> bool:
    """Whether ``word`` occurs in ``source`` as a whole identifier (not in ``user_kiln_take_error``).
    ``str.find``, not ``re.search(r"\bword\b")``: the regex took 5 s on a 60 MB source of
    NPBench's stockham_fft (its constant tables), this takes milliseconds."""
    start = source.find(word)
    while start != -1:
        end = start + len(word)
        before = source[start - 1] if start else " "
        after = source[end] if end < len(source) else " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return True
        start = source.find(word, end)
    return False


def build_entry(
    source: str, name: str, signature: Signature, n_inputs: int, *, wait: bool = True, kinds: Sequence[int] = ()
) -> tuple[Callable[..., Any], bool]:
    """Compile ``source`` with its trampoline (cached by content) and bind an ``Entry`` to kernel
    ``name``: its first ``n_inputs`` memref parameters are inputs, the rest outputs it allocates,
    returned as ``kinds`` says (kiln.backends.targets.OUTPUT_*; arrays when empty).
    Returns (entry, final). On the first compile on a machine the extension is still being built
    (~0.3 s, in parallel); with ``wait=False`` the answer is then at once an interim entry through
    ctypes (not final: slower calls, the same results as arrays) instead of waiting for the extension.
    A large source may be built quickly first, the entry retargeted to its optimized build later
    (backends/c/tiering.py)."""
    prefetch()
    can_fail = _mentions(source, CHECK_SYMBOL)
    full = source + trampoline(name, signature, can_fail)
    quick = tiering.quick_build(full) if wait or ready() else None  # (an interim entry is replaced anyway)
    so_path = quick if quick is not None else toolchain.compile_shared(full)
    if not wait and not ready():
        kinds = [kind for kind in signature.args if isinstance(kind, MemrefArg)]
        if any(n is None for kind in kinds[n_inputs:] for n in kind.shape):  # as the native entry
            raise NotImplementedError(f"{name}: outputs with dynamic shapes (kiln.frontend.dynamic_shapes calls those)")
        outputs = [(kind.dtype, tuple(int(n) for n in kind.shape)) for kind in kinds[n_inputs:]]
        native = load_function(so_path, name, signature)
        return python_entry(native, [kind.dtype for kind in kinds[:n_inputs]], outputs), False
    mod = module()
    prints = _mentions(source, WRITE_HOOK)

    def address(path: Path) -> int:
        if prints:  # (the extension's sink: a ctypes callback costs ~0.5 us a print)
            attach_output(path, mod.write_hook())
        return mod.symbol(str(path), trampoline_name(name))

    specs = [(kind.dtype, tuple(-1 if n is None else n for n in kind.shape)) for kind in signature.args]
    scalars = (tuple(kinds),) if any(kinds) else ()
    entry = mod.Entry(address(so_path), tuple(specs[:n_inputs]), tuple(specs[n_inputs:]), *scalars)
    if quick is not None:  # the optimized build replaces the quick one when it is ready
        user_name = name.removeprefix(USER_PREFIX)
        tiering.optimize_later(full, user_name, lambda optimized: entry.retarget(address(optimized)))
    return entry, True


def call_form(
    entry: Callable[..., Any], n_args: int, kwnames: tuple[str, ...], parts: tuple[tuple[int, Any], ...],
    extra: tuple[Any, ...],
) -> Callable[..., Any]:
    """``entry`` (a final one of :func:`build_entry`) called with the arguments of one call form
    (kiln.backends.targets.Backend.call_form); it follows ``entry`` when that is retargeted."""
    return module().Form(entry, n_args, kwnames, parts, extra)


def function_call(switches: tuple[tuple[dict[str, Any], str], ...]) -> Any:
    """``kiln.Function.__call__`` as the extension's ``HotPath`` (kiln.backends.targets.Backend.
    function_call), None while the extension is not loaded."""
    return _module.HotPath(switches) if _module is not None else None
