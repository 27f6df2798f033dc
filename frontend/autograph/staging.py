"""The staging hooks: what each operator calls when a condition or iterable is a tensor.

The operators in :mod:`kiln.frontend.autograph.operators` run plain Python
for Python values and call these hooks for kiln tensors; the hooks build
``graph.cond`` / ``graph.while`` (written by the frontend's tracer, not here).

Conventions shared by the hooks:

- ``get_state() -> tuple``: the current values of the construct's state
  variables, in ``symbol_names`` order; a variable not bound yet is an
  :class:`~kiln.frontend.autograph.operators.variables.Undefined`.
- ``set_state(values: tuple) -> None``: rebinds them (the generated code
  declares them ``nonlocal``).
- ``symbol_names: tuple[str, ...]``: their names, for error messages such as
  "variable 'x' is defined in only one branch". Generated names may appear:
  ``break_N``/``continue_N`` (loop flags), ``do_return`` and ``retval_`` (an
  early ``return`` and its value).
- Bodies and tests are closures over those variables; calling one once, in
  the region being traced, traces it. Bodies return nothing: their effect is
  on the state.
- :func:`unstageable` lists the constructs inside a body that cannot be
  staged (``try``, ``with``, ``global`` ...), to be raised as errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kiln.frontend.autograph.context import Unsupported

GetState = Callable[[], tuple[Any, ...]]
SetState = Callable[[tuple[Any, ...]], None]


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a kiln tensor (which decides staging over running Python)."""
    from kiln.frontend.tensor import Tensor

    return isinstance(value, Tensor)


def staged_if(
    cond: Any,
    body: Callable[[], None],
    orelse: Callable[[], None] | None,
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """``if cond: body() else: orelse()`` with a tensor ``cond``; ``orelse`` is ``None`` without ``else``."""
    raise NotImplementedError("staged if on a tensor condition: not implemented yet")


def staged_while(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """``while test(): body()`` once ``test()`` returned a tensor (possibly after Python iterations)."""
    raise NotImplementedError("staged while on a tensor condition: not implemented yet")


def staged_for(
    iter_: Any | Iterator[Any],
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: GetState,
    set_state: SetState,
    symbol_names: tuple[str, ...],
) -> None:
    """``for item in iter_: body(item)``, stopping when ``extra_test()`` is false (``break``/``return`` flags).

    ``iter_`` is a tensor (iterated over its first axis, or the result of
    ``kiln.range`` / ``range`` over tensors), or the remaining Python iterator
    when a Python loop's ``extra_test()`` returned a tensor.
    """
    raise NotImplementedError("staged for over a tensor: not implemented yet")


def staged_if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any]) -> Any:
    """``if_true() if cond else if_false()`` with a tensor ``cond``."""
    raise NotImplementedError("staged conditional expression on a tensor condition: not implemented yet")


def staged_and(value: Any, rest: Callable[[], Any]) -> Any:
    """``value and rest()`` where ``value`` (the first operand) is a tensor."""
    raise NotImplementedError("staged `and` on a tensor: not implemented yet")


def staged_or(value: Any, rest: Callable[[], Any]) -> Any:
    """``value or rest()`` where ``value`` (the first operand) is a tensor."""
    raise NotImplementedError("staged `or` on a tensor: not implemented yet")


def staged_not(value: Any) -> Any:
    """``not value`` for a tensor ``value``."""
    raise NotImplementedError("staged `not` on a tensor: not implemented yet")


def staged_range(*args: Any) -> Any:
    """``range(*args)`` where an argument is a tensor: the iterable a staged ``for`` loops over."""
    raise NotImplementedError("range over tensors: not implemented yet")


def unstageable(fn: Callable[..., Any]) -> list[Unsupported]:
    """Constructs inside the generated body ``fn`` that cannot be staged, in source order."""
    from kiln.frontend.autograph import transpiler

    code = fn.__code__
    lines = list(_lines(code))
    first, last = min(lines), max(lines)
    return sorted(
        (u for u in transpiler.unsupported_in(code.co_filename) if first <= u.lineno <= last), key=lambda u: u.lineno
    )


def _lines(code: Any) -> Iterable[int]:
    for _, _, line in code.co_lines():
        if line is not None:
            yield line
    for const in code.co_consts:
        if hasattr(const, "co_lines"):
            yield from _lines(const)
