"""kiln's default thread count leaves out the cores other runnable tasks hold (a thread waiting
for a busy core stalls the whole parallel loop); ``KILN_NUM_THREADS`` overrides it."""

from __future__ import annotations

import ctypes
import os
import sys
import time

import numpy as np
import pytest

import kiln
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


_LATE_THREAD = (
    HELPERS["kiln_num_threads"]
    + "#include <omp.h>\n"
    + "#include <time.h>\n"
    + '__attribute__((visibility("default"))) void claim(int64_t n, int *owner) {\n'
    "  int slept = 0;\n"
    "  #pragma omp parallel for num_threads(2) schedule(dynamic, kiln_chunk(n, 2)) firstprivate(slept)\n"
    "  for (int64_t i = 0; i < n; i++) {\n"
    "    if (omp_get_thread_num() == 1 && !slept) {  /* the worker loses its core for 50 ms */\n"
    "      struct timespec pause = {0, 50000000};\n"
    "      nanosleep(&pause, 0);\n"
    "      slept = 1;\n"
    "    }\n"
    "    owner[i] = omp_get_thread_num();\n"
    "  }\n"
    "}\n"
)


def test_a_late_thread_leaves_its_share_to_the_calling_thread() -> None:
    """Threads claim chunks as they come (``kiln_chunk``, parallel_ops' schedule): a worker that
    stalls after its first chunk holds up that chunk only, where a static split waited for half."""
    n = 1 << 14
    owner = (ctypes.c_int * n)()
    ctypes.CDLL(str(toolchain.compile_shared(_LATE_THREAD))).claim(ctypes.c_int64(n), owner)
    chunk = -(-n // (2 * 8))  # KILN_CHUNKS_PER_THREAD chunks per thread
    worker = sum(1 for t in owner if t == 1)
    assert worker <= chunk  # the stalled worker's first chunk, if it started in time, and no more
    assert sum(1 for t in owner if t == 0) == n - worker  # the calling thread did the rest


_CHUNK = (
    HELPERS["kiln_num_threads"]
    + '__attribute__((visibility("default"))) int64_t chunk(int64_t trip, int threads) {\n'
    "  return kiln_chunk(trip, threads);\n"
    "}\n"
)


@pytest.mark.parametrize("trip, threads", [(1, 2), (15, 2), (16, 2), (4096, 2), (4097, 3), (10, 64), (0, 2)])
def test_chunks_cover_the_loop_in_a_few_per_thread(trip: int, threads: int) -> None:
    fn = ctypes.CDLL(str(toolchain.compile_shared(_CHUNK))).chunk
    fn.restype = ctypes.c_int64
    size = fn(ctypes.c_int64(trip), threads)
    assert size >= 1
    assert -(-trip // size) <= threads * 8  # at most KILN_CHUNKS_PER_THREAD chunks a thread ...
    assert size == 1 or -(-trip // (size - 1)) > threads * 8  # ... of the smallest size that does


def _row_sums(x: np.ndarray) -> np.ndarray:
    return x.sum(axis=1)


def _chain(x: np.ndarray) -> np.ndarray:
    return np.maximum(2 * x + 1, 0) * (1 / (1 + np.exp(-x))) - x / 3


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a @ b


_RNG = np.random.default_rng(43)


@pytest.mark.parametrize(
    "fn, args",
    [
        (_row_sums, (_RNG.random((2048, 1024), dtype=np.float32),)),
        (_chain, (_RNG.random(1 << 20, dtype=np.float32),)),
        (_matmul, (_RNG.random((300, 256)), _RNG.random((256, 200)))),  # row blocks, B packed by both
        (_matmul, (_RNG.random((1000, 700)), _RNG.random(700))),  # A @ x in steps
        (_matmul, (_RNG.random(700), _RNG.random((700, 1000)))),  # y @ A in steps
        (_matmul, (_RNG.random((4, 512)), _RNG.random((512, 1200)))),  # skinny: column steps
    ],
    ids=["row sums", "elementwise chain", "matmul", "A @ x", "y @ A", "skinny matmul"],
)
def test_two_threads_give_one_threads_result_bit_for_bit(fn, args, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each chunk runs whole on one thread in the one thread's order: the same bits, whichever
    thread claims it; and NumPy's result, run eagerly, to rounding."""
    compiled = kiln.function(fn)
    monkeypatch.setenv("KILN_NUM_THREADS", "1")
    one = compiled(*args)
    monkeypatch.setenv("KILN_NUM_THREADS", "2")
    for _ in range(3):
        np.testing.assert_array_equal(compiled(*args), one)
    np.testing.assert_allclose(one, fn(*args), rtol=1e-5)


_SITE = (
    HELPERS["kiln_num_threads"]
    + '__attribute__((visibility("default"))) void run(int calls, const int64_t *one_ns, const int64_t *team_ns,\n'
    "                                                  int *threads) {\n"
    "  kiln_site site = {0};\n"
    "  for (int i = 0; i < calls; i++) {  /* a loop of 1000 elements taking one_ns[i] or team_ns[i] */\n"
    "    threads[i] = kiln_site_choose(&site, 2);\n"
    "    kiln_site_done(&site, 1000, threads[i], kiln_site_clock() - (threads[i] > 1 ? team_ns : one_ns)[i]);\n"
    "  }\n"
    "}\n"
)


def _choices(one_ns: list[int], team_ns: list[int]) -> list[int]:
    """The threads kiln_site_choose gives each call of a loop whose calls take these times."""
    calls = len(one_ns)
    threads = (ctypes.c_int * calls)()
    ctypes.CDLL(str(toolchain.compile_shared(_SITE))).run(
        calls, (ctypes.c_int64 * calls)(*one_ns), (ctypes.c_int64 * calls)(*team_ns), threads
    )
    return list(threads)


def test_a_loop_whose_team_loses_runs_on_one_thread_and_seldom_tries_the_team() -> None:
    """A loop that two threads run slower (a busy machine: the second thread waits for a core)
    runs on one; the team is tried again at doubling intervals, at most once in 1024 calls."""
    calls = 20000
    threads = _choices([100_000] * calls, [300_000] * calls)
    assert threads[:2] == [1, 2]  # each choice measured once
    tries = [i for i, t in enumerate(threads) if t == 2][1:]
    assert tries and all(b - a >= 16 for a, b in zip(tries, tries[1:]))
    assert len(tries) <= 16 + calls // 1024  # 16, 32, ... 1024 calls apart, then every 1024
    assert sum(threads[-5000:]) <= 5000 + 5  # the last 5000 calls: one thread but for <= 5 tries


def test_a_loop_whose_team_wins_keeps_it_and_a_machine_turned_busy_turns_it_back() -> None:
    calls = 4000
    team = [50_000] * 2000 + [400_000] * 2000  # the machine turns busy at call 2000
    threads = _choices([100_000] * calls, team)
    assert sum(t == 1 for t in threads[2:2000]) <= 12  # the team, one thread tried now and then
    assert threads[2001:2004] == [1, 1, 1]  # one slow team call and the loop is back on one thread
    assert sum(t == 2 for t in threads[2001:]) <= 12
