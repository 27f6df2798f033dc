"""The GEMM/GEMV runtime's C, pasted into a kernel or built once per machine as a shared library.

``kiln-opt`` prints a kernel with the runtime (``runtime/kiln_gemm.h``, ``runtime/kiln_gemv.h``)
pasted in, once per element type, so that its C compiles alone. The toolchain compiles such a
kernel (at kiln's own flags) with the runtime replaced by its declarations (:func:`calling`) and
links it to the libraries of :func:`library_source`: the same runtime code, compiled once per
machine at -O2 (the quick tier's kernels call it too), and gcc no longer compiles 40 KB of it into
every kernel with a product (its ``KILN_API`` functions are the libraries' exports). A kernel whose
products of static sizes take the runtime's small paths keeps that runtime compiled in (:func:`used`).
"""

from __future__ import annotations

import re
from pathlib import Path

from kiln.backends.c import prelude

_RUNTIME = Path(__file__).parent / "runtime"
_GEMM_SOURCE = (_RUNTIME / "kiln_gemm.h").read_text()
_GEMV_SOURCE = (_RUNTIME / "kiln_gemv.h").read_text()

_ISA_PARAMETERS = """#if defined(__AVX512F__)
#define KG_VBYTES 64
#define KG_MR 12
#define KG_MC_PANELS 8
#elif defined(__AVX__)
#define KG_VBYTES 32
#define KG_MR 6
#define KG_MC_PANELS 24
#else
#define KG_VBYTES 16
#define KG_MR 4
#define KG_MC_PANELS 24
#endif
#define KG_NVEC 2
#define KG_SKINNY_M 8
#define KG_SKINNY_R 8
"""
_GEMV_ISA = ("#if defined(__AVX512F__)\n#define KV_VBYTES 64\n#elif defined(__AVX__)\n#define KV_VBYTES 32\n"
             "#else\n#define KV_VBYTES 16\n#endif\n")
_GEMM_UNDEF = ("#undef KG_T\n#undef KG_NAME\n#undef KG_VBYTES\n#undef KG_MR\n#undef KG_NVEC\n#undef KG_MC_PANELS\n"
               "#undef KG_SKINNY_M\n#undef KG_SKINNY_R\n"
               "#undef KG_BCAST\n#undef KG_FMA\n#undef KG_HALF_TILE\n#undef KG_TILE_C\n#undef KG_SMALL_TILE\n")
_GEMV_UNDEF = "#undef KV_T\n#undef KV_NAME\n#undef KV_VBYTES\n"

#: AVX-512's broadcast of one element of A and its register FMA, per element type (kiln_gemm.h's tile)
_BCAST = {"float": "vbroadcastss %1, %0", "double": "vbroadcastsd %1, %0"}
_FMA = {"float": "vfmadd231ps %2, %1, %0", "double": "vfmadd231pd %2, %1, %0"}

#: a ``KILN_API`` function's head, up to its body's brace: its declaration
_API_HEAD = re.compile(r"KILN_API(?:_INLINE)?\s+([^{;]*?\))\s*\{")
#: what a kernel's code names besides the functions: the blocking constants (kiln_linalg's
#: LA_GEMM(MR)) and the convolution's geometry
_GEMM_TYPES = re.compile(r"^enum \{.*?^\};\n|^typedef struct \{[^}]*\} KG_NAME\(conv\);\n", re.S | re.M)


_GEMM_DECLARATIONS = "".join(m.group(0) for m in _GEMM_TYPES.finditer(_GEMM_SOURCE)) + "".join(
    f"{m.group(1)};\n" for m in _API_HEAD.finditer(_GEMM_SOURCE))
_GEMV_DECLARATIONS = "".join(f"{m.group(1)};\n" for m in _API_HEAD.finditer(_GEMV_SOURCE))


def _gemm(ctype: str, suffix: str, body: str) -> str:
    fma = f'#if defined(__AVX512F__)\n#define KG_BCAST "{_BCAST[ctype]}"\n#define KG_FMA "{_FMA[ctype]}"\n#endif\n'
    return (
        f"#define KG_T {ctype}\n#define KG_NAME(x) kiln_gemm_{suffix}_##x\n{_ISA_PARAMETERS}{fma}{body}{_GEMM_UNDEF}"
    )


def _gemv(ctype: str, suffix: str, body: str) -> str:
    return f"#define KV_T {ctype}\n#define KV_NAME(x) kiln_gemv_{suffix}_##x\n{_GEMV_ISA}{body}{_GEMV_UNDEF}"


#: helper name -> (its definitions, as a kernel pastes them; its declarations)
_RUNTIME_HELPERS = {
    "kiln_gemm_f32": (_gemm("float", "f32", _GEMM_SOURCE), _gemm("float", "f32", _GEMM_DECLARATIONS)),
    "kiln_gemm_f64": (_gemm("double", "f64", _GEMM_SOURCE), _gemm("double", "f64", _GEMM_DECLARATIONS)),
    "kiln_gemv_f32": (_gemv("float", "f32", _GEMV_SOURCE), _gemv("float", "f32", _GEMV_DECLARATIONS)),
    "kiln_gemv_f64": (_gemv("double", "f64", _GEMV_SOURCE), _gemv("double", "f64", _GEMV_DECLARATIONS)),
}
#: the calls (backends/c/kernel_ops.py) of the runtime's paths for products of static sizes: gcc specializes
#: them for those sizes when the runtime is compiled in, and calls of the library's generic code were
#: slower (one Zen core, steady state: 2000 8x8 products in a loop 0.20 -> 0.42 ms, 500 4x256 @ 256x256
#: skinny ones 5.3 -> 7.7 ms, 2000 64x64 matrix-vector ones 0.65 -> 0.97 ms; a packed 400x500x600 or a
#: threaded 2000x2000 matrix-vector product the same). A kernel making one keeps that runtime compiled in.
_SPECIALIZED = {
    **{f"kiln_gemm_{s}": (f"kiln_gemm_{s}_small(", f"kiln_gemm_{s}_skinny(") for s in ("f32", "f64")},
    **{f"kiln_gemv_{s}": (f"kiln_gemv_{s}_part(0, ",) for s in ("f32", "f64")},
}
#: the emitter's helpers (backends/c/helpers.py) of the runtime
DEFINITIONS = {name: text for name, (text, _) in _RUNTIME_HELPERS.items()}


def library_source(name: str) -> str:
    """The C of runtime helper ``name``'s library (one per helper: a kernel in one element type
    waits for, and links, the one it calls): its ``KILN_API`` functions exported."""
    return "\n".join([*prelude.lines(()), "", '#define KILN_API __attribute__((visibility("default")))',
                      "#define KILN_API_INLINE KILN_API", DEFINITIONS[name]])


def used(source: str) -> tuple[str, ...]:
    """The runtime helpers ``source`` has pasted in and may call in their library: not those it calls
    with static sizes, for which gcc specializes a copy compiled in (:data:`_SPECIALIZED`)."""
    return tuple(name for name, text in DEFINITIONS.items()
                 if text in source and not any(call in source for call in _SPECIALIZED[name]))


def calling(source: str, names: tuple[str, ...]) -> str:
    """``source`` with the pasted runtime helpers ``names`` replaced by declarations of their libraries' functions."""
    for name in names:
        text, declarations = _RUNTIME_HELPERS[name]
        source = source.replace(text, declarations)
    return source
