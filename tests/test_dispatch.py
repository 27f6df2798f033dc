"""The native call path: every call the fast path takes gives what the slow path gives, every
call it cannot take still works, and a warm start in a new process compiles nothing."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend import pytree


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (np.ndarray, np.generic)):  # (a NumPy scalar where NumPy gives one, not a 0-d array)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def _both_paths(f: kiln.Function, *args: Any, **kwargs: Any) -> Any:
    """Call twice (the second may take the fast path), then check against eager NumPy."""
    first = f(*args, **kwargs)
    second = f(*args, **kwargs)
    kiln.config.run_functions_eagerly(True)
    try:
        eager = f(*args, **kwargs)
    finally:
        kiln.config.run_functions_eagerly(False)
    _same(first, second)
    got, tree = pytree.flatten(second)
    want, eager_tree = pytree.flatten(eager)
    assert tree == eager_tree
    for g, w in zip(got, want):
        assert type(g) is type(w)  # arrays, NumPy scalars and Python numbers as NumPy gives them
        np.testing.assert_allclose(g, w, rtol=1e-6)
    return second


@kiln.function
def axpy(a, x, y):
    return a * x + y


def test_exact_arrays_take_the_native_entry() -> None:
    x = np.arange(4, dtype=np.float32)
    out = _both_paths(axpy, x, x, x)
    np.testing.assert_array_equal(out, x * x + x)
    assert axpy._last_entry is not None and type(axpy._last_entry).__name__ == "Entry"


def test_wrong_dtype_retraces_and_is_converted_by_a_direct_concrete_call() -> None:
    @kiln.function
    def f(x):
        return x * 2

    f(np.ones(3, np.float32))
    out = _both_paths(f, np.ones(3, np.float64))
    assert out.dtype == np.float64 and f.tracing_count == 2
    cf = f.get_concrete_function(np.ones(3, np.float32))
    _same(cf(np.arange(3, dtype=np.int64)), np.arange(3, dtype=np.float32) * 2)
    _same(cf([1, 2, 3]), np.array([2, 4, 6], np.float32))
    with pytest.raises(TypeError):
        cf(np.ones(4, np.float32))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_non_contiguous_misaligned_and_subclass_arrays() -> None:
    @kiln.function
    def f(x):
        return x + 1

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    f(np.zeros((4, 3), np.float32))
    _same(f(x.T), x.T + 1)
    raw = np.zeros(4 * 12 + 1, np.uint8)[1:].view(np.float32).reshape(4, 3)
    assert not raw.flags.aligned
    raw[...] = x.T
    _same(f(raw), x.T + 1)
    with pytest.raises(TypeError, match="dtype"):  # unsupported, as on the slow path
        f(x.T.astype(">f4"))
    with pytest.raises(TypeError, match="numpy.matrix, a subclass"):  # refused on the fast path too
        f(np.matrix(x.T))


def test_0d_arrays_numpy_scalars_and_python_scalars() -> None:
    @kiln.function
    def f(x, k):
        return x * k

    _same(_both_paths(f, np.float32(3), 2), np.float32(6))
    _same(_both_paths(f, np.array(3, np.float32), 2), np.float32(6))  # a ufunc of 0-d arrays gives a scalar
    _same(_both_paths(f, np.ones(2), 3), np.full(2, 3.0))
    # a NumPy scalar is immutable and a 0-d array is not (`x += 1` writes only the array): two signatures
    assert f.tracing_count == 3
    _same(f(np.ones(2), 4), np.full(2, 4.0))
    assert f.tracing_count == 4


def test_numpy_scalar_is_not_written_but_0d_array_is() -> None:
    @kiln.function
    def f(x):
        x += 1
        return x * 2

    s, a = np.float64(3), np.array(3.0)
    _same(f(s), np.float64(8.0))
    assert s == 3
    _same(f(a), np.float64(8.0))
    assert a == 4
    _same(f(np.float64(5)), np.float64(12.0))


def test_lists_kwargs_nested_structures_and_several_outputs() -> None:
    @kiln.function
    def f(xs, scale=1.0, *, bias):
        s = xs[0] * scale + bias["b"]
        return {"sum": s, "parts": (xs[1] - 1, [s + 1])}

    x = np.arange(3, dtype=np.float32)
    out = _both_paths(f, [x, x], 2.0, bias={"b": x})
    assert list(out) == ["sum", "parts"] and isinstance(out["parts"][1], list)
    np.testing.assert_array_equal(out["sum"], x * 2 + x)

    @kiln.function
    def two(x, y):
        return x + y, x - y

    a, b = _both_paths(two, x, x + 1)
    np.testing.assert_array_equal(b, -np.ones(3, np.float32))
    _same(two(x, y=x), (x + x, x - x))

    @kiln.function
    def one_tuple(x):
        return (x + 1,)

    _same(one_tuple(x), (x + 1,))
    _same(one_tuple(x), (x + 1,))


def test_signatures_alternate_without_retracing() -> None:
    @kiln.function
    def f(x):
        return x - 1

    a, b = np.ones(2, np.float32), np.ones((2, 2), np.int32)
    for _ in range(3):
        _same(f(a), a - 1)
        _same(f(b), b - 1)
    assert f.tracing_count == 2


def test_input_signature_with_dynamic_dims() -> None:
    @kiln.function(input_signature=[kiln.TensorSpec([None, 2], "float64")])
    def f(x):
        return x.sum(axis=0) * 3  # dynamic results are not supported yet

    for n in (1, 5, 5, 2):
        _same(f(np.ones((n, 2))), np.full(2, 3.0 * n))
    assert f.tracing_count == 1
    with pytest.raises(TypeError, match="argument 0"):
        f(np.ones((2, 3)))


_WARM_SCRIPT = textwrap.dedent(
    """
    import numpy as np, kiln

    @kiln.function
    def f(x, y):
        return kiln.relu(x * y - 2) + x

    x = np.ones((3, 3), np.float32)
    print(float(f(x, x).sum()))
    print("lowered" if f.get_concrete_function(x, x)._lowered_module is not None else "not lowered")
    """
)


def test_warm_start_in_a_new_process_compiles_and_lowers_nothing(tmp_path: Path) -> None:
    log = tmp_path / "cc.log"
    cc = tmp_path / "cc"
    cc.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec cc "$@"\n')
    cc.chmod(0o755)
    script = tmp_path / "warm.py"
    script.write_text(_WARM_SCRIPT)
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "cache"), "CC": str(cc)}

    def run() -> list[str]:
        out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
        return out.stdout.split("\n")

    cold = run()
    compiles = [line for line in log.read_text().splitlines() if "--version" not in line]
    assert cold[:2] == ["9.0", "lowered"] and compiles
    log.write_text("")
    warm = run()
    assert warm[:2] == ["9.0", "not lowered"]
    assert [line for line in log.read_text().splitlines() if "--version" not in line] == []


def test_first_and_warm_calls_parse_no_assembly_format(tmp_path: Path) -> None:
    """The plan cache keys on the graph IR in generic form: neither a first call nor a warm
    start in a new process imports xDSL's assembly-format parser (nothing they do prints or
    parses IR in an op's custom form), and the warm start finds the first call's plan."""
    script = tmp_path / "formats.py"
    script.write_text(_WARM_SCRIPT + "import sys\nprint('xdsl.irdl.declarative_assembly_format_parser' in sys.modules)\n")
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "cache")}
    for lowered in ("lowered", "not lowered"):
        out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split("\n")[:3] == ["9.0", lowered, "False"]


def test_numpy_scalars_and_variables_stay_on_the_fast_path() -> None:
    """NumPy scalars (passed as 0-d arrays) and functions using Variables get a cached native
    entry: results stay right across calls, and the variable's state advances on every call."""
    import kiln

    @kiln.function
    def square_if_positive(x):
        if x > 0:
            x = x * x
        else:
            x = 0.0
        return x

    for value, want in ((3.0, 9.0), (-2.0, 0.0), (4.0, 16.0), (-1.0, 0.0)):
        got = square_if_positive(np.float32(value))
        # NumPy's kinds on each path: a float32 scalar, or the Python float 0.0
        assert got == want and type(got) is (np.float32 if value > 0 else float)
    assert square_if_positive.tracing_count == 1
    assert square_if_positive._last_entry is not None

    counter = kiln.Variable(np.int64(0))

    @kiln.function
    def bump(x):
        counter.assign_add(x)
        return counter.read_value()

    step = np.array(2, dtype=np.int64)
    assert [int(bump(step)) for _ in range(4)] == [2, 4, 6, 8]
    assert bump._last_entry is not None and counter.numpy() == 8
    assert bump.tracing_count == 1


