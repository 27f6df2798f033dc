"""Device-resident ``kiln.Variable`` buffers: one device copy per variable, kept between calls.

The protocol (docs/cuda.md, "Variables on the device"):

* This module owns one process-wide table of ``kiln_resident {host, dev, bytes, state}``
  entries (the C side is in :mod:`kiln.backends.cuda.runtime`); every loaded CUDA library's
  ``kiln_cuda_residents`` points at it, so all functions share one device copy per variable.
* A variable's buffer is entered when the variable is created (``state = HOST_NEWER``, no
  device memory yet), through the ``kiln.frontend.variables`` sync hooks (the frontend
  installs :data:`REGISTRY` as one when it loads the CUDA backend: ``Backend.buffer_sync``).
* A host entry point looks its memref parameters up by host pointer. A registered one is made
  current (allocated on first use; copied to the device only when ``HOST_NEWER``), marked
  ``DEVICE_NEWER`` when the function may write it, and neither copied back nor freed.
* Python reading the variable (``numpy()``, ``read_value()``, ``np.asarray``) first copies a
  ``DEVICE_NEWER`` buffer back (→ ``IN_SYNC``); an eager write marks it ``HOST_NEWER``.
* When the variable dies, its device copy is freed and the entry dropped.

Calls are not synchronised between Python threads (as for the C backend's in-place writes).
"""

from __future__ import annotations

import ctypes
import weakref
from typing import Any

import numpy as np

HOST_NEWER, IN_SYNC, DEVICE_NEWER = 0, 1, 2


class Resident(ctypes.Structure):
    """One buffer: ``kiln_resident`` in the emitted C."""

    _fields_ = [("host", ctypes.c_void_p), ("dev", ctypes.c_void_p), ("bytes", ctypes.c_size_t), ("state", ctypes.c_int64)]


class Table(ctypes.Structure):
    """``kiln_resident_table``: its address is stable, ``entries`` is replaced when it grows."""

    _fields_ = [("count", ctypes.c_int64), ("entries", ctypes.POINTER(Resident))]


class Registry:
    """The process's table plus the library whose exported helpers copy back and free."""

    def __init__(self) -> None:
        self.table = Table(0, None)
        self._storage: ctypes.Array[Resident] = (Resident * 0)()
        self._library: ctypes.CDLL | None = None

    def attach(self, library: ctypes.CDLL) -> None:
        """Point a freshly loaded CUDA library at the table (its helpers serve later syncs)."""
        ctypes.c_void_p.in_dll(library, "kiln_cuda_residents").value = ctypes.addressof(self.table)
        sync = library.kiln_cuda_sync_resident
        sync.argtypes, sync.restype = [ctypes.POINTER(Resident), ctypes.c_int], ctypes.c_int
        library.kiln_cuda_last_error.restype = ctypes.c_char_p
        self._library = library

    def _find(self, host: int) -> int:
        for i in range(self.table.count):
            if self._storage[i].host == host:
                return i
        return -1

    def created(self, buffer: np.ndarray) -> None:
        """Enter a variable's buffer (freed from the device when the buffer dies)."""
        count = self.table.count
        if count == len(self._storage):
            grown = (Resident * max(8, 2 * count))()
            ctypes.memmove(grown, self._storage, count * ctypes.sizeof(Resident))
            self._storage = grown
            self.table.entries = ctypes.cast(grown, ctypes.POINTER(Resident))
        host = buffer.ctypes.data
        self._storage[count] = Resident(host, None, buffer.nbytes, HOST_NEWER)
        self.table.count = count + 1
        weakref.finalize(buffer, self._dropped, host).atexit = False

    def _sync(self, i: int, release: bool) -> None:
        assert self._library is not None, "a device copy exists only once a CUDA library is loaded"
        if self._library.kiln_cuda_sync_resident(ctypes.byref(self._storage[i]), int(release)):
            raise RuntimeError(f'target="cuda": variable: {self._library.kiln_cuda_last_error().decode()}')

    def before_read(self, buffer: np.ndarray) -> None:
        """Copy the device copy back when a function wrote it since Python last looked."""
        i = self._find(buffer.ctypes.data)
        if i >= 0 and self._storage[i].state == DEVICE_NEWER:
            self._sync(i, release=False)

    def after_write(self, buffer: np.ndarray) -> None:
        """Python wrote the host copy: the next call copies it to the device."""
        i = self._find(buffer.ctypes.data)
        if i >= 0:
            self._storage[i].state = HOST_NEWER

    def _dropped(self, host: int) -> None:
        i = self._find(host)
        if i < 0:
            return
        if self._storage[i].dev:
            self._storage[i].state = IN_SYNC
            self._sync(i, release=True)
        last = self.table.count - 1
        self._storage[i] = Resident(*(getattr(self._storage[last], f) for f, _ in Resident._fields_))
        self.table.count = last

    def state(self, buffer: np.ndarray) -> int | None:
        """The residency state of a variable buffer (None when not entered): tests and debugging."""
        i = self._find(buffer.ctypes.data)
        return None if i < 0 else int(self._storage[i].state)


REGISTRY = Registry()


def attach(library: ctypes.CDLL) -> None:
    """Share the process's residency table with a loaded CUDA library."""
    REGISTRY.attach(library)


def device_state(variable: Any) -> int | None:
    """``HOST_NEWER``/``IN_SYNC``/``DEVICE_NEWER`` of a kiln.Variable's device copy, or None."""
    return REGISTRY.state(variable.buffer)
