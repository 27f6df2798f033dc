"""AutoGraph conversion: converted code behaves exactly like the original on Python values and NumPy arrays."""

from __future__ import annotations

import ast
import collections
import json
import sys
import traceback
from typing import Any

import numpy as np
import pytest

import kiln
from kiln.frontend.autograph import conversion_info, convert, staging, to_code
from kiln.frontend.autograph.operators import Undefined
from kiln.frontend.tensor import Tensor

# ---------------------------------------------------------------------------- corpus


def nested_ifs(x: int, y: int) -> int:
    if x > 0:
        if y > 0:
            r = 1
        else:
            r = 2
    else:
        r = 3
    return r


def elif_chain(x: int) -> str:
    if x < 0:
        s = "neg"
    elif x == 0:
        s = "zero"
    elif x < 10:
        s = "small"
    else:
        s = "big"
    return s


def if_without_else(x: int) -> int:
    y = 0
    if x % 2:
        y = x * 10
    return y + x


def while_count(n: int) -> int:
    i, acc = 0, 0
    while i < n:
        acc += i * i
        i += 1
    return acc


def while_break(n: int) -> int:
    i = 0
    while True:
        if i * i > n:
            break
        i += 1
    return i


def while_continue(n: int) -> int:
    i, acc = 0, 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        acc += i
    return acc


def while_else(xs: list[int], target: int) -> str:
    i = 0
    while i < len(xs):
        if xs[i] == target:
            found = "found"
            break
        i += 1
    else:
        found = "missing"
    return found


def while_else_no_break(n: int) -> int:
    i = 0
    while i < n:
        i += 2
    else:
        i = -i
    return i


def for_range(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def for_range_step(a: int, b: int) -> list[int]:
    out = []
    for i in range(a, b, 3):
        out.append(i)
    return out


def for_list(xs: list[int]) -> int:
    best = None
    for x in xs:
        if best is None or x > best:
            best = x
    return best


def for_numpy(xs: np.ndarray) -> float:
    total = 0.0
    for row in xs:
        total += float(row.sum())
    return total


def sum_even(xs: np.ndarray) -> int:
    total = 0
    for x in xs:
        if x % 2:
            continue
        total += x
    return total


def for_break_else(xs: list[int]) -> int:
    for x in xs:
        if x < 0:
            r = x
            break
    else:
        r = 0
    return r


def for_tuple_target(pairs: list[tuple[int, int]]) -> int:
    acc = 0
    for a, b in pairs:
        acc += a * b
    return acc


def loop_variable_after(n: int) -> int:
    for i in range(n):
        pass
    return i


def enumerate_zip(xs: list[int], ys: list[int]) -> int:
    acc = 0
    for k, (x, y) in enumerate(zip(xs, ys)):
        if k == 2:
            continue
        acc += k * x - y
    return acc


def nested_loops_break(n: int) -> list[tuple[int, int]]:
    found = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 3 == 0:
                continue
            found.append((i, j))
    return found


def early_return(x: int) -> int:
    if x < 0:
        return -1
    return x * 2


def return_in_both_branches(x: int) -> str:
    if x:
        return "yes"
    else:
        return "no"


def return_in_while(xs: list[int], t: int) -> int:
    i = 0
    while i < len(xs):
        if xs[i] == t:
            return i
        i += 1
    return -1


def return_in_nested_loops(m: np.ndarray, t: float) -> tuple[int, int] | None:
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] == t:
                return i, j
    return None


def return_deep(x: int) -> int:
    total = 0
    for i in range(5):
        if i > 1:
            while total < 100:
                total += x
                if total > 50:
                    if x % 2:
                        return total
                    break
        total += i
    return -total


def bare_return(xs: list[int]) -> None:
    for x in xs:
        if x < 0:
            return
        xs.append(-1)
        break


def return_none_falloff(x: int) -> int | None:
    if x > 0:
        return x


def and_or_values(a: Any, b: Any, c: Any) -> tuple[Any, Any, Any]:
    return a and b, a or b, a and b or c


def short_circuit(x: int) -> tuple[Any, list[str]]:
    log = []

    def note(tag: str, v: Any) -> Any:
        log.append(tag)
        return v

    r = note("a", x > 0) and note("b", x) or note("c", -x)
    return r, log


