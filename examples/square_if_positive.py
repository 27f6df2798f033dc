"""AutoGraph seed: an `if` on a tensor becomes graph.cond."""

from __future__ import annotations

import numpy as np

import kiln


@kiln.function
def square_if_positive(x: np.ndarray) -> np.ndarray:
    if x > 0:
        x = x * x
    else:
        x = 0.0
    return x


def inputs() -> tuple[np.ndarray, ...]:
    return (np.float32(3.0),)


def reference(x: np.ndarray) -> np.ndarray:
    return np.float32(x * x if x > 0 else 0.0)


FUNCTION = square_if_positive
