// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

// complex<f64> is `double _Complex`, built and taken apart with GCC's builtins (no
// <complex.h> macros); the functions are the C library's. A function with complex values
// turns off GCC's SLP vectorizer, whose complex patterns would fuse the written-out formulas.
// CHECK-LABEL: __attribute__((optimize("no-tree-slp-vectorize"))) void cx(double _Complex *restrict a, float _Complex *restrict b, double *restrict out) {
// CHECK:         double _Complex [[Z:.*]] = a[0];
// CHECK-NEXT:    double [[R:.*]] = __real__ ([[Z]]);
// CHECK-NEXT:    double [[I:.*]] = __imag__ ([[Z]]);
// CHECK-NEXT:    double _Complex [[C:.*]] = __builtin_complex([[I]], [[R]]);
// CHECK-NEXT:    double _Complex [[E:.*]] = __builtin_cexp([[C]]);
// CHECK-NEXT:    double [[A:.*]] = __builtin_cabs([[E]]);
// CHECK:         float _Complex [[K:.*]] = __builtin_complex(1.0f, -2.5f);
// CHECK:         __builtin_cargf(
func.func @cx(%a: memref<1xcomplex<f64>>, %b: memref<1xcomplex<f32>>, %out: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = memref.load %a[%c0] : memref<1xcomplex<f64>>
  %r = complex.re %z : complex<f64>
  %i = complex.im %z : complex<f64>
  %c = complex.create %i, %r : complex<f64>
  %e = complex.exp %c : complex<f64>
  %abs = complex.abs %e : complex<f64>
  memref.store %abs, %out[%c0] : memref<2xf64>
  %k = complex.constant [1.0 : f32, -2.5 : f32] : complex<f32>
  memref.store %k, %b[%c0] : memref<1xcomplex<f32>>
  %w = memref.load %b[%c0] : memref<1xcomplex<f32>>
  %t = complex.angle %w : complex<f32>
  %t64 = arith.extf %t : f32 to f64
  memref.store %t64, %out[%c1] : memref<2xf64>
  func.return
}
