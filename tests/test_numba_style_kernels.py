"""A second corpus of small kernels as people write them for Numba's ``@njit`` (issue 40).

Explicit nested loops over array indices, ``np.empty``/``np.zeros`` then filled, early ``return``
from loops, ``while`` loops with Python counters, tuples returned, helper functions called from
the kernel, ``math.*`` on elements, ``range(n - 1, -1, -1)``, integer ``//`` and ``%``, boolean
flags, ``np.int64(...)`` casts, lists built with ``append`` then ``np.array(...)``, and the classic
small algorithms (sorting networks, histograms, prefix sums, Floyd-Warshall, Gauss-Seidel, bubble
sort, RK4, Mandelbrot, LU without pivoting). Each is decorated unchanged and compared with the
same code run in Python on copies of its arguments (tests/python_differential.py): result values
and types, and the arguments after the call.
"""

from __future__ import annotations

import copy
import inspect
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from python_differential import differential

import kiln

A = np.array([0.5, -1.25, 2.0, 0.75, -0.5, 3.0, 1.5, -2.0])
B = np.array([1.0, 0.25, -0.75, 2.5, 0.0, -1.0, 0.5, 1.25])
M4 = np.array([[4.0, 1.0, 0.5, 0.0], [1.0, 5.0, 1.0, 0.5], [0.5, 1.0, 6.0, 1.0], [0.0, 0.5, 1.0, 3.0]])
I8 = np.array([7, -3, 12, 0, 5, 5, -8, 21], dtype=np.int64)
INF = np.inf
DIST = np.array([[0.0, 3.0, INF, 7.0], [8.0, 0.0, 2.0, INF], [5.0, INF, 0.0, 1.0], [2.0, INF, INF, 0.0]])


# ---------------------------------------------------------------------- loops that fill new arrays


def prefix_sum(a):
    n = a.shape[0]
    out = np.empty(n)
    acc = 0.0
    for i in range(n):
        acc += a[i]
        out[i] = acc
    return out


def reverse_cumsum(a):
    n = a.shape[0]
    out = np.zeros_like(a)
    acc = 0.0
    for i in range(n - 1, -1, -1):
        acc += a[i]
        out[i] = acc
    return out


def matmul_loops(x, y):
    n, k = x.shape
    m = y.shape[1]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for p in range(k):
                s += x[i, p] * y[p, j]
            out[i, j] = s
    return out


def moving_average(a, w):
    n = a.shape[0]
    out = np.empty(n - w + 1)
    for i in range(n - w + 1):
        s = 0.0
        for j in range(w):
            s += a[i + j]
        out[i] = s / w
    return out


def stencil_1d(a):
    n = a.shape[0]
    out = a.copy()
    for i in range(1, n - 1):
        out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]
    return out


def transpose_loops(m):
    r, c = m.shape
    out = np.empty((c, r))
    for i in range(r):
        for j in range(c):
            out[j, i] = m[i, j]
    return out


def pairwise_distances(pts):
    n = pts.shape[0]
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            s = 0.0
            for k in range(pts.shape[1]):
                t = pts[i, k] - pts[j, k]
                s += t * t
            d[i, j] = math.sqrt(s)
            d[j, i] = d[i, j]
    return d


