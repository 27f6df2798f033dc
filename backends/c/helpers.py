"""``static inline`` C helpers, emitted into a translation unit only when an op needs one."""

from __future__ import annotations

from kiln.backends.c.check_runtime import CHECK_RUNTIME
from kiln.backends.c.print_runtime import PRINT_RUNTIME

_ALLOC = """#if defined(__linux__)
#include <sys/mman.h>
#endif
static inline void *kiln_alloc(int64_t bytes) {
  /* 64-byte aligned, size rounded up to a multiple of 64 (aligned_alloc requires it);
     0-element buffers still get a valid, freeable pointer. */
  size_t n = bytes > 0 ? ((size_t)bytes + 63) & ~(size_t)63 : 64;
  void *p = aligned_alloc(64, n);
  if (!p) abort();
#ifdef MADV_HUGEPAGE
  /* from 4 MiB (fresh pages from mmap on every call), transparent huge pages where the
     system gives them on request, as NumPy asks for its arrays: one fault per 2 MiB, not
     512 (a 39 MB temporary of cholesky2 at n = 2200 cost ~20 ms of faults per call) */
  if (n >= ((size_t)4 << 20)) {
    uintptr_t b = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + n) & ~(uintptr_t)4095;
    madvise((void *)b, e - b, MADV_HUGEPAGE);
  }
#endif
  return p;
}
"""


def _nan_min_max(name: str, ty: str, cmp: str, zero_pick: str) -> str:
    """IEEE maximum/minimum: NaN propagates and -0.0 < +0.0 (unlike fmax/fmin)."""
    return (
        f"static inline {ty} {name}({ty} a, {ty} b) {{\n"
        f"  if (a != a || b != b) return a + b;\n"
        f"  if (a {cmp} b) return a;\n"
        f"  if (b {cmp} a) return b;\n"
        f"  return {zero_pick};\n"
        "}\n"
    )


def _ipowi(ty: str) -> str:
    """Integer power by squaring, wrapping; negative exponents follow MLIR (1, ±1 or 0)."""
    uty = "uint64_t"  # wide unsigned: wraps, and truncation gives the N-bit result
    return (
        f"static inline {ty} kiln_ipowi_{ty}({ty} b, {ty} e) {{\n"
        f"  if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;\n"
        f"  {uty} r = 1, x = ({uty})b;\n"
        f"  for ({uty} n = ({uty})e; n; n >>= 1) {{\n"
        f"    if (n & 1) r *= x;\n"
        f"    x *= x;\n"
        f"  }}\n"
        f"  return ({ty})r;\n"
        "}\n"
    )


_SELECT = """static inline int64_t kiln_select_mask(int64_t x, int64_t m, int64_t a, int64_t b) {
  /* (x & m) != 0 ? a : b as a test and a conditional move: gcc compiles the ternary to a
     branch, slow when the condition is unpredictable (passes/kiln_if_to_select.py) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDA_ARCH__)
  __asm__("testq %2, %1\\n\\tcmovneq %3, %0" : "+r"(b) : "r"(x), "er"(m), "rm"(a) : "cc");
  return b;
#else
  return (x & m) ? a : b;
#endif
}
"""

HELPERS: dict[str, str] = {
    "kiln_alloc": _ALLOC,
    "kiln_select_mask": _SELECT,
    "kiln_print": PRINT_RUNTIME,
    "kiln_check": CHECK_RUNTIME,
    "kiln_maximumf": _nan_min_max("kiln_maximumf", "float", ">", "signbit(a) ? b : a"),
    "kiln_maximum": _nan_min_max("kiln_maximum", "double", ">", "signbit(a) ? b : a"),
    "kiln_minimumf": _nan_min_max("kiln_minimumf", "float", "<", "signbit(a) ? a : b"),
    "kiln_minimum": _nan_min_max("kiln_minimum", "double", "<", "signbit(a) ? a : b"),
    **{f"kiln_ipowi_{t}": _ipowi(t) for t in ("int8_t", "int16_t", "int32_t", "int64_t")},
}
