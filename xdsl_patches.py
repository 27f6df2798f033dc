"""Fixes for xDSL 0.74 bugs that kiln's pipelines hit, applied when kiln's universe loads.

* Hex literals in float ``dense<...>`` attributes (how xDSL itself prints ``inf`` and
  ``nan``: ``dense<[0x7F800000]> : tensor<1xf32>``) are bit patterns in MLIR, but xDSL 0.74
  parses them as integer *values* (2139095040.0), so printed IR does not parse back to
  itself. The scalar form (``arith.constant 0x7F800000 : f32``) is handled correctly.
* A named linalg op with too few ``ins``/``outs`` operands for its body (``linalg.matmul``
  without ``outs(...)``) crashes xDSL's parser with an IndexError while it builds the body;
  it is reported as a parse error at the op instead.
* An op whose operand is defined inside the op's own region (``scf.for ... to %n`` with
  ``%n`` defined in the loop body) keeps the parser's placeholder for it, and the verifier
  crashes on it ("Forward declared values do not have an owner"); it is a parse error instead.
* Canonicalize's dead-code sweep recomputes every op's memory effects on every round, a loop's
  by walking its body: quadratic in loop nesting. They are memoized per sweep (exact: the IR
  does not change during it). Whether an op's effects are confined to its results (asked of
  every op the greedy rewriter visits) stops at the first effect that is not, instead of
  collecting every effect of a loop's body first (the same answer). Whether an op is kept
  whatever its uses (a terminator, a symbol) and its memory-effect traits are looked up once
  per op class, not trait by trait on every ask. The sweep asks an op for its effects only
  when no live op uses it, and is not run again after a round of patterns that changed nothing.
  Whether an op is dead (asked of every op canonicalize visits and every op cse meets) looks
  at its results in a loop, not through a generator (the same answer).
* ``Operation.is_structurally_equivalent`` ignores result types: ``arith.truncf %x : f64 to f32``
  and ``... to f16`` compare equal, so ``cse`` merged two ops whose regions differ only there
  (``x.astype(f32).astype(f64)`` and ``x.astype(f16).astype(f64)`` gave one answer). Ops with
  different result types are not equivalent, as in MLIR.
* ``cse`` hashes every op it meets (``OperationInfo.__hash__``), building a view of its operands,
  the tuple of its result types and a generator per attribute dictionary each time, and asks
  whether the op is unregistered through an ABC check: 5% of a compile's passes (8 fuzz
  programs). The same hash is computed from the op's fields directly. For an op with regions it
  also takes the values from outside the op that its regions' terminators give back: ops on one
  condition giving back different outer values (kiln's writes through arrays that are others on
  some paths) hashed alike, and cse compared each one's regions with all those before it.
* xDSL checks no dominance: a value used above its definition in the same block (or inside an
  earlier op's region) parses and verifies, and passes that walk a block in order crash on it.
  The parser reports it.
* The printer writes a string literal one byte at a time, each through ``print``: a location's
  file name, printed on every op, was a third of printing a traced chain of 8,750 ops (1.0 s of
  the plan cache key of a 10,000-op function). Each literal's escaped text is made once, and a
  piece without a newline is written to the stream directly; the text is the same.
* Printing a ``tensor<...>`` type builds a ``NoneAttr`` and walks its shape each time, and every
  op of a traced function prints two or three of them (a third of the plan cache key's print):
  each distinct type's text is made once and printed whole; the text is the same.
* A pass built from a pipeline spec (``ModulePass.from_spec``) evaluated its class's type hints
  (every annotation string of its class and bases) even when the spec gives it no argument,
  which is all of a compile's ~40 passes: ~0.2 ms each, a first call's ~8 ms. The hints are
  evaluated when an argument's field type is first looked up, as before.
* Building an op with a list or tuple of operands (every variadic op: ``graph.while``, ``graph.if``,
  ``func.return``) asked ``isinstance(operands, Operation)`` first: ``Operation`` is an ABC with
  every op class below it, so the first such negative check per container type in a process walks
  them all (0.7 ms for ``list``, 0.2 for ``tuple``: a tenth of a warm start's call). A list or tuple
  is taken as one first; the result is the same.
* Verifying an op (``OpDef.verify``) worked out, for every op, whether its definition has
  variadic operands, results, regions or successors, and read each operand through its field's
  descriptor: 45 us per traced ``graph.add``, 3.4 s of the 10^5-op chain's first call (issue 39).
  An op whose definition has none (most of a traced program) checks the counts and the same
  constraints directly; any other op, or one that fails, goes the original way (its message).
  ``SameOperandsAndResultType`` passes at once when every operand and result has the one type.
* A named operand group of an op with segment sizes (``linalg.generic``'s ``inputs`` and
  ``outputs``, read a dozen times per fusion step) unpacked the ``operandSegmentSizes`` array from
  its bytes on every read: a third of linalg-fuse-elementwise. Each array's values are unpacked
  once (attributes are immutable) and kept for the last few thousand arrays read.
* A single named operand, result or region (``op.lhs``, ``op.result``, ``op.body``: read by every
  pattern and pass) was found by building a view of all the op's operands and indexing it
  through two calls; it is read from the op's operands, results or regions directly (the same
  value).
* ``Operation.get_trait(SomeTrait)`` (asked of every op by canonicalize, cse and the effect
  analyses: 128,789 times on the 10^4-op chain) tested each of the class's traits with
  ``isinstance``; the answer per op class and trait class is kept (recomputed if the class's
  trait set is replaced, as ``OpTraits.add_trait`` does).
* cse entered each nested single-block region (every branch of an ``scf.if``, every loop body)
  with a copy of all the ops known so far: quadratic in the ops of a function with many staged
  ``if``s (the last cse of the 10^4-op ``ifs`` program 1.45 s, 5.4x the 3,000-op one's). Known ops
  are kept in one table with an undo log per scope (MLIR's scoped hash table): a region's entries
  are taken out, and the ones they shadowed put back, when it is left. Each key's hash is
  computed once (equality tests asked it again of the stored key every time), and an op cse asks
  for and then records is keyed once, not twice.
* ``Operation.clone`` of an op without regions made it without operands, then walked it and its
  copy to set them: a second pass over every cloned op (fusion clones each producer's body into
  its consumer). Such an op is made with its mapped operands at once, as ``clone_without_regions``
  does; an op with regions is cloned as before (its regions may use values defined after them).
* An ``AffineMap`` (a frozen dataclass) hashed its dimensions and result expressions, recursively,
  each time it was hashed: fusion keys its reads by (value, map) and looks up one attribute per
  list of maps, ~10 hashes per fusion step of the same map objects. Each map's hash is kept on it
  (it is immutable; the value is xDSL's).
* Building an op (``IRDLOperation.__init__``, xDSL's ``irdl_op_init``) sorted its operands,
  result types, regions and successors against the definition's groups through several generic
  steps, checked each against ``Sequence`` (an ABC) and looked at every option: 25-45 us per op,
  half of kiln-vectorize (48,000 ops built for the 10^4-op ``ifs`` program). An op whose
  definition has no same-variadic-size option is made in one step when each argument is of the
  plain kind (a value or an op of one result, a type, a region, a block; a list or tuple of them
  for a variadic group), its segment sizes (``linalg.generic``'s) made once per distinct list;
  any other op or argument goes the original way (its conversions, checks and messages). The op
  is the same.
* ``SSAValue.get`` (asked of every operand an op is built with) imported a helper and matched its
  argument against two ABCs on every call: 3 us. A value, or an op of one result, asked for with
  no type is answered directly; anything else goes the original way.
"""

