"""bench/pythran_cases.py on a tiny Pythran-like cases folder made here (no Pythran checkout): how
``#runas`` lines are found and run, and the strict comparison (Python types count)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from kiln.bench.pythran_cases import _in_child, cases, check_one, differs


def _case(root: pathlib.Path, name: str, source: str) -> pathlib.Path:
    folder = root / "pythran" / "tests" / "cases"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(source)
    return path


SCALE = """#pythran export scale(float list, float)
#runas scale([1.0, 2.0, 3.0], 2.0)
#runas xs = [0.5] * 4; scale(xs, -1.0)
def scale(xs, s):
    for i in range(len(xs)):
        xs[i] = xs[i] * s
    return xs
"""

INPLACE = """#pythran export bump(float[])
#runas import numpy as np; bump(np.arange(4.0))
import numpy as np
def bump(a):
    a += 1.0
"""


def test_cases_lists_every_runas_line(tmp_path: pathlib.Path) -> None:
    _case(tmp_path, "scale", SCALE)
    _case(tmp_path, "none", "#pythran export f()\ndef f():\n    return 1\n")
    found = [(p.stem, i, text) for p, i, text in cases(tmp_path)]
    assert found == [("scale", 0, "scale([1.0, 2.0, 3.0], 2.0)"),
                     ("scale", 1, "xs = [0.5] * 4; scale(xs, -1.0)")]


def test_differs_is_strict_on_python_types() -> None:
    assert differs([1.0, 2.0], [1.0, 2.0]) is None
    assert "ndarray" in differs([1.0, 2.0], np.array([1.0, 2.0]))
    assert "float64" in differs(3.0, np.float64(3.0))
    assert "complex128" in differs(1j, np.complex128(1j))
    assert "length" in differs([1, 2], [1, 2, 3])
    assert "values differ" in differs(np.ones(3), np.array([1.0, 1.0, 2.0]))
    assert "int64" in differs(np.ones(2), np.ones(2, dtype=np.int64))
    assert differs(np.array([np.nan]), np.array([np.nan])) is None
    assert differs(1.0, 1.0 + 1e-12) is None
    assert differs(1.0, 1.0 + 1e-6) is not None


def test_check_one_right_and_argument_writes(tmp_path: pathlib.Path) -> None:
    scale = _case(tmp_path, "scale", SCALE)
    assert check_one(scale, "scale([1.0, 2.0, 3.0], 2.0)")["kind"] == "right"
    bump = _case(tmp_path, "bump", INPLACE)
    assert check_one(bump, "import numpy as np; bump(np.arange(4.0))")["kind"] == "right"


def test_check_one_sees_a_wrong_answer(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kiln.function that loses the write to the argument is ``wrong``: the harness compares arguments."""
    import kiln

    def losing(fn):  # stands for a compiler that writes into a copy of its list argument
        return lambda xs, s: fn(list(xs), s)

    monkeypatch.setattr(kiln, "function", losing)
    scale = _case(tmp_path, "lose", SCALE.replace("return xs", "return None"))
    verdict = check_one(scale, "scale([1.0, 2.0], 2.0)")
    assert verdict["kind"] == "wrong" and verdict["detail"].startswith("argument 0")


def test_invalid_and_refused(tmp_path: pathlib.Path) -> None:
    py2 = _case(tmp_path, "py2", "#pythran export f(int)\ndef f(n):\n    return range(n)[0:1] + [1]\n")
    assert check_one(py2, "f(3)")["kind"] == "invalid"
    refused = _case(tmp_path, "bad", "#pythran export f(float[])\ndef f(x):\n    return {float(x[0])}\n")
    verdict = _in_child(refused, "import numpy as np; f(np.ones(2))", timeout=120)
    assert verdict["kind"] == "refused", verdict
    assert str(refused) in verdict["detail"] or "bad.py" in verdict["detail"]
