/* kiln's thread policy, pasted into every translation unit with a parallel loop.
 *
 * kiln_num_threads(): how many threads a parallel loop starts (KILN_NUM_THREADS, else the cores
 * that other processes' runnable tasks leave free when it starts).
 * kiln_chunk(): iterations per chunk of a loop whose chunks threads claim as they come
 * (schedule(dynamic)): a thread that starts late, or loses its core to another process midway,
 * leaves the chunks it has not claimed to the threads that run, the calling thread among them.
 * A static split instead made the loop wait for the descheduled thread's whole share (row sums
 * of 4096^2 on two cores, both loaded by other processes: 0.25x of one thread in 2 of 5 runs).
 * kiln_site_threads() / kiln_site_done(): each parallel loop's own measurements of one thread
 * against the team, which choose its thread count instead of a constant work threshold.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
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

/* A parallel loop's own measurements (one per loop in the source, shared by its calls): the
   femtoseconds per element it took on one thread and on a team, each as last measured. Whether a
   team pays depends on the loop (its work per element, its memory traffic) and on the machine at
   the time (how soon a woken thread gets a core), so it is measured rather than set as a constant:
   a loop runs on the team while the team is faster per element than one thread was. */
typedef struct {
  int64_t one_fs, team_fs; /* femtoseconds per element (a GEMM multiply-add: ~10^4), 0 until measured */
  int64_t calls, next_try;  /* calls so far; the call at which the other choice is measured again */
  int64_t wait;             /* calls between such tries: doubles while the other choice keeps losing */
} kiln_site;
#define KILN_SITE_FIRST_WAIT 16
#define KILN_SITE_MAX_WAIT 1024

static inline int64_t kiln_site_get(const int64_t *field) { return __atomic_load_n(field, __ATOMIC_RELAXED); }
static inline void kiln_site_set(int64_t *field, int64_t value) { __atomic_store_n(field, value, __ATOMIC_RELAXED); }

/* Of n threads (n > 1), how many this call of the loop at `site` takes: each choice once (one
   thread first), then the one that was faster per element, and now and then the other again
   (KILN_SITE_FIRST_WAIT calls after it last lost, twice as long each time it loses again, so
   that a choice that keeps losing costs at most a call in KILN_SITE_MAX_WAIT). Calls from
   several threads at once may lose an update: the fields only steer the choice. */
static inline int kiln_site_choose(kiln_site *site, int n) {
  const int64_t one = kiln_site_get(&site->one_fs), team = kiln_site_get(&site->team_fs);
  if (!one) return 1;
  if (!team) return n;
  const int64_t calls = kiln_site_get(&site->calls) + 1;
  kiln_site_set(&site->calls, calls);
  const int winner = team < one ? n : 1;
  const int64_t next = kiln_site_get(&site->next_try);
  if (!next) kiln_site_set(&site->next_try, calls + KILN_SITE_FIRST_WAIT); /* a new winner */
  if (!next || calls < next) return winner;
  int64_t wait = kiln_site_get(&site->wait) * 2;
  wait = wait < KILN_SITE_FIRST_WAIT ? KILN_SITE_FIRST_WAIT : wait > KILN_SITE_MAX_WAIT ? KILN_SITE_MAX_WAIT : wait;
  kiln_site_set(&site->wait, wait);
  kiln_site_set(&site->next_try, calls + wait);
  return winner == 1 ? n : 1; /* the other choice, measured again */
}

/* The threads for this call of the loop at `site`: KILN_NUM_THREADS if set, else one if one is
   all there is (kiln_num_threads), else kiln_site_choose's. */
static inline int kiln_site_threads(kiln_site *site) {
  const int n = kiln_num_threads();
  return n <= 1 || getenv("KILN_NUM_THREADS") ? n : kiln_site_choose(site, n);
}

/* Now, in nanoseconds (CLOCK_MONOTONIC: tens of nanoseconds a read, beside a parallel loop's
   tens of microseconds at least). */
static inline int64_t kiln_site_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Record a call of `elements` elements on `threads` threads that started at `start` (from
   kiln_site_clock). A measurement that changes which choice is faster starts the tries afresh. */
static inline void kiln_site_done(kiln_site *site, int64_t elements, int threads, int64_t start) {
  if (elements <= 0) return;
  const int64_t fs = (kiln_site_clock() - start) * 1000000 / elements + 1;
  const int64_t one = kiln_site_get(&site->one_fs), team = kiln_site_get(&site->team_fs);
  const int team_won = one && team && team < one;
  kiln_site_set(threads > 1 ? &site->team_fs : &site->one_fs, fs);
  const int64_t one2 = threads > 1 ? one : fs, team2 = threads > 1 ? fs : team;
  if (one2 && team2 && (team2 < one2) != team_won) {
    kiln_site_set(&site->wait, 0);
    kiln_site_set(&site->next_try, 0);
  }
}

/* Streaming stores (kiln-stream-stores marks the stores of a loop whose output is larger than the
   last-level cache): whether this call of the loop streams them is measured like its thread
   count, with a site of its own per thread choice (`sites[threads > 1]`), 1 standing for normal
   stores and 2 for streaming ones. Measured rather than fixed because which one wins depends on
   the loop: on the 2-core AMD EPYC, streaming made x * 2 + 1 over 10^7 floats 1.26x faster (8
   bytes of memory traffic per element instead of 12) and the exp-bound chain
   relu(2x+1)*sigmoid(x) - x/3 0.7x as fast (bench/RESULTS.md, issue 43). */
static inline int kiln_stream_choose(kiln_site *sites, int threads) {
  return kiln_site_choose(&sites[threads > 1], 2) == 2;
}
static inline void kiln_stream_done(kiln_site *sites, int threads, int64_t elements, int streamed, int64_t start) {
  kiln_site_done(&sites[threads > 1], elements, streamed ? 2 : 1, start);
}
