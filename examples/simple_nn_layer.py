"""The seed's first tf.function example: a dense layer, relu(x @ y), on 3x3 inputs."""

from __future__ import annotations

import numpy as np

import kiln


@kiln.function
def simple_nn_layer(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return kiln.relu(kiln.matmul(x, y))


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    return (
        rng.uniform(-1, 1, (3, 3)).astype(np.float32),
        rng.uniform(-1, 1, (3, 3)).astype(np.float32),
    )


def reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.maximum(x @ y, 0)


FUNCTION = simple_nn_layer
