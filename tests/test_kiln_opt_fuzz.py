"""kiln-opt on mutated lit inputs: never a traceback, never a hang (kiln/tools/opt_fuzz.py).

A fixed seeded set runs here (under a minute); longer campaigns run from the command line:
``python -m kiln.tools.opt_fuzz --count 5000 --seed 7``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kiln.tools import kiln_cli
from kiln.tools import opt_fuzz as fuzz

FIXED_SEED = 0
FIXED_COUNT = 400


def test_seeds_are_the_lit_commands() -> None:
    corpus = fuzz.seeds()
    assert len(corpus) >= 50
    assert any(seed.args[-2:] == ("-t", "c") for seed in corpus)
    assert any("--split-input-file" in seed.args for seed in corpus)
    assert all("%s" in seed.args for seed in corpus)


def test_inputs_are_reproducible_one_by_one() -> None:
    corpus = fuzz.seeds()
    ops = fuzz._vocabulary(corpus)
    first = fuzz.fuzz_input(corpus, ops, 3, 17)
    assert fuzz.fuzz_input(corpus, ops, 3, 17) == first
    assert first[1] != first[0].path.read_text()  # mutated


def test_fixed_seeded_set_has_no_traceback_or_hang() -> None:
    counts, reports = fuzz.campaign(FIXED_SEED, range(FIXED_COUNT), timeout=60)
    failures = [r for r in reports if r.startswith(fuzz.FAILURES)]
    assert not failures, "\n\n".join(failures)
    assert sum(counts.values()) == FIXED_COUNT
    assert counts["ok"] > 0 and counts["diagnostic"] > 0  # the harness runs kiln-opt for real


def test_outcomes() -> None:
    def reply(rc: int, stderr: str = "", escaped: str | None = None) -> dict[str, object]:
        return {"rc": rc, "stdout": "", "stderr": stderr, "escaped": escaped}

    assert fuzz.classify(reply(-1, escaped="Traceback ...\nIndexError")).kind == "traceback"
    assert fuzz.classify(reply(1, "Traceback (most recent call last):\n  File")).kind == "traceback"
    assert fuzz.classify(reply(1, "kiln-opt: internal error in pass p at f.mlir:1:1 ('x.y'): E: m")).kind == "internal"
    assert fuzz.classify(reply(1, "kiln-opt: error: f.mlir:1:1 expected type")).kind == "diagnostic"
    user_bug = "kiln-opt: error: in pass p at f.mlir:2:3 ('x.y'): IndexError: m\n  File \"/u/mine.py\", line 9, in apply\n    [][0]"
    assert fuzz.classify(reply(1, user_bug)).kind == "user"
    assert fuzz.classify(reply(0)).kind == "ok"


# ------------------------------------------------------------- a user's lit tests and passes

USER_PASSES = '''\
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import AnyTensorTypeConstr
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, VarConstraint, irdl_op_definition, operand_def, result_def
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

import kiln
from kiln.dialects import graph


@irdl_op_definition
class SoftplusOp(IRDLOperation):
    name = "mine.softplus"
    T: ClassVar = VarConstraint("T", AnyTensorTypeConstr)
    x = operand_def(T)
    result = result_def(T)
    assembly_format = "$x attr-dict `:` type($result)"


kiln.register_dialect(Dialect("mine", [SoftplusOp]))


class LowerSoftplus(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SoftplusOp, rewriter: PatternRewriter) -> None:
        ops = [graph.ExpOp(op.x)]
        rewriter.replace(op, [*ops, graph.Log1pOp(ops[-1].result)])


@kiln.register_pass
@dataclass(frozen=True)
class LowerMine(ModulePass):
    name = "lower-mine"

    def apply(self, ctx, op) -> None:
        PatternRewriteWalker(LowerSoftplus()).rewrite_module(op)
'''

USER_LIT = '''\
// RUN: kiln-opt %s -p lower-mine | filecheck %s
// RUN: kiln-opt %s -p lower-mine,graph-to-c -t c | filecheck %s --check-prefix=C
// CHECK: graph.log1p
// C: log1p
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = mine.softplus %x : tensor<4xf32>
  %a = graph.add %s, %y : tensor<4xf32>
  func.return %a : tensor<4xf32>
}
'''


def _user_project(tmp_path: Path) -> Path:
    (tmp_path / "mine.py").write_text(USER_PASSES)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "softplus.mlir").write_text(USER_LIT)
    (tmp_path / "tests" / "Output").mkdir()  # lit's scratch folder: not a seed
    (tmp_path / "tests" / "Output" / "softplus.mlir").write_text(USER_LIT)
    return tmp_path


def _kiln_fuzz_opt(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``kiln fuzz-opt ARGS`` in ``project``, as a user runs it (the console script of this environment)."""
    kiln = Path(sys.executable).parent / "kiln"
    return subprocess.run([str(kiln), "fuzz-opt", *args], cwd=project, capture_output=True, text=True, timeout=600)