def test_python_numbers_never_take_a_numpy_scalar_entry() -> None:
    """After a call with np.int64, a Python int is still a trace-time constant: it retraces
    (by value) and follows NumPy's weak typing, instead of reusing the tensor entry."""
    import kiln

    @kiln.function
    def scale(x):
        return x * np.float32(2.0)

    assert scale(np.int64(5)).dtype == np.float64
    out = scale(5)
    assert out == 10.0 and out.dtype == np.float32  # a Python int is weak: float32 * int -> float32
    assert scale.tracing_count == 2
    scale(6)
    assert scale.tracing_count == 3


def test_calls_before_the_entry_extension_exists_go_through_ctypes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first compile on a machine does not wait for the entry extension's build: until it
    is there, calls use a ctypes entry (same results), which is not kept for later calls."""
    from kiln.backends.c import pyext

    @kiln.function
    def affine(x, y):
        return x * 2.0 + y

    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)
    monkeypatch.setattr(pyext, "ready", lambda: False)
    interims = []
    for _ in range(3):
        np.testing.assert_array_equal(affine(x, y), x * 2.0 + y)
        assert affine._last_entry is None  # not kept by the function: the next call asks again
        interims.append(affine.get_concrete_function(x, y)._interim)
    assert interims[0] is not None and all(e is interims[0] for e in interims)  # made once
    monkeypatch.undo()
    np.testing.assert_array_equal(affine(x, y), x * 2.0 + y)
    assert type(affine._last_entry).__name__ == "Entry"
    assert affine.get_concrete_function(x, y)._interim is None
    assert affine.tracing_count == 1


class _Counter:
    """A Keras-style object: a decorated method and per-instance state."""

    def __init__(self, start: float) -> None:
        self.total = kiln.Variable(np.float32(start))

    @kiln.function
    def add(self, x):
        self.total.assign_add(x.sum())
        return x * 2.0 + self.total.read_value()


def test_bound_methods_have_a_per_instance_fast_path() -> None:
    """model.method(x) keeps a native entry per instance (methods used to take the slow path,
    ~70 us, on every call); each instance keeps its own state, and a dead instance's entry goes."""
    a, b = _Counter(0.0), _Counter(100.0)
    x = np.ones(3, np.float32)
    want_a = want_b = None
    for step in range(1, 4):
        got_a, got_b = a.add(x), b.add(x)
        want_a, want_b = x * 2.0 + 3.0 * step, x * 2.0 + 100.0 + 3.0 * step
        np.testing.assert_array_equal(got_a, want_a)
        np.testing.assert_array_equal(got_b, want_b)
    assert _Counter.add.tracing_count == 2  # one trace per instance
    assert set(_Counter.add._method_entries) == {id(a), id(b)}
    np.testing.assert_array_equal(a.add(np.ones(3, np.float64)), np.ones(3) * 2.0 + 12.0)  # another signature
    del a
    import gc

    gc.collect()
    assert set(_Counter.add._method_entries) == {id(b)}
    assert b.add.get_concrete_function(x).name == "add"
    assert b.add.__self__ is b and b.add.__name__ == "add" and b.add.python_function is _Counter.add.python_function
    assert list(inspect.signature(b.add).parameters) == ["x"]  # like a plain bound method


