"""The fuzzer's other modes (docs/fuzzing.md): ``grad`` (kiln.grad against central differences)
and ``python`` (lists, Python numbers, assert, raise, and/or against the program run as Python):
their oracles, and a small fixed campaign of each that must find no mismatch or crash."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.fuzz.campaign import run_campaign
from kiln.fuzz.check import check_file, load
from kiln.fuzz.grad_check import check_grad, smooth_differences
from kiln.fuzz.pyvalue_check import check_pyvalues, compare_python
from kiln.fuzz.config import Config
from kiln.fuzz.modes import generate_program

#: the CI campaigns of the two modes (seed, count)
CI_GRAD = (15480, 12)
CI_PYTHON = (15490, 16)


def write(tmp_path: Path, source: str, name: str = "prog.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


# ---------------------------------------------------------------------- gradients


def test_grad_programs_are_deterministic_and_cover_their_constructs() -> None:
    assert generate_program("grad", "3-4", Config()).source == generate_program("grad", "3-4", Config()).source
    text = "".join(generate_program("grad", f"5-{i}", Config()).source for i in range(60))
    for construct in ("np.add.at(", "[u] = ", "[u] += ", "[g]", "if ", "for i", "while ", "break", "s = s + ", "] = "):
        assert construct in text, construct
    for i in range(10):
        tree = ast.parse(generate_program("grad", f"5-{i}", Config()).source)
        assert {"f", "inputs"} <= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def kinked(x):
    return np.sum(np.abs(x)) + np.sum(x * x)


def test_central_differences_skip_kinks_and_are_exact_elsewhere() -> None:
    """|x| at 0 (and 3e-6 from it, within the step's reach) is not smooth there: skipped; elsewhere
    the difference is the derivative sign(x) + 2x."""
    x = np.array([0.0, 3e-6, 0.7, -1.3])
    est, smooth, tol = smooth_differences(kinked, [x], 0)
    assert smooth.tolist() == [False, False, True, True]
    want = np.sign(x) + 2 * x
    assert np.all(np.abs(est - want)[smooth] <= tol[smooth])


def steep(x):
    return np.sum(np.tanh(200.0 * x))


def test_central_differences_allow_for_their_truncation_error() -> None:
    """kiln.fuzz grad 15507-63 (a steep tanh in a loop): a smooth function with a large third
    derivative, whose central difference is off by h^2 f'(3)/6 (5e-4 here, at 0): the tolerance
    counts it (|D(2h) - D(h)|), so the exact derivative 200 sech^2(200x) passes."""
    x = np.array([0.0, 0.3])
    est, smooth, tol = smooth_differences(steep, [x], 0)
    assert smooth.all()
    assert np.all(np.abs(est - 200.0 / np.cosh(200.0 * x) ** 2) <= tol)


def staged_kink(x):
    if np.sum(x) > 1.0:
        return np.sum(x * x)
    return np.sum(x) * 3.0


def test_central_differences_skip_a_branch_switch() -> None:
    x = np.array([0.5, 0.5 + 1e-6])  # the sum is 1 + 1e-6: one step down switches the branch
    _, smooth, _ = smooth_differences(staged_kink, [x], 0)
    assert not smooth.any()
    _, smooth, _ = smooth_differences(staged_kink, [np.array([0.5, 0.7])], 0)
    assert smooth.all()


GRAD_PROGRAM = """
    import numpy as np

    FUZZ_MODE = "grad"
    ARGNUMS = (0, 1)
    VALUE_AND_GRAD = True

    def f(x, w, u):
        y = x * 1.0
        y[u] += np.tanh(w[:2])
        if np.sum(y) > 0.5:
            y = y * y
        return np.sum(y * w)

    def inputs():
        return [np.array([0.31, -0.72, 1.13]), np.array([0.52, 1.4, -0.25]), np.array([2, 0])]
"""


def test_grad_oracle_matches_kiln_and_catches_a_wrong_gradient(tmp_path: Path) -> None:
    path = write(tmp_path, GRAD_PROGRAM)
    assert check_file(path).status == "match"
    module, lines = load(path), len(Path(path).read_text().splitlines())

    def off_by_a_little(fn: Any, argnums: Any) -> Any:
        def call(*args: Any) -> Any:
            value, (gx, gw) = kiln.value_and_grad(fn, argnums=argnums)(*args)
            gw = gw.copy()
            gw[1] += 1e-5
            return value, (gx, gw)
        return call

    out = check_grad(module, path, lines, transform=off_by_a_little)
    assert (out.status, out.signature) == ("mismatch", "mismatch: values of gradient"), out
    assert "gradient 1" in out.message and "first at [1]" in out.message


def test_grad_oracle_compares_arguments_written_through_a_view(tmp_path: Path) -> None:
    """kiln.fuzz grad 15500-34 and four more: `y = x[::-1]` then `y[0] = ...` writes the caller's `x`,
    eagerly and under kiln.grad alike; the oracle compared with the arguments before the call."""
    path = write(tmp_path, GRAD_PROGRAM.replace("y = x * 1.0", "y = x[::-1]"))
    assert check_file(path).status == "match"


def test_grad_campaign_runs_clean(tmp_path: Path) -> None:
    seed, count = CI_GRAD
    summary = run_campaign(count, seed, jobs=1, out_dir=str(tmp_path), minimize_budget=0, mode="grad")
    assert not summary.failures(), summary.table()
    assert summary.counts()["match"] >= count // 2, summary.table()


# ---------------------------------------------------------------------- Python values


def test_python_value_programs_cover_their_constructs() -> None:
    text = "".join(generate_program("python", f"5-{i}", Config()).source for i in range(60))
    for construct in ("assert ", "raise ValueError", " and ", " or ", "not ", " <= a[", "lst[", "for v in lst",
                      "zip(lst, ints)", "+= 1", "return [", "lst.append(", " else ", "float(", "while k",
                      " for v", " in a if ", " in range(6)", "for w in a] for ", "], lst[i", " := k", "complex(a[",
                      "np.complex128(a["):
        assert construct in text, construct


PYTHON_PROGRAM = """
    import numpy as np

    FUZZ_MODE = "python"

    def f(a, lst):
        c = 0
        for i in range(6):
            if a[i] > lst[0]:
                c += 1
        lst[1] = lst[1] * 2.0 + c
        assert a[0] > -1.0, "check 1: negative"
        if -1.0 <= a[1] <= 0.0 and not a[2] > 5.0:
            raise ValueError("check 2: out of range")
        return lst, c

    def inputs():
        return [np.array([A0, 0.5, 0.2, 0.9, -0.3, 0.1]), [0.25, 1.5]]
"""


@pytest.mark.parametrize("a0", [0.3, -2.0])  # returns, or fails the assert
def test_python_oracle_matches_kiln(tmp_path: Path, a0: float) -> None:
    assert check_file(write(tmp_path, PYTHON_PROGRAM.replace("A0", repr(a0)))).status == "match"
    raising = PYTHON_PROGRAM.replace("A0", repr(a0)).replace("0.5, 0.2", "-0.5, 0.2")
    assert check_file(write(tmp_path, raising, "raising.py")).status == "match"


@pytest.mark.parametrize("wrong, signature", [
    ("return tuple(lst), c", "mismatch: container of result"),
    ("return lst, float(c)", "mismatch: kind of result"),
    ("r = list(lst)\n        lst[0] = 9.0\n        return r, c", "mismatch: values of arguments"),
])
def test_python_oracle_sees_containers_kinds_and_list_arguments(tmp_path: Path, wrong: str, signature: str) -> None:
    """A compiled function that differs from the program only in what it returns or leaves in the
    caller's list is a mismatch of that aspect (the "compiled" side here runs a changed copy)."""
    right = load(write(tmp_path, PYTHON_PROGRAM.replace("A0", "0.3")))
    changed = load(write(tmp_path, PYTHON_PROGRAM.replace("A0", "0.3").replace("return lst, c", wrong), "changed.py"))
    want_args, got_args = right.inputs(), changed.inputs()
    want, got = right.f(*want_args), changed.f(*got_args)
    out = compare_python(want, got, "result") or compare_python(want_args, got_args, "arguments after the call")
    assert out is not None and out.signature == signature, out


def test_python_oracle_sees_a_missing_raise(tmp_path: Path) -> None:
    path = write(tmp_path, PYTHON_PROGRAM.replace("A0", "-2.0"))
    module, lines = load(path), len(Path(path).read_text().splitlines())
    out = check_pyvalues(module, path, lines, compiler=lambda fn: (lambda *args: "returned"))
    assert (out.status, out.signature) == ("mismatch", "mismatch: kiln returned where Python raises"), out


def test_python_campaign_runs_clean(tmp_path: Path) -> None:
    seed, count = CI_PYTHON
    summary = run_campaign(count, seed, jobs=1, out_dir=str(tmp_path), minimize_budget=0, mode="python")
    assert not summary.failures(), summary.table()
    assert summary.counts()["match"] >= count // 3, summary.table()
