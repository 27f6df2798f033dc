"""Fixes for xDSL 0.74 bugs that kiln's pipelines hit, applied when kiln's universe loads.

* Hex literals in float ``dense<...>`` attributes (how xDSL itself prints ``inf`` and
  ``nan``: ``dense<[0x7F800000]> : tensor<1xf32>``) are bit patterns in MLIR, but xDSL 0.74
  parses them as integer *values* (2139095040.0), so printed IR does not parse back to
  itself. The scalar form (``arith.constant 0x7F800000 : f32``) is handled correctly.
"""

from __future__ import annotations

import struct
from typing import Any

from xdsl.dialects.builtin import AnyFloat
from xdsl.parser.attribute_parser import AttrParser

_Element = AttrParser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]
_original_to_type = _Element.to_type
_FORMATS = {16: "<e", 32: "<f", 64: "<d"}


def _to_type(self: Any, parser: AttrParser, type: Any) -> Any:
    text = self.span.text
    if isinstance(type, AnyFloat) and text[:2] in ("0x", "0X") and type.bitwidth in _FORMATS:
        width = type.bitwidth
        return struct.unpack(_FORMATS[width], int(text, 16).to_bytes(width // 8, "little"))[0]
    return _original_to_type(self, parser, type)


def apply() -> None:
    """Install the fixes (idempotent)."""
    _Element.to_type = _to_type  # type: ignore[method-assign]
