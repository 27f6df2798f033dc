"""kiln.function on straight-line code: tracing, the per-signature cache, results, the IR at
every stage, and agreement between the decorator and kiln-opt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kiln


def test_traces_once_per_signature() -> None:
    @kiln.function
    def f(x, y):
        return x * y + 1

    a = np.ones(3, np.float32)
    f(a, a)
    f(a + 1, a * 2)
    assert f.tracing_count == 1
    f(np.ones(4, np.float32), np.ones(4, np.float32))
    assert f.tracing_count == 2
    f(np.ones(3, np.float64), np.ones(3, np.float64))
    assert f.tracing_count == 3
    f(a, a)
    assert f.tracing_count == 3


def test_python_scalars_are_trace_time_constants() -> None:
    @kiln.function
    def scale(x, k):
        return x * k

    x = np.arange(3, dtype=np.float64)
    np.testing.assert_array_equal(scale(x, 2), x * 2)
    np.testing.assert_array_equal(scale(x, 2), x * 2)
    assert scale.tracing_count == 1
    np.testing.assert_array_equal(scale(x, 3), x * 3)
    assert scale.tracing_count == 2
    assert "graph.constant" in scale.get_concrete_function(x, 3).ir


def test_results_are_numpy_arrays_and_structures() -> None:
    @kiln.function
    def f(x):
        return x + 1, {"neg": -x}

    out = f(np.array([1.0, 2.0]))
    assert isinstance(out, tuple) and isinstance(out[0], np.ndarray) and isinstance(out[1]["neg"], np.ndarray)
    np.testing.assert_array_equal(out[1]["neg"], [-1.0, -2.0])


def test_a_returned_argument_is_the_callers_array() -> None:
    """``return x`` returns the caller's array, as Python and NumPy do (it was a copy, so a write
    through the result did not reach ``x``: DESIGN.md, arrays keep NumPy's meaning)."""
    @kiln.function
    def f(x):
        return x

    x = np.arange(4, dtype=np.int32)
    y = f(x)
    assert y is x
    y[0] = 100
    assert x[0] == 100
    v = x[::2]  # a strided argument, copied for the call: still the caller's view comes back
    assert f(v) is v


def pick_first_if_positive(a, b):
    if np.sum(a) > 0:
        return a
    return b * 2.0


def test_a_function_returning_an_argument_keeps_the_fast_path() -> None:
    """A function that returns an argument (on some paths) but writes none calls its compiled code
    directly, the caller's array put in the result there (through ConcreteFunction.__call__ it
    cost ~45 us a call: kiln demo's custom_model ran at 0.1x NumPy)."""
    from kiln.backends.c import pyext

    pyext.module()  # (the native entry extension: in a new cache directory it is built in the background first)
    f = kiln.function(pick_first_if_positive)
    a, b = np.ones(3), np.arange(3.0)
    assert f(a, b) is a
    assert f.get_concrete_function(a, b).native_entry() is not None
    assert f(a, b) is a  # the fast path
    r = f(-a, b)
    assert r is not b and np.array_equal(r, b * 2.0)
    assert f(a, b=b) is a  # a keyword call (the leaves' path)


def test_non_contiguous_inputs() -> None:
    @kiln.function
    def f(x):
        return x * 2

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(f(x.T), x.T * 2)
    np.testing.assert_array_equal(f(x[:, ::2]), x[:, ::2] * 2)


def test_ir_at_every_stage() -> None:
    @kiln.function
    def f(x, w):
        return kiln.relu(x @ w)

    cf = f.get_concrete_function(np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))
    assert isinstance(cf, kiln.ConcreteFunction)
    assert "graph.matmul" in cf.ir and "graph.relu" in cf.ir
    assert "linalg.generic" in cf.lowered("tensor")
    assert "memref<" in cf.lowered("buffer") and "tensor<" not in cf.lowered("buffer")
    assert "scf.for" in cf.lowered("loops") and "linalg." not in cf.lowered("loops")
    assert "void kiln_user_f(" in cf.source  # kiln.function names its C symbol (backends/c/abi.py)
    with pytest.raises(ValueError, match="unknown stage"):
        cf.lowered("nonsense")


def test_get_concrete_function_with_specs() -> None:
    @kiln.function
    def f(x):
        return x.sum(axis=0)

    cf = f.get_concrete_function(kiln.TensorSpec([3, 2], "float64"))
    np.testing.assert_array_equal(cf(np.ones((3, 2))), [3.0, 3.0])
    assert f.tracing_count == 1
    f(np.ones((3, 2)))
    assert f.tracing_count == 1


def test_input_signature_mismatch_is_a_type_error() -> None:
    @kiln.function(input_signature=[kiln.TensorSpec([3], "float32")])
    def f(x):
        return x + 1

    np.testing.assert_array_equal(f(np.zeros(3, np.float32)), np.ones(3, np.float32))
    with pytest.raises(TypeError, match="argument 0"):
        f(np.zeros(3, np.int32))


