"""C for the ``kernel`` dialect's sequential algorithms: scans, sorting, bincount, binary search.

Each op becomes a loop nest over its memrefs' descriptors (any strides), in row-major
order. A scan visits every element after its predecessor along the axis, so it reads
the previous result and combines it with its input (``y[i] = y[i-1] + x[i]``: NumPy's
order of additions exactly); the innermost loop runs over the last axis, contiguous
when the memrefs are. Sorting copies each line into a buffer and sorts it stably with
``runtime/kiln_sort.h`` (pasted once per element type, with NumPy's order, NaN last: a
merge sort for short lines, an LSD radix sort on order-preserving integer keys for long
ones); ``searchsorted`` is that header's binary search; ``bincount`` zeroes its output
and adds each in-range value's weight (or 1); ``histogram`` finds equal bins and counts and sums in
one pass; ``gather``/``scatter`` loop over the index
positions in row-major order (so the last of repeated writes wins); ``nonzero`` writes the
positions of the nonzero elements in one loop, in order, and ``compress`` the values at them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kiln.backends.c.dispatch import handles
from kiln.backends.c.helpers import HELPERS
from kiln.backends.c.index_expr import IndexExpr, add, linear, mul
from kiln.dialects import kernel

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter, MemrefDesc

_SORT_SOURCE = (Path(__file__).parent / "runtime" / "kiln_sort.h").read_text()

_FLOAT_LESS = "((a) < (b) || ((b) != (b) && (a) == (a)))"


def _float_key(ctype: str, bits: int) -> str:
    """The radix key of a float: the bits with the sign flipped (all of them for negatives), so
    unsigned order is numeric order; every NaN the largest key, -0.0 the key of +0.0."""
    u, top = f"uint{bits}_t", f"((uint{bits}_t)1 << {bits - 1})"
    return (
        f"static inline {u} kiln_sort_key_{ctype}({ctype} v) {{\n"
        f"  {u} u;\n"
        f"  if (v != v) return ~({u})0;\n"
        f"  if (v == 0) return {top};\n"
        "  memcpy(&u, &v, sizeof u);\n"
        f"  return (u & {top}) ? ~u : (u | {top});\n"
        "}\n"
    )


#: C element type -> (helper suffix, strict "less" with NaN last, key type, key function source, key expression)
_ORDERS: dict[str, tuple[str, str, str, str, str]] = {
    "float": ("f32", _FLOAT_LESS, "uint32_t", _float_key("float", 32), "kiln_sort_key_float(v)"),
    "double": ("f64", _FLOAT_LESS, "uint64_t", _float_key("double", 64), "kiln_sort_key_double(v)"),
    "int32_t": ("i32", "((a) < (b))", "uint32_t", "", "((uint32_t)(v) ^ 0x80000000u)"),
    "int64_t": ("i64", "((a) < (b))", "uint64_t", "", "((uint64_t)(v) ^ 0x8000000000000000u)"),
    "uint8_t": ("i1", "((a) < (b))", "uint8_t", "", "((uint8_t)(v))"),  # booleans (element_c_type)
}


def _sort_helper(ctype: str, suffix: str, less: str, key_t: str, key_fn: str, key: str) -> str:
    return (
        f"{key_fn}#define KS_T {ctype}\n#define KS_NAME(x) kiln_sort_{suffix}_##x\n#define KS_LESS(a, b) {less}\n"
        f"#define KS_KEY_T {key_t}\n#define KS_TO_KEY(v) {key}\n"
        f"{_SORT_SOURCE}#undef KS_T\n#undef KS_NAME\n#undef KS_LESS\n#undef KS_KEY_T\n#undef KS_TO_KEY\n"
    )


HELPERS.update({f"kiln_sort_{entry[0]}": _sort_helper(ctype, *entry) for ctype, entry in _ORDERS.items()})


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
    if elem == "uint8_t":  # booleans (element_c_type)
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


@handles(kernel.ArgReduceOp)
def _argreduce(em: FunctionEmitter, op: kernel.ArgReduceOp) -> None:
    """One pass in row-major order, keeping each line's best value so far in a temporary: a later
    element wins only when strictly better, or when it is the line's first NaN."""
    x, out = em.memref(op.input), em.memref(op.output)
    axis = op.axis.value.data
    kept_sizes = [size for d, size in enumerate(x.sizes) if d != axis]
    strides: list[IndexExpr] = []
    stride: IndexExpr = 1
    for size in reversed(kept_sizes):
        strides.insert(0, stride)
        stride = mul(stride, size)
    best, v = em.fresh("best"), em.fresh("v")
    em.open("{")
    em.line(f"{x.elem} *{best} = ({x.elem} *)malloc({stride if isinstance(stride, int) else f'({stride})'} * sizeof({x.elem}) + 1);")
    em.line(f"if (!{best}) abort();")
    indices = loop_nest(em, x.sizes)
    kept = [index for d, index in enumerate(indices) if d != axis]
    slot = f"{best}[{linear(kept, strides)}]"
    cmp = ">" if op.kind.data == "max" else "<"
    em.line(f"const {x.elem} {v} = {_element(x, indices)};")
    better = f"{v} {cmp} {slot}"
    if x.elem in ("float", "double"):
        better = f"{better} || ({v} != {v} && {slot} == {slot})"
    em.line(f"if ({indices[axis]} == 0 || {better}) {{ {slot} = {v}; {_element(out, kept)} = {indices[axis]}; }}")
    for _ in x.sizes:
        em.close()
    em.line(f"free({best});")
    em.close()


