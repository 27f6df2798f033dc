"""The README's promise: ``kiln-opt -p graph-to-c -t c`` on a traced function's ``.ir`` prints
exactly its ``.source``, for every construct in the API table (docs/numpy-semantics.md, made by
kiln.frontend.api_table) and for NPBench-like kernels.

kiln-opt verifies the IR after every pass (as xdsl-opt does), so a lowering that emits IR xDSL's
verifier refuses fails here even where the decorator path, which does not verify, gives the
same C. The decorator path runs with ``KILN_VERIFY=1`` too, so such a failure names its pass.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kiln
from kiln import pipelines
from kiln.frontend import api_table
from kiln.tools import kiln_opt

RNG = np.random.default_rng(7)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def f64(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def i32(*shape: int) -> np.ndarray:
    return RNG.integers(0, 5, shape).astype(np.int32)


def c64(*shape: int) -> np.ndarray:
    return (f32(*shape) + 1j * f32(*shape)).astype(np.complex64)


def spd(n: int) -> np.ndarray:
    a = f64(n, n)
    return a @ a.T + n * np.eye(n)


Example = tuple[Callable[..., Any], tuple[Any, ...]]

#: ufuncs whose operands are integers (the others get floats)
_INTEGER_UFUNCS = {"np.bitwise_and", "np.bitwise_or", "np.bitwise_xor", "np.invert", "np.left_shift", "np.right_shift"}


def _ufunc(name: str) -> Example:
    """``np.<name>`` on one or two operands, as many as the ufunc takes."""
    ufunc = getattr(np, name.removeprefix("np."))
    if name == "np.matmul":
        return ufunc, (f32(3, 4), f32(4, 2))
    make = i32 if name in _INTEGER_UFUNCS else f32
    return ufunc, tuple(make(3, 4) for _ in range(ufunc.nin))


#: one call of each construct of the table but the ufuncs (their example is made by _ufunc)
def _shuffled(x: np.ndarray) -> np.ndarray:
    y = x * 1.0
    np.random.shuffle(y)
    return y


def _fill_diagonal(x: np.ndarray) -> np.ndarray:
    np.fill_diagonal(x, 0.5)
    return x


def _put(x: np.ndarray) -> np.ndarray:
    np.put(x, [0, 5], [1.5, 2.5])
    return x


def _flat(x: np.ndarray) -> np.ndarray:
    x.flat[3] = 2.0
    return x.flat[5] + x


def _method_put(x: np.ndarray) -> np.ndarray:
    x.put([1, 2], 7.0)
    return x


def _method_partition(x: np.ndarray) -> np.ndarray:
    x.partition(1)
    return x


def _ndenumerate(x: np.ndarray) -> Any:
    total = x[0, 0] * 0
    for index, v in np.ndenumerate(x):
        total = total + v * index[0]
    return total


EXAMPLES: dict[str, Example] = {
    # functions
    "np.all": (lambda x: np.all(x > 0, axis=0), (f32(3, 4),)),
    "np.allclose": (lambda x, y: np.allclose(x, y), (f32(3, 4), f32(3, 4))),
    "np.amax": (lambda x: np.amax(x, axis=1), (f32(3, 4),)),
    "np.amin": (lambda x: np.amin(x), (f32(3, 4),)),
    "np.angle": (lambda x: np.angle(x), (c64(3, 4),)),
    "np.any": (lambda x: np.any(x > 0), (f32(3, 4),)),
    "np.argmax": (lambda x: np.argmax(x, axis=0), (f32(3, 4),)),
    "np.argmin": (lambda x: np.argmin(x), (f32(3, 4),)),
    "np.argsort": (lambda x: np.argsort(x, axis=1), (f32(3, 4),)),
    "np.argwhere": (lambda x: np.argwhere(x > 0), (f32(3, 4),)),
    "np.around": (lambda x: np.around(x, 2), (f32(3, 4),)),
    "np.array_split": (lambda x: np.array_split(x, 3), (f32(7),)),
    "np.atleast_1d": (lambda x: np.atleast_1d(x) + 1, (f32(),)),
    "np.atleast_2d": (lambda x: np.atleast_2d(x) + 1, (f32(4),)),
    "np.atleast_3d": (lambda x: np.atleast_3d(x) + 1, (f32(4),)),
    "np.average": (lambda x, w: np.average(x, axis=0, weights=w), (f32(3, 4), f32(3))),
    "np.bincount": (lambda x: np.bincount(x, minlength=6), (i32(10),)),
    "np.broadcast_to": (lambda x: np.broadcast_to(x, (3, 4)) + 1, (f32(4),)),
    "np.clip": (lambda x: np.clip(x, -0.5, 0.5), (f32(3, 4),)),
    "np.column_stack": (lambda x, y: np.column_stack([x, y]), (f32(4), f32(4))),
    "np.compress": (lambda c, x: np.compress(c > 0, x, axis=0), (f32(3), f32(3, 4))),
    "np.concatenate": (lambda x, y: np.concatenate([x, y]) * 2, (f32(1), f32(2))),
    "np.copyto": (lambda x, y: np.copyto(x, y * 2), (f32(3, 4), f32(3, 4))),
    "np.convolve": (lambda x, w: np.convolve(x, w, mode="same"), (f32(8), f32(3))),
    "np.corrcoef": (lambda x: np.corrcoef(x), (f64(3, 6),)),
    "np.count_nonzero": (lambda x: np.count_nonzero(x > 0, axis=1), (f32(3, 4),)),
    "np.cov": (lambda x: np.cov(x), (f64(3, 6),)),
    "np.cumprod": (lambda x: np.cumprod(x, axis=1), (f32(3, 4),)),
    "np.cumsum": (lambda x: np.cumsum(x), (f32(3, 4),)),
    "np.diag": (lambda x, v: (np.diag(x), np.diag(v, 1)), (f32(4, 4), f32(3))),
    "np.diagonal": (lambda x: np.diagonal(x, 1), (f32(4, 5),)),
    "np.diff": (lambda x: np.diff(x, axis=1), (f32(3, 4),)),
    "np.dot": (lambda x, y: np.dot(x, y), (f32(3, 4), f32(4, 2))),
    "np.dsplit": (lambda x: np.dsplit(x, 2), (f32(2, 3, 4),)),
    "np.dstack": (lambda x, y: np.dstack([x, y]), (f32(3, 4), f32(3, 4))),
    "np.einsum": (lambda x, y: np.einsum("ij,jk->ik", x, y), (f32(3, 4), f32(4, 2))),
    "np.empty_like": (lambda x: np.empty_like(x).shape, (f32(3, 4),)),
    "np.expand_dims": (lambda x: np.expand_dims(x, 1) * 2, (f32(3, 4),)),
    "np.extract": (lambda x: np.extract(x > 0, x), (f32(3, 4),)),
    "np.flatnonzero": (lambda x: np.flatnonzero(x > 0), (f32(3, 4),)),
    "np.flip": (lambda x: np.flip(x, 0), (f32(3, 4),)),
    "np.fliplr": (lambda x: np.fliplr(x), (f32(3, 4),)),
    "np.flipud": (lambda x: np.flipud(x), (f32(3, 4),)),
    "np.full_like": (lambda x: np.full_like(x, 2.5) + x, (f32(3, 4),)),
    "np.histogram": (lambda x: np.histogram(x, bins=5, range=(-2.0, 2.0)), (f32(20),)),
    "np.hsplit": (lambda x: np.hsplit(x, 2), (f32(3, 4),)),
    "np.hstack": (lambda x, y: np.hstack([x, y]), (f32(3, 2), f32(3, 4))),
    "np.imag": (lambda x: np.imag(x), (c64(3, 4),)),
    "np.inner": (lambda x, y: np.inner(x, y), (f32(4), f32(4))),
    "np.isclose": (lambda x, y: np.isclose(x, y), (f32(3, 4), f32(3, 4))),
    "np.linalg.cholesky": (lambda a: np.linalg.cholesky(a), (spd(4),)),
    "np.linalg.det": (lambda a: np.linalg.det(a), (spd(4),)),
    "np.linalg.inv": (lambda a: np.linalg.inv(a), (spd(4),)),
    "np.linalg.matrix_power": (lambda a: np.linalg.matrix_power(a, 3), (spd(4),)),
    "np.linalg.norm": (lambda x: np.linalg.norm(x, axis=1), (f32(3, 4),)),
    "np.linalg.solve": (lambda a, b: np.linalg.solve(a, b), (spd(4), f64(4))),
    "np.max": (lambda x: np.max(x, axis=0), (f32(3, 4),)),
    "np.mean": (lambda x: np.mean(x, axis=1), (f32(3, 4),)),
    "np.meshgrid": (lambda x, y: np.meshgrid(x, y), (f32(3), f32(4))),
    "np.min": (lambda x: np.min(x), (f32(3, 4),)),
    "np.moveaxis": (lambda x: np.moveaxis(x, 0, -1) + 1, (f32(2, 3, 4),)),
    "np.nan_to_num": (lambda x: np.nan_to_num(x), (f32(3, 4),)),
    "np.nanmax": (lambda x: np.nanmax(x, axis=0), (f32(3, 4),)),
    "np.nanmean": (lambda x: np.nanmean(x), (f32(3, 4),)),
    "np.nanmin": (lambda x: np.nanmin(x, axis=1), (f32(3, 4),)),
    "np.nanprod": (lambda x: np.nanprod(x), (f32(3, 4),)),
    "np.nansum": (lambda x: np.nansum(x, axis=0), (f32(3, 4),)),
    "np.ndim": (lambda x: x * np.ndim(x), (f32(3, 4),)),
    "np.nonzero": (lambda x: np.nonzero(x > 0), (f32(3, 4),)),
    "np.ones_like": (lambda x: np.ones_like(x) + x, (f32(3, 4),)),
    "np.outer": (lambda x, y: np.outer(x, y), (f32(3), f32(4))),
    "np.pad": (lambda x: np.pad(x, ((1, 2), (0, 1))), (f32(3, 4),)),
    "np.prod": (lambda x: np.prod(x, axis=0), (f32(3, 4),)),
    "np.ptp": (lambda x: np.ptp(x, axis=1), (f32(3, 4),)),
    "np.ravel": (lambda x: np.ravel(x.T), (f32(3, 4),)),
    "np.real": (lambda x: np.real(x), (c64(3, 4),)),
    "np.repeat": (lambda x: np.repeat(x, 2, axis=0), (f32(3, 4),)),
    "np.reshape": (lambda x: np.reshape(x, (4, 3)) + 1, (f32(3, 4),)),
    "np.roll": (lambda x: np.roll(x, 2, axis=1), (f32(3, 4),)),
    "np.round": (lambda x: np.round(x, 1), (f32(3, 4),)),
    "np.searchsorted": (lambda a, v: np.searchsorted(a, v), (np.sort(f32(8)), f32(5))),
    "np.shape": (lambda x: x * np.shape(x)[0], (f32(3, 4),)),
    "np.size": (lambda x: x * np.size(x), (f32(3, 4),)),
    "np.sort": (lambda x: np.sort(x), (f32(3, 4),)),
    "np.split": (lambda x: np.split(x, 2, axis=1), (f32(3, 4),)),
    "np.squeeze": (lambda x: np.squeeze(x) + 1, (f32(3, 1, 4),)),
    "np.stack": (lambda x, y: np.stack([x, y], axis=1), (f32(3, 4), f32(3, 4))),
    "np.std": (lambda x: np.std(x, axis=0), (f32(3, 4),)),
    "np.sum": (lambda x: np.sum(x, axis=1), (f32(3, 4),)),
    "np.swapaxes": (lambda x: np.swapaxes(x, 0, 1) + 1, (f32(3, 4),)),
    "np.tensordot": (lambda x, y: np.tensordot(x, y, axes=1), (f32(3, 4), f32(4, 2))),
    "np.tile": (lambda x: np.tile(x, (2, 1)), (f32(3, 4),)),
    "np.trace": (lambda x: np.trace(x), (f32(4, 4),)),
    "np.transpose": (lambda x: np.transpose(x) + 1, (f32(3, 4),)),
    "np.tril": (lambda x: np.tril(x), (f32(4, 4),)),
    "np.triu": (lambda x: np.triu(x, 1), (f32(4, 4),)),
    "np.var": (lambda x: np.var(x, axis=1), (f32(3, 4),)),
    "np.vdot": (lambda x, y: np.vdot(x, y), (f32(4), f32(4))),
    "np.vsplit": (lambda x: np.vsplit(x, 2), (f32(4, 3),)),
    "np.vstack": (lambda x, y: np.vstack([x, y]), (f32(2, 4), f32(3, 4))),
    "np.where": (lambda x: np.where(x > 0, x, 0.0), (f32(3, 4),)),
    "np.zeros_like": (lambda x: np.zeros_like(x) + x, (f32(3, 4),)),
    "np.append": (lambda x, y: np.append(x, y), (f32(3, 4), f32(2))),
    "np.apply_along_axis": (lambda x: np.apply_along_axis(np.sum, 1, x), (f32(3, 4),)),
    "np.argpartition": (lambda x: np.argpartition(x, 1), (f32(5),)),
    "np.array_equal": (lambda x, y: np.array_equal(x, y), (f32(3, 4), f32(3, 4))),
    "np.array_equiv": (lambda x, y: np.array_equiv(x, y), (f32(3, 4), f32(4))),
    "np.block": (lambda x, y: np.block([[x, y], [y, x]]), (f32(2, 2), f32(2, 2))),
    "np.broadcast_arrays": (lambda x, y: np.broadcast_arrays(x, y)[1] + 1, (f32(3, 4), f32(4))),
    "np.correlate": (lambda x, y: np.correlate(x, y, "full"), (f32(6), f32(3))),
    "np.cross": (lambda x, y: np.cross(x, y), (f32(4, 3), f32(4, 3))),
    "np.delete": (lambda x: np.delete(x, [0, 2], axis=1), (f32(3, 4),)),
    "np.digitize": (lambda x: np.digitize(x, [-1.0, 0.0, 1.0]), (f32(3, 4),)),
    "np.ediff1d": (lambda x: np.ediff1d(x, to_begin=0.5), (f32(6),)),
    "np.fill_diagonal": (_fill_diagonal, (f32(3, 3),)),
    "np.fix": (lambda x: np.fix(x * 3), (f32(3, 4),)),
    "np.gradient": (lambda x: np.gradient(x, 0.5), (f64(6),)),
    "np.histogram2d": (lambda x, y: np.histogram2d(x, y, bins=3, range=[[-2, 2], [-2, 2]])[0], (f64(10), f64(10))),
    "np.histogramdd": (lambda x: np.histogramdd(x, bins=2, range=[[-2, 2], [-2, 2]])[0], (f64(8, 2),)),
    "np.insert": (lambda x: np.insert(x, 1, 9.0, axis=0), (f32(3, 4),)),
    "np.interp": (lambda x, xp, fp: np.interp(x, xp, fp), (f64(5), np.array([-1.0, 0.0, 2.0]), f64(3))),
    "np.intersect1d": (lambda x, y: np.intersect1d(x, y), (i32(6), i32(5))),
    "np.isin": (lambda x: np.isin(x, [1, 3]), (i32(3, 4),)),
    "np.kron": (lambda x, y: np.kron(x, y), (f32(2, 2), f32(2, 3))),
    "np.lexsort": (lambda x, y: np.lexsort((x, y)), (i32(6), i32(6))),
    "np.linalg.multi_dot": (lambda x, y, z: np.linalg.multi_dot([x, y, z]), (f64(3, 4), f64(4, 5), f64(5, 2))),
    "np.median": (lambda x: np.median(x, axis=0), (f32(3, 4),)),
    "np.nanargmax": (lambda x: np.nanargmax(x, axis=1), (f32(3, 4),)),
    "np.nanargmin": (lambda x: np.nanargmin(x), (f32(3, 4),)),
    "np.nanmedian": (lambda x: np.nanmedian(x, axis=1), (f32(3, 4),)),
    "np.nanpercentile": (lambda x: np.nanpercentile(x, 30.0, axis=0), (f32(3, 4),)),
    "np.nanquantile": (lambda x: np.nanquantile(x, [0.25, 0.5]), (f32(3, 4),)),
    "np.nanstd": (lambda x: np.nanstd(x, axis=0), (f32(3, 4),)),
    "np.nanvar": (lambda x: np.nanvar(x), (f32(3, 4),)),
    "np.ndenumerate": (_ndenumerate, (f32(2, 2),)),
    "np.partition": (lambda x: np.partition(x, 2), (f32(6),)),
    "np.percentile": (lambda x: np.percentile(x, [10.0, 90.0], axis=1), (f32(3, 4),)),
    "np.piecewise": (lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 2]), (f32(3, 4),)),
    "np.polyval": (lambda x: np.polyval([1.0, -2.0, 0.5], x), (f32(3, 4),)),
    "np.put": (_put, (f32(3, 4),)),
    "np.quantile": (lambda x: np.quantile(x, 0.3, method="nearest"), (f32(3, 4),)),
    "np.resize": (lambda x: np.resize(x, (2, 7)), (f32(3, 4),)),
    "np.result_type": (lambda x: x.astype(np.result_type(x, 1.5)), (i32(3, 4),)),
    "np.rot90": (lambda x: np.rot90(x) + 1, (f32(3, 4),)),
    "np.select": (lambda x: np.select([x < -0.5, x > 0.5], [x, -x], default=0.0), (f32(3, 4),)),
    "np.setdiff1d": (lambda x, y: np.setdiff1d(x, y), (i32(6), i32(4))),
    "np.setxor1d": (lambda x, y: np.setxor1d(x, y), (i32(6), i32(4))),
    "np.sinc": (lambda x: np.sinc(x), (f32(3, 4),)),
    "np.take": (lambda x: np.take(x, [0, 2], axis=1), (f32(3, 4),)),
    "np.take_along_axis": (lambda x: np.take_along_axis(x, np.argsort(x, axis=1), axis=1), (f32(3, 4),)),
    "np.trapezoid": (lambda x: np.trapezoid(x, dx=0.5), (f32(3, 4),)),
    "np.tril_indices_from": (lambda x: x[np.tril_indices_from(x)], (f32(3, 3),)),
    "np.triu_indices_from": (lambda x: x[np.triu_indices_from(x, 1)], (f32(3, 3),)),
    "np.union1d": (lambda x, y: np.union1d(x, y), (i32(6), i32(4))),
    "np.unique": (lambda x: np.unique(x, return_counts=True), (i32(8),)),
    "np.unique_all": (lambda x: np.unique_all(x).counts, (i32(8),)),
    "np.unique_counts": (lambda x: np.unique_counts(x).values, (i32(8),)),
    "np.unique_inverse": (lambda x: np.unique_inverse(x).inverse_indices, (i32(8),)),
    "np.unravel_index": (lambda x: np.unravel_index(np.argmax(x), x.shape), (f32(3, 4),)),
    "np.vander": (lambda x: np.vander(x, 3), (f32(4),)),
    "x.argpartition": (lambda x: x.argpartition(2), (f32(5),)),
    "x.flat": (_flat, (f32(3, 4),)),
    "x.partition": (_method_partition, (f32(5),)),
    "x.put": (_method_put, (f32(3, 4),)),
    "x.take": (lambda x: x.take([3, 1]), (f32(3, 4),)),
    "x.tolist": (lambda x: x[0].tolist()[1] + x, (f32(3, 4),)),
    # array creation
    "np.arange": (lambda x: x + np.arange(4), (f32(3, 4),)),
    "np.array": (lambda x: np.array([x[0], x[1]]) * 2, (f32(3, 4),)),
    "np.asarray": (lambda x: np.asarray(x, dtype=np.float64) + 1, (f32(3, 4),)),
    "np.ascontiguousarray": (lambda x: np.ascontiguousarray(x.T) + 1, (f32(3, 4),)),
    "np.asfortranarray": (lambda x: np.asfortranarray(x) + 1, (f32(3, 4),)),
    "np.copy": (lambda x: np.copy(x), (f32(3, 4),)),
    "np.empty": (lambda x: np.empty((3, 4)).shape, (f32(3, 4),)),
    "np.eye": (lambda x: x @ np.eye(4, dtype=np.float32), (f32(3, 4),)),
    "np.full": (lambda x: x + np.full((3, 4), 2.0), (f32(3, 4),)),
    "np.identity": (lambda x: x @ np.identity(4), (f32(3, 4),)),
    "np.indices": (lambda x: x + np.indices((3, 4))[0], (f32(3, 4),)),
    "np.linspace": (lambda x: x + np.linspace(0.0, 1.0, 4), (f32(3, 4),)),
    "np.logspace": (lambda x: x + np.logspace(0.0, 1.0, 4), (f32(3, 4),)),
    "np.ndarray": (lambda x: x + np.ndarray((3, 4), dtype=np.float32).shape[0], (f32(3, 4),)),
    "np.ones": (lambda x: x + np.ones(4), (f32(3, 4),)),
    "np.tri": (lambda x: x * np.tri(3, 4), (f32(3, 4),)),
    "np.zeros": (lambda x: x + np.zeros((3, 4), np.float32), (f32(3, 4),)),
    # random numbers
    "np.random.default_rng": (lambda x: x + np.random.default_rng(1).random(4), (f32(3, 4),)),
    "np.random.normal": (lambda x: x + np.random.normal(0.0, 2.0, (3, 4)), (f32(3, 4),)),
    "np.random.permutation": (lambda x: np.random.permutation(x), (f32(5),)),
    "np.random.shuffle": (lambda x: _shuffled(x), (f32(5),)),
    "np.random.rand": (lambda x: x + np.random.rand(3, 4), (f32(3, 4),)),
    "np.random.randint": (lambda x: x + np.random.randint(0, 10, (3, 4)), (f32(3, 4),)),
    "np.random.randn": (lambda x: x + np.random.randn(3, 4), (f32(3, 4),)),
    "np.random.random": (lambda x: x + np.random.random((3, 4)), (f32(3, 4),)),
    "np.random.random_sample": (lambda x: x + np.random.random_sample(4), (f32(3, 4),)),
    "np.random.seed": (lambda x: (np.random.seed(3), x + np.random.random())[1], (f32(3, 4),)),
    "np.random.standard_normal": (lambda x: x + np.random.standard_normal(4), (f32(3, 4),)),
    "np.random.uniform": (lambda x: x + np.random.uniform(-1.0, 1.0, 4), (f32(3, 4),)),
    # ndarray methods and attributes
    "x.T": (lambda x: x.T + 1, (f32(3, 4),)),
    "x.all": (lambda x: (x > 0).all(axis=1), (f32(3, 4),)),
    "x.any": (lambda x: (x > 0).any(), (f32(3, 4),)),
    "x.argmax": (lambda x: x.argmax(axis=1), (f32(3, 4),)),
    "x.argmin": (lambda x: x.argmin(), (f32(3, 4),)),
    "x.argsort": (lambda x: x.argsort(), (f32(3, 4),)),
    "x.astype": (lambda x: x.astype(np.int32), (f32(3, 4),)),
    "x.clip": (lambda x: x.clip(0.0, 1.0), (f32(3, 4),)),
    "x.compress": (lambda x: x.compress([True, False, True], axis=0), (f32(3, 4),)),
    "x.conj": (lambda x: x.conj(), (c64(3, 4),)),
    "x.conjugate": (lambda x: x.conjugate(), (c64(3, 4),)),
    "x.copy": (lambda x: x.copy(), (f32(3, 4),)),
    "x.cumprod": (lambda x: x.cumprod(axis=0), (f32(3, 4),)),
    "x.cumsum": (lambda x: x.cumsum(axis=1), (f32(3, 4),)),
    "x.diagonal": (lambda x: x.diagonal(), (f32(4, 4),)),
    "x.dot": (lambda x, y: x.dot(y), (f32(3, 4), f32(4))),
    "x.dtype": (lambda x: x.astype(x.dtype) + 1, (f32(3, 4),)),
    "x.fill": (lambda x: (x.fill(2.0), x)[1], (f32(3, 4),)),
    "x.flatten": (lambda x: x.flatten(), (f32(3, 4),)),
    "x.imag": (lambda x: x.imag, (c64(3, 4),)),
    "x.item": (lambda x: x * x[0, 1].item(), (f32(3, 4),)),
    "x.itemsize": (lambda x: x * x.itemsize, (f32(3, 4),)),
    "x.max": (lambda x: x.max(axis=0), (f32(3, 4),)),
    "x.mean": (lambda x: x.mean(), (f32(3, 4),)),
    "x.min": (lambda x: x.min(axis=1), (f32(3, 4),)),
    "x.nbytes": (lambda x: x * x.nbytes, (f32(3, 4),)),
    "x.ndim": (lambda x: x * x.ndim, (f32(3, 4),)),
    "x.nonzero": (lambda x: (x > 0).nonzero(), (f32(3, 4),)),
    "x.prod": (lambda x: x.prod(axis=1), (f32(3, 4),)),
    "x.ravel": (lambda x: x.ravel(), (f32(3, 4),)),
    "x.real": (lambda x: x.real, (c64(3, 4),)),
    "x.repeat": (lambda x: x.repeat(2), (f32(3, 4),)),
    "x.reshape": (lambda x: x.reshape(2, 6), (f32(3, 4),)),
    "x.round": (lambda x: x.round(1), (f32(3, 4),)),
    "x.searchsorted": (lambda a, v: a.searchsorted(v, side="right"), (np.sort(f32(8)), f32(5))),
    "x.shape": (lambda x: x * x.shape[1], (f32(3, 4),)),
    "x.size": (lambda x: x * x.size, (f32(3, 4),)),
    "x.sort": (lambda x: (x.sort(axis=0), x)[1], (f32(3, 4),)),
    "x.squeeze": (lambda x: x.squeeze(1), (f32(3, 1, 4),)),
    "x.std": (lambda x: x.std(axis=1), (f32(3, 4),)),
    "x.sum": (lambda x: x.sum(axis=0), (f32(3, 4),)),
    "x.swapaxes": (lambda x: x.swapaxes(0, 1) * 2, (f32(3, 4),)),
    "x.trace": (lambda x: x.trace(), (f32(4, 4),)),
    "x.transpose": (lambda x: x.transpose(1, 0) * 2, (f32(3, 4),)),
    "x.var": (lambda x: x.var(), (f32(3, 4),)),
}

#: scalar types: a cast of a traced value (complex ones from a float, so that they are a cast)
for _name in api_table.rows()["scalar types (of a traced value: a cast)"]:
    EXAMPLES[_name] = (lambda x, t=getattr(np, _name.removeprefix("np.")): t(x[0, 1]) + t(1), (f32(3, 4),))


def _kernels() -> dict[str, Example]:
    """NPBench-like kernels, small: each mixes constructs as real programs do."""

    def atax(a: Any, x: Any) -> Any:
        return (a @ x) @ a

    def gemver(alpha: Any, beta: Any, a: Any, u1: Any, v1: Any, u2: Any, v2: Any, w: Any, x: Any, y: Any, z: Any) -> Any:
        a += np.outer(u1, v1) + np.outer(u2, v2)
        x += beta * y @ a + z
        w += alpha * a @ x
        return w

    def softmax(x: Any) -> Any:
        e = np.exp(x - np.max(x, axis=-1, keepdims=True))
        return e / np.sum(e, axis=-1, keepdims=True)

    def jacobi_2d(a: Any, b: Any) -> Any:
        for _ in range(3):
            b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
            a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
        return a

    def go_fast(a: Any) -> Any:
        trace = 0.0
        for i in range(a.shape[0]):
            trace += np.tanh(a[i, i])
        return a + trace

    def mandelbrot(c: Any) -> Any:
        z = np.zeros_like(c)
        n = np.zeros(c.shape, np.int32)
        for _ in range(10):
            inside = np.abs(z) <= 2
            z = np.where(inside, z * z + c, z)
            n += inside
        return n

    def azimint_naive(data: Any, radius: Any) -> Any:
        edges = np.linspace(0.0, np.max(radius), 5)
        means = np.zeros(4)
        for i in range(4):
            mask = (radius >= edges[i]) & (radius < edges[i + 1])
            means[i] = np.sum(np.where(mask, data, 0.0)) / max(np.sum(mask), 1)
        return means

    def azimint_hist(data: Any, radius: Any) -> Any:
        histu = np.histogram(radius, 5)[0]
        histw = np.histogram(radius, 5, weights=data)[0]
        return histw / histu

    def cholesky2(a: Any) -> Any:
        a[:] = np.linalg.cholesky(a) + np.triu(a, k=1)
        return a

    def nbody_accel(pos: Any, mass: Any) -> Any:
        dx = pos[:, 0:1].T - pos[:, 0:1]
        dy = pos[:, 1:2].T - pos[:, 1:2]
        inv = (dx**2 + dy**2 + 0.01) ** -1.5
        return np.hstack((inv * dx @ mass, inv * dy @ mass))

    def crc_like(data: Any) -> Any:
        acc = np.int32(0)
        for i in range(data.shape[0]):
            acc = (acc * 31 + data[i]) % 65521
        return acc

    def conv_relu(x: Any, w: Any) -> Any:
        out = np.zeros((x.shape[0] - 2, x.shape[1] - 2), x.dtype)
        for i in range(3):
            for j in range(3):
                out += w[i, j] * x[i:i + x.shape[0] - 2, j:j + x.shape[1] - 2]
        return np.maximum(out, 0)

    def heat_1d(a: Any, b: Any) -> Any:
        for _ in range(4):
            b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
            a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
        return np.pad(a, 1)

    return {
        "atax": (atax, (f64(5, 4), f64(4))),
        "gemver": (gemver, (1.5, 1.2, f64(4, 4), *(f64(4) for _ in range(8)))),
        "softmax": (softmax, (f32(2, 3, 8),)),
        "jacobi_2d": (jacobi_2d, (f64(6, 6), f64(6, 6))),
        "go_fast": (go_fast, (f64(4, 4),)),
        "mandelbrot": (mandelbrot, (c64(4, 5),)),
        "azimint_naive": (azimint_naive, (f64(20), np.abs(f64(20)))),
        "azimint_hist": (azimint_hist, (f64(20), np.abs(f64(20)))),
        "cholesky2": (cholesky2, (spd(4),)),
        "nbody_accel": (nbody_accel, (f64(5, 2), f64(5))),
        "crc_like": (crc_like, (i32(9),)),
        "conv_relu": (conv_relu, (f32(6, 7), f32(3, 3))),
        "heat_1d": (heat_1d, (f64(8), f64(8))),
    }


KERNELS = _kernels()


def _table_names() -> list[str]:
    return sorted(name for names in api_table.rows().values() for name in names)


def _example(name: str) -> Example:
    return EXAMPLES[name] if name in EXAMPLES else _ufunc(name)


def _replay(fn: Callable[..., Any], args: tuple[Any, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> None:
    """Trace ``fn`` (verifying after each pass), then check kiln-opt turns its ``.ir`` into its ``.source``."""
    monkeypatch.setenv(pipelines.VERIFY_ENV, "1")
    cf = kiln.function(fn).get_concrete_function(*args)
    ir, source = cf.ir, cf.source
    (tmp_path / "f.mlir").write_text(ir)
    out = tmp_path / "f.c"
    code = kiln_opt.main([str(tmp_path / "f.mlir"), "-p", "graph-to-c", "-t", "c", "-o", str(out)])
    assert code == 0, f"kiln-opt refused the traced IR: {capsys.readouterr().err}\n{ir}"
    assert out.read_text() == source


def test_every_table_construct_has_an_example() -> None:
    ufuncs = api_table.rows()["ufuncs (also with `out=`)"]
    assert set(EXAMPLES) | set(ufuncs) == set(_table_names())
    assert not set(EXAMPLES) & set(ufuncs)


@pytest.mark.parametrize("name", _table_names())
def test_api_construct_ir_replays_to_source(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    fn, args = _example(name)
    _replay(fn, args, tmp_path, monkeypatch, capsys)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_ir_replays_to_source(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    fn, args = KERNELS[name]
    _replay(fn, args, tmp_path, monkeypatch, capsys)
