"""Progress of a long compile on stderr: which stage it is in and how far along.

A first call that traces and compiles is one *session* (:func:`compiling`, opened by
``kiln.Function``); the compiler reports its stages (:func:`stage`: tracing, each lowering
stage, emitting C, compiling C) and the passes within a lowering stage (:func:`step`). Nothing
is shown unless the session runs longer than :data:`THRESHOLD_S`: then one line updated in
place on a terminal, one line per stage otherwise, and a last line saying how long it took.
``KILN_PROGRESS=0`` turns it off. Reports outside a session (``cf.source``, ``kiln-opt``) are
ignored, and so is a session opened inside another (a function called while tracing one).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: seconds a compile runs before its progress shows (tests lower it)
THRESHOLD_S = 2.0
#: seconds between refreshes of the line on a terminal
REFRESH_S = 0.5

_local = threading.local()

TRACING = "tracing"


def lowering(stage: str) -> str:
    return f"lowering to {stage}"


def emitting(target: str) -> str:
    return f"emitting {target.upper()}"


def building(target: str) -> str:
    return f"compiling {target.upper()}"


def stages_of(target: str, lowering_stages: tuple[str, ...]) -> tuple[str, ...]:
    """The stages of a compile for ``target``, in order (what :func:`stage` reports)."""
    return (TRACING, *map(lowering, lowering_stages), emitting(target), building(target))


class _Session:
    """One compile's progress: its stages, and the watcher thread that shows them once it runs long."""

    def __init__(self, name: str, stages: tuple[str, ...]) -> None:
        self.name, self.stages = name, stages
        self.start = time.perf_counter()
        self.index, self.stage, self.detail = 0, "", ""
        self.shown = -1  # the stage index last printed (line mode)
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.watcher: threading.Thread | None = None

    def enter(self, stage: str) -> None:
        with self.lock:  # a warm start goes from tracing to compiling: its place, not a count
            self.index = self.stages.index(stage) + 1 if stage in self.stages else self.index + 1
            self.stage, self.detail = stage, ""
        if self.watcher is None:  # the first stage: from now on something may take long
            self.watcher = threading.Thread(target=self._watch, daemon=True)
            self.watcher.start()
        self._show()

    def step(self, detail: str) -> None:
        with self.lock:
            self.detail = detail
        if self.tty:
            self._show()

    def close(self, failed: bool) -> None:
        self.done.set()
        if self.watcher is not None:
            self.watcher.join()
        with self.lock:
            if self.shown < 0:
                return
            start, clear = ("\r", "\x1b[K") if self.tty else ("", "")
            if failed:  # the error says the rest
                _write(start + clear)
            else:
                _write(f"{start}kiln: compiled {self.name} in {self._elapsed():.1f} s{clear}\n")

    def _elapsed(self) -> float:
        return time.perf_counter() - self.start

    def _watch(self) -> None:
        """Show the stage once the threshold passes (a stage may run long), then, on a terminal,
        refresh the line's time."""
        if self.done.wait(max(0.0, THRESHOLD_S - self._elapsed())):
            return
        self._show()
        while self.tty and not self.done.wait(REFRESH_S):
            self._show()

    def _show(self) -> None:
        """The line, once past the threshold: rewritten on a terminal, else once per stage."""
        with self.lock:
            if self.done.is_set() or self._elapsed() < THRESHOLD_S or (not self.tty and self.shown == self.index):
                return
            where = f"{self.stage} ({self.index}/{len(self.stages)})" + (f", {self.detail}" if self.detail else "")
            line = f"kiln: compiling {self.name}: {where}, {self._elapsed():.1f} s"
            _write(f"\r{line}\x1b[K" if self.tty else line + "\n")
            self.shown = self.index


def _write(text: str) -> None:
    if text:
        sys.stderr.write(text)
        sys.stderr.flush()


@contextmanager
def compiling(name: str, stages: tuple[str, ...]) -> Iterator[None]:
    """A compile session of function ``name`` through ``stages`` (:func:`stages_of`); none inside
    another, or with ``KILN_PROGRESS=0``."""
    if getattr(_local, "session", None) is not None or os.environ.get("KILN_PROGRESS") == "0":
        yield
        return
    session = _local.session = _Session(name, stages)
    failed = True
    try:
        yield
        failed = False
    finally:
        _local.session = None
        session.close(failed)


def stage(name: str) -> None:
    """The compile enters stage ``name`` (ignored outside a session)."""
    session = getattr(_local, "session", None)
    if session is not None:
        session.enter(name)


def step(detail: str) -> None:
    """Where the compile is within its stage (a pass's name and number)."""
    session = getattr(_local, "session", None)
    if session is not None:
        session.step(detail)
