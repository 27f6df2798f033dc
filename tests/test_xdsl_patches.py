"""kiln.xdsl_patches: the printer's string literals (printed whole, not a byte at a time) are
xDSL's text, and parse back to the string printed."""

from __future__ import annotations

from io import StringIO

from xdsl.dialects.builtin import StringAttr
from xdsl.parser import Parser
from xdsl.printer import Printer

from kiln.universe import make_context


def _printed(attr: StringAttr) -> str:
    out = StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


def test_string_literals_escape_as_xdsl_does() -> None:
    assert _printed(StringAttr('a"b\\c\nd\xff /tmp/x.py')) == '"a\\22b\\\\c\\0Ad\\C3\\BF /tmp/x.py"'


def test_every_byte_prints_and_parses_back() -> None:
    text = "".join(chr(c) for c in range(1, 256)) + "\u2203 end"
    printed = _printed(StringAttr(text))
    parsed = Parser(make_context(), printed).parse_attribute().data  # type: ignore[attr-defined]
    assert (parsed if isinstance(parsed, bytes) else parsed.encode()) == text.encode()  # (xDSL reads it as bytes)
    assert _printed(StringAttr(text)) == printed  # the second print, from the cache, is the same
