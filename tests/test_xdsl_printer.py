"""xdsl_patches' printer: a string literal (a location's file name, on every op printed with
locations) is escaped whole and written once, with the text xDSL's byte-by-byte printer made; a
tensor type (two or three on every op) is printed whole from its text, made once per type."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, FileLineColLoc, IntAttr, StringAttr, TensorType, f32, f64, i1, i32
from xdsl.printer import Printer

import kiln
import kiln.universe  # noqa: F401  (applies the patches)
from kiln import xdsl_patches


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


@pytest.mark.parametrize(
    "tensor_type, text",
    [
        (TensorType(f64, [64]), "tensor<64xf64>"),
        (TensorType(f64, []), "tensor<f64>"),
        (TensorType(i32, [DYNAMIC_INDEX, 3]), "tensor<?x3xi32>"),
        (TensorType(i1, [2, 0, 5]), "tensor<2x0x5xi1>"),
        (TensorType(f32, [4], StringAttr("enc")), 'tensor<4xf32, "enc">'),
    ],
)
def test_a_tensor_type_prints_as_mlir_spells_it(tensor_type: TensorType, text: str):
    for _ in range(2):  # made, then from the cache
        out = StringIO()
        printer = Printer(stream=out)
        printer.print_attribute(tensor_type)
        assert out.getvalue() == text
        assert printer._current_column == len(text)  # noqa: SLF001


def test_a_tensor_type_seen_before_is_written_in_one_piece():
    Printer(stream=StringIO()).print_attribute(TensorType(f64, [7, 9]))
    out = CountingStream()
    Printer(stream=out).print_attribute(TensorType(f64, [7, 9]))  # an equal type, not the same object
    assert (out.getvalue(), out.writes) == ("tensor<7x9xf64>", 1)


def test_a_traced_functions_generic_text_is_the_one_xdsls_own_printer_makes(monkeypatch: pytest.MonkeyPatch):
    def f(x, n):
        y = np.sum(x, axis=0) * 2.0 + x[0]
        return (y > 1.0), n.astype(np.float32)[::2], np.mean(x)

    compiled = kiln.function(f)
    module = compiled.get_concrete_function(np.ones((3, 4)), np.arange(6, dtype=np.int32))._traced.module  # noqa: SLF001

    def generic() -> str:
        out = StringIO()
        Printer(stream=out, print_debuginfo=True, print_generic_format=True).print_op(module)
        return out.getvalue()

    text = generic()
    monkeypatch.setattr(TensorType, "print_builtin", xdsl_patches._original_print_tensor_type)  # noqa: SLF001
    assert generic() == text
    assert "tensor<3x4xf64>" in text and "tensor<6xi32>" in text and "tensor<f64>" in text
