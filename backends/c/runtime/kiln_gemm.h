/* kiln's packed GEMM: C[i0:i1, 0:N] = A[i0:i1, 0:K] @ B[0:K, 0:N] (overwrites C).
 *
 * Instantiated per element type by defining, before this text:
 *   KG_T     element type (float, double)
 *   KG_NAME  token pasting a suffix: KG_NAME(pack_b) -> kiln_gemm_f32_pack_b
 * GotoBLAS/BLIS structure in GCC vector extensions (no immintrin.h, which costs
 * ~130 ms of gcc time per compile); the vector width follows the target ISA:
 *   B is packed once, whole, into kstep(K) x NR micro-panels (zero-padded to NR columns);
 *   each row block (blocks(), block_begin()) packs its A into MR-row micro-panels per slice of K
 *   (zero-padded to MR rows) and runs an MR x NR register-blocked FMA micro-kernel,
 *   A block in L2, each B micro-panel passing over it from L2 (KC's comment).
 * A may also be implicit: the im2col matrix of a VALID NHWC convolution (rows (n, oh, ow),
 * columns (kh, kw, ci)), packed straight from the input, so a conv2d is this same GEMM
 * with B = the HWIO filters viewed as a (KH*KW*CI) x CO matrix.
 * The k-sum of each C element is reassociated: partial sums over slices of K at most KC long are
 * accumulated in order, each slice summed with fused multiply-adds.
 */
#if defined(__linux__)
#include <sys/mman.h>
#endif
/* KILN_API: the functions kernels call (KILN_API_INLINE: the small ones). Static in a kernel's own
   copy; the shared runtime library (backends/c/shared_runtime.py) defines them as its exports. */
#ifndef KILN_API
#define KILN_API static __attribute__((unused))
#define KILN_API_INLINE static inline
#endif
#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast")
#pragma GCC target("prefer-vector-width=512")

typedef KG_T KG_NAME(vec) __attribute__((vector_size(KG_VBYTES), aligned(KG_VBYTES)));
typedef KG_T KG_NAME(uvec) __attribute__((vector_size(KG_VBYTES), aligned(sizeof(KG_T))));
enum {
  KG_NAME(W) = KG_VBYTES / sizeof(KG_T),
  KG_NAME(NV) = KG_NVEC,
  KG_NAME(NR) = KG_NVEC * (KG_VBYTES / sizeof(KG_T)),
  KG_NAME(MR) = KG_MR,
  /* C tiles are read and written once per KC slice of K, and each row block of C stays in L2/L3 only
     while it is small. One Zen 4 core (AVX-512), KC 384 -> 1536: dgemm 2500x3000x2750 52.4 -> 54.4
     GFLOP/s (OpenBLAS 53.0); sgemm 256-2048 within the noise. One Xeon core (48 KiB L1, 2 MiB L2;
     each variant compiled afresh, one process each, NumPy in the same run), KC 1536 -> 768 with
     even slices (kstep()): dgemm 2000x2400x2200 0.96 -> 1.02x NumPy, 2200x2800x2600 0.95 -> 1.01x,
     2000x2200x2600 0.94 -> 0.99x, 2500x3000x2750 0.95 -> 1.01x, 2048^3 0.96 -> 1.02x (a B micro-panel
     of 96 KiB, not 192, beside A's in L2); sgemm 256-2048 unchanged. KC 512-1024 were within 1% of
     768, 128-256 lost 8-20% (C re-read from L3 once per slice). The narrower ISAs' 384 was measured on
     an AVX2 VM (256 -> 384). */
  KG_NAME(KC) = KG_VBYTES == 64 ? 768 : 384,
  /* A row block's packed A (MC x KC) stays in L2 while each B micro-panel passes over it: 8 panels
     on AVX-512 (576 KiB of float64). At 24 (3.5 MiB at KC 1536, measured on Zen 4's fast L3) one
     Xeon core (2 MiB L2) streamed A from L3: dgemm 1024 0.81 -> 1.08x NumPy with 8. At KC 768, 12
     and 16 panels lost 1-4% on that core. */
  KG_NAME(MC) = KG_MR * KG_MC_PANELS,
  /* Bytes of the next B micro-panel each k-step of a tile prefetches into L2 (row_block()) */
  KG_NAME(PF) = 32,
};

/* The depth of K's slices: at most KC, as even as can be. K = 2400 is 600 x 4, not 768 x 3 + 96: a
   thin last slice loads and stores C for few FMAs (dgemm 2000x2400x2200 on one Xeon core 1.00 ->
   1.02x NumPy). */
static inline int64_t KG_NAME(kstep)(int64_t K) {
  const int64_t n = (K + KG_NAME(KC) - 1) / KG_NAME(KC);
  return n > 1 ? (K + n - 1) / n : KG_NAME(KC);
}

/* Elements of the packed-B buffer for a K x N right-hand side. */
KILN_API_INLINE int64_t KG_NAME(packed_b_size)(int64_t K, int64_t N) {
  return K * ((N + KG_NAME(NR) - 1) / KG_NAME(NR)) * KG_NAME(NR);
}

