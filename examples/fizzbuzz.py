"""AutoGraph seed (tf.function guide): a kiln.range loop with an `elif` chain and kiln.print.

``fizzbuzz(15)`` prints ``Fizz 1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14``, one per line,
on every call (0 is divisible by 3)."""

from __future__ import annotations

import numpy as np

import kiln


@kiln.function
def fizzbuzz(max_num: np.ndarray) -> np.ndarray:
    counter = 0
    for num in kiln.range(max_num):
        if num % 3 == 0:
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
    for num in range(max_num):  # the same prints, so that ``kiln demo`` times the same work
        print("Fizz" if num % 3 == 0 else "Buzz" if num % 5 == 0 else num, flush=True)
    return np.int64(max_num)


FUNCTION = fizzbuzz
