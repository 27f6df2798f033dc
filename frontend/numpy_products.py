"""NumPy's products on traced tensors: ``dot``, ``inner``, ``outer``, ``vdot``, ``tensordot``,
``einsum`` and ``np.linalg.norm``, lowered to ``graph.matmul``, transposes, reshapes,
broadcast multiplies and reductions.

Every contraction is the one ``tensordot`` shape: the free axes of ``a`` times the
contracted ones, matrix-multiplied by the contracted axes of ``b`` times its free
ones. ``einsum`` first takes repeated labels' diagonals and sums the labels nothing
else needs, then contracts the operands pairwise, left to right (a batched matmul
over the shared labels that the output keeps), then transposes to the output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.frontend import array_ops, dtypes, views
from kiln.frontend.numpy_shape import diagonal, ranked, reject, static_shape, unsupported
from kiln.frontend.tensor import Tensor, cast, reshape_to, shape_of


def _axes(axes: int | Sequence[int], ndim: int) -> list[int]:
    return [array_ops.normalize_axis(a, ndim) for a in ((axes,) if isinstance(axes, (int, np.integer)) else axes)]


def tensordot(a: Any, b: Any, axes: Any = 2) -> Tensor:
    """``np.tensordot``: ``a``'s free axes by ``b``'s free axes, summing over the paired ``axes``."""
    ta, tb = ranked(a, "np.tensordot"), ranked(b, "np.tensordot")
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(ta.ndim, tb.ndim):
            raise ValueError("shape-mismatch for sum")
        axes_a, axes_b = list(range(ta.ndim - n, ta.ndim)), list(range(n))
    else:
        first, second = axes
        axes_a, axes_b = _axes(first, ta.ndim), _axes(second, tb.ndim)
    return contract(ta, tb, axes_a, axes_b, "shape-mismatch for sum")


def contract(ta: Tensor, tb: Tensor, axes_a: list[int], axes_b: list[int], mismatch: str) -> Tensor:
    """Sum over ``axes_a`` of ``ta`` paired with ``axes_b`` of ``tb``; free axes of ``ta``, then of ``tb``."""
    sa, sb = static_shape(ta, "a tensor product"), static_shape(tb, "a tensor product")
    if len(axes_a) != len(axes_b) or any(sa[i] != sb[j] for i, j in zip(axes_a, axes_b)):
        raise ValueError(mismatch)
    free_a = [i for i in range(ta.ndim) if i not in axes_a]
    free_b = [j for j in range(tb.ndim) if j not in axes_b]
    out_shape = [sa[i] for i in free_a] + [sb[j] for j in free_b]
    m, k, n = math.prod(sa[i] for i in free_a), math.prod(sa[i] for i in axes_a), math.prod(sb[j] for j in free_b)
    ta = array_ops.transpose(ta, free_a + axes_a)
    tb = array_ops.transpose(tb, axes_b + free_b)
    if not axes_a:  # an outer product: no sum, so a broadcast multiply (exact, no GEMM)
        return reshape_to(np.multiply(reshape_to(ta, [m, 1]), reshape_to(tb, [1, n])), out_shape)
    return reshape_to(array_ops.matmul(reshape_to(ta, [m, k]), reshape_to(tb, [k, n])), out_shape)


def dot(a: Any, b: Any, out: Any = None) -> Tensor:
    """``np.dot``: a product with a 0-d operand, else the sum over ``a``'s last axis and ``b``'s
    second-to-last (its only one when 1-D)."""
    reject("dot", out=out)
    ta, tb = ranked(a, "np.dot"), ranked(b, "np.dot")
    if ta.ndim == 0 or tb.ndim == 0:
        return np.multiply(ta, tb)
    if ta.ndim <= 2 and tb.ndim <= 2:  # np.matmul's meaning there; sizes may be known only at run time
        return np.matmul(ta, tb)
    ja = ta.ndim - 1
    jb = 0 if tb.ndim == 1 else tb.ndim - 2
    sa, sb = static_shape(ta, "np.dot"), static_shape(tb, "np.dot")
    mismatch = f"shapes {sa} and {sb} not aligned: {sa[ja]} (dim {ja}) != {sb[jb]} (dim {jb})"
    return contract(ta, tb, [ja], [jb], mismatch)


def inner(a: Any, b: Any) -> Tensor:
    """``np.inner``: the sum over the last axes of both."""
    ta, tb = ranked(a, "np.inner"), ranked(b, "np.inner")
    if ta.ndim == 0 or tb.ndim == 0:
        return np.multiply(ta, tb)
    sa, sb = static_shape(ta, "np.inner"), static_shape(tb, "np.inner")
    mismatch = f"shapes {sa} and {sb} not aligned: {sa[-1]} (dim {ta.ndim - 1}) != {sb[-1]} (dim {tb.ndim - 1})"
    return contract(ta, tb, [ta.ndim - 1], [tb.ndim - 1], mismatch)


def vdot(a: Any, b: Any) -> Tensor:
    """``np.vdot`` of real arrays: the dot product of the flattened operands."""
    ta, tb = ranked(a, "np.vdot"), ranked(b, "np.vdot")
    fa = reshape_to(ta, [math.prod(static_shape(ta, "np.vdot"))])
    fb = reshape_to(tb, [math.prod(static_shape(tb, "np.vdot"))])
    if shape_of(fa) != shape_of(fb):
        raise ValueError("cannot reshape array of size {} into shape ({},)".format(shape_of(fb)[0], shape_of(fa)[0]))
    return contract(fa, fb, [0], [0], "vector lengths differ")


def outer(a: Any, b: Any, out: Any = None) -> Tensor:
    """``np.outer``: ``multiply`` of the flattened ``a`` as a column and ``b`` as a row."""
    reject("outer", out=out)
    ta, tb = ranked(a, "np.outer"), ranked(b, "np.outer")
    m, n = math.prod(static_shape(ta, "np.outer")), math.prod(static_shape(tb, "np.outer"))
    return np.multiply(reshape_to(ta, [m, 1]), reshape_to(tb, [1, n]))


# ---------------------------------------------------------------------- einsum


def einsum(*operands: Any, out: Any = None, optimize: Any = False, dtype: Any = None, order: str = "K",
           casting: str = "safe") -> Tensor:
    """``np.einsum`` with explicit (``->``) or implicit output, no ellipsis; ``optimize`` only
    changes NumPy's contraction order, so it is accepted and ignored."""
    reject("einsum", out=out)
    if casting != "safe":
        raise unsupported(f"np.einsum(..., casting={casting!r})")
    if not operands or not isinstance(operands[0], str):
        raise unsupported("np.einsum with the (operand, sublist, ...) form (use a subscripts string)")
    spec, arrays = operands[0].replace(" ", ""), operands[1:]
    if "." in spec:
        raise unsupported("np.einsum with '...' in the subscripts")
    inputs, arrow, output = spec.partition("->")
    subs = inputs.split(",")
    if len(subs) != len(arrays):
        raise ValueError(
            "more operands provided to einstein sum function than specified in the subscripts string"
            if len(arrays) > len(subs) else "fewer operands provided to einstein sum function than specified in the subscripts string"
        )
    every = "".join(subs)
    for label in every + output:
        if not label.isalpha():
            raise ValueError(f"invalid subscript '{label}' in einstein sum subscripts string, subscripts must be letters")
    if not arrow:
        output = "".join(sorted(c for c in set(every) if every.count(c) == 1))
    for label in output:
        if output.count(label) > 1:
            raise ValueError(f"einstein sum subscripts string includes output subscript '{label}' multiple times")
        if label not in every:
            raise ValueError(f"einstein sum subscripts string included output subscript '{label}' which never appeared in an input")
    tensors = [ranked(x, "np.einsum") for x in arrays]
    for i, (t, sub) in enumerate(zip(tensors, subs)):
        if t.ndim != len(sub):
            raise ValueError(f"operand {i} has {t.ndim} dimensions but {len(sub)} subscripts in the einstein sum")
    dt = dtypes.canonical(dtype) if dtype is not None else dtypes.result_type(*(t.dtype for t in tensors))
    sizes: dict[str, int] = {}
    for t, sub in zip(tensors, subs):
        for label, size in zip(sub, static_shape(t, "np.einsum")):
            if sizes.setdefault(label, size) != size:
                raise ValueError(f"einstein sum subscript '{label}' has sizes {sizes[label]} and {size} that do not match")
    if len(tensors) == 1 and dt == tensors[0].dtype and sorted(subs[0]) == sorted(output) and len(set(output)) == len(output):
        t = tensors[0]  # only a transposition: NumPy's einsum returns a view
        return views.transposed(t, array_ops.transpose(t, [subs[0].index(label) for label in output]))
    terms = [_diagonals(cast(t, dt), list(sub)) for t, sub in zip(tensors, subs)]
    t, labels = terms[0]
    t, labels = _sum_unneeded(t, labels, set(output).union(*(term[1] for term in terms[1:])), dt)
    for i, (u, u_labels) in enumerate(terms[1:], 1):
        later = set(output).union(*(term[1] for term in terms[i + 1 :]))
        t, labels = _pair(t, labels, u, u_labels, later, dt)
    return array_ops.transpose(t, [labels.index(label) for label in output])