/* Elements of the per-thread packed-A buffer (for the largest row block). */
static inline int64_t KG_NAME(packed_a_size)(void) {
  return (int64_t)KG_NAME(MC) * KG_NAME(KC);
}

/* Row blocks for an M x N product on `threads` threads. Each B micro-panel is loaded into L1
   once per block and used by its A micro-panels. While a row of B is at most 4 KiB (a 384-deep
   slice of packed B at most 1.5 MiB) it is cheap to reload, and small blocks (MR*8 rows) share
   rows evenly among threads; past that, blocks of KG_MC_PANELS micro-panels reuse each B
   panel three times as often. Measured on a 2-core AVX2 VM, old vs new .so in one process:
   sgemm 2048 +11-15% on one and on two threads; at 1024 the big blocks lost ~10% on two threads
   (too few blocks to share), hence the threshold.
   With several threads the count is a multiple of `threads`. block_begin() deals the MR-row
   panels out evenly (blocks differ by one panel at most): whole blocks and a short last one
   gave one thread 544 of sgemm 1024's rows and the other 480 (96-row blocks; 1.74x on two
   threads), and 128 rows in 96-row blocks gave one thread 96 rows and the other 32. */
KILN_API_INLINE int64_t KG_NAME(blocks)(int64_t M, int64_t N, int threads) {
  const int64_t MR = KG_NAME(MR), panels = (M + MR - 1) / MR;
  const int64_t mc = N * (int64_t)sizeof(KG_T) > 4096 ? KG_NAME(MC) : MR * 8;
  int64_t blocks = (M + mc - 1) / mc;
  if (threads > 1) blocks = (blocks + threads - 1) / threads * threads;
  if (blocks > panels) blocks = panels;
  return blocks > 0 ? blocks : 1;
}

/* The first row of block b of `blocks` (M for b == blocks): whole MR-row panels, at most
   MC / MR of them (blocks() makes at least ceil(M / mc) blocks). */
KILN_API_INLINE int64_t KG_NAME(block_begin)(int64_t b, int64_t M, int64_t blocks) {
  const int64_t MR = KG_NAME(MR), panels = (M + MR - 1) / MR;
  const int64_t row = b * panels / blocks * MR;
  return row < M ? row : M;
}

/* The packed-B buffer for elems elements, kept per calling thread and only ever grown: a
   fresh multi-megabyte buffer per call costs an mmap and a page fault per 4 KiB (~0.1 ms
   per MB) on every call. Holds the largest packed B a thread has used, in transparent huge pages
   where the system gives them on request (one Xeon core, dgemm 2500x3000x2750: 0.94 -> 0.97x NumPy:
   a tile's A and B micro-panels span ~84 4-KiB pages, past the first-level TLB). */
