"""C for the ``kernel`` dialect's sequential algorithms: scans, sorting, bincount, binary search.

Each op becomes a loop nest over its memrefs' descriptors (any strides), in row-major
order. A scan visits every element after its predecessor along the axis, so it reads
the previous result and combines it with its input (``y[i] = y[i-1] + x[i]``: NumPy's
order of additions exactly); the innermost loop runs over the last axis, contiguous
when the memrefs are. Sorting copies each line into a buffer and runs the stable merge
sort of ``runtime/kiln_sort.h`` (pasted once per element type, with NumPy's order: NaN
last); ``searchsorted`` is that header's binary search; ``bincount`` zeroes its output
and adds each in-range value's weight (or 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kiln.backends.c.dispatch import handles
from kiln.backends.c.helpers import HELPERS
from kiln.backends.c.index_expr import IndexExpr, add, atom, linear, mul
from kiln.dialects import kernel

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter, MemrefDesc

_SORT_SOURCE = (Path(__file__).parent / "runtime" / "kiln_sort.h").read_text()

#: C element type -> (helper suffix, strict "less" with NaN last)
_ORDERS: dict[str, tuple[str, str]] = {
    "float": ("f32", "((a) < (b) || ((b) != (b) && (a) == (a)))"),
    "double": ("f64", "((a) < (b) || ((b) != (b) && (a) == (a)))"),
    "int32_t": ("i32", "((a) < (b))"),
    "int64_t": ("i64", "((a) < (b))"),
    "bool": ("i1", "((a) < (b))"),
}


def _sort_helper(ctype: str, suffix: str, less: str) -> str:
    return (
        f"#define KS_T {ctype}\n#define KS_NAME(x) kiln_sort_{suffix}_##x\n#define KS_LESS(a, b) {less}\n"
        f"{_SORT_SOURCE}#undef KS_T\n#undef KS_NAME\n#undef KS_LESS\n"
    )


HELPERS.update({f"kiln_sort_{suffix}": _sort_helper(ctype, suffix, less) for ctype, (suffix, less) in _ORDERS.items()})


def _sort_prefix(em: FunctionEmitter, elem: str) -> str:
    suffix = _ORDERS[elem][0]
    return em.use_helper(f"kiln_sort_{suffix}")


def loop_nest(em: FunctionEmitter, sizes: Sequence[IndexExpr], skip: int | None = None) -> list[IndexExpr]:
    """Open one ``for`` per dimension but ``skip`` (whose index is then 0); the caller closes them."""
    indices: list[IndexExpr] = []
    for d, size in enumerate(sizes):
        if d == skip:
            indices.append(0)
            continue
        name = em.fresh(f"i{d}")
        em.open(f"for (int64_t {name} = 0; {name} < {size}; {name}++) {{")
        indices.append(name)
    return indices


def _element(desc: MemrefDesc, indices: Sequence[IndexExpr]) -> str:
    return f"{desc.ptr}[{linear(indices, desc.strides)}]"


def _combine(em: FunctionEmitter, kind: str, elem: str, a: str, b: str) -> str:
    """``a <kind> b`` in C for the element type (max/min of floats propagate NaN, as NumPy's)."""
    if elem == "bool":
        return f"({a} {'|' if kind in ('add', 'max') else '&'} {b})"
    if kind == "add":
        return f"({a} + {b})"
    if kind == "mul":
        return f"({a} * {b})"
    if elem in ("float", "double"):
        name = {("max", "float"): "kiln_maximumf", ("max", "double"): "kiln_maximum",
                ("min", "float"): "kiln_minimumf", ("min", "double"): "kiln_minimum"}[kind, elem]
        return f"{em.use_helper(name)}({a}, {b})"
    return f"({a} {'>' if kind == 'max' else '<'} {b} ? {a} : {b})"


@handles(kernel.ScanOp)
def _scan(em: FunctionEmitter, op: kernel.ScanOp) -> None:
    x, y = em.memref(op.input), em.memref(op.output)
    axis = op.axis.value.data
    em.open("{")
    indices = loop_nest(em, y.sizes)
    i = indices[axis]
    previous = list(indices)
    previous[axis] = add(i, -1) if isinstance(i, str) else i - 1
    first = _element(x, indices)
    combined = _combine(em, op.kind.data, y.elem, _element(y, previous), first)
    em.line(f"{_element(y, indices)} = {i} == 0 ? {first} : {combined};")
    for _ in y.sizes:
        em.close()
    em.close()


def _sort_lines(em: FunctionEmitter, x: MemrefDesc, axis: int, values: MemrefDesc | None, positions: MemrefDesc | None) -> None:
    """Every line of ``x`` along ``axis`` sorted into ``values``, or its permutation into ``positions``."""
    prefix = _sort_prefix(em, x.elem)
    n = x.sizes[axis]
    keys, pos = em.fresh("sort_keys"), em.fresh("sort_pos")
    em.open("{")
    em.line(f"{x.elem} *{keys} = ({x.elem} *)malloc(2 * {atom(n)} * sizeof({x.elem}) + 1);")
    em.line(f"int64_t *{pos} = {'NULL' if positions is None else f'(int64_t *)malloc(2 * {atom(n)} * sizeof(int64_t) + 1)'};")
    em.line(f"if (!{keys}{'' if positions is None else f' || !{pos}'}) abort();")
    indices = loop_nest(em, x.sizes, skip=axis)
    y_arg = "NULL, 0" if values is None else f"&{_element(values, indices)}, {values.strides[axis]}"
    p_arg = "NULL, 0" if positions is None else f"&{_element(positions, indices)}, {positions.strides[axis]}"
    em.line(f"{prefix}_line(&{_element(x, indices)}, {x.strides[axis]}, {y_arg}, {p_arg}, {n}, {keys}, {pos});")
    for _ in range(len(x.sizes) - 1):
        em.close()
    em.line(f"free({keys});")
    if positions is not None:
        em.line(f"free({pos});")
    em.close()


@handles(kernel.SortOp)
def _sort(em: FunctionEmitter, op: kernel.SortOp) -> None:
    _sort_lines(em, em.memref(op.input), op.axis.value.data, em.memref(op.output), None)


@handles(kernel.ArgsortOp)
def _argsort(em: FunctionEmitter, op: kernel.ArgsortOp) -> None:
    _sort_lines(em, em.memref(op.input), op.axis.value.data, None, em.memref(op.output))


@handles(kernel.BincountOp)
def _bincount(em: FunctionEmitter, op: kernel.BincountOp) -> None:
    x, out = em.memref(op.input), em.memref(op.output)
    w = None if op.weights is None else em.memref(op.weights)
    (length,), (n,) = out.sizes, x.sizes
    b, i, v = em.fresh("bin"), em.fresh("i"), em.fresh("v")
    em.open("{")
    em.open(f"for (int64_t {b} = 0; {b} < {length}; {b}++) {{")
    em.line(f"{out.ptr}[{mul(b, out.strides[0])}] = 0;")
    em.close()
    em.open(f"for (int64_t {i} = 0; {i} < {n}; {i}++) {{")
    em.line(f"const int64_t {v} = {x.ptr}[{mul(i, x.strides[0])}];")
    weight = "1" if w is None else f"{w.ptr}[{mul(i, w.strides[0])}]"
    em.line(f"if ({v} >= 0 && {v} < {length}) {out.ptr}[{mul(v, out.strides[0])}] += {weight};")
    em.close()
    em.close()


@handles(kernel.SearchsortedOp)
def _searchsorted(em: FunctionEmitter, op: kernel.SearchsortedOp) -> None:
    a, values, out = em.memref(op.sorted), em.memref(op.values), em.memref(op.output)
    prefix = _sort_prefix(em, a.elem)
    right = 1 if op.side.data == "right" else 0
    em.open("{")
    indices = loop_nest(em, values.sizes)
    em.line(
        f"{_element(out, indices)} = {prefix}_search({a.ptr}, {a.strides[0]}, {a.sizes[0]}, "
        f"{_element(values, indices)}, {right});"
    )
    for _ in values.sizes:
        em.close()
    em.close()
