"""``kiln.function(passes=...)``: a user's pass at a named stage, what ``lowered`` shows of it,
compile caches that key on the pass's code and on kiln's own pipeline, and errors at decoration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln import pipelines
from kiln.tools._load import load_file

#: a pass that makes every graph.add a graph.mul, and one that makes arith.addf a subf: both wrong
#: on purpose, so that C compiled without them (a stale cache entry) shows in the results
PASS_FILE = '''
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

import kiln
from kiln.dialects import graph


class AddIsMul(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.AddOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, graph.{NEW}(op.lhs, op.rhs))


class AddfIsSubf(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddfOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, arith.SubfOp(op.lhs, op.rhs))


@kiln.register_pass
@dataclass(frozen=True)
class GraphPass(ModulePass):
    name = "test-add-is-mul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(AddIsMul()).rewrite_module(op)


@kiln.register_pass
@dataclass(frozen=True)
class LoopsPass(ModulePass):
    name = "test-addf-is-subf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(AddfIsSubf()).rewrite_module(op)
'''


def _load(tmp_path: Path, new_op: str = "MulOp", stem: str = "user_passes_mod"):
    path = tmp_path / f"{stem}.py"
    path.write_text(PASS_FILE.replace("{NEW}", new_op))
    return load_file(path)


def add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x + y


X, Y = np.arange(1.0, 9.0), np.full(8, 3.0)


def test_graph_pass_by_spec_and_instance(tmp_path: Path) -> None:
    mod = _load(tmp_path)
    assert kiln.function(add, passes="test-add-is-mul")(X, Y).tolist() == (X * Y).tolist()
    assert kiln.function(add, passes=[mod.GraphPass()])(X, Y).tolist() == (X * Y).tolist()
    assert kiln.function(add, passes={"graph": "test-add-is-mul,cse"})(X, Y).tolist() == (X * Y).tolist()
    assert kiln.function(add)(X, Y).tolist() == (X + Y).tolist()


def test_loops_pass_runs_before_the_emitter_and_shows_in_lowered(tmp_path: Path) -> None:
    mod = _load(tmp_path)
    f = kiln.function(add, passes={"loops": [mod.LoopsPass()]})
    assert f(X, Y).tolist() == (X - Y).tolist()
    loops = f.get_concrete_function(X, Y).lowered("loops")
    assert "arith.subf" in loops and "arith.addf" not in loops
    plain = kiln.function(add).get_concrete_function(X, Y).lowered("loops")
    assert "arith.addf" in plain


def test_plan_cache_keys_on_the_pass_code(tmp_path: Path) -> None:
    """The same pass name, its file edited between two decorations: each compiles its own C."""
    _load(tmp_path, "MulOp", "edited_pass")
    assert kiln.function(add, passes="test-add-is-mul")(X, Y).tolist() == (X * Y).tolist()
    _load(tmp_path, "SubOp", "edited_pass")
    assert kiln.function(add, passes="test-add-is-mul")(X, Y).tolist() == (X - Y).tolist()
    _load(tmp_path, "MulOp", "edited_pass")
    assert kiln.function(add, passes="test-add-is-mul")(X, Y).tolist() == (X * Y).tolist()


def test_plan_cache_keys_on_kiln_stages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program that edits kiln.pipelines.STAGES gets C lowered by the edited pipeline (the plan
    cache served the C of the unedited one)."""
    _load(tmp_path)
    assert kiln.function(add)(X, Y).tolist() == (X + Y).tolist()
    monkeypatch.setitem(pipelines.STAGES, "loops", pipelines.STAGES["loops"] + ",test-addf-is-subf")
    assert kiln.function(add)(X, Y).tolist() == (X - Y).tolist()


@pytest.mark.parametrize(
    ("passes", "error", "message"),
    [
        ({"parallel": "cse"}, ValueError, "stage 'parallel'; this target's stages are graph, tensor, buffer, loops"),
        ("no-such-pass", ValueError, "Unrecognized passes: ['no-such-pass']"),
        ("cse{", ValueError, "Expected argument name here"),
        ("cse{width=3}", ValueError, "not found in expected arguments"),
        ([object()], TypeError, "takes xDSL ModulePass instances or a pipeline spec"),
    ],
)
def test_errors_at_decoration(passes: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as e:
        kiln.function(add, passes=passes)  # type: ignore[arg-type]
    assert message in str(e.value)


def test_a_pass_class_instead_of_an_instance_says_so(tmp_path: Path) -> None:
    mod = _load(tmp_path)
    with pytest.raises(TypeError, match=r"an instance is needed: MyPass\(\), not MyPass"):
        kiln.function(add, passes=[mod.GraphPass])


def test_cuda_stages_are_its_own() -> None:
    f = kiln.function(add, target="cuda", passes={"gpu": "cse", "parallel": "cse"})
    assert set(f.passes.by_stage) == {"gpu", "parallel"}
    with pytest.raises(ValueError, match="graph, tensor, buffer, parallel, gpu"):
        kiln.function(add, target="cuda", passes={"loops": "cse"})



#: PASS_FILE with its replacement op taken from a helper module of the user's, ``edited_helper``
HELPER_PASS_FILE = PASS_FILE.replace("graph.{NEW}", "edited_helper.NEW").replace("import kiln\n", "import edited_helper\nimport kiln\n")


def test_plan_cache_keys_on_the_modules_a_pass_imports(tmp_path: Path) -> None:
    """The pass file unchanged, the helper module it imports edited (as between two runs):
    each compiles its own C (docs/writing-passes.md: an edited pass never runs stale C)."""
    (tmp_path / "helper_pass.py").write_text(HELPER_PASS_FILE)
    results = []
    for new_op in ("MulOp", "SubOp", "MulOp"):
        (tmp_path / "edited_helper.py").write_text(f"from kiln.dialects import graph\n\nNEW = graph.{new_op}\n")
        load_file(tmp_path / "edited_helper.py")
        load_file(tmp_path / "helper_pass.py")
        results.append(kiln.function(add, passes="test-add-is-mul")(X, Y).tolist())
    assert results == [(X * Y).tolist(), (X - Y).tolist(), (X * Y).tolist()]
