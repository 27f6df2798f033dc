// RUN: kiln-opt %s -p 'kiln-stream-stores{cache-bytes=65536}' | filecheck %s
// RUN: kiln-opt %s -p 'kiln-stream-stores{cache-bytes=65536}' -t 'c{isa=avx512}' | filecheck %s --check-prefix=AVX512
// RUN: kiln-opt %s -p 'kiln-stream-stores{cache-bytes=65536}' -t 'c{isa=avx2}' | filecheck %s --check-prefix=AVX2
// RUN: kiln-opt %s -p 'kiln-stream-stores{cache-bytes=65536}' -t 'c{isa=neon}' | filecheck %s --check-prefix=NEON
// RUN: kiln-opt %s -p 'kiln-stream-stores{cache-bytes=65536}' -t 'c{isa=avx512}' > %t.c && cc -c -Wall -Werror -fopenmp %t.c -o %t.o && cc -c -Wall -Werror %t.c -o %t.seq.o

// Vector stores in a loop to an array larger than the cache (1 MB > 64 KB) are marked; the
// 64 KB array, the masked tail and the store outside any loop are not.
// CHECK-LABEL: func.func @big
// CHECK:         vector.store %{{.*}}, %out[%{{.*}}] {kiln.stream} : memref<262144xf32>, vector<16xf32>
// CHECK:         vector.maskedstore %out
// CHECK-NOT:     kiln.stream
// CHECK:         vector.store %{{.*}}, %out[%{{.*}}] : memref<262144xf32>, vector<16xf32>
// CHECK-LABEL: func.func @small
// CHECK-NOT:     kiln.stream
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT:     kiln.stream

// In C, the parallel loop measures whether streaming pays (a site per thread choice, as for
// its threads): while its flag says so, each marked store to an address aligned to the register
// streams; every thread runs its share (omp for nowait), then the fence, then the barrier.
// AVX512-LABEL: {{^}}void big(
// AVX512:         static kiln_site [[SITE:.*]];
// AVX512-NEXT:    static kiln_site [[SITES:.*]][2];
// AVX512-NEXT:    const int [[NT:.*]] = kiln_site_threads(&[[SITE]]);
// AVX512-NEXT:    const int [[FLAG:.*]] = kiln_stream_choose([[SITES]], [[NT]]);
// AVX512-NEXT:    const int64_t [[START:.*]] = kiln_site_clock();
// AVX512-NEXT:    #ifdef _OPENMP
// AVX512-NEXT:    #pragma omp parallel num_threads([[NT]]) if([[NT]] > 1)
// AVX512-NEXT:    #endif
// AVX512-NEXT:    {
// AVX512-NEXT:    #ifdef _OPENMP
// AVX512-NEXT:    #pragma omp for schedule(dynamic, kiln_chunk({{.*}}, [[NT]])) nowait
// AVX512-NEXT:    #endif
// AVX512-NEXT:    for (int64_t
// AVX512:         if ([[FLAG]] && ((uintptr_t)(&out[{{.*}}]) & 63) == 0) _mm512_stream_ps(&out[{{.*}}], {{.*}}); else _mm512_storeu_ps(&out[{{.*}}], {{.*}});
// AVX512:         _mm_sfence();
// AVX512-NEXT:    }
// AVX512-NEXT:    kiln_site_done(&[[SITE]], {{.*}}, [[NT]], [[START]]);
// AVX512-NEXT:    kiln_stream_done([[SITES]], [[NT]], {{.*}}, [[FLAG]], [[START]]);
// The masked tail and the store outside the parallel loop are normal stores.
// AVX512:         _mm512_mask_storeu_ps(
// AVX512:         _mm512_storeu_ps(&out[0],
// AVX512-LABEL: {{^}}void small(
// AVX512-NOT:     stream
// AVX2-LABEL:   {{^}}void big(
// AVX2:           if ({{.*}} && ((uintptr_t)(&out[{{.*}}]) & 31) == 0) _mm256_stream_ps(&out[{{.*}}], {{.*}}); else _mm256_storeu_ps(
// AVX2:           _mm_sfence();
// NEON has no streaming store in kiln's table: normal stores, no fence.
// NEON-LABEL:   {{^}}void big(
// NEON-NOT:       stream
// NEON-NOT:       sfence
// NEON-LABEL:   {{^}}void small(
func.func @big(%x: memref<262144xf32>, %out: memref<262144xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c262144 = arith.constant 262144 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c262144 step %c16 {
    %v = vector.load %x[%i] : memref<262144xf32>, vector<16xf32>
    %w = arith.addf %v, %v : vector<16xf32>
    vector.store %w, %out[%i] : memref<262144xf32>, vector<16xf32>
  } {kiln.parallel = 16 : i64}
  scf.for %i = %c0 to %n step %c16 {
    %m = vector.create_mask %n : vector<16xi1>
    %pass = vector.broadcast %zero : f32 to vector<16xf32>
    %v = vector.maskedload %x[%i], %m, %pass : memref<262144xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
    vector.maskedstore %out[%i], %m, %v : memref<262144xf32>, vector<16xi1>, vector<16xf32>
  }
  %v = vector.load %x[%c0] : memref<262144xf32>, vector<16xf32>
  vector.store %v, %out[%c0] : memref<262144xf32>, vector<16xf32>
  func.return
}

func.func @small(%x: memref<16384xf32>, %out: memref<16384xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c16384 = arith.constant 16384 : index
  scf.for %i = %c0 to %c16384 step %c16 {
    %v = vector.load %x[%i] : memref<16384xf32>, vector<16xf32>
    vector.store %v, %out[%i] : memref<16384xf32>, vector<16xf32>
  } {kiln.parallel = 16 : i64}
  func.return
}

func.func @dynamic(%x: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c16 {
    %v = vector.load %x[%i] : memref<?xf32>, vector<16xf32>
    vector.store %v, %out[%i] : memref<?xf32>, vector<16xf32>
  } {kiln.parallel = 16 : i64}
  func.return
}
