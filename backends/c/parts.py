"""How the C of a module cut by ``kiln-outline-parts`` compiles as several translation units.

The source stays one text that compiles as it is (one unit). With ``-DKILN_SPLIT`` and the
``-DKILN_PART_<name>`` of some parts, a unit keeps only those parts' functions: ``MAIN`` (the
public functions and the runtime's state, defined once) or a group number of ``kiln.part``.
The shared preamble (includes, ``static inline`` helpers, constants, prototypes) is in every
unit. The toolchain compiles the units in parallel and links them into one shared object.
"""

from __future__ import annotations

import re

MAIN = "MAIN"
#: the end of a guarded section
END = "#endif"

_PART = re.compile(r"defined\(KILN_PART_(\w+)\)")


def guard(part: str) -> str:
    """The line that opens a section of ``part``: kept in a whole build and in that part's unit."""
    return f"#if !defined(KILN_SPLIT) || defined(KILN_PART_{part})"


def parts_of(source: str) -> list[str]:
    """The parts a source has sections for (``MAIN`` first), or [] if it is not cut."""
    found = set(_PART.findall(source))
    if not found - {MAIN}:
        return []
    return [MAIN, *sorted(found - {MAIN}, key=lambda p: (len(p), p))]


def defines(parts: list[str]) -> list[str]:
    """The compiler flags of the unit that holds ``parts``."""
    return ["-DKILN_SPLIT", *(f"-DKILN_PART_{p}" for p in parts)]
