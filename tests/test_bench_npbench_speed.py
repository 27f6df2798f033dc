"""bench/npbench.py's speed mode on a tiny NPBench-like folder made here (no NPBench checkout, no
Numba: its "Numba" variants are plain Python files), and its pure pieces: the table, the geometric
mean, which variants are found, which are kept timing, the thread environment."""

from __future__ import annotations

import json
import math
import pathlib
import queue

import numpy as np
import pytest

from kiln.bench.npbench import (
    SpeedRow,
    _ill_conditioned,
    _others_running,
    _settle,
    agrees,
    check_one,
    contenders,
    geomean,
    run_speed,
    speed_table,
    thread_cores,
    thread_env,
    time_one,
    variants,
)

KERNEL = "def kernel(A, b):\n    A += b\n    return A.sum()\n"


def _fake_npbench(root: pathlib.Path, extra: dict[str, str]) -> pathlib.Path:
    """root/bench_info/toy.json and root/npbench/benchmarks/toy/: an in-place kernel, its inputs, and
    ``extra`` files (variant suffix -> source); the bench_info path."""
    folder = root / "npbench" / "benchmarks" / "toy"
    folder.mkdir(parents=True)
    (folder / "toy.py").write_text("import numpy as np\n\ndef initialize(N):\n"
                                   "    return np.arange(N, dtype=np.float64), 2.0\n")
    (folder / "toy_numpy.py").write_text(KERNEL)
    for suffix, source in extra.items():
        (folder / f"toy_{suffix}.py").write_text(source)
    info = {"benchmark": {
        "relative_path": "toy", "module_name": "toy", "func_name": "kernel",
        "parameters": {"S": {"N": 8}, "M": {"N": 16}},
        "init": {"func_name": "initialize", "input_args": ["N"], "output_args": ["A", "b"]},
        "input_args": ["A", "b"], "array_args": ["A"], "output_args": ["A"],
    }}
    (root / "bench_info").mkdir()
    path = root / "bench_info" / "toy.json"
    path.write_text(json.dumps(info))
    return path


def test_variants_are_each_peers_files_in_order(tmp_path: pathlib.Path) -> None:
    for name in ("toy_numpy", "toy_numba_np", "toy_numba_n", "toy_jax_lib", "toy_jax", "toy_numbafoo",
                 "toy_cupy", "toy"):
        (tmp_path / f"{name}.py").write_text("")
    assert variants(tmp_path, "toy") == ["numba_n", "numba_np", "jax", "jax_lib"]


def test_speed_run_keeps_right_variants_and_says_why_others_are_left_out(tmp_path: pathlib.Path) -> None:
    info = _fake_npbench(tmp_path, {
        "numba_n": KERNEL,                                                     # right
        "numba_np": "def kernel(A, b):\n    A += 2 * b\n    return A.sum()\n",  # a different answer
        "numba_o": "import numba_is_not_here\n",                               # does not load
    })
    got: queue.SimpleQueue = queue.SimpleQueue()
    time_one(str(tmp_path), str(info), "S", 0.5, 5.0, 4, got)
    row = SpeedRow(**got.get())
    assert row.reason == ""
    assert set(row.ms) == {"kiln", "numpy", "numba_n"} and 1 <= row.rounds <= 4
    assert row.left_out["numba_np"] == "not NumPy's answer"
    assert "ModuleNotFoundError" in row.left_out["numba_o"]
    assert row.best("numba") == ("numba_n", row.ms["numba_n"])
    assert row.speedup("jax") is None and row.speedup("numpy") == row.ms["numpy"] / row.ms["kiln"]


