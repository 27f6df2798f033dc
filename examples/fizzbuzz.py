"""AutoGraph seed: a kiln.range loop with an `elif` chain and kiln.print, printing on every call."""

from __future__ import annotations

import numpy as np

import kiln


@kiln.function
def fizzbuzz(max_num: np.ndarray) -> np.ndarray:
    counter = 0
    for num in kiln.range(1, max_num + 1):
        if num % 3 == 0 and num % 5 == 0:
            kiln.print("FizzBuzz")
        elif num % 3 == 0:
            kiln.print("Fizz")
        elif num % 5 == 0:
            kiln.print("Buzz")
        else:
            kiln.print(num)
        counter += 1
    return counter


def inputs() -> tuple[np.ndarray, ...]:
    return (np.int64(15),)


def reference(max_num: np.ndarray) -> np.ndarray:
    return np.int64(max_num)


FUNCTION = fizzbuzz
