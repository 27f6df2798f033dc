"""Loops on Python numbers stay loops, and kiln.functions call each other (issue 39).

A ``while`` whose test is on Python numbers runs a handful of iterations in
Python and stages the rest as a ``graph.while`` carrying those numbers as weak
scalars, so the traced program does not grow with the trip count. A loop that
must unroll says so once. A kiln.function (a ``kiln.grad`` function, a method)
called inside another is traced once per signature as a callee of its caller
(tests/test_function_calls.py has the details).
"""

from __future__ import annotations

import inspect
import time
import warnings

import numpy as np
import pytest

import kiln
from kiln.frontend.autograph.staging import KilnUnrollWarning
from kiln.frontend.clock_calls import KilnTraceTimeWarning


def _ops(fn: kiln.Function, *args: object) -> int:
    """How many lines the traced IR has: a proxy for how many ops were traced."""
    return len(fn.get_concrete_function(*args).ir.splitlines())


def _decay(n: int):
    def decay(x):
        i = 0
        while i < n:
            x = x * 0.99999 + 1e-6
            i += 1
        return x, i

    return decay


def test_while_on_python_counter_is_a_loop():
    x = np.linspace(0.0, 1.0, 5)
    small, large = kiln.function(_decay(10)), kiln.function(_decay(100_000))
    for fn in (small, large):
        got, count = fn(x)
        want, want_count = fn.python_function(x)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert type(count) is int and count == want_count
    assert "graph.while" in large.get_concrete_function(x).ir
    assert _ops(large, x) == _ops(small, x)  # the trace does not grow with the trip count


