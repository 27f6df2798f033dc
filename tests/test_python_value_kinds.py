"""Python values keep their Python kinds through methods, builtins, returns and writes (issue 40,
docs/python-semantics.md): each function runs eagerly and compiled on copies of the same arguments,
results and arguments compared with their types (a Python complex is not a NumPy complex128)."""

from __future__ import annotations

import inspect

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


def bits(xs):
    return xs[0].bit_length()


def test_python_errors_of_number_methods() -> None:
    with pytest.raises(TypeError, match="type complex doesn't define __round__ method"):
        kiln.function(rounded_complex)([complex(1, 2)])
    with pytest.raises(AttributeError, match=r"test_python_value_kinds.py:\d+:\d+: 'int' object has no attribute 'is_integer'"):
        kiln.function(float_is_integer)([2, 1], np.array([3.0]))
    with pytest.raises(AttributeError, match=r"test_python_value_kinds.py:\d+:\d+: int.bit_length of a traced Python number is not supported"):
        kiln.function(bits)([5])


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
    if_at, none_at, tuple_at = lines["    if best == 0:"], lines["        return"], lines["    return best, abs(xs[best])"]
    with pytest.raises(TypeError, match=rf"^\S+test_python_value_kinds.py:{if_at}: the function returns "
                                        rf"(a tuple of 2 items at \S+:{tuple_at} on one path and None at \S+:{none_at}"
                                        rf"|None at \S+:{none_at} on one path and a tuple of 2 items at \S+:{tuple_at}) on another"):
        kiln.function(largest_unless_first)([complex(1, 2), complex(3, 4)])


def first_where(seq, pred):
    for i, v in enumerate(seq):
        if pred(v):
            return i
    return None


def first_above(xs, t):
    return first_where(np.cumsum(xs), lambda u: t < u)


def test_an_index_or_none_from_a_staged_loop_is_refused_naming_the_if_and_both_returns() -> None:
    """A helper's early `return i` under an `if` on data in a loop, `return None` after it: the
    message names the user's `if` (not the guard AutoGraph puts on the final `return`) and both returns."""
    source, first = inspect.getsourcelines(first_where)
    at = {line.strip(): first + n for n, line in enumerate(source)}
    with pytest.raises(TypeError, match=rf"^\S+test_python_value_kinds.py:{at['if pred(v):']}: the function returns "
                                        rf"None at \S+:{at['return None']} on one path and an int64 tensor of shape \(\) "
                                        rf"at \S+:{at['return i']} on another"):
        kiln.function(first_above)(np.array([0.5, 1.0, 2.0]), 1.2)


# ---------------------------------------------------------------------- an int on one path, a complex on the other


def _unit_or_zero(z):
    if abs(z) < 1e-6:
        return 0  # the Python int 0 on this path
    return z / abs(z)  # a NumPy complex128 on this one


def clipped(z, top):
    out = np.empty(z.shape, dtype=z.dtype)
    for i in range(len(z)):
        if abs(z[i]) > top:
            out[i] = _unit_or_zero(z[i]) * top
        else:
            out[i] = z[i]
    return out


def scaled_unit(z, top):
    return _unit_or_zero(z[0]) * top, -(_unit_or_zero(z[1]) * top) + 1.0


def divided_unit(z, top):
    return _unit_or_zero(z[0]) / top


def test_a_python_float_on_one_path_and_a_complex_on_the_other() -> None:
    """``0 * s`` is a Python float where the helper returned 0, a complex128 where it returned a
    NumPy complex: computed as complex128 (exact for the float, whose kind the result keeps), the
    value written into a complex array and the one returned are Python's on every path."""
    z = np.array([0, 3 + 4j, 0.2, -1j, 2])
    differential(clipped, (z, 0.5), (z[::2].copy(), 0.5))
    differential(scaled_unit, (np.array([0j, 0j]), 0.5), (np.array([3 + 4j, 1j]), 2.0), (np.array([0j, -1j]), 1.5))


def test_an_operator_not_exact_in_complex_stays_refused() -> None:
    """``/`` of a Python float computed in complex128 is not the float's own division, and complex64
    does not hold a Python float: refused naming the line, as before."""
    with pytest.raises(NotImplementedError, match=r"test_python_value_kinds.py:\d+:\d+: the dtype of np.divide depends on the path"):
        kiln.function(divided_unit)(np.array([3 + 4j]), 0.5)
    with pytest.raises(NotImplementedError, match=r"the dtype of np.multiply depends on the path .* complex64 or float64"):
        kiln.function(scaled_unit)(np.array([3 + 4j, 1j], dtype=np.complex64), 0.5)


# ---------------------------------------------------------------------- a selection as an index


def _unit_or_zero_of_array(x, eps=1e-6):
    out = np.empty(shape=x.shape, dtype=x.dtype)
    small = np.abs(x) < eps
    out[small] = 0
    rest = np.logical_not(small)
    out[rest] = x[rest] / np.abs(x[rest])
    return out


def clipped_by_masks(z, top):
    far = np.abs(z) > top
    z[far] = _unit_or_zero_of_array(z[far]) * top
    return z


def selected_by_a_selection(x):
    y = x[x > 0]
    return y[y > 2].sum(), np.abs(y)[np.abs(y) < 3].sum()


def test_a_selection_used_as_a_mask_is_the_array_of_its_values() -> None:
    """``out[np.abs(x) < e]`` where ``x`` is ``z[far]``: the mask is the selection's values, of a
    length known only at run time, as in NumPy; kiln refused it as a mask 'with other index items'."""
    z = np.array([0, 3 + 4j, 0.2, -1j, 2, 1e-9 + 1j])
    differential(clipped_by_masks, (z, 0.5), (z[2::4].copy(), 0.5), (np.zeros(0, complex), 0.5), (z, 10.0))
    differential(selected_by_a_selection, (np.array([1.0, -2.0, 3.0, 5.0]),), (np.array([-1.0]),))


def rows_where_first_positive(x):
    m = x[:, 0] > 0
    return x[m, 1].sum(), x[m, 1:].sum(axis=0), x[1, x[1] > 0].sum(), x[m, ...].sum(), len(x[m, 0])


def written_where_first_positive(x):
    m = x[:, 0] > 0
    x[m, 1] = -1.0
    x[m, 2:] += 10.0
    x[0, x[0] > 5] = 0.0
    x[m, 0] = x[m, 3] * 2
    return x


def mask_after_a_slice(x):
    return x[:, x[0] > 0]


def test_a_mask_with_integers_and_slices_as_numpy_indexes() -> None:
    """``x[mask, j]``, ``x[mask, 1:]``, ``x[i, mask]``: the mask on the leading axes of the view the
    other items make, read and written as NumPy does; a mask after a slice stays refused."""
    x = np.array([[1.0, 2, 3, 4], [-1, 5, 6, 7], [2, 8, 9, 10]])
    differential(rows_where_first_positive, (x,), (-x,))
    differential(written_where_first_positive, (x,), (-x,), (x[:, ::-1].copy(),))
    with pytest.raises(NotImplementedError, match=r"test_python_value_kinds.py:\d+: a traced boolean mask together with other index items"):
        kiln.function(mask_after_a_slice)(x)
