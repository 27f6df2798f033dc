"""kiln-opt never shows a Python traceback: the inputs that did (issue 12) end in a diagnostic
naming what is wrong, or in an internal error report naming the pass and the op's location with
the input kept for a bug report."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from child_signals import sigint_as_a_terminal_gives_it
from xdsl.dialects import arith
from xdsl.parser import Parser

from kiln.backends.c import emitter
from kiln.backends.c.dispatch import HANDLERS
from kiln.backends.c.errors import CEmitError
from kiln.universe import make_context

ROOT = Path(__file__).resolve().parent.parent
KILN_OPT = Path(sys.executable).with_name("kiln-opt")


def kiln_opt(tmp_path: Path, *args: str, source: str | None = None, status: int = 1) -> subprocess.CompletedProcess[str]:
    if source is not None:
        (tmp_path / "input.mlir").write_text(source)
        args = (str(tmp_path / "input.mlir"), *args)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run([str(KILN_OPT), *args], capture_output=True, text=True, env=env, timeout=300,
                          preexec_fn=sigint_as_a_terminal_gives_it)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    assert proc.returncode == status, proc.stderr
    return proc


MATMUL_WITHOUT_OUTS = """
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>)
  func.return
}
"""

TRANSFER = """
func.func @f(%m: memref<8xf32>, %o: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0], %pad : memref<8xf32>, vector<VT>
  vector.transfer_write %v, %o[%c0] : vector<VT>, memref<8xf32>
  func.return
}
"""

BRANCHES_ON_MEMREFS = """
func.func @f(%m: memref<4xf32>, %c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  func.return
^b:
  func.return
}
"""


def test_matmul_without_outs_is_a_parse_error(tmp_path: Path) -> None:
    proc = kiln_opt(tmp_path, source=MATMUL_WITHOUT_OUTS)
    assert "input.mlir:3:17" in proc.stderr
    assert "'linalg.matmul' has too few ins(...)/outs(...) operands" in proc.stderr


@pytest.mark.parametrize("vector_type", ["f32", "8xf32"])
def test_c_target_names_the_vector_transfer(tmp_path: Path, vector_type: str) -> None:
    proc = kiln_opt(tmp_path, "-t", "c", source=TRANSFER.replace("VT", vector_type))
    assert proc.stderr.startswith("kiln-opt: error: C backend: 'vector.transfer_read'"), proc.stderr


def _internal_error_or_diagnostic(proc: subprocess.CompletedProcess[str], tmp_path: Path, pass_name: str) -> None:
    """A pass may still crash on IR of the wrong level: then the report names it and keeps the
    input. A diagnostic of the pass's own (``kiln-opt: error: P: ...``) would do too; a bare
    Python message as the error (``error: zip() argument 2 is longer...``) would not."""
    first = proc.stderr.splitlines()[0]
    if "internal error" not in first:
        assert first.startswith(f"kiln-opt: error: {pass_name}: "), proc.stderr
        return
    assert re.match(rf"kiln-opt: internal error in pass {pass_name} at \S+:\d+:\d+ \('[a-z_.]+'\): \w+: ", first), first
    (kept,) = (tmp_path / "kiln-opt-crashes").glob("*.mlir")
    assert str(kept) in proc.stderr
    assert "Traceback (most recent call last)" in kept.read_text()


def test_pipeline_on_ir_of_another_level(tmp_path: Path) -> None:
    """linalg on memrefs given to graph-to-c (it printed `error: zip() argument 2 is longer than
    argument 1`): kiln-bufferize leaves ops that are already on buffers alone, so it compiles."""
    conv = ROOT / "tests/lit/passes/linalg-conv-to-kernel.mlir"
    proc = kiln_opt(tmp_path, str(conv), "-p", "graph-to-c", "-t", "c", status=0)
    assert "void layer(" in proc.stdout


def test_tensor_to_buffer_on_branches_over_memrefs(tmp_path: Path) -> None:
    proc = kiln_opt(tmp_path, "-p", "tensor-to-buffer", source=BRANCHES_ON_MEMREFS)
    _internal_error_or_diagnostic(proc, tmp_path, "kiln-bufferize")


def test_c_emitter_names_the_op_whose_rule_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_rule(em: object, op: object) -> None:
        raise IndexError("tuple index out of range")

    monkeypatch.setitem(HANDLERS, arith.AddfOp, broken_rule)
    source = 'func.func @f(%a: f32) -> f32 {\n  %s = arith.addf %a, %a : f32 loc("m.py":3:4)\n  func.return %s : f32\n}'
    module = Parser(make_context(), source).parse_module()
    with pytest.raises(CEmitError, match=r"C backend: 'arith.addf' at loc\(\"m.py\":3:4\): .*IndexError: tuple index"):
        emitter.emit_c(module, isa="scalar")


def _many_functions(count: int) -> str:
    """``count`` small functions of graph IR."""
    return "\n".join(
        f"func.func @f{i}(%x: tensor<64xf32>) -> tensor<64xf32> {{\n"
        f"  %a = graph.add %x, %x : tensor<64xf32>\n  func.return %a : tensor<64xf32>\n}}"
        for i in range(count)
    )


def test_a_closed_output_ends_quietly(tmp_path: Path) -> None:
    """`kiln-opt ... | head -1`: the reader goes away; kiln-opt stops as Unix tools do, with no
    message and no crash report (it reported an internal error, BrokenPipeError)."""
    # one write per chunk, 150 KiB in all: writes after the reader has gone fail
    (tmp_path / "input.mlir").write_text("\n// -----\n".join(_many_functions(1) for _ in range(1000)))
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([str(KILN_OPT), str(tmp_path / "input.mlir"), "--split-input-file"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"builtin.module")
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141, stderr  # 128 + SIGPIPE, as the shell reports `cat big | head -1`
    assert stderr == ""
    assert not (tmp_path / "kiln-opt-crashes").exists()


INTERRUPTING_PASS = '''
import os, signal, time
from dataclasses import dataclass
from xdsl.passes import ModulePass
import kiln


@kiln.register_pass
@dataclass(frozen=True)
class Interrupt(ModulePass):
    name = "test-interrupt"

    def apply(self, ctx, op):
        os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C while the pass runs
        time.sleep(60)
'''


def test_ctrl_c_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C printed ~60 lines of traceback through xDSL: now one line, and the shell's 130."""
    (tmp_path / "interrupt.py").write_text(INTERRUPTING_PASS)
    proc = kiln_opt(tmp_path, "--load", str(tmp_path / "interrupt.py"), "-p", "cse,test-interrupt",
                    source=_many_functions(1), status=130)
    assert proc.stderr == "kiln-opt: interrupted\n"
    assert proc.stdout == ""


#: a pipeline that brings graph IR to what each target takes
PIPELINE_FOR_TARGET = {"mlir": "graph-to-tensor", "c": "graph-to-c", "cuda": "graph-to-cuda"}


def test_every_offered_target_works(tmp_path: Path) -> None:
    """-t llvm and -t x86-asm were offered and ended in an internal error, -t wgsl printed
    nothing: each target kiln-opt offers prints a program from graph IR lowered for it."""
    from kiln.tools.kiln_opt import KilnOptMain

    offered = list(KilnOptMain(args=[]).available_targets)
    assert set(offered) == set(PIPELINE_FOR_TARGET)
    for target in offered:
        proc = kiln_opt(tmp_path, "-p", PIPELINE_FOR_TARGET[target], "-t", target, source=_many_functions(1), status=0)
        assert "f0" in proc.stdout, target