def test_while_on_python_counter_gradient_matches_finite_differences():
    n = 100_000

    def f(x):
        i = 0
        while i < n:
            x = x * 0.99999 + 1e-6
            i += 1
        return np.sum(x * x)

    x = np.array([0.5, 1.5])
    grad = kiln.grad(f)(x)
    eps = 1e-6
    numeric = [(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(grad, numeric, rtol=1e-6)


def test_while_on_python_float_counted_down_with_break():
    @kiln.function
    def f(x):
        t = 10.0
        k = 0
        while t > 0.0:
            x = x + t
            t -= 0.25
            k += 1
            if k > 30:
                break
        return x, t, k

    x = np.zeros(3)
    got, want = f(x), f.python_function(x)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:] == want[1:] and type(got[1]) is float and type(got[2]) is int
    assert "graph.while" in f.get_concrete_function(x).ir


def test_while_on_a_python_int_truth_value():
    @kiln.function
    def f(x):
        i = 50
        s = 0
        while i:
            s += x[i % 3]
            i -= 1
        return s, i

    x = np.arange(3.0)
    assert f(x) == f.python_function(x)


def test_while_computing_a_size_stays_python():
    """A loop that only computes Python numbers adds no ops: it runs in Python, its result a shape."""

    @kiln.function
    def f(x):
        k = 1
        while k < x.shape[0]:
            k *= 2
        return np.zeros(k) + x.sum()

    x = np.ones(100)
    np.testing.assert_array_equal(f(x), f.python_function(x))


def test_loop_that_must_unroll_says_so_once():
    @kiln.function
    def f(x):
        out = []
        i = 0
        while i < 100:
            out.append(x * i)
            i += 1
        return out[-1]

    with pytest.warns(KilnUnrollWarning, match=r"test_python_loops_and_calls.py:\d+: this `while` loop .* 64 iterations") as record:
        np.testing.assert_array_equal(f(np.ones(2)), np.full(2, 99.0))
    assert sum(issubclass(w.category, KilnUnrollWarning) for w in record) == 1



def test_a_short_loop_inside_another_says_so_once_its_copies_pass_64():
    """A 30-trip loop that must unroll, inside a 10-trip one: 300 copies of its body, though no
    one run of it reaches 64 (kiln.fuzz 20680-5878's shape: it said nothing while it unrolled)."""

    @kiln.function
    def f(x):
        out = []
        j = 0
        while j < 10:
            i = 0
            while i < 30:
                out.append(x * i)
                i += 1
            j += 1
        return out[-1] + len(out)

    with pytest.warns(KilnUnrollWarning, match=r"test_python_loops_and_calls.py:\d+: this `while` loop .* 64 iterations .*counting each run of the loops around it") as record:
        np.testing.assert_array_equal(f(np.ones(2)), np.full(2, 329.0))
    warned = [w for w in record if issubclass(w.category, KilnUnrollWarning)]
    lines, first = inspect.getsourcelines(f.python_function)
    inner = first + next(k for k, line in enumerate(lines) if "while i < 30" in line)
    assert len(warned) == 1 and f"py:{inner}:" in str(warned[0].message)

def _best_sum(xs, depth):
    """A recursive pure-Python search over a list argument: its loop cannot stage (the recursion
    sits inside it), so every level of the trace meets it unrolled."""
    if depth == 0:
        return 0
    best = 0
    for k in range(len(xs)):
        best = max(best, xs[k] + _best_sum(xs, depth - 1))
    return best


def test_a_loop_that_fails_to_stage_at_every_level_of_a_recursion_says_so_once():
    """Issue 40's recursive search (depth 3: the loop is met 21 times in one trace) said the same
    warning 21 times."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert kiln.function(_best_sum)([1, 2, 3, 4], 3) == _best_sum([1, 2, 3, 4], 3) == 12
    warned = [w for w in record if issubclass(w.category, KilnUnrollWarning)]
    assert len(warned) == 1 and "unrolled" in str(warned[0].message)


def _collect_each_step(x):
    """A Python-float ``while`` whose body builds a new list each step (kiln.fuzz 20600-1946's shape)."""
    t = 60.0
    y = x
    while t > 0.0:
        t -= 0.5
        if np.sum(y) > 0:
            kept = []
            kept.append(y * 0.5)
            y = kept[0] + 1.0
        else:
            y = y - 1.0
    return y


def test_a_list_the_body_builds_and_appends_to_keeps_the_loop_staged():
    """Appending to a list built in the same iteration changes nothing from outside the body, so
    the loop stages (it unrolled 120 times: 20600-1946 traced 46,667 graph ops and took 106 s)."""
    f = kiln.function(_collect_each_step)
    x = np.array([0.5, -0.25])
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnUnrollWarning)
        np.testing.assert_array_equal(f(x), _collect_each_step(x))
    assert _ops(f, x) < 300


def test_a_list_rebound_by_a_call_after_it_is_built_is_still_watched():
    """``kept = []`` and then a call that may rebind ``kept`` (a closure's ``nonlocal``): the append
    may write the outer list, so the loop runs as Python's and its appends all happen."""
    outer: list[float] = []

    def f(x):
        kept = None

        def swap():
            nonlocal kept
            kept = outer

        t = 10.0
        while t > 0.0:
            t -= 1.0
            kept = []
            swap()
            kept.append(t)
        return x + len(outer)

    x = np.zeros(2)
    expected = f(x)
    assert len(outer) == 10
    outer.clear()
    np.testing.assert_array_equal(kiln.function(f)(x), expected)
    assert len(outer) == 10


def test_a_list_built_on_one_path_only_is_not_fresh():
    """``acc = []`` under a Python ``if`` is not built on every path: the append may write the list from
    before the loop, so the loop runs as Python's."""

    def f(x, flag):
        acc = [x]
        i = 0
        while i < 10:
            i += 1
            acc = [] if flag else acc
            acc.append(x * i)
        return acc[-1] + len(acc)

    x = np.ones(2)
    for flag in (True, False):
        np.testing.assert_array_equal(kiln.function(f)(x, flag), f(x, flag))


def test_short_while_on_python_counter_does_not_warn():
    @kiln.function
    def f(x):
        i = 0
        while i < 3:
            x = x + i
            i += 1
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnUnrollWarning)
        np.testing.assert_array_equal(f(np.zeros(2)), np.full(2, 3.0))