def _diagonals(t: Tensor, labels: list[str]) -> tuple[Tensor, list[str]]:
    """Each label repeated within one operand: its diagonal (the label once, last)."""
    while len(set(labels)) != len(labels):
        label = next(x for x in labels if labels.count(x) > 1)
        first = labels.index(label)
        second = labels.index(label, first + 1)
        t = diagonal(t, 0, first, second)
        labels = [x for i, x in enumerate(labels) if i not in (first, second)] + [label]
    return t, labels


def _sum_unneeded(t: Tensor, labels: list[str], needed: set[str], dt: np.dtype[Any]) -> tuple[Tensor, list[str]]:
    """Sum (in ``dt``, as einsum does) over the labels no later step needs."""
    gone = [i for i, x in enumerate(labels) if x not in needed]
    if not gone:
        return t, labels
    return array_ops.reduce("sum", t, tuple(gone), False, dt), [x for x in labels if x in needed]


def _pair(a: Tensor, la: list[str], b: Tensor, lb: list[str], later: set[str], dt: np.dtype[Any]) -> tuple[Tensor, list[str]]:
    """Contract two terms: labels in both that ``later`` needs are batch axes, the others summed."""
    a, la = _sum_unneeded(a, la, later | set(lb), dt)
    b, lb = _sum_unneeded(b, lb, later | set(la), dt)
    batch = [x for x in la if x in lb and x in later]
    summed = [x for x in la if x in lb and x not in later]
    left = [x for x in la if x not in lb]
    right = [x for x in lb if x not in la]
    size = dict(zip(la, shape_of(a))) | dict(zip(lb, shape_of(b)))
    dims = lambda labels: [size[x] for x in labels]  # noqa: E731
    a = array_ops.transpose(a, [la.index(x) for x in batch + left + summed])
    b = array_ops.transpose(b, [lb.index(x) for x in batch + summed + right])
    out_labels = batch + left + right
    if not summed:
        ea = reshape_to(a, dims(batch + left) + [1] * len(right))
        eb = reshape_to(b, dims(batch) + [1] * len(left) + dims(right))
        return np.multiply(ea, eb), out_labels
    nb, m, k, n = (math.prod(dims(x)) for x in (batch, left, summed, right))
    lead = [nb] if batch else []
    product = array_ops.matmul(reshape_to(a, lead + [m, k]), reshape_to(b, lead + [k, n]))
    return reshape_to(product, dims(out_labels)), out_labels


