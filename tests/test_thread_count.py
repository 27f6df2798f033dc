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


_SPINNER = (
    "#include <pthread.h>\n"
    "#include <stdatomic.h>\n"
    "static atomic_int stop;\n"
    "static pthread_t threads[64];\n"
    "static int count;\n"
    "static void *spin(void *arg) { while (!atomic_load(&stop)) {} return arg; }\n"
    '__attribute__((visibility("default"))) void start(int n) {\n'
    "  atomic_store(&stop, 0);\n"
    "  for (count = 0; count < n && count < 64; count++) pthread_create(&threads[count], 0, spin, 0);\n"
    "}\n"
    '__attribute__((visibility("default"))) void finish(void) {\n'
    "  atomic_store(&stop, 1);\n"
    "  for (int i = 0; i < count; i++) pthread_join(threads[i], 0);\n"
    "}\n"
)


def _runnable_elsewhere() -> list[str]:
    """Runnable threads of other processes (`pid/tid name`), for the failure message."""
    found = []
    me = str(os.getpid())
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and p != me):
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    stat = f.read()
                if stat[stat.rindex(")") + 2] == "R":
                    found.append(f"{pid}/{tid} {stat[stat.index('(') + 1:stat.rindex(')')]}")
        except OSError:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the runnable count comes from Linux's /proc")
def test_a_busy_thread_of_this_process_is_not_another_programs_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library's pool spinning after its call (OpenBLAS's, after NumPy's matmul) belongs to this
    process: kiln's next parallel loop still takes every free core (np.cov right after a NumPy
    matmul ran on one thread). Another program's thread that happens to run during a try (the
    count is a snapshot) is not this test's subject: up to five tries, each reported."""
    monkeypatch.delenv("KILN_NUM_THREADS", raising=False)
    fn = _threads()
    spinner = ctypes.CDLL(str(toolchain.compile_shared(_SPINNER)))
    tries = []
    for _ in range(5):
        time.sleep(0.05)  # the 10 ms cache expires
        alone = fn()
        spinner.start(os.cpu_count() or 1)  # a pool of one thread per core, as OpenBLAS's
        try:
            time.sleep(0.05)
            beside_own_spinner = fn()
            elsewhere = _runnable_elsewhere()
        finally:
            spinner.finish()
        if beside_own_spinner == alone:
            return
        tries.append(f"alone {alone}, beside its own spinners {beside_own_spinner}; runnable elsewhere: {elsewhere}")
    pytest.fail("a pool of this process's spinning threads lowered the count:\n" + "\n".join(tries))
