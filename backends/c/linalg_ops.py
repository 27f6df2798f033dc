"""C for ``kernel.linalg``: NumPy's dense linear algebra as cache-friendly loop nests.

* ``cholesky``: right-looking, on U = L^T held in the output (the lower triangle of ``a``
  transposed in, U transposed out in place), so every update is a row operation.
* ``solve``/``inv``/``det``: LU with partial pivoting (row swaps), right-looking on a copy of
  ``a``; ``solve`` substitutes forward and back through whole rows of the right-hand side;
  ``inv`` inverts L U without the forward work on the identity's zeros and undoes the swaps
  on the columns (as LAPACK's getri); ``det`` is the signed product of the pivots.

Why so: the work is in updates ``x[i, :] -= sum_p c[p] * r[p, :]``. As contiguous row
operations they are loops gcc vectorizes without reassociating a sum (kiln keeps
-ffp-contract=off and IEEE order; a dot-product inner loop would stay scalar), and each one
subtracts LA_NB (8) rows at once, so a trailing matrix is read and written once per 8
columns instead of once per column. The subtractions happen in the order of one rank-1
update per column, so blocking changes no rounding. Scaling by a pivot multiplies by its
reciprocal, as LAPACK does (dividing below the smallest normal number). Results match
NumPy's to rounding, not bit for bit. NumPy raises ``LinAlgError`` where kiln cannot: a
matrix that is not positive-definite (cholesky) or exactly singular (solve, inv) gives an
all-NaN result; ``det`` of a singular matrix is 0, as in NumPy.
One routine source serves float, double and their complex types (``LA_T``; ``LA_R`` the
real type of a pivot's modulus), so another element type is one more instantiation. Complex
products in the loops are written out on the parts (C's ``*`` checks for NaN and calls
``__muldc3``, which gcc cannot vectorize), as LAPACK's are: results agree with NumPy's to
rounding.
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
#else
#define LA_MUL(a, b) ((a) * (b))
#endif
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
/* x[0..m) -= c[0] r[0..m) + c[cs] r[ld..ld+m) + ... over b rows of r (ld apart), subtracted
   in row order as b rank-1 updates would: one pass over x per LA_NB rows, a contiguous
   loop gcc vectorizes (x is no row of r) */
static void LA_NAME(update)(long m, LA_T *restrict x, const LA_T *restrict r, long ld,
                            const LA_T *c, long cs, long b) {
  for (; b >= LA_NB; b -= LA_NB, r += LA_NB * ld, c += LA_NB * cs) {
    const LA_T c0 = c[0], c1 = c[cs], c2 = c[2 * cs], c3 = c[3 * cs];
    const LA_T c4 = c[4 * cs], c5 = c[5 * cs], c6 = c[6 * cs], c7 = c[7 * cs];
    const LA_T *restrict r0 = r, *restrict r1 = r + ld, *restrict r2 = r + 2 * ld;
    const LA_T *restrict r3 = r + 3 * ld, *restrict r4 = r + 4 * ld, *restrict r5 = r + 5 * ld;
    const LA_T *restrict r6 = r + 6 * ld, *restrict r7 = r + 7 * ld;
    for (long j = 0; j < m; j++) {
      LA_T t = x[j];
      t -= LA_MUL(c0, r0[j]);
      t -= LA_MUL(c1, r1[j]);
      t -= LA_MUL(c2, r2[j]);
      t -= LA_MUL(c3, r3[j]);
      t -= LA_MUL(c4, r4[j]);
      t -= LA_MUL(c5, r5[j]);
      t -= LA_MUL(c6, r6[j]);
      t -= LA_MUL(c7, r7[j]);
      x[j] = t;
    }
  }
  for (long p = 0; p < b; p++) {
    const LA_T f = c[p * cs];
    const LA_T *restrict rp = r + p * ld;
    for (long j = 0; j < m; j++) x[j] -= LA_MUL(f, rp[j]);
  }
}
#ifndef LA_COMPLEX
/* l = the lower Cholesky factor of a (n x n, its lower triangle read); all NaN unless a is
   positive-definite. l holds U = L^T while it is computed (right-looking, LA_NB rows at a
   time) so every update is a contiguous row operation, then is transposed in place */
static void LA_NAME(cholesky)(long n, const LA_T *a, LA_T *l) {
  for (long i = 0; i < n; i++)
    for (long j = i; j < n; j++) l[i * n + j] = a[j * n + i];
  for (long k0 = 0; k0 < n; k0 += LA_NB) {
    long k1 = k0 + LA_NB < n ? k0 + LA_NB : n;
    for (long k = k0; k < k1; k++) {
      LA_T d = l[k * n + k];
      if (!(d > 0)) { LA_NAME(nan_fill)(n * n, l); return; }
      d = LA_SQRT(d);
      l[k * n + k] = d;
      LA_NAME(scale)(n - k - 1, &l[k * n + k + 1], 1, d);
      for (long i = k + 1; i < k1; i++)
        LA_NAME(update)(n - i, &l[i * n + i], &l[k * n + i], n, &l[k * n + i], n, 1);
    }
    for (long i = k1; i < n; i++)
      LA_NAME(update)(n - i, &l[i * n + i], &l[k0 * n + i], n, &l[k0 * n + i], n, k1 - k0);
  }
  for (long i = 0; i < n; i++)
    for (long j = 0; j < i; j++) { l[i * n + j] = l[j * n + i]; l[j * n + i] = 0; }
}
#endif
/* lu = a's LU factors in place (unit lower, upper), piv = row swaps; the sign of the
   permutation, or 0 when a pivot is exactly zero. Right-looking, LA_NB columns at a time:
   a panel is factored, then the rows right of it and below it are updated by LA_NB rows
   of U at once; the same operations in the same order as one rank-1 update per column */
static int LA_NAME(lu)(long n, LA_T *lu, long *piv) {
  int sign = 1;
  for (long k0 = 0; k0 < n; k0 += LA_NB) {
    long k1 = k0 + LA_NB < n ? k0 + LA_NB : n;
    for (long k = k0; k < k1; k++) {
      long p = k;
      LA_R best = LA_ABS(lu[k * n + k]);
      for (long i = k + 1; i < n; i++) {
        LA_R v = LA_ABS(lu[i * n + k]);
        if (v > best) { best = v; p = i; }
      }
      piv[k] = p;
      if (!(best > 0)) return 0;
      if (p != k) {
        sign = -sign;
        for (long j = 0; j < n; j++) {
          LA_T t = lu[k * n + j]; lu[k * n + j] = lu[p * n + j]; lu[p * n + j] = t;
        }
      }
      LA_NAME(scale)(n - k - 1, &lu[(k + 1) * n + k], n, lu[k * n + k]);
      for (long i = k + 1; i < n; i++) {
        const LA_T f = lu[i * n + k];
        for (long j = k + 1; j < k1; j++) lu[i * n + j] -= LA_MUL(f, lu[k * n + j]);
      }
    }
    for (long i = k0 + 1; i < k1; i++)
      LA_NAME(update)(n - k1, &lu[i * n + k1], &lu[k0 * n + k1], n, &lu[i * n + k0], 1, i - k0);
    for (long i = k1; i < n; i++)
      LA_NAME(update)(n - k1, &lu[i * n + k1], &lu[k0 * n + k1], n, &lu[i * n + k0], 1, k1 - k0);
  }
  return sign;
}
/* x (n x m) = a^-1 b, b given, or the identity when b is NULL (inv); all NaN if a is
   singular. Both substitutions update whole rows of x. inv, like LAPACK's getri, inverts
   L U and then undoes the row swaps on the columns, so it needs no forward substitution
   through the zeros of the identity: (L^-1)'s row i ends at column i */
static void LA_NAME(solve)(long n, long m, const LA_T *a, const LA_T *b, LA_T *x) {
  LA_T *lu = (LA_T *)malloc(sizeof(LA_T) * (size_t)(n * n + 1));
  long *piv = (long *)malloc(sizeof(long) * (size_t)(n + 1));
  memcpy(lu, a, sizeof(LA_T) * (size_t)(n * n));
  if (LA_NAME(lu)(n, lu, piv) == 0) {
    LA_NAME(nan_fill)(n * m, x);
  } else {
    for (long i = 0; i < n * m; i++) x[i] = b ? b[i] : (LA_T)(i / m == i % m);
    for (long k = 0; b && k < n; k++) {
      if (piv[k] != k) {
        for (long j = 0; j < m; j++) {
          LA_T t = x[k * m + j]; x[k * m + j] = x[piv[k] * m + j]; x[piv[k] * m + j] = t;
        }
      }
    }
    for (long i = 1; i < n; i++)
      LA_NAME(update)(b ? m : i, &x[i * m], x, m, &lu[i * n], 1, i);
    for (long i = n - 1; i >= 0; i--) {
      LA_NAME(update)(m, &x[i * m], &x[(i + 1) * m], m, &lu[i * n + i + 1], 1, n - i - 1);
      LA_NAME(scale)(m, &x[i * m], 1, lu[i * n + i]);
    }
    for (long k = n - 1; !b && k >= 0; k--) {
      if (piv[k] != k) {
        for (long i = 0; i < n; i++) {
          LA_T t = x[i * m + k]; x[i * m + k] = x[i * m + piv[k]]; x[i * m + piv[k]] = t;
        }
      }
    }
  }
  free(piv);
  free(lu);
}
static LA_T LA_NAME(det)(long n, const LA_T *a) {
  LA_T *lu = (LA_T *)malloc(sizeof(LA_T) * (size_t)(n * n + 1));
  long *piv = (long *)malloc(sizeof(long) * (size_t)(n + 1));
  memcpy(lu, a, sizeof(LA_T) * (size_t)(n * n));
  int sign = LA_NAME(lu)(n, lu, piv);
  LA_T d = (LA_T)sign;
  for (long i = 0; sign != 0 && i < n; i++) d *= lu[i * n + i];
  free(piv);
  free(lu);
  return d;
}
#undef LA_MUL
#undef LA_NB
"""


