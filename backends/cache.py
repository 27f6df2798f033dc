"""kiln's on-disk cache of compiled artifacts (shared objects now, CUDA modules later).

Entries are content-addressed: the key hashes everything that determines the
artifact (source, compiler identity, flags, host, kiln's ABI version). Writers
build into a temporary file in the cache directory and ``os.replace`` it into
place, so concurrent processes never observe a half-written file and racing
builds of the same key both succeed.

An entry that is loaded or trusted (a shared object, a plan) also records the sha256 of its
content in ``<entry>.sha256``, written before the entry itself, and is checked against it
before use: a file damaged since (truncated, emptied, edited) would crash the process that
dlopens it or silently change answers, so it is rebuilt instead, with a :class:`CacheWarning`
naming it. A cache directory that cannot be used falls back to a private temporary one.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

from kiln import __version__

ABI_VERSION = 5
"""Bump when the calling convention of emitted code changes (docs/abi.md)."""

LAYOUT_VERSION = 2
"""Bump when the files of an entry change (2: the ``.sha256`` beside each checked entry)."""


class CacheWarning(RuntimeWarning):
    """kiln's cache could not be used as configured, or one of its entries was damaged and is rebuilt."""


def cache_dir() -> Path:
    """``$KILN_CACHE_DIR``, else ``$XDG_CACHE_HOME/kiln``, else ``~/.cache/kiln`` (created);
    when that cannot be used, a private temporary directory (one warning per process)."""
    explicit = os.environ.get("KILN_CACHE_DIR")
    if explicit:
        path = Path(explicit)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        path = (Path(xdg) if xdg else Path.home() / ".cache") / "kiln"
    return _usable_dir(path)


@functools.cache
def _usable_dir(path: Path) -> Path:
    """``path``, created, once a file could be made in it; else the fallback, with a warning."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
        return path
    except OSError as e:
        fallback = _fallback_dir()
        warnings.warn(
            f"kiln: the cache directory {path} cannot be used ({e.strerror or e}); compiled code is "
            f"cached in {fallback} instead. Set KILN_CACHE_DIR to a writable directory.",
            CacheWarning,
            stacklevel=2,
        )
        return fallback


def _fallback_dir() -> Path:
    """``$TMPDIR/kiln-cache-<uid>`` when it is this user's alone (so later processes reuse it),
    else a fresh private directory: a directory others can write to could hand us their code."""
    shared = Path(tempfile.gettempdir()) / f"kiln-cache-{os.getuid()}"
    try:
        shared.mkdir(mode=0o700, exist_ok=True)
        st = shared.lstat()
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022:
            return shared
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="kiln-cache-"))


def cache_key(*parts: str | Iterable[str]) -> str:
    """sha256 over the parts (strings or sequences of strings) plus kiln's ABI version."""
    digest = hashlib.sha256(f"kiln-abi-{ABI_VERSION}-layout-{LAYOUT_VERSION}".encode())
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
    path.parent.mkdir(parents=True, exist_ok=True)  # the cache may have been removed meanwhile
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


def _digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_checked(path: Path, build: Callable[[Path], None]) -> Path:
    """:func:`write_atomic`, recording the content's sha256 first (so that a process stopped
    between the two leaves a digest without an entry, which reads as absent, not damaged)."""

    def build_and_record(tmp: Path) -> None:
        build(tmp)
        write_text_atomic(_digest_path(path), _sha256(tmp.read_bytes()))

    return write_atomic(path, build_and_record)


def read_checked(path: Path) -> bytes | None:
    """The content of entry ``path`` when it matches its recorded sha256; None when it is absent,
    or damaged (then with a :class:`CacheWarning` naming it: the caller rebuilds it)."""
    data, damage = _read_checked(path)
    if damage:
        _warn_damaged(path, damage)
    return data


def is_checked(path: Path) -> bool:
    """Whether entry ``path`` exists and matches its recorded sha256 (see :func:`read_checked`)."""
    data, damage = _read_checked(path)
    if damage:
        _warn_damaged(path, damage)
    return data is not None


def is_checked_since(path: Path) -> bool:
    """:func:`is_checked` for a large entry checked by every process that uses it (a 20 MB
    precompiled header: ~25 ms of sha256): after a sound check, the entry's stat (device, inode,
    size, modification and change times) and its recorded sha256 are kept in ``<entry>.checked``,
    and a later process finding both unchanged trusts it unread. Any write to the entry, or its
    replacement, changes its change time (which no program can set back), so a damaged or
    replaced entry is read and checked as before; so is one checked by another kiln version."""
    stamp = path.with_name(path.name + ".checked")
    seen = _stat_stamp(path)
    if seen is not None:
        try:
            if stamp.read_text() == seen:
                return True
        except (OSError, UnicodeDecodeError):
            pass
    if not is_checked(path):
        stamp.unlink(missing_ok=True)
        return False
    seen = _stat_stamp(path)
    if seen is not None:
        write_text_atomic(stamp, seen)
    return True


def _stat_stamp(path: Path) -> str | None:
    """What identifies ``path``'s content without reading it: its stat, its recorded sha256 and
    kiln's version (None when either file is missing)."""
    try:
        st = path.stat()
        recorded = _digest_path(path).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None
    identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return f"kiln {__version__} layout {LAYOUT_VERSION} {' '.join(map(str, identity))} {recorded}\n"


def _read_checked(path: Path) -> tuple[bytes | None, str | None]:
    """(content, None) for a sound entry, (None, None) for an absent one, (None, why) for a damaged one."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, f"unreadable: {e.strerror or e}"
    try:
        recorded = _digest_path(path).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None, "its recorded sha256 is missing or unreadable"
    if _sha256(data) != recorded:
        return None, "its content does not match its recorded sha256"
    return data, None


def _warn_damaged(path: Path, why: str) -> None:
    warnings.warn(f"kiln: cache entry {path} is damaged ({why}); rebuilding it", CacheWarning, stacklevel=3)
