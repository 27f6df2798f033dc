"""Rectangular lists of Python numbers read and written at staged indices, held as one array.

``D = [[0 for c in range(m)] for r in range(n)]`` written ``D[i][j] = v`` in a staged ``for i in
range(n)`` loop, or an argument ``X`` (``float list list``) read ``X[i][k]``: a trace cannot pick
one of the Python lists at a traced ``i``, and carrying every number through the loop as a value
of its own makes compile time grow with the element count. So such a list is held as one array:

- Before a ``range`` loop is staged, each rectangular list of lists of Python ints and floats the
  loop changes (one the function made, whose inner lists nothing else holds) becomes
  :class:`ArrayRow` views of one :class:`ArrayBase` (:func:`pack_state`): the list keeps its
  identity, its rows read and write the array, and the loop carries the array as it carries any
  array the body writes.
- An argument list of lists, unchanged since the call, is its own N-d argument array
  (kiln.frontend.list_numbers); its rows at a traced index are read-only views of it.
- ``list(range(n))`` (n >= :data:`HELD_FROM`) and ``list(xs)`` of such a list are held lists too.
- A long 1-d argument list of Python numbers of one type (:data:`HELD_FROM` items or more) is a
  :class:`HeldList`: one :class:`ArrayRow` of a copy of its argument array, so that nothing the
  trace does grows with its length (an element is read where the function reads it, ``for v in
  xs`` is one staged loop, ``min(xs)`` one reduction); writes of numbers of its type are carried
  back to the caller's list, and what would change its length is refused naming the line.

Elements stay Python numbers: an int list's array holds floats plus each element's Python type
(an int8 kind per element, as a staged ``if`` merges an int and a float), so ``D[i][j] = 0.5`` into
a list of ``0`` makes that element a float and leaves the others ints, as Python does; an int
written is exact below 2**53, checked when the call runs. A list of floats takes floats only. What
would change a row's length, or a value of another type, is refused naming the line.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from kiln.frontend import creation, list_numbers, pytree, result_kinds, runtime_checks, trace_context
from kiln.frontend.argument_containers import ArgumentList, packed_unchanged
from kiln.frontend.tensor import Tensor, as_scalar, as_tensor

_PYTHON_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_KIND = {int: np.int8(result_kinds.PYTHON_INT), float: np.int8(result_kinds.PYTHON_FLOAT)}
#: an int a float64 holds exactly
_EXACT = 2.0 ** 53


class ArrayBase:
    """The array a rectangular list of numbers is held in: ``values``, and where its elements are
    not all floats, ``kinds`` (each element's Python type as a result kind); ``kind`` the one type
    where there is no ``kinds``. ``writable``: the function's own list, not an argument's view."""

    __slots__ = ("values", "kinds", "kind", "writable")

    def __init__(self, values: Tensor, kinds: Tensor | None, kind: type | None, writable: bool):
        self.values, self.kinds, self.kind, self.writable = values, kinds, kind, writable


class _Same:
    """A state leaf's structure that is the row itself (hashed and compared by identity)."""

    __slots__ = ("row",)

    def __init__(self, row: ArrayRow):
        self.row = row

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.row is self.row

    def __hash__(self) -> int:
        return id(self.row)


class ArrayRow(list):  # type: ignore[type-arg]
    """A row (at any depth) of a list held as an :class:`ArrayBase`: the elements at ``at`` (Python
    ints or traced 0-d ints), a Python list to the function that reads and writes the array."""

    __slots__ = ("base", "at")

    def __init__(self, base: ArrayBase, at: tuple[Any, ...]):
        super().__init__()
        self.base, self.at = base, at

    # -- reading
    def __len__(self) -> int:
        return int(self.base.values.shape[len(self.at)])

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return [self[k] for k in range(len(self))[key]]
        return self.item_at(_index(key, len(self)))

    def __iter__(self) -> Iterator[Any]:
        return RowIterator(self)

    def item_at(self, k: Any) -> Any:
        """The item at position ``k`` (a Python int or a staged loop's index, in range by construction:
        no run-time check), as a ``for`` over the row gets it."""
        index = (*self.at, k)
        if len(index) < self.base.values.ndim:
            return ArrayRow(self.base, index)
        value = list_numbers.python_number(as_scalar(self.base.values[index]))
        if self.base.kinds is not None:
            value.kind_flag = as_scalar(self.base.kinds[index])
        return value

    def __reversed__(self) -> Iterator[Any]:
        return (self[k] for k in reversed(range(len(self))))

    def _items(self) -> list[Any]:
        return [self[k] for k in range(len(self))]

    def __contains__(self, value: Any) -> bool:
        return value in self._items()

    def __eq__(self, other: Any) -> Any:
        return self._items() == (other._items() if isinstance(other, ArrayRow) else other)

    def __ne__(self, other: Any) -> Any:
        return not self == other

    def __bool__(self) -> bool:
        return len(self) > 0

    # -- to NumPy, as NumPy takes a list (its own storage is not the list's: see ArrayRow)
    def _array(self) -> Tensor:
        if self.base.kinds is not None:
            raise NotImplementedError(
                f"{trace_context.here()}: a NumPy function of a row of a list kiln holds as one array of Python "
                "ints and floats: NumPy's dtype would depend on the values' types, which kiln knows only per call. "
                "Make the values floats (float(v)), or build the array with a comprehension"
            )
        return self.base.values[self.at].copy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return np.asarray(self._array(), dtype=dtype)

    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return func(*_arrays(args), **_arrays(kwargs))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return getattr(ufunc, method)(*_arrays(inputs), **_arrays(kwargs))

    def __add__(self, other: Any) -> list[Any]:
        return self._items() + list(other)

    def __radd__(self, other: Any) -> list[Any]:
        return list(other) + self._items()

    def __mul__(self, n: Any) -> list[Any]:
        return self._items() * n

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return repr(self._items())

    def copy(self) -> list[Any]:
        return self._items()

    def index(self, value: Any, *args: Any) -> int:
        return self._items().index(value, *args)

    def count(self, value: Any) -> int:
        return self._items().count(value)

    # -- writing
    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, slice):
            _refuse("a slice assignment")
        index = (*self.at, _index(key, len(self)))
        if len(index) < self.base.values.ndim:
            _refuse("`xs[i] = ...` replaces a whole row")
        _write(self.base, index, value)

    def _changes_shape(self, *args: Any, **kwargs: Any) -> Any:
        _refuse("this changes the length or the order of a row")

    append = extend = insert = pop = remove = clear = sort = reverse = __delitem__ = _changes_shape
    __iadd__ = __imul__ = _changes_shape

    # -- as state of a staged construct: the row itself (the array is carried as written arrays are)
    def __kiln_flatten__(self) -> tuple[_Same, tuple[()]]:
        return _Same(self), ()

    @classmethod
    def __kiln_unflatten__(cls, aux: _Same, kids: list[Any]) -> ArrayRow:
        return aux.row


