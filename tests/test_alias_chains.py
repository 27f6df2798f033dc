"""Arrays a loop Python runs while tracing rebinds on some paths: a write through the last one
reaches the earlier ones someone still holds, and only those (kiln.fuzz 20300-8131).

Each iteration of such a loop merges the array with the one before it (a MaybeAlias with a
sameness flag), so after N iterations a write through it could be one of N + 1 arrays. kiln
made the write on every one (a ``graph.cond`` each), and the traced program grew with the
square of N. An array no name, view, container or argument holds any more is never read
again, so it is bypassed (kiln.frontend.mutation._bypass_unreachable).
"""

from __future__ import annotations

import os
import re
import sys
import warnings
import weakref

import numpy as np
import pytest

import kiln
from kiln.dialects import graph
from kiln.frontend import mutation
from kiln.frontend.autograph.staging import KilnUnrollWarning

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "bench"))
import compile_time  # noqa: E402


def _conds(steps: int) -> int:
    func, _ = compile_time.program("aliases", steps * 150)
    traced = kiln.function(func).get_concrete_function(compile_time.argument("aliases", 0))
    return sum(1 for op in traced._traced.module.walk() if isinstance(op, graph.CondOp))  # noqa: SLF001


def test_a_chain_of_rebound_arrays_grows_at_most_linearly() -> None:
    """bench/compile_time.py's ``aliases`` program: no more ops per iteration as it grows (before:
    48, 128, 240 graph.conds at 4, 8, 12 iterations; now its loop is staged after a few)."""
    c4, c8, c12 = _conds(4), _conds(8), _conds(12)
    assert c12 - c8 <= c8 - c4, (c4, c8, c12)


_UNROLLED = """
import numpy as np


def f(x):
    buf = x * 1.0
    log = []
    t = {steps}.0
    while t > 0.0:  # appending to a Python list: unrolled
        t -= 1.0
        log.append(t)
        if np.sum(x) > 3.0:
            buf = x.T * 2.0 + buf.T
        buf[:] = buf * 0.5 + 1.0
    return buf
"""


def _unrolled(tmp_path, steps: int):
    path = tmp_path / f"unrolled_{steps}.py"
    path.write_text(_UNROLLED.format(steps=steps))
    scope: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), scope)  # noqa: S102 (AutoGraph reads the file)
    return scope["f"]


def test_an_unrolled_chain_makes_the_same_ops_per_iteration(tmp_path) -> None:
    """(before: 14, 44, 90, 152 graph.conds at 4, 8, 12, 16 iterations; now 7, 15, 23, 31)"""
    x = np.arange(9.0).reshape(3, 3) * 0.1
    conds = []
    for steps in (4, 8, 12, 16):
        traced = kiln.function(_unrolled(tmp_path, steps)).get_concrete_function(x)
        conds.append(sum(1 for op in traced._traced.module.walk() if isinstance(op, graph.CondOp)))  # noqa: SLF001
    assert conds[3] - conds[2] == conds[2] - conds[1] == conds[1] - conds[0], conds
    f = _unrolled(tmp_path, 6)
    for y in (x, x + 1.0):
        np.testing.assert_array_equal(kiln.function(f)(y.copy()), f(y.copy()))


def test_a_chain_of_rebound_arrays_matches_numpy() -> None:
    func, _ = compile_time.program("aliases", 6 * 150)
    for x in (np.linspace(0.0, 1.0, 64), np.linspace(-2.0, 1.0, 64)):
        np.testing.assert_array_equal(kiln.function(func)(x.copy()), func(x.copy()))


def held_in_a_list(x):
    buf = np.zeros(4)
    keep = []
    t = 6.0
    while t > 0.0:
        t -= 1.0
        keep.append(buf)
        buf[:] = buf + x
        if x[0] > 0.5:
            buf = x * t
    return buf, keep[0], keep[2], keep[4]


def held_by_a_view(x):  # (a silent wrong answer before: the staged rest of the loop carried no flag for
    # `buf`, which is the array `first` views on some paths, so its writes did not show in `first`)
    buf = np.zeros(4)
    first = buf[1:]
    t = 5.0
    while t > 0.0:
        t -= 1.0
        if x[1] > 0.5:
            buf = x + t
        buf[:] = buf * 2.0 + 1.0
    return buf, first