from __future__ import annotations

from collections.abc import Sequence
import functools
import struct
import sys
import typing
from io import StringIO
from typing import Any

from xdsl.dialects.builtin import AnyFloat, ModuleOp, NoneAttr, TensorType, UnregisteredOp
from xdsl.dialects.linalg.abstract_ops import NamedOperation
import xdsl.traits as _traits
import xdsl.transforms.canonicalize as _canonicalize
import xdsl.transforms.common_subexpression_elimination as _cse
import xdsl.transforms.dead_code_elimination as _dce
import xdsl.irdl.operations as _irdl_ops
import xdsl.utils.arg_spec as _arg_spec
from xdsl.context import Context
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.ir.core import ErasedSSAValue
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriterListener, PatternRewriteWalker
from xdsl.printer import Printer
from xdsl.parser import Parser
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.parser.attribute_parser import AttrParser
from xdsl.utils.base_printer import BasePrinter
from xdsl.utils.exceptions import VerifyException

_Element = AttrParser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]
_original_to_type = _Element.to_type
_FORMATS = {16: "<e", 32: "<f", 64: "<d"}


def _to_type(self: Any, parser: AttrParser, type: Any) -> Any:
    text = self.span.text
    if isinstance(type, AnyFloat) and text[:2] in ("0x", "0X") and type.bitwidth in _FORMATS:
        width = type.bitwidth
        return struct.unpack(_FORMATS[width], int(text, 16).to_bytes(width // 8, "little"))[0]
    return _original_to_type(self, parser, type)


_original_named_parse = NamedOperation.parse.__func__  # type: ignore[attr-defined]


def _named_parse(cls: type[NamedOperation], parser: Parser) -> Any:
    start = parser.pos
    try:
        return _original_named_parse(cls, parser)
    except IndexError:  # the body is built from block arguments for each operand: too few of them
        parser.raise_error(f"'{cls.name}' has too few ins(...)/outs(...) operands for its body", start)


_original_parse_operation = Parser.parse_operation


def _parse_operation(self: Parser) -> Operation:
    start = self._current_token.span.start  # pyright: ignore[reportPrivateUsage]
    op = _original_parse_operation(self)
    for operand in op.operands:
        if isinstance(operand, ForwardDeclaredValue) and not any(
            operand is pending for uses in self.forward_ssa_references.values() for pending in uses.values()
        ):  # its definition was seen, but only after this op was built from the placeholder
            self.raise_error(f"'{op.name}' uses a value that is defined inside its own region", start)
    return op


def _parse_block_body(self: Parser, block: Block) -> None:
    starts: list[int] = []
    while True:
        start = self._current_token.span.start  # pyright: ignore[reportPrivateUsage]
        if (op := self.parse_optional_operation()) is None:
            break
        block.add_op(op)
        starts.append(start)
    index = {op: i for i, op in enumerate(block.ops)}
    for i, op in enumerate(block.ops):
        for user in op.walk():
            for operand in user.operands:
                if isinstance(operand, OpResult) and index.get(operand.op, -1) >= i:
                    name = f"%{operand.name_hint}" if operand.name_hint else "a value"
                    self.raise_error(f"'{user.name}' uses {name} before its definition", starts[i])


_original_get_effects = _traits.get_effects
_RECURSIVE_EFFECTS = _traits.RecursiveMemoryEffect.get_effects


@functools.cache
def _dead_code_traits(
    traits: frozenset[_traits.OpTrait],
) -> tuple[bool, tuple[tuple[_traits.MemoryEffect, bool], ...]]:
    """For an op class's traits: whether they keep an op whatever its uses (a terminator, a
    symbol), and its memory-effect traits, each with whether it is xDSL's recursive one. xDSL
    looks each up trait by trait on every ask, which the greedy rewriter makes of every op it
    visits: a third of canonicalize (resnet). Keyed by the class's trait set, which
    ``add_trait`` replaces."""
    kept = any(isinstance(t, (_traits.IsTerminator, _traits.SymbolOpInterface)) for t in traits)
    effects = tuple((t, type(t).get_effects == _RECURSIVE_EFFECTS)
                    for t in traits if isinstance(t, _traits.MemoryEffect))
    return kept, effects


def _would_be_trivially_dead(op: Operation) -> bool:
    """xDSL's ``would_be_trivially_dead`` (dead once its results are: not a terminator nor a
    symbol, and no effect beyond its results), with the class's traits looked up once."""
    return not _dead_code_traits(op.traits.traits)[0] and _result_only_effects(op)


def _is_trivially_dead(op: Operation) -> bool:
    """xDSL's ``is_trivially_dead``: no result used, and dead once they are not (looked up in
    the module at each call, as xDSL does: the sweep swaps in its memo)."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return _dce.would_be_trivially_dead(op)


class _UsesFirstLiveSet(_dce.LiveSet):
    """xDSL's liveness sweep asking first whether an op has a live user, and only then whether
    it has effects: an op is live when either holds, and the first is a few set lookups while
    the second reads its traits and effects (nested ops' too). The sweep visits a block's ops
    last to first, so most pure ops are found live by their users (channel_flow's lowering asked
    10,557 times instead of 18,198). The same live set."""

    def propagate_op_liveness(self, op: Operation) -> None:
        for region in op.regions:
            self.propagate_region_liveness(region)
        if self.is_live(op):
            return
        if any(self.is_live(use.operation) for result in op.results for use in result.uses) \
                or not _dce.would_be_trivially_dead(op):
            self.set_live(op)


def _region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """xDSL's ``region_dce`` with each op's memory effects computed once per call. Its liveness
    loop asks again for every op on every round, and a loop op's effects walk its whole body, so
    canonicalize spent most of its time there (resnet: 1.4 s of 2.5 s of passes). The IR does not
    change until ``delete_dead``, so the memo is exact."""
    effects: dict[Operation, Any] = {}
    dead: dict[Operation, bool] = {}

    def cached_effects(op: Operation) -> Any:
        if op not in effects:
            effects[op] = _original_get_effects(op)
        return effects[op]

    def cached_dead(op: Operation) -> bool:
        if op not in dead:
            dead[op] = _would_be_trivially_dead(op)
        return dead[op]

    _traits.get_effects = _dce.get_effects = cached_effects  # type: ignore[assignment]
    _dce.would_be_trivially_dead = cached_dead  # type: ignore[assignment]
    try:
        live_set = _UsesFirstLiveSet()
        while live_set.changed:
            live_set.changed = False
            live_set.propagate_region_liveness(region)
    finally:
        _traits.get_effects = _dce.get_effects = _original_get_effects  # type: ignore[assignment]
        _dce.would_be_trivially_dead = _would_be_trivially_dead  # type: ignore[assignment]
    live_set.delete_dead(region, listener)
    return live_set.changed


class _SweepWhenChangedWalker(PatternRewriteWalker):
    """Canonicalize's walker: xDSL's, which after each round of patterns sweeps the region for
    dead code, less the sweep after a round that changed nothing (the last, which only shows
    that nothing changes): the IR is then the one the previous sweep left, where a sweep finds
    nothing. A sweep visits every op: NPBench's resnet made 16, now 12, channel_flow 12, now 7."""

    def rewrite_region(self, region: Region) -> bool:
        listener = self._get_rewriter_listener()
        self._populate_worklist(region)
        result = self._process_worklist(listener)
        result |= _region_dce(region, listener)
        changed = result
        while changed:
            self._populate_worklist(region)
            changed = self._process_worklist(listener)
            if changed:
                _region_dce(region, listener)
        return result


def _handle_operation_removal(self: PatternRewriteWalker, op: Operation) -> None:
    """xDSL's ``PatternRewriteWalker._handle_operation_removal`` made MLIR's greedy driver's: it
    puts on the worklist the producer of every value ``op`` or an op nested in it used that is
    left with at most one user, and takes every erased op off the worklist. xDSL adds only the
    producers of ``op``'s own operands that have one use (``op``): an erased ``graph.while`` or
    ``graph.cond`` whose body read another loop's result left that loop unused and unvisited
    until the next round's whole-module sweep, one round per link of an unrolled loop's chain (a
    28,534-op program: 645 rounds, 48 s of canonicalize). The sweep erases such producers too: an
    erased op left on the worklist would be rewritten outside any block."""
    ops = list(op.walk()) if op.regions else [op]
    if self.apply_recursively:
        inside = set(ops)
        seen: set[SSAValue] = set()
        for nested in ops:
            for value in nested.operands:
                owner = value.owner
                if value in seen or not isinstance(owner, Operation) or owner in inside \
                        or isinstance(value, ErasedSSAValue):
                    continue
                seen.add(value)
                users: set[Operation] = set()
                for use in value.uses:  # (each use at most once: a value's uses inside op are erased with it)
                    if use.operation not in inside:
                        users.add(use.operation)
                        if len(users) > 1:
                            break
                else:
                    self._worklist.push(owner)  # pyright: ignore[reportPrivateUsage]
    for nested in ops:
        self._worklist.remove(nested)  # pyright: ignore[reportPrivateUsage]


def _canonicalize_apply(self: _canonicalize.CanonicalizePass, ctx: Context, op: ModuleOp) -> None:
    """xDSL's canonicalize with :class:`_SweepWhenChangedWalker`."""
    pattern = GreedyRewritePatternApplier([_canonicalize.CanonicalizationRewritePattern()], ctx=ctx,
                                          folding_enabled=True)
    _SweepWhenChangedWalker(pattern).rewrite_module(op)


def _result_only_effects(root: Operation) -> bool:
    """xDSL's ``result_only_effects`` (every effect a read, or an allocation of a value defined
    in ``root``), answered at the first effect that is not: a walk through nested ops of
    recursive-effect ops instead of the set of all their effects."""
    work = [root]
    while work:
        op = work.pop()
        interfaces = _dead_code_traits(op.traits.traits)[1]
        if not interfaces:
            return False  # unknown effects
        for it, recursive in interfaces:
            if recursive:
                work.extend(child for r in op.regions for b in r.blocks for child in b.ops)
                continue
            effects = it.get_effects(op)
            if effects is None:
                return False
            for e in effects:
                if e.kind == _traits.MemoryEffectKind.READ:
                    continue
                if e.kind == _traits.MemoryEffectKind.ALLOC and isinstance(e.value, SSAValue) and root.is_ancestor(e.value.owner):
                    continue
                return False
    return True


_original_equivalent = Operation.is_structurally_equivalent


def _equivalent(self: Operation, other: Any, context: Any = None) -> bool:
    if isinstance(other, Operation) and self.result_types != other.result_types:
        return False
    return _original_equivalent(self, other, context)


@functools.cache
def _unregistered(op_class: type[Operation]) -> bool:
    return issubclass(op_class, UnregisteredOp)


def _operation_info_hash(self: Any) -> int:
    """xDSL's ``OperationInfo.__hash__`` (cse's key: name, attributes, properties, result types,
    operands), the same value computed without its views and generators; for an op with regions,
    with the outer values its regions give back (:func:`_outer_yields`)."""
    cached = self.__dict__.get("_kiln_hash")
    if cached is not None:  # (asked again by every equality test against this key)
        return cached
    op: Operation = self.op
    attributes, properties = op.attributes, op.properties
    key = (
        op.op_name.data if _unregistered(type(op)) else op.name,  # type: ignore[attr-defined]
        sum(map(hash, attributes.items())) if attributes else 0,
        sum(map(hash, properties.items())) if properties else 0,
        hash(tuple([result.type for result in op.results])),
        hash(op._operands),  # pyright: ignore[reportPrivateUsage]  (what OpOperands hashes)
    )
    self._kiln_hash = hash((*key, hash(_outer_yields(op))) if op.regions else key)
    return self._kiln_hash


def _outer_yields(op: Operation) -> tuple[SSAValue, ...]:
    """The values from outside ``op`` that the terminators of its single-block regions give back:
    equal for structurally equivalent ops (a value defined outside is matched only by itself), and
    a few operands to look at. Every write through an array that is another one on some paths is
    made there by a ``graph.cond`` on that path's flag giving back one of two outer values
    (kiln.frontend.mutation): without them in the hash, the ``k`` such conds on one flag in a block
    hashed alike and cse compared each with all before it, ``k**2`` region comparisons (issue 39,
    kiln.fuzz 20300-8131: 25,700 comparisons where 5,800 were made at half its iterations)."""
    outer: list[SSAValue] = []
    for region in op.regions:
        block = region.first_block
        if block is None or block.next_block is not None or block.last_op is None:
            continue
        for value in block.last_op.operands:  # (a terminator sees only its block's values and outer ones)
            if not (value.owner is block if isinstance(value, BlockArgument) else value.owner.parent is block):
                outer.append(value)
    return tuple(outer)


_original_print_string = BasePrinter.print_string


def _print_string(self: BasePrinter, text: str, *, indent: int | None = None) -> None:
    if "\n" in text:
        _original_print_string(self, text, indent=indent)
        return
    self._current_column += len(text)  # pyright: ignore[reportPrivateUsage]
    (sys.stdout if self.stream is None else self.stream).write(text)


#: byte -> how a string literal spells it (xDSL's escapes: backslash, quote, non-printable as hex)
_LITERAL_BYTES = tuple(
    "\\\\" if b == 0x5C else f"\\{b:02X}" if b < 0x20 or b > 0x7E or b == 0x22 else chr(b) for b in range(256)
)


@functools.lru_cache(maxsize=4096)
def _escaped(bytestring: bytes) -> str:
    """``bytestring`` as a string literal, quotes included (a file name recurs on every op)."""
    return '"' + "".join(_LITERAL_BYTES[b] for b in bytestring) + '"'


def _print_bytes_literal(self: Printer, bytestring: bytes) -> None:
    self.print_string(_escaped(bytestring))


_original_print_tensor_type = TensorType.print_builtin


@functools.lru_cache(maxsize=4096)
def _tensor_type_text(tensor_type: TensorType[Any]) -> str:
    """How xDSL prints ``tensor_type`` (it depends on the type alone: an attribute prints no SSA name)."""
    out = StringIO()
    _original_print_tensor_type(tensor_type, Printer(stream=out))
    return out.getvalue()


def _print_tensor_type(self: TensorType[Any], printer: Printer) -> None:
    if not isinstance(self.encoding, NoneAttr):
        _original_print_tensor_type(self, printer)
        return
    printer.print_string(_tensor_type_text(self))


_original_build_operations_arg = _irdl_ops.irdl_build_operations_arg


def _build_operations_arg(operand: Any) -> SSAValue | list[SSAValue]:
    if type(operand) in (list, tuple):  # (not an Operation: no walk of the ABC's subclasses)
        return [SSAValue.get(op) for op in operand]
    return _original_build_operations_arg(operand)


class _LazyHints:
    """``typing.get_type_hints(cls)`` evaluated at the first lookup (``from_spec`` looks up only
    the fields its spec gives a value)."""

    __slots__ = ("_cls", "_hints")

    def __init__(self, cls: type) -> None:
        self._cls, self._hints = cls, None

    def __getitem__(self, name: str) -> Any:
        if self._hints is None:
            self._hints = typing.get_type_hints(self._cls)
        return self._hints[name]


_original_op_def_verify = _irdl_ops.OpDef.verify
_original_same_type_verify = _traits.SameOperandsAndResultType.verify
#: id(op definition) -> (operand constraints, result constraints) when it has no variadic
#: operand, result, region or successor (its counts are then fixed), else None. Op definitions
#: are made once per op class and live as long as it.
_fixed_arity: dict[int, tuple[tuple[Any, ...], tuple[Any, ...]] | None] = {}


def _arity(op_def: _irdl_ops.OpDef) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    defs = [d for _, d in (*op_def.operands, *op_def.results, *op_def.regions, *op_def.successors)]
    if op_def.regions or op_def.successors or op_def.options or any(isinstance(d, _irdl_ops.VariadicDef) for d in defs):
        return None
    return tuple(d.constr for _, d in op_def.operands), tuple(d.constr for _, d in op_def.results)


def _verify_named(defs: dict[str, Any], values: dict[str, Any], optional: type, context: Any) -> bool:
    """Verify each defined property or attribute ``values`` has; False if a required one is missing."""
    for name, attr_def in defs.items():
        if name not in values:
            if isinstance(attr_def, optional):
                continue
            return False
        attr_def.constr.verify(values[name], context)
    return True


def _op_def_verify(self: _irdl_ops.OpDef, op: Operation) -> None:
    key = id(self)
    if key not in _fixed_arity:
        _fixed_arity[key] = _arity(self)
    arity = _fixed_arity[key]
    if arity is None or len(op.operands) != len(arity[0]) or len(op.results) != len(arity[1]) or op.regions or op.successors:
        return _original_op_def_verify(self, op)
    context = _irdl_ops.VerificationContext()
    try:
        for value, constr in zip(op.operands, arity[0]):
            constr.verify((value.type,), context)
        for value, constr in zip(op.results, arity[1]):
            constr.verify((value.type,), context)
    except VerifyException:
        return _original_op_def_verify(self, op)  # raises, with the original's message
    if (not _verify_named(self.properties, op.properties, _irdl_ops.OptPropertyDef, context)
            or any(name not in self.properties for name in op.properties)
            or not _verify_named(self.attributes, op.attributes, _irdl_ops.OptAttributeDef, context)):
        return _original_op_def_verify(self, op)  # a missing or unknown one: the original's message
    for trait in self.traits:
        trait.verify(op)
    return None


def _same_type_verify(self: _traits.SameOperandsAndResultType, op: Operation) -> None:
    if op.results and op.operands:
        first = op.results[0].type
        if all(r.type == first for r in op.results) and all(v.type == first for v in op.operands):
            return
    _original_same_type_verify(self, op)


#: id(segment sizes attribute) -> (the attribute, kept alive so the id stays its own; its values)
_segment_values: dict[int, tuple[Any, tuple[int, ...]]] = {}
_MAX_SEGMENT_VALUES = 4096


def _segments_get(self: _irdl_ops.BaseAttrAccessor, obj: Operation, objtype: Any = None) -> Any:
    attr = self.option.container(obj)[self.option.attribute_name]
    found = _segment_values.get(id(attr))
    if found is None:
        if len(_segment_values) >= _MAX_SEGMENT_VALUES:
            _segment_values.clear()
        found = _segment_values[id(attr)] = (attr, tuple(attr.get_values()))
    return self.index(found[1], _irdl_ops.get_op_constructs(obj, self.construct))


_OPERAND, _RESULT, _REGION = (_irdl_ops.VarIRConstruct.OPERAND, _irdl_ops.VarIRConstruct.RESULT,
                               _irdl_ops.VarIRConstruct.REGION)
_original_single_get = _irdl_ops.BeforeVariadicSingleAccessor.__get__


def _single_get(self: _irdl_ops.BeforeVariadicSingleAccessor, obj: Operation, objtype: Any = None) -> Any:
    if obj is not None:
        if self.construct is _OPERAND:
            return obj._operands[self.idx]  # noqa: SLF001  (what OpOperands indexes)
        if self.construct is _RESULT:
            return obj.results[self.idx]
        if self.construct is _REGION:
            return obj.regions[self.idx]
    return _original_single_get(self, obj, objtype)


_original_get_trait = Operation.get_trait.__func__  # type: ignore[attr-defined]
#: (op class, trait class) -> (the class's trait set when asked, the trait found or None)
_traits_found: dict[tuple[type, type], tuple[Any, Any]] = {}


def _get_trait(cls: type[Operation], trait: Any) -> Any:
    if not isinstance(trait, type):  # a trait instance, compared by equality: asked as it was
        return _original_get_trait(cls, trait)
    found = _traits_found.get((cls, trait))
    if found is None or found[0] is not getattr(cls.traits, "_traits", None):
        result = _original_get_trait(cls, trait)  # (makes a lazily declared trait set first)
        found = _traits_found[cls, trait] = (getattr(cls.traits, "_traits", None), result)
    return found[1]


_MISSING_OP = object()
#: xDSL's own, for tests that compare
_original_cse = (_cse.KnownOps.__init__, _cse.KnownOps.__setitem__, _cse.KnownOps.pop, _cse.CSEDriver._simplify_region,
                 _cse.KnownOps.get)  # pyright: ignore[reportPrivateUsage]


def _known_ops_init(self: _cse.KnownOps, known_ops: _cse.KnownOps | None = None) -> None:
    self._known_ops = {} if known_ops is None else dict(known_ops._known_ops)  # noqa: SLF001
    self._kiln_undo = []  # (key, the value it shadowed or _MISSING_OP), in the order set
    self._kiln_asked = None  # the key of the last get: cse sets the op it just asked for, unchanged


def _known_ops_get(self: _cse.KnownOps, k: Operation, default: Any = None) -> Any:
    key = self._kiln_asked = _cse.OperationInfo(k)
    return self._known_ops.get(key, default)


def _known_ops_set(self: _cse.KnownOps, k: Operation, v: Operation) -> None:
    asked = self._kiln_asked
    key = asked if asked is not None and asked.op is k else _cse.OperationInfo(k)
    self._kiln_undo.append((key, self._known_ops.get(key, _MISSING_OP)))
    self._known_ops[key] = v


def _known_ops_pop(self: _cse.KnownOps, k: Operation) -> Operation:
    key = _cse.OperationInfo(k)
    value = self._known_ops.pop(key)
    self._kiln_undo.append((key, value))
    return value


def _simplify_region(self: _cse.CSEDriver, region: Region) -> None:
    """xDSL's, with the region's scope opened and closed on the one table (not a copy of it)."""
    if len(region.blocks) != 1:
        return
    known = self._known_ops
    mark = len(known._kiln_undo)  # type: ignore[attr-defined]
    self._simplify_block(region.block)
    self._known_ops = known
    undo, table = known._kiln_undo, known._known_ops  # type: ignore[attr-defined]  # noqa: SLF001
    while len(undo) > mark:
        key, shadowed = undo.pop()
        if shadowed is _MISSING_OP:
            table.pop(key, None)
        else:
            table[key] = shadowed


_original_clone = Operation.clone


def _clone(self: Operation, value_mapper: dict[SSAValue, SSAValue] | None = None,
           block_mapper: dict[Block, Block] | None = None, *, clone_name_hints: bool = True,
           clone_operands: bool = True) -> Operation:
    if self.regions:
        return _original_clone(self, value_mapper, block_mapper, clone_name_hints=clone_name_hints,
                               clone_operands=clone_operands)
    return self.clone_without_regions(value_mapper, block_mapper, clone_name_hints=clone_name_hints,
                                      clone_operands=clone_operands)


_original_affine_map_hash = AffineMap.__hash__


def _affine_map_hash(self: AffineMap) -> int:
    cached = self.__dict__.get("_kiln_hash")
    if cached is None:
        cached = _original_affine_map_hash(self)
        object.__setattr__(self, "_kiln_hash", cached)  # (frozen: a cache, not a field)
    return cached


_original_op_init = _irdl_ops.irdl_op_init
_SINGLE, _OPTIONAL, _VARIADIC = 0, 1, 2
_SEGMENT_OPTIONS = (_irdl_ops.AttrSizedOperandSegments, _irdl_ops.AttrSizedResultSegments,
                    _irdl_ops.AttrSizedRegionSegments, _irdl_ops.AttrSizedSuccessorSegments)


class _Shape(typing.NamedTuple):
    """What building an op of one definition needs: the kind (single, optional, variadic) of each
    of its operand, result, region and successor groups, and its segment-size options as
    (operands 0, results 1, regions 2 or successors 3; whether a property; its name)."""

    kinds: tuple[tuple[int, ...], ...]
    segments: tuple[tuple[int, bool, str], ...]


#: id(op definition) -> its shape, None when it has an option the direct builder does not take
#: (same variadic sizes). Definitions are made once per op class and live as long as it.
_shapes: dict[int, _Shape | None] = {}
_VALUE_TYPES = (OpResult, BlockArgument)
_LISTS = (list, tuple)


def _shape(op_def: _irdl_ops.OpDef) -> _Shape | None:
    segments = []
    for option in op_def.options:
        if isinstance(option, _irdl_ops.SameVariadicSize):
            return None
        if isinstance(option, _irdl_ops.AttrSizedSegments):  # (one of _SEGMENT_OPTIONS, as xDSL's builder requires)
            which = next(i for i, kind in enumerate(_SEGMENT_OPTIONS) if isinstance(option, kind))
            segments.append((which, option.as_property, option.attribute_name))
        # (any other option, ParsePropInAttrDict say, is about parsing: the builder passes it by)
    kinds = tuple(
        tuple(_OPTIONAL if isinstance(d, _irdl_ops.OptionalDef) else _VARIADIC if isinstance(d, _irdl_ops.VariadicDef)
              else _SINGLE for _, d in group)
        for group in (op_def.operands, op_def.results, op_def.regions, op_def.successors)
    )
    return _Shape(kinds, tuple(segments))


@functools.lru_cache(maxsize=4096)
def _segment_sizes(sizes: tuple[int, ...]) -> Attribute:
    """The segment sizes attribute (immutable: one per distinct list, as ``DenseArrayBase.from_list``
    costs ~10 us each time)."""
    from xdsl.dialects.builtin import DenseArrayBase, i32

    return DenseArrayBase.from_list(i32, sizes)


def _plain_operand(value: Any) -> SSAValue | None:
    """``value`` as the SSA value it stands for when it is one, or an op of one result; else None."""
    if value.__class__ in _VALUE_TYPES:
        return value
    if isinstance(value, Operation) and len(value.results) == 1:
        return value.results[0]
    return None


def _plain_type(value: Any) -> Attribute | None:
    return value if isinstance(value, Attribute) and not isinstance(value, Sequence) else None


def _plain_region(value: Any) -> Region | None:
    return value if value.__class__ is Region else None


def _plain_block(value: Any) -> Block | None:
    return value if value.__class__ is Block else None


def _flat(args: Any, kinds: tuple[int, ...], plain: Any, sizes: list[int]) -> list[Any] | None:
    """``args`` for groups of ``kinds`` in one list, each item made ``plain``, and each group's
    size appended to ``sizes``; None where xDSL's builder would convert an item, or refuse (then
    it runs, for its conversions and messages)."""
    if len(args) != len(kinds):
        return None
    out: list[Any] = []
    for arg, kind in zip(args, kinds):
        if arg is None:
            if kind != _OPTIONAL:
                return None
            sizes.append(0)
        elif arg.__class__ in _LISTS:
            if len(arg) > 1 and kind != _VARIADIC or len(arg) != 1 and kind == _SINGLE:
                return None
            for item in arg:
                item = plain(item)
                if item is None:
                    return None
                out.append(item)
            sizes.append(len(arg))
        else:
            item = plain(arg)
            if item is None:
                return None
            out.append(item)
            sizes.append(1)
    return out


def _op_init(self: Any, op_def: _irdl_ops.OpDef, *, operands: Any, result_types: Any, properties: Any,
             attributes: Any, successors: Any, regions: Any) -> None:
    key = id(op_def)
    shape = _shapes.get(key, _MISSING_OP)
    if shape is _MISSING_OP:
        shape = _shapes[key] = _shape(op_def)
    if shape is not None:
        kinds = shape.kinds
        sizes: tuple[list[int], ...] = ([], [], [], [])
        built = (_flat(operands, kinds[0], _plain_operand, sizes[0]), _flat(result_types, kinds[1], _plain_type, sizes[1]),
                 _flat(regions, kinds[2], _plain_region, sizes[2]), _flat(successors, kinds[3], _plain_block, sizes[3]))
    if shape is None or None in built:
        return _original_op_init(self, op_def, operands=operands, result_types=result_types, properties=properties,
                                 attributes=attributes, successors=successors, regions=regions)
    built_properties = {k: v for k, v in properties.items() if v is not None}
    built_attributes = {k: v for k, v in attributes.items() if v is not None}
    for which, as_property, name in shape.segments:
        (built_properties if as_property else built_attributes)[name] = _segment_sizes(tuple(sizes[which]))
    Operation.__init__(self, operands=built[0], result_types=built[1], properties=built_properties,
                       attributes=built_attributes, successors=built[3], regions=built[2])
    return None

_original_ssa_get = SSAValue.get


def _ssa_get(arg: Any, *, type: Any = Attribute) -> Any:  # noqa: A002  (xDSL's keyword)
    plain = _plain_operand(arg) if type is Attribute else None
    return plain if plain is not None else _original_ssa_get(arg, type=type)


def apply() -> None:
    """Install the fixes (idempotent)."""
    Operation.is_structurally_equivalent = _equivalent  # type: ignore[method-assign]
    _dce.region_dce = _region_dce  # type: ignore[assignment]
    _dce.result_only_effects = _result_only_effects  # type: ignore[assignment]
    _dce.would_be_trivially_dead = _would_be_trivially_dead  # type: ignore[assignment]
    _dce.is_trivially_dead = _is_trivially_dead  # type: ignore[assignment]
    _cse.is_trivially_dead = _is_trivially_dead  # type: ignore[assignment]  (imported by name there)
    _cse.OperationInfo.__hash__ = _operation_info_hash  # type: ignore[method-assign]
    _canonicalize.region_dce = _region_dce  # type: ignore[assignment]
    _canonicalize.CanonicalizePass.apply = _canonicalize_apply  # type: ignore[method-assign]
    PatternRewriteWalker._handle_operation_removal = _handle_operation_removal  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
    _Element.to_type = _to_type  # type: ignore[method-assign]
    NamedOperation.parse = classmethod(_named_parse)  # type: ignore[method-assign, assignment]
    Parser.parse_operation = _parse_operation  # type: ignore[method-assign]
    Parser._parse_block_body = _parse_block_body  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
    BasePrinter.print_string = _print_string  # type: ignore[method-assign]
    Printer.print_bytes_literal = _print_bytes_literal  # type: ignore[method-assign]
    TensorType.print_builtin = _print_tensor_type  # type: ignore[method-assign]
    _irdl_ops.irdl_build_operations_arg = _build_operations_arg  # type: ignore[assignment]
    _irdl_ops.irdl_op_init = _op_init  # type: ignore[assignment]
    SSAValue.get = staticmethod(_ssa_get)  # type: ignore[method-assign, assignment]
    _irdl_ops.OpDef.verify = _op_def_verify  # type: ignore[method-assign]
    _traits.SameOperandsAndResultType.verify = _same_type_verify  # type: ignore[method-assign]
    _irdl_ops.BaseAttrAccessor.__get__ = _segments_get  # type: ignore[method-assign]
    _irdl_ops.BeforeVariadicSingleAccessor.__get__ = _single_get  # type: ignore[method-assign]
    Operation.get_trait = classmethod(_get_trait)  # type: ignore[method-assign, assignment]
    _cse.KnownOps.__init__ = _known_ops_init  # type: ignore[method-assign]
    _cse.KnownOps.__setitem__ = _known_ops_set  # type: ignore[method-assign]
    _cse.KnownOps.get = _known_ops_get  # type: ignore[method-assign]
    _cse.KnownOps.pop = _known_ops_pop  # type: ignore[method-assign]
    Operation.clone = _clone  # type: ignore[method-assign]
    AffineMap.__hash__ = _affine_map_hash  # type: ignore[method-assign, assignment]
    _cse.CSEDriver._simplify_region = _simplify_region  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
    _arg_spec.get_type_hints = _LazyHints  # type: ignore[attr-defined]  (only from_spec calls it there)
