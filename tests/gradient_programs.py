"""Functions with staged control flow for tests/test_gradient_control_flow.py: each takes two
float arrays of shape (3,) and an int64 ``n``, and returns a float scalar. Written as users
write NumPy: tensor ifs, while loops with data-dependent trip counts, for loops over
ranges, break, continue, early return, nesting, in-place writes."""

from __future__ import annotations

import numpy as np


def if_square_or_negate(x, y, n):
    s = x * y
    if np.sum(x) > 0:
        s = s * s
    else:
        s = -s
    return np.sum(s)


def if_without_else(x, y, n):
    s = x + 0.0
    if np.max(y) > 0.1:
        s = np.tanh(s * y)
    return np.sum(s * x)


def nested_ifs(x, y, n):
    s = x * 1.0
    if np.sum(x) > 0:
        s = np.tanh(s * y)
        if s[0] > 0.2:
            s = s * s
    else:
        s = -s + y
    return np.sum(s * x)


def if_elif_else(x, y, n):
    t = np.sum(x * y)
    if t > 1.0:
        r = np.exp(t * 0.1)
    elif t > -1.0:
        r = t * t
    else:
        r = np.sin(t)
    return r * np.sum(x)


def while_until_large(x, y, n):
    s = x * 1.0
    i = 0
    while np.sum(s * s) < 50.0 and i < 20:
        s = np.sin(s) * y + s
        i += 1
    return np.sum(s)


def while_counted_by_argument(x, y, n):
    s = x * 1.0
    i = 0
    while i < n:
        s = s * 0.9 + np.tanh(y * s)
        i += 1
    return np.sum(s * s)


def for_range(x, y, n):
    s = x * 1.0
    for _ in range(n):
        s = np.cos(s) * y
    return np.sum(s)


def for_range_python_int(x, y, n):
    s = x * 1.0
    for i in range(4):
        s = s * y + float(i)
    return np.sum(np.sin(s))


def kiln_range_with_index(x, y, n):
    s = x * 0.0
    for i in range(n):
        s = s + np.sin(x * float(1.0)) * y
    return np.sum(s)


def while_with_break(x, y, n):
    s = x * 1.0
    i = 0
    while i < 10:
        s = s + y * 0.5
        if np.sum(s) > 3.0:
            break
        i += 1
    return np.sum(s * s)


def for_with_continue(x, y, n):
    s = x * 1.0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s * y
    return np.sum(s)


def early_return(x, y, n):
    if np.sum(x) > 0:
        return np.sum(x * x * y)
    return np.sum(np.exp(y) - x)


def return_inside_loop(x, y, n):
    s = x * 1.0
    for _ in range(6):
        s = s * 1.3 + y
        if np.max(s) > 4.0:
            return np.sum(s)
    return np.sum(s) * 2.0


def nested_loops(x, y, n):
    s = x * 1.0
    for _ in range(n):
        j = 0
        while j < 2:
            s = np.tanh(s + y)
            j += 1
    return np.sum(s)


def if_in_loop(x, y, n):
    s = x * 1.0
    for _ in range(n):
        if np.sum(s) > 0:
            s = s * y
        else:
            s = s + y
    return np.sum(s)


def loop_in_if(x, y, n):
    s = x * 1.0
    if np.sum(y) > 0:
        for _ in range(n):
            s = np.sin(s) + y
    else:
        s = s * y
    return np.sum(s)


def loop_carrying_two_arrays(x, y, n):
    a, b = x * 1.0, y * 1.0
    for _ in range(n):
        a, b = a * 0.5 + np.sin(b), b * 0.5 + np.cos(a)
    return np.sum(a * b)


def loop_carrying_scalar(x, y, n):
    total = np.sum(x * 0.0)
    for _ in range(n):
        total = total + np.sum(x * y) * 0.5
        x = x * 0.8
    return total


def loop_with_outer_weight_reused(x, y, n):
    s = x * 1.0
    for _ in range(n):
        s = np.tanh(s * y) + x
    return np.sum(s)


def zero_trip_loop(x, y, n):
    s = x * 2.0
    i = 0
    while i < n - 10:
        s = s * y
        i += 1
    return np.sum(s * s)


def in_place_write_in_loop(x, y, n):
    s = x * 1.0
    for _ in range(n):
        s[0] = s[1] * y[2]
        s[1:] = s[1:] * 0.5 + y[1:]
    return np.sum(s * s)


def in_place_add_under_if(x, y, n):
    s = x * 1.0
    if np.sum(y) > 0:
        s[2] += y[0] * y[1]
    else:
        s[0] -= y[2]
    return np.sum(np.exp(s))


def reduction_in_loop(x, y, n):
    acc = np.sum(x) * 0.0
    for _ in range(n):
        acc = acc + np.max(x * y) + np.mean(y)
        y = y * 0.9
    return acc


def matmul_in_loop(x, y, n):
    m = np.outer(x, y)
    v = y * 1.0
    for _ in range(n):
        v = np.tanh(m @ v)
    return np.sum(v)


def where_in_loop(x, y, n):
    s = x * 1.0
    for _ in range(n):
        s = np.where(s > 0, s * y, s * 0.5)
    return np.sum(s)


def maximum_in_while(x, y, n):
    s = x * 1.0
    i = 0
    while i < n:
        s = np.maximum(s, y) * 0.9 + 0.1 * x
        i += 1
    return np.sum(s)


def data_dependent_newton(x, y, n):
    """sqrt of |x| + 1 by Newton's method until converged: a loop whose trip count depends on x."""
    a = np.abs(x) + 1.0
    r = a * 1.0
    while np.max(np.abs(r * r - a)) > 1e-12:
        r = 0.5 * (r + a / r)
    return np.sum(r * y)


def exp_decay_until_small(x, y, n):
    s = np.exp(x)
    while np.sum(s) > 0.5:
        s = s * 0.5 * (1.0 + 0.1 * np.tanh(y))
    return np.sum(s * x)


def cond_on_loop_result(x, y, n):
    s = x * 1.0
    for _ in range(n):
        s = s + y * 0.3
    if np.sum(s) > 0:
        out = np.sum(s * s)
    else:
        out = np.sum(np.abs(s))
    return out


def two_loops_in_sequence(x, y, n):
    s = x * 1.0
    for _ in range(n):
        s = np.sin(s) + y
    t = s * 1.0
    i = 0
    while i < 3:
        t = t * s * 0.5
        i += 1
    return np.sum(t)


def loop_then_slice(x, y, n):
    s = np.concatenate([x, y])
    for _ in range(n):
        s = s[::-1] * 0.8 + np.sin(s)
    return np.sum(s[1:4] * s[2:5])


PROGRAMS = [
    if_square_or_negate, if_without_else, nested_ifs, if_elif_else, while_until_large,
    while_counted_by_argument, for_range, for_range_python_int, kiln_range_with_index,
    while_with_break, for_with_continue, early_return, return_inside_loop, nested_loops,
    if_in_loop, loop_in_if, loop_carrying_two_arrays, loop_carrying_scalar,
    loop_with_outer_weight_reused, zero_trip_loop, in_place_write_in_loop, in_place_add_under_if,
    reduction_in_loop, matmul_in_loop, where_in_loop, maximum_in_while, data_dependent_newton,
    exp_decay_until_small, cond_on_loop_result, two_loops_in_sequence, loop_then_slice,
]
