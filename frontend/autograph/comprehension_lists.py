"""The list a staged comprehension builds: its elements stacked in one tensor, kept lazy.

``[np.sum((x - y) ** 2) for x in X]`` over a tensor is one staged loop (converters.comprehensions),
whose element values are the rows of one ``(n, ...)`` tensor. A :class:`StagedList` holds that
tensor and the kind of its elements (NumPy values, Python numbers, or lists themselves, for a
nested comprehension), and with a filter on traced data the mask of the kept rows (its length is
then known only when the call runs, as ``x[mask]``'s). AutoGraph stages only a comprehension whose
list is read whole (converters.comprehensions): ``len``, ``np.array``, ``sum``/``min``/``max``/
``any``/``all`` and ``np.*`` take the stacked tensor; returned, it comes back as a Python list of
the elements' kinds (:meth:`__kiln_pytree__`). Iterating it gives the list of its elements (each
a row of the tensor); for a filtered list that is refused naming the line, as kiln cannot know
how many there are.
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
        self._home = _region()

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
        if self.kind != PYTHON:
            return value
        number = python_number(value)
        number.weak = True  # (a Python complex too, as complex() makes one)
        return number

    # ------------------------------------------------------------------ as a Python list

    def items(self) -> list[Any]:
        """The elements as a Python list: made once where the list was made (changes to it are the
        list's); one made inside a staged construct the list is outside of is that region's, not kept."""
        if self._items is not None:
            return self._items
        if self.mask is not None:
            self.refuse("this use of it")
        made = [self.element(self.values[i]) for i in range(self.values.shape[0])]
        if _region() == self._home:
            self._items = made
        return made

    def refuse(self, what: str) -> NoReturn:
        raise NotImplementedError(
            f"{trace_context.here()}: {what} is not supported inside kiln.function: the list made by a comprehension"
            f"{' at ' + self.where if self.where else ''} keeps the elements a condition on traced values selects, so its length is known only "
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

    # ------------------------------------------------------------------ staged state (see autograph.state)

    def __kiln_flatten__(self) -> tuple[Hashable, list[tuple[str, Any]]]:
        if self._items is not None:
            return None, [("items", self._items)]
        parts = [("values", self.values)] + ([("mask", self.mask)] if self.mask is not None else [])
        return self.kind, parts

    @classmethod
    def __kiln_unflatten__(cls, aux: Hashable, leaves: list[Any]) -> StagedList:
        if aux is None:
            new = cls(leaves[0], None)
            new._items = leaves[0]
            return new
        return cls(leaves[0], aux, leaves[1] if len(leaves) > 1 else None)

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


def _region() -> int:
    """How deep in staged constructs (branches, loop bodies) the code being traced is."""
    ctx = trace_context.current()
    return 0 if ctx is None else len(ctx.enclosing)


def _arrays(values: tuple[Any, ...]) -> list[Any]:
    return [v.__kiln_tensor__() if isinstance(v, StagedList) else v for v in values]


def rebuild(kind: Kind, values: np.ndarray) -> list[Any]:
    """The Python list the stacked ``values`` of elements of ``kind`` stand for."""
    if isinstance(kind, tuple):
        return [rebuild(kind[1], row) for row in values]
    if kind == PYTHON:
        return values.tolist()
    return [row.copy() if row.ndim else row[()] for row in values]
