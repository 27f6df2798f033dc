"""kiln's on-disk cache of compiled artifacts (shared objects now, CUDA modules later).

Entries are content-addressed: the key hashes everything that determines the
artifact (source, compiler identity, flags, host, kiln's ABI version). Writers
build into a temporary file in the cache directory and ``os.replace`` it into
place, so concurrent processes never observe a half-written file and racing
builds of the same key both succeed.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

ABI_VERSION = 1
"""Bump when the calling convention of emitted code changes (docs/abi.md)."""


def cache_dir() -> Path:
    """``$KILN_CACHE_DIR``, else ``$XDG_CACHE_HOME/kiln``, else ``~/.cache/kiln`` (created)."""
    explicit = os.environ.get("KILN_CACHE_DIR")
    if explicit:
        path = Path(explicit)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        path = (Path(xdg) if xdg else Path.home() / ".cache") / "kiln"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_key(*parts: str | Iterable[str]) -> str:
    """sha256 over the parts (strings or sequences of strings) plus kiln's ABI version."""
    digest = hashlib.sha256(f"kiln-abi-{ABI_VERSION}".encode())
    for part in parts:
        items = [part] if isinstance(part, str) else list(part)
        for item in items:
            data = item.encode()
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
        digest.update(b"\x00end-part")
    return digest.hexdigest()


def entry(key: str, suffix: str) -> Path:
    """Path of a cache entry (which may not exist yet)."""
    return cache_dir() / f"{key}{suffix}"


def write_atomic(path: Path, build: Callable[[Path], None]) -> Path:
    """Run ``build(tmp)`` on a fresh temp path beside ``path``, then atomically move it into place."""
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        build(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    """Atomically write a text file (e.g. the C source kept beside its .so)."""
    return write_atomic(path, lambda tmp: tmp.write_text(text))