def not_values(x: Any) -> tuple[bool, bool]:
    return not x, not not x


def conditional_expression(x: int) -> str:
    log = []
    r = (log.append("t") or "pos") if x > 0 else (log.append("f") or "nonpos")
    return r + "".join(log)


def chained_conditional(x: int) -> int:
    return 1 if x > 10 else 2 if x > 5 else 3


def _helper_abs(x: int) -> int:
    if x < 0:
        return -x
    return x


def calls_helper(xs: list[int]) -> int:
    total = 0
    for x in xs:
        total += _helper_abs(x)
    return total


def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


class Accumulator:
    def __init__(self, start: int):
        self.total = start

    def add_positive(self, xs: list[int]) -> int:
        for x in xs:
            if x <= 0:
                continue
            self.total += x
        return self.total


def uses_method(xs: list[int]) -> int:
    acc = Accumulator(100)
    return acc.add_positive(xs)


def make_closure(scale: int):
    offset = 3

    def scaled(x: int) -> int:
        if x > offset:
            return x * scale
        return x + offset

    return scaled


def default_args(x: int, y: int = 5, *, z: int = 7) -> int:
    while x < y:
        x += z
    return x


def comprehension_left_alone(xs: list[int]) -> list[int]:
    return [x if x > 0 else -x for x in xs if x and x % 2]


def augmented_assign(xs: np.ndarray) -> np.ndarray:
    out = np.zeros_like(xs)
    for i in range(xs.shape[0]):
        if xs[i] > 0:
            out[i] += xs[i]
        else:
            out[i] -= 1
    return out


def nested_function_def(n: int) -> int:
    def inner(k: int) -> int:
        r = 0
        while k:
            r += k
            k -= 1
        return r

    total = 0
    for i in range(n):
        total += inner(i)
    return total


def defined_in_one_branch(x: int) -> int:
    if x > 0:
        y = x
    if x > 0:
        return y
    return 0


def try_inside_loop(xs: list[Any]) -> int:
    total = 0
    for x in xs:
        try:
            total += int(x)
        except ValueError:
            continue
        finally:
            total += 1
    return total


def with_statement(n: int) -> int:
    import contextlib

    with contextlib.nullcontext(n) as m:
        if m > 2:
            return m * 2
    return m


def walrus_in_while(xs: list[int]) -> int:
    it = iter(xs)
    total = 0
    while (v := next(it, None)) is not None:
        total += v
    return total + (v is None)


def numpy_condition(x: np.ndarray) -> np.ndarray:
    if x.sum() > 0:
        x = x * 2
    elif np.all(x == 0):
        x = x + 1
    return np.where(x > 1, x, -x)


def string_iteration(s: str) -> int:
    vowels = 0
    for ch in s:
        if ch in "aeiou":
            vowels += 1
        elif ch == "!":
            break
    return vowels


def dict_iteration(d: dict[str, int]) -> list[str]:
    keys = []
    for k, v in d.items():
        if v % 2 == 0 and not k.startswith("_"):
            keys.append(k)
    return keys


def generator_consumption(n: int) -> list[int]:
    seen = []
    gen = (i * i for i in range(n))
    for v in gen:
        seen.append(v)
        if v > 10:
            break
    seen.append(next(gen, -1))  # `break` must not consume one more item
    return seen


def while_true_return(n: int) -> int:
    while True:
        n += 1
        if n % 7 == 0:
            return n


def global_counter(n: int) -> int:
    global _COUNTER
    for _ in range(n):
        if n > 1:
            _COUNTER += 1
    return _COUNTER


_COUNTER = 0


def nonlocal_update() -> int:
    count = 0

    def bump(n: int) -> None:
        nonlocal count
        for i in range(n):
            if i % 2:
                count += i

    bump(6)
    return count


def raises_in_loop(xs: list[int]) -> float:
    total = 0.0
    for x in xs:
        if x >= 0:
            total += 1 / x  # the ZeroDivisionError the location test expects
    return total


