"""Where parsed rule files are kept between processes: a hook that a layer above fills.

Parsing a rule file needs lark, whose import and grammar cost a first call ~30 ms; the syntax
tree of a file's text never changes while kiln does not. The passes cannot reach kiln's cache
directory (it is the backends'), so :func:`kiln.frontend.plan_cache.keep_rule_syntax` installs
a loader and a storer here; without one (kiln-opt, tests of the rules alone) every file is parsed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: (text, name) -> the stored syntax tree or None; and (text, name, tree) -> stored
_hooks: tuple[Callable[[str, str], Any], Callable[[str, str, Any], None]] | None = None


def install(load_hook: Callable[[str, str], Any], store_hook: Callable[[str, str, Any], None]) -> None:
    """Keep syntax trees with ``store_hook`` and find them with ``load_hook`` from now on."""
    global _hooks
    _hooks = (load_hook, store_hook)


def load(text: str, name: str) -> Any:
    """The syntax tree stored for the rule file ``name`` of ``text``, or None."""
    return _hooks[0](text, name) if _hooks is not None else None


def store(text: str, name: str, tree: Any) -> None:
    """Keep the syntax tree of the rule file ``name`` of ``text`` for later processes."""
    if _hooks is not None:
        _hooks[1](text, name, tree)
