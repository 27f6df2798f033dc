// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror -fopenmp %t.c -o %t.o && cc -c -Wall -Werror %t.c -o %t.seq.o

// A loop marked kiln.parallel runs with OpenMP when large and more than one thread is asked for.
// Its threads claim chunks of iterations as they come (kiln_chunk of the iteration count), so a
// thread that starts late leaves its share to the others. Each loop keeps its own measurements
// (a static kiln_site): how many threads it takes is the choice that was faster per element.
// With dynamic bounds the test comes first, and a small trip count runs a copy of the loop outside
// any OpenMP region (entering one with a false if clause still costs a libgomp team), untimed.
// CHECK:      static inline int kiln_num_threads(void)
// CHECK:      void scale({{.*}}) {
// CHECK-NEXT: {
// CHECK-NEXT: static kiln_site [[SITE:.*]];
// CHECK-NEXT: const int [[BIG:.*]] = ({{.*}} - 0) * 64 >= 131072;
// CHECK-NEXT: const int [[NT:.*]] = [[BIG]] ? kiln_site_threads(&[[SITE]]) : 1;
// CHECK-NEXT: const int64_t [[START:.*]] = [[BIG]] ? kiln_site_clock() : 0;
// CHECK-NEXT: if ([[NT]] > 1) {
// CHECK-NEXT: #ifdef _OPENMP
// CHECK-NEXT: #pragma omp parallel for num_threads([[NT]]) schedule(dynamic, kiln_chunk(({{.*}} - 0), [[NT]]))
// CHECK-NEXT: #endif
// CHECK-NEXT: for (int64_t
// CHECK:      else {
// CHECK-NEXT: for (int64_t
// CHECK-NOT:  #pragma
// CHECK:      if ([[BIG]]) kiln_site_done(&[[SITE]], ({{.*}} - 0) * 64, [[NT]], [[START]]);
// CHECK:      void scale_static({{.*}}) {
// CHECK-NEXT: {
// CHECK-NEXT: static kiln_site [[SITE:.*]];
// CHECK-NEXT: const int [[NT:.*]] = kiln_site_threads(&[[SITE]]);
// CHECK-NEXT: const int64_t [[START:.*]] = kiln_site_clock();
// CHECK-NEXT: #ifdef _OPENMP
// CHECK-NEXT: #pragma omp parallel for num_threads([[NT]]) if([[NT]] > 1) schedule(dynamic, kiln_chunk((4096 - 0), [[NT]]))
// CHECK-NEXT: #endif
// CHECK-NEXT: for (int64_t
// CHECK-NOT:  else
// CHECK:      kiln_site_done(&[[SITE]], (4096 - 0) * 64, [[NT]], [[START]]);
// A loop with a step of 2 counts its iterations, not the span.
// CHECK:      void scale_pairs({{.*}}) {
// CHECK:      #pragma omp parallel for {{.*}} schedule(dynamic, kiln_chunk((((8192 - 0) + 2 - 1) / 2), [[NT:.*]]))
func.func @scale(%x: memref<?x64xf32>, %out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %a = memref.load %x[%i, %j] : memref<?x64xf32>
      %b = arith.addf %a, %a : f32
      memref.store %b, %out[%i, %j] : memref<?x64xf32>
    }
  } {kiln.parallel = 64 : i64}
  func.return
}

func.func @scale_static(%x: memref<4096x64xf32>, %out: memref<4096x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 4096 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %a = memref.load %x[%i, %j] : memref<4096x64xf32>
      %b = arith.addf %a, %a : f32
      memref.store %b, %out[%i, %j] : memref<4096x64xf32>
    }
  } {kiln.parallel = 64 : i64}
  func.return
}

func.func @scale_pairs(%x: memref<8192x64xf32>, %out: memref<8192x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 8192 : index
  scf.for %i = %c0 to %n step %c2 {
    scf.for %j = %c0 to %c64 step %c1 {
      %a = memref.load %x[%i, %j] : memref<8192x64xf32>
      %b = arith.addf %a, %a : f32
      memref.store %b, %out[%i, %j] : memref<8192x64xf32>
    }
  } {kiln.parallel = 128 : i64}
  func.return
}
