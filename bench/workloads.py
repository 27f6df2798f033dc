"""The benchmark workloads, written once as NumPy code that kiln traces, Numba compiles and
JAX runs (``xp`` is ``numpy`` or ``jax.numpy``), each with its sizes (full and ``--quick``)
and the figure it reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import kiln


@dataclass(frozen=True)
class Workload:
    """One row: ``fn(*inputs, xp=module)`` (``xp`` defaults to NumPy, so kiln traces ``fn`` as is); ``unit`` is "us" (per call), "GB/s" or "GFLOP/s"."""

    name: str
    fn: Callable[..., Any]
    inputs: Callable[[bool], tuple[np.ndarray, ...]]  # quick -> inputs
    unit: str
    work: Callable[[tuple[np.ndarray, ...]], float] = lambda ins: 0.0  # bytes or FLOP per call
    rtol: float = 1e-5
    #: what NumPy runs instead of ``fn`` (a loop as written is Python-slow): vectorized code
    numpy_fn: Callable[..., Any] | None = None
    #: what kiln compiles instead of ``fn``, where kiln has the operation itself (kiln.conv2d)
    kiln_fn: Callable[..., Any] | None = None
    #: what Numba compiles instead of ``numpy_fn or fn``: the loops as written, with Python's range
    numba_fn: Callable[..., Any] | None = None
    #: peer -> why it does not run this workload (reported instead of a misleading figure)
    skip: dict[str, str] = field(default_factory=dict)


def _f32(*shape: int, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 0.5).astype(np.float32)


def _random(shape: tuple[int, ...], dtype: str, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 0.5).astype(dtype)


def add(x: Any, y: Any, *, xp: Any = np) -> Any:
    return x + y


def matmul(x: Any, y: Any, *, xp: Any = np) -> Any:
    return x @ y


def lstm_step(x: Any, h: Any, c: Any, w: Any, u: Any, b: Any, *, xp: Any = np) -> Any:
    hidden = h.shape[1]
    z = x @ w + h @ u + b

    def sigmoid(v: Any) -> Any:
        return 1 / (1 + xp.exp(-v))

    i, f = sigmoid(z[:, :hidden]), sigmoid(z[:, hidden : 2 * hidden])
    g, o = xp.tanh(z[:, 2 * hidden : 3 * hidden]), sigmoid(z[:, 3 * hidden :])
    c_next = f * c + i * g
    return o * xp.tanh(c_next), c_next


def chain(x: Any, *, xp: Any = np) -> Any:
    return xp.maximum(2 * x + 1, 0) * (1 / (1 + xp.exp(-x))) - x / 3


def mean(x: Any, *, xp: Any = np) -> Any:
    return x.mean()


def row_sums(x: Any, *, xp: Any = np) -> Any:
    return xp.sum(x, axis=1)  # TensorFlow's NumPy behaviour has x.mean() but no x.sum()


def dense_relu(x: Any, w: Any, b: Any, *, xp: Any = np) -> Any:
    return xp.maximum(x @ w + b, 0)


def conv2d(x: Any, w: Any, *, xp: Any = np) -> Any:
    """3x3 VALID convolution, NHWC x HWIO, as nine shifted matmuls."""
    n, height, width, channels = x.shape
    oh, ow = height - 2, width - 2
    out = None
    for i in range(3):
        for j in range(3):
            tap = x[:, i : i + oh, j : j + ow, :].reshape(n * oh * ow, channels) @ w[i, j]
            out = tap if out is None else out + tap
    return out.reshape(n, oh, ow, w.shape[3])


def sum_even(x: Any, *, xp: Any = np) -> Any:
    s = 0
    for v in x:
        if v % 2 == 0:
            s += v
    return s


def collatz(n: Any, *, xp: Any = np) -> Any:
    """Steps of every start value 1..len(n), the loops as written. ``kiln.range`` stages the outer
    loop (a Python ``range`` over a static size would run at trace time: a frozen constant)."""
    total = 0
    for k in kiln.range(1, n.shape[0] + 1):
        v = k
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            total += 1
    return total


def conv2d_kiln(x: Any, w: Any) -> Any:
    """The seed's Conv2D layer as a kiln user writes it."""
    return kiln.conv2d(x, w, padding="VALID")


def collatz_loops(n: Any, *, xp: Any = np) -> Any:
    """``collatz`` with Python's ``range``, as a Numba user writes it."""
    total = 0
    for k in range(1, n.shape[0] + 1):
        v = k
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            total += 1
    return total


def sum_even_numpy(x: Any, *, xp: Any = np) -> Any:
    return x[x % 2 == 0].sum()


