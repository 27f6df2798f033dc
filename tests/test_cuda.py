"""The CUDA backend: every differential-suite, control-flow-corpus and variable function
compiles with nvcc; the decorator and kiln-opt agree; without a GPU, calls fail clearly while
source and lowering still work; with a GPU, the differential suite runs on it, variables stay
resident between calls and staged prints write from host code."""

from __future__ import annotations

import inspect
import itertools
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest

import kiln
from kiln.backends.cuda.device import device_error

sys.path.insert(0, str(Path(__file__).parent))
import test_control_flow as control_flow  # noqa: E402
import test_differential as suite  # noqa: E402

HAS_NVCC = shutil.which("nvcc") is not None or Path("/usr/local/cuda/bin/nvcc").exists()
requires_nvcc = pytest.mark.skipif(not HAS_NVCC, reason="nvcc is not installed")
cuda_device = pytest.mark.skipif(device_error() is not None, reason=f"no CUDA device: {device_error()}")

Case = tuple[Callable[..., Any], tuple[Any, ...], float | None]
#: suite tests that do not go through ``check`` (they are covered below or are C-only)
_NOT_CHECKED = {"test_binary_rejected_like_numpy", "test_seed_programs"}


def _parameter_sets(test: Callable[..., Any]) -> Iterator[dict[str, Any]]:
    """Every combination of a test's ``pytest.mark.parametrize`` values."""
    axes: list[list[dict[str, Any]]] = []
    for mark in getattr(test, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        axes.append([dict(zip(names, v if len(names) > 1 else (v,), strict=True)) for v in values])
    for combo in itertools.product(*axes):
        yield {k: v for part in combo for k, v in part.items()}


def differential_cases() -> list[Case]:
    """(function, inputs, rtol) of every ``check`` in tests/test_differential.py, plus the seed programs."""
    cases: list[Case] = []

    def collect(fn: Callable[..., Any], *args: Any, rtol: float | None = None, target: str | None = None) -> None:
        cases.append((fn, args, rtol))

    with mock.patch.object(suite, "check", collect):
        for name, test in inspect.getmembers(suite, inspect.isfunction):
            if name.startswith("test_") and name not in _NOT_CHECKED:
                for params in _parameter_sets(test):
                    test(**params)
    from kiln.examples import deep_net, lstm_cell, simple_nn_layer

    for example in (simple_nn_layer, lstm_cell, deep_net):
        cases.append((example.FUNCTION.python_function, example.inputs(), 1e-5))
    return cases


def control_flow_cases() -> list[Case]:
    """Every call of tests/test_control_flow.py's corpus (loops and branches around kernels, prints)."""
    return [(fn, args, None) for fn, calls in control_flow.CORPUS for args in calls]


_TOTAL = kiln.Variable(np.zeros(4, np.float32))
_STEPS = kiln.Variable(np.int64(0))


def accumulate(x: np.ndarray) -> Any:
    """Variables written in place, read back in the same call, printed."""
    _TOTAL.assign_add(x)
    _STEPS.assign_add(1)
    kiln.print("total =", _TOTAL.read_value(), "after", _STEPS.read_value(), "steps")
    return _TOTAL.read_value().sum()


def decay(x: np.ndarray, n: np.ndarray) -> Any:
    """A variable updated by kernels inside a host loop."""
    for _ in kiln.range(n):
        _TOTAL.assign(_TOTAL.read_value() * 0.5 + x)
    return _TOTAL.read_value()


def variable_cases() -> list[Case]:
    x = np.arange(4, dtype=np.float32)
    return [(accumulate, (x,), None), (decay, (x, np.int64(3)), None)]


def _cuda_sources(cases: list[Case]) -> list[str]:
    """The distinct CUDA sources of the cases (traced for target="cuda"; TypeErrors are NumPy's too)."""
    sources: dict[str, None] = {}
    for fn, args, _ in cases:
        sources[kiln.function(fn, target="cuda").get_concrete_function(*args).source] = None
    return list(sources)


def _group(sources: list[str]) -> str:
    """Several translation units as one: each in its own namespace, includes hoisted, C linkage
    dropped (so equal entry-point names cannot clash). The code nvcc sees is otherwise unchanged."""
    includes: dict[str, None] = {}
    bodies: list[str] = []
    for i, src in enumerate(sources):
        lines = src.splitlines()
        includes.update((ln, None) for ln in lines if ln.startswith("#include"))
        body = "\n".join(ln for ln in lines if not ln.startswith("#include")).replace('extern "C" ', "")
        bodies.append(f"namespace case{i} {{\n{body}\n}}")
    return "\n".join([*includes, *bodies])


@requires_nvcc
def test_every_corpus_function_compiles_with_nvcc(tmp_path: Path) -> None:
    from kiln.backends.cuda.toolchain import nvcc_command, run_nvcc

    start = time.perf_counter()
    sources = _cuda_sources(differential_cases() + control_flow_cases() + variable_cases())
    traced = time.perf_counter()
    chunks = [sources[i : i + 40] for i in range(0, len(sources), 40)]
    files = []
    for n, chunk in enumerate(chunks):
        path = tmp_path / f"group{n}.cu"
        path.write_text(_group(chunk))
        files.append(path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda p: run_nvcc(nvcc_command(p, p.with_suffix(".o"), compile_only=True), p), files))
    done = time.perf_counter()
    print(f"{len(sources)} CUDA sources: traced and emitted in {traced - start:.1f}s, "
          f"compiled by nvcc in {len(files)} groups in {done - traced:.1f}s")


