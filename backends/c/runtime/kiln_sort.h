/* kiln's sorting and binary search for one element type (pasted once per type by
   backends/c/algorithm_ops.py).  The including code defines
     KS_T          the element type,
     KS_NAME(x)    the instance's name prefix,
     KS_LESS(a, b) the strict order: NumPy's, where NaN sorts after every number,
     KS_KEY_T      an unsigned integer type of KS_T's size, and
     KS_TO_KEY(v)  a key whose unsigned order is KS_LESS's (every NaN the largest key, -0.0 the
                   key of +0.0, which compare equal).
   Both sorts are stable, so equal elements keep their order (np.argsort(kind="stable")):
   a merge sort for short lines (runs of 16 insertion-sorted, then bottom-up merges between
   two buffers), an LSD radix sort on the keys for long ones. */

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

static inline int KS_NAME(radix_sort)(KS_KEY_T *key, KS_T *val, int64_t *pos, KS_KEY_T *tkey, KS_T *tval,
                                      int64_t *tpos, int64_t n) {
  /* LSD radix sort by key, one byte per pass, carrying val (when not NULL) or pos (when not
     NULL): stable, like the merge sort; a pass whose byte is the same for all keys is skipped.
     Returns 1 when the sorted sequence ended in the temporaries. */
  int swapped = 0;
  int64_t count[256];
  for (unsigned shift = 0; shift < 8 * sizeof(KS_KEY_T); shift += 8) {
    memset(count, 0, sizeof count);
    for (int64_t i = 0; i < n; i++) count[(key[i] >> shift) & 255]++;
    if (count[(key[0] >> shift) & 255] == n) continue;
    int64_t sum = 0;
    for (int d = 0; d < 256; d++) {
      const int64_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; i++) {
      const int64_t j = count[(key[i] >> shift) & 255]++;
      tkey[j] = key[i];
      if (val) tval[j] = val[i];
      if (pos) tpos[j] = pos[i];
    }
    KS_KEY_T *kt = key; key = tkey; tkey = kt;
    KS_T *vt = val; val = tval; tval = vt;
    int64_t *pt = pos; pos = tpos; tpos = pt;
    swapped ^= 1;
  }
  return swapped;
}

static inline size_t KS_NAME(work_size)(int64_t n) {
  /* bytes of the buffer KS_NAME(line) needs for lines of n elements */
  return (size_t)(n > 0 ? n : 1) * 2 * (sizeof(int64_t) + sizeof(KS_KEY_T) + sizeof(KS_T));
}

static inline void KS_NAME(line)(const KS_T *x, int64_t xs, KS_T *y, int64_t ys, int64_t *p, int64_t ps, int64_t n,
                                 void *work) {
  /* one strided line x[0], x[xs], ... (n elements) sorted into y (stride ys), or, when y is
     NULL, its stable sorting permutation into p (stride ps); work: KS_NAME(work_size)(n) bytes.
     Short lines take the merge sort, long ones the radix sort. */
  int64_t *pos = (int64_t *)work, *tpos = pos + n;
  KS_KEY_T *key = (KS_KEY_T *)(tpos + n), *tkey = key + n;
  KS_T *val = (KS_T *)(tkey + n), *tval = val + n;
  if (y) pos = tpos = NULL;
  else val = tval = NULL;
  KS_T *sorted_val = val;
  int64_t *sorted_pos = pos;
  if (n < 256) {
    KS_T *kv = val ? val : (KS_T *)key, *tkv = val ? tval : (KS_T *)tkey; /* the keys are the values here */
    for (int64_t i = 0; i < n; i++) {
      kv[i] = x[i * xs];
      if (pos) pos[i] = i;
    }
    const int swapped = KS_NAME(merge_sort)(kv, pos, tkv, tpos, n);
    sorted_val = swapped ? tkv : kv;
    sorted_pos = swapped ? tpos : pos;
  } else {
    for (int64_t i = 0; i < n; i++) {
      const KS_T v = x[i * xs];
      key[i] = KS_TO_KEY(v);
      if (val) val[i] = v;
      if (pos) pos[i] = i;
    }
    const int swapped = KS_NAME(radix_sort)(key, val, pos, tkey, tval, tpos, n);
    sorted_val = swapped ? tval : val;
    sorted_pos = swapped ? tpos : pos;
  }
  if (y) {
    for (int64_t i = 0; i < n; i++) y[i * ys] = sorted_val[i];
  } else {
    for (int64_t i = 0; i < n; i++) p[i * ps] = sorted_pos[i];
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
