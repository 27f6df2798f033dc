"""Indented Python source written line by line: what the modes' generators share."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager


class Emitter:
    """Lines of a function body, the current indentation, and fresh names."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.indent = 1
        self.counter = 0

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    @contextmanager
    def block(self) -> Iterator[None]:
        """An indented block (``pass`` if nothing was written in it)."""
        self.indent += 1
        start = len(self.lines)
        yield
        if len(self.lines) == start:
            self.emit("pass")
        self.indent -= 1

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def module_text(self, title: str, header: list[str], params: str, inputs: str) -> str:
        """The program's module: ``header`` lines (its mode...), ``f(params)`` with the lines written,
        and ``inputs()`` returning the expression ``inputs``."""
        return "\n".join([
            f'"""kiln.fuzz {title} (generated: see docs/fuzzing.md)."""', "import numpy as np", "", *header, "",
            f"def f({params}):", *self.lines, "", "def inputs():", f"    return {inputs}", "",
        ])
