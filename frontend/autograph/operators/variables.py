"""``Undefined``: the value of a variable a construct binds before Python would have bound it."""

from __future__ import annotations

from typing import Any, NoReturn


class Undefined:
    """A variable not bound yet; using it raises ``UnboundLocalError`` as Python would have.

    The staging hooks see it in a state tuple and report the variable (for
    example, bound in only one branch of a staged ``if``).
    """

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str):
        self.symbol_name = symbol_name

    def __repr__(self) -> str:
        return f"Undefined({self.symbol_name!r})"

    def _unbound(self, *_: Any) -> NoReturn:
        raise UnboundLocalError(f"local variable '{self.symbol_name}' referenced before assignment")

    def __getattr__(self, name: str) -> NoReturn:
        self._unbound()

    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = __setitem__ = __index__ = _unbound
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _unbound
    __floordiv__ = __mod__ = __pow__ = __matmul__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = _unbound


class _NotReturned:
    """The return value before a ``return`` ran (``retval_``'s first value): a placeholder that a
    staged ``if`` or loop may give any type or structure, since no path reads it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_RETURNED"


NOT_RETURNED = _NotReturned()


def get_no_state() -> tuple[()]:
    """``get_state`` of a construct that changes no variable seen after it."""
    return ()


def set_no_state(values: tuple[()]) -> None:
    """``set_state`` of a construct that changes no variable seen after it."""