CORPUS: list[tuple[Any, list[tuple[Any, ...]]]] = [
    (nested_ifs, [(1, 1), (1, -1), (-1, 1), (0, 0)]),
    (elif_chain, [(-5,), (0,), (3,), (30,)]),
    (if_without_else, [(1,), (2,), (0,)]),
    (while_count, [(0,), (1,), (7,)]),
    (while_break, [(0,), (10,), (99,)]),
    (while_continue, [(0,), (5,), (12,)]),
    (while_else, [([1, 2, 3], 2), ([1, 2, 3], 5), ([], 1)]),
    (while_else_no_break, [(0,), (5,)]),
    (for_range, [(0,), (1,), (10,)]),
    (for_range_step, [(0, 10), (5, 2), (-3, 9)]),
    (for_list, [([3, 1, 4, 1, 5],), ([],), ([-2],)]),
    (for_numpy, [(np.arange(12.0).reshape(3, 4),), (np.zeros((0, 2)),)]),
    (sum_even, [(np.arange(10),), (np.array([1, 3, 5]),), ([2, 4, 7],)]),
    (for_break_else, [([1, -2, 3],), ([1, 2],), ([],)]),
    (for_tuple_target, [([(1, 2), (3, 4)],), ([],)]),
    (loop_variable_after, [(1,), (5,)]),
    (enumerate_zip, [([1, 2, 3, 4], [5, 6, 7, 8]),]),
    (nested_loops_break, [(0,), (4,), (6,)]),
    (early_return, [(-3,), (0,), (4,)]),
    (return_in_both_branches, [(0,), (1,)]),
    (return_in_while, [([4, 5, 6], 5), ([4, 5, 6], 7)]),
    (return_in_nested_loops, [(np.arange(6.0).reshape(2, 3), 4.0), (np.arange(6.0).reshape(2, 3), 9.0)]),
    (return_deep, [(1,), (2,), (7,), (30,), (51,)]),
    (bare_return, [([1, 2],), ([-1],), ([],)]),
    (return_none_falloff, [(1,), (-1,)]),
    (and_or_values, [(0, 1, 2), (3, 0, 5), ("", "b", None), ([1], [], 0)]),
    (short_circuit, [(0,), (1,), (-1,)]),
    (not_values, [(0,), ([],), ("x",)]),
    (conditional_expression, [(1,), (-1,)]),
    (chained_conditional, [(11,), (6,), (0,)]),
    (calls_helper, [([-1, 2, -3],), ([],)]),
    (fib, [(0,), (1,), (10,)]),
    (uses_method, [([1, -2, 3],), ([],)]),
    (make_closure(4), [(1,), (10,)]),
    (default_args, [(0,), (10,), (0, 20)]),
    (comprehension_left_alone, [([1, -3, 0, 4, -5],)]),
    (augmented_assign, [(np.array([1.0, -2.0, 3.0]),)]),
    (nested_function_def, [(0,), (5,)]),
    (defined_in_one_branch, [(1,), (-1,)]),
    (try_inside_loop, [(["1", "x", "3"],), ([],)]),
    (with_statement, [(1,), (5,)]),
    (walrus_in_while, [([1, 2, 3],), ([],)]),
    (numpy_condition, [(np.array([1.0, 2.0]),), (np.zeros(3),), (np.array([-4.0, 1.0]),)]),
    (string_iteration, [("autograph!eee",), ("",)]),
    (dict_iteration, [({"a": 2, "_b": 4, "c": 3, "d": 0},)]),
    (generator_consumption, [(3,), (10,)]),
    (while_true_return, [(0,), (7,)]),
    (nonlocal_update, [()]),
]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("func, inputs", CORPUS, ids=[f.__name__ for f, _ in CORPUS])
def test_converted_matches_python(func: Any, inputs: list[tuple[Any, ...]]) -> None:
    converted = convert(func)
    assert conversion_info(func).converted, conversion_info(func).reason
    assert converted is not func
    for args in inputs:
        expected_args, actual_args = json_safe_copy(args), json_safe_copy(args)
        assert _same(converted(*actual_args), func(*expected_args)), args
        assert all(_same(a, e) for a, e in zip(actual_args, expected_args)), "arguments mutated differently"


