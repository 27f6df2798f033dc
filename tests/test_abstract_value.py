"""The abstract value of a traced value, and how a staged ``if`` joins the paths' (docs/frontend.md)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln.frontend.abstract_value import PLAIN, AbstractValue, abstract_of, join_paths


def test_abstract_of_python_and_numpy_values():
    assert abstract_of(3) == AbstractValue(weak=True, scalar=True)
    assert abstract_of(2.5) == AbstractValue(weak=True, scalar=True)
    assert abstract_of(True) == AbstractValue(weak=True, scalar=True)  # NEP 50: Python bools are weak too
    assert abstract_of(1j) == AbstractValue(weak=True, scalar=True)
    assert abstract_of(np.float64(1.0)) == AbstractValue(scalar=True)
    assert abstract_of(np.zeros(3)) is PLAIN


def test_join_keeps_what_holds_on_both_paths():
    a = AbstractValue(weak=True, scalar=True, readonly=True, facts="a", shape_source=1)
    b = AbstractValue(weak=False, scalar=True, readonly=True, facts="a", shape_source=1)
    joined = a.join(b)
    assert joined == AbstractValue(weak=False, scalar=True, readonly=True, shape_source=1)
    assert a.join(PLAIN) == PLAIN
    assert join_paths([]) is None
    assert join_paths([1, 2.5]) == AbstractValue(weak=True, scalar=True)
    assert join_paths([1, np.float64(2.0)]) == AbstractValue(scalar=True)


def test_widen_loses_facts_until_a_fixed_point():
    before = AbstractValue(weak=True, scalar=True, facts="i in [0, n)")
    assert before.widen(None) == AbstractValue(weak=True, scalar=True)  # (facts of one value are not carried)
    once = before.widen(AbstractValue(scalar=True))  # an iteration leaves a NumPy scalar: no longer weak
    assert once == AbstractValue(scalar=True)
    assert once.widen(AbstractValue(scalar=True)) == once  # the fixed point
    assert once.widen(PLAIN) == PLAIN
    # a variable first bound in the loop takes the shape source the body gives it; a known one stays
    assert PLAIN.widen(AbstractValue(shape_source=2)) == AbstractValue(shape_source=2)
    assert AbstractValue(shape_source=1).widen(AbstractValue(shape_source=2)) == AbstractValue(shape_source=1)


def test_a_tensor_is_an_ir_value_and_an_abstract_value_that_names_its_memory():
    """Which array memory a traced array is or shows, its view chain and the indexing that made a
    view are fields of its abstract value; the join of two paths' arrays may be either, and a
    loop's widening carries a new array (no memory: a fixed point whatever each probe traces)."""
    seen = {}

    @kiln.function
    def f(x, y):
        view = x[1:]
        seen["x"], seen["y"], seen["view"] = x.aval, y.aval, view.aval
        return view + y[1:]

    x, y = np.arange(4.0), np.arange(4.0, 8.0)
    np.testing.assert_allclose(f(x, y), x[1:] + y[1:])
    ax, ay, av = seen["x"], seen["y"], seen["view"]
    assert ax.storage is not None and ax.storage is not ay.storage and ax.steps == () and ax.origin is None
    assert av.storage is ax.storage and len(av.steps) == 1 and av.origin is not None
    joined = av.join(ay)
    assert joined.may_alias == (ax.storage, ay.storage) and joined.storage is None and joined.steps == ()
    assert joined.join(ax).may_alias == (ax.storage, ay.storage)  # (each array once, first seen first)
    assert av.widen(ay) == PLAIN and ax.widen(None) == PLAIN
    assert av.in_memory_of(ay).storage is ay.storage and av.in_memory_of(ay).steps == ()
    with pytest.raises(TypeError, match="no field 'wek'"):
        PLAIN.but(wek=True)


def test_the_top_level_cache_keys_arrays_by_their_abstract_value():
    """signature_of keys a NumPy array or scalar argument by its abstract value (a NumPy scalar is
    immutable), as a call between kiln.functions keys a traced array (signature.leaf_key)."""
    from kiln.frontend.signature import signature_of

    key = signature_of((np.zeros(2), np.float64(1.0)), {}).key
    assert [leaf[-1] for _, (_, leaves) in key for leaf in leaves] == [PLAIN, abstract_of(np.float64(1.0))]


def _merged(c, x):
    if c.sum() > 0:
        y = np.broadcast_to(x, (2, 3))
    else:
        y = np.broadcast_to(x * 2, (2, 3))
    y[0, 0] = 5.0
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_read_only_on_both_paths_stays_read_only(sign):
    _both_refuse_the_write(_merged, np.full(2, sign), np.arange(3.0))


def _both_refuse_the_write(fn, *args):
    """``fn`` writes to a read-only array: NumPy raises, and so does kiln."""
    with pytest.raises(ValueError, match="read-only"):
        fn(*args)
    with pytest.raises(ValueError, match="read-only"):
        kiln.function(fn)(*args)


def test_python_number_on_both_paths_promotes_weakly():
    @kiln.function
    def f(c, x):
        t = 0.5 if c.sum() > 0 else 1.5
        return x * t

    for c in (np.ones(2), -np.ones(2)):
        x = np.arange(3, dtype=np.float32)
        got, want = f(c, x), f.python_function(c, x)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got, want)


def test_numpy_scalar_on_both_paths_is_immutable():
    @kiln.function
    def f(c, x):
        s = x[0] if c.sum() > 0 else x[1]
        t = s
        t += 1.0  # a NumPy scalar: rebinds t, leaves s alone
        return s, t

    x = np.arange(3.0)
    for c in (np.ones(2), -np.ones(2)):
        assert f(c, x) == f.python_function(c, x)


def _reversed_in_a_loop(x, n):
    y = np.broadcast_to(x, (2, 3))
    i = 0
    while i < n.sum():
        y = y[::-1]  # a view of a read-only array is read-only: before the loop and after every iteration
        i += 1
    y[0, 0] = 5.0
    return y


@pytest.mark.parametrize("trips", [0, 3])
def test_read_only_before_a_loop_and_after_every_iteration_stays_read_only(trips):
    _both_refuse_the_write(_reversed_in_a_loop, np.arange(3.0), np.full(1, trips))


def test_a_loop_that_writes_a_fresh_array_each_iteration_is_writable():
    @kiln.function
    def f(x, n):
        y = np.broadcast_to(x * 2.0, (2, 3))
        i = 0
        while i < n.sum():
            y = y + 1.0  # a new array: NumPy's is writable after one iteration or more
            i += 1
        if n.sum() > 0:
            y[0, 0] = 5.0
        return y

    x, n = np.arange(3.0), np.full(1, 2)
    np.testing.assert_array_equal(f(x, n), f.python_function(x, n.copy()))


def _number_from_an_if_then_a_loop(x, n):
    t = 0
    if x.sum() > 0:  # t: a weak int64 tensor after the staged `if`
        t = 1
    i = 0
    while i < n.sum():
        t = t + x[i]  # a NumPy float64 after an iteration: the loop carries float64
        i += 1
    return t


@pytest.mark.parametrize("trips", [3, 1])
def test_a_number_a_staged_if_made_a_tensor_takes_the_type_a_loop_gives_it(trips):
    f = kiln.function(_number_from_an_if_then_a_loop)
    x, n = np.arange(4.0), np.array([trips])
    assert f(x, n) == _number_from_an_if_then_a_loop(x, n)  # (its loop's IR did not verify)


def test_a_number_a_staged_if_made_a_tensor_is_one_after_zero_loop_iterations():
    def f(x, n):
        t = _number_from_an_if_then_a_loop(x, n)
        return t * np.float32(2)  # float64 after an iteration, float32 after none

    with pytest.raises(NotImplementedError, match="depends on the path taken through the staged `while` loop"):
        kiln.function(f)(np.arange(4.0), np.array([0]))  # (was float64 where NumPy's is float32)
