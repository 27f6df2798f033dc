"""Compile emitted CUDA with ``nvcc`` into a shared object in kiln's on-disk cache, and load it.

Flags, and why:

* ``-O3``; ``--fmad=false``: no a*b+c → fma contraction, so + - * / round like NumPy
  (the CUDA counterpart of the C backend's ``-ffp-contract=off``); no ``--use_fast_math``.
* ``-arch``: ``$KILN_CUDA_ARCH``, else the device's own ``sm_XY``, else ``sm_80`` (whose
  embedded PTX is JIT-compiled on newer GPUs). The architecture is part of the cache key.
* ``--shared -Xcompiler -fPIC,-fvisibility=hidden,-fwrapv``: a shared object exporting only the
  entry points, with MLIR's wrapping signed arithmetic in host code.
* ``-Xlinker -Bsymbolic``: the library's own functions bind to themselves, so an entry point
  named like a libc function (``step``) is not preempted by it (as ``-Wl,-Bsymbolic`` in C).
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xdsl.dialects import func

from kiln.backends import cache
from kiln.backends.cuda import residency
from kiln.backends.cuda.device import device_arch, require_device

DEFAULT_ARCH = "sm_80"
OPT_FLAGS: tuple[str, ...] = ("-O3", "--fmad=false")
_SHARED_FLAGS: tuple[str, ...] = (
    "--shared", "-Xcompiler", "-fPIC,-fvisibility=hidden,-fwrapv", "-Xlinker", "-Bsymbolic",
)


class CudaCompileError(RuntimeError):
    """nvcc rejected the source, or is missing; the message has its stderr and the kept source path."""


def nvcc() -> str:
    """The nvcc command: ``$NVCC``, else ``nvcc`` on PATH, else /usr/local/cuda/bin/nvcc."""
    explicit = os.environ.get("NVCC")
    if explicit:
        return explicit
    found = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    if found is None:
        raise CudaCompileError('target="cuda": nvcc was not found (set $NVCC or put it on PATH)')
    return found


def arch() -> str:
    """The GPU architecture compiled for."""
    return os.environ.get("KILN_CUDA_ARCH") or device_arch() or DEFAULT_ARCH


@functools.cache
def nvcc_identity(cmd: str) -> str:
    """Last line of ``nvcc --version`` (the release): part of the cache key."""
    try:
        out = subprocess.run([cmd, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise CudaCompileError(f"nvcc {cmd!r} is not usable: {e}") from e
    return out.strip().splitlines()[-1] if out.strip() else cmd


def nvcc_command(source: Path, out: Path, *, compile_only: bool = False) -> list[str]:
    """The nvcc command line building ``source`` (a shared object, or an object file with ``compile_only``)."""
    mode = ["-c", "-Xcompiler", "-fPIC"] if compile_only else list(_SHARED_FLAGS)
    return [nvcc(), *OPT_FLAGS, f"-arch={arch()}", *mode, "-o", str(out), str(source)]


def run_nvcc(cmd: list[str], source: Path) -> None:
    """Run nvcc; CudaCompileError with its diagnostics on failure."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CudaCompileError(
            f"CUDA compilation failed (exit {proc.returncode}); source kept at {source}\n"
            f"command: {' '.join(cmd)}\n{proc.stderr.strip()}"
        )


def compile_cuda(source: str) -> Path:
    """Path of a shared object built from CUDA ``source``; a cache hit runs no compiler."""
    cmd_name = nvcc()
    gpu_arch = arch()
    key = cache.cache_key(source, nvcc_identity(cmd_name), OPT_FLAGS, _SHARED_FLAGS, f"arch={gpu_arch}")
    so_path = cache.entry(key, ".so")
    if cache.is_checked(so_path):
        return so_path
    cu_path = cache.write_text_atomic(cache.entry(key, ".cu"), source)
    cache.write_checked(so_path, lambda tmp: run_nvcc(nvcc_command(cu_path, tmp), cu_path))
    return so_path


def load_cuda(so: Path, fn: func.FuncOp) -> Callable[..., Any]:
    """The entry point of ``fn`` from ``so``, raising RuntimeError when a CUDA call failed in it."""
    from kiln.backends.loader import load_function, signature_of

    require_device()
    name = fn.sym_name.data
    native = load_function(so, name, signature_of(fn))
    library = ctypes.CDLL(str(so))
    residency.attach(library)
    last_error = library.kiln_cuda_last_error
    last_error.restype = ctypes.c_char_p

    def call(*args: Any) -> Any:
        result = native(*args)
        error = last_error()
        if error:
            raise RuntimeError(f'target="cuda": {name}: {error.decode()}')
        return result

    return call
