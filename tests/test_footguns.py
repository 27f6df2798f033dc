"""Every place where a compiled kiln.function differs from the same Python run eagerly.

One test each; the docstring says what differs and why (docs/semantics.md#footguns)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kiln

_scale = 2.0
_seen: list[float] = []


def test_python_side_effects_happen_only_while_tracing(capfd: pytest.CaptureFixture[str]) -> None:
    """`print` and other Python effects run when the body is traced, not on every call;
    kiln.print is staged and runs on every call."""

    @kiln.function
    def f(x):
        print("python print")
        kiln.print("kiln print")
        return x

    for _ in range(3):
        f(np.ones(1))
    out = capfd.readouterr().out
    assert out.count("python print") == 1 and out.count("kiln print") == 3


def test_python_values_are_frozen_at_trace_time() -> None:
    """A global (or closure, or attribute) read by the body is a constant of the trace:
    changing it later does not change the compiled function. Pass it as an argument."""
    global _scale

    @kiln.function
    def f(x):
        return x * _scale

    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    _scale = 10.0
    try:
        np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])  # plain Python: [10, 10]
    finally:
        _scale = 2.0


def test_list_mutation_happens_once() -> None:
    """Appending to an outer list is a Python effect: it happens per trace. Appending a traced value
    would leave kiln's tracer there, not each call's value: refused at the statement
    (docs/python-semantics.md, "Python state from outside the function"). Return values instead,
    or use kiln.TensorArray."""

    @kiln.function
    def f(x):
        _seen.append(len(x))
        return x + 1

    @kiln.function
    def g(x):
        _seen.append(x)
        return x + 1

    _seen.clear()
    f(np.ones(2))
    f(np.ones(2))
    assert _seen == [2]  # plain Python: [2, 2]
    with pytest.raises(TypeError, match=r"test_footguns.py:\d+:\d+: `_seen.append\(\.\.\.\)` puts a traced value"):
        g(np.ones(2))
    assert _seen == [2]


def test_python_scalars_are_trace_time_constants() -> None:
    """A Python number argument is part of the signature: each new value traces and compiles
    again (the retracing warning says so). Pass np.asarray(n) to compile once."""

    @kiln.function
    def f(x, n):
        return x * n

    for n in range(3):
        f(np.ones(2), n)
    assert f.tracing_count == 3
    for n in range(3):
        f(np.ones(2), np.asarray(n))
    assert f.tracing_count == 4


def test_dynamic_dimensions_never_broadcast() -> None:
    """NumPy stretches a size-1 axis; a None dimension whose runtime size is 1 is not
    stretched (the compiled loops assume equal sizes): the call raises ValueError instead."""

    @kiln.function(input_signature=[kiln.TensorSpec([None]), kiln.TensorSpec([None])])
    def f(x, y):
        return x + y

    with pytest.raises(ValueError, match="never broadcast"):
        f(np.ones(3, np.float32), np.ones(1, np.float32))  # NumPy: shape (3,)


def test_rebinding_a_captured_variable_name_is_not_seen() -> None:
    """The trace captures the kiln.Variable object, not the name: binding the name to a new
    Variable later does not change the compiled function (assign to the variable instead)."""
    box = {"v": kiln.Variable(1.0)}
    first = box["v"]

    @kiln.function
    def f():
        return box["v"].read_value()

    assert float(f()) == 1.0
    box["v"] = kiln.Variable(5.0)
    assert float(f()) == 1.0  # plain Python: 5.0
    first.assign(3.0)
    assert float(f()) == 3.0


def test_randomness_is_frozen_at_trace_time() -> None:
    """np.random in the body draws once, while tracing: every call returns the same numbers.
    Pass random arrays in as arguments."""

    @kiln.function
    def f(x):
        return x + np.random.default_rng().random(2)

    assert np.array_equal(f(np.zeros(2)), f(np.zeros(2)))


def test_bincount_counts_only_below_its_trace_time_length() -> None:
    """A compiled result's size is fixed when the function is traced, so np.bincount's length is
    minlength: larger (and negative) values are not counted, where NumPy would lengthen the result."""

    @kiln.function
    def f(x):
        return np.bincount(x, minlength=3)

    values = np.array([0, 1, 5, 1, 2, 7])
    np.testing.assert_array_equal(f(values), [1, 2, 1])
    assert len(f.python_function(values)) == 8  # plain NumPy


def test_array_subclasses_are_refused() -> None:
    """A masked array's mask (or np.matrix's `*`) would be lost on the compiled side, which sees
    only the data: such arguments are refused rather than computed on as plain arrays."""

    @kiln.function
    def f(x):
        return x * 2

    masked = np.ma.masked_array([1.0, 2.0], mask=[True, False])
    assert f.python_function(masked).mask[0]  # plain Python keeps the mask
    with pytest.raises(TypeError, match="argument 'x' is a numpy.ma.MaskedArray.*would lose its mask"):
        f(masked)
    np.testing.assert_array_equal(f(np.asarray(masked)), [2.0, 4.0])


def test_copyto_into_an_untraced_numpy_array_names_it() -> None:
    """kiln.fuzz 1132-5720: np.stack of Python numbers is a NumPy array, not a traced one."""
    @kiln.function
    def f(a):
        v = np.stack([1.25])
        np.copyto(v[:], a.sum())
        return v

    with pytest.raises(TypeError, match=r"test_footguns.py:\d+: np.copyto into a NumPy ndarray that is not one of the traced"):
        f(np.ones(3))


def test_a_traced_value_in_a_staged_error_message_is_known_only_at_run_time() -> None:
    """A `raise` (or `assert`) under a tensor condition fails when the call runs, but its message
    is made while tracing, where a traced value has none: it shows as its source text; the
    user's file:line:col is a note on the error."""

    @kiln.function
    def f(x):
        if x.sum() > 1:
            raise ValueError(f"sum {x.sum()} is too big")
        return x

    np.testing.assert_array_equal(f(np.zeros(3)), np.zeros(3))
    with pytest.raises(ValueError) as info:
        f(np.ones(3))
    assert str(info.value) == "sum <x.sum(), known only at run time> is too big"
    assert re.match(r"raised at .*test_footguns.py:\d+:\d+ ", info.value.__notes__[-1])


def test_python_effects_of_a_shared_callee_happen_once_per_signature() -> None:
    """A kiln.function called inside another is traced once per call signature and shared:
    Python state its body changes changes once per signature of the trace, not per call
    (eagerly, once per call)."""
    counted: list[int] = []

    @kiln.function
    def inner(x):
        counted.append(1)
        return x + 1

    @kiln.function
    def outer(x):
        return inner(inner(x)) + inner(x * 2)

    outer(np.ones(2))
    assert len(counted) == 1
    kiln.config.run_functions_eagerly(True)
    try:
        outer(np.ones(2))
    finally:
        kiln.config.run_functions_eagerly(False)
    assert len(counted) == 1 + 3
