"""Regressions found by the differential fuzzer (docs/fuzzing.md), each in the style of its minimized program.

Every case runs the function eagerly on NumPy and compiled, each on arguments made afresh by
its ``inputs`` function (so a non-contiguous argument stays non-contiguous), and compares the
results *and every argument array after the call*. Functions live at module level: AutoGraph
converts them from their source. The fuzz program each comes from is named in its comment.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree


def check(fn: Callable[..., Any], inputs: Callable[[], list[Any]]) -> None:
    """``fn`` compiled and run eagerly on NumPy, each on fresh ``inputs()``: same results (structure,
    dtype, shape, values) and same argument arrays after the call."""
    eager, compiled = inputs(), inputs()
    want = fn(*eager)
    got = kiln.function(fn)(*compiled)
    want_leaves, want_tree = pytree.flatten(want)
    got_leaves, got_tree = pytree.flatten(got)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        if w is None:
            assert g is None
            continue
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    for i, (g, w) in enumerate(zip(compiled, eager)):
        if isinstance(w, np.ndarray):
            assert (g.dtype, g.shape) == (w.dtype, w.shape)
            np.testing.assert_array_equal(g, w, err_msg=f"argument {i} after the call")


# ---------------------------------------------------------------------- views


def ravel_of_reversed_is_a_copy(a):
    # 7-283: `a[::-1]` is not C-contiguous, so NumPy's ravel copies: the write leaves `a` alone
    w = a[::-1].ravel()
    w &= np.int64(0)
    return w


def ravel_of_contiguous_is_a_view(a, b):
    # np.ravel and x.ravel() of a C-contiguous array are views: writes through them reach the base
    w = np.ravel(a)
    w[1] = 7.0
    v = b[1:].ravel()
    v += 1
    return w.sum() + v.sum()


def ravel_of_column_slice_is_a_copy(a):
    # (2, 1) with a row stride of 3 elements: not C-contiguous, so ravel copies (reshape(-1) would not)
    w = a[:, :1].ravel()
    w[0] = 9.0
    r = a[:, 1:2].reshape(-1)
    r[1] = 5.0
    return w


def test_ravel_views() -> None:
    check(ravel_of_reversed_is_a_copy, lambda: [np.array([4, -4, -2], dtype=np.int64)])
    check(ravel_of_contiguous_is_a_view, lambda: [np.arange(6.0).reshape(2, 3), np.arange(6).reshape(3, 2)])
    check(ravel_of_column_slice_is_a_copy, lambda: [np.arange(6.0).reshape(2, 3)])


# ---------------------------------------------------------------------- AutoGraph's own variables


def return_in_loop_over_rows_under_if(a, b):
    # 7-42: a Python loop (over `enumerate` of a traced array's rows, unrolled) whose `return`
    # flag becomes a tensor: each iteration is a staged `if`, which sets AutoGraph's `do_return`
    if a[-1] > 0:
        for k, r in enumerate(a):
            if b.mean() > r:
                return a * k
            a[::-1] = a + 1.0
    return a - 1.0


def break_in_loop_under_if(a, b):
    # 7-288's shape: `break` inside a loop whose flag is traced
    for k, r in enumerate(b):
        if r > a.sum():
            break
        a += r
    return a


def test_autograph_jump_flags_are_not_python_effects() -> None:
    check(return_in_loop_over_rows_under_if, lambda: [np.array([2.0, -3.5, 1.75]), np.array([-6, -5])])
    check(return_in_loop_over_rows_under_if, lambda: [np.array([2.0, 3.5, 1.75]), np.array([6, 5])])
    check(break_in_loop_under_if, lambda: [np.array([0.5, -1.0]), np.array([1.0, 2.0, -9.0, 4.0])])


# ---------------------------------------------------------------------- run-time sizes


def fill_growing_prefix(a, t):
    # 7-182: `a[:i] = t` in a staged range loop: the broadcast of `t` has the run-time size `i`
    for i in range(1, len(a)):
        a[:i] = t.astype(np.bool)
    return a


def test_broadcast_into_run_time_length_slice() -> None:
    check(fill_growing_prefix, lambda: [np.zeros(7, dtype=np.bool), np.int32(2)])
    check(fill_growing_prefix, lambda: [np.ones(6, dtype=np.bool), np.int32(0)])


# ---------------------------------------------------------------------- NumPy scalar types


def scalar_types_of_traced_values(a, b):
    # 7-58: `np.int64(x.prod().astype(np.bool))`; NumPy's scalar types applied to traced values are casts
    s = np.int64(np.prod(a).astype(np.bool)) - np.sign(a.min().astype(np.int64))
    t = np.float32(b.sum()) * np.int32(3) + np.bool_(a[0])
    u = np.int32(a * 2.5)  # of an array: a new array (truncated toward zero, like astype)
    u[0] = 7
    return s, t, u, np.float64(b[1]) / 2


def test_numpy_scalar_types_of_traced_values() -> None:
    check(scalar_types_of_traced_values, lambda: [np.array([2.0, 1.5, -3.0]), np.array([1, -4, 2], dtype=np.int32)])


# ---------------------------------------------------------------------- NumPy scalars are immutable


def element_read_then_write(a, b):
    # 2027-277: `t = a[i]` is a NumPy scalar: `t += 2.0` rebinds t and leaves `a` alone, in a staged loop too
    t = a[b.sum() % 2]
    s = t
    t += 2.0
    u = a[1]
    a[1] = 9.0
    while t < 6.0:
        t += 2.0
    for r in a:
        r += 1.0  # the rows of a 1-D array are scalars as well
    return t, s, u, a[0]


def scalar_aliases_across_staged_constructs(a, n):
    # a scalar keeps being one through a staged loop and a staged `if` (on every path)
    t = a[0]
    s = t
    for i in range(6):
        s = t
        t += 1.0
        a[i % 2] += s
    if n > 0:
        t = a[1]
    u = t
    t += 1
    return s, t, u


def ufunc_and_reduction_results_are_scalars(a):
    # 0-d results of ufuncs and whole reductions are NumPy scalars too (an int scalar += 0.5 becomes a float)
    t = a.sum()
    s = t
    t += 1
    u = a[0] * 2
    v = u
    u -= 1
    k = np.int64(a.size) + a.argmax()
    k += 0.5
    return s, t, v, u, k


def test_numpy_scalars_are_immutable() -> None:
    check(element_read_then_write, lambda: [np.array([-1.75, 2.25], dtype=np.float32), np.array([3, 4])])
    check(scalar_aliases_across_staged_constructs, lambda: [np.array([1.0, 2.0]), np.int64(3)])
    check(scalar_aliases_across_staged_constructs, lambda: [np.array([1.0, 2.0]), np.int64(-3)])
    check(ufunc_and_reduction_results_are_scalars, lambda: [np.array([1.0, 2.0])])


# ---------------------------------------------------------------------- non-contiguous arguments


def ravel_of_argument_written(a, b):
    # 2027-69: `a` is strided (x[::2]): its ravel is a copy and the writes leave `a` alone; a row of
    # the row-strided `b` is contiguous: its ravel is a view and the write reaches `b`
    w = a.ravel()
    np.copyto(w[:], 0)
    r = b[1].ravel()
    r[0] = 7
    return w, r


def test_non_contiguous_arguments_traced_with_their_strides() -> None:
    f = kiln.function(ravel_of_argument_written)
    layouts = [
        lambda: [np.arange(8)[::2], np.arange(12).reshape(4, 3)],  # strided a
        lambda: [np.arange(4), np.arange(24).reshape(8, 3)[::2]],  # contiguous a, row-strided b
        lambda: [np.arange(8)[::2], np.arange(12).reshape(3, 4).T],  # transposed b: its rows are strided
        lambda: [np.arange(4), np.arange(12).reshape(4, 3)],  # both contiguous
    ]
    for inputs in layouts:  # one kiln.Function across layouts: each gets its own trace, in any order
        eager, compiled = inputs(), inputs()
        want, got = ravel_of_argument_written(*eager), f(*compiled)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        for g, w in zip(compiled, eager):
            np.testing.assert_array_equal(g, w)
    check(ravel_of_argument_written, layouts[0])


# ---------------------------------------------------------------------- views shown in a region that ended


def view_read_in_loop_then_written_in_other_branch(a, b):
    # 31-55: `v.mean()` inside the staged loop of one branch showed the view there; the other branch
    # writes through it (the IR used the loop's value: "defined out of its IsolatedFromAbove parent")
    v = a[-2]
    v[::-1] = v * a[..., 0]
    if b.sum() > 0:
        for i in range(1, 6):
            b[:, :] += b[..., v.mean().astype(np.int64) % 1]
    else:
        v[b.sum().astype(np.int64) % 2] = 3
    return a, b


def view_read_in_loop_then_after_it(a):
    # 2027-30: the view `w` is read in a staged loop and after it
    w = a[:, 1:]
    w[:, 1] = 0
    for r in w:
        for i in range(1, 8):
            np.minimum(np.abs(w[..., a[-2].sum() % 2]), 1, out=a[:, 1])
    return w.T * 2, np.where(w > 0, w[..., 1].min(), 5)


def test_views_shown_again_after_a_staged_region() -> None:
    check(view_read_in_loop_then_written_in_other_branch, lambda: [np.array([[-1, 4], [-6, -2]]), np.array([[3.25]])])
    check(view_read_in_loop_then_written_in_other_branch, lambda: [np.array([[-1, 4], [-6, -2]]), np.array([[-3.25]])])
    check(view_read_in_loop_then_after_it, lambda: [np.array([[0, 2, 1], [3, -1, 0], [1, 1, 4]])])


# ---------------------------------------------------------------------- np.where choosing between booleans


def where_on_where_of_comparisons(x, y, z, u, v):
    # 1126-3676, 3862, 1795: the inner where selects between two comparisons (vectors of i1); the
    # vectorized loop had a kvec.select on i1, which the C backend has no form for
    v += 1.0
    return np.where(np.where(x.astype(np.bool), y > 0.5, z < 1.0), u, v), v


def where_on_where_with_constant_false(x, y, s):
    # 1126-1471, 3806: the inner where's `False` is loop-invariant: it was broadcast to a vector of
    # floats, so the inner select (typed by that operand) gave floats and the outer one took them
    # as its mask (gcc refused `_mm512_mask_blend_pd(float vector, mask, ...)`)
    return np.where(np.where(x.astype(np.bool), False, y < 0.0), x, s)


def test_where_choosing_between_booleans() -> None:
    def five() -> list[np.ndarray]:
        rng = np.random.default_rng(5)
        return [np.round(rng.uniform(-2, 2, 13) * 2) / 2 for _ in range(5)]

    check(where_on_where_of_comparisons, five)
    check(where_on_where_with_constant_false, lambda: [np.array([0.0, 1.5, -2.0, 3.0, 0.0, -1.0, 2.5, -0.5, 4.0]),
                                                       np.array([-1.0, -2.0, 0.5, -3.0, 1.0, 2.0, -0.25, 3.0, -1.0]),
                                                       np.float64(7.0)])


# ---------------------------------------------------------------------- fe2: reshapes of strided arrays


def reshape_of_strided_argument_is_a_view(a):
    # 1126-3768: `a` is `x[::2]`; NumPy reshapes a strided 1-D array without a copy, so the write
    # through `w` reaches `a` (kiln copied every non-contiguous reshape)
    w = a.reshape(2, 3)
    w /= 2
    return a


def reshape_of_strided_local_is_a_view(a):
    # the same for an array made in the function: axes merged or split are laid out contiguously
    # relative to each other (a row stride of 4 = 2 columns of stride 2), so NumPy makes views
    b = a * 1.0
    v = b[:, ::2].reshape(8)
    v[1] = 9.0
    u = b[::2].reshape(2, 2, 2)
    u[1, 0] = -1.0
    s = b[:, 1::2]
    s.shape = (8,)
    s += 100.0
    c = b[::2, ::2].reshape(4)  # a row stride of 8 and a column stride of 2 do not merge: a copy
    c += 1000.0
    return b, v, u, s, c


def reshape_of_strided_array_that_needs_a_copy(a):
    # a transposed slice's axes cannot merge: NumPy copies, and the write leaves `a` alone
    w = a[:, 1:].T.reshape(-1)
    w[0] = 5
    return w


def test_reshapes_of_strided_arrays_are_views_where_numpy_makes_them() -> None:
    check(reshape_of_strided_argument_is_a_view, lambda: [np.array([-2.5, 1.5, -0.5, 3.75, -3.25, 3.5, -1.25, 0.75, 0.5, -0.5, -4.0, -3.75], dtype=np.float32)[::2]])
    check(reshape_of_strided_argument_is_a_view, lambda: [np.arange(6, dtype=np.float64)])
    check(reshape_of_strided_local_is_a_view, lambda: [np.arange(16, dtype=np.float64).reshape(4, 4)])
    check(reshape_of_strided_array_that_needs_a_copy, lambda: [np.arange(12).reshape(3, 4)])


def views_of_numpy_scalars_are_new_arrays(a):
    # 1126-2261: `b` is a NumPy scalar (a whole reduction); `b.reshape((1, 1))` is a new array in
    # NumPy, so writes to `d` leave `b` alone (kiln made a view of the scalar's memory)
    b = np.sum(a, axis=0)
    d = b.reshape((1, 1))
    d[0] = 3.0
    d[:] += -0.5
    e = np.float64(2.0) * a[0]
    r = e[None]
    r[0] = 7.0
    g = a.max()
    np.ravel(g)[0] = 1.0
    h = np.expand_dims(g, 0)
    h += 5.0
    return b, d, e, r, g, h


def test_views_of_numpy_scalars_are_new_arrays() -> None:
    check(views_of_numpy_scalars_are_new_arrays, lambda: [np.array([4.0, -1.0, 2.5, 0.5])])


# ---------------------------------------------------------------------- iterating an array the loop writes


def enumerate_reads_the_live_array(a):
    # 1126-1219: NumPy's iterator reads each element when it gets there: the last one was written
    for k9, r8 in enumerate(a):
        a[-1] = r8
    return k9


def enumerate_view_of_written_array(a, b):
    # the iterated array is a reversed view of `a`: writes to `a` show in the elements still to come
    for k, r in enumerate(a[::-1]):
        a[k] = r + 1
    for k, row in enumerate(b):  # rows of a 2-D array are views, read as the loop reaches them
        if row.sum() > 100:
            break
        b[-1] = row * 2
    return a, b


def test_iteration_reads_the_array_as_it_is_now() -> None:
    check(enumerate_reads_the_live_array, lambda: [np.array([4.0, -2.75, 3.75, -0.5])])
    check(enumerate_view_of_written_array, lambda: [np.arange(4.0), np.arange(8.0).reshape(4, 2)])

# ---------------------------------------------------------------------- reshape views of strided memory


def reshape_of_strided_argument(c):
    # 1126-1203: `c` is x[:, ::2] of a (3, 6) array: element stride 2 on both axes' flattening, so
    # NumPy's reshape(-1) is a view and the write reaches `c`
    w1 = c.reshape(-1)
    w1 += 9
    return w1


def reshape_of_strided_argument_then_slice_write(c):
    # 1126-4022: the same view, written through a slice of it
    w2 = c.reshape(-1)
    w2[8:] = c.sum()
    return w2


def reshapes_of_strided_views(a, b):
    # view or copy as NumPy decides for each: x[:, ::2] flattens evenly (view); x[:, :2] of a wider
    # array does not (copy); splitting an axis of a transpose is a view; merging its axes is not
    x = a * 1.0
    v = x[:, ::2].reshape(-1)
    v += 1
    u = x[:, :2].reshape(-1)
    u -= 100
    t = b.T.reshape(3, 2, 2)
    t[0] = 0
    s = b.T.reshape(-1)
    s += 50
    r = x[:, 1::2]  # strides (8, 2): `.shape =` may merge its axes, as NumPy's does
    r.shape = (2, 8)
    r[:] = -1
    return x, v, u, t, s, r


def test_reshape_is_a_view_exactly_when_numpy_makes_one() -> None:
    strided = lambda: [np.arange(18.0).reshape(3, 6)[:, ::2]]  # noqa: E731
    check(reshape_of_strided_argument, strided)
    check(reshape_of_strided_argument_then_slice_write, strided)
    check(reshape_of_strided_argument, lambda: [np.arange(18.0).reshape(3, 6)[:, :3]])  # rows apart: a copy
    check(reshapes_of_strided_views, lambda: [np.arange(32.0).reshape(4, 8), np.arange(12).reshape(4, 3)])
    check(reshapes_of_strided_views, lambda: [np.arange(64.0).reshape(4, 16)[:, ::2], np.arange(24).reshape(8, 3)[::2]])


def planes_of_a_3d_array(h, n):
    # h[n] of a 3-D array as another matrix shape: its rows join into one run (a view, no copy
    # at the buffer level either); written through, the write reaches h, as in NumPy
    m = h[n].reshape(6, 2)
    total = (m @ m.T).sum() + h[0].reshape(-1).sum()
    w = h[2].reshape(-1)
    w[1:3] = total
    t = h.transpose(0, 2, 1)[1].reshape(-1)  # a transposed plane does not join: a copy
    t[0] = -1.0
    return total, m, t


def test_planes_of_a_3d_array_reshaped() -> None:
    check(planes_of_a_3d_array, lambda: [np.arange(36.0).reshape(3, 4, 3), 1])
    buffers = kiln.function(planes_of_a_3d_array).get_concrete_function(np.zeros((3, 4, 3)), 1).lowered("buffer")
    assert "into memref<6x2xf64, strided<[2, 1], offset: 12>>" in buffers  # h[1] read in place


def fuzz_1132_559(n):
    """kiln.fuzz 1132-559, reduced: a Python int carried by a staged loop is still a Python int to
    NumPy's promotion after it (NEP 50): `t + np.int32(6)` is int32, not int64."""
    t = 0
    while t < n:
        t += 1
    t += np.int32(6)
    return t


