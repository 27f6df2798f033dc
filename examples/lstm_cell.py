"""One step of an LSTM cell (batch 10, hidden 10), written with ``@``, slicing,
``kiln.sigmoid`` and ``kiln.tanh``: the shape of a real recurrent model's inner loop."""

from __future__ import annotations

import numpy as np

import kiln

B, H = 10, 10


@kiln.function
def lstm_cell(x, h, c, w, u, b):
    z = x @ w + h @ u + b
    i = kiln.sigmoid(z[:, 0 * H : 1 * H])
    f = kiln.sigmoid(z[:, 1 * H : 2 * H])
    g = kiln.tanh(z[:, 2 * H : 3 * H])
    o = kiln.sigmoid(z[:, 3 * H : 4 * H])
    c_next = f * c + i * g
    h_next = o * kiln.tanh(c_next)
    return h_next, c_next


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(1)

    def r(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32) * 0.5

    return r(B, H), r(B, H), r(B, H), r(H, 4 * H), r(H, 4 * H), r(4 * H)


def reference(x, h, c, w, u, b):
    def sigmoid(v):
        return 1 / (1 + np.exp(-v))

    z = x @ w + h @ u + b
    i, f = sigmoid(z[:, :H]), sigmoid(z[:, H : 2 * H])
    g, o = np.tanh(z[:, 2 * H : 3 * H]), sigmoid(z[:, 3 * H :])
    c_next = f * c + i * g
    return o * np.tanh(c_next), c_next


FUNCTION = lstm_cell
