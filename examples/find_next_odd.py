"""The seed's variable example: a kiln.Variable(5) advanced to the next odd number in place
(7 after one call, 9 after two). Stateful: ``reference`` advances a NumPy mirror of the
variable the same way, so the demo compares the first call of each."""

from __future__ import annotations

import numpy as np

import kiln

v = kiln.Variable(5)


@kiln.function
def find_next_odd() -> np.ndarray:
    v.assign(v + 1)
    if v % 2 == 0:
        v.assign(v + 1)
    return v.read_value()


def inputs() -> tuple[()]:
    return ()


_mirror = np.array(5)


def reference() -> np.ndarray:
    _mirror[...] = _mirror + 1
    if _mirror % 2 == 0:
        _mirror[...] = _mirror + 1
    return _mirror.copy()


FUNCTION = find_next_odd
