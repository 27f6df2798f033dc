"""The seed's second example: a decorated function calling an undecorated helper.

``linear_layer`` is plain Python; tracing ``deep_net`` traces through it, so
the compiled code contains both. ``deep_net([1, 2, 3])`` is ``[3, 5, 7]``.
"""

from __future__ import annotations

import numpy as np

import kiln


def linear_layer(x: np.ndarray) -> np.ndarray:
    return 2 * x + 1


@kiln.function
def deep_net(x: np.ndarray) -> np.ndarray:
    return kiln.relu(linear_layer(x))


def inputs() -> tuple[np.ndarray, ...]:
    return (np.array([1, 2, 3]),)


def reference(x: np.ndarray) -> np.ndarray:
    return np.maximum(2 * x + 1, 0)


FUNCTION = deep_net
