"""A rule file's syntax tree: from the store of files parsed before
(:mod:`kiln.passes._parse_store`), without importing lark, or parsed by :mod:`.grammar`."""

from __future__ import annotations

from kiln.passes import _parse_store
from kiln.passes.rules.syntax import RuleFile, Source


def parse(text: str, name: str) -> RuleFile:
    """The rules of ``text`` (the file ``name``); a syntax error raises :class:`.syntax.RuleError`."""
    stored = _parse_store.load(text, name)
    if isinstance(stored, RuleFile):
        return stored
    from kiln.passes.rules.grammar import parse_text

    parsed = parse_text(Source(name, text))
    _parse_store.store(text, name, parsed)
    return parsed