def test_a_kernel_kiln_gets_wrong_is_not_timed(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kiln

    info = _fake_npbench(tmp_path, {})
    monkeypatch.setattr(kiln, "function", lambda f: lambda A, b: A.sum())  # forgets the in-place write
    got: queue.SimpleQueue = queue.SimpleQueue()
    time_one(str(tmp_path), str(info), "S", 0.5, 5.0, 4, got)
    row = SpeedRow(**got.get())
    assert row.reason == "wrong: differs: return value, A" and row.ms == {}
    check_one(str(tmp_path), str(info), "S", got)
    assert got.get()[0] == "wrong"


def test_jax_variant_in_a_child_with_one_thread(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("jax", reason="the JAX variant needs jax (the bench extra)")
    _fake_npbench(tmp_path, {"jax": "import jax\n\n@jax.jit\ndef kernel(A, b):\n"
                                    "    A = A + b\n    return A.sum(), A\n"})
    for key, value in thread_env(1).items():
        monkeypatch.setenv(key, value)
    (row,) = run_speed(tmp_path, "S", 120.0, 0.5, 3, ["toy"])
    assert row.reason == "" and row.best("jax") is not None, row


def test_agrees_is_npbenchs_check() -> None:
    bench = {"norm_error": 1e-3}
    assert agrees([1.0, [1.0, 2.0]], [1.0 + 1e-7, [1.0, 2.0], "extra JAX output"], bench)
    assert not agrees([1.0, [1.0, 2.0]], [1.0], bench)
    assert not agrees([[1.0, 2.0]], [[1.0, 2.0, 3.0]], bench)
    assert agrees([[1.0, 1000.0]], [[1.001, 1000.0]], bench)  # allclose fails, the norm error passes
    assert not agrees([[1.0, 1.0]], [[1.1, 1.0]], bench)
    assert agrees([[True, False]], [[True, False]], {}) and not agrees([[True]], [[False]], {})


def test_contenders_drop_a_variant_twice_as_slow_as_its_peers_fastest() -> None:
    samples = {"kiln": [9.0], "numpy": [1.0], "numba_n": [1.0], "numba_o": [2.5], "numba_np": [1.9], "jax": [50.0]}
    assert contenders(list(samples), samples) == ["kiln", "numpy", "numba_n", "numba_np", "jax"]


def test_geomean() -> None:
    assert math.isclose(geomean([2.0, 0.5]), 1.0) and math.isclose(geomean([1.0, 4.0, 16.0]), 4.0)


def test_speed_table_and_summary() -> None:
    rows = [
        SpeedRow("fast", first_s=1.5, ms={"kiln": 1.0, "numpy": 4.0, "numba_n": 3.0, "numba_np": 2.0, "jax": 8.0},
                 rounds=7, left_out={"numba_o": "not NumPy's answer"}),
        SpeedRow("slow", first_s=0.25, ms={"kiln": 20.0, "numpy": 10.0}, rounds=3),
        SpeedRow("bad", reason="wrong: differs: A"),
    ]
    text = speed_table(rows)
    assert "| fast | 1.000 | 4.000 | 2.000 (numba_np) | 8.000 | 4.00x | 2.00x | 8.00x | 1.50 | 7 |" in text
    assert "| slow | 20.0 | 10.0 | – | – | 0.50x | – | – | 0.25 | 3 |" in text
    assert "| bad |" not in text
    assert "- kiln over NumPy: geometric mean 1.41x over 2 kernels (from 0.50x to 4.00x)" in text
    assert "- kiln over Numba: geometric mean 2.00x over 1 kernels" in text
    assert "(>1: kiln is faster)" in text and "- slower than NumPy: slow" in text and "- timed 2 of 3 kernels" in text
    assert "- not timed: bad: wrong: differs: A" in text
    assert "- left out of fast: numba_o (not NumPy's answer)" in text


def test_thread_env() -> None:
    one, two = thread_env(1), thread_env(2)
    assert one["KILN_NUM_THREADS"] == one["NUMBA_NUM_THREADS"] == one["OPENBLAS_NUM_THREADS"] == "1"
    assert "--xla_cpu_multi_thread_eigen=false" in one["XLA_FLAGS"] and two["OMP_NUM_THREADS"] == "2"
    # past one thread kiln keeps its own policy under OpenMP's cap: a forced team loses on small loops
    assert "KILN_NUM_THREADS" not in two


def test_thread_cores_are_cores_this_process_may_use() -> None:
    import os

    allowed = os.sched_getaffinity(0)
    one = thread_cores(1)
    assert len(one) == 1 and one <= allowed
    assert thread_cores(len(allowed) + 5) == allowed and thread_cores(0) == one


def test_a_timed_call_waits_for_a_spinning_thread_of_the_process() -> None:
    """A thread still spinning (as a BLAS pool does after its call) is seen, and the wait for it ends
    when it stops (or after _SETTLE_SECONDS)."""
    import threading
    import time

    stop = threading.Event()
    until = time.perf_counter() + 0.2

    def spin() -> None:  # in NumPy's loops, which run without the GIL: the thread stays runnable
        work = np.ones(1 << 20)
        while not stop.is_set() and time.perf_counter() < until:
            np.sqrt(work, out=work)

    thread = threading.Thread(target=spin)
    thread.start()
    try:
        time.sleep(0.02)
        assert _others_running()
        start = time.perf_counter()
        _settle()
        waited = time.perf_counter() - start
        assert 0.05 < waited < 0.45 and not _others_running()
    finally:
        stop.set()
        thread.join()


def test_an_unknown_kernel_name_is_an_error(tmp_path: pathlib.Path) -> None:
    _fake_npbench(tmp_path, {})
    with pytest.raises(SystemExit, match="no NPBench kernel named gemm,atax"):
        run_speed(tmp_path, "S", 120.0, 0.5, 3, ["gemm,atax"])


def _logistic(x: np.ndarray) -> np.ndarray:
    """A chaotic map: any rounding difference grows to O(1) within ~60 steps."""
    for _ in range(200):
        x = 3.99 * x * (1.0 - x)
    return x


def test_an_answer_is_ill_conditioned_only_when_numpy_differs_from_itself_as_much() -> None:
    args = {"x": np.linspace(0.1, 0.9, 64)}
    bench = {"input_args": ["x"], "array_args": []}
    want = _logistic(args["x"].copy())
    other = _logistic(np.nextafter(args["x"], -np.inf))  # as valid as NumPy's own answer
    assert not np.allclose(want, other)
    why = _ill_conditioned(_logistic, args, bench, ["return value"], (want, {}), (other, {}))
    assert why.startswith("ill-conditioned") and "return value" in why

    def double(x: np.ndarray) -> np.ndarray:
        return 2 * x

    wrong = double(args["x"]) * (1 + 1e-3)
    assert _ill_conditioned(double, args, bench, ["return value"], (double(args["x"]), {}), (wrong, {})) == ""