KILN_API KG_T *KG_NAME(b_buffer)(int64_t elems) {
  static _Thread_local KG_T *buf;
  static _Thread_local int64_t cap;
  if (elems > cap) {
    free(buf);
    const size_t bytes = ((size_t)elems * sizeof(KG_T) + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    buf = aligned_alloc((size_t)2 << 20, bytes);
    if (!buf) abort();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(buf, bytes, MADV_HUGEPAGE);
#endif
    cap = elems;
  }
  return buf;
}

/* The packed-A scratch of the calling thread (packed_a_size() elements), allocated once: a
   batched product calls the GEMM once per item, and a fresh 150-300 KiB buffer each time
   costs more than a small item's arithmetic. */
KILN_API KG_T *KG_NAME(a_buffer)(void) {
  static _Thread_local KG_T *buf;
  if (!buf) {
    buf = aligned_alloc(64, ((size_t)KG_NAME(packed_a_size)() * sizeof(KG_T) + 63) & ~(size_t)63);
    if (!buf) abort();
  }
  return buf;
}

/* NR-wide column panels of an N-column B. */
KILN_API_INLINE int64_t KG_NAME(panels)(int64_t N) {
  return (N + KG_NAME(NR) - 1) / KG_NAME(NR);
}

/* Pack column panels [p0, p1) of B (element (k, n) at B[k*rs + n*cs]) into their places in the
   kstep(K)-deep slices of NR-wide micro-panels: threads pack disjoint panels of one buffer. */
KILN_API void KG_NAME(pack_b)(int64_t K, int64_t N, const KG_T *B, int64_t rs, int64_t cs, KG_T *bp0,
                                                    int64_t p0, int64_t p1) {
  const int64_t NR = KG_NAME(NR);
  const int64_t npad = KG_NAME(panels)(N) * NR;
  const int64_t KS = KG_NAME(kstep)(K);
  for (int64_t pc = 0; pc < K; pc += KS) {
    const int64_t kc = K - pc < KS ? K - pc : KS;
    for (int64_t jr = p0 * NR; jr < N && jr < p1 * NR; jr += NR) {
      const int64_t nr = N - jr < NR ? N - jr : NR;
      KG_T *bp = bp0 + pc * npad + jr * kc;
      if (cs == 1 && nr == NR) { /* whole vectors: the common case, ~3x the element loop */
        for (int64_t k = 0; k < kc; k++) {
          const KG_T *src = B + (pc + k) * rs + jr;
#pragma GCC unroll 8
          for (int v = 0; v < KG_NAME(NV); v++)
            *(KG_NAME(vec) *)(bp + k * NR + v * KG_NAME(W)) = *(const KG_NAME(uvec) *)(src + v * KG_NAME(W));
        }
      } else {
        for (int64_t k = 0; k < kc; k++) {
          const KG_T *src = B + (pc + k) * rs + jr * cs;
          KG_T *dst = bp + k * NR;
          for (int64_t j = 0; j < nr; j++) dst[j] = src[j * cs];
          for (int64_t j = nr; j < NR; j++) dst[j] = 0;
        }
      }
    }
  }
}

/* Pack rows [i0, i1) x columns [pc, pc+kc) of A into MR-row micro-panels. */
KILN_API void KG_NAME(pack_a)(int64_t i0, int64_t i1, int64_t pc, int64_t kc, const KG_T *A, int64_t rs,
                            int64_t cs, KG_T *ap) {
  const int64_t MR = KG_NAME(MR);
  for (int64_t ir = i0; ir < i1; ir += MR) {
    const int64_t mr = i1 - ir < MR ? i1 - ir : MR;
    if (mr == MR && cs == 1) { /* a whole panel of unit-stride rows: constant trip counts */
      const KG_T *row[KG_MR];
#pragma GCC unroll 64
      for (int i = 0; i < KG_MR; i++) row[i] = A + (ir + i) * rs + pc;
      for (int64_t k = 0; k < kc; k++)
#pragma GCC unroll 64
        for (int i = 0; i < KG_MR; i++) ap[k * KG_MR + i] = row[i][k];
    } else if (mr == MR && rs == 1) { /* A transposed (np.cov's x @ x.T of a centred x.T): columns
                                         of MR contiguous elements, copied whole */
      const KG_T *col = A + ir + pc * cs;
      for (int64_t k = 0; k < kc; k++)
#pragma GCC unroll 64
        for (int i = 0; i < KG_MR; i++) ap[k * KG_MR + i] = col[k * cs + i];
    } else {
      for (int64_t k = 0; k < kc; k++) {
        const KG_T *src = A + ir * rs + (pc + k) * cs;
        for (int64_t i = 0; i < mr; i++) ap[k * MR + i] = src[i * rs];
        for (int64_t i = mr; i < MR; i++) ap[k * MR + i] = 0;
      }
    }
    ap += kc * MR;
  }
}

/* A convolution's input as an implicit A (im2col): a contiguous NHWC X of H x W x C
   images, OH x OW outputs per image, KW filter columns, strides sh, sw (VALID). */
typedef struct {
  int64_t H, W, C, OH, OW, KW, sh, sw;
} KG_NAME(conv);

/* pack_a for the implicit A: each MR-row panel gathers kh*kw contiguous ci-runs of its rows. */
KILN_API void KG_NAME(pack_a_conv)(int64_t i0, int64_t i1, int64_t pc, int64_t kc, const KG_T *X,
                                 const KG_NAME(conv) *cv, KG_T *ap) {
  const int64_t MR = KG_NAME(MR), C = cv->C, KW = cv->KW;
  for (int64_t ir = i0; ir < i1; ir += MR) {
    const int64_t mr = i1 - ir < MR ? i1 - ir : MR;
    const KG_T *row[KG_MR];
    for (int64_t i = 0; i < MR; i++) { /* rows past i1 repeat the last one: never stored */
      const int64_t r = ir + (i < mr ? i : mr - 1), img = r / (cv->OH * cv->OW), p = r % (cv->OH * cv->OW);
      row[i] = X + ((img * cv->H + p / cv->OW * cv->sh) * cv->W + p % cv->OW * cv->sw) * C;
    }
    int64_t ci = pc % C, kw = pc / C % KW, kh = pc / C / KW;
    int64_t off = (kh * cv->W + kw) * C + ci;
    for (int64_t k = 0; k < kc; k++) {
#pragma GCC unroll 64
      for (int i = 0; i < KG_MR; i++) ap[k * MR + i] = row[i][off];
      off++;
      if (++ci == C) {
        ci = 0;
        if (++kw == KW) kw = 0, kh++;
        off = (kh * cv->W + kw) * C;
      }
    }
    ap += kc * MR;
  }
}

/* Adds (or, when first, writes) the mr x nr valid part of an MR x NR accumulator tile to C. */
static inline __attribute__((always_inline)) void KG_NAME(store)(KG_NAME(vec) acc[KG_MR][KG_NVEC], KG_T *restrict c,
                                                                 int64_t ldc, int64_t mr, int64_t nr, int first) {
  enum { MR = KG_NAME(MR), NV = KG_NAME(NV), W = KG_NAME(W), NR = KG_NAME(NR) };
  if (mr == MR && nr == NR) {
#pragma GCC unroll 64
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
      for (int v = 0; v < NV; v++) {
        KG_NAME(uvec) *dst = (KG_NAME(uvec) *)(c + i * ldc + v * W);
        *dst = first ? acc[i][v] : *dst + acc[i][v];
      }
    return;
  }
  /* an edge tile: whole vectors of the mr valid rows directly, only a ragged end element-wise */
#pragma GCC unroll 64
  for (int i = 0; i < MR; i++) {
    if (i >= mr) break;
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++) {
      KG_T *row = c + i * ldc + v * W;
      if ((v + 1) * W <= nr) {
        KG_NAME(uvec) *dst = (KG_NAME(uvec) *)row;
        *dst = first ? acc[i][v] : *dst + acc[i][v];
      } else {
        for (int64_t j = 0; v * W + j < nr; j++) row[j] = first ? acc[i][v][j] : row[j] + acc[i][v][j];
      }
    }
  }
}

