"""No SIMD ISA: portable GNU C vector extensions (16-byte vectors, no header, no intrinsics).

GCC and Clang lower these to whatever the target has, or to scalar code. Comparisons give
integer lanes of -1/0, which are the masks; sqrt and fma go lane by lane through libm.
"""

from __future__ import annotations

from kiln.backends.c.isa import IsaTable

_PREAMBLE_TYPES = """typedef float kiln_g_f32 __attribute__((vector_size(16)));
typedef double kiln_g_f64 __attribute__((vector_size(16)));
typedef int32_t kiln_g_i32 __attribute__((vector_size(16)));
typedef int64_t kiln_g_i64 __attribute__((vector_size(16)));
typedef uint32_t kiln_g_u32 __attribute__((vector_size(16)));
typedef uint64_t kiln_g_u64 __attribute__((vector_size(16)));
"""


def _lane_helpers(f: str, c: str, n: int, suffix: str) -> str:
    """Unaligned load/store, broadcast, and the lane-by-lane libm ops for one element type."""
    v = f"kiln_g_{f}"
    return (
        f"static inline {v} kiln_g_load_{f}(const {c} *p) {{ {v} r; memcpy(&r, p, sizeof r); return r; }}\n"
        f"static inline void kiln_g_store_{f}({c} *p, {v} v) {{ memcpy(p, &v, sizeof v); }}\n"
        f"static inline {v} kiln_g_sqrt_{f}({v} a) {{ for (int i = 0; i < {n}; i++) a[i] = sqrt{suffix}(a[i]); return a; }}\n"
        f"static inline {v} kiln_g_fma_{f}({v} a, {v} b, {v} c) {{\n"
        f"  for (int i = 0; i < {n}; i++) a[i] = fma{suffix}(a[i], b[i], c[i]);\n"
        "  return a;\n}\n"
    )


def _ops(f: str, i: str, u: str, n: int) -> dict[str, str]:
    """Templates for float lanes ``f``, signed ``i`` and unsigned ``u`` integer lanes, ``n`` lanes."""
    v, iv, uv = f"kiln_g_{f}", f"kiln_g_{i}", f"kiln_g_{u}"
    lanes = ", ".join(["{0}"] * n)
    return {
        "load": f"kiln_g_load_{f}({{0}})",
        "store": f"kiln_g_store_{f}({{0}}, {{1}})",
        "broadcast": f"(({v}){{{{{lanes}}}}})",
        "add": "({0} + {1})",
        "sub": "({0} - {1})",
        "mul": "({0} * {1})",
        "div": "({0} / {1})",
        "sqrt": f"kiln_g_sqrt_{f}({{0}})",
        "madd": "({0} * {1} + {2})",
        "fma": f"kiln_g_fma_{f}({{0}}, {{1}}, {{2}})",
        "cmp.oeq": "({0} == {1})",
        "cmp.ogt": "({0} > {1})",
        "cmp.oge": "({0} >= {1})",
        "cmp.olt": "({0} < {1})",
        "cmp.ole": "({0} <= {1})",
        "cmp.une": "({0} != {1})",
        "cmp.uno": "(({0} != {0}) | ({1} != {1}))",
        "mand": "({0} & {1})",
        "mor": "({0} | {1})",
        "mnot": "(~{0})",
        "select": f"(({v})(({{0}} & ({iv})({{1}})) | (~{{0}} & ({iv})({{2}}))))",
        "band": f"(({v})(({iv})({{0}}) & ({iv})({{1}})))",
        "bor": f"(({v})(({iv})({{0}}) | ({iv})({{1}})))",
        "bxor": f"(({v})(({iv})({{0}}) ^ ({iv})({{1}})))",
        "as_int": f"(({iv})({{0}}))",
        "as_float": f"(({v})({{0}}))",
        "iadd": "({0} + {1})",
        "isub": "({0} - {1})",
        "iand": "({0} & {1})",
        "ior": "({0} | {1})",
        "ibroadcast": f"(({iv}){{{{{lanes}}}}})",
        "shl": "({0} << {1})",
        "shr": f"(({iv})(({uv})({{0}}) >> {{1}}))",
        # lanes below a count (no masked memory ops: masked tails copy through a stack buffer)
        "mask_first": f"(({iv}){{{{{', '.join(str(j) for j in range(n))}}}}} < ({iv}){{{{{lanes}}}}})",
    }


TABLE = IsaTable(
    name="scalar",
    native_bytes=16,
    types={
        "f32": {"vec": "kiln_g_f32", "int": "kiln_g_i32", "mask": "kiln_g_i32"},
        "f64": {"vec": "kiln_g_f64", "int": "kiln_g_i64", "mask": "kiln_g_i64"},
    },
    ops={
        **{f"{k}.f32": v for k, v in _ops("f32", "i32", "u32", 4).items()},
        **{f"{k}.f64": v for k, v in _ops("f64", "i64", "u64", 2).items()},
    },
    preamble=_PREAMBLE_TYPES + _lane_helpers("f32", "float", 4, "f") + _lane_helpers("f64", "double", 2, ""),
)