def collatz_numpy(n: Any, *, xp: Any = np) -> Any:
    v = np.arange(1, n.shape[0] + 1, dtype=np.int64)
    total = 0
    while v.size:
        v = v[v != 1]
        total += v.size
        v = np.where(v % 2 == 0, v // 2, 3 * v + 1)
    return total


def _sgemm(n: int) -> Workload:
    return Workload(
        f"sgemm {n}", matmul, lambda quick: (_f32(64 if quick else n, 64 if quick else n),) * 2, "GFLOP/s",
        lambda ins: 2.0 * ins[0].shape[0] ** 3, rtol=1e-3,
    )


def _matrix_vector(name: str, dtype: str, vector_first: bool) -> Workload:
    """``y @ A`` or ``A @ x`` with A 4000 x 5000 (5000 x 4000): streams A once, so GB/s of A."""
    def inputs(quick: bool) -> tuple[np.ndarray, ...]:
        k, n = (40, 50) if quick else (4000, 5000)
        if vector_first:
            return _random((k,), dtype), _random((k, n), dtype, seed=1)
        return _random((n, k), dtype, seed=1), _random((k,), dtype)

    return Workload(name, matmul, inputs, "GB/s", lambda ins: float(max(ins, key=lambda a: a.size).nbytes),
                    rtol=1e-3 if dtype == "float32" else 1e-9)


def _batched(dtype: str, b: int, m: int, k: int) -> Workload:
    """``B @ C`` with B (b, m, k) and C (b, k, m): b GEMMs of one size."""
    return Workload(
        f"batched matmul {b}x{m}x{k} @ {b}x{k}x{m} {dtype}", matmul,
        lambda quick: (_random((2 if quick else b, m, k), dtype), _random((2 if quick else b, k, m), dtype, seed=1)),
        "GFLOP/s", lambda ins: 2.0 * ins[0].shape[0] * m * k * m, rtol=1e-3 if dtype == "float32" else 1e-9,
    )


_JAX_LOOPS = {
    "jax": "the loops as written need lax.while_loop; jax.jit of the NumPy version would compute "
    "it at trace time (its data comes from np.arange / boolean indexing), a meaningless figure",
    "tensorflow": "the NumPy version's boolean indexing and data-dependent while loop have no "
    "tf.function form; AutoGraph on the loops as written takes seconds per call (perf-baselines.md: "
    "6.4 s for sum_even, ~51 s for Collatz)",
}


def workloads() -> list[Workload]:
    return [
        Workload("add, 1 element", add, lambda quick: (_f32(1), _f32(1, seed=1)), "us"),
        Workload("matmul 10x10", matmul, lambda quick: (_f32(10, 10), _f32(10, 10, seed=1)), "us", rtol=1e-4),
        Workload(
            "LSTM cell step B=10 H=10", lstm_step,
            lambda quick: (_f32(10, 10), _f32(10, 10, seed=1), _f32(10, 10, seed=2), _f32(10, 40, seed=3),
                           _f32(10, 40, seed=4), _f32(40, seed=5)),
            "us", rtol=1e-4,
        ),
        Workload("relu(2x+1)*sigmoid(x)-x/3, 10^7 f32", chain, lambda quick: (_f32(10_000 if quick else 10**7),),
                 "GB/s", lambda ins: 8.0 * ins[0].size, rtol=1e-5),
        Workload("mean, 10^7 f32", mean, lambda quick: (_f32(10_000 if quick else 10**7),), "GB/s",
                 lambda ins: 4.0 * ins[0].size, rtol=1e-3),
        Workload("row sums, 4096^2 f32", row_sums, lambda quick: (_f32(64, 64) if quick else _f32(4096, 4096),),
                 "GB/s", lambda ins: 4.0 * ins[0].size, rtol=1e-3),
        *[_sgemm(n) for n in (256, 512, 1024, 2048)],
        *[_matrix_vector(f"y @ A, 4000 @ 4000x5000 {t}", t, True) for t in ("float64", "float32")],
        *[_matrix_vector(f"A @ x, 5000x4000 @ 4000 {t}", t, False) for t in ("float64", "float32")],
        *[_batched(t, b, m, k) for t in ("float64", "float32") for b, m, k in ((8, 64, 32), (32, 128, 64))],
        Workload(
            "relu(x @ w + b), 512", dense_relu,
            lambda quick: (_f32(64, 64), _f32(64, 64, seed=1), _f32(64, seed=2)) if quick
            else (_f32(512, 512), _f32(512, 512, seed=1), _f32(512, seed=2)),
            "GFLOP/s", lambda ins: 2.0 * ins[0].shape[0] ** 3, rtol=1e-3,
        ),
        Workload(
            "Conv2D 1x200x200x100, 100 filters 3x3", conv2d,
            lambda quick: (_f32(1, 10, 10, 4), _f32(3, 3, 4, 5, seed=1)) if quick
            else (_f32(1, 200, 200, 100), _f32(3, 3, 100, 100, seed=1)),
            "GFLOP/s",
            lambda ins: 2.0 * (ins[0].shape[1] - 2) * (ins[0].shape[2] - 2) * 9 * ins[0].shape[3] * ins[1].shape[3],
            rtol=1e-3, kiln_fn=conv2d_kiln,
        ),
        # values below 1000: the int32 sum does not overflow (the loop keeps int32 like NumPy; see docs/autograph.md)
        Workload("sum_even, 10^6 int32", sum_even,
                 lambda quick: (np.arange(1000 if quick else 10**6, dtype=np.int32) % 1000,), "GB/s",
                 lambda ins: 4.0 * ins[0].size, numpy_fn=sum_even_numpy, numba_fn=sum_even, skip=_JAX_LOOPS),
        Workload("Collatz steps 1..10^5", collatz, lambda quick: (np.zeros(100 if quick else 10**5, np.int32),), "us",
                 numpy_fn=collatz_numpy, numba_fn=collatz_loops, skip=_JAX_LOOPS),
    ]
