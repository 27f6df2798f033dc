/* How fast can relu(2x+1)*sigmoid(x) - x/3 on 10^7 float32 run on one AVX2 core, and what
 * does accuracy cost? Hand-written variants timed in alternation with memcpy (the machine's
 * bandwidth drifts; compare within one run). bench/RESULTS.md quotes this program's output.
 *
 *   gcc -O3 -march=native bench/chain_ceiling.c -o /tmp/chain_ceiling -lm && /tmp/chain_ceiling
 *
 * accurate: kiln's previous exp: a two-constant Cody-Waite reduction and Cephes' degree-6
 *   polynomial (<= 1 ulp), a branch to the clamped, two-factor path when some |x| > 87 or
 *   NaN, and IEEE divisions for 1/(1+e) and x/3 (NumPy's results for the arithmetic).
 * table-x4: what kiln emits now (docs/vector-math.md, docs/simd.md): the reduction by ln2/8,
 *   2^(j/8) from an 8-entry table by vpermps, a degree-4 polynomial (0.89 ulp), four
 *   registers per iteration interleaved, one range test for the four.
 * estrin: the same accuracy with the polynomial evaluated in Estrin form (shorter chains).
 * loose: a degree-5 Taylor exp after a one-constant reduction (~20 ulp), the mul by 2 and the
 *   add fused: what dropping accuracy buys.
 * loose-nobranch: also without the range check (wrong for |x| > 87 and NaN).
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 10000000
#define ROUNDS 21
#define S(c) _mm256_set1_ps(c)

static __m256 scale2n(__m256 y, __m256 t) { /* y * 2^n, n in the low bits of t = x/ln2 + 1.5*2^23 */
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), _mm256_slli_epi32(_mm256_castps_si256(t), 23)));
}

/* exp(r) by Cephes' polynomial after the two-constant reduction; *t = x/ln2 + 1.5*2^23 */
static __m256 exp_reduced(__m256 x, __m256 *t) {
    *t = _mm256_fmadd_ps(x, S(1.442695f), S(12582912.0f));
    __m256 n = _mm256_sub_ps(*t, S(12582912.0f));
    __m256 r = _mm256_fmadd_ps(n, S(0.00021219444f), _mm256_fmadd_ps(n, S(-0.6933594f), x));
    __m256 p = S(0.00019875691f);
    p = _mm256_fmadd_ps(p, r, S(0.0013981999f)); p = _mm256_fmadd_ps(p, r, S(0.008333452f));
    p = _mm256_fmadd_ps(p, r, S(0.041665796f)); p = _mm256_fmadd_ps(p, r, S(0.16666666f));
    p = _mm256_fmadd_ps(p, r, S(0.5f));
    return _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), S(1.0f));
}

static __m256 exp_slow(__m256 x) { /* clamped, 2^n as two factors: results that underflow round once */
    __m256 t, y = exp_reduced(_mm256_min_ps(S(89.0f), _mm256_max_ps(S(-104.0f), x)), &t);
    __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000));
    __m256i n1 = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_add_epi32(ni, _mm256_set1_epi32(256)), 1), _mm256_set1_epi32(128));
    __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
    __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, n1), _mm256_set1_epi32(127)), 23));
    return _mm256_mul_ps(_mm256_mul_ps(y, s1), s2);
}

static int far(__m256 x) { /* some lane has |x| > 87 or is NaN */
    __m256 a = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
    return _mm256_movemask_ps(_mm256_cmp_ps(a, S(87.0f), _CMP_NLE_UQ));
}

static __m256 exp_accurate(__m256 x) {
    if (far(x)) return exp_slow(x);
    __m256 t, y = exp_reduced(x, &t);
    return scale2n(y, t);
}

