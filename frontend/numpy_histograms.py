"""NumPy's histograms of several dimensions on traced tensors: ``histogramdd`` and ``histogram2d``.

NumPy's own steps: per dimension, the edges (``linspace`` over ``range=`` at trace time, over
the data's min and max at run time, or the edges given) and each value's bin by a binary
search (``searchsorted(..., side='right')``, a value on the last edge moved into the last
bin), one flat index per sample with an outlier bin at each end of every dimension, one
``bincount`` of a length known at trace time, reshaped, as float64, the outlier bins cut
off. As for ``np.histogram``, a data range with NaN or infinity gives NaN edges and no
counts, where NumPy raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from kiln.frontend.numpy_shape import ranked, static_shape, unsupported
from kiln.frontend.numpy_sorting import data_edges
from kiln.frontend.tensor import Tensor, as_tensor, cast, reshape_to
from kiln.frontend.tensor import is_traced

_builtin_range = range



def _samples(sample: Any) -> Tensor:
    """``sample`` as NumPy reads it: an (N, D) array, or a sequence of D 1-D arrays (stacked as columns)."""
    if is_traced(sample):
        t = ranked(sample, "np.histogramdd")
        return t if t.ndim == 2 else np.transpose(np.atleast_2d(t))
    return as_tensor(np.stack([as_tensor(s) if is_traced(s) else np.asarray(s) for s in sample], axis=1))


def _edges(column: Tensor, bins: Any, range_: Any, i: int) -> Any:
    """The edges of dimension ``i``: NumPy's ``linspace`` for an int ``bins``, else the edges given."""
    if is_traced(bins):
        te = ranked(bins, "np.histogramdd")
        if te.ndim != 1:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        return te
    if np.ndim(bins) == 1:
        edges = np.asarray(bins)
        if np.any(edges[:-1] > edges[1:]):
            raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        return edges
    if np.ndim(bins) != 0:
        raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
    if bins < 1:
        raise ValueError(f"`bins[{i}]` must be positive, when an integer")
    if not isinstance(bins, (int, np.integer)):
        raise TypeError(f"`bins[{i}]` must be an integer, when a scalar")
    if range_ is not None and any(is_traced(r) for r in range_):
        raise unsupported("np.histogramdd(..., range=<traced values>)")
    if range_ is None and static_shape(column, "np.histogramdd")[0] != 0:
        return data_edges(column, int(bins))[2]
    return np.histogram_bin_edges(np.empty(0), int(bins), range_)  # NumPy's checks, linspace over the range


def _bin_numbers(column: Tensor, edges: Any) -> Tensor:
    """``searchsorted(edges, column, 'right')``, the last edge's values one lower (0 and len(edges): outliers)."""
    te = as_tensor(edges) if is_traced(edges) else as_tensor(np.asarray(edges))
    dt = np.result_type(te.dtype, column.dtype)
    x, e = cast(column, dt), cast(te, dt)
    found = np.searchsorted(e, x, side="right")
    return np.where(np.equal(x, e[-1]), found - 1, found)


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> tuple[Tensor, list[Any]]:  # noqa: A002
    """NumPy's ``histogramdd`` (see the module's note): float64 counts (or weight sums) and the edges."""
    s = _samples(sample)
    n, d = static_shape(s, "np.histogramdd")
    try:
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = d * [bins]
    if range is None:
        range = (None,) * d
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    columns = [s[:, i] for i in _builtin_range(d)]
    edges = [_edges(columns[i], bins[i], range[i], i) for i in _builtin_range(d)]
    nbin = [static_shape(as_tensor(e), "np.histogramdd")[0] + 1 if is_traced(e) else len(e) + 1 for e in edges]
    flat: Any = 0
    for i in _builtin_range(d):
        flat = np.add(np.multiply(flat, nbin[i]), _bin_numbers(columns[i], edges[i]))
    w = None if weights is None else np.reshape(as_tensor(weights) if is_traced(weights) else np.asarray(weights), (n,))
    counts = np.bincount(as_tensor(flat), w, minlength=math.prod(nbin))
    hist = cast(reshape_to(counts, nbin), np.dtype(np.float64))[d * (slice(1, -1),)]
    if density:
        total = np.sum(hist)
        for i in _builtin_range(d):
            shape = [1] * d
            shape[i] = nbin[i] - 2
            hist = np.true_divide(hist, np.reshape(np.diff(edges[i]), shape))
        hist = np.true_divide(hist, total)
    return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> tuple[Any, Any, Any]:  # noqa: A002
    """``histogramdd`` of the columns ``x`` and ``y``; one array of edges serves both dimensions."""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length.")
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in {1, 2}:
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.histogramdd: histogramdd,
    np.histogram2d: histogram2d,
}
