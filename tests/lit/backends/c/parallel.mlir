// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror -fopenmp %t.c -o %t.o && cc -c -Wall -Werror %t.c -o %t.seq.o

// A loop marked kiln.parallel runs with OpenMP when large and more than one thread is asked for.
// CHECK:      static inline int kiln_num_threads(void)
// CHECK:      void scale({{.*}}) {
// CHECK-NEXT: #ifdef _OPENMP
// CHECK-NEXT: #pragma omp parallel for num_threads(kiln_num_threads()) if(kiln_num_threads() > 1 && ({{.*}} - 0) * 64 >= 131072)
// CHECK-NEXT: #endif
// CHECK-NEXT: for (int64_t
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
