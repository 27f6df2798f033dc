"""kiln.xdsl_patches: the printer's string literals (printed whole, not a byte at a time) are
xDSL's text, and parse back to the string printed; a pass built from a spec evaluates its
type hints only for the arguments the spec gives; canonicalize's dead-code sweep asks only ops
no live op uses for their effects, and is not repeated after a round that changed nothing; an
erased op's nested uses put their producers back on the worklist; an op of fixed arity verifies
on the direct path and fails with xDSL's own message."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

import pytest

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass, PassPipeline
from xdsl.parser import Parser
from xdsl.printer import Printer

from kiln import universe, xdsl_patches
from kiln.universe import make_context


def _printed(attr: StringAttr) -> str:
    out = StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


def test_string_literals_escape_as_xdsl_does() -> None:
    assert _printed(StringAttr('a"b\\c\nd\xff /tmp/x.py')) == '"a\\22b\\\\c\\0Ad\\C3\\BF /tmp/x.py"'


def test_every_byte_prints_and_parses_back() -> None:
    text = "".join(chr(c) for c in range(1, 256)) + "\u2203 end"
    printed = _printed(StringAttr(text))
    parsed = Parser(make_context(), printed).parse_attribute().data  # type: ignore[attr-defined]
    assert (parsed if isinstance(parsed, bytes) else parsed.encode()) == text.encode()  # (xDSL reads it as bytes)
    assert _printed(StringAttr(text)) == printed  # the second print, from the cache, is the same



@dataclass(frozen=True)
class _HintsUnresolvable(ModulePass):
    """A pass whose option's annotation names nothing: evaluating its type hints raises."""

    name = "test-hints-unresolvable"
    level: NoSuchType | None = None  # type: ignore[name-defined]  # noqa: F821

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


def test_a_pass_spec_evaluates_type_hints_only_for_its_arguments() -> None:
    known = {"test-hints-unresolvable": lambda: _HintsUnresolvable}
    (built,) = PassPipeline.parse_spec(known, "test-hints-unresolvable").passes  # (on main: NameError)
    assert isinstance(built, _HintsUnresolvable) and built.level is None
    with pytest.raises(NameError, match="NoSuchType"):  # a spec giving the argument evaluates them
        PassPipeline.parse_spec(known, "test-hints-unresolvable{level=1}")
    (inline,) = universe.build_pipeline("graph-inline-calls{keep-ops=64}").passes
    assert inline.keep_ops == 64  # type: ignore[attr-defined]


_DEAD_SUB = """
func.func @f(%a: f64) -> f64 {
  %c = arith.constant 2.0 : f64
  %x = arith.mulf %a, %c : f64
  %y = arith.addf %x, %c : f64
  %dead = arith.subf %y, %c : f64
  func.return %y : f64
}
"""


#: _DEAD_SUB's ops after the dead sub is erased
_LIVE_OPS = ["func.func", "arith.constant", "arith.mulf", "arith.addf", "func.return"]


