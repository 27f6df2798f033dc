"""C for ``kernel.linalg``: NumPy's dense linear algebra, blocked, its bulk on kiln's GEMM.

* ``cholesky``: right-looking by blocks of LA_CB (128) columns, L built in place in the output.
  The block column below the diagonal is transposed into a scratch buffer (its 128 rows then
  long and contiguous), the diagonal block factored there as U = L^T (``potf2``) and the rows
  right of it solved (``solve_lower``), and copied back; the trailing lower triangle less
  L21 L21^T is ``gemm_sub`` on the GEMM's packing and micro-kernel (``kiln_gemm.h``'s
  ``sub_rows``: tiles above the diagonal skipped, those across it stored in part).
* ``solve``/``inv``/``det``: LU with partial pivoting (row swaps), right-looking on a copy of
  ``a`` by blocks of LA_CB columns. Within a block, 8-column panels are factored in a
  column-major copy (their pivot search, scaling and updates then run over contiguous memory;
  down rows n apart they conflicted in the caches when n is a power of 2, 4x slower at
  n = 512), their swaps applied to whole rows; then the rows of U right of the block are
  solved and the trailing matrix less L21 U12 is ``gemm_sub``. ``solve`` substitutes forward
  and back through whole rows of the right-hand side, by blocks of LA_CB rows whose updates of
  the other rows are ``gemm_sub`` too (when x has a GEMM tile's columns; a single b stays on
  row updates); ``inv`` inverts L U without the forward work on the identity's zeros and undoes
  the swaps on the columns (as LAPACK's getri); ``det`` is the signed product of the pivots.

Why so: one rank-8 row update per 8 columns (kiln's first design) streamed the trailing matrix
through memory n/8 times, memory-bound at large n (cholesky 1.6x, LU 3x slower than OpenBLAS
at n = 2200); a rank-128 update on the register-blocked micro-kernel reads it n/128 times and
runs at the GEMM's speed. The work left outside the GEMM, inside a block, is done as
``x[i, :] -= sum_p c[p] * r[p, :]``: contiguous row operations gcc vectorizes without
reassociating a sum (kiln keeps -ffp-contract=off and IEEE order), 8 rows of U per pass,
two rows of x at once, by column tiles of 2 KiB that keep the 8 rows in the L1 cache.
Threads (``kiln_num_threads()``, as the GEMM's): the column tiles of a block's solve and the
GEMM's row blocks (of a triangle from the bottom, its longest rows first) are shared; every
element is computed by the same operations in the same order, so results do not depend on
the thread count. The GEMM sums each element's 128 products with fused multiply-adds, in
its own order, and the blocks change the order of the subtractions: results match NumPy's
(LAPACK's, itself blocked in its own way) to rounding, not bit for bit. Scaling by a pivot
multiplies by its reciprocal, as LAPACK does (dividing below the smallest normal number).
NumPy raises ``LinAlgError`` where kiln cannot: a matrix that is not positive-definite
(cholesky, a pivot <= 0 or NaN in any block) or exactly singular (solve, inv) gives an
all-NaN result; ``det`` of a singular matrix is 0, as in NumPy. Scratch over 4 MiB comes
from ``kiln_alloc`` (huge pages).

One routine source serves float, double and their complex types (``LA_T``; ``LA_R`` its
real type), so another element type is one more instantiation. Complex LU has no GEMM to run
on: its block is the whole matrix, rank-8 row updates throughout. Complex pivots are chosen by
|re| + |im|, as LAPACK's izamax. Complex products in the loops are written out on the parts
(C's ``*`` checks for NaN and calls ``__muldc3``, which gcc cannot vectorize), as LAPACK's
are; gcc's vectorizer recognizes them as complex products and may use its fused
multiply-add-subtract for them: results agree with NumPy's to rounding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kiln.backends.c.dispatch import handles
from kiln.backends.c.errors import CEmitError
from kiln.backends.c.helpers import HELPERS
from kiln.dialects import kernel

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter, MemrefDesc

_SOURCE = r"""
#define LA_NB 8 /* the rows of U one pass of update() subtracts: its unrolled loop */
#define LA_JT ((long)(2048 / sizeof(LA_T))) /* columns in a tile: LA_NB rows of it fill 16 KiB */
#define LA_CB 128 /* columns per block of the blocked Cholesky and LU: at most the GEMM's KC (one slice) */
static void LA_NAME(nan_fill)(long n, LA_T *x) {
  for (long i = 0; i < n; i++) x[i] = (LA_T)NAN;
}
#ifdef LA_COMPLEX
/* the schoolbook product, as LAPACK's: C's `*` on _Complex also checks for NaN and calls
   __muldc3, which keeps gcc from vectorizing the loops below */
