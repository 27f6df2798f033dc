"""The generator's switches: which constructs it writes (``--without NAME`` on the command line).

Every switch is on by default. A campaign may turn one off to keep finding other
bugs while a known one is open; docs/fuzzing.md lists the switches and which
known bugs, if any, the CI seeds avoid with them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Config:
    #: ``while`` loops on traced conditions (bounded by a counter)
    while_loops: bool = True
    #: ``for i in range(k)`` loops (staged when k > 4, unrolled otherwise)
    range_loops: bool = True
    #: ``for row in x`` over an array's first axis
    row_loops: bool = True
    #: ``break`` and ``continue`` inside loops
    break_continue: bool = True
    #: ``return`` inside an ``if``
    early_return: bool = True
    #: ``v = x[1:]``, ``x.T``, ``reshape`` views, and writes through them
    views: bool = True
    #: element and slice writes, ``op=``, ``out=``, ``np.copyto``
    writes: bool = True
    #: writes to the function's arguments (the caller sees them)
    arg_writes: bool = True
    #: ``np.zeros``/``np.empty`` buffers filled in loops
    buffers: bool = True
    #: ``s = 0`` then ``s = s + ...`` in a loop (a Python scalar becomes an array)
    accumulators: bool = True
    #: indices computed from data (``x[(y[0] % 3)]``)
    data_indices: bool = True
    #: matmul, ``np.dot``
    matmul: bool = True
    #: helper functions called from the main one
    helpers: bool = True
    #: float32 and int32 arguments (otherwise float64/int64/bool only)
    narrow_dtypes: bool = True
    #: arguments that are non-contiguous views (``a[:, ::2]``, ``a.T``)
    strided_args: bool = True
    #: ``for x in y`` over a 1-D array (its items are NumPy scalars)
    scalar_items: bool = True
    #: ``for k, row in enumerate(x)``
    enumerate_loops: bool = True
    #: NumPy scalar types called on 0-d values (``np.float32(x.sum())``)
    scalar_constructors: bool = True
    #: writes through the items of ``for row in x`` (``row += 1``, ``row[0] = v``)
    row_writes: bool = True
    #: ``s op= v`` where ``s`` holds a NumPy scalar (``s = x[0]``: a copy, so ``s += 1`` rebinds)
    augassign_scalars: bool = True
    #: argument names rebound inside branches and loops (``if c: a = a + 1`` before ``a[0] = v``)
    rebind_args: bool = True
    #: ``reshape``/``ravel`` of arrays that are not C-contiguous (NumPy copies them)
    reshape_copies: bool = True
    #: inside a loop, views made before their base was last written (``w = v.T; v[0] = 1; for ...: w[0]``)
    stale_views: bool = True

    #: a 1-D array a loop shrinks (``w = w[w > 0]``, ``w[1:]``) or grows (``np.concatenate``), then reduced
    resize_loops: bool = True
    #: ``while`` loops on Python numbers (``i = 0; while i < 40: ...; i += 1``, float counters, ``while i:``),
    #: short (unrolled) and long (staged), with Python accumulators and the counter used after the loop
    python_loops: bool = True
    #: helpers decorated with ``@kiln.function`` (with a keyword Python constant), ``kiln.grad`` of a
    #: scalar helper, and a class whose decorated method calls another, all called from ``f``
    nested_functions: bool = True
    #: an array held by a view, a list, a dict or another name (or the caller) across a loop or staged ``if``
    #: that rebinds it on some paths and writes through it, the holder read afterwards
    held_arrays: bool = True

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def without(self, names: list[str]) -> Config:
        """This configuration with the named constructs off (a ValueError names an unknown one)."""
        unknown = [n for n in names if n not in self.names()]
        if unknown:
            raise ValueError(f"unknown construct(s) {', '.join(unknown)}; known: {', '.join(self.names())}")
        return Config(**{n: (getattr(self, n) and n not in names) for n in self.names()})
