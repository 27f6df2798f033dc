"""Builtins that must accept tensors: ``range_`` stands for ``range``, ``len_`` for ``len``."""

from __future__ import annotations

from typing import Any

from kiln.frontend.autograph import staging


def range_(*args: Any) -> Any:
    if any(staging.is_tensor(a) for a in args):
        return staging.staged_range(*args)
    return range(*args)


def len_(value: Any) -> Any:
    """``len(value)``; for a tensor whose first dimension is dynamic, its runtime size as a 0-d
    int64 tensor (Python's ``len`` must return an int, which a trace does not know)."""
    if staging.is_tensor(value) and value.ndim and value.shape[0] is None:
        return staging.dim(value, 0)
    return len(value)
