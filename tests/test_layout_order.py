"""NumPy's ``order='K'``: a new array made from Fortran-ordered or permuted operands (``x.T + 1``,
``x.T.astype(int)``, ``np.copy(x.T)``, ``np.zeros_like(x.T)``, ``x.T.sum(axis=0)``) is laid
out like them, so reshaping it to 1-D copies, and a write through that copy leaves the array
alone. kiln follows the layout (``kiln.frontend.tensor.follow_layout``); found by kiln.fuzz
1140-19349 (``v1 = b.T.astype(np.int64); w2 = v1.reshape(-1); w2 += ...``).

Each case runs eagerly on NumPy and compiled, results and arguments compared (test_mutation's check).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln

from kiln.frontend.tensor import joined_order_strides, k_order_strides
from test_mutation import check


def _written(y: Any) -> Any:
    flat = y.reshape(-1)
    flat[0] = 100
    flat[-1] += 7
    return y, flat


def astype_of_transpose(x):
    return _written(x.T.astype(np.int64))


def ufunc_of_transpose(x):
    return _written(x.T + 1)


def unary_of_transpose(x):
    return _written(np.negative(x.T))


def copy_of_transpose(x):
    return _written(np.copy(x.T))


def method_copy_is_c_order(x):
    return _written(x.T.copy())


def copy_order_a(x):
    return _written(x.T.copy(order="A"))


def array_of_transpose(x):
    return _written(np.array(x.T))


def zeros_like_transpose(x):
    return _written(np.zeros_like(x.T))


def zeros_like_fortran(x):
    return _written(np.zeros_like(x, order="F"))


def where_of_transposes(x):
    return _written(np.where(x.T > 0.5, x.T, 0.0))


def mixed_layouts_c_wins(x):
    return _written(x.T + x.T.copy())


def broadcast_with_transpose(x):
    return _written(x.T * np.ones(x.shape[0]))


def reduction_keeps_order(x):
    return _written(x.reshape(2, 3, 4).T.sum(axis=1))


def reduction_keepdims(x):
    return _written(x.reshape(2, 3, 4).T.max(axis=0, keepdims=True))


def ravel_k_of_fortran(x):
    y = x.T * 2
    return y, y.ravel(order="K")


def concatenate_of_transposes(x):
    return _written(np.concatenate([x.T, x.T + 1], axis=1))


def concatenate_of_mixed_layouts(x):
    return _written(np.concatenate([x.T, np.ones((4, 2))], axis=1))


def concatenate_of_one_is_new(x):
    y = np.concatenate([x])
    y[0, 0] = -3
    return _written(np.concatenate([x.T]))


def stack_of_transposes(x):
    return _written(np.stack([x.T, x.T * 2], axis=1))


def cumsum_sort_roll_diff(x):
    return (_written(np.cumsum(x.T, axis=1)), _written(np.sort(x.T, axis=0)), _written(np.roll(x.T, 1, axis=0)),
            _written(np.diff(x.T, axis=1)))


def c_order_stays_a_view(x):
    return _written(x * 2)


def weak_scalar_in_where(x, n):
    t = 1.75
    while t < 2.0 and n > 100:
        t = t + 1.5
    return np.where(x > 0.5, x, t), np.where(x > 0.5, t, x)


def sum_over_no_axes_is_new(x):
    y = np.sum(x, axis=())
    y[0, 0] = 5
    return y


CASES: list[Callable[..., Any]] = [
    astype_of_transpose, ufunc_of_transpose, unary_of_transpose, copy_of_transpose, method_copy_is_c_order,
    copy_order_a, array_of_transpose, zeros_like_transpose, zeros_like_fortran, where_of_transposes,
    mixed_layouts_c_wins, broadcast_with_transpose, reduction_keeps_order, reduction_keepdims,
    ravel_k_of_fortran, concatenate_of_transposes, concatenate_of_mixed_layouts, concatenate_of_one_is_new,
    stack_of_transposes, cumsum_sort_roll_diff, c_order_stays_a_view, sum_over_no_axes_is_new,
]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_new_arrays_are_laid_out_as_numpy_lays_them(fn: Callable[..., Any]) -> None:
    check(fn, np.random.default_rng(3).random((6, 4)))


def test_a_python_float_carried_by_a_staged_loop_promotes_weakly() -> None:
    """1140-18000: ``np.where(c, float32, t)`` with a Python float ``t`` rebound in a staged
    loop stays float32, as NumPy's."""
    check(weak_scalar_in_where, np.random.default_rng(4).random((3, 2)).astype(np.float32), np.int64(5))