@kiln.function
def _affine(x, k=2):
    return x * k + 1


def test_kiln_function_calls_kiln_function():
    @kiln.function
    def outer(x):
        return _affine(x) + _affine(x * 3, 3)

    x = np.arange(4.0)
    got = outer(x)
    assert _affine.tracing_count == 0  # traced as its caller's callee, not compiled on its own
    np.testing.assert_array_equal(got, outer.python_function(x))


def test_gradient_flows_through_a_call():
    @kiln.function
    def outer(x):
        return np.sum(_affine(x) ** 2)

    x = np.arange(3.0)
    np.testing.assert_allclose(kiln.grad(outer)(x), 2 * (2 * x + 1) * 2)


def test_grad_function_called_inside_a_kiln_function():
    @kiln.function
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    g = kiln.grad(loss)

    @kiln.function
    def step(w, x):
        return w - 0.1 * g(w, x)

    rng = np.random.default_rng(0)
    w, x = rng.random((3, 2)), rng.random((4, 3))
    np.testing.assert_allclose(step(w, x), w - 0.1 * g(w, x), rtol=1e-12)


def test_methods_calling_methods_keep_variable_order():
    class Model:
        def __init__(self) -> None:
            self.v = kiln.Variable(np.ones(3))

        @kiln.function
        def outer(self, x):
            return self.inner(x) * 2

        @kiln.function
        def inner(self, x):
            self.v.assign_add(x)
            return self.v.read_value() + 1

    m = Model()
    np.testing.assert_array_equal(m.outer(np.ones(3)), np.full(3, 6.0))
    np.testing.assert_array_equal(m.outer(np.ones(3)), np.full(3, 8.0))


def test_recursion_on_python_values_is_traced():
    @kiln.function
    def power(n, x):
        return x if n == 0 else power(n - 1, x * 2)

    @kiln.function
    def f(x):
        return power(5, x)

    np.testing.assert_array_equal(f(np.ones(2)), np.full(2, 32.0))


def test_recursion_on_traced_values_is_refused_at_its_line():
    @kiln.function
    def down(x):
        if np.sum(x) > 0:
            return down(x - 1)
        return x

    with pytest.raises(RecursionError, match=r"test_python_loops_and_calls.py:\d+:\d+: kiln.function down calls itself"):
        down(np.ones(2))


def _counted(use):
    def f(x):
        n = 0
        while n < 10:
            x = x * 2
            n += 1
        return use(x, n)

    return f


@pytest.mark.parametrize(
    "use",
    [
        lambda x, n: x[:n],
        lambda x, n: np.zeros(n) + x.sum(),
        lambda x, n: x + [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12][n],
        lambda x, n: x.reshape(n, -1),
    ],
    ids=["slice", "zeros", "list-index", "reshape"],
)
def test_counter_after_staged_while_is_a_python_number(use):
    """The counter's trajectory depends on nothing but Python numbers: it leaves the loop as one."""
    f = kiln.function(_counted(use))
    x = np.ones(20)
    np.testing.assert_array_equal(f(x), f.python_function(x))
    assert "graph.while" in f.get_concrete_function(x).ir


def test_counters_after_staged_range_are_python_numbers():
    @kiln.function
    def f(x):
        c = 0
        for i in range(100):
            x = x * 1.001
            c += 2
        return x[: c // 20], i, c

    x = np.ones(50)
    got, want = f(x), f.python_function(x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1:] == want[1:] and all(type(v) is int for v in got[1:])


def test_counter_decided_by_array_data_stays_traced():
    @kiln.function
    def f(x):
        n = 0
        while x.sum() < 100 and n < 50:
            x = x * 2
            n += 1
        return x, n

    for x in (np.ones(2), np.full(2, 0.01), np.full(2, 200.0)):
        got, want = f(x), f.python_function(x)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1] and type(got[1]) is int
    assert f.tracing_count == 1


