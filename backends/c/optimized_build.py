"""The optimized (-O2) build of a tiered source, in a detached process of its own (backends/c/tiering.py).

A thread of the process that needs the build would tie that process's exit to it: Python joins
no daemon thread, so either the process waits at exit for a lowest-priority gcc (a short script
using 1.1 s of CPU did not exit within 120 s at load 30) or the build is lost with its temporary
file. So the build runs in a child Python, in a session of its own and at the lowest CPU priority,
doing what a first call at -O2 would: :func:`kiln.backends.c.toolchain.compile_shared` (the
checked, atomic cache write of backends/cache.py, so that two processes building one key both
succeed and no process sees a torn library). The parent reads its report when it is still
running; once it has exited, the child finishes alone and the next process finds the library.

The source travels as the ``.c`` file the cache keeps beside the optimized library (written
atomically before the child starts, so a parent exiting at once loses nothing); the report is
one JSON line on the child's stdout: the library's path or the error, and the warnings raised.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

from kiln.backends import cache
from kiln.backends.c import toolchain

#: the warnings the child may raise, re-raised in the parent under their own class
_CATEGORIES: dict[str, type[Warning]] = {
    category.__name__: category for category in (toolchain.CompilerBugWarning, cache.CacheWarning, RuntimeWarning)
}


def start(source: str) -> subprocess.Popen[bytes]:
    """Start the detached child building ``source`` at -O2 (it outlives this process if need be)."""
    c_path = cache.write_text_atomic(toolchain.shared_object_path(source).with_suffix(".c"), source)
    env = {
        **os.environ,
        "KILN_CACHE_DIR": str(cache.cache_dir()),  # the same cache, even a fallback temporary one
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),  # the kiln this process imported
    }
    return subprocess.Popen(
        [sys.executable, "-m", __name__, str(c_path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, start_new_session=True,  # not stopped by the terminal's Ctrl-C or hangup
    )


def result(child: subprocess.Popen[bytes]) -> Path:
    """Wait for ``child`` and return the optimized library's path, re-raising its warnings here;
    a failed build raises :class:`~kiln.backends.c.toolchain.CompileError` with its message."""
    out, err = child.communicate()
    try:
        report = json.loads(out)
    except ValueError:
        detail = err.decode(errors="replace").strip() or f"exit status {child.returncode}"
        raise toolchain.CompileError(f"the optimized build's process failed: {detail}") from None
    for category, message in report["warnings"]:
        warnings.warn(message, _CATEGORIES.get(category, RuntimeWarning), stacklevel=2)
    if report["error"] is not None:
        raise toolchain.CompileError(report["error"])
    return Path(report["path"])


def main(c_path: Path) -> None:
    """The child: build ``c_path``'s source at -O2 into the cache and report on stdout; a parent
    gone by then reads nothing, and the library is in the cache all the same."""
    os.nice(19)  # its Python as well as its gcc (``background``)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            path, error = str(toolchain.compile_shared(c_path.read_text(), background=True)), None
        except Exception as e:  # noqa: BLE001 (reported to the parent, which warns and keeps the quick build)
            path, error = None, str(e)
    report = {"path": path, "error": error, "warnings": [[w.category.__name__, str(w.message)] for w in caught]}
    try:
        os.write(sys.stdout.fileno(), (json.dumps(report) + "\n").encode())
    except OSError:  # the parent has exited: nobody to tell
        pass


if __name__ == "__main__":
    main(Path(sys.argv[1]))