/* The MR x NR register tile acc = Ap @ Bp of packed micro-panels (kc deep). */
#if defined(KG_BCAST) && defined(__GNUC__) && !defined(__clang__) && KG_MR == 12 && KG_NVEC == 2
/* AVX-512: each a of the packed panel is broadcast once into a register (KG_BCAST) that feeds both
   FMAs of its row (KG_FMA): 14 loads per 24 FMAs. An embedded broadcast in each FMA
   (`vfmadd231pd m64{1to8}`) made 26, past the two loads a cycle of an Intel core: one Xeon (AVX-512,
   2 MiB L2) core, dgemm 512 0.88 -> 0.99x NumPy, batched 8x64x32 f64 0.98 -> 1.02x (on Zen 4 the
   embedded form had been 1.6% ahead in L2, within the noise on large products). The 24
   accumulators are named and pinned to zmm8-31: an array operand of an asm stays in memory,
   and once K and N were constants gcc's allocator spilled unpinned ones inside the k-loop
   (28 GFLOP/s). gcc only: the register-variable binding is its extension. */
#define KG_ACC(i, r, s)                                                               \
  register KG_NAME(vec) c##i##_0 __asm__("zmm" #r) = {0};                            \
  register KG_NAME(vec) c##i##_1 __asm__("zmm" #s) = {0};
