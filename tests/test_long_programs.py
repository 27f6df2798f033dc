"""Long generated programs compile and give NumPy's answers (issue 39: compile time linear in the
program). The fusion passes make an unrolled chain one loop with a body of thousands of ops and
merge many reductions of one array into one generic; kiln-outline-parts then cuts that body.
How long it takes is measured by bench/compile_time.py, not asserted here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import kiln


def _generated(body: str) -> Callable[..., object]:
    """A function ``f(x)`` with ``body`` (lines indented by four spaces) as its source."""
    scope: dict[str, object] = {"np": np}
    exec(compile(f"def f(x):\n{body}", "<generated>", "exec"), scope)  # noqa: S102 (the test's own source)
    return scope["f"]  # type: ignore[return-value]


def test_long_elementwise_chain_is_numpys() -> None:
    # 180 steps, about 2,500 graph ops, fused into one loop: kiln-outline-parts walked the chain
    # of vector ops before each cut recursively and raised RecursionError
    step = "    x = np.tanh(x * 1.0001 + 0.5) - x * 0.25 + 0.125\n"
    f = _generated(step * 180 + "    return x\n")
    x = np.linspace(-1.0, 1.0, 37)
    got = kiln.function(f, autograph=False)(x)
    np.testing.assert_allclose(got, f(x.copy()), rtol=1e-12, atol=0)


def _longest_function(source: str) -> int:
    """The lines of the longest function definition in C ``source`` (from ``) {`` to ``}`` at column 0)."""
    longest, start = 0, None
    for i, line in enumerate(source.splitlines()):
        if start is None and line.endswith(") {") and not line.startswith((" ", "#")):
            start = i
        elif start is not None and line == "}":
            longest, start = max(longest, i - start), None
    return longest


def test_long_vector_chain_is_cut_into_parts_that_pass_the_vector() -> None:
    # the fused loop's body is one chain of dependent vector ops: the running x is a vector
    # everywhere, and kiln-outline-parts, cutting only where no vector crossed, moved it whole
    # into one part (the 10^5-op program: one C function of 171,424 lines, 36.8 s in gcc)
    step = "    x = x * 0.999 + 0.001\n"
    f = _generated(step * 1000 + "    return x\n")
    x = np.linspace(-1.0, 1.0, 64)
    compiled = kiln.function(f, autograph=False)
    np.testing.assert_allclose(compiled(x.copy()), f(x.copy()), rtol=1e-12, atol=0)
    source = compiled.get_concrete_function(x).source
    assert "_part1(kiln_v8f64 " in source or "_part1(kiln_v4f64 " in source, "no part takes the running vector"
    assert _longest_function(source) < 1000, _longest_function(source)


def test_many_reductions_of_one_array_are_numpys() -> None:
    # 40 reductions of x: linalg-fuse-siblings merges them into one generic in one step
    lines = [f"    s{i} = np.{('sum', 'max', 'min')[i % 3]}(x * {i + 1}.0)\n" for i in range(40)]
    total = " + ".join(f"s{i} * {1.0 / (i + 1)}" for i in range(40))
    f = _generated("".join(lines) + f"    return {total}\n")
    x = np.linspace(-2.0, 3.0, 53)
    got = kiln.function(f, autograph=False)(x)
    np.testing.assert_allclose(got, f(x.copy()), rtol=1e-12)


def test_comprehension_of_row_sums_is_numpys() -> None:
    # issue 40's 600x200 comprehension, smaller: each sum is copied into the result at the end, so
    # kiln-elide-copies asks about the ops between a writer and its copy once per row (it walked
    # them: quadratic), and kiln-bufferize's frees indexed the block once per buffer
    def f(x: np.ndarray) -> np.ndarray:
        return np.array([np.sum(x[i]) for i in range(x.shape[0])])

    x = np.random.default_rng(0).random((120, 30))
    got = kiln.function(f)(x.copy())
    np.testing.assert_allclose(got, f(x), rtol=1e-12)


def test_vector_math_called_many_times_is_defined_out_of_line() -> None:
    # gcc inlined a 20-line vector tanh at each of a fused chain's calls (1,140 for 4,000 ops:
    # 21.9 s in gcc); past OUT_OF_LINE_CALLS calls the helper is noinline, below it stays inline
    from kiln.backends.c import emitter, vector_ops  # noqa: F401 (the emitter first: it registers the op handlers)

    def many(x: np.ndarray) -> np.ndarray:
        for _ in range(vector_ops.OUT_OF_LINE_CALLS):
            x = np.tanh(x * 1.5 + 0.25)
        return x

    def few(x: np.ndarray) -> np.ndarray:
        return np.tanh(x * 1.5 + 0.25)

    x = np.linspace(-2.0, 2.0, 67)
    for f, defined in ((many, "static __attribute__((noinline)) __m"), (few, "static inline __m")):
        compiled = kiln.function(f, autograph=False)
        np.testing.assert_allclose(compiled(x.copy()), f(x), rtol=1e-14, atol=1e-15)
        tanh = next(line for line in compiled.get_concrete_function(x).source.splitlines() if "kiln_vtanh_f64(__m" in line)
        assert tanh.startswith(defined), tanh


def test_recursive_search_is_pythons() -> None:
    # issue 40's recursive search: each level calls the decorated function twice, keeping the
    # better sum through a staged if (bench/recursive_search.py times it)
    from kiln.bench.recursive_search import best

    values = [0.5, -1.25, 2.0, -0.125]
    got = best(values, 0, 0.0)
    assert got == best.python_function(values, 0, 0.0) == 2.5
    assert type(got) is float


class _FrameReadingNoLine:
    """A frame of a real code object at a real instruction whose ``f_lineno`` must not be read:
    CPython 3.11 decodes the line table from the code's start on each read, so reading it per
    traced op made tracing a long function grow with the square of its length."""

    def __init__(self, code: object, lasti: int) -> None:
        self.f_code, self.f_lasti = code, lasti

    @property
    def f_lineno(self) -> int:
        raise AssertionError("frame_location read f_lineno")


def test_an_ops_place_comes_from_the_listed_positions_not_f_lineno() -> None:
    from kiln.frontend import trace_context

    step = "    x = np.tanh(x * 1.0001 + 0.5) - x * 0.25 + 0.125\n"
    code = _generated(step * 50 + "    return x\n").__code__
    for index, (line, _, col, _) in list(enumerate(code.co_positions()))[::37]:
        if line is None:
            continue
        loc = trace_context.frame_location(_FrameReadingNoLine(code, 2 * index))  # type: ignore[arg-type]
        assert (loc.line.data, loc.column.data) == (line, col + 1)


def test_equal_code_objects_of_two_files_are_each_located_in_their_own_file() -> None:
    # equal code (equality ignores the file) was one lru_cache key, compared instruction by
    # instruction at every lookup; each op must still be located in the file it was traced from
    from kiln.frontend import trace_context

    body = "def f(x):\n    return x * 2.0 + 1.0\n"
    codes = []
    for name in ("first.py", "second.py"):
        scope: dict[str, object] = {}
        exec(compile(body, name, "exec"), scope)  # noqa: S102 (the test's own source)
        codes.append(scope["f"].__code__)  # type: ignore[attr-defined]
    assert codes[0] == codes[1]
    index = next(i for i, p in enumerate(codes[0].co_positions()) if p[0] == 2)
    files = [trace_context.frame_location(_FrameReadingNoLine(c, 2 * index)).filename.data for c in codes]  # type: ignore[arg-type]
    assert files == ["first.py", "second.py"]
