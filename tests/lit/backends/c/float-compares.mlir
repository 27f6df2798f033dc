// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -O2 -ftree-loop-vectorize -march=x86-64-v3 -fopt-info-vec-optimized %t.c -o %t.o 2>&1 | filecheck %s --check-prefix=VEC

// Ordered float comparisons are C99's quiet comparison macros, not C's operators: `v < 2.0`
// may trap on a quiet NaN, so under gcc's default -ftrapping-math a comparison of a selected
// value stays a branch and its loop is not vectorized ("control flow in loop"; complex abs
// as NumPy computes it, in Mandelbrot's `abs(z) < 2`, has this shape). The values are the same.
// CHECK-LABEL: void inside(double *restrict x, double *restrict y, uint8_t *restrict out) {
// CHECK:         bool [[INF:.*]] = [[A:.*]] == (double)INFINITY;
// CHECK:         double [[V:.*]] = [[INF]] ? (double)INFINITY : [[B:.*]];
// CHECK:         bool [[LT:.*]] = __builtin_isless([[V]], 2.0);
// VEC: float-compares.mlir.tmp.c:{{[0-9]+}}:{{[0-9]+}}: optimized: loop vectorized
func.func @inside(%x: memref<1024xf64>, %y: memref<1024xf64>, %out: memref<1024xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %inf = arith.constant 0x7FF0000000000000 : f64
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %c1024 step %c1 {
    %a = memref.load %x[%i] : memref<1024xf64>
    %b = memref.load %y[%i] : memref<1024xf64>
    %isinf = arith.cmpf oeq, %a, %inf : f64
    %v = arith.select %isinf, %inf, %b : f64
    %lt = arith.cmpf olt, %v, %two : f64
    memref.store %lt, %out[%i] : memref<1024xi1>
  }
  func.return
}

// Every predicate: ordered ones false on NaN, unordered ones true.
// CHECK-LABEL: void predicates(
// CHECK:         = false;
// CHECK:         = [[A:.*]] == [[B:.*]];
// CHECK:         = __builtin_isgreater([[A]], [[B]]);
// CHECK:         = __builtin_isgreaterequal([[A]], [[B]]);
// CHECK:         = __builtin_isless([[A]], [[B]]);
// CHECK:         = __builtin_islessequal([[A]], [[B]]);
// CHECK:         = __builtin_islessgreater([[A]], [[B]]);
// CHECK:         = !__builtin_isunordered([[A]], [[B]]);
// CHECK:         = !__builtin_islessgreater([[A]], [[B]]);
// CHECK:         = !__builtin_islessequal([[A]], [[B]]);
// CHECK:         = !__builtin_isless([[A]], [[B]]);
// CHECK:         = !__builtin_isgreaterequal([[A]], [[B]]);
// CHECK:         = !__builtin_isgreater([[A]], [[B]]);
// CHECK:         = [[A]] != [[B]];
// CHECK:         = __builtin_isunordered([[A]], [[B]]);
// CHECK:         = true;
func.func @predicates(%a: f32, %b: f32, %out: memref<16xi1>) {
  %p0 = arith.cmpf false, %a, %b : f32
  %p1 = arith.cmpf oeq, %a, %b : f32
  %p2 = arith.cmpf ogt, %a, %b : f32
  %p3 = arith.cmpf oge, %a, %b : f32
  %p4 = arith.cmpf olt, %a, %b : f32
  %p5 = arith.cmpf ole, %a, %b : f32
  %p6 = arith.cmpf one, %a, %b : f32
  %p7 = arith.cmpf ord, %a, %b : f32
  %p8 = arith.cmpf ueq, %a, %b : f32
  %p9 = arith.cmpf ugt, %a, %b : f32
  %p10 = arith.cmpf uge, %a, %b : f32
  %p11 = arith.cmpf ult, %a, %b : f32
  %p12 = arith.cmpf ule, %a, %b : f32
  %p13 = arith.cmpf une, %a, %b : f32
  %p14 = arith.cmpf uno, %a, %b : f32
  %p15 = arith.cmpf true, %a, %b : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %c14 = arith.constant 14 : index
  %c15 = arith.constant 15 : index
  memref.store %p0, %out[%c0] : memref<16xi1>
  memref.store %p1, %out[%c1] : memref<16xi1>
  memref.store %p2, %out[%c2] : memref<16xi1>
  memref.store %p3, %out[%c3] : memref<16xi1>
  memref.store %p4, %out[%c4] : memref<16xi1>
  memref.store %p5, %out[%c5] : memref<16xi1>
  memref.store %p6, %out[%c6] : memref<16xi1>
  memref.store %p7, %out[%c7] : memref<16xi1>
  memref.store %p8, %out[%c8] : memref<16xi1>
  memref.store %p9, %out[%c9] : memref<16xi1>
  memref.store %p10, %out[%c10] : memref<16xi1>
  memref.store %p11, %out[%c11] : memref<16xi1>
  memref.store %p12, %out[%c12] : memref<16xi1>
  memref.store %p13, %out[%c13] : memref<16xi1>
  memref.store %p14, %out[%c14] : memref<16xi1>
  memref.store %p15, %out[%c15] : memref<16xi1>
  func.return
}
