"""The rule language (docs/rules.md): a user's rule file through kiln-opt and kiln.function,
compared with NumPy; cache keys that follow the rule text; kiln's own rules exact bit for bit;
the language's patterns, guards, natives and errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern

import kiln
from kiln.passes import _rule_files
from kiln.passes.rules import RuleError, library_files, load_rules
from kiln.universe import build_pipeline, make_context
from kiln.tools import kiln_opt
from kiln.tools._load import load_file

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ROOT / "tests" / "lit" / "Inputs"
USER_RULES = INPUTS / "user.rules"


@pytest.fixture(scope="module", autouse=True)
def user_natives() -> None:
    """The natives user.rules calls (what ``kiln-opt --load`` does)."""
    load_file(INPUTS / "rule_natives.py")


def _bits(a: np.ndarray) -> np.ndarray:
    """The array's bytes as unsigned integers, so that -0.0 and NaN payloads compare too."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind in "fc" and a.dtype.itemsize <= 8 else a.view("u1")


def _same(got: object, want: object) -> None:
    """Equal type, shape, dtype and bits, leaf by leaf."""
    got_leaves = got if isinstance(got, tuple) else (got,)
    want_leaves = want if isinstance(want, tuple) else (want,)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        w = np.asarray(w)
        assert isinstance(g, np.ndarray) and g.shape == w.shape and g.dtype == w.dtype, (g, w)
        np.testing.assert_array_equal(_bits(g), _bits(w))


# --------------------------------------------------------------------------- a user's rule file


def user_model(x: np.ndarray, i: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, ...]:
    return x * 2, i * 8, s.astype(np.int16).astype(np.int64), i * 2


SPECIAL_F32 = np.array([0.0, -0.0, 1.5, -3.25, np.inf, -np.inf, np.nan, 3e38], dtype=np.float32)
SPECIAL_I32 = np.array([0, 1, -1, 7, 2**28, -(2**31), 2**31 - 1, 12345], dtype=np.int32)
SPECIAL_I8 = np.array([0, 1, -1, 127, -128, 5, -5, 64], dtype=np.int8)


def test_user_rules_through_kiln_function_match_numpy() -> None:
    f = kiln.function(user_model, rules=USER_RULES)
    with np.errstate(all="ignore"):
        want = user_model(SPECIAL_F32, SPECIAL_I32, SPECIAL_I8)
    _same(f(SPECIAL_F32, SPECIAL_I32, SPECIAL_I8), want)
    tensor = f.get_concrete_function(SPECIAL_F32, SPECIAL_I32, SPECIAL_I8).lowered("tensor")
    # the rules ran: x * 2 is an addition, i * 8 a shift, the two casts one
    assert "arith.shli" in tensor and "arith.muli" not in tensor and "arith.mulf" not in tensor
    assert tensor.count("arith.extsi") == 1
    plain = kiln.function(user_model).get_concrete_function(SPECIAL_F32, SPECIAL_I32, SPECIAL_I8).lowered("tensor")
    assert "arith.muli" in plain and "arith.shli" not in plain


def test_user_rules_through_kiln_opt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    traced = kiln.function(user_model).get_concrete_function(SPECIAL_F32, SPECIAL_I32, SPECIAL_I8).ir
    src = tmp_path / "model.mlir"
    src.write_text(traced)
    assert kiln_opt.main([str(src), "--rules", str(USER_RULES)]) == 0
    out = capsys.readouterr().out
    assert "graph.left_shift %i" in out and "graph.add %x, %x" in out and "graph.mul" not in out
    assert out.count("graph.cast") == 1
    # the same rules as a pass, then lowered to C by the decorator's pipeline
    assert kiln_opt.main([str(src), "-p", f'apply-rules{{file="{USER_RULES}"}},graph-to-c', "-t", "c"]) == 0
    assert "<< " in capsys.readouterr().out


def test_rule_errors_point_at_the_rule_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text("rule r:\n    graph.neg(x)\n    if x.rank > 0\n    => graph.relu(x, x)\n")
    with pytest.raises(RuleError) as e:
        kiln.function(user_model, rules=bad)
    assert str(e.value).startswith(f"{bad}:4:8: graph.relu takes 1 operand, the replacement gives 2")
    assert (e.value.pos.line, e.value.pos.column) == (4, 8)


# --------------------------------------------------------------------------- no stale code


def add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x + y


