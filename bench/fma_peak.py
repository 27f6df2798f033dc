"""The machine's float32 FMA peak per core, measured in the run that quotes it.

A constant from another machine misled: the AVX-512 machine's sgemm row read "122% of 1-core
peak" against a figure measured on an AVX2 one. So the bench times a C loop of independent
vector FMAs (12 accumulators: enough to cover the FMA latency on two ports), compiled by
kiln's own toolchain with this host's ISA, at the widest vector width the compiler offers and
at 256 bits (some cores run 512-bit FMAs at half rate or at a lower clock), and quotes the
faster. The loop is one core's; a row's "of 1-core peak" is its GFLOP/s over this figure.
"""

from __future__ import annotations

import ctypes
import time

from kiln.backends.c import toolchain

_ACCUMULATORS = 12

_SOURCE = r"""
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#define ACC 12
#define KERNEL(NAME, VEC, SET1, FMA, ADD, LANES)                                             \
  __attribute__((visibility("default"))) long NAME(long iters, float *sink) {                \
    VEC acc[ACC];                                                                            \
    VEC a = SET1(1.0f - 1e-7f), b = SET1(1e-7f);                                            \
    for (int i = 0; i < ACC; i++) acc[i] = SET1((float)i);                                   \
    for (long n = 0; n < iters; n++) {                                                       \
      _Pragma("GCC unroll 12") for (int i = 0; i < ACC; i++) acc[i] = FMA(acc[i], a, b);     \
    }                                                                                        \
    VEC s = acc[0];                                                                          \
    for (int i = 1; i < ACC; i++) s = ADD(s, acc[i]);                                        \
    float out[LANES];                                                                        \
    __builtin_memcpy(out, &s, sizeof out);                                                   \
    *sink = out[0];                                                                          \
    return LANES;                                                                            \
  }
#if defined(__AVX512F__)
KERNEL(kiln_fma_512, __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16)
#else
__attribute__((visibility("default"))) long kiln_fma_512(long iters, float *sink) {
  (void)iters; (void)sink; return 0;
}
#endif
#if defined(__FMA__)
KERNEL(kiln_fma_256, __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8)
#else
__attribute__((visibility("default"))) long kiln_fma_256(long iters, float *sink) {
  (void)iters; (void)sink; return 0;
}
#endif
/* any target: GCC's vector extension (a multiply and an add when FMAs are not contracted) */
typedef float kiln_v4f __attribute__((vector_size(16)));
static inline kiln_v4f kiln_set1(float x) { kiln_v4f v = {x, x, x, x}; return v; }
static inline kiln_v4f kiln_madd(kiln_v4f c, kiln_v4f a, kiln_v4f b) { return c * a + b; }
static inline kiln_v4f kiln_add(kiln_v4f a, kiln_v4f b) { return a + b; }
KERNEL(kiln_fma_generic, kiln_v4f, kiln_set1, kiln_madd, kiln_add, 4)
"""


def _gflops(fn: ctypes._CFuncPtr, quick: bool) -> float:
    """Best GFLOP/s of ``fn`` over a few timed calls (0 when the ISA lacks that width)."""
    sink = ctypes.c_float()
    iters = 10**5 if quick else 4 * 10**6
    lanes = fn(1, ctypes.byref(sink))
    if lanes == 0:
        return 0.0
    best = 0.0
    for _ in range(2 if quick else 5):
        start = time.perf_counter()
        fn(iters, ctypes.byref(sink))
        seconds = time.perf_counter() - start
        best = max(best, 2.0 * lanes * _ACCUMULATORS * iters / seconds / 1e9)
    return best


def fma_peak_gflops(quick: bool = False) -> float:
    """float32 GFLOP/s of one core's independent FMAs: the best of 512-, 256- and 128-bit vectors."""
    lib = ctypes.CDLL(str(toolchain.compile_shared(_SOURCE)))
    kernels = (lib.kiln_fma_512, lib.kiln_fma_256, lib.kiln_fma_generic)
    for fn in kernels:
        fn.argtypes, fn.restype = [ctypes.c_long, ctypes.POINTER(ctypes.c_float)], ctypes.c_long
    return max(_gflops(fn, quick) for fn in kernels)
