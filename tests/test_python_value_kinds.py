"""Python values keep their Python kinds through methods, builtins, returns and writes (issue 40,
docs/python-semantics.md): each function runs eagerly and compiled on copies of the same arguments,
results and arguments compared with their types (a Python complex is not a NumPy complex128)."""

from __future__ import annotations

import numpy as np
import pytest
from python_differential import differential

import kiln

# ---------------------------------------------------------------------- methods of list numbers


def conjugated_dot(n, xs, ys):
    acc = complex(0.0, 0.0)
    for i in range(n):
        acc = acc + xs[i].conjugate() * ys[i]
    return acc


def number_parts(xs):
    x = xs[0]
    return x.real, x.imag, x.conjugate(), abs(x), x.conjugate().real * 2, -x.imag


def float_is_integer(xs, a):
    return xs[0].is_integer(), xs[1].is_integer(), a[0].is_integer(), (xs[0] * 0.5).is_integer()


def parts_of_a_number_of_path_dependent_kind(x):
    c = 0
    if x[0] > 0:
        c = x[1]
    return c.real, c.imag, c.conjugate()


def test_methods_of_list_numbers_give_python_numbers() -> None:
    """``.conjugate()``, ``.real``, ``.imag`` of a list's number are Python numbers of Python's
    types (a complex's parts are floats, a bool's ints); kiln gave NumPy scalars."""
    zs = [complex(1, 2), complex(2, 3), complex(-3, 4)]
    differential(conjugated_dot, (3, zs, [complex(3, 4), complex(1, -2), complex(0.5, 3)]), (0, zs, zs))
    for xs in ([complex(3, -4)], [2.5], [-3], [True]):
        differential(number_parts, (xs,))
    differential(float_is_integer, ([2.0, 1.5], np.array([3.0])), ([float("inf"), float("nan")], np.array([0.5])))
    differential(parts_of_a_number_of_path_dependent_kind, (np.array([1.0, 2.5]),), (np.array([-1.0, 2.5]),))


def rounded_complex(xs):
    return round(xs[0])


def test_python_errors_of_number_methods() -> None:
    with pytest.raises(TypeError, match="type complex doesn't define __round__ method"):
        kiln.function(rounded_complex)([complex(1, 2)])
    with pytest.raises(AttributeError, match=r"test_python_value_kinds.py:\d+:\d+: 'int' object has no attribute 'is_integer'"):
        kiln.function(float_is_integer)([2, 1], np.array([3.0]))


# ---------------------------------------------------------------------- sets


def signatures_seen(n, k):
    seen = set()
    count = 0
    perm = list(range(k))
    for i in range(n):
        perm = perm[1:] + perm[:1]
        sig = tuple(perm)
        if sig not in seen:
            seen.add(sig)
            count += 1
    return seen, count, frozenset(seen)


def set_of_traced_values(x):
    return {x[0] * 2, 1.0}


def set_of_traced_tuples(xs):
    found = set()
    found.add((xs[0], 1))
    return found


def test_a_set_of_values_known_while_tracing_is_returned() -> None:
    """A set of Python values the trace knows is the result, a set of each call's own."""
    differential(signatures_seen, (5, 3), (0, 2))
    compiled = kiln.function(signatures_seen)
    first = compiled(4, 3)[0]
    first.add("changed by the caller")
    assert "changed by the caller" not in compiled(4, 3)[0]


def test_a_set_holding_traced_values_is_refused_naming_the_line() -> None:
    """A traced value is unhashable (as an array is), so no set holds one: refused where it is put in."""
    with pytest.raises(TypeError, match=r"test_python_value_kinds.py:\d+: unhashable type"):
        kiln.function(set_of_traced_values)(np.arange(3.0))
    with pytest.raises(TypeError, match=r"test_python_value_kinds.py:\d+: unhashable type"):
        kiln.function(set_of_traced_tuples)([1.5, 2.5])


# ---------------------------------------------------------------------- returns of two kinds


def largest_unless_first(xs):
    best = 0
    for j in range(1, len(xs)):
        if abs(xs[j]) > abs(xs[best]):
            best = j
    if best == 0:
        return
    return best, abs(xs[best])


def test_none_or_a_tuple_by_run_time_data_is_refused_naming_both_returns() -> None:
    """Which ``return`` runs is known only per call (as for AutoGraph's ``tf.cond``, whose branches
    must return one structure): refused, naming both ``return`` lines, not the structure's name."""
    lines = {line: n for n, line in enumerate(open(__file__).read().splitlines(), 1)}
    none_at, tuple_at = lines["        return"], lines["    return best, abs(xs[best])"]
    with pytest.raises(TypeError, match=rf"the function returns (a tuple of 2 items at \S+:{tuple_at} on one path and None at \S+:{none_at}"
                                        rf"|None at \S+:{none_at} on one path and a tuple of 2 items at \S+:{tuple_at}) on another"):
        kiln.function(largest_unless_first)([complex(1, 2), complex(3, 4)])
