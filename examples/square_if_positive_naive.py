"""AutoGraph seed: accumulating in a staged loop with kiln.TensorArray and x[i] reads."""

from __future__ import annotations

import numpy as np

import kiln


@kiln.function
def square_if_positive_naive(x: np.ndarray) -> np.ndarray:
    result = kiln.TensorArray(x.dtype, size=len(x))
    for i in kiln.range(len(x)):
        if x[i] > 0:
            result = result.write(i, x[i] ** 2)
        else:
            result = result.write(i, x[i])
    return result.stack()


def inputs() -> tuple[np.ndarray, ...]:
    return (np.array([-1.0, 2.0, -3.0, 4.0], np.float32),)


def reference(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x**2, x)


FUNCTION = square_if_positive_naive