class RowIterator:
    """Python's iterator of a row held as one array: each item read when it is reached (a write
    before then shows, as in a list), and what is left readable without using it up
    (:meth:`rest`: ``zip``/``enumerate`` of such a row in a comprehension, staging.sequence_items)."""

    __slots__ = ("row", "k")

    def __init__(self, row: ArrayRow):
        self.row, self.k = row, 0

    def __iter__(self) -> RowIterator:
        return self

    def __next__(self) -> Any:
        if self.k >= len(self.row):
            raise StopIteration
        self.k += 1
        return self.row[self.k - 1]

    def rest(self) -> list[Any]:
        """The items not yet reached, as they are now."""
        return [self.row[k] for k in range(self.k, len(self.row))]


#: a 1-d list argument of this many Python numbers of one type or more is a :class:`HeldList`
#: (a shorter one is a list of its traced numbers, kiln.frontend.list_numbers.unpack)
HELD_FROM = 64


class HeldList(ArrayRow):
    """A long 1-d list of Python numbers of one type (an argument's, or ``list(range(n))``), held as
    one array: read and written where the function does, carried by staged loops as one array, and
    returned (or written back to the caller's list) as that array (see the module doc). What changes
    its length or order makes it a Python list of its numbers, in place (``base`` None: every method
    is then list's); inside a staged construct that is refused naming the line."""

    #: ``list(range(n))``'s: (the range, the array's version then): its numbers are Python's ints until written
    known: tuple[range, int] | None

    __slots__ = ("known",)

    def __init__(self, base: ArrayBase, known: range | None = None):
        super().__init__(base, ())
        self.known = None if known is None else (known, base.values.storage.version)

    def item_at(self, k: Any) -> Any:
        if self._known_ints() and not isinstance(k, Tensor):
            return self.known[0][k]  # type: ignore[index]
        return super().item_at(k)

    def _known_ints(self) -> bool:
        """Whether the numbers are still the range's, read in Python's order (outside staged constructs)."""
        ctx = trace_context.current()
        return (self.known is not None and self.base.values.storage.version == self.known[1]
                and (ctx is None or not ctx.enclosing))

    def _made_plain(self) -> None:
        """Become a Python list of the numbers held (one traced value each, as Python's list holds them)."""
        if self.base is None:
            return
        ctx = trace_context.current()
        if ctx is not None and ctx.enclosing:
            raise NotImplementedError(
                f"{trace_context.here()}: this changes the length, the order or an element's type of a list of {len(self)} Python "
                f"{self.base.kind.__name__}s that kiln holds as one array (from {HELD_FROM} items on, so that compile "
                "time does not grow with the length), inside a staged loop or branch. Change it outside the loop, "
                "or use an array (np.array(xs))"
            )
        items = list(self.known[0]) if self._known_ints() else [self.item_at(k) for k in range(len(self))]  # type: ignore[index]
        self.base = None  # type: ignore[assignment]
        list.extend(self, items)

    def __setitem__(self, key: Any, value: Any) -> None:
        """A number of the list's type at an index writes the array; a slice or another value, outside
        staged constructs, makes the list Python's first (as :meth:`_made_plain`), as Python writes it."""
        if self.base is not None and not isinstance(key, Tensor) and (isinstance(key, slice) or not _fits(self.base, value)):
            self._made_plain()
        if self.base is None:
            list.__setitem__(self, key, value)
        else:
            ArrayRow.__setitem__(self, key, value)

    def __kiln_contents__(self) -> tuple[Any, ...]:
        """What the list holds, to tell whether the function changed it (argument_containers)."""
        if self.base is None:
            return tuple(list.__iter__(self))
        return (self.base.values.storage, self.base.values.storage.version)

    def __kiln_flatten__(self) -> Any:
        if self.base is None:  # (state of a staged construct: its numbers, as a list's)
            return None, [(f"[{k}]", v) for k, v in enumerate(list.__iter__(self))]
        return super().__kiln_flatten__()

    @classmethod
    def __kiln_unflatten__(cls, aux: Any, kids: list[Any]) -> Any:
        return list(kids) if aux is None else aux.row

    def _array(self) -> Tensor:
        return creation.asarray(list(list.__iter__(self))) if self.base is None else super()._array()


