"""``BranchLists``: the Python lists and dicts a staged ``if`` changes in place, carried as its results.

``out.append(v)``, ``xs.pop()``, ``xs[0] = v``, ``del xs[1]`` or ``d['k'] = v`` in a branch of a
staged ``if`` changes a Python list or dict on one path only. Both branches are traced, so each
one's change is taken as that path's contents of the list (a dict's: its values, key by key), and
the container put back as it was for the other branch; the contents become results of the ``if``,
merged like its variables, and the container itself (the object every alias and an argument's
caller hold) is given the merged contents after it. That keeps Python's meaning where a list has
one length on every path and a dict its keys; another length, or a key added or removed, is
refused naming the ``if`` and the statement (see :mod:`kiln.frontend.autograph.effects`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kiln.frontend.autograph.effects import PythonEffectError, Watch
from kiln.frontend.autograph.operators.variables import NOT_RETURNED

#: a variable whose value on a path is never seen (``NOT_RETURNED`` where that path raised or returned)
_UNSEEN = object()


class BranchLists:
    """The lists that the branches of one staged ``if`` (watched by ``watch``) may change; not those
    reached from a global or a variable in ``outer`` (from outside the traced function), whose
    change would happen once per trace: they stay refused."""

    def __init__(self, watch: Watch, outer: frozenset[str], changed_by_calls: Sequence[Any] = ()) -> None:
        self.watch = watch
        self.outer = outer
        self.watched = watch.lists_written_in_bodies(outer, changed_by_calls)
        watch.carried += [w.obj for w in self.watched]
        #: per traced path, the contents it left in each list
        self.paths: list[tuple[tuple[Any, ...], ...]] = []
        #: the keys each dict has after the first traced path (None for a list): every path's
        self.keys: tuple[list[Any] | None, ...] = ()
        #: per traced path, the list each variable of the state holds (None: another value)
        self.holders: list[tuple[Any, ...]] = []

    def carries(self, error: PythonEffectError) -> bool:
        """Whether the object whose change ``error`` refused (a function a branch calls changed it)
        is a list or dict the ``if`` can carry, that it does not yet."""
        found = next((w for w in self.watch.watched if w.obj is error.changed), None)
        return (found is not None and isinstance(found.obj, (list, dict)) and found not in self.watched
                and found.root not in self.outer and found.root not in self.watch.globals)

    @property
    def names(self) -> tuple[str, ...]:
        """How the state names each list's contents (its variable and the way to it: ``out``, ``d['k']``)."""
        return tuple(w.path for w in self.watched)

    @property
    def roots(self) -> frozenset[str]:
        """The variables the lists are reached from: a ``return`` on a path does not end them."""
        return frozenset(w.root for w in self.watched)

    def detached(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """At the end of a traced branch, before :meth:`taken` puts the lists back: ``state`` (the
        variables the ``if`` merges) with every list it changes, wherever a variable holds it
        (``retval_ = lst`` of a ``return`` inside the branch), replaced by a copy of what the branch
        left in it, so that the merged variable holds this path's contents."""
        ids = {id(w.obj): w.obj for w in self.watched}
        self.holders.append(tuple(ids.get(id(v)) if v is not NOT_RETURNED else _UNSEEN for v in state))
        return tuple(_copied(v, ids) for v in state)

    def reattached(self, merged: tuple[Any, ...]) -> tuple[Any, ...]:
        """After :meth:`write_back`: a variable that holds one list on every path where it is seen
        holds that list again (Python's identity: ``return lst`` returns the caller's list)."""
        out = list(merged)
        for k in range(len(out)):
            held = {id(h[k]): h[k] for h in self.holders if h[k] is not _UNSEEN}
            if len(held) == 1 and (obj := next(iter(held.values()))) is not None:
                out[k] = obj
        return tuple(out)

    def taken(self) -> tuple[tuple[Any, ...], ...]:
        """At the end of a traced branch: what it left in each list, the list put back as it was
        before the ``if``. A length other than the first path's is refused."""
        contents = tuple(tuple(w.obj.values() if isinstance(w.obj, dict) else w.obj) for w in self.watched)
        keys = tuple(list(w.obj) if isinstance(w.obj, dict) else None for w in self.watched)
        for w, first, now in zip(self.watched, self.keys or keys, keys):
            if first != now:
                message = self._keys_message(w, first, now)  # type: ignore[arg-type]
                self.watch.restore()
                raise PythonEffectError(message)
        self.keys = keys
        for w in self.watched:
            w.restore()
        if self.paths:
            for w, first, now in zip(self.watched, self.paths[0], contents):
                if len(first) != len(now):
                    raise PythonEffectError(self._length_message(w, len(first), len(now)))
        self.paths.append(contents)
        return contents

    def write_back(self, merged: tuple[Any, ...]) -> None:
        """Give each list its contents ``merged`` after the ``if``, in place; an item both paths left
        as one object stays that object (an inner list keeps its identity)."""
        for k, (w, items) in enumerate(zip(self.watched, merged)):
            first = self.paths[0][k]
            kept = [first[i] if all(path[k][i] is first[i] for path in self.paths) else item for i, item in enumerate(items)]
            if isinstance(w.obj, dict):
                w.obj.clear()
                w.obj.update(zip(self.keys[k], kept))  # type: ignore[arg-type]
            else:
                w.obj[:] = kept

    def _length_message(self, watched: Any, first: int, now: int) -> str:
        return self._paths_differ(
            watched, f"changes the length of the Python list '{watched.path}'",
            f"it holds {first} items after the `if` branch and {now} after the `else` branch",
            "A list changed under a staged `if` must keep one length on every path; keep such values in kiln "
            "arrays (np.zeros(n) written with x[i] = v) or a kiln.TensorArray, or make the condition Python values")

    def _keys_message(self, watched: Any, first: list[Any], now: list[Any]) -> str:
        return self._paths_differ(
            watched, f"changes the keys of the Python dict '{watched.path}'",
            f"it has the keys {first} after the `if` branch and {now} after the `else` branch",
            "A dict changed under a staged `if` must have the same keys on every path: give it every key before "
            "the `if`, or make the condition Python values")

    def _paths_differ(self, watched: Any, change: str, paths: str, fix: str) -> str:
        """The refusal of a container the two paths leave unlike (``change``, ``paths``: how), naming the statement and the ``if``."""
        site = self.watch.site_changing(watched.obj, watched.root)
        at = f"{site[0]}: `{site[1]}`" if site else f"{self.watch.where}: code this `if` calls"
        return (f"{at} {change} inside a staged `if` at {self.watch.where}: {paths}, and which one runs is only "
                f"known when the compiled code runs. {fix}")


def _copied(value: Any, lists: dict[int, Any]) -> Any:
    """``value`` with each of ``lists`` (the lists and dicts carried) in it (in lists, tuples and
    dicts) copied; a container holding none of them is ``value``'s own (its identity is the user's)."""
    if id(value) in lists:
        if isinstance(value, dict):
            return {k: _copied(v, lists) for k, v in value.items()}
        return [_copied(v, lists) for v in value]
    if type(value) in (list, tuple):
        items = [_copied(v, lists) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if type(value) is dict:
        entries = {k: _copied(v, lists) for k, v in value.items()}
        return value if all(entries[k] is v for k, v in value.items()) else entries
    return value

