/* kiln's sorting and binary search for one element type (pasted once per type by
   backends/c/algorithm_ops.py).  The including code defines
     KS_T          the element type,
     KS_NAME(x)    the instance's name prefix,
     KS_LESS(a, b) the strict order: NumPy's, where NaN sorts after every number.
   Sorting is a stable merge sort (runs of 16 insertion-sorted, then bottom-up merges
   between two buffers), so equal elements keep their order: np.argsort(kind="stable"). */

static inline int KS_NAME(merge_sort)(KS_T *key, int64_t *pos, KS_T *tkey, int64_t *tpos, int64_t n) {
  /* sorts key[0:n) (and pos alongside when pos != NULL); returns 1 when the sorted
     sequence ended in tkey/tpos rather than key/pos */
  const int64_t run = 16;
  for (int64_t lo = 0; lo < n; lo += run) {
    const int64_t hi = lo + run < n ? lo + run : n;
    for (int64_t i = lo + 1; i < hi; i++) {
      const KS_T k = key[i];
      const int64_t p = pos ? pos[i] : 0;
      int64_t j = i;
      while (j > lo && KS_LESS(k, key[j - 1])) {
        key[j] = key[j - 1];
        if (pos) pos[j] = pos[j - 1];
        j--;
      }
      key[j] = k;
      if (pos) pos[j] = p;
    }
  }
  int swapped = 0;
  for (int64_t width = run; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = lo + width < n ? lo + width : n;
      const int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const int take_right = KS_LESS(key[j], key[i]); /* ties take the left: stable */
        const int64_t from = take_right ? j++ : i++;
        tkey[k] = key[from];
        if (pos) tpos[k] = pos[from];
        k++;
      }
      for (; i < mid; i++, k++) {
        tkey[k] = key[i];
        if (pos) tpos[k] = pos[i];
      }
      for (; j < hi; j++, k++) {
        tkey[k] = key[j];
        if (pos) tpos[k] = pos[j];
      }
    }
    KS_T *kt = key; key = tkey; tkey = kt;
    int64_t *pt = pos; pos = tpos; tpos = pt;
    swapped ^= 1;
  }
  return swapped;
}

static inline void KS_NAME(line)(const KS_T *x, int64_t xs, KS_T *y, int64_t ys, int64_t *p, int64_t ps, int64_t n,
                                 KS_T *kbuf, int64_t *pbuf) {
  /* one strided line x[0], x[xs], ... (n elements) sorted into y (stride ys), or, when y is
     NULL, its stable sorting permutation into p (stride ps); kbuf holds 2n keys, pbuf 2n positions */
  KS_T *key = kbuf, *tkey = kbuf + n;
  int64_t *pos = y ? NULL : pbuf, *tpos = y ? NULL : pbuf + n;
  for (int64_t i = 0; i < n; i++) {
    key[i] = x[i * xs];
    if (pos) pos[i] = i;
  }
  if (KS_NAME(merge_sort)(key, pos, tkey, tpos, n)) {
    key = tkey;
    pos = tpos;
  }
  if (y) {
    for (int64_t i = 0; i < n; i++) y[i * ys] = key[i];
  } else {
    for (int64_t i = 0; i < n; i++) p[i * ps] = pos[i];
  }
}

static inline int64_t KS_NAME(search)(const KS_T *a, int64_t as, int64_t n, KS_T v, int right) {
  /* the insertion point of v in the sorted a[0], a[as], ...: before equal elements (left)
     or after them (right) */
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const KS_T m = a[mid * as];
    if (right ? !KS_LESS(v, m) : KS_LESS(m, v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