@pytest.mark.parametrize("fn", [held_in_a_list, held_by_a_view])
@pytest.mark.parametrize("first", [0.25, 0.75])
def test_an_earlier_array_someone_holds_still_takes_the_write(fn, first) -> None:
    x = np.array([first, first, 2.0, 3.0])
    got, want = kiln.function(fn)(x.copy()), fn(x.copy())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_only_an_array_no_one_holds_is_bypassed() -> None:
    """Both ways: held by a local here, the outer stays; once only the MaybeAlias holds it, it goes
    (its own outers would stand in its place; it has none)."""
    storage, outer = mutation.Storage(None), mutation.Storage(None)  # type: ignore[arg-type]
    storage.alias = mutation.MaybeAlias((outer,), (None,), "here", "`if`", (True,))  # type: ignore[arg-type]
    mutation._bypass_unreachable(storage)  # noqa: SLF001
    assert storage.alias.outers == (outer,)
    gone = weakref.ref(outer)
    del outer
    mutation._bypass_unreachable(storage)  # noqa: SLF001
    assert storage.alias.outers == () and gone() is None


def test_an_outer_without_a_flag_is_kept() -> None:
    storage, outer = mutation.Storage(None), mutation.Storage(None)  # type: ignore[arg-type]
    storage.alias = mutation.MaybeAlias((outer,), (None,), "here", "`if`", (None,))  # type: ignore[arg-type]
    del outer
    mutation._bypass_unreachable(storage)  # noqa: SLF001
    assert len(storage.alias.outers) == 1


def _two_chains(a, c):
    y = a
    if c[0] > 100:
        y = c[-2:].astype(np.int64)
    z = y
    if c[-3] != 1.5:
        z = a
    y[0] = 7  # y is a here: z is a, and so takes the write, by two chains (z is y; z is a and a is y)
    z[1] -= 4
    return a, y, z


def _two_chains_looped(a, c):
    y = a
    if c[0] > 100:
        y = c[-2:].astype(np.int64)
    z = y
    for _ in range(3):
        z[1:2] -= 4
        if c[-3] != 1.5:
            z = a
        y[0:1] = y.max(axis=0) < y.prod(axis=0)
    return a


@pytest.mark.parametrize("fn", [_two_chains, _two_chains_looped])
def test_an_array_that_is_the_written_one_by_two_chains_takes_the_write_on_both(fn) -> None:
    """``z`` is ``y`` where one flag says, and ``a`` where another; ``y`` is ``a`` where a third. A
    write through ``y`` reached ``z`` by the first chain found only, so on the paths where ``z``
    is ``a`` it kept the old contents, and the next write through ``z`` undid ``y``'s (kiln.fuzz
    20910-344, a silent wrong answer: [0, -5] where NumPy gives [7, -5])."""
    c = np.array([3.75, -3.0, -2.75, 1.0, 2.25, -4.0, -4.0, -2.0, -4.0, -3.25])[::2]
    for cs in (c, c + 200.0, np.where(np.arange(5) == 2, 1.5, c)):
        want_args, got_args = [np.array([0, -1]), cs.copy()], [np.array([0, -1]), cs.copy()]
        want, got = fn(*want_args), kiln.function(fn)(*got_args)
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(got_args[0], want_args[0])


def _a_view_rebound_by_a_branch(read):
    def f(a, c):
        x = np.zeros((2, 4)) + a
        v = x[::-1] if read is reversed else x[:]
        if x.sum() < c:
            x = v
        x[:] = 1.0 - x
        return read(v)
    return f


def copied(v):
    return v.copy()


def scaled(v):
    return v * 1.0


def reversed(v):  # noqa: A001 (the view taken is x[::-1])
    return v.copy()


@pytest.mark.parametrize("read", [copied, scaled, reversed])
def test_a_view_read_after_a_write_through_a_variable_a_branch_bound_to_it_is_refused(read) -> None:
    """``v = x[:]``, ``if c: x = v``, ``x[:] = ...``: the write reaches ``v`` on every path, but kiln
    merges ``x`` as "``x`` on some paths" without a flag (a view on one path), so reading ``v`` after
    it is refused, naming both lines. A view shown before the write kept its old value and ``copy()``
    traced no op, so kiln gave the contents from before the write, silently (kiln.fuzz 20660-7225)."""
    fn = _a_view_rebound_by_a_branch(read)
    for c in (-100.0, 100.0):
        with pytest.raises(NotImplementedError, match=r"test_alias_chains.py:\d+:\d+: this reads an array that may have "
                                                      r"been written at .*test_alias_chains.py:\d+"):
            kiln.function(fn)(np.arange(4.0), c)


def _arguments(fn) -> list[list[np.ndarray]]:
    if fn in (held_in_a_list, held_by_a_view):
        return [[np.array([first, first, 2.0, 3.0])] for first in (0.25, 0.75)]
    c = np.array([3.75, -3.0, -2.75, 1.0, 2.25, -4.0, -4.0, -2.0, -4.0, -3.25])[::2]
    return [[np.array([0, -1]), cs] for cs in (c, c + 200.0, np.where(np.arange(5) == 2, 1.5, c))]


