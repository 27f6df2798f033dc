"""AVX-512 (F, DQ, VL, BW): 512-bit registers (16 x f32, 8 x f64) and ``__mmask`` predicate registers."""

from __future__ import annotations

from kiln.backends.c.isa import IsaTable, x86_includes
from kiln.backends.c.isa.avx2 import _CMP


def _ops(s: str, i: str, mask: str) -> dict[str, str]:
    """Templates for suffix ``s`` (ps/pd), integer lane suffix ``i`` (epi32/epi64), mask type."""
    ops = {
        "load": f"_mm512_loadu_{s}({{0}})",
        "store": f"_mm512_storeu_{s}({{0}}, {{1}})",
        "broadcast": f"_mm512_set1_{s}({{0}})",
        "add": f"_mm512_add_{s}({{0}}, {{1}})",
        "sub": f"_mm512_sub_{s}({{0}}, {{1}})",
        "mul": f"_mm512_mul_{s}({{0}}, {{1}})",
        "div": f"_mm512_div_{s}({{0}}, {{1}})",
        "sqrt": f"_mm512_sqrt_{s}({{0}})",
        "madd": f"_mm512_fmadd_{s}({{0}}, {{1}}, {{2}})",
        "fma": f"_mm512_fmadd_{s}({{0}}, {{1}}, {{2}})",
        "maxkeep": f"_mm512_max_{s}({{0}}, {{1}})",
        "minkeep": f"_mm512_min_{s}({{0}}, {{1}})",
        "scalef": f"_mm512_scalef_{s}({{0}}, {{1}})",
        "any": "({0} != 0)",
        "mand": f"({mask})({{0}} & {{1}})",
        "mor": f"({mask})({{0}} | {{1}})",
        "mnot": f"({mask})~{{0}}",
        "select": f"_mm512_mask_blend_{s}({{0}}, {{2}}, {{1}})",
        "band": f"_mm512_and_{s}({{0}}, {{1}})",
        "bor": f"_mm512_or_{s}({{0}}, {{1}})",
        "bxor": f"_mm512_xor_{s}({{0}}, {{1}})",
        "as_int": f"_mm512_cast{s}_si512({{0}})",
        "as_float": f"_mm512_castsi512_{s}({{0}})",
        "iadd": f"_mm512_add_{i}({{0}}, {{1}})",
        "isub": f"_mm512_sub_{i}({{0}}, {{1}})",
        "iand": "_mm512_and_si512({0}, {1})",
        "ior": "_mm512_or_si512({0}, {1})",
        "ibroadcast": f"_mm512_set1_{i}({{0}})",
        "shl": f"_mm512_slli_{i}({{0}}, {{1}})",
        "shr": f"_mm512_srli_{i}({{0}}, {{1}})",
    }
    ops.update({f"cmp.{p}": f"_mm512_cmp_{s}_mask({{0}}, {{1}}, {imm})" for p, imm in _CMP.items()})
    ops.update({  # masked tails ({0} of mask_first is in [0, lanes])
        "mask_first": f"({mask})((1u << ({{0}})) - 1u)",
        "maskload": f"_mm512_maskz_loadu_{s}({{1}}, {{0}})",
        "maskstore": f"_mm512_mask_storeu_{s}({{0}}, {{1}}, {{2}})",
        "stream": f"_mm512_stream_{s}({{0}}, {{1}})",
        "fence": "_mm_sfence()",
    })
    return ops


TABLE = IsaTable(
    name="avx512",
    native_bytes=64,
    types={
        "f32": {"vec": "__m512", "int": "__m512i", "mask": "__mmask16"},
        "f64": {"vec": "__m512d", "int": "__m512i", "mask": "__mmask8"},
    },
    ops={
        **{f"{k}.f32": v for k, v in _ops("ps", "epi32", "__mmask16").items()},
        **{f"{k}.f64": v for k, v in _ops("pd", "epi64", "__mmask8").items()},
    },
    includes=x86_includes("avxintrin.h", "avx2intrin.h", "fmaintrin.h", "avx512fintrin.h", "avx512vlintrin.h", "avx512bwintrin.h", "avx512dqintrin.h", "avx512vlbwintrin.h", "avx512vldqintrin.h"),
    preamble='#pragma GCC target("avx2,fma,avx512f,avx512dq,avx512vl,avx512bw")\n',
)
