"""Check ``kiln.grad`` of one gradient program against central differences of the eager program.

The eager function (NumPy alone, float64) is differenced one coordinate at a time with step
:data:`STEP`. A coordinate counts only where the function is smooth around it: the second
differences ``S(t) = (f(x + t) - 2 f(x) + f(x - t)) / t`` are ``t f''(x)`` for a smooth function, so
``S(2h) = 2 S(h)`` and ``S(4h) = 2 S(2h)`` up to rounding. A kink (a slope that jumps by ``J``: a
branch, ``np.abs`` at 0, a ``max`` tie, a loop's trip count) within ``h`` of ``x`` breaks one of
them by at least ``J / 5`` and moves the central difference by at most ``J / 2``; one within
``4h`` breaks one and leaves the central difference exact; its truncation error ``h^2 f'(3)/6`` is
a third of ``|D(2h) - D(h)|``. So a coordinate that passes has a central difference within
:func:`tolerance` of the true derivative, and a correct gradient never fails; the others are
skipped (a program with none is ``invalid``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from kiln.fuzz.check import MODE_ORACLES, IllDefined, Outcome, classify_error, compare_values

#: the finite-difference step (inputs are O(1), values at most :data:`VALUE_LIMIT`)
STEP = 1e-5
#: a program whose value or differences exceed this is ill defined here (rounding would dominate)
VALUE_LIMIT = 1e6
#: float64 rounding, with room for the sums of a few hundred operations
_EPS = 256 * np.finfo(np.float64).eps


def _value(fn: Callable[..., Any], args: list[Any], copy: bool = True) -> float:
    """``fn``'s scalar result on copies of ``args`` or on ``args`` themselves (NumPy errors and
    warnings make it ill defined)."""
    try:
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            out = fn(*[a.copy() if copy and isinstance(a, np.ndarray) else a for a in args])
    except Exception as e:
        raise IllDefined(f"NumPy raised {type(e).__name__}: {e}") from e
    if not isinstance(out, (float, np.floating)) or np.ndim(out) != 0:
        raise IllDefined(f"the result is {type(out).__name__}, not a float scalar")
    if not abs(out) < VALUE_LIMIT:
        raise IllDefined(f"the result {out!r} is beyond {VALUE_LIMIT:g}")
    return float(out)


def smooth_differences(fn: Callable[..., Any], args: list[Any], argnum: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The central differences of ``fn`` in argument ``argnum``, a mask of the coordinates where it is
    smooth, and the tolerance of each difference there."""
    a = np.asarray(args[argnum])
    f0 = _value(fn, args)
    est, smooth, tol = np.zeros(a.shape), np.zeros(a.shape, bool), np.zeros(a.shape)
    for index in np.ndindex(a.shape):
        values = {}
        for t in (1, -1, 2, -2, 4, -4):
            moved = list(args)
            moved[argnum] = a.copy()
            moved[argnum][index] += t * STEP
            values[t] = _value(fn, moved)
        second = {t: (values[t] - 2 * f0 + values[-t]) / (t * STEP) for t in (1, 2, 4)}
        d = (values[1] - values[-1]) / (2 * STEP)
        d2 = (values[2] - values[-2]) / (4 * STEP)
        noise = _EPS * (1 + max(abs(v) for v in values.values())) / STEP
        kink = max(abs(second[2] - 2 * second[1]), abs(second[4] - 2 * second[2]))
        est[index] = d
        smooth[index] = kink <= noise + 1e-7 * (1 + abs(d))
        tol[index] = tolerance(d, noise, abs(d2 - d))
    return est, smooth, tol


def tolerance(d: float, noise: float, spread: float) -> float:
    """How far a correct derivative may be from a smooth central difference ``d``: 2.5 times the
    smoothness threshold (a kink it let through moves ``d`` by at most that), plus ``spread =
    |D(2h) - D(h)|``, three times ``d``'s truncation error ``h^2 f'(3)/6`` (steep ``tanh`` in a
    loop: kiln.fuzz grad 15507-63), plus rounding."""
    return 2.5 * (noise + 1e-7 * (1 + abs(d))) + spread + 1e-9 * (1 + abs(d))