def _module(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def test_the_sweep_asks_for_effects_only_ops_without_live_users(monkeypatch: pytest.MonkeyPatch) -> None:
    """The return keeps the add, the mul and the constant live through their uses; only the ops
    no live op uses are asked whether their effects keep them (xDSL asked all six)."""
    asked: list[str] = []
    ask = xdsl_patches._would_be_trivially_dead  # noqa: SLF001

    def recorded(op: object) -> bool:
        asked.append(op.name)  # type: ignore[attr-defined]
        return ask(op)  # type: ignore[arg-type]

    monkeypatch.setattr(xdsl_patches, "_would_be_trivially_dead", recorded)
    module = _module(_DEAD_SUB)
    assert xdsl_patches._region_dce(module.body)  # noqa: SLF001
    assert sorted(asked) == ["arith.subf", "func.func", "func.return"]
    assert [op.name for op in module.walk()][1:] == _LIVE_OPS


def _counted_sweeps(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each of canonicalize's dead-code sweeps from now on returns (whether it erased)."""
    sweeps: list[bool] = []
    sweep = xdsl_patches._region_dce  # noqa: SLF001

    def counted(*args: object) -> bool:
        sweeps.append(sweep(*args))  # type: ignore[arg-type]
        return sweeps[-1]

    monkeypatch.setattr(xdsl_patches, "_region_dce", counted)
    return sweeps


def test_canonicalize_sweeps_only_after_rounds_that_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first round erases the dead sub and the sweep after it finds nothing more; the second
    round changes nothing, and no sweep follows it (xDSL swept twice)."""
    sweeps = _counted_sweeps(monkeypatch)
    module = _module(_DEAD_SUB)
    universe.build_pipeline("canonicalize").apply(make_context(), module)
    assert sweeps == [False]
    assert [op.name for op in module.walk()][1:] == _LIVE_OPS


def _cond_chain(links: int) -> str:
    """Unused ``graph.cond`` ops, each yielding the one before it: an unrolled loop's leftovers."""
    lines = ["func.func @g(%p: tensor<i1>, %a: tensor<f64>) -> tensor<f64> {"]
    last = "%a"
    for i in range(links):
        lines += [f"  %c{i} = graph.cond %p -> (tensor<f64>) {{", f"    graph.yield {last} : tensor<f64>",
                  "  } else {", "    graph.yield %a : tensor<f64>", "  }"]
        last = f"%c{i}"
    return "\n".join([*lines, "  func.return %a : tensor<f64>", "}"])


def test_canonicalize_erases_a_chain_of_dead_conds_in_one_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Erasing a cond puts the cond its branch yielded back on the worklist, now unused, so the
    whole chain goes in the first round and the sweep after it finds nothing (xDSL's walker
    revisited only the erased op's own operands: one round and one whole-module sweep per link)."""
    sweeps = _counted_sweeps(monkeypatch)
    module = _module(_cond_chain(12))
    universe.build_pipeline("canonicalize").apply(make_context(), module)
    assert sweeps == [False]
    assert [op.name for op in module.walk()][1:] == ["func.func", "func.return"]


_KEYED = """
func.func @h(%a: f64, %b: i32) -> f64 {
  %c = arith.constant {kiln.note = "x"} 2.0 : f64
  %x = arith.addf %a, %c fastmath<fast> : f64
  %y = arith.addf %a, %c : f64
  %i = arith.index_cast %b : i32 to index
  %u = "test.unknown"(%x, %i) {k = 1 : i64} : (f64, index) -> f64
  func.return %u : f64
}
"""


def test_cse_hashes_ops_as_xdsl_does() -> None:
    """cse's key hash, computed from the op's fields, is xDSL's formula's value (attributes,
    properties, result types, operands; an unregistered op by its own name)."""
    from xdsl.transforms.common_subexpression_elimination import OperationInfo

    ctx = make_context()
    ctx.allow_unregistered = True
    module = Parser(ctx, _KEYED).parse_module()
    ops = list(module.walk())
    assert any(op.properties for op in ops) and any(op.attributes for op in ops)
    for op in ops:
        if op.regions:
            continue  # (see test_cse_tells_ifs_apart_by_the_outer_values_they_give_back)
        info = OperationInfo(op)
        assert hash(info) == hash((
            info.name,
            sum(hash(i) for i in op.attributes.items()),
            sum(hash(i) for i in op.properties.items()),
            hash(op.result_types),
            hash(op.operands),
        ))
    assert OperationInfo(ops[-2]).name == "test.unknown"


_IFS_ON_ONE_FLAG = """
func.func @g(%c: i1, %a: f64, %b: f64) -> (f64, f64, f64, f64, f64) {
  %x = scf.if %c -> (f64) {
    scf.yield %a : f64
  } else {
    scf.yield %b : f64
  }
  %y = scf.if %c -> (f64) {
    scf.yield %b : f64
  } else {
    scf.yield %a : f64
  }
  %z = scf.if %c -> (f64) {
    scf.yield %a : f64
  } else {
    scf.yield %b : f64
  }
  %s = scf.if %c -> (f64) {
    %t = arith.addf %a, %a : f64
    scf.yield %t : f64
  } else {
    scf.yield %b : f64
  }
  %u = scf.if %c -> (f64) {
    %v = arith.addf %a, %a : f64
    scf.yield %v : f64
  } else {
    scf.yield %b : f64
  }
  func.return %x, %y, %z, %s, %u : f64, f64, f64, f64, f64
}
"""


def test_cse_tells_ifs_apart_by_the_outer_values_they_give_back() -> None:
    """Ifs on one condition giving back different values from outside hash apart (kiln's writes
    through an array that is another on some paths are such ifs, ``k`` to a block: cse compared
    each with all before it, issue 39); equivalent ones, values defined inside included, still
    hash alike and are merged."""
    from xdsl.transforms.common_subexpression_elimination import OperationInfo

    module = _module(_IFS_ON_ONE_FLAG)
    x, y, z, s, u = [op for op in module.walk() if op.name == "scf.if"]
    assert hash(OperationInfo(x)) != hash(OperationInfo(y))
    assert hash(OperationInfo(x)) == hash(OperationInfo(z))
    assert hash(OperationInfo(s)) == hash(OperationInfo(u))
    universe.build_pipeline("cse").apply(make_context(), module)
    ret = list(module.walk())[-1]
    assert [value.owner for value in ret.operands] == [x, y, x, s, s]


# ------------------------------------------------------------------ verifying ops of fixed arity

_BAD_OPS = [
    # operands of two types where the definition ties them (a VarConstraint)
    '%a = "test.op"() : () -> tensor<4xf32>\n%b = "test.op"() : () -> tensor<4xf64>\n'
    '%c = "graph.add"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>',
    # an operand that is not a tensor
    '%a = "test.op"() : () -> i32\n%c = "graph.neg"(%a) : (i32) -> i32',
    # a result whose shape differs from its operands' (SameOperandsAndResultType)
    '%a = "test.op"() : () -> tensor<4xf32>\n%c = "graph.neg"(%a) : (tensor<4xf32>) -> tensor<5xf32>',
    # one operand too many
    '%a = "test.op"() : () -> tensor<4xf32>\n%c = "graph.neg"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
    # a property the definition does not have
    '%a = "test.op"() : () -> tensor<4xf32>\n%c = "graph.neg"(%a) <{"x" = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>',
    # a required property missing, and one of the wrong kind
    '%c = "graph.constant"() : () -> tensor<4xf32>',
    '%c = "graph.constant"() <{"value" = 1 : i64}> : () -> tensor<4xf32>',
]


def _last_op(text: str) -> object:
    ctx = make_context()
    ctx.allow_unregistered = True
    module = Parser(ctx, "builtin.module {\n" + text + "\n}").parse_module()
    return module.body.block.last_op


@pytest.mark.parametrize("text", _BAD_OPS)
def test_fixed_arity_verify_raises_what_xdsl_raises(text: str) -> None:
    from xdsl.utils.exceptions import VerifyException

    op = _last_op(text)
    op_def = type(op).get_irdl_definition()  # type: ignore[attr-defined]
    with pytest.raises(VerifyException) as original:
        xdsl_patches._original_op_def_verify(op_def, op)  # noqa: SLF001
    with pytest.raises(VerifyException) as patched:
        op_def.verify(op)
    assert str(patched.value) == str(original.value)


def test_a_traced_program_verifies_on_the_fixed_arity_path(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    import kiln

    fallbacks: list[str] = []
    original = xdsl_patches._original_op_def_verify  # noqa: SLF001

    def recorded(op_def: object, op: object) -> None:
        fallbacks.append(op.name)  # type: ignore[attr-defined]
        original(op_def, op)

    monkeypatch.setattr(xdsl_patches, "_original_op_def_verify", recorded)

    @kiln.function
    def f(x: np.ndarray) -> np.ndarray:
        return np.tanh(x * 1.5 + 0.5) - x * 0.25

    module = f.get_concrete_function(np.ones(8))._traced.module  # noqa: SLF001
    module.verify()
    names = {op.name for op in module.walk()}
    assert {"graph.add", "graph.mul", "graph.tanh", "graph.sub"} <= names
    assert not {"graph.add", "graph.mul", "graph.tanh", "graph.sub", "graph.constant"} & set(fallbacks)


def test_single_operands_and_results_read_directly_are_xdsls() -> None:
    """Every named single operand/result of every op at every stage of a small program, read by
    the patched accessor, is what xDSL's own accessor gives (and the same for segment sizes)."""
    import numpy as np
    from xdsl.irdl.operations import BaseAttrAccessor, BeforeVariadicSingleAccessor

    import kiln

    @kiln.function
    def f(x: np.ndarray) -> np.ndarray:
        s = x.sum()
        for i in range(x.shape[0]):
            x[i] = np.tanh(x[i] * s) + 1.0
        return x * 2.0

    concrete = f.get_concrete_function(np.ones(8))
    checked = 0
    for stage in ("graph", "tensor", "buffer", "loops"):
        text = concrete.ir if stage == "graph" else concrete.lowered(stage)
        module = Parser(make_context(), text).parse_module()
        for op in module.walk():
            for name in dir(type(op)):
                accessor = type(op).__dict__.get(name)
                if isinstance(accessor, BeforeVariadicSingleAccessor):
                    assert accessor.__get__(op) is xdsl_patches._original_single_get(accessor, op)  # noqa: SLF001
                    checked += 1
                elif isinstance(accessor, BaseAttrAccessor):
                    attr = accessor.option.container(op)[accessor.option.attribute_name]
                    args = op.operands if accessor.construct.name == "OPERAND" else op.results
                    want, got = accessor.index(attr.get_values(), args), accessor.__get__(op)
                    assert tuple(got) == tuple(want) if isinstance(want, tuple) else got is want
                    checked += 1
    assert checked > 50


def test_traits_found_per_class_are_xdsls_and_follow_an_added_trait() -> None:
    from xdsl.dialects import arith, scf
    from xdsl.traits import HasParent, IsTerminator, NoTerminator, Pure

    from kiln.dialects import graph

    for cls in (arith.AddfOp, scf.ForOp, scf.YieldOp, graph.AddOp, graph.ConstantOp):
        for trait in (Pure, IsTerminator, NoTerminator, HasParent):
            assert cls.get_trait(trait) is xdsl_patches._original_get_trait(cls, trait)  # noqa: SLF001
            assert cls.get_trait(trait) is xdsl_patches._original_get_trait(cls, trait)  # noqa: SLF001  (kept)

    class _Marker(IsTerminator):
        pass

    assert graph.NegOp.get_trait(_Marker) is None
    marker = _Marker()
    graph.NegOp.traits.add_trait(marker)
    try:
        assert graph.NegOp.get_trait(_Marker) is marker
    finally:
        graph.NegOp.traits._traits = graph.NegOp.traits._traits - {marker}  # noqa: SLF001
    assert graph.NegOp.get_trait(_Marker) is None


def _cse_text(module_text: str, originals: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    import xdsl.transforms.common_subexpression_elimination as cse_module

    with monkeypatch.context() as m:
        if originals:
            init, setitem, pop, simplify_region, get = xdsl_patches._original_cse  # noqa: SLF001
            m.setattr(cse_module.KnownOps, "get", get)
            m.setattr(cse_module.KnownOps, "__init__", init)
            m.setattr(cse_module.KnownOps, "__setitem__", setitem)
            m.setattr(cse_module.KnownOps, "pop", pop)
            m.setattr(cse_module.CSEDriver, "_simplify_region", simplify_region)
        module = Parser(make_context(), module_text).parse_module()
        cse_module.CommonSubexpressionElimination().apply(make_context(), module)
        return str(module)


def test_scoped_cse_gives_xdsls_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """cse with one table and an undo log per region gives what xDSL's copy per region gives, at
    every stage of programs with staged ifs inside loops, values computed before, inside and
    after regions (shadowed and restored entries)."""
    import numpy as np

    import kiln

    def g(x: np.ndarray) -> np.ndarray:
        y = x * 2.0
        for i in range(x.shape[0]):
            if x[i] > 0:
                x[i] = x[i] * 2.0 + y[i]
            else:
                x[i] = x[i] * 2.0 - y[i]
            if np.sum(x) > i:
                x = x * 2.0
        return x * 2.0 + y

    from kiln import pipelines
    from kiln.dialects.target import set_module_isa
    from kiln.universe import build_pipeline, run_stage

    concrete = kiln.function(g).get_concrete_function(np.linspace(-1.0, 1.0, 6))
    module = Parser(make_context(), concrete.ir).parse_module()
    set_module_isa(module, concrete.isa)
    before_cse = [concrete.ir]
    for stage in ("tensor", "buffer", "loops"):
        passes = pipelines.STAGES[stage].split(",")
        for i, name in enumerate(passes):
            if name == "cse":
                partial = module.clone()
                build_pipeline(",".join(passes[:i]), None).apply(make_context(), partial)
                before_cse.append(str(partial))
        run_stage(make_context(), module, stage)
    compared = 0
    for text in before_cse:
        mine, theirs = _cse_text(text, False, monkeypatch), _cse_text(text, True, monkeypatch)
        assert mine == theirs
        compared += (mine != text) + text.count("scf.if") + text.count("graph.cond")
    assert len(before_cse) >= 6 and compared > 10


def test_cloning_ops_without_regions_is_xdsls_clone() -> None:
    """Every op of a lowered program cloned by the patched ``Operation.clone`` (operands mapped at
    once when it has no regions) prints as xDSL's clone does, with the same uses on its operands."""
    import numpy as np

    import kiln

    @kiln.function
    def f(x: np.ndarray) -> np.ndarray:
        y = np.tanh(x * 2.0) + x
        for i in range(3):
            if y[i] > 0:
                y[i] = -y[i]
        return y

    concrete = f.get_concrete_function(np.linspace(-1.0, 1.0, 8))
    cloned = 0
    for text in (concrete.ir, concrete.lowered("tensor"), concrete.lowered("loops")):
        module = Parser(make_context(), text).parse_module()
        for op in list(module.walk()):
            if op.parent is None:
                continue
            mapper_mine: dict = {}
            mapper_theirs: dict = {}
            mine = op.clone(mapper_mine)
            theirs = xdsl_patches._original_clone(op, mapper_theirs)  # noqa: SLF001
            assert str(mine) == str(theirs)
            assert tuple(mine.operands) == tuple(theirs.operands)
            assert list(mapper_mine) == list(mapper_theirs)
            for clone in (mine, theirs):
                clone.drop_all_references()  # (the clones' uses off the original's operands)
            cloned += 1
    assert cloned > 40


def test_affine_map_hash_is_xdsls_and_kept() -> None:
    from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

    maps = [AffineMap.identity(2), AffineMap(2, 0, (AffineDimExpr(1), AffineDimExpr(0))),
            AffineMap(1, 0, (AffineConstantExpr(3),)), AffineMap(3, 0, (AffineDimExpr(0) + AffineDimExpr(2) * 2,))]
    for m in maps:
        want = xdsl_patches._original_affine_map_hash(m)  # noqa: SLF001
        assert hash(m) == want and hash(m) == want  # computed, then kept
        again = AffineMap(m.num_dims, m.num_symbols, m.results)
        assert again == m and hash(again) == hash(m) and repr(again) == repr(m)
    assert len({hash(m) for m in maps}) == len(maps)


def _grouped(values: list[object], defs: list[tuple[str, object]], sizes: tuple[int, ...] | None) -> list[object]:
    """``values`` as a builder takes them for ``defs``: by the op's segment ``sizes`` when it has
    them, else one per single group and the rest for the one variadic group (None or one value for
    an optional group)."""
    from xdsl.irdl.operations import OptionalDef, VariadicDef

    rest = len(values) - sum(not isinstance(d, VariadicDef) for _, d in defs)
    out: list[object] = []
    at = 0
    for i, (_, d) in enumerate(defs):
        n = sizes[i] if sizes is not None else rest if isinstance(d, VariadicDef) else 1
        if isinstance(d, OptionalDef):
            out.append(values[at] if n else None)
        elif isinstance(d, VariadicDef):
            out.append(values[at:at + n])
        else:
            out.append(values[at])
        at += n
    return out


def _build(init: object, op: object) -> object:
    """A new op of ``op``'s class built by ``init`` (xDSL's ``irdl_op_init`` or kiln's) from
    ``op``'s operands, result types, properties, attributes, successors and (cloned) regions."""
    from xdsl.irdl.operations import AttrSizedSegments

    cls = type(op)
    new, op_def = cls.__new__(cls), cls.get_irdl_definition()
    sizes: dict[str, tuple[int, ...]] = {}
    for option in op_def.options:
        if isinstance(option, AttrSizedSegments):
            container = op.properties if option.as_property else op.attributes  # type: ignore[attr-defined]
            sizes[option.attribute_name] = tuple(container[option.attribute_name].get_values())
    regions = [region.clone() for region in op.regions]  # type: ignore[attr-defined]
    init(new, op_def, operands=_grouped(list(op.operands), op_def.operands, sizes.get("operandSegmentSizes")),  # type: ignore
         result_types=_grouped([r.type for r in op.results], op_def.results, sizes.get("resultSegmentSizes")),  # type: ignore
         properties=dict(op.properties), attributes=dict(op.attributes),  # type: ignore[attr-defined]
         successors=_grouped(list(op.successors), op_def.successors, sizes.get("successorSegmentSizes")),  # type: ignore
         regions=_grouped(regions, op_def.regions, sizes.get("regionSegmentSizes")))
    return new


def test_ops_built_directly_are_xdsls() -> None:
    """Every op of every stage of a small program, built again by the direct builder and by
    xDSL's, prints the same with the same operands, properties and attributes."""
    import numpy as np
    from xdsl.irdl.operations import IRDLOperation

    import kiln

    @kiln.function
    def f(x: np.ndarray) -> np.ndarray:
        s = x.sum()
        for i in range(x.shape[0]):
            if x[i] > s:
                x[i] = np.tanh(x[i] * s) + 1.0
        return x * 2.0

    concrete = f.get_concrete_function(np.linspace(-1.0, 1.0, 16))
    built, names = 0, set()
    for stage in ("graph", "tensor", "buffer", "loops"):
        text = concrete.ir if stage == "graph" else concrete.lowered(stage)
        for op in Parser(make_context(), text).parse_module().walk():
            if not isinstance(op, IRDLOperation):
                continue
            mine, theirs = _build(xdsl_patches._op_init, op), _build(xdsl_patches._original_op_init, op)  # noqa: SLF001
            assert str(mine) == str(theirs), op.name
            assert tuple(mine.operands) == tuple(theirs.operands)  # type: ignore[attr-defined]
            assert mine.properties == theirs.properties and mine.attributes == theirs.attributes  # type: ignore[attr-defined]
            built += 1
            names.add(op.name)
    assert built > 60 and {"arith.addf", "scf.for", "scf.if", "graph.add", "linalg.generic", "linalg.yield"} <= names, names


def test_ops_built_from_other_arguments_go_xdsls_way() -> None:
    """An op, a one-item list, ``None`` or two values where one is expected: built, or refused
    with xDSL's message, as xDSL's builder does."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import FloatAttr, f64

    const = arith.ConstantOp(FloatAttr(1.0, f64))
    two = arith.ConstantOp(FloatAttr(2.0, f64))
    cases = [[const, two], [[const.result], two.result], [const.result, None], [[const.result, two.result], two.result]]
    for operands in cases:
        outcomes = []
        for init in (xdsl_patches._op_init, xdsl_patches._original_op_init):  # noqa: SLF001
            new = arith.AddfOp.__new__(arith.AddfOp)
            try:
                init(new, arith.AddfOp.get_irdl_definition(), operands=operands, result_types=[f64], properties={},
                     attributes={}, successors=[], regions=[])
                outcomes.append(str(new))
            except ValueError as error:
                outcomes.append(f"ValueError: {error}")
        assert outcomes[0] == outcomes[1], operands
    assert "ValueError" in outcomes[0]  # (the last case is refused)


def test_ssa_value_get_is_xdsls() -> None:
    from xdsl.dialects import arith, test
    from xdsl.dialects.builtin import FloatAttr, IntegerType, f64
    from xdsl.ir import Attribute, SSAValue

    const = arith.ConstantOp(FloatAttr(1.0, f64))
    pair = test.TestOp(result_types=[f64, f64])
    assert SSAValue.get(const) is const.result is xdsl_patches._original_ssa_get(const)  # noqa: SLF001
    assert SSAValue.get(const.result) is const.result
    assert SSAValue.get(const.result, type=Attribute) is const.result
    for arg, kind in ((pair, Attribute), (const.result, IntegerType)):
        with pytest.raises(ValueError) as original:
            xdsl_patches._original_ssa_get(arg, type=kind)  # noqa: SLF001
        with pytest.raises(ValueError) as patched:
            SSAValue.get(arg, type=kind)
        assert str(patched.value) == str(original.value)