def test_run_functions_eagerly() -> None:
    calls = []

    @kiln.function
    def f(x):
        calls.append(type(x))
        return x + 1

    kiln.config.run_functions_eagerly(True)
    try:
        f(np.ones(2))
        f(np.ones(2))
        assert calls == [np.ndarray, np.ndarray] and f.tracing_count == 0  # (the body ran at each call)
    finally:
        kiln.config.run_functions_eagerly(False)
    f(np.ones(2))
    f(np.ones(2))
    assert f.tracing_count == 1 and len(calls) == 3  # (the body ran once, while tracing)


def test_kiln_opt_gives_the_same_c_as_the_decorator(tmp_path: Path) -> None:
    from kiln.examples import lstm_cell

    cf = lstm_cell.lstm_cell.get_concrete_function(*lstm_cell.inputs())
    src = tmp_path / "lstm.mlir"
    src.write_text(cf.ir)
    kiln_opt = Path(sys.executable).parent / "kiln-opt"
    out = subprocess.run(
        [str(kiln_opt), str(src), "-p", "graph-to-c", "-t", "c"], capture_output=True, text=True, check=True
    ).stdout
    assert out == cf.source


def test_cli_compile(tmp_path: Path) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text("def axpy(a, x, y):\n    return a * x + y\n")
    kiln_cli = Path(sys.executable).parent / "kiln"
    out = subprocess.run(
        [str(kiln_cli), "compile", str(prog), "axpy", "--arg", "f32[]", "--arg", "f32[4]", "--arg", "f32[4]", "--emit", "c"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "void kiln_user_axpy(" in out
    graph_ir = subprocess.run(
        [str(kiln_cli), "compile", str(prog), "axpy", "--arg", "f64[2,?]", "--arg", "f64[2,?]", "--arg", "f64[2,?]"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "tensor<2x?xf64>" in graph_ir


def test_errors_name_the_users_line() -> None:
    @kiln.function
    def f(x, y):
        return x + y  # shapes (2,) and (3,) do not broadcast

    with pytest.raises(ValueError, match="broadcast") as info:
        f(np.ones(2), np.ones(3))
    assert __file__ in "".join(str(a) for a in info.traceback) or "test_function.py" in str(info.getrepr())


def test_isa_option_selects_the_intrinsics() -> None:
    x = np.linspace(-2, 2, 37, dtype=np.float32)
    for isa, marker in (("avx512", "_mm512_"), ("avx2", "_mm256_"), ("scalar", None)):
        f = kiln.function(lambda a: np.exp(a) * 2 + a, isa=isa)
        src = f.get_concrete_function(x).source
        for other in ("_mm512_", "_mm256_"):
            assert (other in src) == (other == marker), (isa, other)
    np.testing.assert_allclose(kiln.function(lambda a: np.exp(a) * 2 + a, isa="scalar")(x), np.exp(x) * 2 + x, rtol=2e-6)
    with pytest.raises(ValueError, match="unknown ISA"):
        kiln.function(lambda a: a, isa="sse9")


def test_isa_is_a_module_attribute_that_kiln_opt_follows(tmp_path: Path) -> None:
    """kiln.function(isa=...) marks the module it lowers (no hidden state): its printed stages say
    it, and kiln-opt lowering the printed graph-stage text with that mark emits the same ISA."""
    x = np.linspace(-2, 2, 37, dtype=np.float32)
    f = kiln.function(lambda a: np.exp(a) * 2 + a, isa="avx2")
    cf = f.get_concrete_function(x)
    assert 'kiln.isa = "avx2"' in cf.lowered("loops")
    marked = cf.ir.replace("builtin.module {", 'builtin.module attributes {kiln.isa = "avx2"} {', 1)
    path = tmp_path / "graph.mlir"
    path.write_text(marked)
    out = subprocess.run([sys.executable, "-m", "kiln.tools.kiln_opt", str(path), "-p", "graph-to-c", "-t", "c"],
                         capture_output=True, text=True, check=True).stdout
    assert "_mm256_" in out and "_mm512_" not in out


@pytest.mark.parametrize("name", ["modf", "frexp", "strlen", "qsort", "rand", "exp", "floorf", "main", "memcpy",
                                  "s", "kiln_slots", "kiln_take_error"])
def test_a_function_named_like_a_c_library_function_compiles(name: str) -> None:
    """The C symbol of a function named like one the generated C's headers declare is another
    name (a function called `modf` failed to compile: "conflicting types for 'modf'"; one called
    `s`, the native entry's trampoline's parameter once, was "not a function")."""
    namespace: dict[str, Any] = {"np": np}
    exec(f"def {name}(x):\n    return np.floor(x) + 1\n", namespace)
    fn = namespace[name]
    x = np.array([1.5, -2.5])
    np.testing.assert_array_equal(kiln.function(fn, autograph=False)(x), np.floor(x) + 1)