def test_plan_cache_keys_on_the_rule_text(tmp_path: Path) -> None:
    """One function, one traced IR, rule files that differ: each compiles its own C. (The rule
    below is deliberately wrong, so that a plan served from the wrong entry would show.)"""
    rules = tmp_path / "r.rules"
    x, y = np.arange(4.0), np.full(4, 10.0)
    rules.write_text("rule keep: graph.neg(graph.neg(v)) => v\n")
    assert kiln.function(add, rules=rules)(x, y).tolist() == (x + y).tolist()
    rules.write_text("rule wrong: graph.add(a, b) => graph.sub(a, b)\n")
    assert kiln.function(add, rules=rules)(x, y).tolist() == (x - y).tolist()
    rules.write_text("rule keep: graph.neg(graph.neg(v)) => v\n")
    assert kiln.function(add, rules=rules)(x, y).tolist() == (x + y).tolist()
    assert kiln.function(add)(x, y).tolist() == (x + y).tolist()


def test_fingerprint_follows_natives(tmp_path: Path) -> None:
    rules = tmp_path / "n.rules"
    rules.write_text("rule r: graph.neg(x) if pick(x) => x\n")

    @kiln.register_rule_native(name="pick")
    def pick_one(x: object) -> bool:
        return True

    first = load_rules(rules).fingerprint
    assert load_rules(rules).fingerprint == first  # unchanged: the same (cached) set

    @kiln.register_rule_native(name="pick")
    def pick_two(x: object) -> bool:
        return False

    assert load_rules(rules).fingerprint != first


# --------------------------------------------------------------------------- kiln's own rules


def neutral(x: np.ndarray, i: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    return (
        x * 1.0,
        x + (-0.0),
        x + 0.0,  # not x: -0.0 + 0.0 is 0.0
        x - 0.0,
        -(-x),
        np.maximum(x, x),
        np.where(b, x, x),
        x.astype(np.float64).astype(np.float32),
        np.abs(-i),
        i + 0,
        i * 1,
        i - i,
        np.floor(np.ceil(x)),
        x.reshape(2, 4).reshape(8),
        ~~b,
    )


def test_graph_simplify_is_exact_bit_for_bit() -> None:
    i = np.array([0, -1, 1, -128, 127, 3, -7, 100], dtype=np.int8)
    b = np.array([True, False] * 4)
    with np.errstate(all="ignore"):
        want = neutral(SPECIAL_F32, i, b)
    f = kiln.function(neutral, rules=[str(p) for p in library_files("graph")])
    _same(f(SPECIAL_F32, i, b), want)
    tensor = f.get_concrete_function(SPECIAL_F32, i, b).lowered("tensor")
    assert "arith.negf" not in tensor and "arith.mulf" not in tensor and "math.floor" not in tensor
    assert "arith.addf" in tensor  # x + 0.0 stays


def transposes(a: np.ndarray) -> tuple[np.ndarray, ...]:
    return a.T.T, np.transpose(np.transpose(a, (1, 2, 0)), (2, 0, 1)), np.transpose(np.transpose(a, (1, 0, 2)), (2, 1, 0))


def test_graph_simplify_transposes() -> None:
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    f = kiln.function(transposes)
    _same(f(a), transposes(a))
    graph = f.get_concrete_function(a).ir
    assert graph.count("graph.transpose") == 6
    ir = run_pipeline(graph, "graph-simplify")
    assert ir.count("graph.transpose") == 1


def run_pipeline(text: str, spec: str) -> str:
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    build_pipeline(spec).apply(ctx, module)
    return str(module)


def test_every_kiln_rule_file_has_a_lit_test() -> None:
    files = library_files()
    assert len(files) >= 5
    for path in files:
        assert (ROOT / "tests" / "lit" / "rules" / f"{path.stem}.mlir").exists(), path.name
    rules = load_rules([f"kiln:{p.stem}" for p in files])
    assert len(rules.patterns) >= 15


def test_the_roots_read_off_kiln_rule_files_are_the_parsers() -> None:
    """The passes skip a kiln rule file whose roots, read off its text, are not in the module:
    those must be the roots the parser finds (else a rule that applies would be skipped)."""
    for path in library_files():
        parsed = load_rules(f"kiln:{path.stem}").patterns
        assert _rule_files.roots(path.read_text()) == set().union(*(p.checked.roots for p in parsed)), path.name
    text = ("# graph.abs(x) => x\n"
            "rule r: (graph.neg(graph.mul(a, b)) | graph.exp(c)) as n if n.rank == 0 => graph.sub(a, b)\n")
    assert _rule_files.roots(text) == {"graph.neg", "graph.exp"}


def test_kiln_rule_files_that_cannot_apply_are_skipped(tmp_path: Path) -> None:
    """A kiln file is kept when its roots are ops of the module or of a file kept (which may
    build them); a user's file always is."""
    module = Parser(make_context(), fn("%x: tensor<2xf32>", "  %0 = graph.neg %x : tensor<2xf32>", "%0",
                                       "tensor<2xf32>")).parse_module()
    assert _rule_files.applicable(["kiln:matmul-scale", "kiln:graph-involutions"], module) == ["kiln:graph-involutions"]
    builds_matmul = tmp_path / "b.rules"
    builds_matmul.write_text("rule m: graph.neg(x) => graph.matmul(x, x)\n")
    specs = ["kiln:matmul-scale", str(builds_matmul)]
    assert _rule_files.applicable(specs, module) == specs
    assert _rule_files.applicable([str(tmp_path / "missing.rules")], module) == [str(tmp_path / "missing.rules")]


def test_a_function_no_kiln_rule_applies_to_imports_no_rule_language(tmp_path: Path) -> None:
    """Compiling a function none of kiln's rule files can rewrite (no product, no float
    product, no select) neither imports the rule language nor lark; its result is NumPy's."""
    script = tmp_path / "no_rules.py"
    script.write_text(
        "import sys\nimport numpy as np\nimport kiln\n\n"
        "@kiln.function\ndef f(x, y):\n    return x + y - 1\n\n"
        "x = np.arange(6.0).reshape(2, 3)\n"
        "assert (f(x, x) == x + x - 1).all()\n"
        "print(sorted(m for m in ('lark', 'kiln.passes.rules') if m in sys.modules))\n"
    )
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_later_process_reads_kiln_rule_files_parsed_before(tmp_path: Path) -> None:
    """kiln.function keeps the syntax trees of the rule files it parses in the cache directory:
    a later process compiling another function the same files rewrite neither imports lark nor
    parses them, and its results are NumPy's."""
    script = tmp_path / "rules_twice.py"
    script.write_text(
        "import sys\nimport numpy as np\nimport kiln\n\n"
        "@kiln.function\ndef f(x):\n    return x * float(sys.argv[1]) - 1\n\n"
        "x = np.arange(6.0).reshape(2, 3)\n"
        "assert (f(x) == x * float(sys.argv[1]) - 1).all()\n"
        "print('lark' in sys.modules)\n"
    )
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, str(script), factor], env=env, capture_output=True, text=True, check=True)
            for factor in ("2.0", "3.0")]  # x * 2.0 -> x + x: kiln:loops-arith applies to both
    assert [r.stdout.strip() for r in runs] == ["True", "False"]


