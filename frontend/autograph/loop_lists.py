"""``LoopLists``: the Python lists of numbers a staged loop's body writes in place, carried by the loop.

``xs[j] = xs[j - 1]`` in a ``while`` on array data changes a Python list once per iteration; the
body is traced once, so the list's contents are made loop-carried state, as the loop's variables
are: each iteration enters with the contents the previous one left, and the list object itself
(the caller's, every alias) is given the loop's results after it. Which lists: those a trace of the
body changes (the watch of :mod:`kiln.frontend.autograph.effects` names each, and the loop is traced
again carrying it), when they are 1-d lists of numbers of the traced function (its own or an
argument's, not a global's or a closure's) that keep their length. A length that changes in the
loop (``append``, ``pop``), or a list holding other objects, stays refused naming the statement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kiln.frontend.autograph.effects import PythonEffectError, Watch
from kiln.frontend.tensor import Tensor

#: the most items a carried list may hold: each is a loop-carried value of its own, and a read at an
#: index known only at run time stacks them all, so a longer list would make compile time explode
MAX_ITEMS = 256


class LoopLists:
    """The lists one staged loop (its bodies watched by ``watch``) carries; none from the variables
    ``outer`` (from outside the traced function) or from a global, whose change would happen once
    per trace."""

    def __init__(self, watch: Watch, outer: frozenset[str]) -> None:
        self.watch = watch
        self.outer = outer
        self.carried: list[Any] = []

    def carry(self, error: PythonEffectError) -> bool:
        """Whether the list whose change ``error`` refused is one to carry; it is from now on."""
        found = next((w for w in self.watch.watched if w.obj is error.changed), None)
        if (found is None or found in self.carried or not isinstance(found.obj, list) or found.root in self.outer
                or found.root in self.watch.globals or not 0 < len(found.saved) <= MAX_ITEMS
                or not all(_is_number(x) for x in found.saved)):
            return False
        self.carried.append(found)
        self.watch.carried.append(found.obj)
        return True

    def restore(self) -> None:
        """Put each carried list back as it was before the loop (a try that failed)."""
        for w in self.carried:
            w.restore()

    def names(self, symbol_names: Sequence[str]) -> tuple[str, ...]:
        """The loop state's names: its variables', then each carried list's (``xs``, ``rows[0]``)."""
        return (*symbol_names, *(w.path for w in self.carried))

    def get_state(self, get_state: Callable[[], tuple[Any, ...]], construct: str) -> Callable[[], tuple[Any, ...]]:
        """``get_state`` with each carried list's contents after the variables; a length other
        than the list's before the loop is refused naming the statement."""
        def get() -> tuple[Any, ...]:
            for w in self.carried:
                if len(w.obj) != len(w.saved):
                    message = self._length_message(w, construct)
                    self.restore()
                    raise PythonEffectError(message, w.root)
            return (*get_state(), *(tuple(w.obj) for w in self.carried))

        return get

    def set_state(self, set_state: Callable[[tuple[Any, ...]], None], live: int) -> Callable[[tuple[Any, ...]], None]:
        """``set_state`` that also gives each carried list its contents, in place (its identity is the user's)."""
        def put(values: tuple[Any, ...]) -> None:
            set_state(values[:live])
            for w, items in zip(self.carried, values[live:]):
                w.obj[:] = items

        return put

    def _length_message(self, watched: Any, construct: str) -> str:
        site = self.watch.site_changing(watched.obj, watched.root)
        at = f"{site[0]}: `{site[1]}`" if site else f"{self.watch.where}: code this loop calls"
        return (f"{at} changes the length of the Python list '{watched.path}' inside a staged `{construct}` loop at "
                f"{self.watch.where}: the number of iterations is only known when the compiled code runs, so the "
                f"list's length would be too. A list written in a staged loop must keep its length; keep such values "
                "in kiln arrays (np.zeros(n) written with x[i] = v) or a kiln.TensorArray, or make the loop bounds "
                "Python values")


def _is_number(item: Any) -> bool:
    """A Python number, or a traced 0-d value (a list argument's number, a NumPy scalar)."""
    if isinstance(item, Tensor):
        return item.ndim == 0
    return type(item) in (bool, int, float, complex)