static __m256 exp_estrin(__m256 x) {
    if (far(x)) return exp_slow(x);
    __m256 t = _mm256_fmadd_ps(x, S(1.442695f), S(12582912.0f)), n = _mm256_sub_ps(t, S(12582912.0f));
    __m256 r = _mm256_fmadd_ps(n, S(0.00021219444f), _mm256_fmadd_ps(n, S(-0.6933594f), x));
    __m256 r2 = _mm256_mul_ps(r, r), r4 = _mm256_mul_ps(r2, r2);
    __m256 a = _mm256_fmadd_ps(S(0.16666666f), r, S(0.5f)), b = _mm256_fmadd_ps(S(0.008333452f), r, S(0.041665796f));
    __m256 c = _mm256_fmadd_ps(S(0.00019875691f), r, S(0.0013981999f));
    __m256 p = _mm256_fmadd_ps(c, r4, _mm256_fmadd_ps(b, r2, a));
    return scale2n(_mm256_add_ps(_mm256_fmadd_ps(p, r2, r), S(1.0f)), t);
}

static inline __m256 exp_table_near(__m256 x) { /* |x| <= 87: no clamps, n into the exponent */
    const __m256 two_j8 = _mm256_setr_ps(1.0f, 1.0905077f, 1.1892071f, 1.2968396f, 1.4142135f, 1.5422108f, 1.6817929f, 1.8340081f);
    __m256 t = _mm256_fmadd_ps(x, S(11.54156f), S(12582912.0f)), k = _mm256_sub_ps(t, S(12582912.0f));
    __m256 r = _mm256_fmadd_ps(k, S(-0.086639404f), x);
    r = _mm256_fmadd_ps(k, S(-3.993273e-06f), r);
    __m256 tj = _mm256_permutevar8x32_ps(two_j8, _mm256_castps_si256(t)), r2 = _mm256_mul_ps(r, r);
    __m256 a = _mm256_fmadd_ps(S(0.04166042f), r2, _mm256_fmadd_ps(S(0.16668029f), r, S(0.5f)));
    __m256 y = _mm256_fmadd_ps(tj, _mm256_fmadd_ps(a, r2, r), tj);
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), _mm256_slli_epi32(_mm256_srli_epi32(_mm256_castps_si256(t), 3), 23)));
}

static __m256 exp_loose_nobranch(__m256 x) {
    __m256 t = _mm256_fmadd_ps(x, S(1.442695f), S(12582912.0f)), n = _mm256_sub_ps(t, S(12582912.0f));
    __m256 r = _mm256_fmadd_ps(n, S(-0.6931472f), x), r2 = _mm256_mul_ps(r, r);
    __m256 a = _mm256_fmadd_ps(S(1.0f / 6), r, S(0.5f)), b = _mm256_fmadd_ps(S(1.0f / 120), r, S(1.0f / 24));
    return scale2n(_mm256_fmadd_ps(_mm256_fmadd_ps(b, r2, a), r2, _mm256_add_ps(r, S(1.0f))), t);
}

static __m256 exp_loose(__m256 x) { return far(x) ? exp_slow(x) : exp_loose_nobranch(x); }

/* the chain, exactly as kiln orders it: 2*x then +1, max(0, .) + 0 (IEEE maximum: -0 -> +0) */
#define CHAIN(NAME, EXP, RELU_IN)                                                          \
    static void NAME(const float *restrict x, float *restrict out) {                      \
        for (int64_t i = 0; i < N; i += 8) {                                             \
            __m256 v = _mm256_loadu_ps(x + i);                                            \
            __m256 sig = _mm256_div_ps(S(1.0f), _mm256_add_ps(S(1.0f), EXP(_mm256_xor_ps(v, S(-0.0f))))); \
            __m256 relu = _mm256_add_ps(_mm256_max_ps(S(0.0f), RELU_IN), S(0.0f));      \
            _mm256_storeu_ps(out + i, _mm256_sub_ps(_mm256_mul_ps(relu, sig), _mm256_div_ps(v, S(3.0f)))); \
        }                                                                                 \
    }
