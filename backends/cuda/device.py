"""Is a CUDA device usable? Asked through the CUDA runtime library with ctypes (no build needed)."""

from __future__ import annotations

import ctypes
import functools

_RUNTIME_NAMES = ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "/usr/local/cuda/lib64/libcudart.so")


@functools.cache
def _runtime() -> ctypes.CDLL | None:
    for name in _RUNTIME_NAMES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


@functools.cache
def device_error() -> str | None:
    """None when a CUDA device is available, else why not (as ``cudaGetDeviceCount`` reports it)."""
    rt = _runtime()
    if rt is None:
        return "the CUDA runtime library libcudart.so was not found"
    count = ctypes.c_int(0)
    err = rt.cudaGetDeviceCount(ctypes.byref(count))
    if err != 0:
        rt.cudaGetErrorString.restype = ctypes.c_char_p
        return f"cudaGetDeviceCount: {rt.cudaGetErrorString(err).decode()} (error {err})"
    return None if count.value > 0 else "cudaGetDeviceCount: 0 devices"


def require_device() -> None:
    """Raise a clear RuntimeError when CUDA code cannot run here."""
    why = device_error()
    if why is not None:
        raise RuntimeError(f'target="cuda": no CUDA device is available ({why})')


@functools.cache
def device_arch() -> str | None:
    """``sm_XY`` of device 0, or None without a device."""
    if device_error() is not None:
        return None
    rt = _runtime()
    assert rt is not None
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    # cudaDevAttrComputeCapabilityMajor = 75, ...Minor = 76
    if rt.cudaDeviceGetAttribute(ctypes.byref(major), 75, 0) or rt.cudaDeviceGetAttribute(ctypes.byref(minor), 76, 0):
        return None
    return f"sm_{major.value}{minor.value}"
