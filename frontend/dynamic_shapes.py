"""Result sizes of a function traced with dynamic (``None``) dimensions, computed per call.

The compiled code writes its results into buffers the caller allocates
(destination passing), so the caller must know each result's size before the
call. This module reads the traced ``graph`` function once and expresses
every dynamic dimension of every value as arithmetic on the input sizes
(``x.shape[0]``, ``x.shape[0] + y.shape[0]`` for a concat, ...). It also
collects the equalities the compiled code assumes but cannot check (both
operands of ``x + y`` have the same runtime size), which every call checks
before running, so a mismatch is a ``ValueError`` and never a wild read.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, FileLineColLoc, TensorType, i64
from xdsl.ir import Block, Operation, SSAValue

from kiln.dialects import graph
from kiln.dialects.contracts import RESULT_LENGTHS_ATTR, result_lengths
from kiln.frontend.trace_context import describe_location


@dataclass(frozen=True)
class In:
    """Axis ``axis`` of input ``arg``."""

    arg: int
    axis: int


@dataclass(frozen=True)
class Op:
    """``lhs op rhs`` with ``op`` one of ``+ * //``."""

    op: str
    lhs: Expr
    rhs: Expr


Expr = Union[int, In, Op]
#: ``lhs == rhs`` is checked before each call; else ``ValueError`` at ``where`` saying ``why``
Check = tuple[Expr, Expr, str, str]
#: a value's dims: an expression each, or None where kiln cannot tell the size
Dims = tuple[Expr | None, ...]

_NO_BROADCAST = "dynamic dimensions never broadcast"
_SAME_COUNT = "a reshape keeps the number of elements"
_SAME_SHAPE = (graph.ElementwiseBinaryOp, graph.ElementwiseUnaryOp, graph.CmpOp, graph.SelectOp, graph.CastOp,
               graph.ElementwiseTestOp)


#: the arithmetic of sizes: each op's symbol in an :class:`Op` and its value on ints
_SIZE_OPS: dict[type[Operation], tuple[str, Callable[[int, int], int]]] = {
    graph.AddOp: ("+", operator.add), graph.MulOp: ("*", operator.mul), graph.FloorDivOp: ("//", operator.floordiv),
}


def _shape(value: SSAValue) -> tuple[int, ...]:
    """A tensor's shape, or that of the array a resource holds (an argument the function writes)."""
    t = value.type
    return graph.shape_of(t.value_type if isinstance(t, graph.ResourceType) else t)


def _static(value: SSAValue) -> Dims:
    return tuple(None if d < 0 else d for d in _shape(value))


def _product(exprs: Sequence[Expr]) -> Expr:
    result: Expr = 1
    for e in exprs:
        if isinstance(result, int) and isinstance(e, int):
            result *= e
        else:
            result = e if result == 1 else Op("*", result, e)
    return result


