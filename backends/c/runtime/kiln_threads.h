/* kiln's thread policy, pasted into every translation unit with a parallel loop.
 *
 * kiln_num_threads(): how many threads a parallel loop starts (KILN_NUM_THREADS, else the cores
 * that other processes' runnable tasks leave free when it starts).
 * kiln_chunk(): iterations per chunk of a loop whose chunks threads claim as they come
 * (schedule(dynamic)): a thread that starts late, or loses its core to another process midway,
 * leaves the chunks it has not claimed to the threads that run, the calling thread among them.
 * A static split instead made the loop wait for the descheduled thread's whole share (row sums
 * of 4096^2 on two cores, both loaded by other processes: 0.25x of one thread in 2 of 5 runs).
 */
#include <stdint.h>
#include <stdlib.h>
#ifdef _OPENMP
int omp_get_max_threads(void);
#if defined(__linux__)
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
/* Runnable threads of this process (state R in /proc/self/task/<tid>/stat): this thread, its
   OpenMP team spinning after a loop (GOMP_SPINCOUNT), and a library's pool spinning after its own
   call (OpenBLAS's after NumPy's matmul just before: np.cov then ran on one thread, 83 ms, not
   42). Their cores are this process's own. */
static int kiln_own_runnable(void) {
  DIR *dir = opendir("/proc/self/task");
  if (!dir) return 1;
  int n = 0;
  char path[64], stat[256];
  for (struct dirent *e; (e = readdir(dir));) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t len = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[len] = 0;
    const char *end = strrchr(stat, ')'); /* the state follows the parenthesized name */
    n += end && end[1] == ' ' && end[2] == 'R';
  }
  closedir(dir);
  return n > 0 ? n : 1;
}
/* Runnable tasks of the whole machine: /proc/loadavg's fourth field (0 if unreadable). */
static int kiln_runnable(void) {
  int runnable = 0;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%*s %*s %*s %d", &runnable) != 1) runnable = 0;
    fclose(f);
  }
  return runnable;
}
/* How many of n threads find a core: n less the runnable tasks of other processes
   (/proc/loadavg's fourth field counts every runnable task, this process's own among them), at
   least 1. Read at most every 10 ms (a read costs tens of microseconds; parallel loops run for
   hundreds). */
static int kiln_free_threads(int n) {
  static __thread long long next_ns = 0;
  static __thread int cached = 0;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
  if (now < next_ns && cached > 0) return cached < n ? cached : n;
  /* nothing runnable but this thread (the idle machine): no one's threads to count. Else this
     process's first, then the total again: a pool that stops spinning between the two reads then
     counts in neither, where read second it would have counted as another process's */
  int runnable = kiln_runnable(), own = 1;
  if (runnable > 1) {
    own = kiln_own_runnable();
    runnable = kiln_runnable();
  }
  int others = runnable - own;
  int free_cores = n - (others > 0 ? others : 0);
  cached = free_cores < 1 ? 1 : free_cores;
  next_ns = now + 10000000LL;
  return cached < n ? cached : n;
}
#else
static int kiln_free_threads(int n) { return n; }
#endif
#endif
static inline int kiln_num_threads(void) {
  /* KILN_NUM_THREADS as set; else OpenMP's default (all cores) less the cores other
     processes' runnable tasks hold: a thread that waits for a busy core stalls the whole loop */
  const char *s = getenv("KILN_NUM_THREADS");
  int n = s ? atoi(s) : 0;
  if (n > 0) return n;
#ifdef _OPENMP
  n = kiln_free_threads(omp_get_max_threads());
#endif
  return n > 0 ? n : 1;
}

/* Chunks per thread of a dynamically scheduled loop: enough that the share a late or
   descheduled thread holds up is small (an eighth of its even share), few enough that claiming
   one (an atomic add) stays negligible beside the work of a loop worth threads at all. */
#define KILN_CHUNKS_PER_THREAD 8
/* Iterations per chunk of a loop of `trip` iterations on `threads` threads (at least 1). */
static inline int64_t kiln_chunk(int64_t trip, int threads) {
  const int64_t chunks = (int64_t)(threads > 1 ? threads : 1) * KILN_CHUNKS_PER_THREAD;
  const int64_t chunk = (trip + chunks - 1) / chunks;
  return chunk > 0 ? chunk : 1;
}
