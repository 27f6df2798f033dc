"""xdsl_patches' printer: a string literal (a location's file name, on every op printed with
locations) is escaped whole and written once, with the text xDSL's byte-by-byte printer made."""

from __future__ import annotations

from io import StringIO

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.printer import Printer

import kiln.universe  # noqa: F401  (applies the patches)


class CountingStream(StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_a_string_literal_is_escaped_as_mlir_spells_it():
    out = StringIO()
    printer = Printer(stream=out)
    printer.print_string_literal('a"b\\c\nd\té\x00\x7f~ /x.py')
    assert out.getvalue() == '"a\\22b\\\\c\\0Ad\\09\\C3\\A9\\00\\7F~ /x.py"'
    assert printer._current_column == len(out.getvalue())  # noqa: SLF001 (what later lines indent by)


def test_a_location_is_written_in_a_few_pieces_not_one_per_byte():
    out = CountingStream()
    name = "/tmp/some/long/path/of/a/users/file.py"
    Printer(stream=out, print_debuginfo=True).print_attribute(
        FileLineColLoc(StringAttr(name), IntAttr(12), IntAttr(3))
    )
    assert out.getvalue() == f'loc("{name}":12:3)'
    assert out.writes < len(name)
