// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror -fopenmp %t.c -o %t.o && cc -c -Wall -Werror %t.c -o %t.seq.o

// A loop marked kiln.parallel runs with OpenMP when large and more than one thread is asked for.
// Its threads claim chunks of iterations as they come (kiln_chunk of the iteration count), so a
// thread that starts late leaves its share to the others.
// With dynamic bounds the test comes first, and a small trip count runs a copy of the loop outside
// any OpenMP region (entering one with a false if clause still costs a libgomp team).
// CHECK:      static inline int kiln_num_threads(void)
// CHECK:      void scale({{.*}}) {
// CHECK-NEXT: if (({{.*}} - 0) * 64 >= 131072 && kiln_num_threads() > 1) {
// CHECK-NEXT: #ifdef _OPENMP
// CHECK-NEXT: #pragma omp parallel for num_threads(kiln_num_threads()) schedule(dynamic, kiln_chunk(({{.*}} - 0), kiln_num_threads()))
// CHECK-NEXT: #endif
// CHECK-NEXT: for (int64_t
// CHECK:      else {
// CHECK-NEXT: for (int64_t
// CHECK-NOT:  #pragma
// CHECK:      void scale_static({{.*}}) {
// CHECK-NEXT: #ifdef _OPENMP
// CHECK-NEXT: #pragma omp parallel for num_threads(kiln_num_threads()) if(kiln_num_threads() > 1) schedule(dynamic, kiln_chunk((4096 - 0), kiln_num_threads()))
// CHECK-NEXT: #endif
// CHECK-NEXT: for (int64_t
// CHECK-NOT:  else
// A loop with a step of 2 counts its iterations, not the span.
// CHECK:      void scale_pairs({{.*}}) {
// CHECK-NEXT: #ifdef _OPENMP
// CHECK-NEXT: #pragma omp parallel for {{.*}} schedule(dynamic, kiln_chunk((((8192 - 0) + 2 - 1) / 2), kiln_num_threads()))
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
