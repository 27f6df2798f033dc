"""Builtins that must accept tensors: ``range_`` stands for ``range``."""

from __future__ import annotations

from typing import Any

from kiln.frontend.autograph import staging


def range_(*args: Any) -> Any:
    if any(staging.is_tensor(a) for a in args):
        return staging.staged_range(*args)
    return range(*args)
