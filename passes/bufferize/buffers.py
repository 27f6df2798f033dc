"""Where a tensor value lives during bufferization: a :class:`Buffer`, a memref value in one
:class:`Root` allocation (views share their source's root). Shared by the function bufferizer
(``bufferize/func.py``) and its helpers for control flow and effects, which it calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto

from xdsl.ir import Block, SSAValue


class RootKind(Enum):
    """Who owns a buffer, which decides whether it may be overwritten or freed."""

    ARGUMENT = auto()  # caller's input: read-only
    CONSTANT = auto()  # memref.global: read-only
    OUT_PARAM = auto()  # caller's output: written only by the chain that returns into it
    TEMPORARY = auto()  # our memref.alloc: writable once its other aliases are dead
    VARIABLE = auto()  # a kiln.Variable's own buffer: written only by graph.assign


@dataclass(eq=False)
class Root:
    """One allocation (or argument, or global) and the tensor values living in it."""

    kind: RootKind
    value: SSAValue
    aliases: list[SSAValue] = field(default_factory=list[SSAValue])
    block: Block | None = None  # where a temporary was allocated; in-place writes only there


@dataclass(frozen=True)
class Buffer:
    """Where a tensor value lives: ``value`` is ``root.value`` itself or a view of it."""

    value: SSAValue
    root: Root

    @property
    def is_view(self) -> bool:
        return self.value is not self.root.value
