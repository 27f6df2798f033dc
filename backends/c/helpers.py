"""``static inline`` C helpers, emitted into a translation unit only when an op needs one."""

from __future__ import annotations

from kiln.backends.c.check_runtime import CHECK_RUNTIME
from kiln.backends.c.print_runtime import PRINT_RUNTIME

_ALLOC = """#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
/* Freed buffers of 128 KiB or more (glibc's default mmap threshold) are kept for the next
   kiln_alloc of about their size, per thread, at most 8 of them and 256 MiB (per compiled module):
   a temporary that glibc gave back to the system on free was faulted in and zeroed again by the
   next call (stockham_fft at 2^18 points spent two fifths of its time in page faults when other
   code had grown glibc's mmap threshold; contour_integral's 640 KB ones, below the 1 MiB this
   was, 6%). In a virtual machine that hands freed pages back to its host (virtio free page
   reporting), touching them again costs ~2 ms per MB: NPBench's gemm at M (60 + 55 MB of
   temporaries) took 760 ms with both kept and 850-970 ms with one freed per call (64 MiB). */
enum { KILN_CACHE_SLOTS = 8 };
#define KILN_CACHE_MIN ((size_t)128 << 10)
#define KILN_CACHE_MAX ((size_t)256 << 20)
static __thread void *kiln_cache_block[KILN_CACHE_SLOTS];
static __thread size_t kiln_cache_bytes[KILN_CACHE_SLOTS];
static __thread size_t kiln_cache_total;
/* Blocks of at most 4 KiB come in power-of-two sizes from 64 bytes, and a few freed ones of each
   size are kept per thread: a loop with a small temporary per iteration (NPBench's spmv gathers
   ~10 elements of x per row) spent 70% of its time in glibc's memalign and free. */
enum { KILN_SMALL_CLASSES = 7, KILN_SMALL_SLOTS = 4 };
static __thread void *kiln_small_block[KILN_SMALL_CLASSES][KILN_SMALL_SLOTS];
static __thread int kiln_small_kept[KILN_SMALL_CLASSES];
/* the class of an n-byte block (64 << class >= n), n at most 4 KiB */
static inline int kiln_small_class(size_t n) {
  int c = 0;
  while (((size_t)64 << c) < n) c++;
  return c;
}
#endif
static inline void *kiln_alloc(int64_t bytes) {
  /* 64-byte aligned, size rounded up to a multiple of 64 (aligned_alloc requires it);
     0-element buffers still get a valid, freeable pointer. */
  size_t n = bytes > 0 ? ((size_t)bytes + 63) & ~(size_t)63 : 64;
#if defined(__GLIBC__)
  if (n <= ((size_t)64 << (KILN_SMALL_CLASSES - 1))) {
    const int c = kiln_small_class(n);
    if (kiln_small_kept[c] > 0) return kiln_small_block[c][--kiln_small_kept[c]];
    n = (size_t)64 << c;
  }
  if (n >= KILN_CACHE_MIN) { /* the smallest kept block that fits, wasting at most a quarter */
    int best = -1;
    for (int i = 0; i < KILN_CACHE_SLOTS; i++)
      if (kiln_cache_block[i] && kiln_cache_bytes[i] >= n && kiln_cache_bytes[i] - n <= n / 4 &&
          (best < 0 || kiln_cache_bytes[i] < kiln_cache_bytes[best]))
        best = i;
    if (best >= 0) {
      void *kept = kiln_cache_block[best];
      kiln_cache_block[best] = 0;
      kiln_cache_total -= kiln_cache_bytes[best];
      return kept;
    }
  }
#endif
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
static inline void kiln_free(void *p) {
  /* free(), or keep a large block for the next kiln_alloc (kept blocks are freed in slot order
     to make room) */
#if defined(__GLIBC__)
  size_t n = p ? malloc_usable_size(p) : 0;
  if (n && n < ((size_t)64 << (KILN_SMALL_CLASSES - 1)) + 64 && ((uintptr_t)p & 63) == 0) {
    /* a small block: glibc gives its power-of-two size plus less than 64 bytes */
    int c = kiln_small_class(n);
    if (((size_t)64 << c) > n) c--;
    if (c >= 0 && n - ((size_t)64 << c) < 64 && kiln_small_kept[c] < KILN_SMALL_SLOTS) {
      kiln_small_block[c][kiln_small_kept[c]++] = p;
      return;
    }
  }
  if (n >= KILN_CACHE_MIN && n <= KILN_CACHE_MAX) {
    for (int i = 0; i < KILN_CACHE_SLOTS && kiln_cache_total + n > KILN_CACHE_MAX; i++)
      if (kiln_cache_block[i]) {
        free(kiln_cache_block[i]);
        kiln_cache_total -= kiln_cache_bytes[i];
        kiln_cache_block[i] = 0;
      }
    int slot = 0;
    while (slot < KILN_CACHE_SLOTS && kiln_cache_block[slot]) slot++;
    if (slot == KILN_CACHE_SLOTS) {
      slot = 0;
      free(kiln_cache_block[0]);
      kiln_cache_total -= kiln_cache_bytes[0];
    }
    kiln_cache_block[slot] = p;
    kiln_cache_bytes[slot] = n;
    kiln_cache_total += n;
    return;
  }
#endif
  free(p);
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

_OPAQUE = """/* kiln_opaque(v): v as it is, to gcc's vectorizer: gcc 12's complex-multiply patterns fuse a
   product of a complex value's parts into the subtract or add that follows (vfmaddsub) whatever
   -ffp-contract says, which rounds NumPy's scalar product (no fused operation) differently; a
   loop holding this stays scalar (backends/c/scalar_ops.py) */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDA_ARCH__)
#define kiln_opaque(v) __asm__("" : "+x"(v))
#elif defined(__GNUC__) && defined(__aarch64__) && !defined(__CUDA_ARCH__)
#define kiln_opaque(v) __asm__("" : "+w"(v))
#else
#define kiln_opaque(v) ((void)0)
#endif
"""

HELPERS: dict[str, str] = {
    "kiln_alloc": _ALLOC,
    "kiln_opaque": _OPAQUE,
    "kiln_select_mask": _SELECT,
    "kiln_print": PRINT_RUNTIME,
    "kiln_check": CHECK_RUNTIME,
    "kiln_maximumf": _nan_min_max("kiln_maximumf", "float", ">", "signbit(a) ? b : a"),
    "kiln_maximum": _nan_min_max("kiln_maximum", "double", ">", "signbit(a) ? b : a"),
    "kiln_minimumf": _nan_min_max("kiln_minimumf", "float", "<", "signbit(a) ? a : b"),
    "kiln_minimum": _nan_min_max("kiln_minimum", "double", "<", "signbit(a) ? a : b"),
    **{f"kiln_ipowi_{t}": _ipowi(t) for t in ("int8_t", "int16_t", "int32_t", "int64_t")},
}
