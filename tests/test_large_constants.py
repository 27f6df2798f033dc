"""Trace-time arrays of 256 KiB and more are passed to the compiled function, not embedded in its code.

A table computed with NumPy while tracing (FFT twiddles, a lookup table) used to become C text:
36 tables of 2 MB made a 262 MB source, a 328 MB cache entry and a 17 s first call. They are now
hidden variables that no one assigns: read in place, one per distinct array.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.frontend.tensor import LARGE_CONSTANT_BYTES

N = 40_000  # float64: 320 KB, complex128: 640 KB, both past LARGE_CONSTANT_BYTES


def twiddled(x):
    w = np.exp(-2j * np.pi * np.arange(N) / N)  # computed by NumPy while tracing
    ramp = np.linspace(0.0, 1.0, N)
    again = np.linspace(0.0, 1.0, N)  # equal to ramp: shares its argument
    return (x * w).real + ramp * again, x.real[::-1] * ramp


def test_large_tables_are_arguments_and_results_match_numpy() -> None:
    assert N * 8 >= LARGE_CONSTANT_BYTES
    f = kiln.function(twiddled)
    x = np.random.default_rng(0).standard_normal(N) + 1j * np.random.default_rng(1).standard_normal(N)
    for got, want in zip(f(x), twiddled(x)):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    concrete = f.get_concrete_function(x)
    signature = concrete.ir.split("\n", 2)[1]
    assert signature.count("!graph.resource") == 2, signature  # the twiddles and one ramp
    assert "%const" in concrete.ir
    assert len(concrete.source) < 100_000  # 960 KB of tables are not in it
    assert "_blob" not in concrete.source


def test_a_small_table_is_still_embedded() -> None:
    def small(x):
        return x + np.arange(1000.0)

    f = kiln.function(small)
    x = np.ones(1000)
    np.testing.assert_array_equal(f(x), small(x))
    assert "!graph.resource" not in f.get_concrete_function(x).ir


BIG = np.random.default_rng(2).standard_normal(50_000)


def writes_a_copy_of_the_table(x):
    t = kiln.constant(BIG)
    t[:3] = x[:3]  # a write to the traced value, not to the table the next call reads
    return x + t


def test_a_write_to_the_tables_value_does_not_reach_the_next_call() -> None:
    f = kiln.function(writes_a_copy_of_the_table)
    x = np.arange(50_000.0)
    want = writes_a_copy_of_the_table(x)
    for _ in range(3):
        np.testing.assert_array_equal(f(x), want)
    np.testing.assert_array_equal(f(x + 1), writes_a_copy_of_the_table(x + 1))


def test_the_table_is_taken_when_traced_like_a_small_constant() -> None:
    """A global array is a trace-time constant at any size: a later change to it needs a retrace."""
    table = np.ones(50_000)
    small = np.ones(10)

    @kiln.function
    def f(x, y):
        return x + table, y + small

    x, y = np.zeros(50_000), np.zeros(10)
    f(x, y)
    table[:] = 5.0
    small[:] = 5.0
    big_out, small_out = f(x, y)
    np.testing.assert_array_equal(big_out, np.ones(50_000))
    np.testing.assert_array_equal(small_out, np.ones(10))


def test_gradients_flow_through_a_large_table() -> None:
    @kiln.function
    def grad(x):
        with kiln.GradientTape() as tape:
            tape.watch(x)
            loss = np.sum(np.sin(x) * BIG)
        return tape.gradient(loss, x)

    x = np.linspace(-1.0, 1.0, 50_000)
    np.testing.assert_allclose(grad(x), np.cos(x) * BIG, rtol=1e-14)


SCRIPT = """
import numpy as np, kiln
@kiln.function
def f(x):
    return x * np.cos(np.arange(60_000) * 0.001)
x = np.arange(60_000.0)
print(np.array_equal(f(x), x * np.cos(np.arange(60_000) * 0.001)))
"""


def test_a_warm_start_in_a_new_process_passes_the_table_again(tmp_path: Path) -> None:
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path)}
    for _ in range(2):  # the second process finds the plan and the library in the cache
        out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "True"
    plans = list(tmp_path.rglob("*.plan.json"))
    assert plans and all(p.stat().st_size < 200_000 for p in plans)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32", "complex64"])
def test_every_dtype_reads_back_bit_for_bit(dtype: str) -> None:
    rng = np.random.default_rng(3)
    table = (rng.standard_normal(300_000) * 100).astype(dtype) if dtype != "complex64" else \
        (rng.standard_normal(300_000) + 1j * rng.standard_normal(300_000)).astype(dtype)

    @kiln.function
    def f(x):
        return table[x]

    idx = np.array([0, 7, 299_999, 123_456], dtype=np.int64)
    np.testing.assert_array_equal(f(idx), table[idx])
    assert "!graph.resource" in f.get_concrete_function(idx).ir


@pytest.mark.skipif(not __import__("shutil").which("nvcc") and not Path("/usr/local/cuda/bin/nvcc").exists(),
                    reason="nvcc is not installed")
def test_the_cuda_target_takes_the_table_as_an_argument_and_compiles(tmp_path: Path) -> None:
    from kiln.backends.cuda.toolchain import nvcc_command, run_nvcc

    def f(x):
        return x * np.cos(np.arange(60_000) * 0.001)

    source = kiln.function(f, target="cuda").get_concrete_function(np.zeros(60_000)).source
    assert len(source) < 100_000
    path = tmp_path / "table.cu"
    path.write_text(source)
    run_nvcc(nvcc_command(path, path.with_suffix(".o"), compile_only=True), path)
    assert path.with_suffix(".o").stat().st_size > 0


def table_in_staged_control_flow(x, n, flag):
    acc = x * 0.0
    for i in range(n):  # n is traced: a staged loop reading the table every iteration
        acc = acc + BIG * i
    if flag > 0:  # a staged branch
        acc = acc - BIG
    else:
        acc = acc + BIG[::-1]
    return acc


def test_a_table_read_in_staged_loops_and_branches() -> None:
    f = kiln.function(table_in_staged_control_flow)
    x = np.ones(50_000)
    for n, flag in ((0, 1), (3, 1), (4, -1)):
        got = f(x, np.int64(n), np.int64(flag))
        np.testing.assert_array_equal(got, table_in_staged_control_flow(x, np.int64(n), np.int64(flag)))
    ir = f.get_concrete_function(x, np.int64(1), np.int64(1)).ir
    assert "graph.while" in ir and "graph.cond" in ir and ir.count("graph.read") >= 3
