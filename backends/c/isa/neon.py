"""AArch64 Advanced SIMD (NEON): 128-bit registers (4 x f32, 2 x f64); masks are unsigned lanes."""

from __future__ import annotations

from kiln.backends.c.isa import IsaTable


def _ops(f: str, u: str, s: str) -> dict[str, str]:
    """Templates for float suffix ``f`` (f32/f64), unsigned ``u`` (u32/u64) and signed ``s`` lanes."""
    bits = f"vreinterpretq_{u}_{f}"
    back = f"vreinterpretq_{f}_{u}"
    mnot = "vmvnq_u32({0})" if u == "u32" else "vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64({0})))"
    return {
        "load": f"vld1q_{f}({{0}})",
        "store": f"vst1q_{f}({{0}}, {{1}})",
        "broadcast": f"vdupq_n_{f}({{0}})",
        "add": f"vaddq_{f}({{0}}, {{1}})",
        "sub": f"vsubq_{f}({{0}}, {{1}})",
        "mul": f"vmulq_{f}({{0}}, {{1}})",
        "div": f"vdivq_{f}({{0}}, {{1}})",
        "sqrt": f"vsqrtq_{f}({{0}})",
        "madd": f"vfmaq_{f}({{2}}, {{0}}, {{1}})",
        "fma": f"vfmaq_{f}({{2}}, {{0}}, {{1}})",
        "maximum": f"vmaxq_{f}({{0}}, {{1}})",  # FMAX: NaN propagates, max(-0, +0) = +0
        "minimum": f"vminq_{f}({{0}}, {{1}})",
        "cmp.oeq": f"vceqq_{f}({{0}}, {{1}})",
        "cmp.ogt": f"vcgtq_{f}({{0}}, {{1}})",
        "cmp.oge": f"vcgeq_{f}({{0}}, {{1}})",
        "cmp.olt": f"vcltq_{f}({{0}}, {{1}})",
        "cmp.ole": f"vcleq_{f}({{0}}, {{1}})",
        "cmp.uno": mnot.format(f"vandq_{u}(vceqq_{f}({{0}}, {{0}}), vceqq_{f}({{1}}, {{1}}))"),
        "mand": f"vandq_{u}({{0}}, {{1}})",
        "mor": f"vorrq_{u}({{0}}, {{1}})",
        "mnot": mnot,
        "select": f"vbslq_{f}({{0}}, {{1}}, {{2}})",
        "band": f"{back}(vandq_{u}({bits}({{0}}), {bits}({{1}})))",
        "bor": f"{back}(vorrq_{u}({bits}({{0}}), {bits}({{1}})))",
        "bxor": f"{back}(veorq_{u}({bits}({{0}}), {bits}({{1}})))",
        "as_int": f"vreinterpretq_{s}_{f}({{0}})",
        "as_float": f"vreinterpretq_{f}_{s}({{0}})",
        "iadd": f"vaddq_{s}({{0}}, {{1}})",
        "isub": f"vsubq_{s}({{0}}, {{1}})",
        "iand": f"vandq_{s}({{0}}, {{1}})",
        "ior": f"vorrq_{s}({{0}}, {{1}})",
        "ibroadcast": f"vdupq_n_{s}({{0}})",
        "shl": f"vshlq_n_{s}({{0}}, {{1}})",
        "shr": f"vreinterpretq_{s}_{u}(vshrq_n_{u}(vreinterpretq_{u}_{s}({{0}}), {{1}}))",
        # lanes below a count (no masked memory ops: masked tails copy through a stack buffer)
        "mask_first": (f"vcltq_{s}((int32x4_t){{{{0, 1, 2, 3}}}}, vdupq_n_{s}({{0}}))" if s == "s32"
                       else f"vcltq_{s}((int64x2_t){{{{0, 1}}}}, vdupq_n_{s}({{0}}))"),
    }


TABLE = IsaTable(
    name="neon",
    native_bytes=16,
    types={
        "f32": {"vec": "float32x4_t", "int": "int32x4_t", "mask": "uint32x4_t"},
        "f64": {"vec": "float64x2_t", "int": "int64x2_t", "mask": "uint64x2_t"},
    },
    ops={
        **{f"{k}.f32": v for k, v in _ops("f32", "u32", "s32").items()},
        **{f"{k}.f64": v for k, v in _ops("f64", "u64", "s64").items()},
    },
    includes=("#include <arm_neon.h>",),
)
