"""kiln's default thread count leaves out the cores other runnable tasks hold (a thread waiting
for a busy core stalls the whole parallel loop); ``KILN_NUM_THREADS`` overrides it."""

from __future__ import annotations

import ctypes
import os
import sys
import time

import pytest

from kiln.backends.c import kernel_ops, toolchain
from kiln.bench.run import _busy_cores
from kiln.backends.c.helpers import HELPERS

assert kernel_ops  # it registers the helper

_SOURCE = (
    '#include <stdlib.h>\n'
    + HELPERS["kiln_num_threads"]
    + '__attribute__((visibility("default"))) int threads(void) {\n'
    "  int n = 0;\n"
    "  #pragma omp parallel num_threads(1)\n"
    "  n = kiln_num_threads();\n"
    "  return n;\n"
    "}\n"
)


def _threads() -> ctypes._CFuncPtr:
    fn = ctypes.CDLL(str(toolchain.compile_shared(_SOURCE))).threads
    fn.restype = ctypes.c_int
    return fn


def test_the_setting_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = _threads()
    monkeypatch.setenv("KILN_NUM_THREADS", "3")
    assert fn() == 3


def test_the_default_is_at_most_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KILN_NUM_THREADS", raising=False)
    assert 1 <= _threads()() <= (os.cpu_count() or 1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the runnable count comes from Linux's /proc/loadavg")
def test_a_machine_kept_busy_gets_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KILN_NUM_THREADS", raising=False)
    fn = _threads()
    with _busy_cores(os.cpu_count() or 1):
        time.sleep(0.5)  # the spinners start (spawn imports Python), and the 10 ms cache expires
        assert fn() == 1