def test_stored_syntax_trees_follow_the_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule file's stored syntax tree is found for the same text and name only."""
    from kiln.frontend import plan_cache
    from kiln.passes import _parse_store
    from kiln.passes.rules import grammar, reader, syntax

    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_parse_store, "_hooks", None)
    plan_cache.keep_rule_syntax()
    text = "rule r: graph.neg(graph.neg(x)) => x\n"
    first = reader.parse(text, "a.rules")
    parsed: list[str] = []
    monkeypatch.setattr(grammar, "parse_text", lambda source: parsed.append(source.name) or syntax.RuleFile(source))
    assert reader.parse(text, "a.rules") == first and parsed == []
    assert reader.parse(text, "b.rules").source.name == "b.rules" and parsed == ["b.rules"]
    assert reader.parse(text.replace("neg", "abs"), "a.rules").rules == () and parsed == ["b.rules", "a.rules"]


# --------------------------------------------------------------------------- the language


def rewrite(tmp_path: Path, rules_text: str, ir: str) -> str:
    path = tmp_path / "t.rules"
    path.write_text(rules_text)
    module = Parser(make_context(), ir).parse_module()
    load_rules(path).apply(module)
    module.verify()
    return str(module)


def fn(args: str, body: str, ret: str, types: str) -> str:
    """A function of ``args`` returning ``ret`` (of the comma-separated ``types``)."""
    return f"func.func @f({args}) -> ({types}) {{\n{body}\n  func.return {ret} : {types}\n}}"


def test_compile_to_rewrite_patterns(tmp_path: Path) -> None:
    path = tmp_path / "p.rules"
    path.write_text("rule a: graph.neg(graph.neg(x)) => x\nrule b benefit 3: graph.abs(graph.abs(y) as i) => i\n")
    patterns = load_rules(path).rewrite_patterns()
    assert all(isinstance(p, RewritePattern) for p in patterns)
    assert [p.name for p in patterns] == ["b", "a"]  # by benefit
    module = Parser(make_context(), fn("%x: tensor<2xf32>", "  %0 = graph.neg %x : tensor<2xf32>\n"
                                       "  %1 = graph.neg %0 : tensor<2xf32>", "%1", "tensor<2xf32>")).parse_module()
    PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(module)
    assert "graph.neg" not in str(module)
    assert isinstance(module, ModuleOp)