def json_safe_copy(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A copy of the arguments, so that mutating functions see identical inputs."""
    return tuple(a.copy() if isinstance(a, (list, dict, np.ndarray)) else a for a in args)


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 40


def test_global_counter_matches() -> None:
    global _COUNTER
    _COUNTER = 0
    expected = global_counter(3)
    _COUNTER = 0
    assert convert(global_counter)(3) == expected == 3


def test_method_stays_bound() -> None:
    acc = Accumulator(1)
    bound = convert(acc.add_positive)
    assert bound.__self__ is acc
    assert bound([2, -1, 3]) == 6 and acc.total == 6


def test_conversions_are_cached() -> None:
    assert convert(for_range) is convert(for_range)
    assert convert(convert(for_range)) is convert(for_range)


def test_undefined_raises_like_unbound_local() -> None:
    def f(x: int) -> int:
        if x:
            y = 1
        return y + 1

    with pytest.raises(UnboundLocalError, match="'y'"):
        convert(f)(0)


# ---------------------------------------------------------------------------- generated code


def _helpers(code: str) -> list[ast.FunctionDef]:
    tree = ast.parse(code)
    return [n for n in ast.walk(tree.body[0]) if isinstance(n, ast.FunctionDef) and n is not tree.body[0]]


@pytest.mark.parametrize("func", [f for f, _ in CORPUS if hasattr(f, "__code__")], ids=lambda f: f.__name__)
def test_generated_bodies_have_no_jumps(func: Any) -> None:
    code = to_code(func)
    compile(code, "<to_code>", "exec")
    for helper in _helpers(code):
        if helper.name.startswith(("if_body", "else_body", "loop_body")):
            for node in _own_nodes(helper):
                assert not isinstance(node, (ast.Break, ast.Continue, ast.Return)), helper.name


def _own_nodes(func: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of ``func`` outside the functions nested in it."""
    stack: list[ast.AST] = list(func.body)
    out = []
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return out


def test_to_code_shapes() -> None:
    code = to_code(sum_even)
    assert "ag__.for_stmt(xs, None, loop_body, get_state, set_state, ('total',))" in code
    assert "continue_1 = True" in code and "ag__.not_(continue_1)" in code
    assert "total += x" in code  # the user's statements stay as written
    code = to_code(while_else)
    assert "ag__.while_stmt(loop_test, " in code and "ag__.and_(lambda: ag__.not_(break_" in code
    code = to_code(short_circuit)
    assert "ag__.or_(lambda: ag__.and_(lambda: ag__.call(note)('a', x > 0), lambda: ag__.call(note)('b', x))" in code
    assert "ag__.if_exp(x > 0, lambda:" in to_code(conditional_expression)
    assert "range(n)" not in to_code(for_range) and "ag__.range_(n)" in to_code(for_range)


def test_library_calls_are_left_as_written() -> None:
    code = to_code(numpy_condition)
    assert "np.where(x > 1, x, -x)" in code and "np.all(x == 0)" in code
    assert "ag__.len_(xs)" in to_code(return_in_while)  # `len` accepts tensors of dynamic size


def test_state_names_and_undefined() -> None:
    code = to_code(nested_ifs)
    assert "r = ag__.Undefined('r')" in code
    assert "ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('r',))" in code


@pytest.mark.parametrize("func", [np.sum, np.linalg.norm, json.dumps, collections.namedtuple, len, ast.parse])
def test_library_functions_are_not_converted(func: Any) -> None:
    assert convert(func) is func
    assert not conversion_info(func).converted


def test_unavailable_source_is_recorded() -> None:
    namespace: dict[str, Any] = {}
    exec("def made_up(x):\n    if x:\n        return 1\n    return 2\n", namespace)
    func = namespace["made_up"]
    assert convert(func) is func
    info = conversion_info(func)
    assert not info.converted and "source is not available" in info.reason
    with pytest.raises(ValueError, match="made_up is not converted"):
        to_code(func)


LAMBDAS = [
    lambda x: x if x.sum() > 0 else -x, lambda x: np.asarray(x) * 2,
    lambda x, k=3: np.array(x, dtype=np.float32) * k,
    lambda x: (lambda y: y + 1)(x) if x.max() > 0 else x,
]


@pytest.mark.parametrize("index", range(len(LAMBDAS)))
def test_a_lambda_given_to_kiln_function_is_converted(index: int) -> None:
    """A lambda is converted like a def (two on one line told apart by their columns; one
    inside a list literal whose own lines do not parse): a tensor condition in a conditional
    expression is staged, and np.asarray/np.array make kiln arrays."""
    fn = LAMBDAS[index]
    assert conversion_info(fn).converted
    assert "return" in to_code(fn)
    for x in (np.arange(4.0) - 1.5, -np.arange(4.0) - 1.0):
        got, want = kiln.function(fn)(x), fn(x)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def _scaled_if_positive(k: float) -> Any:
    return lambda x: x * k if x.sum() > 0 else x


def test_a_lambda_made_twice_with_other_closures_is_converted_each_time() -> None:
    """Each closure of one lambda is converted with its own free variables; the second was not
    converted (the first conversion rewrote the cached tree of the file), and a free variable
    made the check that the source is the code it runs fail."""
    x = np.arange(4.0)
    for k in (2.0, 3.0, 5.0):
        fn = _scaled_if_positive(k)
        assert conversion_info(fn).converted, conversion_info(fn).reason
        np.testing.assert_array_equal(kiln.function(fn)(x), fn(x))


def test_a_lambda_whose_file_changed_is_not_converted(tmp_path: Any) -> None:
    """The file edited after import puts another lambda where this one was: not converted from
    the wrong source, and the reason says so."""
    import importlib.util
    import linecache

    path = tmp_path / "edited_lambda.py"
    path.write_text("f = lambda x: x + 1\n")
    spec = importlib.util.spec_from_file_location("edited_lambda", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.write_text("f = lambda x: x * 2\n")
    linecache.checkcache(str(path))
    assert convert(module.f) is module.f
    assert "not the code it runs" in conversion_info(module.f).reason


def test_a_lambda_without_source_is_not_converted_and_says_why() -> None:
    fn = eval("lambda x: x + 1")
    assert convert(fn) is fn and "source is not available" in conversion_info(fn).reason


def test_generators_are_not_converted_and_say_why() -> None:
    def gen(n: int):
        for i in range(n):
            if i % 2:
                yield i

    assert convert(gen) is gen
    assert "`yield` cannot be staged" in conversion_info(gen).reason
    assert f"{__file__}:" in conversion_info(gen).reason


def test_unsupported_constructs_are_recorded() -> None:
    info = conversion_info(with_statement)
    assert [u.construct for u in info.unsupported] == ["with"]
    assert info.unsupported[0].message().startswith("`with` cannot be staged (" + __file__)
    assert conversion_info(try_inside_loop).unsupported == ()  # a `try` runs as Python (staged code in its body is refused)


# ---------------------------------------------------------------------------- locations


def test_tracebacks_point_at_the_users_line() -> None:
    converted = convert(raises_in_loop)
    with pytest.raises(ZeroDivisionError) as info:
        converted([1, 0])
    frame = traceback.extract_tb(info.tb)[-1]
    assert frame.filename == __file__
    assert frame.lineno == raises_in_loop.__code__.co_firstlineno + 4
    assert "total += 1 / x" in frame.line


def test_code_object_keeps_the_users_file_and_line() -> None:
    converted = convert(early_return)
    assert converted.__code__.co_filename == early_return.__code__.co_filename
    assert converted.__code__.co_firstlineno == early_return.__code__.co_firstlineno
    assert converted.__name__ == "early_return" and converted.__qualname__ == early_return.__qualname__


def test_ir_locations_read_the_users_frame() -> None:
    seen = []

    def probe() -> None:
        caller = sys._getframe(1)
        seen.append((caller.f_code.co_filename, caller.f_lineno))

    def f(n: int) -> None:
        for i in range(n):
            if i == 1:
                probe()

    convert(f)(3)
    assert seen == [(__file__, f.__code__.co_firstlineno + 3)]


# ---------------------------------------------------------------------------- staging hooks


def fake_tensor() -> Tensor:
    """A ``Tensor`` without a value: enough for ``isinstance``; any use as a Python bool raises."""
    return Tensor.__new__(Tensor)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []

    def hook(name: str):
        def record(*args: Any) -> Any:
            calls.append((name, args))
            return fake_tensor()

        return record

    for name in ("staged_if", "staged_while", "staged_for", "staged_if_exp", "staged_and", "staged_or", "staged_not", "staged_range"):
        monkeypatch.setattr(staging, name, hook(name))
    return calls


def test_staged_if_gets_state_and_names(recorder: list[tuple[str, Any]]) -> None:
    def f(c: Any, x: int) -> tuple[Any, Any]:
        y = 0
        if c:
            y = x + 1
            z = 2
        else:
            y = x - 1
        return y, z

    result = convert(f)(fake_tensor(), 5)
    ((name, (cond, body, orelse, get_state, set_state, names, dead)),) = recorder
    assert name == "staged_if" and names == ("y", "z") and dead == ()
    assert get_state()[0] == 0 and isinstance(get_state()[1], Undefined)
    body()
    assert get_state() == (6, 2)
    set_state((0, Undefined("z")))
    orelse()
    assert get_state()[0] == 4 and isinstance(get_state()[1], Undefined)
    assert result[0] == 0 and isinstance(result[1], Undefined)  # the hook itself changed nothing


def test_staged_while_and_for_get_loop_state(recorder: list[tuple[str, Any]]) -> None:
    def f(n: Any, xs: Any) -> int:
        i, total = 0, 0
        while i < n:
            i += 1
        for x in xs:
            if x > 100:
                break
            total += x
        return i + total

    class Lt:  # `i < Lt()` is a tensor condition
        def __gt__(self, other: Any) -> Tensor:
            return fake_tensor()

    convert(f)(Lt(), fake_tensor())
    names = [(n, a[-1]) for n, a in recorder]
    assert names == [("staged_while", ("i",)), ("staged_for", ("break_1", "total"))]


def test_while_hands_over_to_staging_mid_loop(recorder: list[tuple[str, Any]]) -> None:
    def f(conds: list[Any]) -> int:
        k = 0
        while conds[k]:
            k += 1
        return k

    assert convert(f)([True, True, fake_tensor()]) == 2
    ((name, args),) = recorder
    assert name == "staged_while" and args[-1] == ("k",) and args[2]() == (2,)


def test_logical_and_conditional_hooks(recorder: list[tuple[str, Any]]) -> None:
    def f(t: Any) -> tuple[Any, ...]:
        return t and 1, 0 or t or 2, not t, (1 if t else 2), range(t)

    convert(f)(fake_tensor())
    assert [n for n, _ in recorder] == ["staged_and", "staged_or", "staged_not", "staged_if_exp", "staged_range"]
    assert recorder[1][1][1]() == 2  # the rest of `or` after the tensor operand


def test_unstageable_finds_constructs_in_a_body(recorder: list[tuple[str, Any]]) -> None:
    def f(c: Any) -> int:
        r = 0
        if c:
            with open(__file__):
                r = 1
        return r

    convert(f)(fake_tensor())
    ((_, (_, body, *_)),) = recorder
    (found,) = staging.unstageable(body)
    assert found.construct == "with" and found.lineno == f.__code__.co_firstlineno + 3


def _many_constructs(tmp_path: Any, count: int) -> Any:
    """A function of ``count`` loops and ``count`` ifs, from a file (conversion reads the source)."""
    body = "".join("    for _ in range(2):\n        x = x * 2 + 1\n    if x > 10:\n        x = x - 7\n" for _ in range(count))
    path = tmp_path / f"many_constructs_{count}.py"
    path.write_text(f"def many(x):\n{body}    return x\n")
    namespace: dict[str, Any] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["many"]


def test_helper_names_do_not_grow_with_the_constructs(tmp_path: Any) -> None:
    """Every construct reuses one set of helper names: a name per construct made the converted
    function bind three more names per loop, and CPython's compiler copies the names a function
    binds into each function nested in it (quadratic: 1.3 s of symbol tables at 2,222 loops)."""
    few, many = _many_constructs(tmp_path, 3), _many_constructs(tmp_path, 40)
    sizes = []
    for func in (few, many):
        converted = convert(func)
        assert conversion_info(func).converted
        assert converted(1) == func(1) and converted(5) == func(5)
        sizes.append(len(converted.__code__.co_varnames) + len(converted.__code__.co_cellvars))
    assert sizes[0] == sizes[1]


def test_helpers_of_constructs_written_alike_differ(tmp_path: Any) -> None:
    """The helpers of 40 identical loops and ifs are told apart by their docstrings: code objects
    that differ only in their line numbers share a hash, and CPython's compiler, which keys a
    function's constants by it, compiled n of them in O(n^2) (2.4 s at 5,555 loops)."""
    func = _many_constructs(tmp_path, 40)
    helpers = [c for c in convert(func).__code__.co_consts if isinstance(c, type(func.__code__))]
    assert len(helpers) == 40 * 2 * 3  # a body, get_state and set_state per construct
    assert len({(c.co_name, c.co_consts) for c in helpers}) == len(helpers)
    assert "the for at line 2" in to_code(func) and "the if at line 4" in to_code(func)


def test_global_and_nonlocal_declarations_are_found_in_one_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both kinds of declaration come from one walk of the function's scope (the conversion asked
    for each kind twice: four walks, 0.3 s of a 40,000-op function's); a nested function's own
    declarations are its own."""
    from kiln.frontend.autograph.analysis import activity

    func = ast.parse(
        "def f(x):\n    global a, b\n    if x:\n        nonlocal c\n"
        "    def g():\n        global d\n        nonlocal e\n    for i in x:\n        global a\n"
    ).body[0]
    assert isinstance(func, ast.FunctionDef)
    walks = []
    walk = activity.walk_scope
    monkeypatch.setattr(activity, "walk_scope", lambda nodes: walks.append(1) or walk(nodes))
    assert activity.declared(func) == ({"a", "b"}, {"c"})
    assert len(walks) == 1


def test_a_template_is_parsed_once_and_each_use_is_a_fresh_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Converters fill in the same few templates once per construct (11,000 times for a 40,000-op
    function): each is parsed once; every use gets its own nodes, at its own origin's place."""
    from kiln.frontend.autograph import templates

    parses = []
    parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parses.append(a[0]) or parse(*a, **k))
    template = "once_target = ag__.f(once_value, 7)"
    first_origin, second_origin = parse("a = 1\n\n\nb = 2").body
    first = templates.replace(template, first_origin, once_target="a", once_value=ast.Name(id="u", ctx=ast.Load()))
    second = templates.replace(template, second_origin, once_target="b", once_value=ast.Constant(value=3))
    assert parses.count(template) == 1
    assert [ast.unparse(s) for s in first + second] == ["a = ag__.f(u, 7)", "b = ag__.f(3, 7)"]
    assert {n.lineno for n in ast.walk(first[0]) if hasattr(n, "lineno")} == {1}
    assert {n.lineno for n in ast.walk(second[0]) if hasattr(n, "lineno")} == {4}
    assert not {id(n) for n in ast.walk(first[0])} & {id(n) for n in ast.walk(second[0])}


def test_converted_code_is_known_by_identity_and_forgotten_when_collected() -> None:
    """Staging asks, per staged construct, whether a frame runs a converted function's code; it
    asks by identity: a set of code objects hashed each one asked about, and a code object's hash
    covers every nested helper's code (quadratic in a long function). An equal code object that
    was not converted is not one; a converted code object's entry goes when it does."""
    import gc
    import weakref

    from kiln.frontend.autograph import context

    source = "def f(x):\n    return x + 1\n"
    first, second = compile(source, "<same>", "exec"), compile(source, "<same>", "exec")
    code, twin = first.co_consts[0], second.co_consts[0]
    assert code == twin and code is not twin and hash(code) == hash(twin)
    context.record_converted(code, "<same>", ())
    assert context.is_converted_code(code)
    assert not context.is_converted_code(twin)
    key, ref = id(code), weakref.ref(code)
    del first, code
    gc.collect()
    assert ref() is None and key not in context._converted_codes  # noqa: SLF001


def test_kiln_tracers_are_known_by_identity() -> None:
    """Staged recursion is found by looking up every frame's code among kiln's tracing functions
    on each call of a user function: by identity, as a code object's hash covers all its nested
    code (the user's long function's, per call). A copy of a tracer's code is not one."""
    from kiln.frontend.autograph import staged_recursion

    code, where = next(iter(staged_recursion._TRACERS.values()))  # noqa: SLF001
    twin = code.replace()  # (a new code object, equal to it)
    assert twin == code and twin is not code
    assert staged_recursion._TRACERS.get(id(code)) == (code, where)  # noqa: SLF001
    assert staged_recursion._TRACERS.get(id(twin)) is None  # noqa: SLF001