def _sort_lines(em: FunctionEmitter, x: MemrefDesc, axis: int, values: MemrefDesc | None, positions: MemrefDesc | None) -> None:
    """Every line of ``x`` along ``axis`` sorted into ``values``, or its permutation into ``positions``."""
    prefix = _sort_prefix(em, x.elem)
    n = x.sizes[axis]
    work = em.fresh("sort_work")
    em.open("{")
    em.line(f"void *{work} = malloc({prefix}_work_size({n}));")
    em.line(f"if (!{work}) abort();")
    indices = loop_nest(em, x.sizes, skip=axis)
    y_arg = "NULL, 0" if values is None else f"&{_element(values, indices)}, {values.strides[axis]}"
    p_arg = "NULL, 0" if positions is None else f"&{_element(positions, indices)}, {positions.strides[axis]}"
    em.line(f"{prefix}_line(&{_element(x, indices)}, {x.strides[axis]}, {y_arg}, {p_arg}, {n}, {work});")
    for _ in range(len(x.sizes) - 1):
        em.close()
    em.line(f"free({work});")
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


def _scalar(desc: MemrefDesc) -> str:
    return desc.ptr if desc.scalar else f"{desc.ptr}[0]"


@handles(kernel.HistogramOp)
def _histogram(em: FunctionEmitter, op: kernel.HistogramOp) -> None:
    """One pass over blocks of ``kernel.HistogramOp.BLOCK`` elements: each kept value's bin, its
    count, and its weights added in double to per-block sums, which are then added (in the result's
    type) to the sums, as NumPy adds each block's ``bincount``."""
    x, low, high, span, edges, *weights = (em.memref(v) for v in op.inputs)
    counts, *sums = (em.memref(v) for v in op.outputs)
    (n,), (size,), t = counts.sizes, x.sizes, x.elem
    lo, hi, sp, blk, start, end, i, v, f, b = (em.fresh(h) for h in ("lo", "hi", "span", "blk", "start", "end", "i", "v", "f", "bin"))
    block, k = kernel.HistogramOp.BLOCK, len(weights)
    em.open("{")
    em.line(f"const {t} {lo} = {_scalar(low)}, {hi} = {_scalar(high)}, {sp} = {_scalar(span)};")
    em.open(f"for (int64_t {b} = 0; {b} < {n}; {b}++) {{")
    for out in (counts, *sums):
        em.line(f"{out.ptr}[{mul(b, out.strides[0])}] = 0;")
    em.close()
    if k:
        em.line(f"double *{blk} = (double *)malloc(sizeof(double) * {k} * {n});")
        em.line(f"if (!{blk}) abort();")
    em.open(f"for (int64_t {start} = 0; {start} < {size}; {start} += {block}) {{")
    em.line(f"const int64_t {end} = {start} + {block} < {size} ? {start} + {block} : {size};")
    if k:
        em.line(f"memset({blk}, 0, sizeof(double) * {k} * {n});")
    em.open(f"for (int64_t {i} = {start}; {i} < {end}; {i}++) {{")
    em.line(f"const {t} {v} = {x.ptr}[{mul(i, x.strides[0])}];")
    em.line(f"if (!({v} >= {lo} && {v} <= {hi})) continue;")
    em.line(f"const {t} {f} = ({v} - {lo}) / {sp} * ({t}){n};")
    em.line(f"int64_t {b} = {f} < ({t}){n} ? (int64_t){f} : {n} - 1;")
    left, right = f"{edges.ptr}[{mul(b, edges.strides[0])}]", f"{edges.ptr}[{mul(f'({b} + 1)', edges.strides[0])}]"
    em.line(f"if ({v} < {left}) {b}--; else if ({b} != {n} - 1 && {v} >= {right}) {b}++;")
    em.line(f"if ({b} < 0) continue;")
    em.line(f"{counts.ptr}[{mul(b, counts.strides[0])}] += 1;")
    for j, w in enumerate(weights):
        em.line(f"{blk}[{j * n} + {b}] += (double){w.ptr}[{mul(i, w.strides[0])}];")
    em.close()
    if k:
        em.open(f"for (int64_t {b} = 0; {b} < {n}; {b}++) {{")
        for j, out in enumerate(sums):
            at = f"{out.ptr}[{mul(b, out.strides[0])}]"
            em.line(f"{at} = ({out.elem})({at} + ({out.elem}){blk}[{j * n} + {b}]);")
        em.close()
    em.close()
    if k:
        em.line(f"free({blk});")
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


