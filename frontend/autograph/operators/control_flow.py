"""``if_stmt``, ``while_stmt``, ``for_stmt``, ``if_exp``: run Python for Python values, stage for tensors.

The decision is taken where the value is known: a ``while`` loop whose test
becomes a tensor after some Python iterations hands the rest of the loop to
staging with the state as it is then.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import Any

from kiln.frontend import mutation, trace_context
from kiln.frontend.autograph import counted_iterables, staging
from kiln.frontend.autograph.staging import GetState, SetState


def if_stmt(
    cond: Any,
    body: Callable[[], None],
    orelse: Callable[[], None] | None,
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
    dead_names: tuple[str, ...] = (),
) -> None:
    """``dead_names``: names a branch binds that are not used after the ``if`` (their values
    follow the state's in ``get_state``); a staged ``if`` resets them before each branch."""
    if staging.is_tensor(cond):
        staging.staged_if(cond, body, orelse, get_state, set_state, symbol_names, dead_names)
    elif cond:
        body()
    elif orelse is not None:
        orelse()


def while_stmt(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """A test on Python values runs Python's loop; once :data:`staging.UNROLL_AT_MOST` iterations
    have added ops to the trace, the rest is staged as a loop where that keeps Python's meaning
    (:func:`staging.staged_python_while`), so compile time does not grow with the trip count."""
    traced = 0  # iterations that added ops to the trace
    tried = False
    while True:
        cond = test()
        if staging.is_tensor(cond):
            staging.staged_while(test, body, get_state, set_state, symbol_names)
            return
        if not cond:
            return
        if traced >= staging.UNROLL_AT_MOST and not tried:
            tried = True
            if staging.staged_python_while(test, body, get_state, set_state, symbol_names):
                return
        last = _last_op()
        body()
        if _last_op() is not last:
            traced += 1
            mutation.forget_unreachable()
            staging.unrolled_iteration("while")


def _last_op() -> Any:
    """The last op of the block being traced (None outside a trace): whether an iteration added ops."""
    ctx = trace_context.current()
    return None if ctx is None else ctx.block.last_op


def for_stmt(
    iter_: Iterable[Any],
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    if staging.is_staged_iterable(iter_):
        init = get_state()
        try:
            staging.staged_for(iter_, extra_test, body, get_state, set_state, symbol_names)
        except NotImplementedError as error:  # a Python effect over rows of a static count: Python's loop, as for a range
            rows = staging.unrollable_rows(iter_, error)
            if rows is None:
                raise
            set_state(init)
            with staging.unrolled(rows):
                _python_for((iter_[i] for i in range(rows)), extra_test, body, get_state, set_state, symbol_names)
        return
    if isinstance(iter_, counted_iterables.StackedItems):  # a comprehension over a list of traced numbers
        if not staging.staged_items(iter_, extra_test, body, get_state, set_state, symbol_names):
            with staging.unrolled(len(iter_.items)):
                _python_for(iter_, extra_test, body, get_state, set_state, symbol_names)
        return
    if type(iter_) is range:
        if staging.staged_python_range(iter_, extra_test, body, get_state, set_state, symbol_names):
            return
        with staging.unrolled(len(iter_)):
            _python_for(iter_, extra_test, body, get_state, set_state, symbol_names)
        return
    counted = counted_iterables.positions(iter_)
    if counted is not None:
        if staging.staged_python_counted(*counted, extra_test, body, get_state, set_state, symbol_names):
            if iter(iter_) is iter_:  # an iterator: used up, as after Python's loop (at C speed: n may be large)
                collections.deque(iter_, maxlen=0)
            return
        with staging.unrolled(len(counted[0])):
            _python_for(iter_, extra_test, body, get_state, set_state, symbol_names)
        return
    rows = staging.rows_plan(iter_)
    if rows is not None and staging.staged_rows(iter_, *rows, extra_test, body, get_state, set_state, symbol_names):
        return
    if staging.python_effect(body) is None:
        items = staging.sequence_items(iter_)
        if items is not None and staging.staged_python_sequence(items, extra_test, body, get_state, set_state, symbol_names):
            for _ in iter_ if not isinstance(iter_, (list, tuple)) else ():  # (a zip or enumerate ends used up)
                pass
            return
    _python_for(iter_, extra_test, body, get_state, set_state, symbol_names)


def _python_for(
    iter_: Iterable[Any],
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """Python's own loop (unrolled while tracing); a ``break`` flag that becomes a tensor stages the rest."""
    items = iter(iter_)
    traced = 0  # iterations that added ops to the trace
    while True:
        if extra_test is not None:
            more = extra_test()  # before the next item is fetched, as after a Python `break`
            if staging.is_tensor(more):
                staging.staged_for(items, extra_test, body, get_state, set_state, symbol_names)
                return
            if not more:
                return
        try:
            item = next(items)
        except StopIteration:
            return
        last = _last_op()
        body(item)
        if _last_op() is not last:
            traced += 1
            mutation.forget_unreachable()
            staging.unrolled_iteration("for")


def if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any]) -> Any:
    if staging.is_tensor(cond):
        return staging.staged_if_exp(cond, if_true, if_false)
    return if_true() if cond else if_false()


def returning(value: Any, falls_off: bool = False) -> Any:
    """``retval_ = value`` of a ``return`` the ``return`` converter lowered (staging.returning)."""
    return staging.returning(value, falls_off)


def returned(value: Any, variable: str) -> Any:
    """``return retval_``, the one ``return`` a function with early returns ends with:
    ``variable`` names the return value the ``return`` converter carries (staging.returned)."""
    return staging.returned(value, variable)