def test_numpy_scalars_are_passed_by_value_to_the_native_entry() -> None:
    @kiln.function
    def square_if_positive(x):
        return x * x if x > 0 else x * 0

    for value in (3.0, -2.0, 0.5):
        got = square_if_positive(np.float32(value))
        assert got.dtype == np.float32 and got == np.float32(value) * np.float32(value) * (value > 0)
    assert type(square_if_positive._last_entry).__name__ == "Form"  # native: no Python wrapper in between
    assert square_if_positive._last_entry(np.float32(4.0)) == 16.0
    assert square_if_positive._last_entry(np.asarray(np.float32(4.0))) is NotImplemented  # a 0-d array: another trace
    assert square_if_positive._last_entry(np.float64(4.0)) is NotImplemented  # another dtype
    assert square_if_positive._last_entry(4.0) is NotImplemented  # a Python float is a constant


def test_calls_with_containers_and_keywords_take_a_cached_entry() -> None:
    """Lists, tuples, dicts and keywords: the second call of a structure takes the cached leaf
    entry; Python constants inside are part of its key, other shapes/dtypes and list-of-number
    arguments take the full lookup; results keep their structure."""

    @kiln.function
    def f(xs, d, scale=1.0, flag=False):
        out = {"sum": (xs[0] + xs[1][0]) * scale, "pair": (d["a"] - 1, d["b"])}
        return out if not flag else (out["sum"], xs[1][1])

    a, b, c = np.arange(3.0), np.ones(3), np.full(3, 2.0)
    for scale, flag in [(1.0, False), (2.0, False), (2.0, True), (2, True)]:
        _both_paths(f, [a, (b, np.float64(3))], {"a": c, "b": a}, scale=scale, flag=flag)
    count = f.tracing_count
    _same(f([a, (b, np.float64(4))], {"a": c, "b": a}, scale=2, flag=True), ((a + b) * 2, np.float64(4.0)))
    assert f.tracing_count == count  # a new NumPy scalar value is an argument, not a constant
    _both_paths(f, [a.astype(np.float32), (b, 1.0)], {"a": c, "b": a})
    _both_paths(f, [[1.0, 2.0, 3.0], (b, 0.5)], {"a": c, "b": a})
    with pytest.raises(ValueError, match="could not be broadcast"):
        f([a[:2], (b, 1.0)], {"a": c, "b": a})  # shapes that do not broadcast: the full path traces and fails