static inline LA_T LA_NAME(mul)(LA_T a, LA_T b) {
  return __builtin_complex(__real__ a * __real__ b - __imag__ a * __imag__ b,
                           __real__ a * __imag__ b + __imag__ a * __real__ b);
}
#define LA_MUL(a, b) LA_NAME(mul)(a, b)
/* the size a pivot is chosen by: |re| + |im|, as LAPACK's izamax (no hypot per element) */
#define LA_ABS1(a) (LA_FABS(__real__ (a)) + LA_FABS(__imag__ (a)))
#else
#define LA_MUL(a, b) ((a) * (b))
#define LA_ABS1(a) LA_ABS(a)
#endif
/* swaps x[j s] and y[j t] for j < m (nothing when x is y) */
static void LA_NAME(swap)(long m, LA_T *x, long s, LA_T *y, long t) {
  for (long j = 0; x != y && j < m; j++) {
    LA_T v = x[j * s]; x[j * s] = y[j * t]; y[j * t] = v;
  }
}
/* x[0], x[s], ... x[(m-1)s] /= d, as LAPACK scales: by the reciprocal, unless |d| is
   below the smallest normal number (a complex quotient is a library call per element) */
static void LA_NAME(scale)(long m, LA_T *x, long s, LA_T d) {
  if (LA_ABS(d) >= LA_RMIN) {
    LA_T r = (LA_T)1 / d;
    for (long j = 0; j < m; j++) x[j * s] = LA_MUL(x[j * s], r);
  } else {
    for (long j = 0; j < m; j++) x[j * s] /= d;
  }
}
/* the LA_NB coefficients c[p cs] as a0..a7, the rows r + p ld as r0..r7, and t minus their
   products subtracted in row order: the unrolled body of update() and update2() */
#define LA_COEFS(a, c) \
  const LA_T a##0 = c[0], a##1 = c[cs], a##2 = c[2 * cs], a##3 = c[3 * cs], a##4 = c[4 * cs], \
             a##5 = c[5 * cs], a##6 = c[6 * cs], a##7 = c[7 * cs]
#define LA_ROWS \
  const LA_T *restrict r0 = r, *restrict r1 = r + ld, *restrict r2 = r + 2 * ld, \
             *restrict r3 = r + 3 * ld, *restrict r4 = r + 4 * ld, *restrict r5 = r + 5 * ld, \
             *restrict r6 = r + 6 * ld, *restrict r7 = r + 7 * ld
