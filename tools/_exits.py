"""How kiln's command lines end when the user stops them: Ctrl-C, or a reader of their output
that has gone (``kiln-opt ... | head -1``), both quietly, as Unix tools do."""

from __future__ import annotations

import os
import signal
import sys


def interrupted(prog: str) -> int:
    """Ctrl-C: one line, and the shell's status for SIGINT (130), not a traceback through xDSL."""
    print(f"{prog}: interrupted", file=sys.stderr)
    return 128 + signal.SIGINT


def output_closed() -> int:
    """The reader of stdout went away: no message, and the status of a tool SIGPIPE stopped
    (141). Standard output goes to /dev/null so that the flush at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE
