"""kiln.Variable: eager API, compiled reads and writes on the variable's own buffer, errors."""

from __future__ import annotations

import numpy as np
import pytest

import kiln


def test_eager_api() -> None:
    v = kiln.Variable([1.0, 2.0], dtype="float32")
    assert v.shape == (2,) and v.dtype == np.float32
    v.assign([3.0, 4.0]).assign_add(1.0)
    v.assign_sub(np.array([1.0, 1.0], np.float32))
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(v + 1, [4.0, 5.0])
    np.testing.assert_array_equal(2 * v, [6.0, 8.0])
    np.testing.assert_array_equal(np.exp(v), np.exp(np.float32([3.0, 4.0])))
    snapshot = v.read_value()
    v.assign([0.0, 0.0])
    np.testing.assert_array_equal(snapshot, [3.0, 4.0])  # reads are values, not views


def test_python_numbers_follow_numpy_types() -> None:
    assert kiln.Variable(5).dtype == np.int64
    assert kiln.Variable(1.5).dtype == np.float64
    assert kiln.Variable(True).dtype == np.bool_


def test_compiled_code_writes_the_variables_own_buffer() -> None:
    v = kiln.Variable(np.zeros(3, np.float32))
    buffer = v.buffer

    @kiln.function
    def step(x):
        v.assign_add(x)
        return v * 2

    np.testing.assert_array_equal(step(np.ones(3, np.float32)), [2, 2, 2])
    np.testing.assert_array_equal(step(np.ones(3, np.float32)), [4, 4, 4])
    assert v.buffer is buffer
    np.testing.assert_array_equal(buffer, [2, 2, 2])
    v.assign([10, 10, 10])  # eager writes are seen by the compiled code
    np.testing.assert_array_equal(step(np.zeros(3, np.float32)), [20, 20, 20])
    assert step.tracing_count == 1


def test_traced_ir_has_a_resource_argument_per_variable() -> None:
    a, b = kiln.Variable(1.0), kiln.Variable(np.zeros((2, 2), np.int32))

    @kiln.function
    def f():
        b.assign_add(1)
        a.assign(a * 3)
        return a.read_value()

    ir = f.get_concrete_function().ir
    assert "!graph.resource<tensor<2x2xi32>>, %var1: !graph.resource<tensor<f64>>" in ir
    assert ir.index("graph.assign") < ir.rindex("graph.read")
    assert float(f()) == 3.0 and float(f()) == 9.0
    np.testing.assert_array_equal(b.numpy(), np.full((2, 2), 2))


def test_variable_as_argument_is_keyed_by_identity() -> None:
    @kiln.function
    def bump(var):
        var.assign_add(1)
        return var.read_value()

    v, w = kiln.Variable(0), kiln.Variable(100)
    assert int(bump(v)) == 1 and int(bump(v)) == 2
    assert int(bump(w)) == 101
    assert bump.tracing_count == 2
    assert "another kiln.Variable" in bump.retrace_reasons[-1]


def test_creating_a_variable_inside_a_function_is_an_error() -> None:
    @kiln.function
    def f(x):
        v = kiln.Variable(0.0)
        return x + v

    with pytest.raises(ValueError, match="created while tracing kiln.function `f`.*create it outside"):
        f(np.ones(2))


def test_assign_of_another_shape_is_an_error() -> None:
    v = kiln.Variable(np.zeros(3))
    with pytest.raises(ValueError, match=r"shape \(2,\) does not fit a variable of shape \(3,\)"):
        v.assign(np.zeros(2))

    @kiln.function
    def f(x):
        v.assign(x)

    with pytest.raises(ValueError, match="does not fit"):
        f(np.zeros(4))


def test_assign_of_an_unsafe_dtype_is_an_error() -> None:
    v = kiln.Variable(0)
    with pytest.raises(TypeError, match="float64 value cannot be stored in a int64"):
        v.assign(1.5)
    with pytest.raises(TypeError, match="same_kind"):
        v.assign_add(0.5)

    @kiln.function
    def f(x):
        v.assign(x)

    with pytest.raises(TypeError, match="cannot be stored"):
        f(np.float32(1.0))
    f32 = kiln.Variable(np.float32(0))
    f32.assign(2)  # int -> float: same kind, safe
    assert f32.numpy() == 2.0


def test_numpy_inside_a_trace_is_an_error() -> None:
    v = kiln.Variable(1.0)

    @kiln.function
    def f():
        return v.numpy()

    with pytest.raises(TypeError, match="would freeze the value"):
        f()


def test_eager_mode_acts_on_the_same_buffer() -> None:
    v = kiln.Variable(np.zeros(2))

    @kiln.function
    def f(x):
        v.assign_add(x)
        return v.read_value()

    f(np.ones(2))
    kiln.config.run_functions_eagerly(True)
    try:
        out = f(np.ones(2))
        assert isinstance(out, np.ndarray)
    finally:
        kiln.config.run_functions_eagerly(False)
    np.testing.assert_array_equal(f(np.ones(2)), [3.0, 3.0])


def test_creating_a_variable_inside_an_eager_function_raises() -> None:
    @kiln.function
    def f(x):
        v = kiln.Variable(x)
        return v.read_value()

    kiln.config.run_functions_eagerly(True)
    try:
        with pytest.raises(ValueError, match="created while running kiln.function `f` eagerly.*create it outside"):
            f(np.ones(2))
        assert kiln.Variable(1.0).numpy() == 1.0  # outside any function it is fine, after the error too
    finally:
        kiln.config.run_functions_eagerly(False)