@pytest.mark.parametrize("fn", [held_in_a_list, held_by_a_view, _two_chains, _two_chains_looped])
def test_comparing_base_memories_gives_numpys_answer(fn, monkeypatch) -> None:
    """Past ``mutation.CHAIN_FLAGS_AT_MOST`` flags, a write finds the arrays it reaches by comparing
    the memories each array is on each path (``mutation._by_memory``), not by following chains of
    flags. Forced here for every write: the same answers as NumPy's, arguments included."""
    monkeypatch.setattr(mutation, "CHAIN_FLAGS_AT_MOST", 0)
    compiled = kiln.function(fn)
    for arguments in _arguments(fn):
        want_args, got_args = [a.copy() for a in arguments], [a.copy() for a in arguments]
        want, got = fn(*want_args), compiled(*got_args)
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            np.testing.assert_array_equal(g, w)
        for w, g in zip(want_args, got_args):
            np.testing.assert_array_equal(g, w)


def _rebound_on_some_paths(trips: int):
    def f(a, c):
        hb = a.copy()
        t = 0
        while t < trips:
            if c.sum() < -1:
                hb = a
                hb -= 0.25
            hb[:] = 0.5 - hb
            k = 0
            while k < 6:
                k += 1
                if hb.sum() != 3.25:
                    a = np.maximum(a, -4.0)
                a[:] = 0.5 - a
            t += 1
        return a, hb
    return f


def _flag_ops(fn, *args) -> int:
    ir = kiln.function(fn).get_concrete_function(*args).ir
    return len(re.findall(r"= graph\.(?:and|or|not|cmp|select) ", ir))


