"""``kiln.optimizers``: SGD (with momentum) and Adam, updating variables in place.

``opt.apply_gradients(zip(grads, variables))`` assigns each variable's update, so inside a
``kiln.function`` a whole training step (forward, gradient, update) is one native call; it
works eagerly too. Each optimizer keeps its state in variables: slots (momenta) made for a
variable on its first update (while the first call traces), the step count, and the learning
rate, so that setting ``opt.learning_rate`` takes effect in compiled steps without a retrace.
The formulas are Keras's (``tf.keras.optimizers.SGD`` and ``Adam``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from kiln.frontend.variables import Variable, creating_slots


class Optimizer:
    """What SGD and Adam share: the learning rate, slot variables, the step count."""

    def __init__(self, learning_rate: float) -> None:
        self._lr = Variable(np.float64(learning_rate))
        self._slots: dict[tuple[Variable, str], Variable] = {}
        self.iterations = Variable(np.int64(0))

    @property
    def learning_rate(self) -> float:
        return float(self._lr.numpy())

    @learning_rate.setter
    def learning_rate(self, value: float) -> None:
        self._lr.assign(np.float64(value))

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]]) -> None:
        """Update each variable from its gradient (``None`` gradients are skipped, as in Keras)."""
        pairs = list(grads_and_vars)
        for g, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(f"{type(self).__name__}.apply_gradients: expected (gradient, kiln.Variable) pairs, got {type(v).__name__}")
            if g is not None:
                self._update(v, g)
        self.iterations.assign_add(np.int64(1))

    def _slot(self, v: Variable, name: str) -> Variable:
        key = (v, name)
        slot = self._slots.get(key)
        if slot is None:
            with creating_slots():
                slot = self._slots[key] = Variable(np.zeros(v.shape, v.dtype))
        return slot

    def _rate(self, v: Variable) -> Any:
        """The learning rate in ``v``'s dtype (a float32 model stays in float32)."""
        return self._lr.read_value().astype(v.dtype)

    def _update(self, v: Variable, g: Any) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """``v -= lr * g``; with ``momentum``: ``m = momentum * m - lr * g; v += m`` (Nesterov:
    ``v += momentum * m - lr * g``)."""

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0, nesterov: bool = False) -> None:
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"SGD: momentum must be in [0, 1], got {momentum}")
        super().__init__(learning_rate)
        self.momentum, self.nesterov = float(momentum), nesterov

    def _update(self, v: Variable, g: Any) -> None:
        lr = self._rate(v)
        if self.momentum == 0.0:
            v.assign_sub(lr * g)
            return
        m = self._slot(v, "momentum")
        m.assign(self.momentum * m - lr * g)
        v.assign_add(self.momentum * m - lr * g if self.nesterov else m)


class Adam(Optimizer):
    """Keras's Adam: ``m = b1 m + (1 - b1) g``, ``s = b2 s + (1 - b2) g^2``,
    ``v -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(s) + epsilon)``."""

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7) -> None:
        super().__init__(learning_rate)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)

    def _update(self, v: Variable, g: Any) -> None:
        m, s = self._slot(v, "m"), self._slot(v, "v")
        t = (self.iterations.read_value() + 1).astype(v.dtype)
        b1, b2 = np.asarray(self.beta_1, v.dtype), np.asarray(self.beta_2, v.dtype)
        m.assign(b1 * m + (1 - b1) * g)
        s.assign(b2 * s + (1 - b2) * g * g)
        rate = self._rate(v) * np.sqrt(1 - b2**t) / (1 - b1**t)
        v.assign_sub(rate * m / (np.sqrt(s) + np.asarray(self.epsilon, v.dtype)))