@dataclass
class _Analysis:
    """Dims of every value seen so far, and the runtime equalities ``(a, b, where, why)``."""

    env: dict[SSAValue, Dims]
    checks: list[Check]
    #: 0-d integers that are sizes: ``graph.dim`` of a known size, constants, ``+ * //`` of those
    sizes: dict[SSAValue, Expr] = field(default_factory=dict)

    def dims(self, value: SSAValue) -> Dims:
        return self.env.get(value) or _static(value)

    def unify(self, dims: Sequence[Dims], op: Operation) -> Dims:
        """Dims of values that must be the same size: the first known per axis, others checked."""
        out: list[Expr | None] = []
        for axis_dims in zip(*dims):
            known = [d for d in axis_dims if d is not None]
            first = known[0] if known else None
            for other in known[1:]:
                if other != first:
                    self.checks.append((first, other, describe_location(op.location), _NO_BROADCAST))
            out.append(first)
        return tuple(out)

    def block(self, block: Block) -> None:
        for op in block.ops:
            self._size(op)
            for result, dims in zip(op.results, self.op(op)):
                if isinstance(result.type, TensorType):
                    self.env[result] = dims

    def _size(self, op: Operation) -> None:
        """Note ``op``'s result in :attr:`sizes` when it is a size (graph-bound-results computes bounds so)."""
        if isinstance(op, graph.DimOp) and (d := self.dims(op.operand)[op.axis.value.data]) is not None:
            self.sizes[op.result] = d
        elif isinstance(op, graph.ConstantOp) and op.result.type == graph.tensor_type(i64, ()):
            self.sizes[op.result] = int(op.value.get_values()[0])
        elif type(op) in _SIZE_OPS and all(v in self.sizes for v in op.operands):
            lhs, rhs = (self.sizes[v] for v in op.operands)
            symbol, apply = _SIZE_OPS[type(op)]
            known = isinstance(lhs, int) and isinstance(rhs, int)
            self.sizes[op.result] = apply(lhs, rhs) if known else Op(symbol, lhs, rhs)  # type: ignore[arg-type]

    def op(self, op: Operation) -> list[Dims]:
        """The dims of ``op``'s results (and the checks it implies)."""
        if isinstance(op, _SAME_SHAPE):
            return [self.unify([self.dims(v) for v in op.operands], op)]
        if isinstance(op, graph.ReadOp):
            return [self.dims(op.resource)]
        if isinstance(op, graph.AssignOp):
            self.unify([self.dims(op.value), op.resource.type.value_type.get_shape()], op)
            return []
        if isinstance(op, graph.BroadcastOp):
            return [self._broadcast(op)]
        if isinstance(op, graph.TransposeOp):
            src = self.dims(op.operand)
            return [tuple(src[p] for p in op.perm.get_values())]
        if isinstance(op, graph.ReduceOp):
            src, axes = self.dims(op.operand), set(op.axes.get_values())
            keep = op.keepdims is not None
            return [tuple(1 if i in axes else d for i, d in enumerate(src) if keep or i not in axes)]
        if isinstance(op, graph.ReshapeOp):
            return [self._reshape(op)]
        if isinstance(op, graph.MatmulOp):
            return [self._matmul(op)]
        if isinstance(op, graph.ConcatOp):
            return [self._concat(op)]
        if isinstance(op, graph.GatherRowOp):
            return [self.dims(op.operand)[1:]]
        if isinstance(op, graph.ScatterRowOp):
            self.unify([self.dims(op.row), self.dims(op.operand)[1:]], op)
            return [self.dims(op.operand)]
        if isinstance(op, graph.GatherOp):
            batch = self.unify([self.dims(v) for v in op.indices], op)
            return [batch + self.dims(op.operand)[len(op.indices):]]
        if isinstance(op, graph.ScatterOp):
            batch = self.unify([self.dims(v) for v in op.indices], op)
            self.unify([self.dims(op.updates), batch + self.dims(op.operand)[len(op.indices):]], op)
            return [self.dims(op.operand)]
        if isinstance(op, graph.CondOp):
            self.block(op.then_region.block)
            self.block(op.else_region.block)
            then = [self.dims(v) for v in op.then_region.block.last_op.operands]
            other = [self.dims(v) for v in op.else_region.block.last_op.operands]
            return [tuple(a if a == b else None for a, b in zip(t, e)) for t, e in zip(then, other)]
        if isinstance(op, graph.WhileOp):
            return self._while(op)
        if isinstance(op, (graph.ScanOp, graph.SortOp, graph.ArgsortOp)):
            return [self.dims(op.operand)]
        if isinstance(op, graph.SearchsortedOp):
            return [self.dims(op.values)]
        if isinstance(op, graph.ArgReduceOp):
            axis = op.axis.value.data
            return [tuple(d for i, d in enumerate(self.dims(op.operand)) if i != axis)]
        if isinstance(op, graph.PadToBoundOp):
            bounds = {a: self.sizes.get(size) for a, size in zip(op.axes.get_values(), op.sizes)}
            return [tuple(bounds.get(a, d) if graph.shape_of(op.result)[a] < 0 else graph.shape_of(op.result)[a]
                          for a, d in enumerate(self.dims(op.value)))]
        if isinstance(op, graph.BincountOp) and op.weights is not None:
            self.unify([self.dims(op.operand), self.dims(op.weights)], op)
        return [_static(r) for r in op.results]

    def _broadcast(self, op: graph.BroadcastOp) -> Dims:
        src, dst = self.dims(op.operand), _static(op.result)
        lead = len(dst) - len(src)
        out: list[Expr | None] = []
        for axis, want in enumerate(dst):
            have = src[axis - lead] if axis >= lead else 1
            if want is not None:
                if have is not None and have != want and not isinstance(have, int):
                    self.checks.append((have, want, describe_location(op.location), _NO_BROADCAST))
                out.append(want)
            else:  # a dynamic target dim: it is the source's, unless the source is stretched
                out.append(None if have == 1 else have)
        return tuple(out)

    def _reshape(self, op: graph.ReshapeOp) -> Dims:
        """The one dynamic result size is the element count over the static sizes; the compiled
        code divides without checking, so the count is checked to be a multiple (or equal)."""
        dst, src = _static(op.result), self.dims(op.operand)
        if dst.count(None) > 1 or any(d is None for d in src):
            return dst
        rest = math.prod(d for d in dst if d is not None)
        total = _product([d for d in src if d is not None])
        if isinstance(total, int):
            return tuple(total // rest if d is None else d for d in dst)
        where = describe_location(op.location)
        if None not in dst:
            self.checks.append((total, rest, where, _SAME_COUNT))
            return dst
        size = total if rest == 1 else Op("//", total, rest)
        if rest != 1:
            self.checks.append((total, Op("*", size, rest), where, _SAME_COUNT))
        return tuple(size if d is None else d for d in dst)

    def _matmul(self, op: graph.MatmulOp) -> Dims:
        a, b = self.dims(op.lhs), self.dims(op.rhs)
        self.unify([(a[-1],), (b[0] if len(b) == 1 else b[-2],)], op)
        if len(a) == 1:
            return b[:-2] + b[-1:]
        if len(b) == 1:
            return a[:-1]
        batch_rank = max(len(a), len(b)) - 2
        pad = lambda s: (1,) * (batch_rank - len(s) + 2) + s[:-2]
        batch = tuple(y if x == 1 else x for x, y in zip(pad(a), pad(b)))
        return batch + (a[-2], b[-1])

    def _concat(self, op: graph.ConcatOp) -> Dims:
        axis = op.axis.value.data
        inputs = [self.dims(v) for v in op.inputs]
        others = self.unify([d[:axis] + d[axis + 1 :] for d in inputs], op)
        parts = [d[axis] for d in inputs]
        total: Expr | None = None if any(p is None for p in parts) else parts[0]
        for p in parts[1:]:
            if total is not None and p is not None:
                total = total + p if isinstance(total, int) and isinstance(p, int) else Op("+", total, p)
        return others[:axis] + (total,) + others[axis:]

    def _while(self, op: graph.WhileOp) -> list[Dims]:
        """A carried size that the body keeps is the initial one; one it changes is unknown, in
        the body too (a size a later iteration sees is not the first's): the regions are read
        again with those sizes unknown, without the checks the first reading implied."""
        carried = [self.dims(v) for v in op.init]
        checks = len(self.checks)
        while True:  # (each reading only forgets sizes: it ends)
            del self.checks[checks:]
            for region in (op.cond_region, op.body_region):
                for arg, dims in zip(region.block.args, carried):
                    self.env[arg] = dims
                self.block(region.block)
            yielded = [self.dims(v) for v in op.body_region.block.last_op.operands]
            kept = [tuple(d if d == y else None for d, y in zip(c, ys)) for c, ys in zip(carried, yielded)]
            if kept == carried:
                break
            carried = kept
        return carried


def _source(expr: Expr) -> str:
    if isinstance(expr, int):
        return str(expr)
    if isinstance(expr, In):
        return f"a{expr.arg}.shape[{expr.axis}]"
    return f"({_source(expr.lhs)} {expr.op} {_source(expr.rhs)})"


def describe(expr: Expr, names: Sequence[str]) -> str:
    """``expr`` in the user's terms: ``x.shape[0] + y.shape[0]``."""
    if isinstance(expr, int):
        return str(expr)
    if isinstance(expr, In):
        return f"{names[expr.arg]}.shape[{expr.axis}]"
    return f"{describe(expr.lhs, names)} {expr.op} {describe(expr.rhs, names)}"


@dataclass(frozen=True)
class DynamicShapes:
    """How one traced function's result sizes follow from its input sizes."""

    name: str
    arg_names: tuple[str, ...]
    #: static dims of each tensor input (None: dynamic)
    inputs: tuple[Dims, ...]
    outputs: tuple[Dims, ...]
    checks: tuple[Check, ...]
    #: the user's file:line of the return, for errors
    where: str = ""
    #: the user's file:line where each result was made (its op's), for errors
    origins: tuple[str, ...] = ()
    #: ``(result, axis, length result)``: results returned in a buffer of a bound, with their
    #: lengths as extra results (graph-bound-results, RESULT_LENGTHS_ATTR)
    lengths: tuple[tuple[int, int, int], ...] = ()

    def unknown(self) -> str | None:
        """Why some result size cannot be computed from the input sizes (None if all can)."""
        for k, dims in enumerate(self.outputs):
            for axis, d in enumerate(dims):
                if d is None:
                    where = self.origins[k] if k < len(self.origins) and self.origins[k] else self.where
                    return (
                        f"{where + ': ' if where else ''}{self.name}: dimension {axis} of result {k} has a length known only at run time that "
                        "neither follows from the input sizes nor has a bound that does (it comes from a loop that changes it, "
                        "a staged if whose branches give different sizes, np.arange with a traced length, or a reshape with "
                        "several unknown sizes): kiln's callers allocate the results (x[mask], np.nonzero and traced slices "
                        "are returned in a buffer of their bound); return a fixed-size array instead (np.where(mask, x, 0), "
                        "a buffer of the largest size and a count) or give the inputs static sizes for it"
                    )
        return None

    def entry(
        self, native: Callable[..., Any], in_dtypes: Sequence[np.dtype[Any]], out_dtypes: Sequence[np.dtype[Any]]
    ) -> Callable[..., Any]:
        """The call entry (see Backend.entry): checks the inputs, sizes and allocates the results."""
        n = len(in_dtypes)
        params = ", ".join(f"a{i}" for i in range(n))
        lines = ["def entry(*args):", f"  if len(args) != {n}: return NotImplemented"]
        if n:  # (a function of Python values only has no array to unpack: `sieve(50)`)
            lines.append(f"  {params}, = args")
        for i, dt in enumerate(in_dtypes):
            lines.append(
                f"  if type(a{i}) is not ndarray or a{i}.dtype != dt{i} or not a{i}.flags.c_contiguous "
                f"or not a{i}.flags.aligned: return NotImplemented"
            )
        for i, dims in enumerate(self.inputs):
            fits = [f"a{i}.ndim == {len(dims)}"] + [f"a{i}.shape[{a}] == {d}" for a, d in enumerate(dims) if d is not None]
            lines.append(f"  if not ({' and '.join(fits)}): return NotImplemented")
        for k, (lhs, rhs, _, _) in enumerate(self.checks):
            lines.append(f"  if {_source(lhs)} != {_source(rhs)}: mismatch({k}, args)")
        outs = ", ".join(f"empty(({''.join(_source(d) + ', ' for d in dims)}), odt{k})" for k, dims in enumerate(self.outputs))
        lines += [f"  outs = [{outs}]", "  native(*args, *outs)"]
        cuts: dict[int, list[str]] = {}
        for k, axis, m in self.lengths:
            cuts.setdefault(k, []).append(f"({axis}, outs[{m}])")
        lines += [f"  outs[{k}] = prefix(outs[{k}], ({', '.join(c)},))" for k, c in cuts.items()]
        if self.lengths:
            lines.append(f"  del outs[{len(self.outputs) - len(self.lengths)}:]")
        lines.append("  return outs[0] if len(outs) == 1 else (tuple(outs) or None)")
        namespace: dict[str, Any] = {
            "ndarray": np.ndarray,
            "empty": np.empty,
            "native": native,
            "mismatch": self._mismatch,
            "prefix": _prefix,
            **{f"dt{i}": dt for i, dt in enumerate(in_dtypes)},
            **{f"odt{k}": dt for k, dt in enumerate(out_dtypes)},
        }
        exec("\n".join(lines) + "\n", namespace)  # noqa: S102 (generated here)
        return namespace["entry"]

    def _mismatch(self, k: int, args: Sequence[np.ndarray]) -> None:
        lhs, rhs, where, why = self.checks[k]
        value = lambda e: eval(_source(e), {f"a{i}": a for i, a in enumerate(args)})  # noqa: S307 (generated here)
        raise ValueError(
            f"{self.name}: sizes do not match at {where}: {describe(lhs, self.arg_names)} is {value(lhs)} but "
            f"{describe(rhs, self.arg_names)} is {value(rhs)} ({why})"
        )


def _prefix(buffer: np.ndarray, cuts: Sequence[tuple[int, np.ndarray]]) -> np.ndarray:
    """The value of a result returned in a buffer of a bound: its first ``n`` elements along each
    cut axis. A copy when that is at most half of the buffer (no large buffer kept alive for a few
    elements) or not contiguous, else a view."""
    index = [slice(None)] * buffer.ndim
    for axis, n in cuts:
        index[axis] = slice(0, int(n))
    part = buffer[tuple(index)]
    return part.copy() if 2 * part.size <= buffer.size or not part.flags.c_contiguous else part


def _origin(value: SSAValue) -> str:
    """The user's file:line:col of the op that made ``value`` ("" for an argument or an op without one)."""
    owner = value.owner
    return describe_location(owner.location) if isinstance(owner, Operation) and isinstance(owner.location, FileLineColLoc) else ""


def analyze(func_op: func.FuncOp) -> DynamicShapes | None:
    """The size rules of a traced function, or None when none of its inputs and results has a
    dynamic dim and none is returned in a buffer of a bound."""
    block = func_op.body.block
    # the entry's arguments, in order: arrays, and arrays the function writes (a resource each)
    tensors = [a for a in block.args if isinstance(a.type, (TensorType, graph.ResourceType))]
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    results = [v for v in ret.arguments if isinstance(v.type, TensorType)]
    lengths = func_op.attributes.get(RESULT_LENGTHS_ATTR)
    if lengths is None and all(-1 not in _shape(a) for a in [*tensors, *results]):
        return None
    env: dict[SSAValue, Dims] = {
        a: tuple(In(i, axis) if d < 0 else d for axis, d in enumerate(_shape(a))) for i, a in enumerate(tensors)
    }
    analysis = _Analysis(env, [])
    analysis.block(block)
    return DynamicShapes(
        name=func_op.sym_name.data,
        arg_names=tuple(a.name_hint or f"args[{i}]" for i, a in enumerate(tensors)),
        inputs=tuple(_static(a) for a in tensors),
        outputs=tuple(analysis.dims(v) for v in ret.arguments),
        checks=tuple(analysis.checks),
        where=describe_location(ret.location),
        origins=tuple(_origin(v) for v in ret.arguments),
        lengths=result_lengths(lengths) if isinstance(lengths, DenseArrayBase) else (),
    )

