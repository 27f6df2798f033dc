"""``to_code``: the converted source of a function, as ``kiln.autograph.to_code`` shows it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kiln.frontend.autograph.transpiler import conversion_info


def to_code(func: Callable[..., Any]) -> str:
    """The Python source AutoGraph generates for ``func``; ``ValueError`` (with the reason) if it is not converted."""
    info = conversion_info(getattr(func, "python_function", func))
    if info.source is None:
        raise ValueError(info.reason)
    return info.source + "\n"
