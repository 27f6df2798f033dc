"""Training a small network: 25 SGD steps of an 8-16-3 softmax classifier in one compiled call.

The step loop, the GradientTape, the gradient and the optimizer's updates of the weights (kiln
Variables) all compile to one native function; it returns the loss of every step, which falls.
``reference`` trains the same network in NumPy with hand-written gradients, from the same
weights; each call continues the training from where the last one stopped.
"""

from __future__ import annotations

import numpy as np

import kiln

STEPS = 25
RATE = 0.5

_rng = np.random.default_rng(0)
_W1, _B1 = _rng.normal(0, 0.5, (8, 16)), np.zeros(16)
_W2, _B2 = _rng.normal(0, 0.5, (16, 3)), np.zeros(3)

w1, b1, w2, b2 = (kiln.Variable(v) for v in (_W1, _B1, _W2, _B2))
optimizer = kiln.optimizers.SGD(RATE)


@kiln.function
def train(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    losses = np.zeros(STEPS)
    for step in range(STEPS):
        with kiln.GradientTape() as tape:
            h = np.tanh(x @ w1 + b1)
            logits = h @ w2 + b2
            z = logits - np.max(logits, axis=1, keepdims=True)
            log_p = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
            loss = -np.mean(np.sum(labels * log_p, axis=1))
        grads = tape.gradient(loss, [w1, b1, w2, b2])
        optimizer.apply_gradients(zip(grads, [w1, b1, w2, b2]))
        losses[step] = loss
    return losses


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 8))
    teacher = rng.normal(size=(8, 3))
    labels = np.eye(3)[np.argmax(x @ teacher, axis=1)]
    return x, labels


_state = [_W1.copy(), _B1.copy(), _W2.copy(), _B2.copy()]


def reference(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    w1_, b1_, w2_, b2_ = _state
    losses = np.zeros(STEPS)
    for step in range(STEPS):
        h = np.tanh(x @ w1_ + b1_)
        logits = h @ w2_ + b2_
        z = logits - np.max(logits, axis=1, keepdims=True)
        p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
        losses[step] = -np.mean(np.sum(labels * np.log(p), axis=1))
        d_logits = (p - labels) / len(x)
        d_h = d_logits @ w2_.T * (1 - h * h)
        grads = (x.T @ d_h, d_h.sum(axis=0), h.T @ d_logits, d_logits.sum(axis=0))
        w1_, b1_, w2_, b2_ = (v - RATE * g for v, g in zip((w1_, b1_, w2_, b2_), grads))
    _state[:] = [w1_, b1_, w2_, b2_]
    return losses


FUNCTION = train
