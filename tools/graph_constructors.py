"""The table of the ``graph`` dialect's Python constructors, made from the op classes.

docs/ir-reference.md holds it between two markers; ``tests/test_graph_constructors.py``
checks that it is what :func:`markdown` makes, and that every listed constructor builds an op
that verifies. Regenerate it with ``python -m kiln.tools.graph_constructors --write``.
"""

from __future__ import annotations

import argparse
import inspect
import pathlib
import sys

from xdsl.irdl import IRDLOperation

from kiln.dialects import graph

BEGIN, END = "<!-- graph-constructors:begin -->", "<!-- graph-constructors:end -->"
DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "ir-reference.md"


def op_classes() -> list[type[IRDLOperation]]:
    """Every op of the dialect, by op name."""
    ops = {c for c in vars(graph).values() if isinstance(c, type) and issubclass(c, IRDLOperation)
           and str(getattr(c, "name", "")).startswith("graph.")}
    return sorted(ops, key=lambda c: c.name)


def constructor(cls: type[IRDLOperation]) -> str:
    """``graph.AddOp(lhs: SSAValue, rhs: SSAValue)``: the call, with the parameters' annotations."""
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return f"graph.{cls.__name__}({', '.join(str(p).replace(chr(39), '') for p in params)})"


def summary(cls: type[IRDLOperation]) -> str:
    """The first sentence of the op's own docstring (inherited ones describe the base class)."""
    doc = " ".join((cls.__dict__.get("__doc__") or "").split())
    first = doc.split(". ")[0].rstrip(".")
    return first.replace("|", "\\|")


def markdown() -> str:
    lines = [BEGIN, "| op | Python constructor | what it is |", "|---|---|---|"]
    lines += [f"| `{c.name}` | `{constructor(c)}` | {summary(c)} |" for c in op_classes()]
    lines.append(END)
    return "\n".join(lines)


def in_doc(text: str) -> str:
    """The table block of the doc's text."""
    return text[text.index(BEGIN) : text.index(END) + len(END)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"replace the table in {DOC.name}")
    args = parser.parse_args(argv)
    if not args.write:
        print(markdown())
        return 0
    text = DOC.read_text()
    DOC.write_text(text.replace(in_doc(text), markdown()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
