"""AutoGraph seed: a loop over a tensor with `continue` becomes graph.while over its rows (42 on [10, 12, 15, 20])."""

from __future__ import annotations

import numpy as np

import kiln


@kiln.function
def sum_even(items: np.ndarray) -> np.ndarray:
    s = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


def inputs() -> tuple[np.ndarray, ...]:
    return (np.array([10, 12, 15, 20]),)


def reference(items: np.ndarray) -> np.ndarray:
    return items[items % 2 == 0].sum()


FUNCTION = sum_even
