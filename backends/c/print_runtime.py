"""The C runtime of ``krt.print``: NumPy-style formatting and the ``kiln_write_hook`` sink.

Emitted once into a translation unit that prints (helpers.py lists it). The text of
one print is built in a growable buffer and handed to ``kiln_write_hook`` in one
call, so a print is never interleaved with other output. ``kiln_write_hook`` is an
exported global pointer, ``fwrite`` + ``fflush`` to stdout by default; kiln's
loader points it at Python's ``sys.stdout`` (docs/printing.md has the rules).
"""

from __future__ import annotations

from kiln.backends.c.parts import END, MAIN, guard

#: element kinds passed to ``kiln_fmt_value``, by C element type
KINDS: dict[str, int] = {
    "uint8_t": 0, "int8_t": 1, "int16_t": 2, "int32_t": 3, "int64_t": 4, "float": 5, "double": 6,
}

PRINT_RUNTIME = r"""#include <stdio.h>
typedef void (*kiln_write_fn)(const char *, size_t);
static void kiln_write_stdout(const char *s, size_t n) { fwrite(s, 1, n, stdout); fflush(stdout); }
""" + f"""{guard(MAIN)}
__attribute__((visibility("default"))) kiln_write_fn kiln_write_hook = kiln_write_stdout;
#else
extern kiln_write_fn kiln_write_hook;
{END}
""" + r"""
typedef struct { char *p; size_t n, cap; } kiln_buf;
static void kiln_put(kiln_buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n + 1) cap *= 2;
    b->p = (char *)realloc(b->p, cap);
    if (!b->p) abort();
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void kiln_puts(kiln_buf *b, const char *s) { kiln_put(b, s, strlen(s)); }
static void kiln_spaces(kiln_buf *b, long n) { for (; n > 0; n--) kiln_put(b, " ", 1); }
static void kiln_flush(kiln_buf *b) { kiln_write_hook(b->p ? b->p : "", b->n); free(b->p); }

/* Shortest decimal digits that read back as x (> 0 or 0, finite), as float when f32:
   digits without dot in d, returns their count; *e10 = exponent of the first digit.
   maxsig > 0 caps the digits (correctly rounded). */
static int kiln_digits(double x, int f32, int maxsig, char *d, int *e10) {
  char t[48];
  int top = f32 ? 9 : 17, p = 1;
  if (maxsig > 0 && maxsig < top) top = maxsig;
  for (; p <= top; p++) {
    snprintf(t, sizeof t, "%.*e", p - 1, x);
    if (f32 ? strtof(t, NULL) == (float)x : strtod(t, NULL) == x) break;
  }
  if (p > top) snprintf(t, sizeof t, "%.*e", top - 1, x);
  int n = 0;
  char *c = t;
  for (; *c && *c != 'e'; c++)
    if (*c >= '0' && *c <= '9') d[n++] = *c;
  *e10 = atoi(c + 1);
  while (n > 1 && d[n - 1] == '0') n--;
  d[n] = 0;
  return n;
}

/* |x| positionally, at most maxfrac fraction digits (-1: no limit), "1." style (no
   trailing zeros, the dot kept). Returns the length written to out. */
static int kiln_positional(double ax, int f32, int maxfrac, char *out) {
  char d[48];
  int e, n = kiln_digits(ax, f32, 0, d, &e), k = 0;
  int frac = n - 1 - e;
  if (maxfrac >= 0 && frac > maxfrac) {
    k = snprintf(out, 400, "%.*f", maxfrac, ax);
    while (out[k - 1] == '0') k--;
    out[k] = 0;
    return k;
  }
  if (e >= 0) {
    for (int i = 0; i <= e; i++) out[k++] = i < n ? d[i] : '0';
    out[k++] = '.';
    for (int i = e + 1; i < n; i++) out[k++] = d[i];
  } else {
    out[k++] = '0';
    out[k++] = '.';
    for (int i = 0; i < -e - 1; i++) out[k++] = '0';
    for (int i = 0; i < n; i++) out[k++] = d[i];
  }
  out[k] = 0;
  return k;
}

/* A float scalar as NumPy's str() prints it: positional from 1e-4 up to 1e16 (1e6 for
   float32), scientific outside, shortest round-trip digits either way. */
static void kiln_fmt_float(kiln_buf *b, double x, int f32) {
  char s[420], d[48];
  if (x != x) { kiln_puts(b, "nan"); return; }
  if (isinf(x)) { kiln_puts(b, x < 0 ? "-inf" : "inf"); return; }
  if (signbit(x)) kiln_puts(b, "-");
  double ax = fabs(x);
  if (ax == 0 || (ax >= 1e-4 && ax < (f32 ? 1e6 : 1e16))) {
    int k = kiln_positional(ax, f32, -1, s);
    kiln_put(b, s, (size_t)k);
    if (s[k - 1] == '.') kiln_puts(b, "0");
    return;
  }
  int e, n = kiln_digits(ax, f32, 0, d, &e);
  kiln_put(b, d, 1);
  if (n > 1) { kiln_puts(b, "."); kiln_put(b, d + 1, (size_t)(n - 1)); }
  snprintf(s, sizeof s, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
  kiln_puts(b, s);
}

static double kiln_get_f(const void *p, int kind, int64_t i) {
  return kind == 5 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}
static int64_t kiln_get_i(const void *p, int kind, int64_t i) {
  switch (kind) {
    case 0: return ((const uint8_t *)p)[i] != 0; /* booleans, stored as bytes */
    case 1: return ((const int8_t *)p)[i];
    case 2: return ((const int16_t *)p)[i];
    case 3: return ((const int32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
  }
}

/* Element strings of a float array, all of one width (NumPy's FloatingFormat, maxprec 8). */
static int kiln_float_words(const void *p, int kind, const int64_t *offs, int64_t count, char **tab) {
  int f32 = kind == 5, exp_mode = 0, any_nonfinite = 0, neg_inf = 0, have = 0;
  double mx = 0, mn = 0;
  for (int64_t i = 0; i < count; i++) {
    double v = kiln_get_f(p, kind, offs[i]), a = fabs(v);
    if (!isfinite(v)) { any_nonfinite = 1; if (v < 0) neg_inf = 1; continue; }
    if (a == 0) continue;
    if (!have || a > mx) mx = a;
    if (!have || a < mn) mn = a;
    have = 1;
  }
  if (have) exp_mode = mx >= 1e8 || mn < 1e-4 || mx / mn > 1000.0;
  int pad_left = 0, pad_right = 0, prec = 0, exp_size = 2;
  char d[48], s[420];
  for (int64_t i = 0; i < count; i++) {
    double v = kiln_get_f(p, kind, offs[i]);
    if (!isfinite(v)) continue;
    int neg = signbit(v) ? 1 : 0;
    if (exp_mode) {
      int e, n = kiln_digits(fabs(v), f32, 9, d, &e);
      if (n - 1 > prec) prec = n - 1;
      if (1 + neg > pad_left) pad_left = 1 + neg;
      int ed = snprintf(s, sizeof s, "%d", e < 0 ? -e : e);
      if (ed > exp_size) exp_size = ed;
    } else {
      int k = kiln_positional(fabs(v), f32, 8, s);
      int dot = (int)(strchr(s, '.') - s);
      if (dot + neg > pad_left) pad_left = dot + neg;
      if (k - dot - 1 > pad_right) pad_right = k - dot - 1;
    }
  }
  if (exp_mode) pad_right = exp_size + 2 + prec;
  if (any_nonfinite) {
    int off = pad_right + 1;
    if (3 - off > pad_left) pad_left = 3 - off;
    if (3 + neg_inf - off > pad_left) pad_left = 3 + neg_inf - off;
  }
  int w = pad_left + pad_right + 1;
  *tab = (char *)malloc((size_t)count * (size_t)(w + 1) + 1);
  if (!*tab) abort();
  for (int64_t i = 0; i < count; i++) {
    char *o = *tab + i * (w + 1);
    double v = kiln_get_f(p, kind, offs[i]);
    memset(o, ' ', (size_t)w);
    o[w] = 0;
    if (!isfinite(v)) {
      const char *t = v != v ? "nan" : v < 0 ? "-inf" : "inf";
      memcpy(o + w - strlen(t), t, strlen(t));
      continue;
    }
    int neg = signbit(v) ? 1 : 0, k = 0;
    if (exp_mode) {  /* every mantissa gets prec digits of the exact value (NumPy's min_digits) */
      char m[64];
      snprintf(m, sizeof m, "%#.*e", prec, fabs(v));
      char *ex = strchr(m, 'e');
      int e = atoi(ex + 1);
      if (neg) s[k++] = '-';
      memcpy(s + k, m, (size_t)(ex - m));
      k += (int)(ex - m);
      k += snprintf(s + k, sizeof s - (size_t)k, "e%c%0*d", e < 0 ? '-' : '+', exp_size, e < 0 ? -e : e);
      memcpy(o + pad_left - (1 + neg), s, (size_t)k);
    } else {
      if (neg) s[k++] = '-';
      k += kiln_positional(fabs(v), f32, 8, s + k);
      int dot = (int)(strchr(s, '.') - s);
      memcpy(o + pad_left - dot, s, (size_t)k);
    }
  }
  return w;
}

/* Element strings of an int or bool array: right-aligned to one width. */
static int kiln_int_words(const void *p, int kind, const int64_t *offs, int64_t count, char **tab) {
  char s[32];
  int w = 0;
  for (int64_t i = 0; i < count; i++) {
    int64_t v = kiln_get_i(p, kind, offs[i]);
    int k = kind == 0 ? 5 : snprintf(s, sizeof s, "%lld", (long long)v);
    if (k > w) w = k;
  }
  *tab = (char *)malloc((size_t)count * (size_t)(w + 1) + 1);
  if (!*tab) abort();
  for (int64_t i = 0; i < count; i++) {
    int64_t v = kiln_get_i(p, kind, offs[i]);
    if (kind == 0) snprintf(s, sizeof s, "%s", v ? "True" : "False");
    else snprintf(s, sizeof s, "%lld", (long long)v);
    snprintf(*tab + i * (w + 1), (size_t)w + 1, "%*s", w, s);
  }
  return w;
}

/* NumPy's _formatArray for str(): separator ' ', linewidth 75, hanging indent. */
static void kiln_rec(kiln_buf *out, const char *tab, int w, int rank, const int64_t *shape,
                     int axis, int64_t base, long hang, long width) {
  if (axis == rank) { kiln_put(out, tab + base * (w + 1), (size_t)w); return; }
  int64_t n = shape[axis], stride = 1;
  for (int a = axis + 1; a < rank; a++) stride *= shape[a];
  kiln_buf s = {0};
  if (axis == rank - 1) {
    kiln_buf line = {0};
    kiln_spaces(&line, hang);
    for (int64_t i = 0; i < n; i++) {
      if ((long)line.n + w > width - 1 && (long)line.n > hang) {
        while (line.n && line.p[line.n - 1] == ' ') line.n--;
        kiln_put(&s, line.p, line.n);
        kiln_puts(&s, "\n");
        line.n = 0;
        kiln_spaces(&line, hang);
      }
      kiln_put(&line, tab + (base + i * stride) * (w + 1), (size_t)w);
      if (i < n - 1) kiln_puts(&line, " ");
    }
    kiln_put(&s, line.p ? line.p : "", line.n);
    free(line.p);
  } else {
    for (int64_t i = 0; i < n; i++) {
      kiln_spaces(&s, hang);
      kiln_rec(&s, tab, w, rank, shape, axis + 1, base + i * stride, hang + 1, width - 1);
      if (i < n - 1) for (int a = axis + 1; a < rank; a++) kiln_puts(&s, "\n");
    }
  }
  kiln_puts(out, "[");
  if (s.n > (size_t)hang) kiln_put(out, s.p + hang, s.n - (size_t)hang);
  kiln_puts(out, "]");
  free(s.p);
}

/* One value: a 0-d buffer as a scalar, others as NumPy's str(array). */
__attribute__((unused)) static void kiln_fmt_value(kiln_buf *b, const void *p, int kind, int rank, const int64_t *shape,
                           const int64_t *strides) {
  char s[32];
  if (rank == 0) {
    if (kind >= 5) kiln_fmt_float(b, kiln_get_f(p, kind, 0), kind == 5);
    else if (kind == 0) kiln_puts(b, kiln_get_i(p, kind, 0) ? "True" : "False");
    else { snprintf(s, sizeof s, "%lld", (long long)kiln_get_i(p, kind, 0)); kiln_puts(b, s); }
    return;
  }
  int64_t count = 1;
  for (int a = 0; a < rank; a++) count *= shape[a];
  if (count <= 0) { kiln_puts(b, "[]"); return; }
  int64_t *offs = (int64_t *)malloc((size_t)count * sizeof(int64_t));
  if (!offs) abort();
  for (int64_t i = 0; i < count; i++) {
    int64_t rest = i, off = 0;
    for (int a = rank - 1; a >= 0; a--) { off += (rest % shape[a]) * strides[a]; rest /= shape[a]; }
    offs[i] = off;
  }
  char *tab;
  int w = kind >= 5 ? kiln_float_words(p, kind, offs, count, &tab) : kiln_int_words(p, kind, offs, count, &tab);
  kiln_rec(b, tab, w, rank, shape, 0, 0, 1, 75);
  free(tab);
  free(offs);
}
"""