def _picked_row(em: FunctionEmitter, raw: str, size: IndexExpr) -> str:
    """An index into an axis of ``size``: negative counts from the end, then clamped (as ``graph.gather``)."""
    v = em.fresh("at")
    em.line(f"int64_t {v} = {raw};")
    em.line(f"if ({v} < 0) {v} += {size};")
    em.line(f"if ({v} < 0) {v} = 0; else if ({v} >= {size}) {v} = {size} - 1;")
    return v


def _indexed(em: FunctionEmitter, indices: Sequence[MemrefDesc], x: MemrefDesc,
             body: Callable[[list[IndexExpr], list[IndexExpr]], str]) -> None:
    """A loop nest over the index positions ``b`` (row-major), the picked rows of ``x``, then its
    trailing axes ``r``: one line ``body(b + r, picked + r)``. Nothing runs when an indexed axis is empty."""
    k = len(indices)
    runtime = [f"{s} > 0" for s in x.sizes[:k] if not isinstance(s, int)]
    em.open(f"if ({' && '.join(runtime) if runtime else int(all(s > 0 for s in x.sizes[:k]))}) {{")  # type: ignore[operator]
    batch = loop_nest(em, indices[0].sizes)
    picked: list[IndexExpr] = [_picked_row(em, _element(d, batch), x.sizes[a]) for a, d in enumerate(indices)]
    rest = loop_nest(em, x.sizes[k:])
    em.line(body([*batch, *rest], [*picked, *rest]))
    for _ in range(len(batch) + len(rest)):
        em.close()
    em.close()


@handles(kernel.GatherOp)
def _gather(em: FunctionEmitter, op: kernel.GatherOp) -> None:
    x, out = em.memref(op.input), em.memref(op.output)
    _indexed(em, [em.memref(i) for i in op.indices], x,
             lambda at_b, at_x: f"{_element(out, at_b)} = {_element(x, at_x)};")


@handles(kernel.ScatterOp)
def _scatter(em: FunctionEmitter, op: kernel.ScatterOp) -> None:
    u, x = em.memref(op.updates), em.memref(op.output)
    kind = op.kind.data

    def body(at_u: list[IndexExpr], at_x: list[IndexExpr]) -> str:
        target, value = _element(x, at_x), _element(u, at_u)
        if kind == "set":
            return f"{target} = {value};"
        return f"{target} = ({x.elem}){_combine(em, kind, u.elem, f'(({u.elem}){target})', value)};"

    _indexed(em, [em.memref(i) for i in op.indices], x, body)


@handles(kernel.IotaOp)
def _iota(em: FunctionEmitter, op: kernel.IotaOp) -> None:
    out = em.memref(op.output)
    i = em.fresh("i")
    em.open(f"for (int64_t {i} = 0; {i} < {out.sizes[0]}; {i}++) {{")
    em.line(f"{out.ptr}[{mul(i, out.strides[0])}] = {i};")
    em.close()


