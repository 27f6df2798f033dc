"""SIMD instruction-set tables for the C emitter. Which ISA, and what it offers the passes,
is ``kiln.dialects.target`` (re-exported here); each table agrees with its capabilities there.

Every table maps the same abstract vector operations (see :data:`ABSTRACT_OPS`) to C
expression templates for one *native* register type per element type. Vectors in the IR
that are wider than a native register are emitted as a struct of several registers, so IR
vectorized for one ISA can still be emitted for another.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

from kiln.dialects.target import CAPABILITIES, ISAS, host_isa, host_runs, resolve_isa  # noqa: F401  (re-exported)

#: The abstract operations every table implements, per element type ``f32``/``f64``.
#: Operand placeholders are ``{0}``, ``{1}``, ``{2}``; masks are the result of ``cmp.*``.
ABSTRACT_OPS: tuple[str, ...] = (
    "load",  # {0}: element pointer (unaligned) -> vector
    "store",  # statement: {0} pointer, {1} vector
    "broadcast",  # scalar -> vector
    "add", "sub", "mul", "div", "sqrt",
    "madd",  # a*b+c, fused where the ISA has FMA (used only inside vector math)
    "fma",  # a*b+c with one rounding (math.fma, vector.fma)
    "cmp.oeq", "cmp.ogt", "cmp.oge", "cmp.olt", "cmp.ole", "cmp.uno",  # -> mask
    "mand", "mor", "mnot",  # masks
    "select",  # {0} mask, {1} where true, {2} where false
    "band", "bor", "bxor",  # bitwise on float vectors
    "as_int", "as_float",  # bit casts to/from the same-width integer vector
    "iadd", "isub", "iand", "ior", "ibroadcast",  # integer lanes (32-bit for f32, 64-bit for f64)
    "shl", "shr",  # by an immediate {1}; shr is logical
)
#: Optional entries, used when present (else composed from the ops above):
#: the other cmpf predicates ("cmp.one", "cmp.ult", ...); "maximum"/"minimum" with
#: arith.maximumf semantics (NaN propagates, -0 < +0); "maxkeep"/"minkeep": the larger/smaller
#: of {0} and {1}, and {1} when either is NaN or both are zero (x86's maxps/minps);
#: "scalef": {0} * 2^{1} for integral {1}, rounded once (AVX-512's vscalefps);
#: "any": nonzero when some lane of mask {0} is set (a branch to a fast path, e.g. in exp);
#: "lookup8" (f32, 8 lanes): lane i of the result is lane ({1}[i] mod 8) of {0}, {1} an int
#: vector (AVX2's vpermps: exp's table of 2^(j/8));
#: "mask_first": the mask of the lanes below the int {0} (0 <= {0} <= lanes);
#: "maskload" ({0} pointer, {1} mask -> vector, 0.0 in masked-off lanes, which are not read)
#: and "maskstore" (statement: {0} pointer, {1} mask, {2} vector; writes only the set lanes):
#: masked tails (kiln-vectorize uses them when the table has them; the emitter copies
#: through a stack buffer when it does not);
#: "stream" (statement: {0} pointer aligned to the register, {1} vector; a non-temporal store,
#: for stores marked ``kiln.stream``) and "fence" (statement: orders the streaming stores
#: before it with every store after it; emitted after a loop nest that streams).



@dataclass(frozen=True)
class IsaTable:
    """One ISA: its native register width, headers, target pragma and templates."""

    name: str
    #: bytes in one native register
    native_bytes: int
    #: element type -> C types of the native registers: "vec", "int", "mask"
    types: dict[str, dict[str, str]]
    #: "<abstract op>.<f32|f64>" -> C template
    ops: dict[str, str]
    #: ``#include`` lines placed first in the translation unit
    includes: tuple[str, ...] = ()
    #: text placed after all includes (``#pragma GCC target``, typedefs, lane helpers)
    preamble: str = ""

    def lanes(self, elem: str) -> int:
        """Lanes of ``elem`` (``f32``/``f64``) in one native register."""
        return self.native_bytes // (4 if elem == "f32" else 8)

    def op(self, name: str, elem: str, *args: str | int) -> str:
        """The C expression (or statement) of an abstract op on native registers."""
        return self.ops[f"{name}.{elem}"].format(*args)


def x86_includes(*parts: str) -> tuple[str, ...]:
    """``#include`` lines for just the parts of ``immintrin.h`` a table's intrinsics come from.

    The whole header costs gcc ~0.45 s per compile here (a small kernel takes ~0.55 s with it,
    ~0.11 s with its parts), more than tracing and lowering together. GCC's parts refuse to be
    included directly unless ``immintrin.h``'s own guard is defined, so it is defined around
    them (and undefined after: a later ``#include <immintrin.h>`` still works). Other
    compilers get the whole header."""
    sse = ("xmmintrin.h", "emmintrin.h", "pmmintrin.h", "tmmintrin.h", "smmintrin.h")
    return (
        "#if defined(__GNUC__) && !defined(__clang__)",
        *(f"#include <{h}>" for h in sse),
        "#define _IMMINTRIN_H_INCLUDED",
        *(f"#include <{h}>" for h in parts),
        "#undef _IMMINTRIN_H_INCLUDED",
        "#else",
        "#include <immintrin.h>",
        "#endif",
    )


@functools.cache
def table(name: str) -> IsaTable:
    """The table of ISA ``name``; ValueError naming the known ISAs otherwise."""
    if name not in ISAS:
        raise ValueError(f"unknown ISA {name!r}; known: {', '.join(ISAS)}")
    module = importlib.import_module(f"kiln.backends.c.isa.{name}")
    tbl: IsaTable = module.TABLE
    missing = [f"{op}.{e}" for op in ABSTRACT_OPS for e in ("f32", "f64") if f"{op}.{e}" not in tbl.ops]
    if missing:
        raise AssertionError(f"ISA table {name} lacks {missing}")
    promised = CAPABILITIES[name]
    if (tbl.native_bytes, "maskload.f32" in tbl.ops) != (promised.native_bytes, promised.masked_memory):
        raise AssertionError(f"ISA table {name} disagrees with kiln.dialects.target.CAPABILITIES[{name!r}]")
    return tbl
