"""The abstract value of a traced value, and how a staged ``if`` joins the paths' (docs/frontend.md)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln.frontend.abstract_value import PLAIN, AbstractValue, abstract_of, join_paths


def test_abstract_of_python_and_numpy_values():
    assert abstract_of(3) == AbstractValue(weak=True, scalar=True)
    assert abstract_of(2.5) == AbstractValue(weak=True, scalar=True)
    assert abstract_of(True) == AbstractValue(scalar=True)  # a bool promotes as NumPy's bool
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


def _merged(c, x):
    if c.sum() > 0:
        y = np.broadcast_to(x, (2, 3))
    else:
        y = np.broadcast_to(x * 2, (2, 3))
    y[0, 0] = 5.0
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_read_only_on_both_paths_stays_read_only(sign):
    f = kiln.function(_merged)
    c, x = np.full(2, sign), np.arange(3.0)
    with pytest.raises(ValueError, match="read-only"):
        _merged(c, x)
    with pytest.raises(ValueError, match="read-only"):
        f(c, x)


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