def _plain_or_held(name: str) -> Any:
    as_array, plain = getattr(ArrayRow, name), getattr(list, name)

    def method(self: HeldList, *args: Any, **kwargs: Any) -> Any:
        return plain(self, *args, **kwargs) if self.base is None else as_array(self, *args, **kwargs)

    method.__name__ = name
    return method


def _made_plain_then(name: str) -> Any:
    plain = getattr(list, name)

    def method(self: HeldList, *args: Any, **kwargs: Any) -> Any:
        self._made_plain()
        return plain(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("__len__", "__getitem__", "__iter__", "__reversed__", "__contains__", "__eq__", "__ne__", "__add__", "__mul__", "__rmul__", "__repr__", "copy", "index", "count"):
    setattr(HeldList, _name, _plain_or_held(_name))
for _name in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "__delitem__", "__iadd__",
              "__imul__"):
    setattr(HeldList, _name, _made_plain_then(_name))


def held(obj: Any) -> bool:
    """Whether ``obj`` is a row (or a whole list) held as one array: not a HeldList made a Python list."""
    return isinstance(obj, ArrayRow) and obj.base is not None


def ordered_numbers(seq: Any) -> Tensor | None:
    """The numbers of ``seq`` as one 1-d array, where ``seq`` is a non-empty row held as one array
    whose numbers are of one ordered type (bool, int or float: ``min``/``max``/``sum`` of it are the
    array's reductions, of that type); None for anything else."""
    if not held(seq) or seq.base.kinds is not None or seq.base.kind not in (bool, int, float):
        return None
    if len(seq.at) + 1 != seq.base.values.ndim or len(seq) == 0:
        return None
    return seq.base.values[seq.at] if seq.at else seq.base.values


