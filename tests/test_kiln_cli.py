"""The ``kiln`` command line as a user runs it: the README's example, NumPy's dtype names,
``--emit cuda``, IR saved with its source locations, and errors that show the user's code."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
from child_signals import sigint_as_a_terminal_gives_it

import kiln
from kiln.examples import lstm_cell

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

MODEL = '''
import numpy as np

from helpers import scale


def layer(x, w):
    return np.tanh(scale(x @ w))


def undefined(x):
    return x + not_defined_anywhere


def interrupted(x):
    import os, signal, time
    os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C while kiln traces
    time.sleep(60)
'''

#: a module beside model.py: `kiln compile` imports model.py as `python model.py` would
HELPERS = '''
def scale(v):
    return v * 2
'''


def kiln_cmd(*args: str, cwd: Path = ROOT, status: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(BIN / "kiln"), *args], capture_output=True, text=True, cwd=cwd, timeout=600,
                          preexec_fn=sigint_as_a_terminal_gives_it)
    assert proc.returncode == status, proc.stderr
    return proc


def _model(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "helpers.py").write_text(HELPERS)
    return tmp_path / "model.py"


def _readme_compile_command() -> list[str]:
    """The README's `kiln compile` example, continuation lines joined, comment dropped."""
    text = (ROOT / "README.md").read_text().replace("\\\n", " ")
    (line,) = [ln for ln in text.splitlines() if ln.startswith("kiln compile examples/")]
    return shlex.split(line, comments=True)


def test_the_readme_example_runs() -> None:
    """It passed 2 arguments to the 6 of examples/lstm_cell.py; it prints the C of the example."""
    command = _readme_compile_command()
    assert command[:2] == ["kiln", "compile"]
    proc = kiln_cmd(*command[1:])
    want = lstm_cell.FUNCTION.get_concrete_function(*lstm_cell.inputs()).source
    assert proc.stdout == want


def test_numpy_dtype_names(tmp_path: Path) -> None:
    """`--arg float32[...]` was refused; NumPy's names give what the short ones give."""
    model = str(_model(tmp_path))
    short = kiln_cmd("compile", model, "layer", "--arg", "f32[2,3]", "--arg", "f64[3,4]", cwd=tmp_path).stdout
    numpy = kiln_cmd("compile", model, "layer", "--arg", "float32[2,3]", "--arg", "float64[3,4]", cwd=tmp_path).stdout
    assert numpy == short and "tensor<2x3xf32>" in numpy
    bad = kiln_cmd("compile", model, "layer", "--arg", "float[2,3]", "--arg", "f64[3,4]", cwd=tmp_path, status=1)
    assert bad.stderr.startswith("kiln: error: bad --arg 'float[2,3]': expected DTYPE[DIMS], DTYPE a NumPy dtype name")


def test_emit_cuda(tmp_path: Path) -> None:
    """There was no --emit cuda: it prints the CUDA source the decorator compiles."""
    model = str(_model(tmp_path))
    proc = kiln_cmd("compile", model, "layer", "--arg", "f32[4,8]", "--arg", "f32[8,16]", "--emit", "cuda", cwd=tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        import model as user_model  # noqa: PLC0415 (the file the command compiled)
    finally:
        sys.path.remove(str(tmp_path))
    specs = (kiln.TensorSpec((4, 8), np.float32), kiln.TensorSpec((8, 16), np.float32))
    want = kiln.function(user_model.layer, target="cuda").get_concrete_function(*specs).source
    assert proc.stdout == want and "__global__" in want


def test_graph_ir_with_locations_reads_back(tmp_path: Path) -> None:
    """`str(cf.ir)` drops the locations; --emit graph --locations keeps the user's file:line on
    each op, kiln-opt reads the file back (--print-debuginfo keeps them), and lowers it to the
    very C the decorator compiles."""
    model = _model(tmp_path)
    args = ("compile", str(model), "layer", "--arg", "f32[2,3]", "--arg", "f32[3,4]")
    plain = kiln_cmd(*args, cwd=tmp_path).stdout
    located = kiln_cmd(*args, "--locations", cwd=tmp_path).stdout
    assert "loc(" not in plain
    line = MODEL.splitlines().index("    return np.tanh(scale(x @ w))") + 1
    assert re.search(rf'graph.matmul .* loc\("{re.escape(str(model))}":{line}:\d+\)', located), located
    (tmp_path / "f.mlir").write_text(located)
    kiln_opt = str(BIN / "kiln-opt")
    again = subprocess.run([kiln_opt, "f.mlir", "--print-debuginfo"], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert again.stdout.strip() == located.strip()
    c = subprocess.run([kiln_opt, "f.mlir", "-p", "graph-to-c", "-t", "c"], capture_output=True, text=True, cwd=tmp_path,
                       check=True)
    assert c.stdout == kiln_cmd(*args, "--emit", "c", cwd=tmp_path).stdout
    refused = kiln_cmd(*args, "--emit", "loops", "--locations", cwd=tmp_path, status=1)
    assert "--locations applies to --emit graph" in refused.stderr


def test_an_error_in_the_users_code_shows_the_users_frames(tmp_path: Path) -> None:
    """A NameError in the user's function carried ~10 frames of kiln's tracer and frontend."""
    model = _model(tmp_path)
    proc = kiln_cmd("compile", str(model), "undefined", "--arg", "f32[3]", cwd=tmp_path, status=1)
    assert proc.stderr.splitlines() == [
        "kiln: error: NameError: name 'not_defined_anywhere' is not defined",
        f'  File "{model}", line 12, in undefined',
        "    return x + not_defined_anywhere",
    ]


def test_ctrl_c_is_one_line(tmp_path: Path) -> None:
    proc = kiln_cmd("compile", str(_model(tmp_path)), "interrupted", "--arg", "f32[3]", cwd=tmp_path, status=130)
    assert proc.stderr == "kiln: interrupted\n"