def _weights(n: int, seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [rng.random((4, 4)) * 0.3 for _ in range(n)], [rng.random(4) for _ in range(n)]


def test_loop_over_a_list_of_arrays_is_a_loop():
    def mlp(x, ws, bs):
        for w, b in zip(ws, bs):
            x = np.tanh(x @ w + b)
        return x

    f = kiln.function(mlp)
    x = np.linspace(0.0, 1.0, 4)
    small, large = _weights(8), _weights(40, seed=1)
    for ws, bs in (small, large):
        np.testing.assert_allclose(f(x, ws, bs), mlp(x, ws, bs), rtol=1e-12)
    ir = f.get_concrete_function(x, *large).ir
    assert "graph.while" in ir and ir.count("graph.matmul") == 1  # one body, not 40


def test_enumerate_over_a_tuple_of_arrays():
    def f(x, ws):
        s = 0.0
        for i, w in enumerate(ws):
            s += i * w.sum()
            x = x + w[0]
        return x, s

    x, ws = np.zeros(4), tuple(_weights(12)[0])
    got, want = kiln.function(f)(x, ws), f(x, ws)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1] == pytest.approx(want[1], rel=1e-12) and type(got[1]) is type(want[1])


def test_loop_writing_the_list_arrays_writes_them():
    """A row of the stack would be a copy: a body that writes its item runs as Python's loop."""

    def f(ws):
        for w in ws:
            w += 1.0
            w[0] = w.sum()
        return ws[0].sum()

    compiled, eager = _weights(10)[0], _weights(10)[0]
    assert kiln.function(f)(compiled) == pytest.approx(f(eager), rel=1e-12)
    for a, b in zip(compiled, eager):
        np.testing.assert_allclose(a, b, rtol=1e-12)  # (sums may round in another order)


def test_loop_over_arrays_of_different_shapes_unrolls():
    def f(x, ws):
        for w in ws:
            x = x + w.sum()
        return x

    ws = [np.ones(k) for k in range(1, 9)]
    np.testing.assert_array_equal(kiln.function(f)(np.zeros(2), ws), f(np.zeros(2), ws))


_COEFFICIENTS = [0.1 * i for i in range(30)]


def test_loop_over_a_list_of_python_numbers_is_a_loop():
    @kiln.function
    def horner(x):
        acc = np.zeros_like(x)
        for c in _COEFFICIENTS:
            acc = acc * x + c
        return acc

    x = np.linspace(0.0, 1.0, 5, dtype=np.float32)
    got, want = horner(x), horner.python_function(x)
    assert got.dtype == want.dtype == np.float32  # each c is a Python float: weak
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert "graph.while" in horner.get_concrete_function(x).ir


def test_loop_over_numbers_used_as_sizes_runs_as_python():
    @kiln.function
    def f(x):
        for n in [1, 2, 3, 5, 8, 13]:
            x = x + np.ones(n).sum()
        return x

    np.testing.assert_array_equal(f(np.zeros(2)), np.full(2, 32.0))


def test_a_zip_the_loop_runs_over_ends_used_up():
    def f(x, ws):
        pairs = zip(ws, ws)
        for a, b in pairs:
            x = x + (a * b).sum(axis=0)
        return x, len(list(pairs))

    x, ws = np.zeros(4), _weights(8)[0]
    got, want = kiln.function(f)(x, ws), f(x, ws)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1] == want[1] == 0
    assert "graph.while" in kiln.function(f).get_concrete_function(x, ws).ir


def _clashes(a, b, rows, cols):
    """Whether a piece at (a, b) shares a row, column or diagonal with one already placed."""
    for k in range(len(rows)):
        if a == rows[k] or b == cols[k] or abs(a - rows[k]) == abs(b - cols[k]):
            return True
    return False


def _place(n, rows, cols):
    if n == 0:
        return True
    for a in range(3):
        for b in range(3):
            if not _clashes(a, b, rows, cols):
                rows.append(a)
                cols.append(b)
                if _place(n - 1, rows, cols):
                    return True
                rows.pop()
                cols.pop()
    return False