/* row i of the tile: its element of A (at AT) broadcast, times the two vectors of B */
#define KG_BFMA(i, AT)                                                              \
  {                                                                                 \
    KG_NAME(vec) a_;                                                                \
    __asm__(KG_BCAST : "=v"(a_) : "m"(AT));                                         \
    __asm__(KG_FMA : "+v"(c##i##_0) : "v"(b0), "v"(a_));                            \
    __asm__(KG_FMA : "+v"(c##i##_1) : "v"(b1), "v"(a_));                            \
  }
#define KG_ROW(i) KG_BFMA(i, ap[k * 12 + i])
#define KG_OUT(i) acc[i][0] = c##i##_0, acc[i][1] = c##i##_1;
#define KG_ALL(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11)
#define KG_HALF(m) m(0) m(1) m(2) m(3) m(4) m(5)
/* the accumulators of rows 0-5 (TOP) or all 12 (ALL), zeroed */
#define KG_ACCS_TOP KG_ACC(0, 8, 9) KG_ACC(1, 10, 11) KG_ACC(2, 12, 13) KG_ACC(3, 14, 15) KG_ACC(4, 16, 17) KG_ACC(5, 18, 19)
#define KG_ACCS_ALL KG_ACCS_TOP KG_ACC(6, 20, 21) KG_ACC(7, 22, 23) KG_ACC(8, 24, 25) KG_ACC(9, 26, 27) KG_ACC(10, 28, 29) KG_ACC(11, 30, 31)
/* the k-loop over the rows ROWS names (KG_ALL or KG_HALF), with PF (a statement, or nothing) each step */
#define KG_KLOOP(ROWS, PF)                                                            \
  for (int64_t k = 0; k < kc; k++) {                                                  \
    const KG_NAME(vec) b0 = *(const KG_NAME(vec) *)(bp + k * NR), b1 = *(const KG_NAME(vec) *)(bp + k * NR + W); \
    PF                                                                                \
    ROWS(KG_ROW)                                                                      \
  }
static inline __attribute__((always_inline)) void KG_NAME(tile)(int64_t kc, const KG_T *restrict ap,
                                                                const KG_T *restrict bp,
                                                                KG_NAME(vec) acc[KG_MR][KG_NVEC]) {
  enum { W = KG_NAME(W), NR = KG_NAME(NR) };
  KG_ACCS_ALL
  KG_KLOOP(KG_ALL, )
  KG_ALL(KG_OUT)
}
/* A whole tile straight into C (first: written, else added) from the accumulator registers:
   through acc and store() each tile was spilled to the stack and read back, 48 more memory
   operations per tile, a tenth of the work when K is 32 (batched 8x64x32 items). */
#define KG_TILE_C 1
#define KG_SET(i)                                                                     \
  *(KG_NAME(uvec) *)(c + i * ldc) = c##i##_0, *(KG_NAME(uvec) *)(c + i * ldc + W) = c##i##_1;
#define KG_ADD(i)                                                                     \
  *(KG_NAME(uvec) *)(c + i * ldc) += c##i##_0, *(KG_NAME(uvec) *)(c + i * ldc + W) += c##i##_1;
/* pf: kc * PF bytes of the next B micro-panel, prefetched into L2 one k-step at a time. */
static inline __attribute__((always_inline)) void KG_NAME(tile_c)(int64_t kc, const KG_T *restrict ap,
                                                                  const KG_T *restrict bp, KG_T *restrict c,
                                                                  int64_t ldc, int first, const char *pf) {
  enum { W = KG_NAME(W), NR = KG_NAME(NR) };
  KG_ACCS_ALL
  KG_KLOOP(KG_ALL, __builtin_prefetch(pf + k * KG_NAME(PF), 0, 1);)
  if (first) {
    KG_ALL(KG_SET)
  } else {
    KG_ALL(KG_ADD)
  }
}
/* The top half of the tile (rows 0-5 of the panel, the rest of acc left unset): an edge panel
   of at most 6 rows (M = 64 is five whole panels and one of 4 rows) does half the FMAs. */
#define KG_HALF_TILE 1
static inline __attribute__((always_inline)) void KG_NAME(tile_half)(int64_t kc, const KG_T *restrict ap,
                                                                     const KG_T *restrict bp,
                                                                     KG_NAME(vec) acc[KG_MR][KG_NVEC]) {
  enum { W = KG_NAME(W), NR = KG_NAME(NR) };
  KG_ACCS_TOP
  KG_KLOOP(KG_HALF, )
  KG_HALF(KG_OUT)
}
/* small()'s tile: C[0:mr, 0:NR] = A[0:mr, 0:K] @ B[0:K, 0:NR] straight from A and B, unpacked (A's
   element (i, k) at a[i*ars + k*acs], B's rows brs apart): a batched product's 64 x 32 @ 32 x 64
   items spent more time packing than multiplying. mr is 12 or at most 6 (M's edge: half the
   FMAs); rows past mr repeat row mr-1. */
#define KG_SMALL_TILE 1
#define KG_SROW(i) KG_BFMA(i, a##i[k * acs])
#define KG_SKLOOP(ROWS)                                                               \
  for (int64_t k = 0; k < K; k++) {                                                   \
    const KG_NAME(vec) b0 = *(const KG_NAME(uvec) *)(b + k * brs), b1 = *(const KG_NAME(uvec) *)(b + k * brs + W); \
    ROWS(KG_SROW)                                                                     \
  }
#define KG_AROW(i) const KG_T *a##i = a + (i < mr ? i : mr - 1) * ars;
#define KG_SET_VALID(i) if (i < mr) { KG_SET(i) }
static inline __attribute__((always_inline)) void KG_NAME(small_tile)(int64_t K, const KG_T *restrict a, int64_t ars,
                                                                      int64_t acs, const KG_T *restrict b,
                                                                      int64_t brs, KG_T *restrict c, int64_t ldc,
                                                                      int64_t mr) {
  enum { W = KG_NAME(W) };
  if (mr == KG_MR) {
    KG_ACCS_ALL
    KG_ALL(KG_AROW)
    KG_SKLOOP(KG_ALL)
    KG_ALL(KG_SET)
  } else {
    KG_ACCS_TOP
    KG_HALF(KG_AROW)
    KG_SKLOOP(KG_HALF)
    KG_HALF(KG_SET_VALID)
  }
}
#undef KG_SROW
#undef KG_SKLOOP
#undef KG_AROW
#undef KG_SET_VALID
#undef KG_SET
#undef KG_ADD
#undef KG_HALF
#undef KG_ACCS_TOP
#undef KG_ACCS_ALL
#undef KG_KLOOP
#undef KG_ACC
#undef KG_ROW
#undef KG_BFMA
#undef KG_OUT
#undef KG_ALL
#else
static inline __attribute__((always_inline)) void KG_NAME(tile)(int64_t kc, const KG_T *restrict ap,
                                                                const KG_T *restrict bp,
                                                                KG_NAME(vec) acc[KG_MR][KG_NVEC]) {
  enum { MR = KG_NAME(MR), NV = KG_NAME(NV), W = KG_NAME(W), NR = KG_NAME(NR) };
#pragma GCC unroll 64
  for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++) acc[i][v] = (KG_NAME(vec)){0};
  for (int64_t k = 0; k < kc; k++) {
    KG_NAME(vec) b[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++) b[v] = *(const KG_NAME(vec) *)(bp + k * NR + v * W);
#pragma GCC unroll 64
    for (int i = 0; i < MR; i++) {
      const KG_T a = ap[k * MR + i];
#pragma GCC unroll 8
      for (int v = 0; v < NV; v++) acc[i][v] += a * b[v];
    }
  }
}
#endif

/* The MR x NR micro-kernel: C tile (mr x nr valid) = (first ? 0 : C) + Ap @ Bp; a whole tile
   prefetches from pf as tile_c() does. */
static inline __attribute__((always_inline)) void KG_NAME(micro)(int64_t kc, const KG_T *restrict ap,
                                                                 const KG_T *restrict bp, KG_T *restrict c,
                                                                 int64_t ldc, int64_t mr, int64_t nr, int first,
                                                                 const char *pf) {
  KG_NAME(vec) acc[KG_MR][KG_NVEC];
  /* the C tile's lines are asked for before the k-loop, so its store does not wait on them (once a
     matrix outgrows L2, the store's loads missed: dgemm 2000^3 on one Zen 4 core 44 -> 48 GFLOP/s);
     a prefetch past the matrix's end is harmless */
#pragma GCC unroll 64
  for (int i = 0; i < KG_MR; i++) {
    __builtin_prefetch(c + i * ldc, 1, 3);
    __builtin_prefetch(c + i * ldc + KG_NAME(NR) - 1, 1, 3);
  }
#ifdef KG_TILE_C
  if (mr == KG_MR && nr == KG_NAME(NR)) {
    KG_NAME(tile_c)(kc, ap, bp, c, ldc, first, pf);
    return;
  }
#endif
#ifdef KG_HALF_TILE
  if (mr <= KG_MR / 2)
    KG_NAME(tile_half)(kc, ap, bp, acc);
  else
#endif
    KG_NAME(tile)(kc, ap, bp, acc);
  KG_NAME(store)(acc, c, ldc, mr, nr, first);
}

/* The micro-kernel for a panel at most one vector wide (the N = 10 of a classifier layer: the
   full kernel would multiply NR columns, most of them padding): one accumulator per row. */
static inline __attribute__((always_inline)) void KG_NAME(micro_narrow)(int64_t kc, const KG_T *restrict ap,
                                                                        const KG_T *restrict bp, KG_T *restrict c,
                                                                        int64_t ldc, int64_t mr, int64_t nr, int first) {
  enum { MR = KG_NAME(MR), NR = KG_NAME(NR) };
  KG_NAME(vec) acc[MR];
#pragma GCC unroll 64
  for (int i = 0; i < MR; i++) acc[i] = (KG_NAME(vec)){0};
  for (int64_t k = 0; k < kc; k++) {
    const KG_NAME(vec) b = *(const KG_NAME(vec) *)(bp + k * NR);
#pragma GCC unroll 64
    for (int i = 0; i < MR; i++) acc[i] += ap[k * MR + i] * b;
  }
#pragma GCC unroll 64
  for (int i = 0; i < MR; i++) {
    if (i >= mr) break;
    KG_T *row = c + i * ldc;
    for (int64_t j = 0; j < nr; j++) row[j] = first ? acc[i][j] : row[j] + acc[i][j];
  }
}

/* C[0:M, 0:N] = A @ B straight from A and B (B with a unit column stride), no packing:
   for products so small (an LSTM step's 10x10 @ 10x40, a batched product's 64x32 @ 32x64
   items) that packing, its buffers and a parallel region would cost more than the
   arithmetic. Rows past M repeat the last row. */
KILN_API void KG_NAME(small)(int64_t M, int64_t N, int64_t K, const KG_T *A, int64_t ars, int64_t acs,
                                                   const KG_T *B, int64_t brs, KG_T *C, int64_t ldc) {
  enum { MR = KG_NAME(MR), NV = KG_NAME(NV), W = KG_NAME(W), NR = KG_NAME(NR) };
  for (int64_t j = 0; j < N; j += NR) {
    const int64_t nr = N - j < NR ? N - j : NR;
    for (int64_t i = 0; i < M; i += MR) {
      const int64_t mr = M - i < MR ? M - i : MR;
#ifdef KG_SMALL_TILE
      if (nr == NR && (mr == MR || mr <= MR / 2)) {
        KG_NAME(small_tile)(K, A + i * ars, ars, acs, B + j, brs, C + i * ldc + j, ldc, mr);
        continue;
      }
#endif
      const KG_T *arow[MR];
#pragma GCC unroll 64
      for (int r = 0; r < MR; r++) arow[r] = A + (i + (r < mr ? r : mr - 1)) * ars;
      KG_NAME(vec) acc[MR][NV];
#pragma GCC unroll 64
      for (int r = 0; r < MR; r++)
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) acc[r][v] = (KG_NAME(vec)){0};
      for (int64_t k = 0; k < K; k++) {
        const KG_T *bk = B + k * brs + j;
        KG_NAME(vec) b[NV];
#pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
          if ((v + 1) * W <= nr) {
            b[v] = *(const KG_NAME(uvec) *)(bk + v * W);
          } else if (v * W >= nr) {
            b[v] = (KG_NAME(vec)){0};
          } else {
            KG_NAME(vec) t = {0};
            for (int q = 0; v * W + q < nr; q++) t[q] = bk[v * W + q];
            b[v] = t;
          }
        }
#pragma GCC unroll 64
        for (int r = 0; r < MR; r++) {
          const KG_T a = arow[r][k * acs];
#pragma GCC unroll 8
          for (int v = 0; v < NV; v++) acc[r][v] += a * b[v];
        }
      }
      KG_NAME(store)(acc, C + i * ldc + j, ldc, mr, nr, 1);
    }
  }
}

/* Columns per skinny() block for an M-row product: M rows of them fill 256 KiB, in L2 (half of the
   smallest L2 kiln targets), whole vectors. Longer runs of each row of B stream better: an 8 x 30000 @
   30000 x 10000 f32 product ran 1.4x faster than with L1-sized (32 KiB) blocks. */
KILN_API_INLINE int64_t KG_NAME(skinny_step)(int64_t M) {
  const int64_t cols = 262144 / ((M > 0 ? M : 1) * (int64_t)sizeof(KG_T)) / KG_NAME(W) * KG_NAME(W);
  return cols > KG_NAME(W) ? cols : KG_NAME(W);
}

/* C[0:M, j0:j1] = A @ B[:, j0:j1] for a few rows (M <= KG_SKINNY_M; B with a unit column stride),
   B never packed: each of its elements is used at most M times, so the product is as fast as B
   streams by, and packing would read it, write a copy and read that (an MLP layer with batch 8 and
   a 30000 x 10000 weight: a 1.2 GB copy). B is read row by row, KG_SKINNY_R rows at a time (that
   many sequential streams), the C block held in L2 (skinny_step columns); each C element sums its
   k-terms in order, with fused multiply-adds. */
KILN_API void KG_NAME(skinny)(int64_t M, int64_t j0, int64_t j1, int64_t K, const KG_T *A,
                                                    int64_t ars, int64_t acs, const KG_T *B, int64_t brs, KG_T *C,
                                                    int64_t ldc) {
  enum { W = KG_NAME(W), R = KG_SKINNY_R };
  typedef KG_NAME(uvec) V;
  const int64_t jv = j0 + (j1 - j0) / W * W, kr = K / R * R;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = j0; j < j1; j++) C[i * ldc + j] = 0;
  for (int64_t k = 0; k < kr; k += R) {
    KG_T a[KG_SKINNY_M][R];
    const KG_T *b[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) b[r] = B + (k + r) * brs;
    for (int64_t i = 0; i < M; i++)
#pragma GCC unroll 8
      for (int r = 0; r < R; r++) a[i][r] = A[i * ars + (k + r) * acs];
    int64_t j = j0;
    for (; j < jv; j += W) {
      V bv[R];
#pragma GCC unroll 8
      for (int r = 0; r < R; r++) bv[r] = *(const V *)(b[r] + j);
      for (int64_t i = 0; i < M; i++) {
        V *c = (V *)(C + i * ldc + j), s = *c;
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) s += a[i][r] * bv[r];
        *c = s;
      }
    }
    for (; j < j1; j++)
      for (int64_t i = 0; i < M; i++) {
        KG_T s = C[i * ldc + j];
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) s += a[i][r] * b[r][j];
        C[i * ldc + j] = s;
      }
  }
  for (int64_t k = kr; k < K; k++) /* the last K % R rows of B, one at a time */
    for (int64_t i = 0; i < M; i++) {
      const KG_T a = A[i * ars + k * acs], *b = B + k * brs;
      KG_T *c = C + i * ldc;
      int64_t j = j0;
      for (; j < jv; j += W) *(V *)(c + j) += a * *(const V *)(b + j);
      for (; j < j1; j++) c[j] += a * b[j];
    }
}

