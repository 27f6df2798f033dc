"""The seed programs of "Function semantics": tracing, retracing, variables and effects in program
order, each checked compiled (and, where it differs, against plain Python)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln


def test_find_next_odd() -> None:
    v = kiln.Variable(5)

    @kiln.function
    def find_next_odd():
        v.assign(v + 1)
        if v % 2 == 0:
            v.assign(v + 1)

    find_next_odd()
    assert v.numpy() == 7
    find_next_odd()
    assert v.numpy() == 9
    assert find_next_odd.tracing_count == 1


def test_assign_then_read_is_in_program_order() -> None:
    v = kiln.Variable(1.0)

    @kiln.function
    def f():
        v.assign(2.0)
        return v.read_value()

    assert [float(f()) for _ in range(3)] == [2.0, 2.0, 2.0]


def test_read_before_assign_sees_the_old_value() -> None:
    v = kiln.Variable(np.array([1.0, 2.0], np.float32))

    @kiln.function
    def f():
        old = v.read_value()
        v.assign(old * 10)
        return old, v.read_value()

    old, new = f()
    np.testing.assert_array_equal(old, [1.0, 2.0])
    np.testing.assert_array_equal(new, [10.0, 20.0])
    np.testing.assert_array_equal(v.numpy(), [10.0, 20.0])


class ScalarModel:
    def __init__(self) -> None:
        self.v = kiln.Variable(0)

    @kiln.function
    def increment(self, amount):
        self.v.assign_add(amount)


def test_scalar_model_instances_have_their_own_variables() -> None:
    model1 = ScalarModel()
    model1.increment(np.int64(3))
    assert int(model1.v) == 3
    model1.increment(np.int64(4))
    assert int(model1.v) == 7
    model2 = ScalarModel()  # created after the first trace
    model2.increment(np.int64(5))
    assert int(model2.v) == 5
    assert int(model1.v) == 7


def test_python_print_at_trace_time_kiln_print_every_call(capfd: pytest.CaptureFixture[str]) -> None:
    @kiln.function
    def f(x):
        print("Tracing!")
        kiln.print("Executing")
        return x

    f(np.ones(1))
    f(np.ones(1))
    out = capfd.readouterr().out
    assert out.count("Tracing!") == 1
    assert out.count("Executing") == 2


def test_python_scalars_retrace_by_value() -> None:
    @kiln.function
    def f(x):
        return x

    for x in (1, 1, 2, 2):
        f(x)
    assert f.tracing_count == 2


def test_lists_of_numbers_are_python_lists() -> None:
    """A list argument is a Python list (`* 2` repeats it, as in Python); its numbers are traced,
    so lists of one structure and element types share a trace (was: an array, doubled)."""

    @kiln.function
    def f(x):
        return x * 2

    assert f([1]) == [1, 1]
    assert f([2]) == [2, 2]
    assert f.tracing_count == 1
    assert f([1, 2]) == [1, 2, 1, 2]
    assert f.tracing_count == 2


def test_double_traces_per_dtype_and_shape() -> None:
    @kiln.function
    def double(a):
        return a + a

    assert double(np.int32(1)) == 2
    assert double(np.float32(1.1)) == np.float32(2.2)
    np.testing.assert_array_equal(double(np.array([1, 2], np.int32)), [2, 4])
    assert double.tracing_count == 3


def test_input_signature_any_rank() -> None:
    @kiln.function(input_signature=[kiln.TensorSpec(shape=None, dtype="float32")])
    def f(x):
        return x * 2.0 + 1.0

    for x in (np.float32(3), np.arange(3, dtype=np.float32), np.ones((2, 3), np.float32)):
        np.testing.assert_array_equal(f(x), x * 2 + 1)
    # one Python trace for every rank: the argument is traced as its flattened data
    assert f.tracing_count == 1
    np.testing.assert_array_equal(f(np.ones((5, 7), np.float32)), np.full((5, 7), 3.0, np.float32))
    assert f.tracing_count == 1
    with pytest.raises(TypeError, match=r"argument 0 \(`x`\).*dtype int32 is not float32"):
        f(np.ones(3, np.int32))


def test_row_sums_one_trace_for_every_row_count() -> None:
    @kiln.function(input_signature=[kiln.TensorSpec([None, 4], "float32")])
    def row_sums(x):
        return x.sum(axis=1)

    rng = np.random.default_rng(0)
    for rows in (1, 3, 1000):
        x = rng.random((rows, 4), dtype=np.float32)
        np.testing.assert_allclose(row_sums(x), x.sum(axis=1), rtol=1e-5)
    assert row_sums.tracing_count == 1
    assert "tensor<?x4xf32>" in row_sums.get_concrete_function().ir


def test_run_functions_eagerly_same_results_with_variables() -> None:
    def program() -> list[int]:
        v = kiln.Variable(5)

        @kiln.function
        def find_next_odd():
            v.assign(v + 1)
            if v % 2 == 0:
                v.assign(v + 1)
            return v.read_value()

        return [int(find_next_odd()) for _ in range(3)]

    compiled = program()
    kiln.config.run_functions_eagerly(True)
    try:
        eager = program()
    finally:
        kiln.config.run_functions_eagerly(False)
    assert compiled == eager == [7, 9, 11]


def test_stateful_examples() -> None:
    from kiln.examples import scalar_model

    assert scalar_model.run_seed() == (3, 7, 5)