def _routines(ctype: str, suffix: str, sqrt: str, fabs: str, real: str, real_min: str) -> str:
    complex_ = "_Complex" in ctype
    prologue = f"{real} {fabs}({ctype});\n#define LA_COMPLEX\n" if complex_ else ""  # not <complex.h>: it defines I
    return (
        f"{prologue}#define LA_T {ctype}\n#define LA_R {real}\n#define LA_NAME(x) kiln_linalg_{suffix}_##x\n"
        f"#define LA_SQRT {sqrt}\n#define LA_ABS {fabs}\n#define LA_RMIN {real_min}\n{_SOURCE}#undef LA_T\n#undef LA_R\n"
        f"#undef LA_NAME\n#undef LA_SQRT\n#undef LA_ABS\n#undef LA_RMIN\n{'#undef LA_COMPLEX' + chr(10) if complex_ else ''}"
    )


_FLT_MIN, _DBL_MIN = "1.17549435082228750797e-38f", "2.22507385850720138309e-308"  # without <float.h>

#: C element type -> its routines (complex ones pivot on the modulus; cholesky is never called on them)
_HELPER_OF = {
    "float": "kiln_linalg_f32",
    "double": "kiln_linalg_f64",
    "float _Complex": "kiln_linalg_c64",
    "double _Complex": "kiln_linalg_c128",
}
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
    a, out_ptr = ins[0], _pointer(out)
    n = a.sizes[0]
    kind = op.kind.data
    if kind == "cholesky":
        em.line(f"{prefix}_cholesky({n}, {_pointer(a)}, {out_ptr});")
    elif kind == "inv":
        em.line(f"{prefix}_solve({n}, {n}, {_pointer(a)}, NULL, {out_ptr});")
    elif kind == "solve":
        b = ins[1]
        m = b.sizes[1] if len(b.sizes) == 2 else 1
        em.line(f"{prefix}_solve({n}, {m}, {_pointer(a)}, {_pointer(b)}, {out_ptr});")
    elif kind == "det":
        em.line(f"*({out_ptr}) = {prefix}_det({n}, {_pointer(a)});")
    else:
        raise CEmitError(f"kernel.linalg: unknown kind {kind!r}")


def _pointer(desc: MemrefDesc) -> str:
    """A pointer to the first element (a promoted one-element local is a plain C scalar)."""
    return f"&{desc.ptr}" if desc.scalar else desc.ptr