# ---------------------------------------------------------------------- norms


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A002 - NumPy's name
    """``np.linalg.norm``: vector norms (any real ``ord``, inf, 0) and the matrix norms that need
    no singular values (Frobenius, 1, -1, inf, -inf); integers compute in float64 as in NumPy."""
    t = ranked(x, "np.linalg.norm")
    if t.dtype.kind != "f":
        t = cast(t, np.dtype(np.float64))
    ndim = t.ndim
    if axis is None:
        if ord is None or (ndim == 2 and ord in ("f", "fro")) or (ndim == 1 and ord == 2):
            result = np.sqrt(array_ops.reduce("sum", np.multiply(t, t), None, False))
            return reshape_to(result, [1] * ndim) if keepdims else result
        axis = tuple(range(ndim))
    axes = _axes(axis, ndim)
    if len(axes) == 1:
        result = _vector_norm(t, ord, axes[0], keepdims)
    elif len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError("Duplicate axes given.")
        result = _matrix_norm(t, ord, axes[0], axes[1])
        if keepdims:
            result = reshape_to(result, [1 if i in axes else d for i, d in enumerate(shape_of(t))])
    else:
        raise ValueError("Improper number of dimensions to norm.")
    return result


def _vector_norm(t: Tensor, ord: Any, axis: int, keepdims: bool) -> Tensor:  # noqa: A002
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    magnitude = np.absolute(t)
    if ord == np.inf:
        return array_ops.reduce("max", magnitude, axis, keepdims)
    if ord == -np.inf:
        return array_ops.reduce("min", magnitude, axis, keepdims)
    if ord == 0:
        return array_ops.reduce("sum", cast(np.not_equal(t, 0), t.dtype), axis, keepdims)
    if ord == 1:
        return array_ops.reduce("sum", magnitude, axis, keepdims)
    if ord is None or ord == 2:
        return np.sqrt(array_ops.reduce("sum", np.multiply(t, t), axis, keepdims))
    p = float(ord)
    total = array_ops.reduce("sum", np.power(magnitude, p), axis, keepdims)
    return np.power(total, np.asarray(1.0 / p, total.dtype))


