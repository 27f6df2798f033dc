"""The list a staged comprehension builds: its elements stacked in one tensor, kept lazy.

``[np.sum((x - y) ** 2) for x in X]`` over a tensor is one staged loop (converters.comprehensions),
whose element values are the rows of one ``(n, ...)`` tensor. A :class:`StagedList` holds that
tensor and the kind of its elements (NumPy values, Python numbers, or lists themselves, for a
nested comprehension), and with a filter on traced data the mask of the kept rows (its length is
then known only when the call runs, as ``x[mask]``'s). It is Python's list for what a function
does with it: ``len``, ``np.array``, ``sum``/``min``/``max``/``any``/``all`` and ``np.*`` take the
stacked tensor whole; indexing, iteration and list methods work on the list of its elements
(made on first use, each a row of the tensor); returned, it comes back as a Python list of the
elements' kinds (:meth:`__kiln_pytree__`). What needs the elements of a filtered list one by one
is refused naming the line, as kiln cannot know how many there are.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any, NoReturn

import numpy as np

from kiln.frontend import trace_context
from kiln.frontend.masked import MaskedSelection
from kiln.frontend.tensor import Tensor, as_tensor, python_number

#: what an element is: a NumPy value (an array or scalar), a Python number, or a StagedList
NUMPY, PYTHON = "numpy", "python"
Kind = Any  # NUMPY, PYTHON, or ("list", Kind)


class StagedList:
    """A Python list of ``len(values)`` elements (the kept ones where ``mask`` is set)."""

    def __init__(self, values: Tensor, kind: Kind, mask: Tensor | None = None, where: str = ""):
        self.values, self.kind, self.mask, self.where = values, kind, mask, where
        self._items: list[Any] | None = None

    # ------------------------------------------------------------------ as one tensor

    def __kiln_tensor__(self) -> Tensor:
        """The elements stacked (``np.array(lst)``); of a filtered list, only where NumPy's
        ``np.array`` of a list of any length, none included, is float64 (its elements are)."""
        if self._items is not None:
            return as_tensor(self._items)
        if self.mask is None:
            return self.values.copy()  # a new array, as NumPy's of a list: a write into it leaves the list
        if isinstance(self.kind, tuple) or self.values.ndim != 1 or self.values.dtype != np.float64:
            self.refuse(
                f"np.array of it (its elements are {self.values.dtype} of shape {self.values.shape[1:]}, and NumPy's "
                "array of an empty list is float64 of shape (0,), so the result's type would depend on the data)"
            )
        return self.selection().compressed()

    def items_unmade(self) -> bool:
        """Whether no one asked for the elements one by one (the stacked values are still the list)."""
        return self._items is None

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """NumPy functions take the list as NumPy takes a list: as the array of its elements."""
        return func(*_arrays(args), **dict(zip(kwargs, _arrays(tuple(kwargs.values())))))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return getattr(ufunc, method)(*_arrays(inputs), **kwargs)

    def selection(self) -> MaskedSelection:
        """The kept rows, lazily (``x[mask]``)."""
        assert self.mask is not None
        return MaskedSelection(None, self.mask, self.values)

    def element(self, value: Tensor) -> Any:
        """A row of the stacked values as the element it stands for."""
        if isinstance(self.kind, tuple):
            return StagedList(value, self.kind[1], where=self.where)
        return python_number(value) if self.kind == PYTHON else value

    # ------------------------------------------------------------------ as a Python list

    def items(self) -> list[Any]:
        """The elements as a Python list (made once: changes to it are the list's)."""
        if self._items is None:
            if self.mask is not None:
                self.refuse("this use of it")
            self._items = [self.element(self.values[i]) for i in range(self.values.shape[0])]
        return self._items

    def refuse(self, what: str) -> NoReturn:
        raise NotImplementedError(
            f"{trace_context.here()}: {what} is not supported inside kiln.function: the list made by the comprehension "
            f"at {self.where} keeps the elements a condition on traced values selects, so its length is known only "
            "when the call runs; kiln supports len, sum, min, max, any, all, np.array and np.mean of it, and returning it"
        )

    def __len__(self) -> int:
        if self._items is None and self.mask is None:
            return int(self.values.shape[0])
        return len(self.items())

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items())

    def __getitem__(self, key: Any) -> Any:
        return self.items()[key]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not hasattr(list, name):
            raise AttributeError(name)
        return getattr(self.items(), name)  # append, pop, index, copy ...

    def __repr__(self) -> str:
        return f"StagedList({self.values!r})"

    def __kiln_pytree__(self) -> tuple[Hashable, list[Any]]:
        """Returned: the stacked (or kept) values, made a list of the elements' kinds again by :func:`rebuild`."""
        if self._items is not None:
            return None, [self._items]
        return self.kind, [self.values if self.mask is None else self.selection().compressed()]

    @staticmethod
    def __kiln_rebuild__(kind: Hashable, leaves: list[Any]) -> list[Any]:
        (value,) = leaves
        return value if kind is None else rebuild(kind, np.asarray(value))


def _arrays(values: tuple[Any, ...]) -> list[Any]:
    return [v.__kiln_tensor__() if isinstance(v, StagedList) else v for v in values]


def rebuild(kind: Kind, values: np.ndarray) -> list[Any]:
    """The Python list the stacked ``values`` of elements of ``kind`` stand for."""
    if isinstance(kind, tuple):
        return [rebuild(kind[1], row) for row in values]
    if kind == PYTHON:
        return values.tolist()
    return [row.copy() if row.ndim else row[()] for row in values]


def _list_methods() -> None:
    """Python's list operators on the elements (``lst + [1]``, ``v in lst``, ``lst == other``)."""
    for name in ("__add__", "__radd__", "__mul__", "__rmul__", "__contains__", "__eq__", "__ne__", "__reversed__",
                 "__setitem__", "__delitem__", "__iadd__", "__imul__", "__lt__", "__le__", "__gt__", "__ge__"):
        def method(self: StagedList, *args: Any, _name: str = name) -> Any:
            items = self.items()
            if _name == "__radd__":
                return args[0] + items
            if _name in ("__iadd__", "__imul__"):
                getattr(items, _name)(*args)
                return self
            return getattr(items, _name)(*args)
        setattr(StagedList, name, method)


_list_methods()
StagedList.__hash__ = None  # type: ignore[assignment]