def test_writes_in_an_unrolled_loop_compare_memories_once_each() -> None:
    """kiln.fuzz 20680-5878, reduced: Python-counter loops (unrolled) rebinding arrays on some paths,
    writing through them. Each write built, for every array it may reach, a flag per base memory
    anew: 803 flag ops at 4 trips, 13,296 at 8 (the program itself: 42,000, a 60 s timeout). Each
    array's memory is now one traced 0-d name, compared once per array a write may reach."""
    a, c = np.array([1.75, 3.75, 0.5, -0.25, -4.0, -3.0]), np.array([-3.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KilnUnrollWarning)
        short, long = _flag_ops(_rebound_on_some_paths(4), a, c), _flag_ops(_rebound_on_some_paths(8), a, c)
        assert long < 3 * short, (short, long)
        for cs in (c, -c):
            fn = _rebound_on_some_paths(4)
            want, got = fn(a.copy(), cs.copy()), kiln.function(fn)(a.copy(), cs.copy())
            for w, g in zip(want, got):
                np.testing.assert_array_equal(g, w)


def _ifs_without_else(tmp_path, count: int, body: str = "x = x * 0.5 + 1.0"):  # type: ignore[no-untyped-def]
    """A function of ``count`` staged ``if``s, each rebinding ``x`` on one path only: the returned
    ``x`` is, on the path where no branch runs, the argument itself (a MaybeAlias per ``if``,
    each of the one before)."""
    source = "import numpy as np\n\ndef f(x):\n" + "".join(
        f"    if x[{i % 4}] > {i}:\n        {body}\n" for i in range(count)) + "    return x\n"
    path = tmp_path / f"ifs_{count}.py"
    path.write_text(source)
    scope: dict = {}
    exec(compile(source, str(path), "exec"), scope)  # noqa: S102 (the test's own source)
    return scope["f"]


def test_a_chain_of_a_thousand_merges_traces_without_recursion(tmp_path) -> None:
    """1,100 staged ifs that each rebind the argument on one path: every read of ``x`` checks the
    merges before it and the result says on which paths it is the argument, down the whole chain.
    Both were recursive and failed with RecursionError past ~1,000 ifs."""
    f = _ifs_without_else(tmp_path, 1100)
    concrete = kiln.function(f).get_concrete_function(np.zeros(4))
    assert len(concrete.traced.module.body.block.first_op.function_type.outputs) == 2  # x and "x is the argument"


@pytest.mark.parametrize("start", [np.zeros(4), np.arange(4.0) * 50.0, np.full(4, 1e6)])
def test_a_chain_of_merges_matches_numpy_on_every_path(tmp_path, start: np.ndarray) -> None:
    """No branch runs (the argument itself is returned: the caller sees it written in place by
    nothing), some run, all run."""
    f = _ifs_without_else(tmp_path, 60)
    want, got = f(start.copy()), kiln.function(f)(start.copy())
    np.testing.assert_array_equal(got, want)


def test_a_read_after_a_write_to_an_array_a_merge_may_be_is_refused_then_and_only_then() -> None:
    """MaybeAlias.check_read on a chain longer than the recursion limit: it passes while no array
    changed, and refuses once the first array of the chain is written (its answer is not kept
    past a change)."""
    first = mutation.Storage("v0")  # type: ignore[arg-type]  (a stand-in for an SSA value)
    chain = [first]
    for i in range(sys.getrecursionlimit() + 500):
        merged = mutation.Storage(f"v{i + 1}")  # type: ignore[arg-type]
        merged.alias = mutation.MaybeAlias((chain[-1],), (chain[-1].value,), f"f.py:{i}", "`if`")
        mutation._adopt(merged, [chain[-1]])  # noqa: SLF001  (as mark_alias does)
        chain.append(merged)
    chain[-1].alias.check_read()
    chain[-1].alias.check_read()
    chain[-1].value = "the last one written"  # type: ignore[assignment]  (no merged array may be it: no check changes)
    chain[-1].alias.check_read()
    first.value = "v0 written"  # type: ignore[assignment]
    with pytest.raises(NotImplementedError, match="f.py:0, the same array as one from before it"):
        chain[-1].alias.check_read()


def test_fusion_keeps_the_chain_of_path_flags_to_a_bounded_number_of_inputs(tmp_path) -> None:
    """The flags saying where the result is the argument are and-ed down the chain of ifs: fused
    into one generic, it gathered an input per ``if`` and fusing it cost time in the square of
    their number. No fused generic reads more than MAX_INPUTS inputs, and the answer is NumPy's."""
    from xdsl.dialects.linalg import GenericOp
    from xdsl.parser import Parser

    from kiln.passes.linalg_fuse_elementwise import MAX_INPUTS
    from kiln.universe import make_context

    f = _ifs_without_else(tmp_path, 3 * MAX_INPUTS)
    compiled = kiln.function(f)
    text = compiled.get_concrete_function(np.zeros(4)).lowered("tensor")
    inputs = [len(op.inputs) for op in Parser(make_context(), text).parse_module().walk() if isinstance(op, GenericOp)]
    assert max(inputs) <= MAX_INPUTS and sum(inputs) >= 3 * MAX_INPUTS
    for start in (np.zeros(4), np.arange(4.0) * 40.0):
        np.testing.assert_array_equal(compiled(start.copy()), f(start.copy()))


def test_guarded_arrays_are_found_by_their_contents_now() -> None:
    """Each traced op asks which guarded arrays its operands are the contents of: the guard set
    keeps them by contents (going through every guarded array per operand was quadratic), follows
    a change of contents, and forgets an array no one holds."""
    import gc

    guards = mutation._Guards()  # noqa: SLF001
    a, b = mutation.Storage("v1"), mutation.Storage("v1")  # type: ignore[arg-type]  (stand-ins for SSA values)
    guards.add(a)
    guards.add(b)
    guards.add(a)
    assert guards.holding("v1") == [a, b] and len(guards) == 2  # type: ignore[arg-type]
    a.value = "v2"  # type: ignore[assignment]
    assert guards.holding("v1") == [b] and guards.holding("v2") == [a]  # type: ignore[arg-type]
    del b
    gc.collect()
    assert guards.holding("v1") == [] and list(guards) == [a]  # type: ignore[arg-type]


def test_shares_answers_as_sharing_does() -> None:
    """``shares(s)`` (asked by a staged loop per carried array) is whether ``sharing([s], s)`` has
    anything, read off the array's own outers and dependents instead of the whole set."""
    alone, outer, merged, self_merged, gone = (mutation.Storage(f"v{i}") for i in range(5))  # type: ignore[arg-type]
    merged.alias = mutation.MaybeAlias((outer,), (outer.value,), "f.py:1", "`if`")
    mutation._adopt(merged, [outer])  # noqa: SLF001
    self_merged.alias = mutation.MaybeAlias((self_merged,), (self_merged.value,), "f.py:2", "`if`")
    mutation._adopt(self_merged, [self_merged])  # noqa: SLF001
    dead = mutation.Storage("v9")  # type: ignore[arg-type]
    mutation._adopt(dead, [gone])  # noqa: SLF001  (a dependent without a MaybeAlias)
    for storage, want in ((alone, False), (outer, True), (merged, True), (self_merged, False), (gone, False)):
        assert mutation.shares(storage) is want
        assert bool(mutation.sharing([storage], storage)) is want