def held_list(iterable: Any) -> HeldList | None:
    """``list(iterable)`` held as one array, where that is the list Python makes: of a ``range`` of
    :data:`HELD_FROM` ints or more (their array, not one constant per element), or of a list held as
    one array (a copy of its numbers); None for any other ``iterable``."""
    if type(iterable) is range and len(iterable) >= HELD_FROM:
        step = creation.full((len(iterable),), iterable.step, dtype=np.int64)  # (a splat: no constant per element)
        values = as_tensor(np.cumsum(step) + (iterable.start - iterable.step))
        return HeldList(ArrayBase(values, None, int, writable=True), iterable)
    if held(iterable) and len(iterable.at) + 1 == iterable.base.values.ndim:
        base = iterable.base
        kinds = None if base.kinds is None else base.kinds[iterable.at].copy()
        return HeldList(ArrayBase(base.values[iterable.at].copy(), kinds, base.kind, writable=True))
    return None


def held_argument(packed: Tensor) -> HeldList:
    """The list a 1-d NumberList argument ``packed`` (:data:`HELD_FROM` items or more) is in the trace."""
    base = ArrayBase(packed.copy(), None, _PYTHON_TYPE[packed.dtype.kind], writable=True)
    return HeldList(base)


def _arrays(obj: Any) -> Any:
    """``obj`` (a NumPy function's arguments) with each ArrayRow in it as a kiln array."""
    if isinstance(obj, ArrayRow):
        return obj._array()
    if isinstance(obj, tuple):
        return tuple(_arrays(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _arrays(v) for k, v in obj.items()}
    return obj


def _index(key: Any, n: int) -> Any:
    """``key`` as an index of a row of length ``n``: a Python int in range (IndexError otherwise, as
    Python raises), or a traced 0-d int (checked when the call runs)."""
    if isinstance(key, Tensor):
        runtime_checks.raises(as_tensor(np.logical_and(np.greater_equal(key, -n), np.less(key, n))), IndexError,
                              "list index out of range")
        return np.where(np.less(key, 0), key + n, key)
    key = int(key)
    if not -n <= key < n:
        raise IndexError("list index out of range")
    return key + n if key < 0 else key


def _refuse(what: str) -> None:
    raise NotImplementedError(
        f"{trace_context.here()}: {what} of a list kiln holds as one array (a rectangular list of Python "
        "numbers read or written at an index known only at run time); kiln keeps such a list's shape. "
        "Build the list to its final shape before the loop"
    )


def _value_kind(value: Any) -> Any:
    """The Python type of ``value`` written into a list: a result kind (int8, or a traced one for a
    number whose type is known per call); None for a value that is not a Python int or float."""
    if type(value) in _KIND:
        return _KIND[type(value)]
    if not isinstance(value, Tensor) or value.ndim != 0 or value.dtype.kind not in "if":
        return None
    if value.kind_flag is not None:
        return value.kind_flag
    if value.weak and value.path_promotions is None:
        return _KIND[_PYTHON_TYPE[value.dtype.kind]]
    return None


def _write(base: ArrayBase, index: tuple[Any, ...], value: Any) -> None:
    """``base``'s element at ``index`` becomes the Python number ``value`` (see the module doc)."""
    if not base.writable:
        _refuse("a write into a row read at an index known only at run time from an argument list")
    kind = _value_kind(value)
    one = _KIND.get(base.kind) if base.kinds is None else None  # (the one type of a list without kinds)
    if kind is None or (base.kinds is None and not (isinstance(kind, np.int8) and one is not None and kind == one)):
        raise NotImplementedError(
            f"{trace_context.here()}: this writes a {_describe(value)} into a list of "
            f"{base.kind.__name__ + 's' if base.kinds is None and base.kind else 'Python ints and floats'} at an index "
            "known only at run time: "
            "each element's type after the write would depend on the index. Write a Python number of the "
            "list's type (float(v)), or keep such values in an array (a = np.array(xs); a[i, j] = v)"
        )
    if base.kinds is not None:
        is_int = np.equal(kind, np.int8(result_kinds.PYTHON_INT))
        if isinstance(value, Tensor):
            if value.kind_flag is not None:
                runtime_checks.raises(as_tensor(np.logical_or(is_int, np.equal(kind, _KIND[float]))), TypeError,
                                      "a value that is not a Python int or float written into a list of numbers")
            exact = np.less(np.absolute(Tensor(value.value)), _EXACT)  # (its value alone: no Python operator)
            runtime_checks.require(as_tensor(np.logical_or(np.logical_not(is_int), exact)),
                                   "the Python int written into a list of ints and floats is beyond what a float64 "
                                   "holds exactly, which kiln holds the list as")
        elif abs(value) >= _EXACT:
            _refuse(f"the int {value} written, beyond what a float64 holds exactly,")
        base.kinds[index] = kind
    base.values[index] = value


def _fits(base: ArrayBase, value: Any) -> bool:
    """Whether ``value`` is a number of the one type of ``base``'s list (one without kinds)."""
    kind = _value_kind(value)
    return base.kinds is None and isinstance(kind, np.int8) and kind == _KIND.get(base.kind)  # type: ignore[arg-type]


def _describe(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"{'0-d' if value.ndim == 0 else f'{value.ndim}-d'} {value.dtype} value that is not a Python number"
    return type(value).__name__


# -- reads at a traced index (kiln.frontend.list_index)


def base_rows(seq: Any) -> ArrayBase | None:
    """The array ``seq``'s rows are held in, where ``seq`` is a list whose items are exactly the rows
    of one :class:`ArrayBase` in order; None otherwise."""
    if not seq or type(seq) is not list or not all(type(row) is ArrayRow for row in seq):
        return None
    base = seq[0].base
    if len(seq) != base.values.shape[0] or any(row.base is not base or row.at != (r,) for r, row in enumerate(seq)):
        return None
    return base


def row_at(seq: Any, key: Tensor) -> ArrayRow | None:
    """``seq[key]`` (``key`` a traced int) where ``seq`` is held as one array: a view of the row,
    read-only for an argument's list; None where ``seq`` is not such a list."""
    if held(seq):
        return seq[key]  # type: ignore[no-any-return]
    base = base_rows(seq)
    if base is not None:
        return ArrayRow(base, (_index(key, len(seq)),))
    if isinstance(seq, ArgumentList) and seq.packed is not None and seq.packed[0].ndim > 1 and packed_unchanged(seq):
        packed = seq.packed[0]
        view = ArrayBase(packed, None, _PYTHON_TYPE[packed.dtype.kind], writable=False)
        return ArrayRow(view, (_index(key, len(seq)),))
    return None


# -- packing the lists a staged loop changes


def pack_state(values: tuple[Any, ...]) -> list[list[Any]]:
    """Hold each rectangular list of lists of Python ints and floats among ``values`` (the lists a
    staged loop's body reaches) as one array, in place (see the module doc); those it packed."""
    packed = []
    for value in values:
        if type(value) is list and base_rows(value) is None:
            found = _packable(value)
            if found is not None:
                _pack(value, *found)
                packed.append(value)
    return packed


def unpack(lists: list[list[Any]]) -> None:
    """Make the lists :func:`pack_state` packed nested Python lists of their numbers again, in place
    (for a loop that runs as Python's instead: it may put any value in them)."""
    for top in lists:
        top[:] = [_plain(row) for row in top]


def _plain(row: Any) -> Any:
    return [_plain(item) for item in row] if isinstance(row, ArrayRow) else row


def _packable(top: list[Any]) -> tuple[tuple[int, ...], bool] | None:
    """The shape of ``top`` and whether its numbers are all floats, where ``top`` is a rectangular
    list (2-d or more) of Python ints and floats (traced or not) whose inner lists are distinct
    plain lists that only their parent holds; None otherwise."""
    shape: list[int] = []
    level: list[Any] = [top]
    while level and all(type(x) is list for x in level):
        n = len(level[0])
        if n == 0 or any(len(x) != n for x in level):
            return None
        shape.append(n)
        if type(level[0][0]) is list and not _sole_owned(level):  # (before `level` holds them too)
            return None
        level = [item for x in level for item in x]
    if len(shape) < 2 or any(type(x) is list for x in level):
        return None
    kinds = [_value_kind(x) for x in level]
    if any(not isinstance(k, np.int8) for k in kinds):  # (a number whose type is known per call, or another value)
        return None
    if any(isinstance(x, Tensor) and (x.ndim != 0 or not x.immutable) or type(x) is int and abs(x) >= _EXACT
           for x in level):
        return None
    return tuple(shape), all(k == _KIND[float] for k in kinds)


def _sole_owned(level: list[list[Any]]) -> bool:
    """Whether the inner lists of the lists in ``level`` are distinct and held by their parent only
    (so that holding them as views of one array changes no other reference's meaning)."""
    seen: set[int] = set()
    for parent in level:
        for k in range(len(parent)):
            if id(parent[k]) in seen or sys.getrefcount(parent[k]) > 2:  # (the parent's reference, the argument's)
                return False
            seen.add(id(parent[k]))
    return True


def _pack(top: list[Any], shape: tuple[int, ...], floats: bool) -> None:
    flat: list[Any] = top
    for _ in shape[1:]:
        flat = [item for row in flat for item in row]
    values = creation.array(flat, dtype=np.float64).reshape(shape).copy()
    kinds = None if floats else creation.array(
        np.array([_value_kind(x) for x in flat], dtype=np.int8).reshape(shape))
    ints = [x for x in flat if isinstance(x, Tensor) and x.dtype.kind == "i"]
    if ints:
        runtime_checks.require(as_tensor(np.all(np.less(np.absolute(creation.array(ints)), _EXACT))),
                               "an int in a list of ints and floats is beyond what a float64 holds exactly, "
                               "which kiln holds the list as")
    base = ArrayBase(values, kinds, float if floats else None, writable=True)
    top[:] = [ArrayRow(base, (r,)) for r in range(shape[0])]


# -- as a result: its array (and kinds), made nested Python lists again when the call returns


def _held(obj: list[Any]) -> tuple[Any, Any] | None:
    if type(obj) is HeldList and obj.base is not None:
        return obj.base.values, obj.base.kinds
    base = base_rows(obj)
    return None if base is None else (base.values, base.kinds)


def _rebuild(values: Any, kinds: Any) -> list[Any]:
    """The nested lists of Python numbers a held list's result arrays stand for; in a trace (a
    kiln.function called by another's trace), the rows of those arrays."""
    if not isinstance(values, np.ndarray):
        base = ArrayBase(values, kinds, None if kinds is not None else _PYTHON_TYPE[values.dtype.kind], writable=True)
        if values.ndim == 1:
            return HeldList(base)
        return [ArrayRow(base, (r,)) for r in range(values.shape[0])]
    if kinds is None:
        return values.tolist()  # type: ignore[no-any-return]
    ints = np.equal(kinds, _KIND[int])
    return _typed(values.tolist(), ints.tolist())


def _typed(values: Any, ints: Any) -> Any:
    if isinstance(values, list):
        return [_typed(v, i) for v, i in zip(values, ints)]
    return int(values) if ints else values


pytree.held_as_array = _held
pytree.rebuild_held = _rebuild
