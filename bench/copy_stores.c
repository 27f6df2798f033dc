/* What np.copyto's 40 MB copy does to memory, beside loops that store normally and that stream
 * (issue 43). One core, CPU seconds of the thread (the shared VM's other processes take the core
 * for milliseconds at a time; wall time then measures them), the three timed in turn, 41 rounds.
 *
 *   gcc -O3 -march=native bench/copy_stores.c -o /tmp/copy_stores && taskset -c 0 /tmp/copy_stores
 *
 * memcpy: glibc's, as np.copyto calls it (2.36 copies 40 MB with normal stores: its non-temporal
 *   threshold is 3/4 of the cache size CPUID reports, 240 MB on the 2-core AMD EPYC VM;
 *   `ld.so --list-diagnostics | grep non_temporal`).
 * normal: a loop of unaligned vector loads and stores: each stored line is read from memory first
 *   (12 bytes of traffic per float copied).
 * streaming: the same loop with non-temporal stores (8 bytes per float).
 * GB/s count 8 bytes per float, as python -m kiln.bench does.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 10000000
#define ROUNDS 41

static void copy_memcpy(const float *restrict x, float *restrict o) { memcpy(o, x, sizeof(float) * N); }

#ifdef __AVX512F__
#define W 16
#define LOAD _mm512_loadu_ps
#define STORE _mm512_storeu_ps
#define STREAM _mm512_stream_ps
#else
#define W 8
#define LOAD _mm256_loadu_ps
#define STORE _mm256_storeu_ps
#define STREAM _mm256_stream_ps
#endif

static void copy_normal(const float *restrict x, float *restrict o) {
    for (int64_t i = 0; i < N; i += W) STORE(o + i, LOAD(x + i));
}

static void copy_streaming(const float *restrict x, float *restrict o) {
    for (int64_t i = 0; i < N; i += W) STREAM(o + i, LOAD(x + i));
    _mm_sfence();
}

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void) {
    float *x = aligned_alloc(64, sizeof(float) * N), *o = aligned_alloc(64, sizeof(float) * N);
    for (int64_t i = 0; i < N; i++) x[i] = (float)(i % 1000);
    memset(o, 0, sizeof(float) * N);
    void (*const fns[])(const float *restrict, float *restrict) = {copy_memcpy, copy_normal, copy_streaming};
    const char *const names[] = {"memcpy", "normal stores", "streaming stores"};
    enum { K = 3 };
    double t[K][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < K; k++) {
            const double start = cpu_seconds();
            fns[k](x, o);
            t[k][r] = cpu_seconds() - start;
        }
    for (int k = 0; k < K; k++) {
        qsort(t[k], ROUNDS, sizeof(double), by_value);
        printf("%-17s %5.1f GB/s (median of %d, CPU time)\n", names[k], 8e-9 * N / t[k][ROUNDS / 2], ROUNDS);
    }
    free(x);
    free(o);
    return 0;
}
