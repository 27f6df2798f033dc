"""AVX2 + FMA: 256-bit registers (8 x f32, 4 x f64); masks are all-ones lanes in a vector."""

from __future__ import annotations

from kiln.backends.c.isa import IsaTable, x86_includes

_CMP = {
    "oeq": "_CMP_EQ_OQ", "ogt": "_CMP_GT_OQ", "oge": "_CMP_GE_OQ", "olt": "_CMP_LT_OQ",
    "ole": "_CMP_LE_OQ", "one": "_CMP_NEQ_OQ", "ord": "_CMP_ORD_Q", "ueq": "_CMP_EQ_UQ",
    "ugt": "_CMP_NLE_UQ", "uge": "_CMP_NLT_UQ", "ult": "_CMP_NGE_UQ", "ule": "_CMP_NGT_UQ",
    "une": "_CMP_NEQ_UQ", "uno": "_CMP_UNORD_Q",
}


def _ops(s: str, i: str, ints: str) -> dict[str, str]:
    """Templates for suffix ``s`` (ps/pd), integer lane suffix ``i`` (epi32/epi64)."""
    ones = f"_mm256_castsi256_{s}(_mm256_set1_epi32(-1))"
    ops = {
        "load": f"_mm256_loadu_{s}({{0}})",
        "store": f"_mm256_storeu_{s}({{0}}, {{1}})",
        "broadcast": f"_mm256_set1_{s}({{0}})",
        "add": f"_mm256_add_{s}({{0}}, {{1}})",
        "sub": f"_mm256_sub_{s}({{0}}, {{1}})",
        "mul": f"_mm256_mul_{s}({{0}}, {{1}})",
        "div": f"_mm256_div_{s}({{0}}, {{1}})",
        "sqrt": f"_mm256_sqrt_{s}({{0}})",
        "madd": f"_mm256_fmadd_{s}({{0}}, {{1}}, {{2}})",
        "fma": f"_mm256_fmadd_{s}({{0}}, {{1}}, {{2}})",
        "maxkeep": f"_mm256_max_{s}({{0}}, {{1}})",
        "minkeep": f"_mm256_min_{s}({{0}}, {{1}})",
        "any": f"_mm256_movemask_{s}({{0}})",
        "mand": f"_mm256_and_{s}({{0}}, {{1}})",
        "mor": f"_mm256_or_{s}({{0}}, {{1}})",
        "mnot": f"_mm256_xor_{s}({{0}}, {ones})",
        "select": f"_mm256_blendv_{s}({{2}}, {{1}}, {{0}})",
        "band": f"_mm256_and_{s}({{0}}, {{1}})",
        "bor": f"_mm256_or_{s}({{0}}, {{1}})",
        "bxor": f"_mm256_xor_{s}({{0}}, {{1}})",
        "as_int": f"_mm256_cast{s}_si256({{0}})",
        "as_float": f"_mm256_castsi256_{s}({{0}})",
        "iadd": f"_mm256_add_{i}({{0}}, {{1}})",
        "isub": f"_mm256_sub_{i}({{0}}, {{1}})",
        "iand": "_mm256_and_si256({0}, {1})",
        "ior": "_mm256_or_si256({0}, {1})",
        "ibroadcast": f"_mm256_set1_{ints}({{0}})",
        "shl": f"_mm256_slli_{i}({{0}}, {{1}})",
        "shr": f"_mm256_srli_{i}({{0}}, {{1}})",
    }
    ops.update({f"cmp.{p}": f"_mm256_cmp_{s}({{0}}, {{1}}, {imm})" for p, imm in _CMP.items()})
    iota = ", ".join(str(j) for j in range(8 if s == "ps" else 4))
    ops.update({  # masked tails: lanes below a count; vmaskmov reads/writes only the set lanes
        "mask_first": f"_mm256_castsi256_{s}(_mm256_cmpgt_{i}(_mm256_set1_{ints}({{0}}), _mm256_setr_{ints}({iota})))",
        "maskload": f"_mm256_maskload_{s}({{0}}, _mm256_cast{s}_si256({{1}}))",
        "maskstore": f"_mm256_maskstore_{s}({{0}}, _mm256_cast{s}_si256({{1}}), {{2}})",
        "stream": f"_mm256_stream_{s}({{0}}, {{1}})",
        "fence": "_mm_sfence()",
    })
    return ops


TABLE = IsaTable(
    name="avx2",
    native_bytes=32,
    types={
        "f32": {"vec": "__m256", "int": "__m256i", "mask": "__m256"},
        "f64": {"vec": "__m256d", "int": "__m256i", "mask": "__m256d"},
    },
    ops={
        **{f"{k}.f32": v for k, v in _ops("ps", "epi32", "epi32").items()},
        **{f"{k}.f64": v for k, v in _ops("pd", "epi64", "epi64x").items()},
        "lookup8.f32": "_mm256_permutevar8x32_ps({0}, {1})",
    },
    includes=x86_includes("avxintrin.h", "avx2intrin.h", "fmaintrin.h"),
    preamble='#pragma GCC target("avx2,fma")\n',
)
