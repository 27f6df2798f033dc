"""Scientific kernels written as a user writes them, in plain Python over lists, Python numbers and
NumPy arrays, each compiled and compared with the same function run by Python (values, types, and
the arguments after the call). They were written for issue 40's hunt beside the fuzz campaign; each
mixes constructs the generator does not put together (a ``while True`` to convergence, rows swapped
by fancy indexing, Python complex numbers through ``cmath``, ``continue`` in an adaptive loop, a
recursion over lists, ``math.inf`` in lists, strings as arguments)."""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from python_differential import differential


def heat_to_convergence(u, tol):
    u = u.copy()
    it = 0
    while True:
        new = u.copy()
        new[1:-1] = 0.5 * (u[:-2] + u[2:])
        diff = np.max(np.abs(new - u))
        u = new
        it += 1
        if diff < tol or it >= 500:
            break
    return u, it


def thomas(a, b, c, d):
    n = len(d)
    cp, dp = [0.0] * n, [0.0] * n
    cp[0], dp[0] = c[0] / b[0], d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = [0.0] * n
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def gauss_with_pivoting(A, b):
    A, b = A.astype(float), b.astype(float)
    n = A.shape[0]
    for k in range(n):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i, k:] -= f * A[k, k:]
            b[i] -= f * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return x


def kahan_sum(x):
    s, c = 0.0, 0.0
    for v in x:
        y = v - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def lorenz(steps):
    x, y, z = 1.0, 1.0, 1.0
    out = np.zeros((steps, 3))
    for i in range(steps):
        dx, dy, dz = 10 * (y - x), x * (28 - z) - y, x * y - 8 / 3 * z
        x, y, z = x + 0.01 * dx, y + 0.01 * dy, z + 0.01 * dz
        out[i] = x, y, z
    return out


def fft_in_place(x):
    n = x.shape[0]
    a = x.astype(complex)
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j ^= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    size = 2
    while size <= n:
        w = cmath.exp(-2j * cmath.pi / size)
        for start in range(0, n, size):
            wk = 1 + 0j
            for k in range(size // 2):
                u, v = a[start + k], a[start + k + size // 2] * wk
                a[start + k], a[start + k + size // 2] = u + v, u - v
                wk *= w
        size *= 2
    return a


def dft_of_a_list(x):
    n = len(x)
    return [sum(x[k] * cmath.exp(-2j * cmath.pi * k * m / n) for k in range(n)) for m in range(n)]


def adaptive_steps(y0, end):
    t, y, h, steps = 0.0, y0, 0.1, 0
    while t < end:
        if t + h > end:
            h = end - t
        k1 = -2.0 * y
        k2 = -2.0 * (y + h * k1)
        err = abs(h * (k2 - k1) / 2)
        if err > 1e-4:
            h = h / 2
            continue
        y = y + h * (k1 + k2) / 2
        t += h
        steps += 1
        if err < 1e-6:
            h = h * 2
    return y, steps


def rule110(cells, steps):
    cells = list(cells)
    n = len(cells)
    for _ in range(steps):
        new = [0] * n
        for i in range(n):
            left, mid, right = cells[i - 1], cells[i], cells[(i + 1) % n]
            new[i] = (110 >> (left * 4 + mid * 2 + right)) & 1
        cells = new
    return cells


def determinant(m):
    if len(m) == 1:
        return m[0][0]
    return sum((-1) ** j * m[0][j] * determinant([row[:j] + row[j + 1:] for row in m[1:]]) for j in range(len(m)))


def levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[-1]


def radix_sort(x):
    x = x.copy()
    exp = 1
    while np.max(x) // exp > 0:
        out = np.zeros_like(x)
        count = np.zeros(10, dtype=np.int64)
        for v in x:
            count[(v // exp) % 10] += 1
        for i in range(1, 10):
            count[i] += count[i - 1]
        for i in range(x.shape[0] - 1, -1, -1):
            d = (x[i] // exp) % 10
            count[d] -= 1
            out[count[d]] = x[i]
        x = out
        exp *= 10
    return x


def dijkstra(w, src):
    n = w.shape[0]
    dist, seen = [math.inf] * n, [False] * n
    dist[src] = 0.0
    for _ in range(n):
        u, best = -1, math.inf
        for v in range(n):
            if not seen[v] and dist[v] < best:
                best, u = dist[v], v
        if u == -1:
            break
        seen[u] = True
        for v in range(n):
            if w[u, v] > 0 and dist[u] + w[u, v] < dist[v]:
                dist[v] = dist[u] + w[u, v]
    return dist


def knapsack(weights, values, cap):
    dp = np.zeros(cap + 1, dtype=np.int64)
    for i in range(weights.shape[0]):
        w = weights[i]
        for c in range(cap, w - 1, -1):
            dp[c] = max(dp[c], dp[c - w] + values[i])
    return dp[cap]


def best_pair(x):
    pairs = []
    for i in range(4):
        pairs.append((i, float(x[i])))
    return pairs, max(pairs, key=lambda p: p[1])[0]


_RNG = np.random.default_rng(12)
_W = _RNG.random((6, 6))
_W[_W < 0.4] = 0.0

KERNELS: list[tuple[Callable[..., Any], list[tuple[Any, ...]], float]] = [
    (heat_to_convergence, [(np.concatenate([[1.0], np.zeros(18), [0.0]]), 1e-4)], 0.0),
    (thomas, [([0.0, 1.0, 1.0, 1.0], [4.0, 4.0, 4.0, 4.0], [1.0, 1.0, 1.0, 0.0], [5.0, 6.0, 6.0, 5.0])], 0.0),
    (gauss_with_pivoting, [(_RNG.random((5, 5)), _RNG.random(5))], 1e-12),
    (kahan_sum, [(_RNG.random(100) * 1e-3 + 1e3,)], 0.0),
    (lorenz, [(50,)], 0.0),
    (fft_in_place, [(_RNG.random(16),)], 0.0),
    (dft_of_a_list, [([1.0, 2.0, 0.5, -1.0],)], 0.0),
    (adaptive_steps, [(1.0, 2.0)], 0.0),
    (rule110, [([0] * 15 + [1], 10)], 0.0),
    (determinant, [([[2, 1, 3], [0, -1, 4], [5, 2, 1]],)], 0.0),
    (levenshtein, [("kitten", "sitting")], 0.0),
    (radix_sort, [(_RNG.integers(0, 1000, 20),)], 0.0),
    (dijkstra, [(_W, 0)], 0.0),
    (knapsack, [(np.array([2, 3, 4, 5]), np.array([3, 4, 5, 6]), 5)], 0.0),
    (best_pair, [(_RNG.random(4),), (np.array([0.9, 0.1, 0.9, 0.2]),)], 0.0),
]


@pytest.mark.parametrize("fn, calls, rtol", KERNELS, ids=[k[0].__name__ for k in KERNELS])
def test_written_kernel_matches_python(fn: Callable[..., Any], calls: list[tuple[Any, ...]], rtol: float) -> None:
    differential(fn, *calls, rtol=rtol)
