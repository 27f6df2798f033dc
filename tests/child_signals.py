"""What a test's child process needs of signals, whoever started the test run."""

from __future__ import annotations

import signal


def sigint_as_a_terminal_gives_it() -> None:
    """In the child (``preexec_fn``): Ctrl-C's default action, which a shell's background job
    (``pytest &``) starts without: SIGINT is ignored there, so Python installs no KeyboardInterrupt
    and a test of kiln's Ctrl-C message would see none."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