def test_structured_calls_read_variables_current_values() -> None:
    v = kiln.Variable(np.ones(2))

    @kiln.function
    def f(xs, k=1.0):
        return xs[0] * v * k

    x = np.arange(2.0)
    _same(f([x], k=3.0), x * 3.0)
    v.assign(np.full(2, 5.0))
    _same(f([x], k=3.0), x * 15.0)


def _counting_slow_path(f: kiln.Function, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the calls of ``f`` that miss its hot path (kiln.Function._call)."""
    missed: list[int] = []
    slow = f._call

    def counted(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        missed.append(1)
        return slow(args, kwargs)

    monkeypatch.setattr(f, "_call", counted)
    return missed


def test_keyword_list_tuple_and_constant_calls_take_their_form_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keywords, lists and tuples of arrays and Python constants take the native entry of their
    call form (kiln.frontend.call_forms): after the first call of a form, no call of that form
    misses the hot path, and each gives what NumPy gives."""

    @kiln.function
    def scaled(x, scale=1.0):
        return x * scale

    @kiln.function
    def total(xs):
        return xs[0] + xs[1]

    @kiln.function
    def parts(x, *, bias):
        return {"sum": x + bias[0], "diff": (x - bias[1],)}  # a structured result: rebuilt after the form entry

    a, b = np.arange(4.0), np.ones(4)
    calls = [
        (scaled, (a,), {"scale": 2.0}),
        (scaled, (a, 3.0), {}),
        (total, ([a, b],), {}),
        (total, ((a, b),), {}),
        (parts, (a,), {"bias": [b, a]}),
        (scaled, (np.float64(2.0),), {"scale": 2.0}),
    ]
    for f, args, kwargs in calls:
        _both_paths(f, *args, **kwargs)
        missed = _counting_slow_path(f, monkeypatch)
        for _ in range(3):
            _same(f(*args, **kwargs), f.python_function(*args, **kwargs))
        assert missed == [], (f.__name__, args, kwargs)
        last = f._last_keywords if kwargs else f._last_entry
        assert last is not None
        monkeypatch.undo()
    assert type(scaled._last_keywords).__name__ == "Form"  # no Python wrapper in between
    assert type(total._last_entry).__name__ == "Form"


def test_form_entries_retrace_on_a_changed_keyword_length_or_number_type() -> None:
    """A call of another form misses the form entry and takes the Python path, which retraces
    exactly as before: a keyword's new value or type, a list's new length, a list changed in place."""

    @kiln.function
    def scaled(x, scale=1.0):
        return x * scale

    @kiln.function
    def total(xs):
        out = xs[0]
        for x in xs[1:]:
            out = out + x
        return out

    xi = np.arange(4)
    traced = [(2.0, 1), (2.0, 1), (3.0, 2), (3, 3), (True, 4), (1, 5), (3.0, 5), (-0.0, 6), (0.0, 7), (-0.0, 7),
              (float("nan"), 8), (float("nan"), 8), ("a", None)]
    for scale, count in traced:
        if count is None:
            with pytest.raises(TypeError):
                scaled(xi, scale=scale)
            continue
        got = _both_paths(scaled, xi, scale=scale)
        assert got.dtype == (xi * scale).dtype  # an int keeps an int array's dtype, a float does not
        assert scaled.tracing_count == count, scale
    np.testing.assert_array_equal(scaled(np.ones(2), scale=-0.0), [-0.0, -0.0])
    assert np.signbit(scaled(np.ones(2), scale=-0.0)).all() and not np.signbit(scaled(np.ones(2), scale=0.0)).any()
    _same(scaled(x=xi, scale=2.0), xi * 2.0)  # another form: keyword x
    _same(scaled(scale=2.0, x=xi), xi * 2.0)  # and keywords in another order

    a, b, c = np.ones(3), np.arange(3.0), np.full(3, 2.0)
    xs = [a, b]
    _same(_both_paths(total, xs), a + b)
    _same(_both_paths(total, [a, b, c]), a + b + c)
    assert total.tracing_count == 2
    xs[1] = np.arange(4.0)  # the same list, now of other shapes: retraced, not run on stale sizes
    with pytest.raises(ValueError, match="could not be broadcast"):
        total(xs)
    xs[0] = np.ones(4)
    _same(total(xs), np.ones(4) + np.arange(4.0))
    _same(total([a, b.astype(np.float32)]), a + b.astype(np.float32))  # another dtype
    _same(total((a, b)), a + b)  # a tuple is another form than a list


def test_form_entry_hits_between_traces_count_as_cache_hits() -> None:
    """Calls that the native form entry ran are recorded as cache hits when the next call misses
    it, as the Python path recorded them: no retracing warning, the reason names the last value."""
    import warnings

    from kiln.frontend.retracing import KilnRetracingWarning

    @kiln.function
    def f(x, k):
        return x * k

    a = np.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KilnRetracingWarning)
        for n in range(1, 9):
            _same(f(a, k=float(n)), a * n)
            _same(f(a, k=float(n)), a * n)  # the form entry's hit
    assert type(f._last_keywords).__name__ == "Form" and f.tracing_count == 8
    assert f.retrace_reasons[-1] == "argument `k`: value 7.0 → 8.0"


