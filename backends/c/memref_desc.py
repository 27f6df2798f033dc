"""How the C emitter holds a memref value: a pointer and per-dimension size and stride
expressions. Its own module so that op handlers build one without importing the emitter."""

from __future__ import annotations

from dataclasses import dataclass

from kiln.backends.c.index_expr import IndexExpr


@dataclass(frozen=True)
class MemrefDesc:
    """A memref in C: pointer to its first element, then per-dim sizes and strides (in elements)."""

    ptr: str
    elem: str
    sizes: tuple[IndexExpr, ...]
    strides: tuple[IndexExpr, ...]
    #: a one-element local only loaded and stored: ``ptr`` names a plain C scalar, not an array
    scalar: bool = False