/* Rows [i0, i1) of C (row stride ldc, unit column stride) from A (element (m, k) at
   A[m*ars + k*acs], or, when cv is given, the convolution input A seen through cv) and
   the packed B; ap is a packed_a_size() scratch buffer. When lower (a symmetric C = A @ B, B
   being A's transpose), only the lower triangle: tiles wholly above the diagonal are skipped
   (a tile that crosses it is stored whole; mirror() overwrites its upper part with the same
   values). */
static inline __attribute__((always_inline)) void KG_NAME(row_block)(int64_t i0, int64_t i1, int64_t N, int64_t K,
                                                                       const KG_T *A, int64_t ars, int64_t acs,
                                                                       const KG_NAME(conv) *cv, const KG_T *bp,
                                                                       KG_T *ap, KG_T *C, int64_t ldc, int lower) {
  const int64_t MR = KG_NAME(MR), NR = KG_NAME(NR);
  const int64_t npad = (N + NR - 1) / NR * NR;
  const int64_t ncols = lower && i1 < N ? i1 : N;
  if (K == 0) {
    for (int64_t i = i0; i < i1; i++)
      for (int64_t j = 0; j < N && (!lower || j <= i); j++) C[i * ldc + j] = 0;
    return;
  }
  const int64_t KS = KG_NAME(kstep)(K);
  for (int64_t pc = 0; pc < K; pc += KS) {
    const int64_t kc = K - pc < KS ? K - pc : KS;
    if (cv)
      KG_NAME(pack_a_conv)(i0, i1, pc, kc, A, cv, ap);
    else
      KG_NAME(pack_a)(i0, i1, pc, kc, A, ars, acs, ap);
    const KG_T *bslice = bp + pc * npad;
    for (int64_t jr = 0; jr < ncols; jr += NR) {
      const int64_t nr = N - jr < NR ? N - jr : NR;
      /* The next B micro-panel comes into L2 during this one's first `parts` tiles, a part each:
         once packed B outgrows L3, the first tile over a panel otherwise waited on memory (it needs
         B faster than one core reads it). One Xeon core, 24-panel row blocks: dgemm 2048 0.81 -> 0.89x
         NumPy, sgemm 2048 0.90 -> 1.00x (8-panel blocks: 0.98x, 1.02x). A prefetch past the buffer's
         end is harmless. */
      const char *next = (const char *)(bslice + (jr + NR) * kc);
      const int64_t parts = (int64_t)NR * sizeof(KG_T) / KG_NAME(PF);
      for (int64_t ir = i0; ir < i1; ir += MR) {
        const int64_t mr = i1 - ir < MR ? i1 - ir : MR;
        if (lower && jr >= ir + mr) continue; /* wholly above the diagonal */
        if (nr <= KG_NAME(W))
          KG_NAME(micro_narrow)(kc, ap + (ir - i0) * kc, bslice + jr * kc, C + ir * ldc + jr, ldc, mr, nr, pc == 0);
        else
          KG_NAME(micro)(kc, ap + (ir - i0) * kc, bslice + jr * kc, C + ir * ldc + jr, ldc, mr, nr, pc == 0,
                         next + (ir - i0) / MR % parts * kc * KG_NAME(PF));
      }
    }
  }
}