def _element_strides(a: np.ndarray, ndim: int) -> list[int]:
    strides = [0] * ndim
    for i in range(a.ndim):
        strides[ndim - a.ndim + i] = 0 if a.shape[i] == 1 else a.strides[i] // a.itemsize
    return strides


def test_k_order_strides_agree_with_numpy() -> None:
    """The layout rule against NumPy's own output strides, on random permuted, strided,
    reversed and broadcast operands of mixed dtypes (axes of length 1 have no stride to agree on)."""
    rng = random.Random(11)
    unequal = 0
    for _ in range(3000):
        ndim = rng.randint(2, 4)
        shape = [rng.choice([1, 2, 3, 5]) for _ in range(ndim)]
        ops = []
        for _ in range(rng.randint(1, 3)):
            perm = list(range(ndim))
            rng.shuffle(perm)
            steps = [rng.choice([1, 2, -1]) for _ in range(ndim)]
            base = np.zeros([shape[p] * abs(steps[k]) for k, p in enumerate(perm)], rng.choice([np.float64, np.int8]))
            view = base[tuple(slice(None, None, s) for s in steps)].transpose(np.argsort(perm))
            if rng.random() < 0.3:
                axis = rng.randrange(ndim)
                view = view[tuple(slice(0, 1) if i == axis else slice(None) for i in range(ndim))]
            if rng.random() < 0.2:
                view = view[0]
            ops.append(view)
        if len(ops) == 1:
            out = np.copy(ops[0])
        elif len(ops) == 2:
            out = np.add(*ops)
        else:
            out = np.where(ops[0] > 0, ops[1], ops[2])
        got = k_order_strides(out.shape, [_element_strides(o, out.ndim) for o in ops])
        want = [s // out.itemsize for s in out.strides]
        unequal += not out.flags.c_contiguous
        assert [g for g, d in zip(got, out.shape) if d != 1] == [w for w, d in zip(want, out.shape) if d != 1], (
            [(o.shape, o.strides) for o in ops], got, want)
    assert unequal > 500  # the cases exercise layouts other than C


def _same_strides(out: np.ndarray, got: tuple[int, ...]) -> bool:
    want = [s // out.itemsize for s in out.strides]
    return [g for g, d in zip(got, out.shape) if d != 1] == [w for w, d in zip(want, out.shape) if d != 1]


def test_joined_order_strides_agree_with_numpy() -> None:
    """``np.concatenate``'s and ``np.stack``'s rule against NumPy's strides, on random
    permuted and reversed operands (where they disagree, not the ufuncs' rule)."""
    rng = random.Random(12)
    unequal = 0
    for _ in range(2000):
        ndim = rng.randint(2, 3)
        shape = [rng.choice([1, 2, 3, 4]) for _ in range(ndim)]
        axis = rng.randrange(ndim)
        ops = []
        for _ in range(rng.randint(1, 3)):
            perm = list(range(ndim))
            rng.shuffle(perm)
            own = list(shape)
            own[axis] = rng.choice([1, 2, 3])
            flips = tuple(slice(None, None, rng.choice([1, -1])) for _ in range(ndim))
            ops.append(np.zeros([own[p] for p in perm])[flips].transpose(np.argsort(perm)))
        out = np.concatenate(ops, axis=axis)
        unequal += not out.flags.c_contiguous
        dims = [[(d, s // o.itemsize) for d, s in zip(o.shape, o.strides)] for o in ops]
        assert _same_strides(out, joined_order_strides(out.shape, dims)), [(o.shape, o.strides) for o in ops]
        same = [o for o in ops if o.shape == ops[0].shape]
        out = np.stack(same, axis=axis)
        dims = [[(d, s // o.itemsize) for d, s in zip(o.shape, o.strides)] for o in (np.expand_dims(o, axis) for o in same)]
        assert _same_strides(out, joined_order_strides(out.shape, dims)), [(o.shape, o.strides) for o in same]
    assert unequal > 300


def carried_by_a_loop(x, n):
    y = x.T + 1
    for _ in range(n):
        y = y * 2
    return _written(y)


def merged_by_an_if(x, n):
    y = x.T + 1
    if n > 2:
        y = y * 2
    return _written(y)


def reshaped_in_a_loop(x, n):
    y = x.T + 1
    for _ in range(n):
        flat = y.reshape(-1)
        flat[0] += 1
        y = y * 2
    return y


def contiguous_copies(x):
    c = np.ascontiguousarray(x.T)
    f = np.asfortranarray(x)
    same = np.ascontiguousarray(x)
    same[0, 0] = -1
    return _written(c), _written(f), x


@pytest.mark.parametrize("fn", [carried_by_a_loop, merged_by_an_if, reshaped_in_a_loop], ids=lambda f: f.__name__)
def test_staged_control_flow_keeps_the_layout(fn: Callable[..., Any]) -> None:
    check(fn, np.random.default_rng(5).random((4, 3)), np.int64(3))


def test_ascontiguousarray_and_asfortranarray() -> None:
    check(contiguous_copies, np.random.default_rng(6).random((4, 3)))


def layout_differs_by_path(x, n):
    y = x.T + 1
    if n > 2:
        y = x * 2
    else:
        y = y * 2
    return _written(y)


def layout_changes_in_the_loop(x, n):
    y = x.T + 1
    for _ in range(n):
        flat = y.reshape(-1)
        flat[0] += 1
        y = np.ascontiguousarray(y) * 2
    return y


@pytest.mark.parametrize("fn", [layout_differs_by_path, layout_changes_in_the_loop], ids=lambda f: f.__name__)
def test_a_layout_that_depends_on_the_path_is_refused_when_it_matters(fn: Callable[..., Any]) -> None:
    """NumPy's reshape is then a view on some paths and a copy on others: kiln refuses, naming the line."""
    import kiln

    with pytest.raises(NotImplementedError, match=r"test_layout_order\.py:\d+.*memory layout"):
        kiln.function(fn)(np.ones((4, 4)), np.int64(3))


def diffs(x, b):
    return (np.diff(x), np.diff(x, n=2, axis=0), np.diff(x, prepend=0.5), np.diff(x, append=x[:, :1], axis=1),
            np.diff(b, axis=0), np.diff(x, n=0), np.diff(x, n=7))


def roll_by_a_whole_turn_is_new(x):
    y = np.roll(x, 4, axis=1)
    y[0, 0] = -9
    z = np.roll(x[0], 0)
    z[1] = -8
    return y, z, x


def test_diff() -> None:
    check(diffs, np.random.default_rng(8).random((4, 5)), np.random.default_rng(9).random((3, 2)) > 0.5)


def test_roll_makes_a_new_array() -> None:
    check(roll_by_a_whole_turn_is_new, np.random.default_rng(10).random((3, 4)))


def reshaped_after_a_staged_if(x, c):
    if np.sum(c) > 0:
        y = x
    else:
        y = x * 2.0
    z = y.reshape(-1)  # a view of x where x is C-contiguous, a copy where it is transposed
    z[0] = 100.0
    return x


def test_a_merged_layout_worked_out_early_still_ties_the_trace_to_the_arguments_layout() -> None:
    """merge_layout works the layout out at once (mutation.peeking) but the trace depends on the
    argument's layout only where it is asked (here, by the reshape): a call with the argument
    transposed must not reuse the C-contiguous one's trace. And a function that never asks keeps
    the native fast path (tests/test_function.py)."""
    f = kiln.function(reshaped_after_a_staged_if)
    for c in (np.ones(2), -np.ones(2)):
        for x in (np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2).T):
            want, got = x.copy(), x.copy()
            if not x.flags.c_contiguous:
                want, got = np.asfortranarray(want), np.asfortranarray(got)
            np.testing.assert_array_equal(f(got, c), reshaped_after_a_staged_if(want, c))
            np.testing.assert_array_equal(got, want)
