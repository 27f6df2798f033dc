"""The table of NumPy API kiln supports inside a traced function, made from the dispatch tables.

docs/numpy-semantics.md holds this table between two markers; ``tests/test_api_table.py``
checks that it is what :func:`markdown` makes from the tables the frontend dispatches on,
so the documentation cannot drift from the code. Regenerate it with
``python -m kiln.frontend.api_table --write``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any

import numpy as np

BEGIN, END = "<!-- api-table:begin -->", "<!-- api-table:end -->"
DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "numpy-semantics.md"


def _name(obj: Any) -> str:
    from kiln.frontend.numpy_dispatch import _np_name

    return _np_name(obj) if hasattr(obj, "__name__") else repr(obj)


def rows() -> dict[str, list[str]]:
    """Supported names by kind: ufuncs, functions, array creation, ndarray methods and attributes."""
    from kiln.frontend import creation, numpy_dispatch, numpy_iteration, random_numbers
    from kiln.frontend.tensor import Tensor

    ufuncs = {_name(u) for u in numpy_dispatch._UFUNCS} | {"np.matmul"}
    ufuncs |= {_name(u) for u in getattr(numpy_dispatch, "COMPOSITE_UFUNCS", {})}
    functions = {_name(f) for f in numpy_dispatch._FUNCTIONS} | {_name(f) for f in numpy_iteration.TRACED if f not in numpy_iteration.REFUSED}
    staged = {f for f in creation.TRACED if f in random_numbers.STAGED or getattr(f, "__kiln_wrapped__", False)}
    made = {_name(f) for f in creation.TRACED if f not in creation.SCALAR_TYPES and f not in staged and f not in numpy_iteration.TRACED}
    randoms = {_name(f) for f in random_numbers.STAGED}
    scalars = {_name(t) for t in creation.SCALAR_TYPES}
    members = {n for n in dir(Tensor) if not n.startswith("_") and hasattr(np.ndarray, n)}
    return {
        "ufuncs (also with `out=`)": sorted(ufuncs),
        "functions": sorted(functions - made),
        "array creation (kiln arrays while tracing)": sorted(made),
        "scalar types (of a traced value: a cast)": sorted(scalars),
        "random numbers (drawn on every call: docs/random.md)": sorted(randoms),
        "ndarray methods and attributes": sorted(f"x.{n}" for n in members),
    }


def markdown() -> str:
    lines = [BEGIN, "| kind | supported |", "|---|---|"]
    lines += [f"| {kind} | {', '.join(f'`{n}`' for n in names)} |" for kind, names in rows().items()]
    lines.append(END)
    return "\n".join(lines)


def in_doc(text: str) -> str:
    """The table block of the doc's text."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"replace the table in {DOC.name}")
    args = parser.parse_args(argv)
    table = markdown()
    if not args.write:
        print(table)
        return 0
    text = DOC.read_text()
    DOC.write_text(text.replace(in_doc(text), table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
