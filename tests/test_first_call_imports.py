"""What a small function's first compile imports (issue 39): modules only some programs need stay
unloaded for ``x * 2 + 1``, and each still loads, and gives NumPy's answer, for a program that
needs it; a warm start (the function's code in the disk cache) imports no pass, emitter or parser
and runs no compiler. A new process each, so that no other test has imported them already."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import kiln

#: module -> why ``x * 2 + 1`` has no use for it
UNUSED = {
    "kiln.dialects.kalgo": "no sort, scan, gather or other algorithm",
    "fractions": "no sin, cos or atan (vector_trig splits pi with it)",
    "difflib": "no misspelled op name in a rule file",
    "xdsl.dialects.complex": "no complex value",
    "kiln.backends.c.complex_ops": "no complex value",
}

_CHILD = """
import json, sys
import numpy as np
import kiln

def f(x):
    return x * 2 + 1

x = np.ones((64, 64), np.float32)
before = set(sys.modules)
print(json.dumps([kiln.function(f).get_concrete_function(x).source != "", sorted(set(sys.modules) - before)]))
"""


def test_x_times_2_plus_1_imports_no_module_it_does_not_use() -> None:
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True).stdout
    emitted, loaded = json.loads(out)
    assert emitted
    assert "kiln.passes.convert_graph_to_linalg" in loaded  # (the compile ran in this process)
    assert sorted(set(UNUSED) & set(loaded)) == []


def test_the_modules_still_load_for_programs_that_need_them() -> None:
    def algorithms_and_trig(x: np.ndarray) -> np.ndarray:
        return np.sort(np.sin(x), axis=0) + np.cumsum(x, axis=1)

    x = np.linspace(-3.0, 3.0, 64 * 8, dtype=np.float32).reshape(64, 8)
    fn = kiln.function(algorithms_and_trig)
    assert "kiln_sort_f32" in fn.get_concrete_function(x).source  # lowered here (a call may find its plan cached)
    np.testing.assert_allclose(fn(x), algorithms_and_trig(x), rtol=1e-5, atol=1e-5)


def test_complex_values_still_lower_and_emit() -> None:
    def complex_ops(z: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        made = z * w + np.exp(z) - (1 + 2j)
        return made, np.abs(made) + (z.real * w.imag).astype(np.float64)

    rng = np.random.default_rng(0)
    z, w = (rng.standard_normal((16, 8)) + 1j * rng.standard_normal((16, 8)) for _ in range(2))
    fn = kiln.function(complex_ops)
    assert "__builtin_cexp(" in fn.get_concrete_function(z, w).source  # lowered and emitted here
    for got, want in zip(fn(z, w), complex_ops(z, w)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


_WARM_CHILD = """
import json, sys
import numpy as np
import kiln
from affine import f

fn = kiln.function(f)
x = np.ones((64, 64), np.float32)
spawned = []
sys.addaudithook(lambda event, args: spawned.append(event) if event in (
    "subprocess.Popen", "os.posix_spawn", "os.fork", "os.exec", "os.system") else None)
before = set(sys.modules)
right = bool((fn(x) == f(x)).all())
print(json.dumps([right, sorted(set(sys.modules) - before), spawned]))
"""

#: what only lowering, emitting C or compiling it needs
_COMPILING = ("kiln.passes.", "kiln.backends.c.emitter", "xdsl.transforms", "xdsl.parser", "lark")


def test_a_warm_start_imports_no_pass_and_runs_no_compiler(tmp_path: Path) -> None:
    # a constant of this run's own: its C is new too, so that the cold call runs the compiler
    (tmp_path / "affine.py").write_text(f"def f(x):\n    return x * 2 + {time.time_ns() % 999_983}\n")
    runs = [
        json.loads(subprocess.run([sys.executable, "-c", _WARM_CHILD], cwd=tmp_path, capture_output=True, text=True,
                                  check=True).stdout)
        for _ in ("cold", "warm")
    ]
    (cold_right, cold_loaded, cold_spawned), (right, loaded, spawned) = runs
    assert cold_right and right
    assert "kiln.passes.convert_graph_to_linalg" in cold_loaded and cold_spawned  # (the cold call compiled)
    assert [m for m in loaded if m.startswith(_COMPILING)] == []
    assert spawned == []
