"""kiln.xdsl_lazy_formats: xDSL ops' assembly formats are parsed on first use, not when their
class is defined, and every format of every dialect kiln can load still parses and prints."""

from __future__ import annotations

import subprocess
import sys

from xdsl.dialects import get_all_dialects

from kiln.universe import DIALECTS, make_context


def test_defining_dialects_parses_no_format() -> None:
    """A new process that imports kiln and then xDSL's arith dialect has parsed none of its formats."""
    code = (
        "import kiln\n"
        "from xdsl.dialects import arith\n"
        "lazy = [op._kiln_lazy_format for op in arith.Arith.operations if hasattr(op, '_kiln_lazy_format')]\n"
        "assert len(lazy) > 20 and all(f._program is None for f in lazy), len(lazy)\n"
        "print('lazy', len(lazy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("lazy ")


def test_every_format_parses_and_ops_round_trip() -> None:
    """Each format of xDSL's and kiln's dialects parses (what xDSL checked at definition), and an
    op printed through its lazy format parses back to itself."""
    count = 0
    for factory in [*get_all_dialects().values(), *DIALECTS.values()]:
        for op in factory().operations:
            lazy = getattr(op, "_kiln_lazy_format", None)
            if lazy is not None:
                assert lazy.program() is not None, op.name
                count += 1
    assert count > 300
    text = "%0 = arith.constant 1.500000e+00 : f32\n%1 = arith.addf %0, %0 fastmath<fast> : f32\n"
    from xdsl.parser import Parser

    module = Parser(make_context(), text).parse_module()
    assert str(module).splitlines()[1:3] == [f"  {line}" for line in text.splitlines()]