KILN_API void KG_NAME(rows)(int64_t i0, int64_t i1, int64_t N, int64_t K, const KG_T *A, int64_t ars,
                          int64_t acs, const KG_NAME(conv) *cv, const KG_T *bp, KG_T *ap, KG_T *C,
                          int64_t ldc) {
  KG_NAME(row_block)(i0, i1, N, K, A, ars, acs, cv, bp, ap, C, ldc, 0);
}

KILN_API void KG_NAME(syrk_rows)(int64_t i0, int64_t i1, int64_t N, int64_t K, const KG_T *A,
                                                       int64_t ars, int64_t acs, const KG_T *bp, KG_T *ap, KG_T *C,
                                                       int64_t ldc) {
  KG_NAME(row_block)(i0, i1, N, K, A, ars, acs, 0, bp, ap, C, ldc, 1);
}

/* C[i, j] = C[j, i] for rows i in [i0, i1) and columns i < j < N: the upper triangle of a
   symmetric product from its lower one, in 32 x 32 blocks (each read block stays in L1). */
KILN_API void KG_NAME(mirror)(int64_t i0, int64_t i1, int64_t N, KG_T *C, int64_t ldc) {
  enum { B = 32 };
  for (int64_t ib = i0; ib < i1; ib += B) {
    const int64_t ie = ib + B < i1 ? ib + B : i1;
    for (int64_t jb = ib; jb < N; jb += B) {
      const int64_t je = jb + B < N ? jb + B : N;
      for (int64_t i = ib; i < ie; i++)
        for (int64_t j = jb > i + 1 ? jb : i + 1; j < je; j++) C[i * ldc + j] = C[j * ldc + i];
    }
  }
}

