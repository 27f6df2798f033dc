"""Lists and dicts a ``kiln.function`` takes are the caller's Python objects (docs/python-semantics.md).

The trace gets its own copies of them (their arrays and Python numbers become traced leaves), so
what the function does to them must reach the caller's objects after the call: a write
``xs[1] = v``, an ``append`` or ``d["k"] = v`` changes the caller's list or dict, and a result that
*is* an argument list (``return xs``) is that same list. :func:`snapshot` records the argument
containers before the trace runs the function; after it, :meth:`Snapshot.effects` gives the
result with each argument container replaced by a :class:`ContainerRef` and the new contents of
those that changed. When the compiled function is called, :func:`apply` writes those contents into
the caller's containers and puts the caller's objects where the refs are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kiln.frontend import pytree

Container = list[Any] | dict[Any, Any]


class ArgumentList(list):  # type: ignore[type-arg]
    """A list argument as the traced function sees it: a Python list in every respect (``xs * 2``
    repeats it, ``xs + ys`` joins), which NumPy's functions also take as an array, as NumPy takes a
    list (``np.sum(xs)``, ``np.sqrt(xs)``): its traced elements are stacked into one."""

    __slots__ = ("packed",)

    #: (the 1-d argument the list was unpacked from, its elements then): see kiln.frontend.list_numbers
    packed: tuple[Any, tuple[Any, ...]] | None

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.packed = None

    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return func(*_arrays(args), **_arrays(kwargs))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return getattr(ufunc, method)(*_arrays(inputs), **_arrays(kwargs))


# the user's list, as messages name it ("mutates the Python list 'xs'"), not kiln's class
ArgumentList.__name__ = ArgumentList.__qualname__ = "list"


def _arrays(obj: Any) -> Any:
    """``obj`` (a NumPy function's arguments) with each ArgumentList in it as a kiln array."""
    from kiln.frontend.creation import asarray  # (creation imports the tracer's tensors)

    if isinstance(obj, ArgumentList):
        if packed_unchanged(obj):
            return asarray(obj.packed[0]).copy()  # unchanged since the call: the argument's own array
        return asarray(list(obj))
    if isinstance(obj, tuple):
        return tuple(_arrays(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _arrays(v) for k, v in obj.items()}
    return obj


def packed_unchanged(obj: ArgumentList) -> bool:
    """Whether ``obj``, unpacked from an argument array, still holds what it was unpacked into (and
    so do the lists it holds, for an N-d one): that array is then its contents."""
    if obj.packed is None or len(obj) != len(obj.packed[1]) or any(a is not b for a, b in zip(obj, obj.packed[1])):
        return False
    return all(packed_unchanged(item) for item in obj if isinstance(item, ArgumentList))


def traced_lists(obj: Any) -> Any:
    """``obj`` (the traced call's arguments) with each list an :class:`ArgumentList`."""
    if isinstance(obj, ArgumentList) or _held(obj):
        return obj  # (unpacked from a NumberList argument, or held as one array)
    if isinstance(obj, list):
        return ArgumentList(traced_lists(x) for x in obj)
    return pytree.map_children(obj, traced_lists)


class ContainerRef:
    """A result leaf that stands for the caller's ``index``-th argument list or dict."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __repr__(self) -> str:
        return f"ContainerRef({self.index})"


def containers(args: Sequence[Any], kwargs: dict[str, Any]) -> list[Container]:
    """The lists and dicts among a call's arguments, outermost first, in argument order (the
    traced call's and the caller's are listed alike, as their signature keys are equal)."""
    found: list[Container] = []
    for arg in (*args, *kwargs.values()):
        _collect(arg, found)
    return found


def _held(obj: Any) -> bool:
    """Whether ``obj`` is a list held as one array (kiln.frontend.list_arrays.HeldList): it holds
    numbers only, and says by ``__kiln_contents__`` what it holds, without reading each one."""
    return hasattr(type(obj), "__kiln_contents__")


def _collect(obj: Any, found: list[Container]) -> None:
    if isinstance(obj, (list, dict)):
        found.append(obj)
    if _held(obj):
        return
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _collect(item, found)
    elif isinstance(obj, dict):
        for item in obj.values():
            _collect(item, found)


def _items(container: Container) -> list[Any]:
    if _held(container):
        return list(container.__kiln_contents__())  # type: ignore[union-attr]
    return list(container.items()) if isinstance(container, dict) else list(container)


def _same(before: list[Any], after: list[Any], is_dict: bool) -> bool:
    if len(before) != len(after):
        return False
    if is_dict:
        return all(k0 == k1 and v0 is v1 for (k0, v0), (k1, v1) in zip(before, after))
    return all(a is b for a, b in zip(before, after))


@dataclass
class Snapshot:
    """The argument containers of a traced call and their contents before the function ran."""

    found: list[Container]
    initial: list[list[Any]]

    def changed(self) -> tuple[int, ...]:
        """The containers whose contents the function changed (by index in :func:`containers` order)."""
        return tuple(k for k, (c, before) in enumerate(zip(self.found, self.initial))
                     if not _same(before, _items(c), isinstance(c, dict)))

    def with_refs(self, obj: Any, keep: Container | None = None) -> Any:
        """``obj`` rebuilt with each argument container in it (but ``keep``) as a ContainerRef."""
        if obj is not keep:
            for k, c in enumerate(self.found):
                if obj is c:
                    return ContainerRef(k)
        return pytree.map_children(obj, self.with_refs)

    def effects(self, result: Any) -> tuple[Any, tuple[int, ...] | None]:
        """What the compiled function returns instead of ``result`` when the function changed an
        argument container or returns one: ``(result with refs, new contents of each changed
        one)``, and the changed ones' indices; ``result`` itself and None when neither."""
        changed = self.changed()
        with_refs = self.with_refs(result)
        if not changed and not _holds_ref(with_refs):
            return result, None
        contents = tuple(self.with_refs(self.found[k], keep=self.found[k]) for k in changed)
        return (with_refs, contents), changed


def _holds_ref(obj: Any) -> bool:
    return any(isinstance(leaf, ContainerRef) for leaf in pytree.flatten(obj)[0])


def snapshot(args: Sequence[Any], kwargs: dict[str, Any]) -> Snapshot:
    """The argument containers of the traced call, before the function runs."""
    found = containers(args, kwargs)
    return Snapshot(found, [_items(c) for c in found])


def check_distinct(name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    """Refuse a call whose lists and dicts are not all distinct objects (``f(xs, xs)``, or
    ``[row, row]``) to a function that changes one: the trace had a copy of each, so a write
    through one would not show in the other, as it does in Python."""
    found = containers(args, kwargs)
    if len({id(c) for c in found}) != len(found):
        raise TypeError(
            f"{name} changes a list or dict it takes, and this call passes one list or dict in two places "
            "(the same object twice, or held twice in an argument): kiln cannot give Python's answer for "
            "that; pass distinct lists (e.g. [list(row) for row in rows])"
        )


def apply(out: tuple[Any, tuple[Any, ...]], changed: Sequence[int], args: Sequence[Any],
          kwargs: dict[str, Any]) -> Any:
    """The function's result from the compiled function's ``out`` (see :meth:`Snapshot.effects`):
    the changed contents are written into the caller's containers, and the refs become them."""
    result, contents = out
    caller = containers(args, kwargs)

    def resolve(obj: Any) -> Any:
        if isinstance(obj, ContainerRef):
            return caller[obj.index]
        return pytree.map_children(obj, resolve)

    new = [resolve(c) for c in contents]
    for k, items in zip(changed, new):
        target = caller[k]
        if isinstance(target, dict):
            target.clear()
            target.update(items)
        else:
            target[:] = items
    return resolve(result)