def fuzz_1132_559_strong(x, n):
    """The same loop made strong by a NumPy scalar element: int8 arithmetic, as in NumPy."""
    s = 0
    for i in range(n):
        s += x[i % 3]
    return s * np.int16(2)


def test_python_numbers_carried_by_loops_stay_weak() -> None:
    for n in (0, 4):
        want = fuzz_1132_559(np.int64(n))
        got = kiln.function(fuzz_1132_559)(np.int64(n))
        assert np.asarray(got).dtype == np.asarray(want).dtype == np.int32 and got == want
    x = np.arange(3, dtype=np.int8)
    want, got = fuzz_1132_559_strong(x, 5), kiln.function(fuzz_1132_559_strong)(x, 5)
    assert np.asarray(got).dtype == np.asarray(want).dtype == np.int16 and got == want


# ---------------------------------------------------------------------- the C compiler


def fuzz_1134_4849(a):
    """kiln.fuzz 1134-4849, reduced: gcc 12.2 at -O3 with AVX-512 folded the written row to
    [1, 1, 1, 1, 0] (the compiler flags in backends/c/toolchain.py say why it no longer does)."""
    v = -np.full((3, 5), 5)
    v[a.sum(axis=0) % 3] = np.concatenate([np.full(2, 5), np.sum(v, axis=1)]) > 0
    return v