def check_grad(module: ModuleType, path: str, lines: int, transform: Callable[..., Any] | None = None,
               on_compile: Callable[[], None] | None = None) -> Outcome:
    """Classify one gradient program: ``kiln.grad`` (or ``kiln.value_and_grad``, as the program says)
    of ``f`` against smooth central differences, and its arguments after the call (a program may
    write an argument through a view: the caller sees it, under kiln.grad too)."""
    start = time.perf_counter()
    argnums = module.ARGNUMS if isinstance(module.ARGNUMS, tuple) else (module.ARGNUMS,)
    with_value = bool(getattr(module, "VALUE_AND_GRAD", False))
    try:
        args = module.inputs()
        value = _value(module.f, args)
        want_args = module.inputs()  # the arguments after an eager call (a program may write through a view)
        _value(module.f, want_args, copy=False)
        wants = [smooth_differences(module.f, args, n) for n in argnums]
    except IllDefined as e:
        return Outcome("invalid", str(e)[:500], "invalid", "", time.perf_counter() - start)
    if not any(s.any() for _, s, _ in wants):
        return Outcome("invalid", "no coordinate where the program is smooth", "invalid", "", time.perf_counter() - start)
    if transform is None:
        import kiln

        transform = kiln.value_and_grad if with_value else kiln.grad
    got_args = module.inputs()
    if on_compile is not None:
        on_compile()
    try:
        got = transform(module.f, argnums=module.ARGNUMS)(*got_args)
    except Exception as e:
        out = classify_error(e, path, lines)
    else:
        out = _compare(value, wants, got, with_value, isinstance(module.ARGNUMS, tuple), want_args, got_args)
    out.seconds = time.perf_counter() - start
    return out


def _compare(value: float, wants: list[tuple[np.ndarray, np.ndarray, np.ndarray]], got: Any, with_value: bool,
             several: bool, want_args: list[Any], got_args: list[Any]) -> Outcome:
    if with_value:
        if not (isinstance(got, tuple) and len(got) == 2):
            return Outcome("mismatch", f"value_and_grad gave {type(got).__name__}, not (value, gradient)", "mismatch: result structure")
        bad = compare_values(np.float64(value), got[0], "value")
        if bad:
            return bad
        got = got[1]
    grads = got if several else (got,)
    if not (isinstance(grads, tuple) and len(grads) == len(wants)):
        return Outcome("mismatch", f"the gradient is {type(got).__name__}, not {len(wants)} array(s)", "mismatch: result structure")
    for k, ((est, smooth, tol), g) in enumerate(zip(wants, grads)):
        where = f"gradient {k}"
        g = np.asarray(g)
        if g.dtype != est.dtype or g.shape != est.shape:
            return Outcome("mismatch", f"{where}: {g.dtype}{list(g.shape)}, the argument is {est.dtype}{list(est.shape)}",
                           f"mismatch: dtype or shape of {where.split(' ')[0]}")
        wrong = smooth & ~(np.abs(g - est) <= tol)
        if wrong.any():
            first = tuple(int(i) for i in np.argwhere(wrong)[0])
            return Outcome("mismatch", f"{where}: {int(wrong.sum())} of {int(smooth.sum())} smooth coordinate(s) differ, "
                           f"first at {list(first)}: {g[first]!r} vs the central difference {est[first]!r}",
                           "mismatch: values of gradient", f"central differences: {est}\nsmooth: {smooth}\nkiln: {g}")
    for k, (w, g) in enumerate(zip(want_args, got_args)):
        bad = compare_values(w, g, f"argument {k} after the call")
        if bad:
            return bad
    return Outcome("match")


MODE_ORACLES["grad"] = lambda module, path, lines, on_compile: check_grad(module, path, lines, on_compile=on_compile)