def test_kiln_opt_gives_the_same_cuda_as_the_decorator(tmp_path: Path) -> None:
    from kiln.examples import lstm_cell

    fn = kiln.function(lstm_cell.FUNCTION.python_function, target="cuda")
    cf = fn.get_concrete_function(*lstm_cell.inputs())
    src = tmp_path / "lstm.mlir"
    src.write_text(cf.ir)
    kiln_opt = Path(sys.executable).parent / "kiln-opt"
    out = subprocess.run(
        [str(kiln_opt), str(src), "-p", "graph-to-cuda", "-t", "cuda"], capture_output=True, text=True, check=True
    ).stdout
    assert out == cf.source


def test_source_and_stages_without_running() -> None:
    cf = kiln.function(lambda x: (x * 2).sum(), target="cuda").get_concrete_function(np.ones((3, 4), np.float32))
    assert "scf.parallel" in cf.lowered("parallel")
    assert "gpu.launch_func" in cf.lowered("gpu")
    assert re.search(r"__global__ void \w+_kernel0\(", cf.source)
    assert 'extern "C" __attribute__((visibility("default"))) void ' in cf.source


@pytest.mark.skipif(device_error() is None, reason="a CUDA device is present")
@requires_nvcc
def test_calling_without_a_device_is_a_clear_error() -> None:
    f = kiln.function(lambda x: x + 1, target="cuda")
    with pytest.raises(RuntimeError, match=r'target="cuda": no CUDA device is available \(.*\)'):
        f(np.ones(3, np.float32))


@cuda_device
def test_differential_suite_on_the_gpu() -> None:
    failures = []
    for fn, args, rtol in differential_cases():
        try:
            suite.check(fn, *args, rtol=rtol, target="cuda")
        except TypeError:
            continue  # rejected like NumPy, as on the C target
        except AssertionError as e:
            failures.append(f"{getattr(fn, '__name__', fn)}{[np.shape(a) for a in args]}: {e}")
    assert not failures, "\n".join(failures[:20])


@cuda_device
def test_control_flow_corpus_on_the_gpu() -> None:
    for fn, calls in control_flow.CORPUS:
        compiled = kiln.function(fn, target="cuda")
        for args in calls:
            np.testing.assert_allclose(compiled(*args), fn(*args), rtol=1e-6)


@cuda_device
def test_variables_stay_resident_between_calls(capsys: pytest.CaptureFixture[str]) -> None:
    from kiln.backends.cuda.residency import DEVICE_NEWER, HOST_NEWER, IN_SYNC, device_state

    _TOTAL.assign(np.zeros(4, np.float32))
    _STEPS.assign(0)
    f = kiln.function(accumulate, target="cuda")
    x = np.arange(4, dtype=np.float32)
    for step in range(1, 4):
        assert f(x) == pytest.approx(6.0 * step)
        assert device_state(_TOTAL) == DEVICE_NEWER  # the host copy was not refreshed by the call
        np.testing.assert_array_equal(_TOTAL.numpy(), x * step)  # reading from Python syncs
        assert device_state(_TOTAL) == IN_SYNC
    _TOTAL.assign(np.ones(4, np.float32))  # an eager write: the next call copies it to the device
    assert device_state(_TOTAL) == HOST_NEWER
    assert f(x) == pytest.approx(4.0 + 6.0)
    assert int(_STEPS.read_value()) == 4
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "total = [0. 1. 2. 3.] after 1 steps"
    assert out[-1] == "total = [1. 2. 3. 4.] after 4 steps"


@cuda_device
def test_print_from_host_code_matches_the_c_target(capsys: pytest.CaptureFixture[str]) -> None:
    def show(x: np.ndarray) -> Any:
        y = x * 2
        kiln.print("y =", y, "col", x[:, 1], "sum", y.sum())
        return y

    x = np.arange(6, dtype=np.float64).reshape(2, 3) / 3
    kiln.function(show, target="c")(x)
    expected = capsys.readouterr().out
    kiln.function(show, target="cuda")(x)
    assert capsys.readouterr().out == expected
