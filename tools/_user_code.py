"""Which frames of a traceback are the user's code, for errors that kiln's command lines show.

A user's pass (``kiln-opt --load``) or function (``kiln compile``) that raises is the user's
bug: the user needs their own frames, not kiln's, xDSL's or Python's import machinery. A frame
is the user's when its module is not library code as AutoGraph decides it (kiln, xDSL, NumPy,
the standard library; kiln's examples are user code) and its file lies outside Python's own
folders (site-packages, the environment's scripts such as ``bin/kiln-opt``): a file the user
loaded and the modules it imports from its folder.
"""

from __future__ import annotations

import functools
import sysconfig
import traceback
from pathlib import Path
from types import FrameType


@functools.cache
def _python_folders() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    return tuple(Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib", "scripts"))


def is_user_frame(frame: FrameType) -> bool:
    """Whether ``frame`` runs the user's code (see the module docstring)."""
    from kiln.frontend.autograph.libraries import is_library_module  # on errors only: kiln-opt starts without it

    filename = frame.f_code.co_filename
    if is_library_module(str(frame.f_globals.get("__name__", ""))) or filename.startswith("<"):
        return False
    resolved = Path(filename).resolve()
    return not any(resolved.is_relative_to(folder) for folder in _python_folders())


def user_frames(exc: BaseException) -> traceback.StackSummary:
    """The user's frames of ``exc``'s traceback, outermost first (empty: none of the user's code ran)."""
    return traceback.StackSummary.extract((f, line) for f, line in traceback.walk_tb(exc.__traceback__) if is_user_frame(f))


def first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (some messages embed a whole printed op)."""
    return (str(exc).strip().splitlines() or [""])[0]


def describe(exc: BaseException, frames: traceback.StackSummary) -> str:
    """``Type: message`` and, below it, the user's frames as Python prints them (innermost last)."""
    return f"{type(exc).__name__}: {first_line(exc)}\n" + "".join(frames.format()).rstrip("\n")
