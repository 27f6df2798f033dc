/* kiln's matrix-vector product: y[i] = sum_k A[i, k] * x[k] for i in [i0, i1) (overwrites y).
 *
 * Instantiated per element type like kiln_gemm.h, by defining, before this text:
 *   KV_T      element type (float, double)
 *   KV_NAME   token pasting a suffix: KV_NAME(part) -> kiln_gemv_f32_part
 *   KV_VBYTES vector width in bytes (the ISA gcc compiles for)
 * Element (i, k) of A is A[i*rs + k*cs]; x and y have strides incx, incy. The loop order
 * follows A's layout, so A, the operand that dominates the traffic, is always read along
 * its contiguous axis:
 *   cs == 1 (A @ x on a row-major A): dot form, four rows at a time, two vectors of
 *     partial sums per row (eight independent FMA chains), x read once per four rows;
 *   rs == 1 (y @ A on a row-major A, i.e. A's transpose times x): axpy form, the output
 *     range in blocks of AXPY_BLOCK elements held in L1, each updated by eight rows of A per
 *     pass (y loaded and stored once per eight FMAs, eight sequential streams of A);
 *   otherwise (a view with no unit stride): the plain loop nest.
 * Each y[i] sums its k-terms in an order of its own (partial sums per vector lane), so the
 * result differs from a sequential sum in the last bits, like any BLAS.
 */
/* KILN_API: the functions kernels call (KILN_API_INLINE: the small ones). Static in a kernel's own
   copy; the shared runtime library (backends/c/shared_runtime.py) defines them as its exports. */
#ifndef KILN_API
#define KILN_API static __attribute__((unused))
#define KILN_API_INLINE static inline
#endif
#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast")
#pragma GCC target("prefer-vector-width=512")

typedef KV_T KV_NAME(uvec) __attribute__((vector_size(KV_VBYTES), aligned(sizeof(KV_T))));
enum {
  KV_NAME(W) = KV_VBYTES / sizeof(KV_T),
  /* output elements per axpy block: 32 KiB of y, in L1 while all of K streams by (4000 x 5000,
     one core, AVX-512, from C: 8 KiB blocks of four columns 41 / 43 GB/s (f32 / f64), eight
     columns 46 / 46, 32 KiB blocks of eight 50 / 47) */
  KV_NAME(AXPY_BLOCK) = 32768 / sizeof(KV_T),
};

/* Output elements per call of part() when M outputs are split among `threads` threads: 64 rows of
   the dot form; in the axpy form at most an axpy block, in equal steps whose count is a multiple of
   the thread count (64-aligned), so that each thread gets an equal share (the threads claim
   steps as they come: a late one leaves its steps to the others). Each
   call is a pass over all rows of A, so it should read as long a contiguous run of each row as it
   can: 1800 x 1400 f64 on one Zen 4 core took 0.63 ms in eighths of the columns, 0.45 ms at once.
   Whole blocks and a short last one gave one of two threads twice the other's columns (12500
   outputs: 8192 and 4308; NPBench bicg on two Xeon cores 0.81x NumPy). */
KILN_API_INLINE int64_t KV_NAME(step)(int64_t M, int64_t rs, int64_t cs, int threads) {
  if (cs == 1 || rs != 1 || M <= 0) return 64; /* no outputs: no steps to divide them into */
  const int64_t parts = threads > 1 ? threads : 1;
  const int64_t blocks = (M + KV_NAME(AXPY_BLOCK) - 1) / KV_NAME(AXPY_BLOCK);
  const int64_t steps = (blocks + parts - 1) / parts * parts;
  return ((M + steps - 1) / steps + 63) / 64 * 64;
}

static inline KV_T KV_NAME(hsum)(KV_NAME(uvec) v) {
  KV_T s = 0;
#pragma GCC unroll 16
  for (int l = 0; l < KV_NAME(W); l++) s += v[l];
  return s;
}

