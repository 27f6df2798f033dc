"""Comprehensions on traced values (issue 40, docs/python-semantics.md): a list comprehension over
an array or a long range stages as one loop (its element traced once, not once per row), nested
ones as nested loops; a filter on traced data keeps a mask, whose list has a length known only when
the call runs. Each function runs eagerly and compiled on copies of the same arguments, and the
results must match in type (a list stays a list, Python numbers stay Python numbers) and value."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from python_differential import differential

import kiln

RNG = np.random.default_rng(40)
X = RNG.normal(size=(12, 3))
Y = RNG.normal(size=(5, 3))
V = np.array([1.0, -2.0, 3.0, 0.5, -1.0, 4.0, -0.25])
NEGATIVE = -np.abs(V)  # a filter on `> 0` keeps nothing: Python's sum is the int 0, max raises


# ---------------------------------------------------------------------- staged as loops


def allpairs_distances(X, Y):
    return np.array([[np.sum((x - y) ** 2) for x in X] for y in Y])


def nested_lists(X, Y):
    return [[np.sum(x * y) for x in X] for y in Y]


def doubled(x):
    return [v * 2 for v in x]


def python_floats(x):
    return [float(v) for v in x], sum([float(v) for v in x])


def over_a_long_range(x):
    return [x[i] * i for i in range(len(x))], [i * i for i in range(len(x))]


def rows_of_a_matrix(X):
    return [r * 2 for r in X], np.array([r + 1 for r in X])


def folds_of_whole_lists(x):
    squares = [v * v for v in x]
    return len(squares), sum(squares), max(squares), min(v for v in x), any([v > 3 for v in x]), all(v > -3 for v in x)


def changed_afterwards(x):
    lst = [v + 1 for v in x]
    lst.append(0.5)
    lst[0] = -1.0
    return lst, len(lst), lst[-2]


def over_no_rows(x):
    lst = [v * 2 for v in x]
    return lst, len(lst), sum(lst), any(lst), all(v > 0 for v in x), np.array([v for v in x])


def largest_of_none(x):
    return max([v * 2 for v in x])


def squared_norm(x):
    return sum([v * v for v in x]) + np.sum(np.array([[a * b for a in x] for b in x]))


def arrays_of_the_list_are_new(x):
    lst = [v * 2 for v in x]
    a = np.asarray(lst)
    a[0] = 99.0
    b = np.array(lst)
    b[1] = 77.0
    return lst, a, b


def appended(r):
    lst = [v * 2 for v in r]
    lst.append(1.0)
    return lst


def lists_grown_in_a_helper(X):
    return [appended(r) for r in X]


def chosen_by_a_staged_if(x):
    lst = [v * 2 for v in x]
    if x[0] > 0:
        lst = [v * 3 for v in x]
    return lst


def read_in_loops(x):
    lst = [float(v) for v in x]
    s = 0.0
    for i in range(len(lst)):  # a staged loop: lst[i] at a traced index reads one row
        s = s + lst[i] * i
    for v in x:  # a staged loop reading the list made outside it
        s = s + lst[0] * v + len(lst)
    return s, lst[int(x[2])], lst


def rebuilt_in_a_loop(x):
    lst = [v * 2 for v in x]
    for k in range(10):
        lst = [v + k for v in lst]
    return lst


def test_allpairs_distances_is_one_loop_nest() -> None:
    f = differential(allpairs_distances, (X, Y), rtol=1e-12)
    ir = f.get_concrete_function(X, Y).ir
    # one traced element (one `x - y` of two rows), however many rows: the trace does not grow with them
    assert ir.count("graph.sub") == 1, ir
    bigger = (RNG.normal(size=(60, 3)), RNG.normal(size=(20, 3)))
    assert f.get_concrete_function(*bigger).ir.count("graph.sub") == 1
    np.testing.assert_allclose(f(*bigger), allpairs_distances(*bigger), rtol=1e-12)


def test_nested_comprehensions_return_lists_of_lists() -> None:
    differential(nested_lists, (X, Y), rtol=1e-12)


def test_elements_keep_their_kinds() -> None:
    differential(doubled, (V,), (V.astype(np.float32),), (np.arange(6),))
    differential(python_floats, (V,), rtol=1e-15)
    differential(over_a_long_range, (V,))
    differential(rows_of_a_matrix, (X,))


def test_a_staged_list_is_a_python_list() -> None:
    differential(folds_of_whole_lists, (V,), rtol=1e-15)
    differential(changed_afterwards, (V,))
    differential(arrays_of_the_list_are_new, (V,))
    differential(lists_grown_in_a_helper, (X,))
    differential(chosen_by_a_staged_if, (V,), (-V,))  # (merging two such lists failed)
    differential(read_in_loops, (V,))  # (lst[i] at a traced index failed; views made in a loop escaped it)
    differential(rebuilt_in_a_loop, (V,))  # (bound more than once: Python's list)  # (the stacked rows, without the appended 1.0, were taken)  # a write into np.asarray(lst) left the list changed
    differential(over_no_rows, (np.zeros(0),))  # sum of no elements is the int 0, as Python's
    differential(largest_of_none, (np.zeros(0),), errors=True)


def test_gradient_through_a_comprehension() -> None:
    x = np.array([0.5, -1.5, 2.0])
    np.testing.assert_allclose(kiln.grad(squared_norm)(x), 2 * x + 2 * np.sum(x), rtol=1e-12)


# ---------------------------------------------------------------------- filters on traced data


def sum_of_positives(x):
    return sum([v for v in x if v > 0])


def generator_sums(x):
    return sum(v * 2 for v in x if v > 0), sum((float(v) for v in x if v > 0), 0.5)


def count_of_positives(x):
    return len([v for v in x if v > 0])


def array_of_positives(x):
    return np.array([v * 2 for v in x if v > 0])


def mean_of_positives(x):
    return np.mean([v for v in x if v > 0])


def largest_positive(x):
    return max([v for v in x if v > 0])


def smallest_positive(x):
    return min(v for v in x if v > 0)


def truth_of_kept(x):
    return any([v > 2 for v in x if v > 0]), all(v > 0.75 for v in x if v > 0)


def positives(x):
    return [v for v in x if v > 0]


def kept_python_floats(x):
    return [float(v) * 2 for v in x if v > 0]


def guarded_read(x, a):
    # the element is evaluated only where the filter keeps it: no IndexError for the others
    return [a[int(v)] for v in x if v < 3]


def test_a_filter_on_traced_data_keeps_pythons_meaning() -> None:
    differential(sum_of_positives, (V,), (NEGATIVE,))  # np.float64, or the int 0
    differential(generator_sums, (V,), (NEGATIVE,))
    differential(count_of_positives, (V,), (NEGATIVE,))
    differential(array_of_positives, (V,), (NEGATIVE,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of nothing
        differential(mean_of_positives, (V,), (NEGATIVE,))
    differential(largest_positive, (V,), (NEGATIVE,), errors=True)  # max() of nothing: ValueError
    differential(smallest_positive, (V,), (NEGATIVE,), errors=True)
    differential(truth_of_kept, (V,), (NEGATIVE,))
    differential(positives, (V,), (NEGATIVE,))
    differential(kept_python_floats, (V,), (NEGATIVE,))
    differential(guarded_read, (np.array([0.0, 5.0, 2.0, 7.0]), np.array([10.0, 11.0, 12.0])))


def scaled_sums(x):
    return sum([v * 0.1 for v in x]), sum([v * 0.1 for v in x if v > 3.0], 0.5)


def python_float_sums(x):
    return sum([float(v) for v in x], np.float32(0.25)), sum([complex(v, 1.0) for v in x])


def sums_of_rows(X):
    return sum([r * 0.1 for r in X]), sum([r * 0.1 for r in X], 0.5)


def test_sum_adds_left_to_right_as_python_does() -> None:
    # magnitudes from 1e-3 to 1e8: a pairwise or vector sum differs from Python's in the last bits
    rng = np.random.default_rng(41)
    x = rng.random(45) * 10.0 ** rng.integers(-3, 9, 45)
    X = rng.normal(size=(33, 5)) * 10.0 ** rng.integers(-3, 9, (33, 1))
    differential(scaled_sums, (x,), (x[::-1].copy(),), (NEGATIVE,))
    differential(python_float_sums, (x,))
    differential(sums_of_rows, (X,))


def test_one_trace_for_every_kept_length() -> None:
    f = differential(positives, (V,), (NEGATIVE,), (np.abs(V),))
    assert f.tracing_count == 1


# ---------------------------------------------------------------------- over Python lists of traced numbers

# list arguments: a short one is one traced Python float per element, one of 64 or more is held as one
# array (list_arrays.HeldList); magnitudes from 1e-3 to 1e8, where only Python's left-to-right sum agrees
FLOATS = (RNG.random(40) * 10.0 ** RNG.integers(-3, 9, 40)).tolist()
OTHERS = (RNG.random(40) * 10.0 ** RNG.integers(-3, 9, 40)).tolist()
LONG = (RNG.random(70) * 10.0 ** RNG.integers(-3, 9, 70)).tolist()
INTS = RNG.integers(-9, 9, 40).tolist()


def scaled_kept(xs):
    return sum([x * 3 for x in xs if x > 0.2], 0.25)


def kept_floats(xs):
    return [x * 3 for x in xs if x > 50.0], len([x for x in xs if x > 0.5]), sum(x for x in xs if x < 1e3)


def kept_of_zip(xs, ys):
    return sum([x * y for x, y in zip(xs, ys) if x > y]), [x - y for x, y in zip(xs, ys)], min(x for x, y in zip(xs, ys) if y < x)


def kept_of_enumerate(xs):
    return sum([i * x for i, x in enumerate(xs) if x > 50.0]), max(i for i, x in enumerate(xs, 1) if x < 5.0)


def kept_ints(ns):
    return sum([n * 2 for n in ns if n % 3 == 1]), [n // 2 for n in ns if n > 4], any(n > 7 for n in ns)


def kept_of_a_short_list(xs):
    return [x for x in xs if x > 0.0], sum(x for x in xs if x > 0.0), sum([x * 2.0 for x in xs], 1)


def test_a_filter_over_a_list_of_python_numbers_stages_as_over_an_array() -> None:
    """A comprehension over a list argument's traced Python numbers of one type (the elements of a short
    list, or of one held as an array) stages as over an array of them: the filter keeps a mask, the
    elements stay Python numbers and ``sum`` adds them left to right from ``start``. Python's
    comprehension, unrolled, needed the truth value of a traced bool and was refused misleadingly."""
    f = differential(scaled_kept, (FLOATS,), ([-x for x in FLOATS],), (LONG,))  # (a float; 0.25 where none is kept)
    assert f.tracing_count == 2  # (40 and 70 numbers; values that keep other counts reuse the trace)
    differential(kept_floats, (FLOATS,), (LONG,))
    differential(kept_of_zip, (FLOATS, OTHERS), (LONG, LONG[::-1]))
    differential(kept_of_enumerate, (FLOATS,), (LONG,))
    differential(kept_ints, (INTS,))
    differential(kept_of_a_short_list, ([1.5, -2.0, 3.25],), ([-1.5],), ([2.5],))


# ---------------------------------------------------------------------- as Python runs them


def pairs(x):
    return [(v, v * 2) for v in x]


def sums_of_positives_by_row(X):
    # each sum is the int 0 where a row has no positive element: Python's loop keeps each one's type
    return [sum([v for v in r if v > 0]) for r in X]


def over_a_python_list(xs):
    return [v * 2 for v in xs], sum(v for v in xs)


def over_zip(X, Y):
    return [np.sum(a * b) for a, b in zip(X, Y)]


def short_range(x):
    return [x[i] for i in range(3)]


def after_a_walrus(x):
    return max(n := 2.0, 0.0), [v * n for v in x]


def normalized(a):
    a /= np.sum(a)
    return a


def after_a_call_that_writes(x):
    y = x * 1.0
    return normalized(y), [v * 2 for v in y], sum(v for v in y)


def halved(y, v):
    y[0] = y[0] * 0.5
    return v


def read_before_a_call_that_writes(x):
    y = x * 1.0
    return y[0], [halved(y, v) for v in x], y[0]


def filled_by_index(n, x):
    # lists made to be written (Pythran's mandel and guerre): Python's lists, written in loops
    out = [[0 for i in range(n)] for j in range(n)]
    az = [complex(0, 0) for i in range(8)]
    for i in range(n):
        for j in range(n):
            out[i][j] = int(x[i] * j) % 7
    for i in range(1, 4):
        az[i - 1] = float(i) * complex(x[i], 1.0)
    return out, az


def staged_python_complexes(x):
    return [complex(v, 1.0) for v in x]


def zero(n, m):
    return [[0 for row in range(n)] for col in range(m)]


def doubled_rows(x):
    out = [v * 2 for v in x]
    return out


def written_after_a_helper(x):
    # Pythran's matmul: a helper's comprehension, written by its caller
    m = zero(len(x), 3)
    d = doubled_rows(x)
    d[0] = -1.0
    for i in range(len(x)):
        m[i % 3][i] = x[i]
    return m, d


def if_expression_in_a_kept_list(a):
    # kiln.fuzz python 20400-306: a list that is not read whole runs as Python's comprehension, whose
    # `if` expression was left unconverted ("a call here needs the truth value")
    c = [a[i] if a[i] > 0.75 else -1.25 for i in range(3)]
    return [c, 1]


def short_circuits_in_a_kept_list(a):
    both = [a[i] > 0 and a[i] < 2.0 for i in range(3)]
    chained = [0.5 <= a[i] < 2.0 for i in range(3)]
    either = [a[i] or 7.0 for i in range(3)]
    return [both, chained, either]


def test_what_kiln_cannot_stack_runs_as_pythons_loop() -> None:
    differential(if_expression_in_a_kept_list, (V,), (NEGATIVE,))
    differential(short_circuits_in_a_kept_list, (V,), (np.array([0.0, 1.0, 3.0]),))
    differential(pairs, (V,))
    differential(over_a_python_list, ([1.0, 2.5, -3.0],))
    differential(over_zip, (X, X))
    differential(short_range, (V,))
    differential(after_a_walrus, (V,))
    differential(filled_by_index, (6, np.abs(V) * 3))  # (staged, out[i][j] = ... was lost: 0, not 10)
    differential(staged_python_complexes, (V,))
    differential(written_after_a_helper, (V,))  # ('StagedList' object does not support item assignment)  # (came back as np.complex128)
    differential(after_a_call_that_writes, (np.abs(V),), rtol=1e-15)
    differential(read_before_a_call_that_writes, (V,))  # (hoisted, y[0] was read after the writes)  # (hoisted, it read y before the write)  # (left in its statement: hoisted, it would read `n` before `:=` binds it)
    differential(sums_of_positives_by_row, (np.arange(12.0).reshape(6, 2) - 5,))


# ---------------------------------------------------------------------- refused, naming the line


def indexed_filtered(x):
    kept = [v for v in x if v > 0]
    return kept[0]


def float32_array_of_kept(x):
    return np.array([v for v in x if v > 0])


def filtered_short_range(x):
    return [x[i] for i in range(3) if x[i] > 0]


def changed_under_a_staged_if(x):
    lst = [v * 2 for v in x]
    if x[0] > 0:
        lst.append(1.0)
    return lst


def kept_of_a_mixed_list(xs):
    return [x for x in xs if x > 0]


def kept_then_joined(xs):
    return [x for x in xs if x > 0.5] + [1.0]  # (a list joined stays Python's: its filter needs a truth value)


def kept_rows_from_a_traced_start(X):
    return sum([r for r in X if r[0] > 0], np.zeros(3))


def filtered_by_kind(x):
    # each element is a NumPy float or the Python float 1.0 as the data says, and a filter keeps some
    return [x[i] if x[i] > 0.75 else 1.0 for i in range(len(x)) if x[i] > -1.5]


@pytest.mark.parametrize(
    ("fn", "args", "words"),
    [
        (indexed_filtered, (V,), "truth value of a traced"),  # (indexed: Python's list, as before)
        (float32_array_of_kept, (V.astype(np.float32),), "array of an empty list is float64"),
        (filtered_short_range, (V,), "runs over a short range"),
        (filtered_by_kind, (V,), "its elements are numbers whose type depends on the data"),
        (changed_under_a_staged_if, (V,), "changes the length of the Python list 'lst'"),
        (kept_of_a_mixed_list, ([1, 2.5, -3, 0.5, 4],), "its items are not traced Python numbers of one type"),
        (kept_rows_from_a_traced_start, (X,), "`sum` of it from a traced `start`"),
        (kept_then_joined, (FLOATS,), "a condition of this comprehension needs the truth value of a traced"),
    ],
    ids=["index", "float32-array", "short-range", "kinds", "changed-under-if", "mixed-list", "sum-start", "joined"],
)
def test_what_kiln_cannot_keep_is_refused_naming_the_line(fn, args, words) -> None:
    with pytest.raises((NotImplementedError, TypeError), match=words) as info:
        kiln.function(fn)(*args)
    line = fn.__code__.co_firstlineno + {filtered_by_kind: 2, changed_under_a_staged_if: 3}.get(fn, 1)
    assert f"test_comprehensions.py:{line}" in str(info.value)


# ---------------------------------------------------------------------- Python values stay Python's


def _no_divisor(n):
    return all(n % d != 0 for d in range(2, n))


def twin_pairs(limit):
    """Pairs (p - 2, p) of primes below ``limit``: a comprehension over a Python range whose filter
    folds another comprehension, all on Python ints (no array anywhere)."""
    return [[p - 2, p] for p in range(5, limit) if _no_divisor(p) and _no_divisor(p - 2)]


def scaled_by_count(x, k):
    counts = [i * i for i in range(k) if i % 3 != 1]  # Python ints only: Python's list
    return x * len(counts), counts


def test_a_comprehension_on_python_values_alone_stays_pythons() -> None:
    """Over a Python range, a comprehension that reaches no traced value runs as Python's (it adds
    nothing to the trace): its folds are Python bools and ints, its filter Python's; staging it made
    the fold a traced bool and refused the filtered list under it."""
    differential(twin_pairs, (60,))
    differential(scaled_by_count, (X[0], 40))
    assert kiln.function(twin_pairs)(60) == twin_pairs(60)


def truth_of_items_of_several_types(a):
    return (any(v if v > 2.0 else 0.75 > 0 for v in a if v > -0.5), all(v if v > 0.1 else 0 for v in a),
            any(v > 5 for v in a))


def test_any_and_all_of_items_whose_type_the_data_pick_read_their_truth() -> None:
    """``any``/``all`` of a generator whose items are a NumPy float on some rows and a Python bool or
    int on others (kiln.fuzz python 20815-1071): only each item's truth counts, so the fold is
    staged over ``bool(item)`` (was refused: "its elements are numbers whose type depends on the data")."""
    differential(truth_of_items_of_several_types, (np.array([-1.407, 1.540, -0.785, 0.865, 1.638, 0.636]),),
                 (np.array([-1.0, -0.7]),), (np.array([0.0, 3.0]),))


def test_the_hoister_runs_only_on_functions_with_comprehensions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A function without a comprehension skips the hoister (its walks of every statement were a
    tenth of converting a long function); one with a comprehension still gets it."""
    from kiln.frontend.autograph import code_cache
    from kiln.frontend.autograph.converters import comprehensions

    monkeypatch.setattr(code_cache, "load", lambda func, namespace: None)  # (converted now, not read from disk)
    ran: list[str] = []
    original = comprehensions._Hoister.body  # noqa: SLF001

    def body(self: object, stmts: list) -> list:
        ran.append("hoisted")
        return original(self, stmts)  # type: ignore[arg-type]

    monkeypatch.setattr(comprehensions._Hoister, "body", body)  # noqa: SLF001

    def plain(x: np.ndarray) -> np.ndarray:
        if np.sum(x) > 0:
            x = x * 2.0
        return x

    def listed(x: np.ndarray) -> np.ndarray:
        return np.array([np.sum(x[i]) for i in range(x.shape[0])])

    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(kiln.function(plain)(x), plain(x))
    assert not ran
    np.testing.assert_allclose(kiln.function(listed)(x), listed(x))
    assert ran