def _counts(stdout: str) -> dict[str, int]:
    summary = stdout.strip().splitlines()[-1]
    assert re.match(r"\d+ mutated inputs", summary), stdout
    return {kind: int(n) for kind, n in re.findall(r"(\w+) (\d+)", summary.split(": ", 1)[1])}


def test_seeds_of_a_users_lit_folder_carry_the_load(tmp_path: Path) -> None:
    project = _user_project(tmp_path)
    corpus = fuzz.seeds([project / "tests"], (project / "mine.py",))
    assert [seed.args for seed in corpus] == [
        ("%s", "-p", "lower-mine", "--load", str(project / "mine.py")),
        ("%s", "-p", "lower-mine,graph-to-c", "-t", "c", "--load", str(project / "mine.py")),
    ]
    assert "mine.softplus" in fuzz._vocabulary(corpus, ("mine",))
    assert "mine.softplus" not in fuzz._vocabulary(corpus)


def test_lit_substitutions_of_the_files_folder(tmp_path: Path) -> None:
    (tmp_path / "t.mlir").write_text("// RUN: kiln-opt %s --load %S/../mine.py -p x\n// RUN: %python -c 1 | kiln-opt %s --load %p/m.py\n")
    corpus = fuzz.seeds([tmp_path / "t.mlir"])
    assert [seed.args for seed in corpus] == [
        ("%s", "--load", f"{tmp_path}/../mine.py", "-p", "x"),
        ("%s", "--load", f"{tmp_path}/m.py"),
    ]


def test_a_users_passes_run_on_mutations_of_their_lit_inputs(tmp_path: Path) -> None:
    """The user's inputs, through the user's dialect and pass: without --load every run would be
    a diagnostic (unknown op, unknown pass); with it, some run through and none crashes."""
    project = _user_project(tmp_path)
    proc = _kiln_fuzz_opt(project, "--lit", "tests", "--load", "mine.py", "--count", "40", "--seed", "1", "-v",
                          "--keep", str(tmp_path / "kept"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = _counts(proc.stdout)
    assert sum(counts.values()) == 40
    assert not [kind for kind in fuzz.FAILURES if counts[kind]], proc.stdout
    assert counts["ok"] > 0 and counts["diagnostic"] > 0, counts
    assert "'mine.softplus'->" in proc.stdout or "->'mine.softplus'" in proc.stdout  # the user's op is mutated too

    assert counts["user"] == 0, proc.stdout

    without = _kiln_fuzz_opt(project, "--lit", "tests", "--count", "10", "--seed", "1")
    assert _counts(without.stdout)["ok"] == 0, without.stdout


def test_a_bug_in_a_users_pass_is_reported_with_the_input_kept(tmp_path: Path) -> None:
    """An exception in the user's pass is kiln-opt's error with the user's frames: counted as
    ``user`` and reported, not lost among the diagnostics."""
    project = _user_project(tmp_path)
    (project / "mine.py").write_text(USER_PASSES.replace("ops = [graph.ExpOp(op.x)]", "ops = [][0]"))
    proc = _kiln_fuzz_opt(project, "--lit", "tests", "--load", "mine.py", "--count", "20", "--seed", "1",
                          "--keep", str(tmp_path / "kept"))
    assert proc.returncode == 0, proc.stdout + proc.stderr  # tolerated, as internal errors are
    assert _counts(proc.stdout)["user"] > 0, proc.stdout
    assert re.search(r"^user: input \d+ of seed 1: .*; input kept in .*kept", proc.stdout, re.M), proc.stdout
    assert f'File "{project / "mine.py"}", line' in proc.stdout


def test_lit_is_required_outside_a_checkout_of_kiln(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(fuzz, "LIT", None)
    assert kiln_cli.main(["fuzz-opt", "--count", "1"]) == 1
    assert "--lit is required" in capsys.readouterr().err