#define LA_SUB8(t, a) \
  t -= LA_MUL(a##0, r0[j]); t -= LA_MUL(a##1, r1[j]); t -= LA_MUL(a##2, r2[j]); \
  t -= LA_MUL(a##3, r3[j]); t -= LA_MUL(a##4, r4[j]); t -= LA_MUL(a##5, r5[j]); \
  t -= LA_MUL(a##6, r6[j]); t -= LA_MUL(a##7, r7[j])
/* x[0..m) -= c[0] r[0..m) + c[cs] r[ld..ld+m) + ... over b rows of r (ld apart), subtracted
   in row order as b rank-1 updates would: one pass over x per LA_NB rows, a contiguous
   loop gcc vectorizes (x is no row of r) */
static void LA_NAME(update)(long m, LA_T *restrict x, const LA_T *restrict r, long ld,
                            const LA_T *c, long cs, long b) {
  for (; b >= LA_NB; b -= LA_NB, r += LA_NB * ld, c += LA_NB * cs) {
    LA_COEFS(a, c);
    LA_ROWS;
    for (long j = 0; j < m; j++) {
      LA_T t = x[j];
      LA_SUB8(t, a);
      x[j] = t;
    }
  }
  for (long p = 0; p < b; p++) {
    const LA_T f = c[p * cs];
    const LA_T *restrict rp = r + p * ld;
    for (long j = 0; j < m; j++) x[j] -= LA_MUL(f, rp[j]);
  }
}
/* update() by exactly LA_NB rows of r on two rows of x at once, so each load of r serves both */
static void LA_NAME(update2)(long m, LA_T *restrict x0, LA_T *restrict x1, const LA_T *restrict r,
                             long ld, const LA_T *c0, const LA_T *c1, long cs) {
  LA_COEFS(a, c0);
  LA_COEFS(e, c1);
  LA_ROWS;
  for (long j = 0; j < m; j++) {
    LA_T t = x0[j], u = x1[j];
    LA_SUB8(t, a);
    LA_SUB8(u, e);
    x0[j] = t;
    x1[j] = u;
  }
}
#undef LA_COEFS
#undef LA_ROWS
#undef LA_SUB8
/* update() of rows i < rows of x (ldx apart; row i from column i on when tri, else from 0;
   m columns in all) by the same LA_NB rows of r, with coefficients c[i * ldc + p * cs]: in
   column tiles of LA_JT, so the tile of r stays in the L1 cache while all rows pass. (A
   last panel narrower than LA_NB has no rows below it, or above it for back substitution.) */
static void LA_NAME(update_rows)(long rows, long m, int tri, LA_T *x, long ldx, const LA_T *r,
                                 long ld, const LA_T *c, long ldc, long cs) {
  for (long j0 = 0; j0 < m; j0 += LA_JT) {
    long j1 = j0 + LA_JT < m ? j0 + LA_JT : m;
    for (long i = 0; i < rows && (!tri || i < j1); i += 2) {
      long s = tri && i > j0 ? i : j0;
      if (i + 1 == rows) {
        LA_NAME(update)(j1 - s, &x[i * ldx + s], &r[s], ld, &c[i * ldc], cs, LA_NB);
        break;
      }
      if (tri && i >= j0) {
        LA_NAME(update)(1, &x[i * ldx + i], &r[i], ld, &c[i * ldc], cs, LA_NB);
        s = i + 1;
      }
      LA_NAME(update2)(j1 - s, &x[i * ldx + s], &x[(i + 1) * ldx + s], &r[s], ld, &c[i * ldc],
                       &c[(i + 1) * ldc], cs);
    }
  }
}
#ifndef LA_COMPLEX
/* y[j ldy + i] = x[i ldx + j] for i < rows, j < cols: by 8 x 8 tiles, as a column's elements
   ldx apart conflict in the caches when ldx is a power of 2 */
static void LA_NAME(transpose)(long rows, long cols, const LA_T *x, long ldx, LA_T *y, long ldy) {
  for (long i0 = 0; i0 < rows; i0 += 8)
    for (long j0 = 0; j0 < cols; j0 += 8)
      for (long i = i0; i < i0 + 8 && i < rows; i++)
        for (long j = j0; j < j0 + 8 && j < cols; j++) y[j * ldy + i] = x[i * ldx + j];
}
/* u (b x b, ld apart) = U, the upper Cholesky factor of its upper triangle (U^T U), in
   place: right-looking, LA_NB rows at a time, every update a row operation; 0 unless
   positive-definite (then u is left half done) */
static int LA_NAME(potf2)(long b, LA_T *u, long ld) {
  for (long k0 = 0; k0 < b; k0 += LA_NB) {
    long k1 = k0 + LA_NB < b ? k0 + LA_NB : b;
    for (long k = k0; k < k1; k++) {
      LA_T d = u[k * ld + k];
      if (!(d > 0)) return 0;
      d = LA_SQRT(d);
      u[k * ld + k] = d;
      LA_NAME(scale)(b - k - 1, &u[k * ld + k + 1], 1, d);
      for (long i = k + 1; i < k1; i++)
        LA_NAME(update)(b - i, &u[i * ld + i], &u[k * ld + i], ld, &u[k * ld + i], ld, 1);
    }
    if (k1 < b) /* (not even a pointer past the end) */
      LA_NAME(update_rows)(b - k1, b - k1, 1, &u[k1 * ld + k1], ld, &u[k0 * ld + k1], ld, &u[k0 * ld + k1], 1, ld);
  }
  return 1;
}
/* x (b rows of m, ld apart) = T^-1 x for T lower triangular, T(r, q) = c[q cq + r cr], its
   diagonal 1 when unit: row q scaled by 1 / T(q, q) (unless unit), then subtracted, times
   T(r, q), from each row r below it; LA_NB rows at a time. With T = U^T (c = u, cq = ld of U,
   cr = 1) the solve potf2 does right of U; with T = L (cq = 1, cr = n) LU's rows of U */
static void LA_NAME(solve_lower)(long b, long m, const LA_T *c, long cq, long cr, int unit, LA_T *x, long ld) {
  for (long q0 = 0; q0 < b; q0 += LA_NB) {
    long q1 = q0 + LA_NB < b ? q0 + LA_NB : b;
    for (long q = q0; q < q1; q++) {
      if (!unit) LA_NAME(scale)(m, &x[q * ld], 1, c[q * cq + q * cr]);
      for (long r = q + 1; r < q1; r++) LA_NAME(update)(m, &x[r * ld], &x[q * ld], ld, &c[q * cq + r * cr], cq, 1);
    }
    if (q1 < b) LA_NAME(update_rows)(b - q1, m, 0, &x[q1 * ld], ld, &x[q0 * ld], ld, &c[q0 * cq + q1 * cr], cr, cq);
  }
}
/* C (rows x N, ldc apart) -= A (rows x K, lda apart) @ B (K x N, ldb apart), or only its
   part on and below the diagonal when lower; K <= LA_CB, the GEMM's one slice. B is packed
   (its panels shared among up to `threads` threads), then the GEMM's row blocks are shared
   from the bottom: a triangle's longest rows first, in small blocks that even out */
static void LA_NAME(gemm_sub)(long rows, long N, long K, const LA_T *A, long lda, const LA_T *B, long ldb, LA_T *C,
                              long ldc, int lower, int threads) {
  LA_T *bp = LA_GEMM(b_buffer)(LA_GEMM(packed_b_size)(K, N));
  const long small = 8 * LA_GEMM(MR);
  const long blocks = lower && threads > 1 ? (rows + small - 1) / small : LA_GEMM(blocks)(rows, N, threads);
#ifdef _OPENMP /* threads from 2^22 multiply-adds (a triangle's twice), twice the GEMM's threshold */
#pragma omp parallel num_threads(threads) if (threads > 1 && (double)rows * N * K >= (double)(1 << 22))
#endif
  {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (long p = 0; p < LA_GEMM(panels)(N); p++) LA_GEMM(pack_b)(K, N, B, ldb, 1, bp, p, p + 1);
    LA_T *ap = LA_GEMM(a_buffer)();
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (long q = 0; q < blocks; q++) {
      long i0 = LA_GEMM(block_begin)(blocks - 1 - q, rows, blocks), i1 = LA_GEMM(block_begin)(blocks - q, rows, blocks);
      LA_GEMM(sub_rows)(i0, i1, N, K, A, lda, 1, bp, ap, C, ldc, lower);
    }
  }
}
/* l = the lower Cholesky factor of a (n x n, its lower triangle read); all NaN unless a is
   positive-definite. Blocked, right-looking, LA_CB columns at a time: the block column below
   the diagonal, transposed into w (so its LA_CB rows are long and contiguous), is factored
   (potf2 on the diagonal block, solve_lower right of it) and copied back; the trailing lower
   triangle is then updated by the GEMM's micro-kernel (sub_rows), which holds almost all
   the arithmetic. Up to `threads` threads share the columns of the solve and the row blocks
   of the update */
static void LA_NAME(cholesky)(long n, const LA_T *a, LA_T *l, int threads) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) l[i * n + j] = j <= i ? a[i * n + j] : 0;
  LA_T *w = (LA_T *)kiln_alloc((int64_t)sizeof(LA_T) * LA_CB * n);
  for (long k0 = 0; k0 < n; k0 += LA_CB) {
    long k1 = k0 + LA_CB < n ? k0 + LA_CB : n, b = k1 - k0, m = n - k1, ldw = n - k0;
    LA_NAME(transpose)(ldw, b, &l[k0 * n + k0], n, w, ldw);
    if (!LA_NAME(potf2)(b, w, ldw)) {
      free(w);
      LA_NAME(nan_fill)(n * n, l);
      return;
    }
    LA_NAME(transpose)(b, b, w, ldw, &l[k0 * n + k0], n);
    if (m == 0) break;
#ifdef _OPENMP /* threads from two column tiles on */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && m > LA_JT)
#endif
    for (long c0 = 0; c0 < m; c0 += LA_JT) {
      long c = c0 + LA_JT < m ? LA_JT : m - c0;
      LA_NAME(solve_lower)(b, c, w, ldw, 1, 0, &w[b + c0], ldw);
      LA_NAME(transpose)(b, c, &w[b + c0], ldw, &l[(k1 + c0) * n + k0], n);
    }
    LA_NAME(gemm_sub)(m, m, b, &l[k1 * n + k0], n, &w[b], ldw, &l[k1 * n + k1], n, 1, threads);
  }
  free(w);
}
#endif
#ifndef LA_COMPLEX
/* the rest of LU's block of columns [k0, k1) once its panel is factored: the rows of U right
   of it (solve_lower by L11, by column tiles, shared among up to `threads` threads), then the
   trailing matrix less L21 U12 (gemm_sub) */
static void LA_NAME(lu_block)(long n, LA_T *lu, long k0, long k1, int threads) {
  const long b = k1 - k0, m = n - k1;
#ifdef _OPENMP /* threads from two column tiles on */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && m > LA_JT)
#endif
  for (long c0 = 0; c0 < m; c0 += LA_JT) {
    long c = c0 + LA_JT < m ? LA_JT : m - c0;
    LA_NAME(solve_lower)(b, c, &lu[k0 * n + k0], 1, n, 1, &lu[k0 * n + k1 + c0], n);
  }
  LA_NAME(gemm_sub)(m, m, b, &lu[k1 * n + k0], n, &lu[k0 * n + k1], n, &lu[k1 * n + k1], n, 0, threads);
}
#endif
/* lu = a's LU factors in place (unit lower, upper), piv = row swaps; the sign of the
   permutation, or 0 when a pivot is exactly zero (a NaN one goes on, as in LAPACK, so
   det of a matrix with a NaN is NaN, not 0). Right-looking by blocks of LA_CB columns (one
   block, the whole matrix, for complex types: kiln has no complex GEMM), each factored
   LA_NB columns at a time: the panel is copied out by columns (its column operations then
   run over contiguous memory, not down rows n apart, which conflict in the caches when n is
   a power of 2) and factored, its row swaps applied to whole rows, then the block's rows right
   of it and below it are updated by its LA_NB rows of U at once (the same operations in the
   same order as one rank-1 update per column); then lu_block updates the rest */
static int LA_NAME(lu)(long n, LA_T *lu, long *piv, int threads) {
  LA_T *pan = (LA_T *)kiln_alloc((int64_t)sizeof(LA_T) * n * LA_NB);
  int sign = 1;
#ifdef LA_COMPLEX
  const long cb = n;
  (void)threads;
#else
  const long cb = LA_CB;
#endif
  for (long e0 = 0; e0 < n; e0 += cb) {
    const long e1 = e0 + cb < n ? e0 + cb : n; /* the block's columns [e0, e1) */
    for (long k0 = e0; k0 < e1; k0 += LA_NB) {
      long k1 = k0 + LA_NB < e1 ? k0 + LA_NB : e1, b = k1 - k0, h = n - k0;
      for (long i = 0; i < h; i++)
        for (long c = 0; c < b; c++) pan[c * h + i] = lu[(k0 + i) * n + k0 + c];
      for (long c = 0; c < b; c++) {
        LA_T *col = &pan[c * h];
        long p = c;
        LA_R best = LA_ABS1(col[c]);
        for (long i = c + 1; i < h; i++) {
          LA_R v = LA_ABS1(col[i]);
          if (v > best) { best = v; p = i; }
        }
        piv[k0 + c] = k0 + p;
        if (best == 0) { free(pan); return 0; }
        if (p != c) {
          sign = -sign;
          LA_NAME(swap)(b, &pan[c], h, &pan[p], h);
          LA_NAME(swap)(k0, &lu[(k0 + c) * n], 1, &lu[(k0 + p) * n], 1);
          LA_NAME(swap)(n - k1, &lu[(k0 + c) * n + k1], 1, &lu[(k0 + p) * n + k1], 1);
        }
        LA_NAME(scale)(h - c - 1, &col[c + 1], 1, col[c]);
        for (long d = c + 1; d < b; d++)
          LA_NAME(update)(h - c - 1, &pan[d * h + c + 1], &col[c + 1], 0, &pan[d * h + c], 0, 1);
      }
      for (long i = 0; i < h; i++)
        for (long c = 0; c < b; c++) lu[(k0 + i) * n + k0 + c] = pan[c * h + i];
      for (long i = k0 + 1; i < k1; i++)
        LA_NAME(update)(e1 - k1, &lu[i * n + k1], &lu[k0 * n + k1], n, &lu[i * n + k0], 1, i - k0);
      if (k1 < e1)
        LA_NAME(update_rows)(n - k1, e1 - k1, 0, &lu[k1 * n + k1], n, &lu[k0 * n + k1], n, &lu[k1 * n + k0], n, 1);
    }
#ifndef LA_COMPLEX
    if (e1 < n) LA_NAME(lu_block)(n, lu, e0, e1, threads);
#endif
  }
  free(pan);
  return sign;
}
/* Columns [c0, c1) of x (n x m, LU's row swaps applied) substituted forward by L and back by U,
   in blocks of cb rows (cb < n: the other rows' updates on the GEMM, threads among its tiles).
   Each column of x is its own problem: any split of the columns gives the same values. inv:
   x starts as the identity, so the forward pass stops at column k1 of row block k0 (the
   zeros of L^-1's row i past column i). */
static void LA_NAME(substitute)(long n, long m, long c0, long c1, const LA_T *lu, LA_T *x, int inv, long cb,
                                int threads) {
  const long cw = c1 - c0;
  (void)threads;
  for (long e0 = 0; e0 < n; e0 += cb) { /* forward, by L: blocks of cb rows of x */
    const long e1 = e0 + cb < n ? e0 + cb : n;
    for (long k0 = e0; k0 < e1; k0 += LA_NB) {
      const long k1 = k0 + LA_NB < e1 ? k0 + LA_NB : e1, w = (inv && k1 < c1 ? k1 : c1) - c0;
      if (w <= 0) continue;
      for (long i = k0 + 1; i < k1; i++) LA_NAME(update)(w, &x[i * m + c0], &x[k0 * m + c0], m, &lu[i * n + k0], 1, i - k0);
      if (k1 < e1) LA_NAME(update_rows)(e1 - k1, w, 0, &x[k1 * m + c0], m, &x[k0 * m + c0], m, &lu[k1 * n + k0], n, 1);
    }
#ifndef LA_COMPLEX
    const long w = (inv && e1 < c1 ? e1 : c1) - c0;
    if (e1 < n && w > 0)
      LA_NAME(gemm_sub)(n - e1, w, e1 - e0, &lu[e1 * n + e0], n, &x[e0 * m + c0], m, &x[e1 * m + c0], m, 0, threads);
#endif
  }
  for (long e1 = n; e1 > 0; e1 -= cb) { /* back, by U */
    const long e0 = e1 - cb > 0 ? e1 - cb : 0;
    for (long k1 = e1; k1 > e0; k1 -= LA_NB) {
      long k0 = k1 - LA_NB > e0 ? k1 - LA_NB : e0;
      for (long i = k1 - 1; i >= k0; i--) {
        LA_NAME(update)(cw, &x[i * m + c0], &x[(i + 1) * m + c0], m, &lu[i * n + i + 1], 1, k1 - i - 1);
        LA_NAME(scale)(cw, &x[i * m + c0], 1, lu[i * n + i]);
      }
      LA_NAME(update_rows)(k0 - e0, cw, 0, &x[e0 * m + c0], m, &x[k0 * m + c0], m, &lu[e0 * n + k0], n, 1);
    }
#ifndef LA_COMPLEX
    if (e0 > 0) LA_NAME(gemm_sub)(e0, cw, e1 - e0, &lu[e0], n, &x[e0 * m + c0], m, &x[c0], m, 0, threads);
#endif
  }
}
/* x (n x m) = a^-1 b, b given, or the identity when b is NULL (inv); all NaN if a is
   singular. Both substitutions update whole rows of x. inv, like LAPACK's getri, inverts
   L U and then undoes the row swaps on the columns, so it needs no forward substitution
   through the zeros of the identity: (L^-1)'s row i ends at column i */
static void LA_NAME(solve)(long n, long m, const LA_T *a, const LA_T *b, LA_T *x, int threads) {
  LA_T *lu = (LA_T *)kiln_alloc((int64_t)sizeof(LA_T) * n * n);
  long *piv = (long *)malloc(sizeof(long) * (size_t)(n + 1));
  memcpy(lu, a, sizeof(LA_T) * (size_t)(n * n));
  if (LA_NAME(lu)(n, lu, piv, threads) == 0) {
    LA_NAME(nan_fill)(n * m, x);
  } else {
    for (long i = 0; i < n * m; i++) x[i] = b ? b[i] : (LA_T)(i / m == i % m);
    for (long k = 0; b && k < n; k++) LA_NAME(swap)(m, &x[k * m], 1, &x[piv[k] * m], 1);
#ifdef LA_COMPLEX
    /* no complex GEMM (one block, the rank-LA_NB updates throughout) to share among threads: x's
       columns are, in runs of whole vectors, from 2^20 multiply-adds on (NPBench's contour_integral,
       200 x 200 \ 200 x 400, ran on one thread while NumPy's zgesv ran on two) */
    const int parts = threads > 1 && m >= 16 && (double)n * n * m >= (double)(1 << 20) ? threads : 1;
#ifdef _OPENMP
#pragma omp parallel for num_threads(parts) if (parts > 1)
#endif
    for (int t = 0; t < parts; t++) {
      const long c0 = m * t / parts / 8 * 8, c1 = t + 1 == parts ? m : m * (t + 1) / parts / 8 * 8;
      LA_NAME(substitute)(n, m, c0, c1, lu, x, !b, n, 1);
    }
#else /* blocks, their updates of the other rows on the GEMM, unless x is too narrow for its tiles */
    LA_NAME(substitute)(n, m, 0, m, lu, x, !b, m >= LA_GEMM(NR) ? LA_CB : n, threads);
#endif
    for (long i = 0; !b && i < n; i++)
      for (long k = n - 1; k >= 0; k--) LA_NAME(swap)(1, &x[i * m + k], 1, &x[i * m + piv[k]], 1);
  }
  free(piv);
  free(lu);
}
static LA_T LA_NAME(det)(long n, const LA_T *a, int threads) {
  LA_T *lu = (LA_T *)kiln_alloc((int64_t)sizeof(LA_T) * n * n);
  long *piv = (long *)malloc(sizeof(long) * (size_t)(n + 1));
  memcpy(lu, a, sizeof(LA_T) * (size_t)(n * n));
  int sign = LA_NAME(lu)(n, lu, piv, threads);
  LA_T d = (LA_T)sign;
  for (long i = 0; sign != 0 && i < n; i++) d *= lu[i * n + i];
  free(piv);
  free(lu);
  return d;
}
#undef LA_MUL
#undef LA_ABS1
#undef LA_NB
#undef LA_JT
#undef LA_CB
"""


def _routines(ctype: str, suffix: str, sqrt: str, fabs: str, real: str, real_min: str) -> str:
    """_SOURCE for one element type: the LA_ macros defined around it, then undefined."""
    macros = {"LA_T": ctype, "LA_R": real, "LA_NAME(x)": f"kiln_linalg_{suffix}_##x", "LA_SQRT": sqrt,
              "LA_ABS": fabs, "LA_RMIN": real_min, "LA_GEMM(x)": f"kiln_gemm_{suffix}_##x"}
    prologue = ""
    if "_Complex" in ctype:  # cabs declared, not <complex.h>: it defines I
        prologue = f"{real} {fabs}({ctype});\n"
        macros = {"LA_COMPLEX": "", "LA_FABS": "fabsf" if real == "float" else "fabs", **macros}
    defines = "".join(f"#define {name} {value}".rstrip() + "\n" for name, value in macros.items())
    undefines = "".join(f"#undef {name.removesuffix('(x)')}\n" for name in macros)
    return prologue + defines + _SOURCE + undefines


_FLT_MIN, _DBL_MIN = "1.17549435082228750797e-38f", "2.22507385850720138309e-308"  # without <float.h>

#: C element type -> its routines (complex ones pivot on |re| + |im|; cholesky is never called on them)
_HELPER_OF = {
    "float": "kiln_linalg_f32",
    "double": "kiln_linalg_f64",
    "float _Complex": "kiln_linalg_c64",
    "double _Complex": "kiln_linalg_c128",
}
_GEMM_OF = {"float": "kiln_gemm_f32", "double": "kiln_gemm_f64"}
HELPERS.update(
    {
        "kiln_linalg_f32": _routines("float", "f32", "sqrtf", "fabsf", "float", _FLT_MIN),
        "kiln_linalg_f64": _routines("double", "f64", "sqrt", "fabs", "double", _DBL_MIN),
        "kiln_linalg_c64": _routines("float _Complex", "c64", "csqrtf", "cabsf", "float", _FLT_MIN),
        "kiln_linalg_c128": _routines("double _Complex", "c128", "csqrt", "cabs", "double", _DBL_MIN),
    }
)


@handles(kernel.LinalgOp)
def _linalg(em: FunctionEmitter, op: kernel.LinalgOp) -> None:
    ins = [em.memref(v) for v in op.ins]
    out = em.memref(op.out)
    if out.elem not in _HELPER_OF or (op.kind.data == "cholesky" and "_Complex" in out.elem):
        raise CEmitError(f"kernel.linalg: no C routine for {op.kind.data!r} on element type {out.elem}")
    prefix = em.use_helper(_HELPER_OF[out.elem])
    em.use_helper("kiln_alloc")  # their scratch: huge pages from 4 MiB
    if "_Complex" not in out.elem:  # the real routines' blocked updates run on the GEMM
        em.use_helper(_GEMM_OF[out.elem])
    a, out_ptr = ins[0], _pointer(out)
    n = a.sizes[0]
    kind = op.kind.data
    threads = f"{em.use_helper('kiln_num_threads')}()"
    if kind == "cholesky":
        em.line(f"{prefix}_cholesky({n}, {_pointer(a)}, {out_ptr}, {threads});")
    elif kind == "inv":
        em.line(f"{prefix}_solve({n}, {n}, {_pointer(a)}, NULL, {out_ptr}, {threads});")
    elif kind == "solve":
        b = ins[1]
        m = b.sizes[1] if len(b.sizes) == 2 else 1
        em.line(f"{prefix}_solve({n}, {m}, {_pointer(a)}, {_pointer(b)}, {out_ptr}, {threads});")
    elif kind == "det":
        em.line(f"*({out_ptr}) = {prefix}_det({n}, {_pointer(a)}, {threads});")
    else:
        raise CEmitError(f"kernel.linalg: unknown kind {kind!r}")


def _pointer(desc: MemrefDesc) -> str:
    """A pointer to the first element (a promoted one-element local is a plain C scalar)."""
    return f"&{desc.ptr}" if desc.scalar else desc.ptr
