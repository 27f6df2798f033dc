"""The C++ prelude of every emitted ``.cu``: error recording, cleanup on failure, and the
device side of variable residency (:mod:`kiln.backends.cuda.residency` owns the table)."""

from __future__ import annotations

PRELUDE = """#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char kiln_cuda_error[512];

/* Record the first failing CUDA call; true when ``err`` is an error. */
static bool kiln_cuda_check(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return false;
  if (!kiln_cuda_error[0])
    snprintf(kiln_cuda_error, sizeof kiln_cuda_error, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
  return true;
}

/* The first CUDA error since the last call (empty when none), then cleared. */
extern "C" __attribute__((visibility("default"))) const char *kiln_cuda_last_error(void) {
  static char copy[512];
  memcpy(copy, kiln_cuda_error, sizeof copy);
  kiln_cuda_error[0] = 0;
  return copy;
}

/* Free the device buffers an entry point still owns (every slot it filled); true on an error. */
static bool kiln_cuda_release(void **live, size_t n) {
  bool failed = false;
  for (size_t i = 0; i < n; i++) {
    if (live[i]) failed |= kiln_cuda_check(cudaFree(live[i]), "cudaFree");
    live[i] = NULL;
  }
  return failed;
}
#define KILN_RELEASE_ALL() kiln_cuda_release(kiln_live, sizeof kiln_live / sizeof kiln_live[0])

/* Device-resident variable buffers: one table per process, owned by Python, shared by every
   kiln CUDA library (docs/cuda.md). state: 0 host copy newer, 1 in sync, 2 device copy newer. */
typedef struct { void *host; void *dev; size_t bytes; int64_t state; } kiln_resident;
typedef struct { int64_t count; kiln_resident *entries; } kiln_resident_table;
__attribute__((visibility("default"))) kiln_resident_table *kiln_cuda_residents = NULL;  /* unmangled: global scope */

/* The resident entry of a host buffer, or NULL when it is not a variable's. */
static kiln_resident *kiln_cuda_resident(const void *host) {
  if (!kiln_cuda_residents) return NULL;
  for (int64_t i = 0; i < kiln_cuda_residents->count; i++)
    if (kiln_cuda_residents->entries[i].host == host) return &kiln_cuda_residents->entries[i];
  return NULL;
}

/* Make a resident buffer's device copy current (allocate once, copy only when the host is
   newer); a function that may write it leaves the device copy newer. True on an error. */
static bool kiln_cuda_make_current(kiln_resident *r, bool written, const char *what) {
  if (!r->dev && kiln_cuda_check(cudaMalloc(&r->dev, r->bytes > 0 ? r->bytes : 1), what)) return true;
  if (r->state == 0 && kiln_cuda_check(cudaMemcpy(r->dev, r->host, r->bytes, cudaMemcpyHostToDevice), what))
    return true;
  r->state = written ? 2 : 1;
  return false;
}

/* Python's side of residency: copy a newer device copy back, and free it with ``release``. */
extern "C" __attribute__((visibility("default"))) int kiln_cuda_sync_resident(kiln_resident *r, int release) {
  if (r->state == 2) {
    if (kiln_cuda_check(cudaMemcpy(r->host, r->dev, r->bytes, cudaMemcpyDeviceToHost), "copy a variable to the host"))
      return 1;
    r->state = 1;
  }
  if (release && r->dev) {
    if (kiln_cuda_check(cudaFree(r->dev), "free a variable's device copy")) return 1;
    r->dev = NULL;
    r->state = 0;
  }
  return 0;
}

/* A host copy of ``bytes`` of device memory (for printing), or NULL after recording an error. */
static void *kiln_cuda_to_host(const void *dev, size_t bytes) {
  void *host = malloc(bytes > 0 ? bytes : 1);
  if (!host) { kiln_cuda_check(cudaErrorMemoryAllocation, "print: malloc"); return NULL; }
  if (kiln_cuda_check(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), "print: copy to the host")) {
    free(host);
    return NULL;
  }
  return host;
}
"""