def test_input_signature_calls_with_python_values_keep_their_conversions() -> None:
    """With an input_signature a Python number or a list is converted to its tensor: such a call's
    form is not its trace's, so it keeps the structured path (a form entry was refused there)."""
    spec = kiln.TensorSpec([3], "float64")

    @kiln.function(input_signature=(spec, kiln.TensorSpec([], "float64")))
    def scaled(x, s):
        return x * s

    @kiln.function(input_signature=(kiln.TensorSpec([1, 3], "float64"),))
    def doubled(x):
        return x * 2

    a = np.arange(3.0)
    for _ in range(3):
        _same(scaled(a, 2.0), a * 2.0)
        _same(doubled([a]), np.array([a]) * 2)
    assert scaled.tracing_count == 1 and doubled.tracing_count == 1


def test_list_arguments_on_the_form_path_stay_the_callers_lists() -> None:
    """A function that changes its list argument takes the checked path (issue 40): the change
    reaches the caller's list on every call; one that only reads it gets the list itself."""

    @kiln.function
    def push(xs, x):
        xs.append(x + 1)
        return xs[0] * 2

    @kiln.function
    def read(xs):
        return xs[0] + 1 if isinstance(xs, list) else xs[0] - 1

    a = np.arange(3.0)
    for _ in range(3):
        xs = [a]
        _same(push(xs, a), a * 2)
        assert len(xs) == 2 and xs[0] is a
        np.testing.assert_array_equal(xs[1], a + 1)
    assert type(push._last_entry).__name__ != "Form"
    for _ in range(3):
        _same(read([a]), a + 1)
        _same(read((a,)), a - 1)