def placements(x, n):
    rows, cols = [], []
    found = _place(n, rows, cols)
    return found, rows, cols, x * len(rows)


@pytest.mark.parametrize("n", [2, 3])
def test_recursive_search_on_python_values_keeps_python_flags(n):
    """A search whose loops, flags and lists are Python's only (queens_numba's `solve`): the early
    `return True` of a scan that nests past the unroll budget is staged, but its flag, decided by
    Python numbers only (list reads at the staged index among them), is a Python bool again after
    the loop, so the caller's `if` and the appends under it stay Python's (they were refused as
    list appends under a staged `if`), and the dead loop leaves nothing in the trace."""
    f = kiln.function(placements)
    x = np.arange(3.0)
    got, want = f(x, n), f.python_function(x, n)
    assert got[:3] == want[:3] and type(got[0]) is bool
    np.testing.assert_array_equal(got[3], want[3])
    assert "graph.while" not in f.get_concrete_function(x, n).ir


def _escape_count(zr, zi, cr, ci):
    n = 0
    while zr * zr + zi * zi < 4.0 and n < 50:
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        n += 1
    return n


def escape_grid(cr, ci, size):
    counts = np.zeros((size, size), np.int32)
    grid = np.linspace(-1.5, 1.5, size)  # Python numbers only: an array known while tracing
    for i, x in enumerate(grid):
        for j, y in enumerate(grid):
            counts[i, j] = _escape_count(x, y, cr, ci)
    return counts


def weighted_rows(a, b):
    s = 0.0
    for i, (v, w) in enumerate(zip(a, b)):
        s += v * w.sum() - i
        b[i, 0] = 2.0 * i  # a write into the array the loop reads rows of, as NumPy's iteration sees it
    return s, type(i).__name__


def test_enumerate_and_zip_over_array_rows_are_loops():
    """`for i, x in enumerate(a)` (julia_pure_python's loops over `np.linspace` of Python numbers)
    and `zip` of rows stage as loops over the rows, as `for x in a` does: they ran unrolled, N * N
    copies of the staged `while` (68 s for 20 x 20), with no warning. Items are views of the live
    rows (a write into a later row is seen) and enumerate's counts Python ints."""
    f = kiln.function(escape_grid)
    np.testing.assert_array_equal(f(-0.4, 0.6, 12), escape_grid(-0.4, 0.6, 12))
    assert f(-0.4, 0.6, 12).dtype == np.int32
    assert _ops(f, -0.4, 0.6, 12) == _ops(f, -0.4, 0.6, 24)  # the trace does not grow with the rows

    a, b = np.linspace(0.0, 1.0, 9), np.ones((9, 3))
    b_eager = b.copy()
    got, want = kiln.function(weighted_rows)(a, b), weighted_rows(a, b_eager)
    assert got[0] == pytest.approx(want[0], rel=1e-12) and type(got[0]) is type(want[0]) and got[1] == want[1]
    np.testing.assert_array_equal(b, b_eager)
    assert kiln.function(weighted_rows).get_concrete_function(a, b).ir.count("graph.while") == 1


def timed_sum(x):
    t0 = time.perf_counter()
    s = x.sum()
    t1 = time.perf_counter()
    return s, t1 - t0


def test_a_clock_read_warns_once_naming_its_line():
    """`time()` in a kiln.function runs while tracing (julia_pure_python returns `time() - t0`):
    not a wrong answer kiln can check, but not a silent one: each line warns once per trace."""
    with pytest.warns(KilnTraceTimeWarning) as caught:
        got = kiln.function(timed_sum)(np.ones(3))
    lines = sorted(w.message.args[0].split(": ")[0] for w in caught if w.category is KilnTraceTimeWarning)
    first = inspect.getsourcelines(timed_sum)[1]
    assert [line.rsplit(":", 2)[1] for line in lines] == [str(first + 1), str(first + 3)]
    assert "runs once, while tracing" in str(caught[0].message)
    assert got[0] == 3.0 and type(got[1]) is float
