// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -O2 -ftree-loop-vectorize -march=x86-64-v3 -fopt-info-vec-optimized %t.c -o %t.o 2>&1 | filecheck %s --check-prefix=VEC

// Boolean arrays are bytes (uint8_t, NumPy's 0 or 1), boolean scalars C bools: gcc 12
// vectorizes no loop that loads or stores C bools ("no vectype"), and a mask update such as
// NumPy's `n[inside] = k` over int64 stayed scalar.
// CHECK-LABEL: void mark(uint8_t *restrict inside, int64_t *restrict n, int64_t k) {
// CHECK:         bool [[M:.*]] = inside[i];
// CHECK:         n[i] = [[N:.*]];
// CHECK-LABEL: void flag(double *restrict x, uint8_t *restrict out) {
// CHECK:         bool [[B:.*]] = __builtin_isless([[X:.*]], 2.0);
// CHECK:         out[i] = [[B]];
// VEC: bool-arrays.mlir.tmp.c:{{[0-9]+}}:{{[0-9]+}}: optimized: loop vectorized
// VEC: bool-arrays.mlir.tmp.c:{{[0-9]+}}:{{[0-9]+}}: optimized: loop vectorized
func.func @mark(%inside: memref<1024xi1>, %n: memref<1024xi64>, %k: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c1024 step %c1 {
    %m = memref.load %inside[%i] : memref<1024xi1>
    %old = memref.load %n[%i] : memref<1024xi64>
    %new = arith.select %m, %k, %old : i64
    memref.store %new, %n[%i] : memref<1024xi64>
  }
  func.return
}

func.func @flag(%x: memref<1024xf64>, %out: memref<1024xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = memref.load %x[%i] : memref<1024xf64>
    %b = arith.cmpf olt, %v, %two : f64
    memref.store %b, %out[%i] : memref<1024xi1>
  }
  func.return
}
