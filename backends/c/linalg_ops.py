"""C for ``kernel.linalg``: NumPy's dense linear algebra as plain loop nests.

* ``cholesky``: Cholesky–Banachiewicz, row by row, lower factor, upper triangle zeroed.
* ``solve``/``inv``/``det``: LU with partial pivoting (Doolittle, row swaps) on a copy of ``a``;
  ``inv`` solves against the identity; ``det`` is the signed product of the pivots.

Sums run in the element type (like LAPACK's single/double routines) in a fixed order, so
results match NumPy's to rounding, not bit for bit. NumPy raises ``LinAlgError`` where
kiln cannot: a matrix that is not positive-definite (cholesky) or exactly singular
(solve, inv) gives an all-NaN result; ``det`` of a singular matrix is 0, as in NumPy.
One routine source serves float, double and their complex types (``LA_T``; ``LA_R`` the
real type of a pivot's modulus), so another element type is one more instantiation. Complex
products and quotients are C's (``_Complex``), as LAPACK's are its own: results agree with
NumPy's to rounding.
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
static void LA_NAME(nan_fill)(long n, LA_T *x) {
  for (long i = 0; i < n; i++) x[i] = (LA_T)NAN;
}
#ifndef LA_COMPLEX
/* l = the lower Cholesky factor of a (n x n); all NaN unless a is positive-definite */
static void LA_NAME(cholesky)(long n, const LA_T *a, LA_T *l) {
  for (long i = 0; i < n; i++) {
    for (long j = 0; j <= i; j++) {
      LA_T s = a[i * n + j];
      for (long k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k];
      if (i == j) {
        if (!(s > 0)) { LA_NAME(nan_fill)(n * n, l); return; }
        l[i * n + i] = LA_SQRT(s);
      } else {
        l[i * n + j] = s / l[j * n + j];
      }
    }
    for (long j = i + 1; j < n; j++) l[i * n + j] = 0;
  }
}
#endif
/* lu = a's LU factors in place (unit lower, upper), piv = row swaps; the sign of the
   permutation, or 0 when a pivot is exactly zero */
static int LA_NAME(lu)(long n, LA_T *lu, long *piv) {
  int sign = 1;
  for (long k = 0; k < n; k++) {
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
    for (long i = k + 1; i < n; i++) {
      LA_T f = lu[i * n + k] / lu[k * n + k];
      lu[i * n + k] = f;
      for (long j = k + 1; j < n; j++) lu[i * n + j] -= f * lu[k * n + j];
    }
  }
  return sign;
}
/* x (n x m) = a^-1 b, b given, or the identity when b is NULL (inv); all NaN if a is singular */
static void LA_NAME(solve)(long n, long m, const LA_T *a, const LA_T *b, LA_T *x) {
  LA_T *lu = (LA_T *)malloc(sizeof(LA_T) * (size_t)(n * n + 1));
  long *piv = (long *)malloc(sizeof(long) * (size_t)(n + 1));
  memcpy(lu, a, sizeof(LA_T) * (size_t)(n * n));
  if (LA_NAME(lu)(n, lu, piv) == 0) {
    LA_NAME(nan_fill)(n * m, x);
  } else {
    for (long i = 0; i < n * m; i++) x[i] = b ? b[i] : (LA_T)(i / m == i % m);
    for (long k = 0; k < n; k++) {
      if (piv[k] != k) {
        for (long j = 0; j < m; j++) {
          LA_T t = x[k * m + j]; x[k * m + j] = x[piv[k] * m + j]; x[piv[k] * m + j] = t;
        }
      }
    }
    for (long i = 0; i < n; i++)
      for (long k = 0; k < i; k++)
        for (long j = 0; j < m; j++) x[i * m + j] -= lu[i * n + k] * x[k * m + j];
    for (long i = n - 1; i >= 0; i--) {
      for (long k = i + 1; k < n; k++)
        for (long j = 0; j < m; j++) x[i * m + j] -= lu[i * n + k] * x[k * m + j];
      for (long j = 0; j < m; j++) x[i * m + j] /= lu[i * n + i];
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
"""


def _routines(ctype: str, suffix: str, sqrt: str, fabs: str, real: str) -> str:
    complex_ = "_Complex" in ctype
    prologue = f"{real} {fabs}({ctype});\n#define LA_COMPLEX\n" if complex_ else ""  # not <complex.h>: it defines I
    return (
        f"{prologue}#define LA_T {ctype}\n#define LA_R {real}\n#define LA_NAME(x) kiln_linalg_{suffix}_##x\n"
        f"#define LA_SQRT {sqrt}\n#define LA_ABS {fabs}\n{_SOURCE}#undef LA_T\n#undef LA_R\n#undef LA_NAME\n"
        f"#undef LA_SQRT\n#undef LA_ABS\n{'#undef LA_COMPLEX' + chr(10) if complex_ else ''}"
    )


#: C element type -> its routines (complex ones pivot on the modulus; cholesky is never called on them)
_HELPER_OF = {
    "float": "kiln_linalg_f32",
    "double": "kiln_linalg_f64",
    "float _Complex": "kiln_linalg_c64",
    "double _Complex": "kiln_linalg_c128",
}
HELPERS.update(
    {
        "kiln_linalg_f32": _routines("float", "f32", "sqrtf", "fabsf", "float"),
        "kiln_linalg_f64": _routines("double", "f64", "sqrt", "fabs", "double"),
        "kiln_linalg_c64": _routines("float _Complex", "c64", "csqrtf", "cabsf", "float"),
        "kiln_linalg_c128": _routines("double _Complex", "c128", "csqrt", "cabs", "double"),
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
