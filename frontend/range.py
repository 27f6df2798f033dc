"""``kiln.range``: a ``for`` loop over it is a staged loop, not unrolled at trace time.

Outside a trace, with Python integers, it is Python's ``range``. While
tracing it is a :class:`StagedRange`, which the AutoGraph ``for`` operator
stages as a counter loop (``graph.while``), so a thousand iterations cost one
loop in the IR, not a thousand copies of the body. Iterated as Python (a
comprehension, ``autograph=False``) with integer bounds it unrolls like
``range``.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any

import numpy as np

from kiln.frontend import trace_context
from kiln.frontend.tensor import Tensor, as_tensor, cast


def range(start: Any, stop: Any = None, step: Any = 1) -> Any:  # noqa: A001 - the public name is kiln.range
    """``range(start, stop, step)`` whose ``for`` loop is staged while tracing; Python's ``range`` otherwise."""
    traced = any(isinstance(v, Tensor) for v in (start, stop, step))
    if not traced and trace_context.current() is None:
        return builtins.range(*(int(v) for v in ((start,) if stop is None else (start, stop, step))))
    return StagedRange(start, stop, step, weak=True)  # its index is a Python int, as eagerly


class StagedRange:
    """The integers ``start, start + step, ...`` before ``stop``; bounds are ints or 0-d integer tensors."""

    def __init__(self, start: Any, stop: Any = None, step: Any = 1, *, weak: bool = False):
        #: the loop index promotes like a Python int (a staged ``for`` over Python's ``range``)
        self.weak = weak
        if stop is None:
            start, stop = 0, start
        for name, v in (("start", start), ("stop", stop), ("step", step)):
            if isinstance(v, Tensor):
                if v.ndim != 0 or not np.issubdtype(v.dtype, np.integer):
                    raise TypeError(f"kiln.range: {name} must be an integer or a 0-d integer tensor, got {v!r}")
            elif not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise TypeError(f"kiln.range: {name} must be an integer, got {v!r}")
        if not isinstance(step, Tensor) and step == 0:
            raise ValueError("kiln.range() arg 3 must not be zero")
        self.start, self.stop, self.step = start, stop, step

    def _static(self) -> builtins.range | None:
        if any(isinstance(v, Tensor) for v in (self.start, self.stop, self.step)):
            return None
        return builtins.range(int(self.start), int(self.stop), int(self.step))

    def trip_count(self) -> int | None:
        """The number of iterations when the bounds are known at trace time."""
        static = self._static()
        return None if static is None else len(static)

    def bounds(self) -> tuple[Tensor, Tensor | int, Tensor | int]:
        """The counter's first value as a tensor (int64, or the tensors' integer type), then stop and step."""
        tensors = [v for v in (self.start, self.stop, self.step) if isinstance(v, Tensor)]
        dtype = np.result_type(*(t.dtype for t in tensors)) if tensors else np.dtype(np.int64)
        start = cast(as_tensor(self.start), dtype) if isinstance(self.start, Tensor) else as_tensor(np.asarray(self.start, dtype))
        step = self.step if isinstance(self.step, Tensor) else int(self.step)
        stop = self.stop if isinstance(self.stop, Tensor) else int(self.stop)
        return start, stop, step

    def index_range(self) -> tuple[int | None, int | None]:
        """Bounds ``(lo, hi)`` every index of the loop lies in (None: not known at trace time)."""
        from kiln.frontend import index_facts

        step = self.step
        if isinstance(step, Tensor):
            return None, None
        start, stop = index_facts.of(self.start), index_facts.of(self.stop)
        if step > 0:
            hi = None if stop.hi is None else stop.hi - 1
            return start.lo, hi
        lo = None if stop.lo is None else stop.lo + 1
        return lo, start.hi

    def __iter__(self) -> Iterator[int]:
        static = self._static()
        if static is None:
            raise TypeError(
                "iterating kiln.range over tensor bounds needs AutoGraph: a `for` loop over it is staged "
                "in a kiln.function with autograph=True (the default); comprehensions and autograph=False "
                "iterate as Python, which needs integer bounds"
            )
        return iter(static)

    def __len__(self) -> int:
        static = self._static()
        if static is None:
            raise TypeError("len() of a kiln.range over tensor bounds is known only when the function runs")
        return len(static)

    def __repr__(self) -> str:
        return f"kiln.range({self.start!r}, {self.stop!r}, {self.step!r})"