def test_benefit_orders_rules_on_the_same_op(tmp_path: Path) -> None:
    ir = fn("%x: tensor<2xf32>", "  %0 = graph.neg %x : tensor<2xf32>", "%0", "tensor<2xf32>")
    low_first = "rule low: graph.neg(x) => graph.abs(x)\nrule high benefit 5: graph.neg(x) => graph.relu(x)\n"
    assert "graph.relu" in rewrite(tmp_path, low_first, ir)


def test_keyword_patterns_alternatives_and_captures(tmp_path: Path) -> None:
    body = (
        '  %0 = graph.cmp "lt", %x, %y : tensor<2xf32> -> tensor<2xi1>\n'
        '  %1 = graph.cmp "gt", %x, %y : tensor<2xf32> -> tensor<2xi1>\n'
        '  %2 = graph.cmp "eq", %x, %y : tensor<2xf32> -> tensor<2xi1>'
    )
    ir = fn("%x: tensor<2xf32>, %y: tensor<2xf32>", body, "%0, %1, %2", "tensor<2xi1>, tensor<2xi1>, tensor<2xi1>")
    rules = (
        "# a > b is b < a\n"
        'rule flip_gt: graph.cmp(a, b, predicate="gt" | "ge" as p) => graph.cmp(b, a, predicate=flipped(p))\n'
    )

    @kiln.register_rule_native
    def flipped(p: str) -> str:
        return {"gt": "lt", "ge": "le"}[p]

    out = rewrite(tmp_path, rules, ir)
    assert 'graph.cmp "lt", %y, %x' in out and 'graph.cmp "gt"' not in out and 'graph.cmp "eq", %x, %y' in out


def test_op_attributes_win_over_value_attributes(tmp_path: Path) -> None:
    ir = fn("%x: tensor<3xf32>", '  %0 = graph.scan "add", %x axis 0 : tensor<3xf32> -> tensor<3xf32>\n'
            '  %1 = graph.scan "max", %0 axis 0 : tensor<3xf32> -> tensor<3xf32>', "%1", "tensor<3xf32>")
    rules = 'rule r: graph.scan(x) as s if s.kind == "max" and s.type.kind == "float" and x.kind == "float" => x\n'
    out = rewrite(tmp_path, rules, ir)
    assert 'graph.scan "add"' in out and 'graph.scan "max"' not in out
    with pytest.raises(RuleError, match="'s' is bound twice"):
        rewrite(tmp_path, "rule r: graph.add(s, y) as s => y\n", ir)


def test_star_pattern(tmp_path: Path) -> None:
    body = (
        "  %0 = graph.concat %x, %y axis 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>\n"
        "  %1 = graph.concat %x, %y, %x axis 0 : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<6xf32>"
    )
    ir = fn("%x: tensor<2xf32>, %y: tensor<2xf32>", body, "%0, %1", "tensor<4xf32>, tensor<6xf32>")
    # a concatenation that starts and ends with one value: that value's first copy goes through relu
    rules = (
        "rule ends_alike: graph.concat(first, *rest) as c\n"
        "    if len(rest) >= 2 and rest[-1] == first\n"
        "    => graph.concat(graph.relu(first), *rest, axis=c.axis) : c.type\n"
    )
    out = rewrite(tmp_path, rules, ir)
    assert "graph.relu %x" in out
    assert "graph.concat %x, %y axis 0" in out  # the two-operand one did not match
    assert out.count("graph.concat") == 2


def test_multi_result_root_and_erase(tmp_path: Path) -> None:
    ir = (
        'func.func @f(%a: i32, %b: i32) -> (i32, i32) {\n'
        '  %0, %1 = "test.op"(%a, %b) : (i32, i32) -> (i32, i32)\n'
        '  "test.op"() {dead} : () -> ()\n'
        "  func.return %0, %1 : i32, i32\n}"
    )
    out = rewrite(tmp_path, "rule pass_through: test.op(a, b) => a, b\nrule drop: test.op() => erase\n", ir)
    assert "test.op" not in out and "func.return %a, %b" in out