def test_a_row_gcc_folded_wrongly() -> None:
    for a in ([True], [False], [True, True]):
        check(fuzz_1134_4849, lambda a=a: [np.array(a)])


def fuzz_1138_171(a):
    """kiln.fuzz 1138-171, reduced: gcc 12.2 at -O3 read row 3 of `a` after it had been
    overwritten (backends/c/toolchain.py: kiln compiles at -O2 since)."""
    for _ in range(3):
        a[:, ::-1] += a


def test_a_reversed_update_gcc_reordered() -> None:
    check(fuzz_1138_171, lambda: [np.arange(36.0).reshape(6, 6) * 0.25])


def fuzz_1135_7209(a, n):
    """kiln.fuzz 1135-7209, reduced: `i != -0.5` of a loop index is a Python bool, so `~` of it is
    -2 (true), not NumPy's logical not; `-(i > 2)` is -1 or 0."""
    out = a * 0
    for i in range(n):
        if ~(i != -0.5):
            out = out + 1
        if -(i > 2) < 0:
            out = out + 10
    return out


def range_of_a_numpy_int(x, n):
    """Python's range yields Python ints whatever its bound is: `i + np.int32(1)` stays int32."""
    for i in range(n):
        x = x + np.int32(i) + i
        y = i + np.int32(1)
    return x, y