/* C[i, j] -= (A @ B)[i, j] for rows i in [i0, i1) and columns j < N, or only j <= i when
   lower, with K <= KC (one slice): the trailing updates of linalg's blocked LU and Cholesky
   (a lower triangle), B packed by pack_b, ap a packed_a_size() scratch. In a triangle, tiles
   wholly above the diagonal are skipped, and one that crosses it is stored element by element,
   its part on and below the diagonal. */
KILN_API void KG_NAME(sub_rows)(int64_t i0, int64_t i1, int64_t N, int64_t K, const KG_T *A,
                                                      int64_t ars, int64_t acs, const KG_T *bp, KG_T *ap, KG_T *C,
                                                      int64_t ldc, int lower) {
  enum { MR = KG_NAME(MR), NV = KG_NAME(NV), W = KG_NAME(W), NR = KG_NAME(NR) };
  KG_NAME(pack_a)(i0, i1, 0, K, A, ars, acs, ap);
  for (int64_t jr = 0; jr < N && (!lower || jr < i1); jr += NR) {
    const int64_t nr = N - jr < NR ? N - jr : NR;
    for (int64_t ir = i0; ir < i1; ir += MR) {
      const int64_t mr = i1 - ir < MR ? i1 - ir : MR;
      if (lower && jr >= ir + mr) continue; /* above the diagonal */
      KG_NAME(vec) acc[MR][NV];
      KG_NAME(tile)(K, ap + (ir - i0) * K, bp + jr * K, acc);
      KG_T *c = C + ir * ldc + jr;
      if (mr == MR && nr == NR && (!lower || jr + NR <= ir + 1)) { /* whole vectors */
#pragma GCC unroll 64
        for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
          for (int v = 0; v < NV; v++) *(KG_NAME(uvec) *)(c + i * ldc + v * W) -= acc[i][v];
      } else {
        for (int64_t i = 0; i < mr; i++)
          for (int64_t j = 0; j < nr && (!lower || jr + j <= ir + i); j++) c[i * ldc + j] -= acc[i][j / W][j % W];
      }
    }
  }
}

#pragma GCC pop_options
