"""AutoGraph seed: a Keras-style model whose decorated method branches on a reduction."""

from __future__ import annotations

import numpy as np

import kiln


class CustomModel:
    @kiln.function
    def call(self, x: np.ndarray) -> np.ndarray:
        if kiln.reduce_mean(x) > 0:
            return x
        return -x


MODEL = CustomModel()


def inputs() -> tuple[np.ndarray, ...]:
    return (np.array([[-1.0, 2.0], [-3.0, 1.0]], np.float32),)


def reference(x: np.ndarray) -> np.ndarray:
    return x if x.mean() > 0 else -x


FUNCTION = MODEL.call