def test_loop_indices_are_python_numbers() -> None:
    for n in (0, 5):
        check(fuzz_1135_7209, lambda n=n: [np.ones(2), np.int64(n)])
    want = range_of_a_numpy_int(np.zeros(2, np.int32), np.int64(3))
    got = kiln.function(range_of_a_numpy_int)(np.zeros(2, np.int32), np.int64(3))
    for w, g in zip(want, got):
        assert np.asarray(g).dtype == np.asarray(w).dtype and np.array_equal(g, w)


def fuzz_1160_11400(a):
    """kiln.fuzz 1160-11400, reduced: `b` is rebound in the loop to a view of the array the loop
    iterates, on every path; the write through the row came after `b` was read, so the value
    the loop carried for `b` was from before it (kiln gave the rows unmultiplied)."""
    b = a * 1.0
    for r in b:
        b = b[::-1]
        r *= -3
    return b


def test_a_view_carried_by_a_loop_is_not_read_stale() -> None:
    """The carried value of a view of a maybe-aliased array is a read: refused, naming the loop
    (NumPy's answer depends on which iteration's array it is), never a stale value."""
    with pytest.raises(NotImplementedError, match=r"test_fuzz_regressions\.py:\d+.*same array as one from before it"):
        kiln.function(fuzz_1160_11400)(np.arange(4.0).reshape(2, 2))


def fuzz_1170_5712(b):
    """kiln.fuzz 1170-5712, reduced: `b`, a view of the argument, carried by a loop that writes the
    argument through its rows, and merged again by an `if` in the body: the `if`'s flag said
    "b is the loop's b", whose own relation to the argument (a view on the first iteration) was
    not checked, so `b[1:]` read values from before the write (kiln's columns 3 and 4 were wrong)."""
    b = b[::-1]
    for col in b.T:
        if col.sum(axis=0) > 100:
            b = np.full((5, 5), 6.0)  # (the program had `b = 6`, now refused before this: a number or an array)
        col[:] += np.sum(b[1:], axis=0)


def test_a_read_through_a_flagged_merge_of_a_stale_view_is_refused() -> None:
    with pytest.raises(NotImplementedError, match=r"test_fuzz_regressions\.py:\d+.*same array as one from before it"):
        kiln.function(fuzz_1170_5712)(np.arange(25.0).reshape(5, 5))


def fuzz_1210_2721(c, n):
    """kiln.fuzz 1210-2721, reduced: `c` rebound in a staged loop to a new array made from a view
    (`np.flip`) of the body's `c`, then raveled after the loop. NumPy's layout of that array is
    worked out only when the ravel asks; kiln replayed the view's steps as ops to learn their
    shapes, on the loop body's value, and refused the valid program ("uses a value computed
    inside a ... loop body that has ended"). View strides now come from shapes alone."""
    t = np.zeros((), dtype=np.int64) + n
    while t < 5:
        t += 1
        c = np.trunc(np.maximum(np.flip(c, 0), 1.5))
    w = c.ravel()
    w[0] = 99
    return c, w


def test_the_layout_of_a_loop_result_made_from_a_view_is_worked_out_after_the_loop() -> None:
    check(fuzz_1210_2721, lambda: [np.arange(12.0).reshape(3, 4), np.int64(2)])
    check(fuzz_1210_2721, lambda: [np.arange(12.0).reshape(3, 4).T, np.int64(7)])


def python_float_on_both_paths(x):
    t = 0.5
    if x.sum() > 0:
        t = 1.5
    return x * t


def python_float_or_numpy_float(x):
    """kiln.fuzz 1230-8608, reduced: `t` is a Python float on one path and a NumPy float64 on the
    other; NumPy's `np.where(.., t, float32_array)` is float32 on the first path, float64 on the
    second. kiln gave float64 on both."""
    t = 0.25
    if x.sum() > 0:
        t = np.min(x.astype(np.float64))
    return np.where(x > 0, t, np.full(3, 2.5, dtype=np.float32))


def python_int_or_float_after_a_loop(x, n):
    t = 0
    while t < n:
        t = t + 1.5
    return x * t


def float32_sum_from_a_python_float(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i]
    return x * s


def test_a_python_number_merged_with_itself_stays_weak() -> None:
    """Two Python floats merged by a staged `if` still promote as a Python float
    (`float32_array * t` is float32; kiln gave float64)."""
    for x in (np.ones(3, np.float32), -np.ones(3, np.float32)):
        check(python_float_on_both_paths, lambda x=x: [x.copy()])


@pytest.mark.parametrize("fn, args", [
    (python_float_or_numpy_float, lambda: [np.ones(3, np.float32)]),
    (python_int_or_float_after_a_loop, lambda: [np.arange(3, dtype=np.int32), np.int64(2)]),
])
def test_a_promotion_that_depends_on_the_path_is_refused(fn: Callable[..., Any], args: Callable[[], list[Any]]) -> None:
    with pytest.raises(NotImplementedError, match=r"test_fuzz_regressions\.py:\d+:\d+: the dtype of np\.\w+ depends on "
                                                  r"the path taken through the staged"):
        kiln.function(fn)(*args())


def test_a_promotion_that_is_the_same_on_every_path_is_not_refused() -> None:
    """`s = 0.0` then float32 elements added in a staged loop: float32 after any number of
    iterations (0.0 is weak), so `x * s` is float32 whatever the path."""
    for n in (0, 3):
        check(float32_sum_from_a_python_float, lambda n=n: [np.arange(4, dtype=np.float32), np.int64(n)])


