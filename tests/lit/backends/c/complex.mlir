// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

// complex<f64> is `double _Complex`, built and taken apart with GCC's builtins (no
// <complex.h> macros); the functions are the C library's. A function with complex values
// turns off GCC's SLP vectorizer, whose complex patterns would fuse the written-out formulas.
// CHECK-LABEL: __attribute__((optimize("no-tree-slp-vectorize"))) void cx(double _Complex *restrict a, float _Complex *restrict b, double *restrict out) {
// A loaded value that is only taken apart is read part by part, at the load (gcc vectorizes
// loops over double lanes, not over double _Complex temporaries); one used whole is loaded whole.
// CHECK:         double [[R:.*]] = __real__ a[0];
// CHECK-NEXT:    double [[I:.*]] = __imag__ a[0];
// CHECK-NEXT:    double _Complex [[C:.*]] = __builtin_complex([[I]], [[R]]);
// CHECK-NEXT:    double _Complex [[E:.*]] = __builtin_cexp([[C]]);
// CHECK-NEXT:    double [[A:.*]] = __builtin_cabs([[E]]);
// CHECK:         float _Complex [[K:.*]] = __builtin_complex(1.0f, -2.5f);
// CHECK:         float _Complex [[W:.*]] = b[0];
// CHECK-NEXT:    float {{.*}} = __builtin_cargf([[W]]);
// A stored complex.create is stored part by part.
// CHECK-LABEL: void swap_parts(
// CHECK:         float [[WR:.*]] = __real__ b[1];
// CHECK-NEXT:    float [[WI:.*]] = __imag__ b[1];
// CHECK:         __real__ b[0] = [[WI]];
// CHECK-NEXT:    __imag__ b[0] = [[WR]];
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

func.func @swap_parts(%b: memref<2xcomplex<f32>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.load %b[%c1] : memref<2xcomplex<f32>>
  %r = complex.re %w : complex<f32>
  %i = complex.im %w : complex<f32>
  %s = complex.create %i, %r : complex<f32>
  memref.store %s, %b[%c0] : memref<2xcomplex<f32>>
  func.return
}

// A product written out on the parts without a fused operation (NumPy's scalars, Python's
// complex): the first product of each part's subtract or add is made opaque to gcc, whose
// vectorizer would fuse it into a vfmaddsub whatever -ffp-contract says.
// CHECK-LABEL: void plain_product(
// CHECK:         double [[AC:.*]] = [[AR:.*]] * [[CR:.*]];
// CHECK-NEXT:    double [[BD:.*]] = [[AI:.*]] * [[CI:.*]];
// CHECK-NEXT:    kiln_opaque([[AC]]);
// CHECK-NEXT:    double {{.*}} = [[AC]] - [[BD]];
// CHECK:         kiln_opaque(
// CHECK-NEXT:    double {{.*}} = {{.*}} + {{.*}};
// CHECK-NOT:     kiln_opaque
func.func @plain_product(%a: memref<4xcomplex<f64>>, %b: memref<4xcomplex<f64>>, %out: memref<4xcomplex<f64>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xcomplex<f64>>
    %y = memref.load %b[%i] : memref<4xcomplex<f64>>
    %xr = complex.re %x : complex<f64>
    %xi = complex.im %x : complex<f64>
    %yr = complex.re %y : complex<f64>
    %yi = complex.im %y : complex<f64>
    %rr = arith.mulf %xr, %yr : f64
    %ii = arith.mulf %xi, %yi : f64
    %re = arith.subf %rr, %ii : f64
    %ri = arith.mulf %xr, %yi : f64
    %ir = arith.mulf %xi, %yr : f64
    %im = arith.addf %ri, %ir : f64
    %sum = arith.addf %re, %xr : f64
    %p = complex.create %sum, %im : complex<f64>
    memref.store %p, %out[%i] : memref<4xcomplex<f64>>
  }
  func.return
}
