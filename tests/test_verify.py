"""``KILN_VERIFY=1``: kiln.function verifies the IR after every pass of every pipeline, and a
pass that leaves IR xDSL's verifier refuses is named, with the op and the user's line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, IntegerAttr, ModuleOp, StringAttr, i32, i64
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import kiln
from kiln import pipelines, registry
from kiln.frontend.concrete import KilnCompileError


@dataclass(frozen=True)
class BreakIR(ModulePass):
    """Adds an ``arith.addi`` of an i32 and an i64 (which does not verify) at the first located op."""

    name = "test-break-ir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fn = next(o for o in op.ops if isinstance(o, func.FuncOp))
        first = next(o for o in fn.walk() if isinstance(o.location, FileLineColLoc))
        a, b = arith.ConstantOp(IntegerAttr(1, i32)), arith.ConstantOp(IntegerAttr(1, i64))
        bad = arith.AddiOp.create(operands=[a.result, b.result], result_types=[i32])
        for new in (a, b, bad):
            new.location = first.location
            Rewriter.insert_op(new, InsertPoint.before(first))


@pytest.fixture
def broken_tensor_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tensor stage ends with ``test-break-ir``."""
    monkeypatch.setitem(registry.USER_PASSES, BreakIR.name, lambda: BreakIR)
    monkeypatch.setitem(pipelines.STAGES, "tensor", pipelines.STAGES["tensor"] + ",test-break-ir")


def scale(x: Any) -> Any:
    return x * 2  # the line the error names


def test_verify_names_the_pass_the_op_and_the_users_line(broken_tensor_stage: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pipelines.VERIFY_ENV, "1")
    line = scale.__code__.co_firstlineno + 1
    cf = kiln.function(scale).get_concrete_function(np.ones(4, np.float32))
    with pytest.raises(KilnCompileError, match=rf"compiling scale: the IR after pass test-break-ir does not verify: "
                                               rf"'arith.addi' at {__file__}:{line}:\d+: .*"):
        cf.source


def test_verify_checks_the_users_passes_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pipelines.VERIFY_ENV, "1")
    cf = kiln.function(scale, passes={"tensor": [BreakIR()]}).get_concrete_function(np.ones(4, np.float32))
    with pytest.raises(KilnCompileError, match=r"the IR after pass test-break-ir does not verify: 'arith.addi'"):
        cf.source


def test_verify_checks_the_traced_ir_before_the_first_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pipelines.VERIFY_ENV, "1")
    module = ModuleOp([])
    BreakIR().apply(Context(), _located_function(module))
    with pytest.raises(pipelines.IRVerifyError, match=r"the IR after the input of pass canonicalize does not verify: "
                                                      r"'arith.addi' at f.py:3:1"):
        pipelines.verify_after_each_pass(None, module, _Named())


def test_without_verify_the_pipeline_runs_no_verifier(broken_tensor_stage: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The switch is off by default: the broken IR reaches the next pass unchecked (here the
    passes after it do not mind it), so the cost of verifying is paid only when asked for."""
    monkeypatch.delenv(pipelines.VERIFY_ENV, raising=False)
    assert not pipelines.verifying()
    cf = kiln.function(scale).get_concrete_function(np.ones(4, np.float32))
    assert "func.func public @scale" in cf.lowered("tensor")
    assert "arith.addi" in cf.lowered("tensor")


def test_verifying_is_part_of_the_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A verifying run lowers (and so verifies) what a run without verification cached."""
    monkeypatch.setenv(pipelines.VERIFY_ENV, "0")
    plain = pipelines.stages_fingerprint(("tensor", "buffer", "loops"))
    monkeypatch.setenv(pipelines.VERIFY_ENV, "1")
    assert pipelines.verifying()
    assert pipelines.stages_fingerprint(("tensor", "buffer", "loops")) != plain


def _located_function(module: ModuleOp) -> ModuleOp:
    """``module`` with one function whose return is at f.py:3:1."""
    fn = func.FuncOp("f", ((), ()))
    ret = func.ReturnOp()
    ret.location = FileLineColLoc(StringAttr("f.py"), IntAttr(3), IntAttr(1))
    fn.body.block.add_op(ret)
    module.body.block.add_op(fn)
    return module


class _Named(ModulePass):
    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise AssertionError("not run")