_MATRIX_ORDS: dict[Any, tuple[str, bool]] = {1: ("max", False), -1: ("min", False), np.inf: ("max", True), -np.inf: ("min", True)}


def _matrix_norm(t: Tensor, ord: Any, row: int, col: int) -> Tensor:  # noqa: A002
    if ord is None or ord in ("fro", "f"):
        return np.sqrt(array_ops.reduce("sum", np.multiply(t, t), (row, col), False))
    if ord in (2, -2, "nuc"):
        raise unsupported(f"np.linalg.norm(..., ord={ord!r}) (it needs singular values)")
    if ord not in _MATRIX_ORDS:
        raise ValueError("Invalid norm order for matrices.")
    kind, along_rows = _MATRIX_ORDS[ord]
    summed, then = (col, row) if along_rows else (row, col)
    sums = array_ops.reduce("sum", np.absolute(t), summed, False)
    return array_ops.reduce(kind, sums, then - (1 if then > summed else 0), False)


def _chain_order(dims: list[int]) -> list[list[int]]:
    """The textbook matrix-chain split table for matrices ``dims[i] x dims[i+1]``; ties keep
    the first split, as NumPy's ``multi_dot`` does, so the products (and their rounding) match."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] < 0 or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def multi_dot(arrays: Sequence[Any], *, out: Any = None) -> Tensor:
    """``np.linalg.multi_dot``: the products in NumPy's cheapest order (a 1-D first or last
    operand as a row or column vector, removed from the result again)."""
    reject("linalg.multi_dot", out=out)
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    if len(arrays) == 2:
        return dot(arrays[0], arrays[1])
    ts = [ranked(a, "np.linalg.multi_dot") for a in arrays]
    first, last = ts[0].ndim, ts[-1].ndim
    if first == 1:
        ts[0] = reshape_to(ts[0], [1, shape_of(ts[0])[0]])
    if last == 1:
        ts[-1] = reshape_to(ts[-1], [shape_of(ts[-1])[0], 1])
    if any(t.ndim != 2 for t in ts):
        raise ValueError("multi_dot: the arrays between the first and the last must be 2-D")
    shapes = [static_shape(t, "np.linalg.multi_dot") for t in ts]
    if len(ts) == 3:
        (a0, a1b0), (b1c0, c1) = shapes[0], shapes[2]
        left_first = a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0)
        result = dot(dot(ts[0], ts[1]), ts[2]) if left_first else dot(ts[0], dot(ts[1], ts[2]))
    else:
        split = _chain_order([s[0] for s in shapes] + [shapes[-1][1]])

        def product(i: int, j: int) -> Tensor:
            return ts[i] if i == j else dot(product(i, split[i][j]), product(split[i][j] + 1, j))

        result = product(0, len(ts) - 1)
    if first == 1 and last == 1:
        return result[0, 0]
    if first == 1 or last == 1:
        return reshape_to(result, [int(np.prod(shape_of(result)))])
    return result


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.linalg.multi_dot: multi_dot,
    np.dot: dot,
    np.inner: inner,
    np.outer: outer,
    np.vdot: vdot,
    np.tensordot: tensordot,
    np.einsum: einsum,
    np.linalg.norm: norm,
}