@handles(kernel.NonzeroOp)
def _nonzero(em: FunctionEmitter, op: kernel.NonzeroOp) -> None:
    """One pass in order: each position whose element is ``!= 0`` (NaN is; a C complex number is
    when either part is) goes to the next output element (the output has exactly their count)."""
    x, out = em.memref(op.input), em.memref(op.output)
    _select(em, x, out, lambda pos: pos, _contiguous(out),
            lambda i, k, j: f"for (int64_t {j} = 0; {j} < 8; {j}++) {out.ptr}[{k} + {j}] = {i} + {j};")


@handles(kernel.CompressOp)
def _compress(em: FunctionEmitter, op: kernel.CompressOp) -> None:
    """``values[mask]``: ``_nonzero``'s loop storing each value instead of its position."""
    v, m, out = em.memref(op.values), em.memref(op.mask), em.memref(op.output)
    _select(em, m, out, lambda pos: f"{v.ptr}[{mul(pos, v.strides[0])}]", _contiguous(v) and _contiguous(out),
            lambda i, k, j: f"memcpy(&{out.ptr}[{k}], &{v.ptr}[{i}], 8 * sizeof({out.elem}));")


def _select(em: FunctionEmitter, mask: MemrefDesc, out: MemrefDesc, element: Callable[[str], str],
            contiguous: bool, run: Callable[[str, str, str], str]) -> None:
    """``element(pos)`` for each position ``pos`` whose ``mask`` element is nonzero, in order, into
    ``out`` (which has exactly their count). Branch-free: every element is stored at the next slot
    and the slot advances past the selected ones, so a data-dependent mask costs no
    mispredictions; the loop ends once the output is full, so no store goes past it. A contiguous
    byte mask (with ``contiguous`` elements and output) goes eight bytes at a time first
    (``_mask_words``; ``run(i, k, j)`` stores the eight elements from ``i`` at slots from ``k``)."""
    i, k = em.fresh("i"), em.fresh("k")
    n, cap = mask.sizes[0], out.sizes[0]
    em.open("{")
    em.line(f"int64_t {k} = 0, {i} = 0;")
    if _byte_mask(mask) and contiguous:
        _mask_words(em, mask.ptr, i, k, n, cap, lambda pos: f"{out.ptr}[{k}] = {element(pos)};",
                    lambda j: run(i, k, j))
    em.open(f"for (; {i} < {n} && {k} < {cap}; {i}++) {{")
    em.line(f"{out.ptr}[{mul(k, out.strides[0])}] = {element(i)};")
    em.line(f"{k} += {mask.ptr}[{mul(i, mask.strides[0])}] != 0;")
    em.close()
    em.close()


def _byte_mask(desc: MemrefDesc) -> bool:
    """A contiguous mask of bytes (a bool array, ``x[mask]``'s case): ``_mask_words`` reads it."""
    return desc.elem in ("uint8_t", "int8_t", "bool") and _contiguous(desc)


def _contiguous(desc: MemrefDesc) -> bool:
    return str(desc.strides[0]) == "1"


def _mask_words(em: FunctionEmitter, mask: str, i: str, k: str, n: object, cap: object,
                store: Callable[[str], str], run: Callable[[str], str]) -> None:
    """The contiguous byte mask ``mask`` eight bytes at a time, for ``nonzero`` and ``compress``:
    a word of zeros is skipped, a word of ones takes ``run(j)`` (eight consecutive elements to
    slots ``k..k+7``, ``j`` a free name), and a mixed word goes byte by byte, ``store(pos)``
    writing element ``pos`` to slot ``k`` (the branch-free step). Masks come in runs (the points
    still iterating, the rows a filter keeps), so most words take one of the first two ways. The
    remaining bytes go to the caller's loop after this one."""
    w, j = em.fresh("word"), em.fresh("j")
    em.open(f"for (; {i} + 8 <= {n} && {k} + 8 <= {cap}; {i} += 8) {{")
    em.line(f"uint64_t {w};")
    em.line(f"memcpy(&{w}, (const unsigned char *){mask} + {i}, 8);")
    em.line(f"if ({w} == 0) continue;")
    em.open(f"if ({w} == 0x0101010101010101ull) {{")
    em.line(run(j))
    em.line(f"{k} += 8;")
    em.line("continue;")
    em.close()
    em.open(f"for (int64_t {j} = 0; {j} < 8; {j}++) {{")
    em.line(store(f"{i} + {j}"))
    em.line(f"{k} += ((const unsigned char *){mask})[{i} + {j}] != 0;")
    em.close()
    em.close()
