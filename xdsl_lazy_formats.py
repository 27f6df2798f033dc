"""xDSL operations' declarative assembly formats, parsed when an op of the class is first
printed or parsed instead of when its class is defined.

Importing xDSL's dialects defines ~360 op classes, and parsing their ``assembly_format``
strings was about a third of that (cProfile: 0.19 s of 0.55 s of dialect imports), for ops a
compile never prints. Applied by ``import kiln``, before kiln imports any dialect (this module
imports only ``xdsl.irdl.operations``, which defines none). A format is parsed from the same
string against the same op definition as xDSL would, only later: a wrong one is then reported
at its op's first print or parse (tests/test_c_backend.py parses every format of the dialects
a compile loads).
"""

from __future__ import annotations

from typing import Any

from xdsl.irdl import operations as _operations

_accessors = _operations.get_accessors_from_op_def


class LazyFormatProgram:
    """Stands for the ``FormatProgram`` of an op definition until it is first used."""

    __slots__ = ("_source", "_op_def", "_program")

    def __init__(self, source: str, op_def: _operations.OpDef) -> None:
        self._source, self._op_def, self._program = source, op_def, None

    def program(self) -> Any:
        """The parsed ``FormatProgram`` (parsed now, the first time)."""
        if self._program is None:
            from xdsl.irdl.declarative_assembly_format import FormatProgram
            from xdsl.utils.exceptions import ParseError, PyRDLOpDefinitionError

            try:
                self._program = FormatProgram.from_str(self._source, self._op_def)
            except ParseError as e:  # as xDSL raises it at definition
                raise PyRDLOpDefinitionError("Error during the parsing of the assembly format: ", e.args) from e
        return self._program


def _lazy_accessors(op_def: _operations.OpDef, custom_verify: Any) -> dict[str, Any]:
    """xDSL's accessors of ``op_def``, with ``parse`` and ``print`` through a lazy format."""
    source = op_def.assembly_format
    if source is None:
        return _accessors(op_def, custom_verify)
    op_def.assembly_format = None
    try:
        attrs = _accessors(op_def, custom_verify)
    finally:
        op_def.assembly_format = source
    fmt = LazyFormatProgram(source, op_def)

    @classmethod  # type: ignore[misc]
    def parse_with_format(cls: type[Any], parser: Any) -> Any:
        return fmt.program().parse(parser, cls)

    def print_with_format(self: Any, printer: Any) -> None:
        return fmt.program().print(printer, self)

    attrs["parse"], attrs["print"] = parse_with_format, print_with_format
    attrs["_kiln_lazy_format"] = fmt
    return attrs


def apply() -> None:
    """Make xDSL defer the parsing of assembly formats (of op classes defined from now on)."""
    _operations.get_accessors_from_op_def = _lazy_accessors