def apply_math(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.exp(-a[i] * a[i]) + math.sin(a[i]) * math.cos(a[i]) + math.tanh(a[i])
    return out


@pytest.mark.parametrize("fn, calls", [
    (prefix_sum, [(A,), (B,)]),
    (reverse_cumsum, [(A,), (B,)]),
    (matmul_loops, [(M4, M4[:, :3]), (M4[:2], M4)]),
    (moving_average, [(A, 3), (B, 2)]),
    (stencil_1d, [(A,), (B,)]),
    (transpose_loops, [(M4[:3],), (M4,)]),
    (pairwise_distances, [(M4[:, :2],), (M4,)]),
    (apply_math, [(A,), (B,)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_filled_array_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- in place: sorts, relaxations


def bubble_sort_array(a):
    n = a.shape[0]
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t
                swapped = True
        if not swapped:
            break
    return a


def insertion_sort(a):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key


def _compare_swap(a, i, j):
    if a[i] > a[j]:
        a[i], a[j] = a[j], a[i]


def sorting_network_4(a):
    _compare_swap(a, 0, 1)
    _compare_swap(a, 2, 3)
    _compare_swap(a, 0, 2)
    _compare_swap(a, 1, 3)
    _compare_swap(a, 1, 2)
    return a


def floyd_warshall(d):
    n = d.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]
    return d


def _relaxed(m, b, x, i):
    s = b[i]
    for j in range(b.shape[0]):
        if j != i:
            s -= m[i, j] * x[j]
    return s / m[i, i]


def gauss_seidel(m, b, iters):
    x = np.zeros(b.shape[0])
    for _ in range(iters):
        for i in range(b.shape[0]):
            x[i] = _relaxed(m, b, x, i)
    return x


def lu_no_pivot(m):
    n = m.shape[0]
    lo = np.eye(n)
    up = m.copy()
    for k in range(n):
        for i in range(k + 1, n):
            f = up[i, k] / up[k, k]
            lo[i, k] = f
            for j in range(k, n):
                up[i, j] -= f * up[k, j]
    return lo, up


def reverse_in_place(a):
    i = 0
    j = a.shape[0] - 1
    while i < j:
        a[i], a[j] = a[j], a[i]
        i += 1
        j -= 1


@pytest.mark.parametrize("fn, calls", [
    (bubble_sort_array, [(A.copy(),), (np.sort(A),)]),
    (insertion_sort, [(A.copy(),), (B.copy(),)]),
    (sorting_network_4, [(A[:4].copy(),), (B[:4].copy(),)]),
    (floyd_warshall, [(DIST.copy(),), (M4.copy(),)]),
    (gauss_seidel, [(M4, B[:4], 5), (M4, A[:4], 3)]),
    (lu_no_pivot, [(M4,), (M4 + np.eye(4),)]),
    (reverse_in_place, [(A.copy(),), (A[:5].copy(),)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_in_place_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- integers: //, %, histograms, casts


def histogram_counts(a, lo, hi, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for i in range(a.shape[0]):
        v = a[i]
        if lo <= v < hi:
            counts[int((v - lo) / width)] += 1
    return counts


def digit_sums(ints):
    out = np.zeros(ints.shape[0], dtype=np.int64)
    for i in range(ints.shape[0]):
        v = abs(ints[i])
        s = 0
        while v > 0:
            s += v % 10
            v = v // 10
        out[i] = s
    return out


def gcd_pairs(xs, ys):
    out = np.empty_like(xs)
    for i in range(xs.shape[0]):
        a, b = abs(xs[i]), abs(ys[i])
        while b != 0:
            a, b = b, a % b
        out[i] = a
    return out


def count_even_odd(ints):
    even = 0
    odd = 0
    for i in range(ints.shape[0]):
        if ints[i] % 2 == 0:
            even += 1
        else:
            odd += 1
    return even, odd


def int64_casts(a):
    total = np.int64(0)
    for i in range(a.shape[0]):
        total += np.int64(a[i] * 10)
    return total, int(total) // 3


def reverse_digits(n, a):
    r = 0
    while n > 0:
        r = r * 10 + n % 10
        n //= 10
    return r, a * r


def wrap_index_sum(a, shift):
    n = a.shape[0]
    out = np.empty(n)
    for i in range(n):
        out[i] = a[(i + shift) % n] - a[(i - shift) % n]
    return out


@pytest.mark.parametrize("fn, calls", [
    (histogram_counts, [(A, -2.0, 3.0, 5), (B, -1.0, 1.0, 4)]),
    (digit_sums, [(I8,), (I8 * 37,)]),
    (gcd_pairs, [(I8, I8[::-1] * 3), (I8 * 6, I8 + 4)]),
    (count_even_odd, [(I8,), (I8 + 1,)]),
    (int64_casts, [(A,), (B,)]),
    (reverse_digits, [(1203, A), (7, B)]),
    (wrap_index_sum, [(A, 2), (B, 3)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_integer_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- early returns, flags, while loops


def find_first_negative(a):
    for i in range(a.shape[0]):
        if a[i] < 0:
            return i
    return -1


def is_sorted(a):
    for i in range(a.shape[0] - 1):
        if a[i] > a[i + 1]:
            return False
    return True


def all_close_flag(a, b, tol):
    ok = True
    for i in range(a.shape[0]):
        if abs(a[i] - b[i]) > tol:
            ok = False
            break
    return ok


def bisection_root(c, lo, hi):
    it = 0
    mid = 0.5 * (lo + hi)
    while hi - lo > 1e-10 and it < 100:
        mid = 0.5 * (lo + hi)
        if mid * mid - c[0] > 0:
            hi = mid
        else:
            lo = mid
        it += 1
    return mid, it


def mandelbrot(width, height, max_iter):
    out = np.zeros((height, width), dtype=np.int64)
    for py in range(height):
        for px in range(width):
            cr = -2.0 + 3.0 * px / width
            ci = -1.0 + 2.0 * py / height
            zr = 0.0
            zi = 0.0
            n = 0
            while zr * zr + zi * zi <= 4.0 and n < max_iter:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                n += 1
            out[py, px] = n
    return out


def mandelbrot_complex(xs, ci, max_iter):
    out = np.zeros(xs.shape[0], dtype=np.int64)
    for k in range(xs.shape[0]):
        c = complex(xs[k], ci)
        z = 0j
        n = 0
        while abs(z) <= 2.0 and n < max_iter:
            z = z * z + c
            n += 1
        out[k] = n
    return out


def complex_parts(a, zs, ints):
    return (complex(a[0]), complex(a[1], a[2]), complex(zs[0], a[3]), complex(a[0], zs[1]), complex(zs[0], zs[1]),
            complex(ints[0], -0.0), complex(a[2]) * 2, complex(0.5, a[0]))


def first_above_or_last(a, t):
    found = a.shape[0] - 1
    for i in range(a.shape[0]):
        if a[i] > t:
            found = i
            break
    else:
        found = -found
    return found


def count_until_above(a, t):
    k = 0
    while k < a.shape[0]:
        if a[k] > t:
            break
        k += 1
    else:
        k = -1
    return k


def argmax_loop(a):
    best = a[0]
    idx = 0
    for i in range(1, a.shape[0]):
        if a[i] > best:
            best = a[i]
            idx = i
    return idx, best


def min_max(a):
    lo = a[0]
    hi = a[0]
    for i in range(1, a.shape[0]):
        v = a[i]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


@pytest.mark.parametrize("fn, calls", [
    (find_first_negative, [(A,), (np.abs(A),)]),
    (is_sorted, [(A,), (np.sort(A),)]),
    (all_close_flag, [(A, A + 1e-9, 1e-6), (A, B, 1e-6)]),
    (bisection_root, [(np.array([2.0]), 0.0, 2.0), (np.array([0.25]), 0.0, 1.0)]),
    (mandelbrot, [(6, 4, 20), (5, 3, 10)]),
    (mandelbrot_complex, [(A * 0.5, 0.5, 20), (B, -0.25, 10)]),
    (complex_parts, [(np.array([1.5, np.inf, -0.0, 2.0]), np.array([1 + 2j, -3 + 0.5j]), np.array([3, 4])),
                     (np.array([np.nan, 1.0, np.inf, -2.0], dtype=np.float32), np.array([1 + 2j, 0.5j]), np.array([-3, 4]))]),
    (first_above_or_last, [(A, 1.0), (A, 10.0)]),
    (count_until_above, [(A, 1.0), (A, 10.0)]),
    (argmax_loop, [(A,), (B,)]),
    (min_max, [(A,), (B,)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_control_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- helpers, ODE steps, lists to arrays


def _deriv(y, k):
    return -k * y


def rk4_steps(y0, k, h, steps):
    y = y0.copy()
    for _ in range(steps):
        k1 = _deriv(y, k)
        k2 = _deriv(y + 0.5 * h * k1, k)
        k3 = _deriv(y + 0.5 * h * k2, k)
        k4 = _deriv(y + h * k3, k)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def _clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


def clamp_all(a, lo, hi):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = _clamp(a[i], lo, hi)
    return out


def squares_list(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return np.array(out), len(out)


def euler_pendulum(theta0, omega0, dt, steps):
    theta = theta0
    omega = omega0
    for _ in range(steps):
        omega = omega - dt * math.sin(theta)
        theta = theta + dt * omega
    return theta, omega


def trapz_loop(y, dx):
    s = 0.0
    for i in range(1, y.shape[0]):
        s += 0.5 * (y[i] + y[i - 1]) * dx
    return s


def polyval_horner(coeffs, x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        v = 0.0
        for j in range(coeffs.shape[0]):
            v = v * x[i] + coeffs[j]
        out[i] = v
    return out


@pytest.mark.parametrize("fn, calls", [
    (rk4_steps, [(A, 0.5, 0.1, 4), (B, 1.5, 0.05, 3)]),
    (clamp_all, [(A, -1.0, 1.0), (B, 0.0, 0.5)]),
    (squares_list, [(5,), (3,)]),
    (euler_pendulum, [(0.5, 0.0, 0.01, 20), (1.0, 0.5, 0.05, 10)]),
    (trapz_loop, [(A, 0.5), (B, 0.1)]),
    (polyval_horner, [(np.array([1.0, -2.0, 0.5]), A), (np.array([2.0, 0.0, 1.0, -1.0]), B)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_helper_and_list_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- NumPy's integer and float rounding, bits


def floor_div_mod(ints, d):
    q = np.empty_like(ints)
    r = np.empty_like(ints)
    for i in range(ints.shape[0]):
        q[i] = ints[i] // d
        r[i] = ints[i] % d
    return q, r


def float_floor_mod(a, d):
    out = np.empty((a.shape[0], 2))
    for i in range(a.shape[0]):
        out[i, 0] = a[i] // d
        out[i, 1] = a[i] % d
    return out


def popcounts(ints):
    out = np.zeros(ints.shape[0], dtype=np.int64)
    for i in range(ints.shape[0]):
        v = ints[i] & 0xFFFF
        c = 0
        while v:
            c += v & 1
            v >>= 1
        out[i] = c
    return out, int(out.sum()) & 0xFF


def kahan_sum(a):
    s = 0.0
    c = 0.0
    for i in range(a.shape[0]):
        y = a[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def math_on_elements(a, b):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = math.atan2(a[i], b[i]) + math.hypot(a[i], b[i]) + math.floor(a[i] * 3.5) + math.log1p(abs(b[i]))
    return out


def nan_aware_mean(a):
    s = 0.0
    n = 0
    for i in range(a.shape[0]):
        if not math.isnan(a[i]):
            s += a[i]
            n += 1
    if n == 0:
        return np.nan
    return s / n


@pytest.mark.parametrize("fn, calls", [
    (floor_div_mod, [(I8, 3), (I8, -4)]),
    (float_floor_mod, [(A, 0.75), (B, -1.5)]),
    (popcounts, [(I8,), (I8 * 1001,)]),
    (kahan_sum, [(np.array([1.0, 1e100, 1.0, -1e100]),), (A * 1e-8 + 1e8,)]),
    (math_on_elements, [(A, B), (B, A)]),
    (nan_aware_mean, [(np.array([1.0, np.nan, 2.5]),), (np.array([np.nan, np.nan]),), (A,)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_rounding_and_bit_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- grids, nested searches, tuple-returning helpers


def life_step(grid):
    n, m = grid.shape
    out = np.zeros_like(grid)
    for i in range(n):
        for j in range(m):
            live = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di != 0 or dj != 0:
                        live += grid[(i + di) % n, (j + dj) % m]
            if grid[i, j] == 1 and (live == 2 or live == 3):
                out[i, j] = 1
            elif grid[i, j] == 0 and live == 3:
                out[i, j] = 1
    return out


def find_in_grid(m, t):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > t:
                return i, j
    return -1, -1


def _lorenz(x, y, z):
    return 10.0 * (y - x), x * (28.0 - z) - y, x * y - 8.0 / 3.0 * z


def lorenz_euler(x, y, z, dt, steps):
    for _ in range(steps):
        dx, dy, dz = _lorenz(x, y, z)
        x, y, z = x + dt * dx, y + dt * dy, z + dt * dz
    return x, y, z


def jacobi_until(m, b, tol):
    n = b.shape[0]
    x = np.zeros(n)
    err = tol + 1.0
    it = 0
    while err > tol and it < 200:
        new = np.empty(n)
        for i in range(n):
            new[i] = _relaxed(m, b, x, i)
        err = 0.0
        for i in range(n):
            err = max(err, abs(new[i] - x[i]))
        x = new
        it += 1
    return x, it


def convolve_valid(a, k):
    n = a.shape[0] - k.shape[0] + 1
    out = np.zeros(n)
    for i in range(n):
        for j in range(k.shape[0]):
            out[i] += a[i + j] * k[k.shape[0] - 1 - j]
    return out


def running_max_skip_negative(a):
    out = np.empty_like(a)
    best = -np.inf
    for i in range(a.shape[0]):
        if a[i] < 0:
            out[i] = best
            continue
        best = max(best, a[i])
        out[i] = best
    return out


@pytest.mark.parametrize("fn, calls", [
    (life_step, [(np.array([[0, 1, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]),),
                 (np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1]]),)]),
    (find_in_grid, [(M4, 4.5), (M4, 10.0)]),
    (lorenz_euler, [(1.0, 1.0, 1.0, 0.01, 10), (0.5, -0.5, 2.0, 0.005, 7)]),
    (jacobi_until, [(M4, B[:4], 1e-10), (M4, A[:4], 1e-3)]),
    (convolve_valid, [(A, np.array([1.0, -2.0, 0.5])), (B, np.array([0.25, 0.75]))]),
    (running_max_skip_negative, [(A,), (B,)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_grid_and_search_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- element errors, Python scalars, linear algebra


def sqrt_each(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.sqrt(a[i])
    return out


def int_div_by_elements(ints):
    out = np.zeros_like(ints)
    for i in range(ints.shape[0] - 1):
        out[i] = ints[i + 1] // ints[i]
    return out


def float32_accumulate(a32):
    s = 0.0
    for i in range(a32.shape[0]):
        s += a32[i]
    return s


def zero_or_mean(a, t):
    s = 0.0
    n = 0
    for i in range(a.shape[0]):
        if a[i] > t:
            s += a[i]
            n += 1
    if n == 0:
        return 0
    return s / n


def iterate_array(a):
    s = 0.0
    for v in a:
        s += v * v
    for i, v in enumerate(a):
        s += i * v
    return s


def while_true_break(a):
    i = 0
    while True:
        if i >= a.shape[0] or a[i] < 0:
            break
        i += 1
    return i


def _fill(out, i, v):
    out[i] = v * 2.0


def helper_writes(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        _fill(out, i, a[i])
    return out


def half_len(a):
    h = a.shape[0] // 2
    out = np.empty(h, dtype=np.int64)
    for i in range(h):
        out[i] = np.int64(a[2 * i] * 4) - np.int64(a[2 * i + 1])
    return out


def round_elements(a):
    out = []
    for i in range(a.shape[0]):
        out.append(int(round(a[i] * 3)))
    return out


def hash_ints(ints):
    h = 0
    for i in range(ints.shape[0]):
        h = h * 31 + ints[i]
    return h


def cholesky_loops(m):
    n = m.shape[0]
    L = np.zeros_like(m)
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(j):
                s += L[i, k] * L[j, k]
            if i == j:
                L[i, j] = math.sqrt(m[i, i] - s)
            else:
                L[i, j] = (m[i, j] - s) / L[j, j]
    return L


def back_substitution(u, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= u[i, j] * x[j]
        x[i] = s / u[i, i]
    return x


def binary_search(a, v):
    lo = 0
    hi = a.shape[0] - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if a[mid] == v:
            return mid
        elif a[mid] < v:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def selection_sort_idx(a):
    n = a.shape[0]
    idx = np.arange(n)
    for i in range(n):
        m = i
        for j in range(i + 1, n):
            if a[idx[j]] < a[idx[m]]:
                m = j
        idx[i], idx[m] = idx[m], idx[i]
    return idx


def power_iteration(m, iters):
    v = np.ones(m.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = np.zeros(m.shape[0])
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                w[i] += m[i, j] * v[j]
        lam = math.sqrt(np.sum(w * w))
        v = w / lam
    return lam, v


@pytest.mark.parametrize("fn, calls", [
    (sqrt_each, [(np.abs(A),), (A,)]),
    (int_div_by_elements, [(I8 + 100,), (I8,)]),
    (float32_accumulate, [(A.astype(np.float32),), (B.astype(np.float32),)]),
    (zero_or_mean, [(A, 0.0), (A, 10.0)]),
    (iterate_array, [(A,), (B,)]),
    (while_true_break, [(A,), (np.abs(A),)]),
    (helper_writes, [(A,), (B,)]),
    (half_len, [(A,), (A[:5],)]),
    (round_elements, [(A,), (B,)]),
    (hash_ints, [(I8,), (I8 * 1000003,)]),
    (cholesky_loops, [(M4,), (M4 + np.eye(4),)]),
    (back_substitution, [(np.triu(M4), A[:4]), (np.triu(M4) + np.eye(4), B[:4])]),
    (binary_search, [(np.sort(A), 0.75), (np.sort(A), 0.8)]),
    (selection_sort_idx, [(A,), (B,)]),
    (power_iteration, [(M4, 10), (M4 + np.eye(4), 4)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_element_error_scalar_and_linear_algebra_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    with np.errstate(divide="ignore", invalid="ignore"):  # NumPy's x // 0 and sqrt(-1) warn; the answers are compared
        differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- pivoting, elif chains, constants, 2-D bins


def last_negative(a):
    for i in range(a.shape[0] - 1, -1, -1):
        if a[i] < 0:
            return i, a[i]
    return -1, 0.0


def classify(a):
    out = np.empty(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        v = a[i]
        if v < -1:
            out[i] = -2
        elif v < 0:
            out[i] = -1
        elif v == 0:
            out[i] = 0
        elif v < 1:
            out[i] = 1
        else:
            out[i] = 2
    return out


def circle_area(r):
    out = np.empty_like(r)
    for i in range(r.shape[0]):
        out[i] = math.pi * r[i] ** 2 if r[i] > 0 else -math.inf
    return out


def clamp3(ints):
    s = 0
    for i in range(ints.shape[0]):
        s += max(-5, min(abs(ints[i]), 10, 8))
    return s


def swap_rows(m, i, j):
    t = m[i].copy()
    m[i] = m[j]
    m[j] = t
    return m


def partial_pivot_lu(m):
    n = m.shape[0]
    a = m.copy()
    perm = np.arange(n)
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[p, k]):
                p = i
        if p != k:
            for j in range(n):
                a[k, j], a[p, j] = a[p, j], a[k, j]
            perm[k], perm[p] = perm[p], perm[k]
        for i in range(k + 1, n):
            a[i, k] /= a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]
    return a, perm


def powers(a, k):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] ** k + 3 ** k + (a[i] + 10.0) ** -1
    return s


def newton_while(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x = 1.0
        c = abs(a[i]) + 1.0
        it = 0
        while True:
            nx = 0.5 * (x + c / x)
            it += 1
            if abs(nx - x) < 1e-12 or it > 50:
                break
            x = nx
        out[i] = nx
    return out


def histogram2d(x, y, nb):
    h = np.zeros((nb, nb), dtype=np.int64)
    for i in range(x.shape[0]):
        bx = int((x[i] + 3.0) / 6.0 * nb)
        by = int((y[i] + 3.0) / 6.0 * nb)
        if 0 <= bx < nb and 0 <= by < nb:
            h[bx, by] += 1
    return h


@pytest.mark.parametrize("fn, calls", [
    (last_negative, [(A,), (np.abs(A),)]),
    (classify, [(A,), (np.array([0.0, -0.5, 7.0]),)]),
    (circle_area, [(A,), (B,)]),
    (clamp3, [(I8,), (I8 * 3,)]),
    (swap_rows, [(M4.copy(), 0, 2), (M4.copy(), 3, 1)]),
    (partial_pivot_lu, [(M4[::-1].copy(),), (M4,)]),
    (powers, [(A, 3), (A, 2)]),
    (newton_while, [(A,), (B,)]),
    (histogram2d, [(A, A[::-1], 4), (B, A, 3)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_pivoting_and_branching_kernels(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> None:
    differential(fn, *calls, rtol=1e-12, errors=True)


# ---------------------------------------------------------------------- refused, naming the line


def positives_as_array(a):
    vals = []
    for i in range(a.shape[0]):
        if a[i] > 0:
            vals.append(a[i])
    return np.array(vals)


def sieve(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[0] = False
    is_prime[1] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            for j in range(i * i, n + 1, i):
                is_prime[j] = False
        i += 1
    primes = []
    for k in range(n + 1):
        if is_prime[k]:
            primes.append(k)
    return np.array(primes)


def quicksort_iter(a):
    stack = [(0, a.shape[0] - 1)]
    while stack:
        lo, hi = stack.pop()
        if lo >= hi:
            continue
        p = a[hi]
        i = lo
        for j in range(lo, hi):
            if a[j] < p:
                a[i], a[j] = a[j], a[i]
                i += 1
        a[i], a[hi] = a[hi], a[i]
        stack.append((lo, i - 1))
        stack.append((i + 1, hi))
    return a


def nested_early_return(m):
    total = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] < 0:
                return None
            total += m[i, j]
    return total


def first_above_for_else(a, t):
    for i in range(a.shape[0]):
        if a[i] > t:
            found = i
            break
    else:
        found = -1
    return found


def _line_of(fn: Callable[..., Any], text: str) -> int:
    """The line of ``fn``'s source that holds ``text`` (so the expected refusal names it)."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn, args, append, condition", [
    (positives_as_array, (A,), "vals.append", "if a[i] > 0"),
    (sieve, (30,), "primes.append", "if is_prime[k]"),
    # (the `if` named is the user's `if lo >= hi`, whose `continue` guards the rest of the body:
    # frontend/autograph/converters/jumps.py locates the guard there)
    (quicksort_iter, (A.copy(),), "stack.append((lo", "if lo >= hi"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_list_grown_under_a_staged_if_is_refused_naming_the_lines(
        fn: Callable[..., Any], args: tuple[Any, ...], append: str, condition: str) -> None:
    """Numba grows a list under an ``if`` on array data; kiln traces both paths once, so the list's
    length would depend on the data: refused, naming the ``append`` and the ``if`` lines."""
    name = append.split(".")[0]
    with pytest.raises(NotImplementedError, match=(
            rf"^{re.escape(__file__)}:{_line_of(fn, append)}: `{name}\.append\(\.\.\.\)` changes the length of the "
            rf"Python list '{name}' inside a staged `if` at {re.escape(__file__)}:{_line_of(fn, condition)}: ")):
        kiln.function(fn)(*copy.deepcopy(args))


def test_none_or_a_number_returned_from_a_loop_is_refused_naming_both_lines() -> None:
    """Numba returns an Optional here; a compiled function returns one kind of value on every path,
    so kiln refuses, naming the line that returns None and the line that returns the number."""
    with pytest.raises(TypeError, match=rf"{_line_of(nested_early_return, 'return None')}\b.*"
                                        rf"{_line_of(nested_early_return, 'return total')}\b") as info:
        kiln.function(nested_early_return)(M4 - 1)
    assert f"{__file__}:" in str(info.value)


def first_above_no_else(a, t):
    for i in range(a.shape[0]):
        if a[i] > t:
            found = i
            break
    return found


def first_above_two_breaks(a, t):
    for i in range(a.shape[0]):
        if a[i] > t:
            found = i
            break
        if a[i] < -t:
            break
    else:
        found = -1
    return found


def first_above_while_true(a, t):
    i = 0
    while True:
        if a[i] > t:
            found = i
            break
        i += 1
    return found


def a_value_bound_where_a_loop_breaks_read_in_else(a, t):
    for i in range(a.shape[0]):
        if a[i] > t:
            found = a[i] * 2
            break
    else:
        found = a[0]
    return found + 1


def test_a_variable_bound_where_a_loop_breaks_keeps_pythons_answer() -> None:
    """``found`` is bound only on the iteration that breaks and in the loop's ``else``: the loop
    carries it with the `break` flag that says where it is bound (a JumpBound), and the ``else``
    clause runs exactly where that flag is not set, so after it ``found`` is bound on every path."""
    differential(first_above_for_else, (A, 1.0), (A, 10.0), errors=True)
    differential(a_value_bound_where_a_loop_breaks_read_in_else, (A, 1.0), (A, 10.0), errors=True)
    differential(first_above_while_true, (A, 1.0), (A, 2.5), errors=True)


@pytest.mark.parametrize("fn", [first_above_no_else, first_above_two_breaks], ids=lambda fn: fn.__name__)
def test_a_variable_bound_only_where_a_loop_breaks_is_refused_not_wrong(fn: Callable[..., Any]) -> None:
    """Without an ``else`` (or with a second ``break`` that leaves it unbound), whether ``found`` is
    bound after the loop is known only at run time: refused where it is bound, naming the line
    (never the zeros a loop carries for a variable no iteration bound)."""
    line = _line_of(fn, "if a[i] > t")
    with pytest.raises(UnboundLocalError, match=rf"^{re.escape(__file__)}:{line}: variable 'found' is defined only "
                                                r"in the `if` branch of this `if` on a tensor"):
        kiln.function(fn)(A, 1.0)


def argument_on_one_path(a):
    if a[0] > 0:
        return a
    return a * 2


def arguments_swapped_on_one_path(a, b):
    if a[0] > 0:
        return a, b * 2
    return b, a


def argument_written_and_returned_on_one_path(a):
    if a[0] > 0:
        a[1] = 9.0
        return a
    return a + 1


def test_an_argument_returned_on_one_staged_path_is_the_callers_array() -> None:
    """The merged result carries a flag per argument it may be (true on the calls where it is that
    one, through merges of merges): the call returns the caller's array where the flag is set."""
    differential(argument_on_one_path, (A.copy(),), (-A,))
    swapped = differential(arguments_swapped_on_one_path, (A.copy(), B.copy()), (-A, B.copy()))
    for a, b in ((A.copy(), B.copy()), (-A, B.copy())):  # (differential compares a tuple's identity only)
        want, got = arguments_swapped_on_one_path(a, b), swapped(a, b)
        assert [w is x for w in want for x in (a, b)] == [g is x for g in got for x in (a, b)]
    differential(argument_written_and_returned_on_one_path, (A.copy(),), (-A,))