def test_a_form_entry_answers_not_implemented_for_any_other_form() -> None:
    """The native Form checks the call's structure and constants itself."""
    from kiln.backends.c import pyext
    from kiln.backends.targets import PART_ARRAY, PART_CONSTANT, PART_LIST, PART_SCALAR

    @kiln.function
    def f(x, y):
        return x + y

    a = np.ones(2)
    f(a, a)
    native = f.get_concrete_function(a, a)._native
    assert native is not None
    listed = pyext.call_form(native, 1, ("k",), ((PART_LIST, 2), (PART_CONSTANT, -0.0)), ())
    np.testing.assert_array_equal(listed([a, a], k=-0.0), a + a)
    for args, kwargs in [
        (([a, a],), {"k": 0.0}), (([a, a],), {"k": -0}), (([a, a],), {"j": -0.0}), (((a, a),), {"k": -0.0}),
        (([a],), {"k": -0.0}), (([a, a, a],), {"k": -0.0}), (([a, np.float64(1)],), {"k": -0.0}),
        (([a, a], -0.0), {}), (([a, a.astype(np.float32)],), {"k": -0.0}), (([a, a[::-1][::-1][:1]],), {"k": -0.0}),
    ]:
        assert listed(*args, **kwargs) is NotImplemented, (args, kwargs)
    nan = pyext.call_form(native, 2, (), ((PART_ARRAY, None), (PART_ARRAY, None)), ())
    assert nan(np.float64(1), a) is NotImplemented  # a NumPy scalar where the form has an array
    taking = pyext.call_form(native, 1, ("y",), ((PART_CONSTANT, float("nan")), (PART_ARRAY, None)), (a,))
    np.testing.assert_array_equal(taking(float("-nan"), y=a), a + a)  # any NaN is a NaN
    assert taking(1.0, y=a) is NotImplemented and taking(True, y=a) is NotImplemented
    scalar = pyext.call_form(native, 2, (), ((PART_SCALAR, None), (PART_ARRAY, None)), ())
    assert scalar(a, a) is NotImplemented  # an array where the form has a NumPy scalar
    with pytest.raises(ValueError, match="leaves"):
        pyext.call_form(native, 1, (), ((PART_LIST, 3),), ())


def test_function_call_is_native_once_an_entry_is_kept() -> None:
    """Once a native entry is kept, kiln.Function.__call__ is the entry extension's HotPath: the
    Python method's steps without its frame. Both give the same results and errors on every path
    (hot, structured, tracing, eager)."""
    from kiln.frontend.function import _PYTHON_CALL

    @kiln.function
    def f(x, y=None, scale=1.0):
        return x * scale if y is None else (x + y[0]) * scale

    a, b = np.arange(3.0), np.ones(3)
    f(a)
    assert type(kiln.Function.__call__).__name__ == "HotPath"
    assert f.__call__.__self__ is f  # a method, as the Python one
    calls = [((a,), {}), ((a,), {"scale": 2.0}), ((a, [b]), {}), ((a,), {"y": (b,), "scale": 3}), ((a, {0: b}), {})]
    for args, kwargs in calls:
        for _ in range(2):
            _same(f(*args, **kwargs), _PYTHON_CALL(f, *args, **kwargs))
        _both_paths(f, *args, **kwargs)
    for call in (f, lambda *args, **kwargs: _PYTHON_CALL(f, *args, **kwargs)):
        with pytest.raises(ValueError, match="could not be broadcast"):
            call(a, [np.ones(4)])
        with pytest.raises(TypeError):
            call(a, scale=[1, "x"])


def test_a_0d_argument_takes_only_the_trace_of_its_own_kind() -> None:
    """A 0-d array and a NumPy scalar are two traces, whose results NumPy may give as different
    kinds (``x.reshape(())`` is an array of an array, a NumPy scalar of a NumPy scalar); the hot
    path of one must not answer a call of the other, in either order, on every kind of entry
    (a native form entry; a Python check where the function returns its argument)."""

    def reshaped(x, y):
        return x.reshape(()), y * 2

    def same(x, y):
        return x, y * 2

    a, s, v = np.asarray(np.float32(2)), np.float32(2), np.arange(3.0)
    for fn in (reshaped, same):
        compiled = kiln.function(fn)
        for first, second in ((a, s), (s, a)):
            compiled.clear_cache()
            for x in (first, second, first, second):
                got, want = compiled(x, v), fn(x, v)
                assert [type(g) for g in got] == [type(w) for w in want], (fn.__name__, type(x))
                np.testing.assert_array_equal(got[0], want[0])
            assert compiled.cache_size() == 2  # one trace of each kind, each called twice


def test_a_bound_method_s_0d_argument_takes_only_the_trace_of_its_own_kind() -> None:
    """As for a function (above): a method's per-instance fast path answers only the kind of 0-d
    argument its trace was made with."""

    class Model:
        @kiln.function
        def reshaped(self, x):
            return x.reshape(())

    model, a, s = Model(), np.asarray(np.float32(2)), np.float32(2)
    for x in (a, s, a, s):
        got = model.reshaped(x)
        assert type(got) is type(x.reshape(())) and got == x
