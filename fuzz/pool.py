"""Worker processes with a watchdog: a program that hangs or kills its process is a ``crash``.

:class:`Pool` keeps ``jobs`` workers (:mod:`kiln.fuzz.worker`) busy with program
files. A worker that exceeds the time limit is killed with its process group
(the C compiler included) and replaced; one that dies (a signal, an exit)
yields a crash naming the signal and the tail of what it wrote to stderr.
Workers are also replaced every ``recycle`` programs, which bounds the memory
that traced modules and loaded libraries accumulate.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from kiln.fuzz.check import Outcome


@dataclass
class _Worker:
    proc: subprocess.Popen[bytes]
    log: IO[str]
    log_path: str
    done: int = 0
    task: tuple[Any, str] | None = None
    started: float = 0.0
    log_offset: int = 0
    #: the program runs under kiln now (before: NumPy's eager runs)
    in_kiln: bool = False
    buffer: str = field(default="")


class Pool:
    """Check program files in parallel child processes, each with a time limit."""

    def __init__(self, jobs: int = 1, timeout: float = 60.0, cache_dir: str | None = None, recycle: int = 150) -> None:
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self.recycle = recycle
        self.env = dict(os.environ)
        if cache_dir:
            self.env["KILN_CACHE_DIR"] = cache_dir
        self.env.setdefault("PYTHONHASHSEED", "0")
        self._logs = tempfile.mkdtemp(prefix="kiln-fuzz-logs-")
        self._workers: list[_Worker] = []
        self._sel = selectors.DefaultSelector()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _spawn(self) -> _Worker:
        log_path = os.path.join(self._logs, f"worker-{len(self._workers)}-{time.monotonic_ns()}.log")
        log = open(log_path, "w+")
        proc = subprocess.Popen(
            [sys.executable, "-m", "kiln.fuzz.worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=self.env, start_new_session=True,
        )
        w = _Worker(proc, log, log_path)
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        self._sel.register(proc.stdout, selectors.EVENT_READ, w)
        self._workers.append(w)
        return w

    def _kill(self, w: _Worker) -> None:
        try:
            self._sel.unregister(w.proc.stdout)  # type: ignore[arg-type]
        except (KeyError, ValueError):
            pass
        try:
            os.killpg(w.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        w.proc.wait()
        for stream in (w.proc.stdin, w.proc.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        w.log.close()
        self._workers.remove(w)

    def _stderr_tail(self, w: _Worker) -> str:
        w.log.flush()
        text = Path(w.log_path).read_text(errors="replace")[w.log_offset:]
        return text[-3000:]

    def _send(self, w: _Worker, key: Any, path: str) -> None:
        w.task = (key, path)
        w.in_kiln = False
        w.started = time.monotonic()
        w.log.flush()
        w.log_offset = os.path.getsize(w.log_path)
        assert w.proc.stdin is not None
        w.proc.stdin.write((json.dumps({"id": 0, "path": path}) + "\n").encode())
        w.proc.stdin.flush()

    def run(self, tasks: deque[tuple[Any, str]]) -> Iterator[tuple[Any, str, Outcome]]:
        """Check every ``(key, path)`` of ``tasks`` (which may grow while this runs); yield outcomes."""
        while tasks or any(w.task for w in self._workers):
            for w in list(self._workers):
                if w.task is None and w.done >= self.recycle:
                    self._kill(w)
            while tasks and (len(self._workers) < self.jobs or any(w.task is None for w in self._workers)):
                idle = next((w for w in self._workers if w.task is None), None) or self._spawn()
                key, path = tasks.popleft()
                try:
                    self._send(idle, key, path)
                except (BrokenPipeError, OSError):
                    tasks.appendleft((key, path))
                    self._kill(idle)
            busy = [w for w in self._workers if w.task]
            if not busy:
                continue
            wait = max(0.05, min(w.started + self.timeout - time.monotonic() for w in busy))
            for sk, _ in self._sel.select(timeout=wait):
                w = sk.data
                yield from self._read(w)
            now = time.monotonic()
            for w in [w for w in self._workers if w.task and now - w.started > self.timeout]:
                key, path = w.task  # type: ignore[misc]
                tail = self._stderr_tail(w)
                in_kiln = w.in_kiln
                self._kill(w)
                if in_kiln:
                    yield key, path, Outcome("crash", f"timeout: kiln gave no answer within {self.timeout:g} s",
                                             "timeout", tail, now - w.started)
                else:  # NumPy's own run did not finish: the program is not well defined
                    yield key, path, Outcome("invalid", "the eager run did not finish in time", "invalid", "",
                                             now - w.started)

    def _read(self, w: _Worker) -> Iterator[tuple[Any, str, Outcome]]:
        assert w.proc.stdout is not None
        try:
            data = os.read(w.proc.stdout.fileno(), 1 << 16)
        except BlockingIOError:
            return
        chunk = data.decode(errors="replace")
        w.buffer += chunk
        while "\n" in w.buffer and w.task:
            line, w.buffer = w.buffer.split("\n", 1)
            fields = json.loads(line)
            if fields.get("phase") == "kiln":
                w.in_kiln = True
                continue
            fields.pop("id", None)
            key, path = w.task
            w.task = None
            w.done += 1
            yield key, path, Outcome(**fields)
        if not data:  # end of file: the worker died
            code = w.proc.wait()
            task = w.task
            tail = self._stderr_tail(w)
            self._kill(w)
            if task and not w.in_kiln:
                key, path = task
                yield key, path, Outcome("invalid", "the process died during the eager run", "invalid", tail)
            elif task:
                key, path = task
                how = f"killed by signal {_signal_name(-code)}" if code < 0 else f"exited with status {code}"
                yield key, path, Outcome("crash", f"the process {how}", f"process {how}", tail,
                                         time.monotonic() - w.started)

    def close(self) -> None:
        for w in list(self._workers):
            self._kill(w)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