def static_loop_from_a_python_int(a):
    """kiln.fuzz 1240-1841, reduced: a staged `for` over range(5) (a static trip count) makes `acc`,
    a Python int before it, an int32 value; it cannot run zero times, so `acc` promotes as int32
    on every path (refused as path-dependent before)."""
    acc = 0
    for i in range(5):
        acc = acc + a[0][i // 2 % 2]
    return np.ones(4, dtype=np.int8) * acc


def test_a_loop_with_a_static_trip_count_runs() -> None:
    check(static_loop_from_a_python_int, lambda: [np.arange(4, dtype=np.int32).reshape(2, 2)])


def static_loop_with_a_return(b, c):
    """kiln.fuzz 1240-544, reduced: a `return` inside a loop over the rows of `b` (static: 2) makes
    its test "and not returned"; the loop still runs at least once on every path that reads `acc`
    after it, so `acc` is int32 there (it was refused as path-dependent)."""
    acc = 0
    for r in b:
        acc = acc + c * 2
        if r.sum() > 100:
            return c
    return np.ones(3, dtype=np.int8) * acc[0]


def test_a_loop_with_a_static_trip_count_and_a_return_runs() -> None:
    check(static_loop_with_a_return, lambda: [np.ones((2, 2)), np.arange(3, dtype=np.int32)])
    check(static_loop_with_a_return, lambda: [np.full((2, 2), 60.0), np.arange(3, dtype=np.int32)])


def ravel_in_loop_of_a_rebound_strided_argument(a, b, c):
    """kiln.fuzz 1250-6033, reduced: `b` is a strided 1-D argument on the first iteration (its
    ravel a copy, so the argument is never written) and a new array after (its ravel a view).
    kiln took every 1-D array as C-contiguous there and wrote the argument."""
    for r in a:
        w = b.ravel()
        b = np.ones(6, dtype=np.float32)
        np.minimum(c, b, out=w)
    return c


def ravel_of_a_strided_argument_on_one_path(a, b):
    """The same through a staged `if`: a view of the new array on one path, a copy on the other."""
    if a.sum() > 0:
        y = b
    else:
        y = np.ones(6, dtype=np.float32)
    w = y.ravel()
    w[0] = 7
    return y + 0


def ravel_in_loop_of_a_strided_argument_kept_strided(a, b):
    """`b` stays a strided view of the argument on every iteration: each ravel is a copy."""
    t = b[0] * 0
    for r in a:
        w = b.ravel()
        w[0] = 7
        t = t + w.sum()
        b = b[::1]
    return t


@pytest.mark.parametrize("fn, args, construct", [
    (ravel_in_loop_of_a_rebound_strided_argument,
     lambda: [np.zeros(3), np.arange(12, dtype=np.float32)[::2], np.full(6, 0.5, np.float32)], "loop"),
    (ravel_of_a_strided_argument_on_one_path, lambda: [np.ones(3), np.arange(12, dtype=np.float32)[::2]], "path"),
])
def test_a_ravel_of_a_1d_array_whose_layout_depends_on_the_path_is_refused(
        fn: Callable[..., Any], args: Callable[[], list[Any]], construct: str) -> None:
    with pytest.raises(NotImplementedError, match=f"memory layout.*{construct}|{construct}.*memory layout"):
        kiln.function(fn)(*args())


def test_a_ravel_of_a_strided_argument_kept_strided_by_a_loop_is_a_copy() -> None:
    check(ravel_in_loop_of_a_strided_argument_kept_strided, lambda: [np.zeros(3), np.arange(12, dtype=np.float32)[::2]])


def uniform_cast_used_by_vector_and_scalar_ops(b, d):
    """kiln.fuzz 1270-659, reduced: the float32 `1.0` cast to float64 is uniform in the vectorized
    min loop; a vector op used its broadcast, and a later scalar op took that broadcast for its
    operand (invalid IR, a C backend crash)."""
    acc = 0.0
    for i in range(b.shape[0] - 1, -1, -1):
        acc += np.where(d[-1 - i].astype(np.bool), np.float64(-2.75), 1.25) * np.square(np.ones((3, 5), dtype=np.float32))
    return acc.min(axis=1)[-3].astype(np.int32)


def test_a_uniform_value_broadcast_for_a_vector_op_stays_scalar_for_scalar_ops() -> None:
    check(uniform_cast_used_by_vector_and_scalar_ops,
          lambda: [np.arange(9, dtype=np.int32).reshape(3, 3), np.array([-6, 2, 4, 0, 5], dtype=np.int64)])


def gcc_vectorizer_crash(a, b, n):
    """kiln.fuzz 1270-17461: gcc 12 with -march=native on AVX-512 crashes vectorizing this
    function's C ("internal compiler error in vect_slp_analyze_node_operations_1"); the retry
    without the vectorizer kept -ftree-loop-vectorize (a later -fno-tree-vectorize does not undo
    it) and crashed again. Elsewhere it is a plain differential test."""
    np.copyto(a[:], -5 + a - np.fmax(np.full((4, 2), 5, dtype=np.int64), a.astype(a.dtype)))
    np.maximum(b % (np.abs(b) + 1) + np.abs(a[:, :-1]), np.fmin(a[3:, :-1], a[1:2:2, 1:0:-1]), out=a[:, 0:1])
    b //= np.abs(b * -4) + 1
    v = np.abs(np.full((6, 1), 0, dtype=np.int64) % 5)
    return np.mean(a[-4] - a[-2], axis=0).astype(np.float64), v.T


def test_a_compiler_crash_is_compiled_again_without_the_vectorizer() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the CompilerBugWarning where gcc crashes
        check(gcc_vectorizer_crash, lambda: [np.array([[4, 2], [2, 0], [5, 2], [6, -3]], dtype=np.int32),
                                             np.array([[1]], dtype=np.int32), 2])


def numpy_functions_of_python_numbers(x, n):
    """kiln.fuzz 1270-11951-1, reduced: `t` a Python float (also after a staged loop adds 1.5 to
    it); `np.abs(t)` is a NumPy float64 (strong: `float32_array / (np.abs(t) + 1)` is float64),
    while `abs(t)`, `t + 1` and `max(t, 0.5)` are Python floats (weak). kiln took every ufunc of
    Python numbers for a Python number."""
    t = 1.5
    i = 0
    while i < n:
        t += 1.5
        i += 1
    return (x / (np.abs(t) + 1), x / (abs(t) + 1), x * max(t, 0.5), x * np.maximum(t, 0.5),
            x + np.add(t, 1), x + (t + 1))


def test_a_numpy_function_of_python_numbers_is_a_numpy_scalar() -> None:
    for n in (0, 2):
        check(numpy_functions_of_python_numbers, lambda n=n: [np.ones(2, np.float32), np.int64(n)])


def quadratic_loss(p, q):
    return np.sum(0.5 * p * p + p * q)


grad_quadratic_loss = kiln.grad(quadratic_loss)


def gradient_of_a_helper_whose_other_argument_is_computed_from_the_same_array(a):
    """kiln.fuzz (the eager-oracle test's program, fuzz-ext), reduced: ``kiln.grad`` called inside a
    kiln.function on ``a`` and ``a * 2``. The gradient with respect to ``p`` is ``p + q``; kiln also
    differentiated the caller's ``a * 2`` (the two share ``a``'s value) and gave ``p + 2p + q``."""
    return grad_quadratic_loss(a, a * 2), grad_quadratic_loss(a, q=a)


def test_a_gradient_inside_a_kiln_function_starts_at_its_call() -> None:
    a = np.array([1.0, -2.0, 0.5])
    got = kiln.function(gradient_of_a_helper_whose_other_argument_is_computed_from_the_same_array)(a)
    np.testing.assert_array_equal(got[0], a + 2 * a)  # p + q, by hand
    np.testing.assert_array_equal(got[1], a + a)


def counter_past_a_data_break(a, t, step):
    """kiln.fuzz 13400-260, reduced: a Python counter of a `while` on Python numbers whose body
    breaks on array data. The staged `if` of the break makes the counter a weak tensor after the
    first iteration, and the loop on the now traced test carried it as a NumPy scalar:
    `return t` gave np.float64(0.0) (np.int64 for an int counter) where Python gives 0.0."""
    while t > 0:
        if a[0] > 0:
            break
        t -= step
    return t


@pytest.mark.parametrize("t, step", [(0.25, 0.25), (2, 1), (30.0, 0.5)])
def test_a_python_counter_past_a_data_break_stays_a_python_number(t: float, step: float) -> None:
    fn = kiln.function(counter_past_a_data_break)
    for first in (-1, 4):
        a = np.array([first, 4])
        got, want = fn(a, t, step), counter_past_a_data_break(a, t, step)
        assert type(got) is type(want) and got == want, (got, want)


def truth_valued_counter_with_a_data_break(a, t):
    """kiln.fuzz 13400-88, reduced: `while t:` with a `break` on array data. The break's flag makes
    the test `not flag and t`; once a staged `if` made both tensors, that `and` joined a bool (the
    flag's path) with an int64 (t's) and was refused ("the value of `a and b` is an int64 tensor
    ... but a bool tensor"). The loop reads only the test's truth."""
    while t:
        if a[0] > 0:
            break
        t -= 1
    return t


def test_a_truth_valued_counter_with_a_data_break_is_staged() -> None:
    fn = kiln.function(truth_valued_counter_with_a_data_break)
    for first in (-1, 4):
        a = np.array([first, 4])
        got, want = fn(a, 30), truth_valued_counter_with_a_data_break(a, 30)
        assert type(got) is type(want) and got == want, (got, want)


def _flipping_writes(n):
    def flipping_writes(a, b):
        t = 0
        while t < n:
            t += 1
            a[::-1, -2] = b[:, 1:2].mean(axis=1)
            a = np.flip(a, 0)
        return a, t

    return flipping_writes


def test_a_loop_writing_through_a_growing_view_chain_traces_linearly() -> None:
    """kiln.fuzz 13700-231, reduced: `a` is a flipped view of the argument on every other iteration,
    so the loop unrolls (its layout changes between iterations), and each write replays the whole
    chain of views: the trace had 72, 204 and 652 IR lines for 4, 8 and 16 trips; a slice of a slice
    is now one step (SliceStep.then), so 57, 107 and 207."""
    def lines(n: int) -> int:
        a = np.array([[-6, -1, -6, 6], [2, 6, 4, 1]], dtype=np.int32)
        b = np.ascontiguousarray(np.array([[5, -1], [-4, 5]], dtype=np.int64).T).T
        return len(kiln.function(_flipping_writes(n)).get_concrete_function(a, b).ir.splitlines())

    four, eight, sixteen = lines(4), lines(8), lines(16)
    assert (sixteen - eight) / 8 <= 1.2 * (eight - four) / 4  # the same ops per iteration (was 56 and 33 lines)


def not_of_array_data(a):
    b = not np.sum(a)
    c = not a[0] > 0.5
    return b, c


@pytest.mark.parametrize("first", [1.06, 0.25, -0.5])
def test_not_of_array_data_is_a_python_bool(first: float) -> None:
    """kiln.fuzz python 901-21 (`b = not np.sum(a); return b`): Python's `not` gives a Python bool
    whatever its operand; kiln gave a NumPy bool."""
    a = np.array([first, -1.429, -0.35, -0.391, 1.42, 0.671])
    got, want = kiln.function(not_of_array_data)(a), not_of_array_data(a)
    assert [type(g) for g in got] == [bool, bool] and got == want, (got, want)


def scatter_add_loop_in_a_staged_if(w, g):
    y = np.zeros(5)
    if w[3] > -5.0:
        for _ in range(5):
            np.add.at(y, g, w)
    return np.sum(y * y)


def scatter_add_loop(w, g):
    y = w * 1.0
    for _ in range(5):
        y[g] += np.sin(w)
    return np.sum(y * y)


def checked_write_in_nested_staged_ifs(x, m, u):
    y = x * 1.0
    if np.sum(x) > -100.0:
        if np.sum(m) > -100.0:
            y[u] += np.sin(np.sum(m, axis=0))[u]
    return np.sum(y * x)


def central_differences(fn: Callable[..., Any], args: list[Any], k: int, h: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(args[k])
    for i in np.ndindex(args[k].shape):
        up, down = [a.copy() for a in args], [a.copy() for a in args]
        up[k][i] += h
        down[k][i] -= h
        out[i] = (fn(*up) - fn(*down)) / (2 * h)
    return out


W, G = np.array([0.0625, -1.9017, 1.3671, -1.8716, 0.1857]), np.array([4, 0, 3, 4, 3])


@pytest.mark.parametrize("fn, args, k", [
    (scatter_add_loop_in_a_staged_if, [W, G], 0),
    (scatter_add_loop, [W, G], 0),
    (checked_write_in_nested_staged_ifs, [W, np.arange(15.0).reshape(3, 5) / 10, np.array([3, 4, 2])], 1),
], ids=["loop-in-if", "loop", "nested-ifs"])
def test_gradients_through_run_time_index_checks(fn: Callable[..., Any], args: list[Any], k: int) -> None:
    """kiln.fuzz grad 15480-9 (minimized: the first function) and 15500-71 (reduced: the last, thresholds
    lowered so that both branches run): a staged loop or `if` holding a run-time index check (an
    index array argument). kiln.grad gave zeros inside a staged `if` (the branch's reverse left the
    checked op out and dropped its gradient) and refused the loop on its own ("a staged loop with an
    effect inside"). A check ordered by no token is recomputed like a pure op now (it passed forward)."""
    got = kiln.grad(fn, argnums=k)(*args)
    np.testing.assert_allclose(got, central_differences(fn, list(args), k), rtol=1e-6, atol=1e-6)


def printing_nested_ifs(x):
    y = x * 1.0
    if np.sum(x) > -100.0:
        if np.sum(x) > -50.0:
            kiln.print(y[0])
            y = y * y
    return np.sum(y)


def test_a_gradient_through_a_printing_if_nested_in_another_is_refused() -> None:
    """Found with kiln.fuzz grad 15500-71: the reverse of the outer `if` left out the inner one, whose
    `kiln.print` is an effect, and dropped the gradient of the value it yields (kiln.grad gave
    zeros, 2x is right). Refused now, naming the inner `if`, as such a loop is."""
    with pytest.raises(NotImplementedError, match=r"test_fuzz_regressions.py:\d+:\d+: differentiating through a "
                                                  r"staged `if` whose branch yields the result of graph.cond"):
        kiln.grad(printing_nested_ifs)(np.array([0.5, -1.25, 2.0]))


def int_list_element_counter_plus_floats(lst, ints):
    c = ints[0]
    for _ in range(6):
        c += lst[0]
    return c


def test_an_int_list_element_counted_up_by_floats_in_a_staged_loop() -> None:
    """kiln.fuzz python 15510-91, minimized: `c = ints[0]` (a Python int of a list argument) carried
    by a staged loop whose body makes it a float: the loop's initial value kept the int's dtype
    (invalid IR, "the cond region must take the carried values as arguments", no file:line)."""
    lst, ints = [-1.25, -0.75], [-1, -3]
    got, want = kiln.function(int_list_element_counter_plus_floats)(lst, ints), int_list_element_counter_plus_floats(lst, ints)
    assert type(got) is type(want) is float and got == want, (got, want)


def python_float_counted_by_numpy_scalars_in_a_staged_loop(a):
    c = 0.0
    for _ in range(6):
        if a[0] > 5.0:
            c += a[1] > 0.0
    return c


def test_a_python_float_a_staged_loop_may_leave_unchanged_stays_a_python_float() -> None:
    """kiln.fuzz python 15515-93, minimized: `c = 0.0; for _ in range(6): if a[0] > 5: c += a[1] > 0`.
    No iteration takes the branch, so Python returns the float 0.0; kiln returns np.float64(0.0).
    The same loop unrolled (range(3)) and a single staged `if` gave Python's kinds on both paths; the
    loop carries the value's run-time kind flag now, as a staged `if` yields it."""
    for first in (0.0, 6.0):
        a = np.array([first, 1.0, 0.0, 0.0, 0.0, 0.0])
        got, want = kiln.function(python_float_counted_by_numpy_scalars_in_a_staged_loop)(a), \
            python_float_counted_by_numpy_scalars_in_a_staged_loop(a)
        assert type(got) is type(want) and got == want, (got, want)


def list_element_times_a_counter_of_path_dependent_kind(a, lst):
    c = 0
    if sum(lst) > -0.5:
        c += a[2]
    lst[-2] *= c


def test_a_list_element_written_with_a_path_dependent_kind_keeps_pythons_kind() -> None:
    """kiln.fuzz python 15516-102, minimized: `c` is the Python int 0 where the staged `if` is not
    taken (a NumPy float64 where it is), so `lst[-2] *= c` leaves a Python float in the caller's list;
    kiln left np.float64(-0.0): the product lost `c`'s run-time kind flag. A Python operator on a value
    of a per-call kind gives a Python number where its operands are ones, a NumPy scalar elsewhere."""
    a = np.array([-0.102, -0.01, 1.648, 0.556, -1.022, 0.657])
    got, want = [-1.75, -1.5, -1.5, -1.25], [-1.75, -1.5, -1.5, -1.25]
    kiln.function(list_element_times_a_counter_of_path_dependent_kind)(a, got)
    list_element_times_a_counter_of_path_dependent_kind(a, want)
    assert [type(g) for g in got] == [type(w) for w in want] and got == want, (got, want)


def max_of_a_list_holding_an_int(lst, ints):
    lst[1] = len(lst)
    lst[1] = max(lst)
    for i in range(len(lst)):
        lst[i] = lst[i] * ints[0]


def test_an_int_written_into_a_list_of_floats_stays_an_int() -> None:
    """kiln.fuzz python 15517-90, minimized: `lst[1] = len(lst)` puts the int 4 in a list of floats;
    Python's `max(lst)` is that int and `4 * ints[0]` the int 8; kiln left the float 8.0: `max` gave
    the int's kind as a run-time flag, and the product took the float64 it is carried as for its kind.
    A Python operator on Python numbers of per-call kinds gives Python's type for theirs now."""
    got, want = [-1.75, -0.25, -0.75, 1.0], [-1.75, -0.25, -0.75, 1.0]
    kiln.function(max_of_a_list_holding_an_int)(got, [2, 1, -1])
    max_of_a_list_holding_an_int(want, [2, 1, -1])
    assert [type(g) for g in got] == [type(w) for w in want] and got == want, (got, want)


def staged_raise_then_python_raise(a):
    if a[3]:
        raise RuntimeError("check 1: bad data")
    if 1.0:
        raise RuntimeError("check 2: bad data")


def test_a_staged_raise_comes_before_a_python_raise_below_it() -> None:
    """kiln.fuzz python 15517-114, minimized: `a[3]` is true, so Python raises "check 1"; kiln raised
    "check 2" while tracing the Python `if 1.0:` below it, before the compiled check of the first. The
    Python `raise` is a run-time error after that check now."""
    fn = kiln.function(staged_raise_then_python_raise)
    with pytest.raises(RuntimeError, match="check 1"):
        fn(np.array([1.333, -0.16, -1.228, 0.977, 0.382, -0.522]))
    with pytest.raises(RuntimeError, match="check 2"):
        fn(np.array([1.333, -0.16, -1.228, 0.0, 0.382, -0.522]))


def a_number_summed_into_rows(b):
    """kiln.fuzz 20300-9175: `acc = 0; acc += b.T[...]` makes `acc` on the first iteration a new
    array laid out as its Fortran-ordered operand (NumPy's order 'K'); the later iterations add in
    place, so after the loop `acc[::2].ravel()` is a copy in NumPy, not a view a write shows through."""
    acc = 0
    for _ in b:
        acc += b.T[2:0:-1, ::-1]
    w = acc[::2].ravel()
    acc[0, 0] += 3.0
    return w, acc


def first_bound_in_the_loop(b):
    """The same for a variable first bound inside the loop: its layout is the body's."""
    for r in b:
        t = b.T * r[0]
    w = t[::2].ravel()
    t[0, 0] += 3.0
    return w, t


def test_a_python_number_a_staged_loop_makes_an_array_takes_the_first_iterations_layout() -> None:
    def inputs() -> list[Any]:
        return [np.array([[4.0, -0.25, -3.25], [3.0, 1.75, -2.75], [2.5, -0.5, 3.0], [3.75, -1.5, -2.25]])]

    check(a_number_summed_into_rows, inputs)
    check(first_bound_in_the_loop, inputs)


# kiln.fuzz 20650-1648 as generated (numpy mode): unrolled loops that rebind arrays on some paths while the
# earlier ones stay held (a dict, a selection): a write reached 32 arrays by 962 chains of sameness flags,
# 98,649 graph ops (83,267 of them `graph.and`) and a 60 s timeout since 0f4c4a6 followed every chain;
# b6b46c9 refused it past 4,096 flags. Past mutation.CHAIN_FLAGS_AT_MOST flags a write now compares the
# arrays' base memories (mutation._by_memory)
def _many_chains(a, b):
    if np.sum(np.full(3, np.float64(3.25), dtype=np.float32), axis=0) <= 1.75:
        return ((np.float64(-4.0) - -4).astype(np.float64), b.min(axis=1)[b.max(axis=0)[1] // (np.abs(a.sum(axis=0)) + 1) % 6].astype(np.float64).astype(np.float64))
    for i1 in range(len(a) - 1, -1, -1):
        for i2 in range(0, 6, 2):
            v3 = (b[:1, :-1] * b[5:, :-1]).sum(axis=0) != a[-3:] * a[-3:] - np.concatenate([a[0:2], a[:1]])
        v4 = np.where(a[:3] <= b[..., i1 % 4][i1], np.where(np.asarray(a[2:5], dtype=np.bool), 3, np.zeros((3, 3), dtype=np.int32)), b[:-3, 1:4]) // (np.abs(np.minimum(np.abs(b[0::2, -3:]), -3)) + 1)
    v5 = b[-b[2].sum(axis=0) % 6].astype(np.float64)
    hb6 = b[2:, 1:].astype(np.float64)
    keep8 = {'k': hb6}
    for i9 in range(3):
        if b.sum(axis=0)[a[i9 + 1] % 4] != 0:
            hb6 = np.where(np.asarray(b[:4, 1:], dtype=np.bool), b[2:, 1:4].astype(np.float64), -1.75)
        hb6[:] = 0.5 - hb6
        a[4:] += a[:-1] @ np.max(b, axis=0)
    hold7 = keep8['k']
    v10 = hold7 + np.minimum(hb6[-2], hold7[v5[:2].astype(np.int32) @ a[3:] % 4])
    hb11 = hb6
    sel13 = hb11[hb11 > 0.25]
    for i14 in range(31):
        if b.sum(axis=1)[1] <= 1:
            hb11 = hold7
            hb11 //= 2
        if np.asarray(v5[(-2) ** 2 % 4], dtype=np.int32) // 3 % 7 >= b.sum(axis=1)[np.sum(hb6.sum(axis=0), axis=0).astype(np.int32) % 6]:
            if a[2:3:2].prod(axis=0) == -5:
                break
        else:
            sh15 = hold7[..., 0]
            for i16 in range(3):
                sh15 = sh15[sh15 > 2]
            acc17 = sh15.sum() + sh15.shape[0]
            w18 = np.transpose(b)
    hold12 = np.full_like(hb11, sel13.sum())
    v19 = hold12 + hold7
    v10 = hold12
    return ((np.min(b[0:5, 2::2], axis=0) @ (v19[:-3, -1:] @ a[4:])).astype(np.float64), (hold7[np.negative(a[2]) % 4].sum(axis=0) + v10[1][a[2] // 5 % 3]).astype(np.float64))


def test_a_write_reaching_arrays_by_many_chains_matches_numpy() -> None:
    a = np.array([1, -1, 2, 0, -2], dtype=np.int64)
    b = np.array([[-2, -6, -2, 6], [6, -5, -5, 2], [2, -2, 3, 3], [-6, 2, 0, -3], [4, 0, 2, -6], [5, -3, -4, 1]], dtype=np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = kiln.function(_many_chains).get_concrete_function(a, b)
        assert sum(1 for _ in traced._traced.module.walk()) < 12_000  # noqa: SLF001 (98,649 following every chain)
        want_args, got_args = [a.copy(), b.copy()], [a.copy(), b.copy()]
        want, got = _many_chains(*want_args), kiln.function(_many_chains)(*got_args)
    for w, g in zip((*want, *want_args), (*got, *got_args)):
        np.testing.assert_array_equal(g, w)


def _two_loops_from_one_selection(c):
    s = c.astype(np.int64)
    k = 0
    while k < 6:
        k += 1
        s = s[s != -1]
    t = c.astype(np.int64)
    j = 0
    while j < 6:
        j += 1
        t = t[t != -1]
    return s.sum(), t.sum(), len(t)


def _selection_loops_in_an_unrolled_loop(a, c):
    t2 = -3.0
    while t2 < 9:
        t2 += 1.5
        sh5 = c.astype(np.int64)
        k6 = 0
        while k6 < 6:
            k6 += 1
            sh5 = sh5[sh5 != -1]
        a[(sh5.sum() + 1) % 5, -1:] += -0.5
    return a


def test_a_run_time_length_value_two_loops_start_from_is_not_freed_by_the_first() -> None:
    """kiln.fuzz 20660-9517, reduced: two staged loops (or an unrolled loop's copies of one) start from
    the same masked selection (CSE makes the two one value). kiln-bufferize handed its buffer to the
    first loop, whose first iteration freed it; the second read freed memory (sums like
    -4278124286; the index written from it went astray). The first now takes a copy."""
    c = np.array([-3.5, -2.25, -1.25, -2.0, 4.0, 2.0, 1.75, -2.75, -4.0, -3.0])[::2]
    for w, g in zip(_two_loops_from_one_selection(c.copy()), kiln.function(_two_loops_from_one_selection)(c.copy())):
        np.testing.assert_array_equal(g, w)
    a = np.arange(15.0).reshape(5, 3)
    np.testing.assert_array_equal(kiln.function(_selection_loops_in_an_unrolled_loop)(a.copy(), c.copy()),
                                  _selection_loops_in_an_unrolled_loop(a.copy(), c.copy()))


def _selection_bound_after_a_continue(a):
    w3 = a.T
    t4 = -1.25
    while t4 < 4.0 and a[0, 0] != -2:
        t4 += 2.0
        if w3[0, 2] != np.sum(a):
            if t4 > t4:
                continue
        sh7 = w3[..., -1].min(axis=0) % 3 + 0.25 * np.full(3, 1.0)
        for _ in range(3):
            sh7 = sh7[sh7 != 0]
        acc9 = sh7.sum()
    return t4, acc9


def test_a_selection_left_by_an_abandoned_probe_is_not_formed() -> None:
    """kiln.fuzz 20680-13447, reduced: the staged `if` of a `continue` starts from every variable of
    the loop body, among them ``sh7``, bound later in the body, which still held the lazy ``x[mask]``
    of the loop's previous probe (values in a block thrown away). Forming it emitted a
    ``graph.compress`` of those values in the body: the traced IR failed the verifier. A selection
    not visible where tracing is stays as it is (the variable is dead there)."""
    a = np.arange(25.0).reshape(5, 5)
    check(_selection_bound_after_a_continue, lambda: [a.copy()])
