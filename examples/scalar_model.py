"""The seed's per-instance state example: each ScalarModel owns a kiln.Variable that its
decorated ``increment`` method updates (model1: 3 then 7; model2, made after the first
trace: 5). ``reference`` replays the same updates on plain NumPy state."""

from __future__ import annotations

import numpy as np

import kiln


class ScalarModel:
    def __init__(self) -> None:
        self.v = kiln.Variable(0)

    @kiln.function
    def increment(self, amount: np.ndarray) -> np.ndarray:
        self.v.assign_add(amount)
        return self.v.read_value()


def run_seed() -> tuple[int, int, int]:
    """The seed's three observations: model1 after +3, after +4, and model2 after +5."""
    model1 = ScalarModel()
    first = int(model1.increment(np.int64(3)))
    second = int(model1.increment(np.int64(4)))
    model2 = ScalarModel()
    return first, second, int(model2.increment(np.int64(5)))


_model = ScalarModel()
_mirror = np.array(0)


def inputs() -> tuple[np.ndarray]:
    return (np.int64(3),)


def reference(amount: np.ndarray) -> np.ndarray:
    _mirror[...] = _mirror + amount
    return _mirror.copy()


FUNCTION = _model.increment
