"""The op-class → C-emitting handler table that the op modules fill in."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from xdsl.ir import Operation

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter

Handler = Callable[["FunctionEmitter", Any], None]
HANDLERS: dict[type[Operation], Handler] = {}

_H = TypeVar("_H", bound=Handler)


def handles(*op_types: type[Operation]) -> Callable[[_H], _H]:
    """Register a handler for the given op classes (exact class match)."""

    def register(handler: _H) -> _H:
        for op_type in op_types:
            HANDLERS[op_type] = handler
        return handler

    return register
