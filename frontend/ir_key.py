"""A digest of a module's IR, structure by structure, for the plan cache's key (issue 39).

The key must tell apart any two modules whose printed generic form (with locations) differs,
since that text is what ``kiln-opt`` lowers. Printing it cost a warm start 0.7-5 ms: each op's
operands, types and location re-printed through the printer's indentation and name tables. The
digest walks the same parts (each op's name, operands by number, successors, properties,
attributes, regions with their blocks' argument types and locations, result types and name
hints, location) and prints each distinct attribute once; the text of an attribute is xDSL's
printer's, so what tells two attributes apart in the printed IR tells them apart here.
"""

from __future__ import annotations

import hashlib
from io import StringIO

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer

#: separates the parts of the digested text: no part holds it (the printer escapes control
#: characters in an attribute's text; op, property and attribute names and SSA name hints are
#: identifiers), and every list of parts is preceded by its length (a block's ops end with a
#: marker no op name is), so the text has one reading
_SEP = "\x1f"


class _Digest:
    """The parts of one module, in order, each value numbered as it is first mentioned."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.numbers: dict[SSAValue, int] = {}
        self.blocks: dict[Block, int] = {}
        self.texts: dict[Attribute, str] = {}
        #: the same by the attribute object (hashing an attribute hashes all its parameters; the
        #: module holds every attribute while it is digested, so no id is reused)
        self.by_id: dict[int, str] = {}
        self.out = StringIO()
        self.printer = Printer(stream=self.out, print_generic_format=True, print_debuginfo=True)

    def attribute(self, attr: Attribute) -> str:
        """The printer's text of ``attr``, made once per distinct attribute."""
        text = self.by_id.get(id(attr))
        if text is not None:
            return text
        try:
            text = self.texts.get(attr)
        except TypeError:  # an attribute whose parameters do not hash: printed each time
            return self._printed(attr)
        if text is None:
            text = self.texts[attr] = self._printed(attr)
        self.by_id[id(attr)] = text
        return text

    def _printed(self, attr: Attribute) -> str:
        self.out.seek(0)
        self.out.truncate()
        self.printer.print_attribute(attr)
        return self.out.getvalue()

    def number(self, value: SSAValue) -> str:
        """The number of ``value``: in order of first mention (a use above the definition, in IR
        that was not verified, names it as its definition will)."""
        return str(self.numbers.setdefault(value, len(self.numbers)))

    def define(self, value: SSAValue) -> None:
        self.parts += (self.number(value), self.attribute(value.type), value.name_hint or "")

    def op(self, op: Operation) -> None:
        parts = self.parts
        parts += ("op", op.name, str(len(op.operands)))
        parts += (self.number(v) for v in op.operands)
        parts += ("succ", *(str(self.blocks.setdefault(b, len(self.blocks))) for b in op.successors))
        for group, attrs in (("props", op.properties), ("attrs", op.attributes)):
            parts += (group, str(len(attrs)))
            for name, attr in attrs.items():
                parts += (name, self.attribute(attr))
        parts += ("regions", str(len(op.regions)))
        for region in op.regions:
            self.region(region)
        parts += ("results", str(len(op.results)))
        for result in op.results:
            self.define(result)
        parts.append(self.attribute(op.location))

    def region(self, region: Region) -> None:
        for block in region.blocks:  # each block's number first: a branch may name a later one
            self.blocks.setdefault(block, len(self.blocks))
        self.parts += ("region", str(len(region.blocks)))
        for block in region.blocks:
            self.parts += ("block", str(self.blocks[block]), str(len(block.args)))
            for arg in block.args:
                self.define(arg)
                self.parts.append(self.attribute(arg.location))
            for op in block.ops:
                self.op(op)
            self.parts.append("end")


def ir_digest(module: Operation) -> str:
    """The sha256 of ``module``'s structure: equal for modules whose generic printed form with
    locations is the same, different where it differs."""
    digest = _Digest()
    digest.op(module)
    return hashlib.sha256(_SEP.join(digest.parts).encode()).hexdigest()