/* Dot form: rows [i0, i1) of a row-major A (unit column stride) times a contiguous x. */
static void KV_NAME(dots)(int64_t i0, int64_t i1, int64_t K, const KV_T *A, int64_t rs, const KV_T *x, KV_T *y,
                          int64_t incy) {
  enum { W = KV_NAME(W) };
  /* loop limits computed once (no i + 4 <= i1 style tests, which gcc cannot prove overflow-free) */
  const int64_t i4 = i0 + (i1 - i0) / 4 * 4, kv = K / (2 * W) * (2 * W);
  int64_t i = i0;
  for (; i < i4; i += 4) {
    const KV_T *r0 = A + i * rs, *r1 = r0 + rs, *r2 = r1 + rs, *r3 = r2 + rs;
    KV_NAME(uvec) a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
    int64_t k = 0;
    for (; k < kv; k += 2 * W) {
      const KV_NAME(uvec) xa = *(const KV_NAME(uvec) *)(x + k), xb = *(const KV_NAME(uvec) *)(x + k + W);
      a0 += *(const KV_NAME(uvec) *)(r0 + k) * xa;
      a1 += *(const KV_NAME(uvec) *)(r1 + k) * xa;
      a2 += *(const KV_NAME(uvec) *)(r2 + k) * xa;
      a3 += *(const KV_NAME(uvec) *)(r3 + k) * xa;
      b0 += *(const KV_NAME(uvec) *)(r0 + k + W) * xb;
      b1 += *(const KV_NAME(uvec) *)(r1 + k + W) * xb;
      b2 += *(const KV_NAME(uvec) *)(r2 + k + W) * xb;
      b3 += *(const KV_NAME(uvec) *)(r3 + k + W) * xb;
    }
    KV_T s0 = KV_NAME(hsum)(a0 + b0), s1 = KV_NAME(hsum)(a1 + b1), s2 = KV_NAME(hsum)(a2 + b2), s3 = KV_NAME(hsum)(a3 + b3);
    for (; k < K; k++) {
      s0 += r0[k] * x[k];
      s1 += r1[k] * x[k];
      s2 += r2[k] * x[k];
      s3 += r3[k] * x[k];
    }
    y[i * incy] = s0;
    y[(i + 1) * incy] = s1;
    y[(i + 2) * incy] = s2;
    y[(i + 3) * incy] = s3;
  }
  for (; i < i1; i++) {
    const KV_T *r = A + i * rs;
    KV_NAME(uvec) a = {0}, b = {0};
    int64_t k = 0;
    for (; k < kv; k += 2 * W) {
      a += *(const KV_NAME(uvec) *)(r + k) * *(const KV_NAME(uvec) *)(x + k);
      b += *(const KV_NAME(uvec) *)(r + k + W) * *(const KV_NAME(uvec) *)(x + k + W);
    }
    KV_T s = KV_NAME(hsum)(a + b);
    for (; k < K; k++) s += r[k] * x[k];
    y[i * incy] = s;
  }
}

/* Axpy form: y[i0:i1] (contiguous) = sum_k x[k] * A[i0:i1, k], A's column k contiguous at
   A + k*cs (unit row stride). Blocks of AXPY_BLOCK outputs; eight columns of A per pass. */
static void KV_NAME(axpys)(int64_t i0, int64_t i1, int64_t K, const KV_T *A, int64_t cs, const KV_T *x, int64_t incx,
                           KV_T *y) {
  enum { W = KV_NAME(W), R = 8 };
  typedef KV_NAME(uvec) V;
  const int64_t kr = K / R * R;
  for (int64_t b0 = i0; b0 < i1; b0 += KV_NAME(AXPY_BLOCK)) {
    const int64_t b1 = i1 - b0 < KV_NAME(AXPY_BLOCK) ? i1 : b0 + KV_NAME(AXPY_BLOCK);
    const int64_t bv = b0 + (b1 - b0) / W * W;
    for (int64_t i = b0; i < b1; i++) y[i] = 0;
    int64_t k = 0;
    for (; k < kr; k += R) {
      KV_T xs[R];
      const KV_T *c[R];
#pragma GCC unroll 8
      for (int r = 0; r < R; r++) xs[r] = x[(k + r) * incx], c[r] = A + (k + r) * cs;
      int64_t i = b0;
      for (; i < bv; i += W) {
        V s = *(const V *)(c[0] + i) * xs[0];
#pragma GCC unroll 8
        for (int r = 1; r < R; r++) s += *(const V *)(c[r] + i) * xs[r];
        *(V *)(y + i) += s;
      }
      for (; i < b1; i++) {
        KV_T s = 0;
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) s += c[r][i] * xs[r];
        y[i] += s;
      }
    }
    for (; k < K; k++) {
      const KV_T xk = x[k * incx];
      const KV_T *ck = A + k * cs;
      for (int64_t i = b0; i < b1; i++) y[i] += ck[i] * xk;
    }
  }
}

/* y[i0:i1] of y = A @ x, the form chosen by A's strides (see the top). */
KILN_API void KV_NAME(part)(int64_t i0, int64_t i1, int64_t K, const KV_T *A, int64_t rs, int64_t cs,
                                                  const KV_T *x, int64_t incx, KV_T *y, int64_t incy) {
  if (cs == 1 && incx == 1) {
    KV_NAME(dots)(i0, i1, K, A, rs, x, y, incy);
  } else if (rs == 1 && incy == 1) {
    KV_NAME(axpys)(i0, i1, K, A, cs, x, incx, y);
  } else {
    for (int64_t i = i0; i < i1; i++) {
      KV_T s = 0;
      for (int64_t k = 0; k < K; k++) s += A[i * rs + k * cs] * x[k * incx];
      y[i * incy] = s;
    }
  }
}

#pragma GCC pop_options