def test_native_rewrite_may_decline(tmp_path: Path) -> None:
    calls: list[str] = []

    @kiln.register_rule_native(rewrite=True)
    def never(b: kiln.RuleBuilder, x: object) -> None:
        calls.append(b.root.name)
        return None

    ir = fn("%x: tensor<2xf32>", "  %0 = graph.neg %x : tensor<2xf32>", "%0", "tensor<2xf32>")
    out = rewrite(tmp_path, "rule r: graph.neg(x) => never(x)\n", ir)
    assert "graph.neg %x" in out and calls == ["graph.neg"]


def test_guard_failure_inside_a_native_points_at_the_rule(tmp_path: Path) -> None:
    @kiln.register_rule_native
    def broken(x: object) -> bool:
        raise ValueError("no")

    ir = fn("%x: tensor<2xf32>", "  %0 = graph.neg %x : tensor<2xf32>", "%0", "tensor<2xf32>")
    with pytest.raises(RuleError) as e:
        rewrite(tmp_path, "rule r: graph.neg(x) if broken(x) => x\n", ir)
    assert str(e.value).startswith(f"{tmp_path / 't.rules'}:1:25: rule r: ValueError: no")


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("rule r: x => x", (1, 9), "a rule's pattern is an op"),
        ("rule r: graph.neg(x) | graph.abs(y) => x", (1, 24), "must bind the same names"),
        ("rule r: graph.neg(x) => graph.abs(y := x)", (1, 35), "':=' belongs in a guard"),
        ("rule r: graph.neg(x) if add_splats(x) => x", (1, 25), "native rewrite: it can only be the replacement"),
        ("rule r graph.neg(x) => x", (1, 8), "unexpected 'graph.neg'; expected ':'"),
        ("rule r: graph.neg(x) => graph.neg(x, axis=1)", (1, 38), "graph.neg has no property or attribute 'axis'"),
        ("rule r: graph.neg(x) => graph.add(x)", (1, 25), "graph.add takes 2 operands, the replacement gives 1"),
        ("rule r: graph.neg(x) => 0", (1, 25), "a constant is not a value of the IR"),
        ("rule r: graph.transpose(x, perm=graph.neg(y)) => x", (1, 33), "not by an op"),
    ],
)
def test_load_errors(tmp_path: Path, text: str, where: tuple[int, int], message: str) -> None:
    path = tmp_path / "e.rules"
    path.write_text(text + "\n")
    with pytest.raises(RuleError) as e:
        load_rules(path)
    assert message in e.value.message
    assert (e.value.pos.line, e.value.pos.column) == where


def test_natives_cannot_take_kiln_or_builtin_names() -> None:
    with pytest.raises(ValueError, match="one of kiln's own natives"):
        kiln.register_rule_native(lambda p: True, name="is_identity")
    with pytest.raises(ValueError, match="builtin"):
        kiln.register_rule_native(lambda p: True, name="splat")


# --------------------------------------------------------------------------- docs/rules.md

DOC = ROOT / "docs" / "rules.md"


def _doc_blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)


def test_docs_show_the_real_grammar() -> None:
    assert _doc_blocks("lark") == [(ROOT / "passes" / "rules" / "rules.lark").read_text()]


def test_docs_examples_load(tmp_path: Path) -> None:
    """Every rule file in docs/rules.md loads, with the natives its Python blocks register."""
    namespace: dict[str, object] = {"__name__": "docs_rules"}  # one namespace, as a reader's session
    for i, code in enumerate(_doc_blocks("python")):
        exec(compile(code, f"{DOC}:python-block-{i}", "exec"), namespace)  # noqa: S102
    blocks = _doc_blocks("rules")
    assert len(blocks) >= 3
    for i, text in enumerate(blocks):
        path = tmp_path / f"block{i}.rules"
        path.write_text(text)
        assert load_rules(path).patterns


def test_rule_files_are_read_beside_the_module_that_names_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``rules="beside.rules"`` in a module is that module's file, wherever Python runs from (a
    file of the same name in the current directory is not read; the rule is deliberately wrong,
    so that which file was read shows in the result)."""
    package, elsewhere = tmp_path / "package", tmp_path / "elsewhere"
    package.mkdir()
    elsewhere.mkdir()
    (package / "beside.rules").write_text("rule wrong: graph.add(a, b) => graph.sub(a, b)\n")
    (elsewhere / "beside.rules").write_text("rule keep: graph.neg(graph.neg(v)) => v\n")
    (package / "model.py").write_text(
        "import kiln\n\n\n@kiln.function(rules='beside.rules')\ndef add(x, y):\n    return x + y\n"
    )
    monkeypatch.chdir(elsewhere)
    model = load_file(package / "model.py")
    x, y = np.arange(4.0), np.full(4, 10.0)
    assert model.add(x, y).tolist() == (x - y).tolist()