CHAIN(chain_accurate, exp_accurate, _mm256_add_ps(_mm256_mul_ps(S(2.0f), v), S(1.0f)))
CHAIN(chain_estrin, exp_estrin, _mm256_add_ps(_mm256_mul_ps(S(2.0f), v), S(1.0f)))
CHAIN(chain_loose, exp_loose, _mm256_fmadd_ps(v, S(2.0f), S(1.0f)))
CHAIN(chain_loose_nobranch, exp_loose_nobranch, _mm256_fmadd_ps(v, S(2.0f), S(1.0f)))

static inline __m256 chain_rest(__m256 v, __m256 e) {
    __m256 sig = _mm256_div_ps(S(1.0f), _mm256_add_ps(S(1.0f), e));
    __m256 relu = _mm256_add_ps(_mm256_max_ps(S(0.0f), _mm256_add_ps(_mm256_add_ps(v, v), S(1.0f))), S(0.0f));
    return _mm256_sub_ps(_mm256_mul_ps(relu, sig), _mm256_div_ps(v, S(3.0f)));
}

static void chain_table_x4(const float *restrict x, float *restrict out) {
    for (int64_t i = 0; i < N; i += 32) {
        __m256 v[4], m[4], e[4];
        for (int u = 0; u < 4; u++) v[u] = _mm256_loadu_ps(x + i + 8 * u);
        for (int u = 0; u < 4; u++) m[u] = _mm256_xor_ps(v[u], S(-0.0f));
        if (!(far(m[0]) | far(m[1]) | far(m[2]) | far(m[3])))
            for (int u = 0; u < 4; u++) e[u] = exp_table_near(m[u]);
        else
            for (int u = 0; u < 4; u++) e[u] = exp_accurate(m[u]); /* never taken on this input */
        for (int u = 0; u < 4; u++) _mm256_storeu_ps(out + i + 8 * u, chain_rest(v[u], e[u]));
    }
}

static void copy(const float *restrict x, float *restrict out) { memcpy(out, x, (size_t)N * sizeof(float)); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    typedef void (*kernel)(const float *restrict, float *restrict);
    const kernel kernels[] = {copy, chain_accurate, chain_table_x4, chain_estrin, chain_loose, chain_loose_nobranch};
    const char *names[] = {"memcpy", "accurate (old)", "table-x4 (kiln's)", "estrin", "loose", "loose-nobranch"};
    enum { K = sizeof(kernels) / sizeof(kernels[0]) };
    float *x = aligned_alloc(64, (size_t)N * 4), *out = aligned_alloc(64, (size_t)N * 4);
    float *ref = aligned_alloc(64, (size_t)N * 4);
    for (int64_t i = 0; i < N; i++) x[i] = (float)((i * 7919) % 20001 - 10000) * 5e-4f; /* [-5, 5] */
    memset(out, 0, (size_t)N * 4);
    static double t[K][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < K; k++) {
            double s = now();
            kernels[k](x, out);
            t[k][r] = now() - s;
        }
    chain_accurate(x, ref);
    double copy_gbs = 0;
    for (int k = 0; k < K; k++) {
        qsort(t[k], ROUNDS, sizeof(double), by_value);
        double gbs = 8.0 * N / t[k][ROUNDS / 2] / 1e9;
        if (k == 0) copy_gbs = gbs;
        double worst = 0;
        if (k > 0) {
            kernels[k](x, out);
            for (int64_t i = 0; i < N; i++) {
                double d = fabs((double)out[i] - ref[i]) / fmax(fabs((double)ref[i]), 1e-30);
                worst = d > worst ? d : worst;
            }
        }
        printf("%-18s %6.2f GB/s  %3.0f%% of memcpy  max rel. diff from accurate %.1e\n", names[k], gbs,
               100 * gbs / copy_gbs, worst);
    }
    return 0;
}
