// RUN: kiln-opt %s --rules kiln:loops-complex | filecheck %s
// RUN: kiln-opt %s -p kiln-loops-simplify,canonicalize,cse -t c | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p kiln-loops-simplify,canonicalize,cse -t c > %t.c && cc -c -O2 -ftree-loop-vectorize -march=x86-64-v3 -fopt-info-vec-optimized %t.c -o %t.o 2>&1 | filecheck %s --check-prefix=VEC

// A select of complex values becomes two selects of the parts, and a part of a complex.create
// its operand: NumPy's `z[m] = z[m]**2 + c[m]` body then loads, takes apart and builds only to
// store, and the C backend reads and writes the parts in place.
// CHECK-LABEL: func.func @masked_step
// CHECK-NOT:     arith.select {{.*}} : complex<f64>
// CHECK:         %[[R:.*]] = arith.select %m, %{{.*}}, %{{.*}} : f64
// CHECK:         %[[I:.*]] = arith.select %m, %{{.*}}, %{{.*}} : f64
// CHECK:         %[[Z:.*]] = complex.create %[[R]], %[[I]] : complex<f64>
// CHECK-NEXT:    memref.store %[[Z]], %out[%i]
// C-LABEL: void masked_step({{.*}}) {
// C-NOT:         _Complex
// C:             __real__ out[i] =
// C-NEXT:        __imag__ out[i] =
func.func @masked_step(%out: memref<8xcomplex<f64>>, %c: memref<8xcomplex<f64>>, %m: i1, %i: index) {
  %z = memref.load %out[%i] : memref<8xcomplex<f64>>
  %k = memref.load %c[%i] : memref<8xcomplex<f64>>
  %zr = complex.re %z : complex<f64>
  %zi = complex.im %z : complex<f64>
  %rr = arith.mulf %zr, %zr : f64
  %ii = arith.mulf %zi, %zi : f64
  %ri = arith.mulf %zr, %zi : f64
  %re = arith.subf %rr, %ii : f64
  %im = arith.addf %ri, %ri : f64
  %kr = complex.re %k : complex<f64>
  %ki = complex.im %k : complex<f64>
  %sum_r = arith.addf %re, %kr : f64
  %sum_i = arith.addf %im, %ki : f64
  %next = complex.create %sum_r, %sum_i : complex<f64>
  %new = arith.select %m, %next, %z : complex<f64>
  memref.store %new, %out[%i] : memref<8xcomplex<f64>>
  func.return
}

// re/im of a create are its operands.
// CHECK-LABEL: func.func @parts_of_create
// CHECK-NEXT:    func.return %b, %a : f32, f32
func.func @parts_of_create(%a: f32, %b: f32) -> (f32, f32) {
  %z = complex.create %a, %b : complex<f32>
  %i = complex.im %z : complex<f32>
  %r = complex.re %z : complex<f32>
  func.return %i, %r : f32, f32
}

// Left alone: a select of real values, and a part of a complex that is not built here.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %s = arith.select %m, %a, %b : f64
// CHECK-NEXT:    %r = complex.re %z : complex<f64>
func.func @kept(%m: i1, %a: f64, %b: f64, %z: complex<f64>) -> (f64, f64) {
  %s = arith.select %m, %a, %b : f64
  %r = complex.re %z : complex<f64>
  func.return %s, %r : f64, f64
}

// The same step over a whole array has no complex temporary either. (gcc leaves this loop
// scalar: under -ftrapping-math it will not compute the masked-off lanes' arithmetic, which
// its sinking pass put under the branch.)
// C-LABEL: void masked_loop({{.*}}) {
// C-NOT:         _Complex
// C:             __real__ out[i] =
func.func @masked_loop(%out: memref<1024xcomplex<f64>>, %c: memref<1024xcomplex<f64>>, %mask: memref<1024xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = memref.load %mask[%i] : memref<1024xi1>
    %z = memref.load %out[%i] : memref<1024xcomplex<f64>>
    %k = memref.load %c[%i] : memref<1024xcomplex<f64>>
    %zr = complex.re %z : complex<f64>
    %zi = complex.im %z : complex<f64>
    %kr = complex.re %k : complex<f64>
    %ki = complex.im %k : complex<f64>
    %rr = arith.mulf %zr, %zr : f64
    %ii = arith.mulf %zi, %zi : f64
    %re = arith.subf %rr, %ii : f64
    %sum_r = arith.addf %re, %kr : f64
    %sum_i = arith.addf %zi, %ki : f64
    %next = complex.create %sum_r, %sum_i : complex<f64>
    %new = arith.select %m, %next, %z : complex<f64>
    memref.store %new, %out[%i] : memref<1024xcomplex<f64>>
  }
  func.return
}

// Unmasked, z*z + c over complex arrays is a loop gcc vectorizes on the parts (a loop over
// double _Complex temporaries it never vectorizes: "no vectype").
// C-LABEL: void step_loop({{.*}}) {
// C-NOT:         _Complex
// VEC: loops-complex.mlir.tmp.c:{{[0-9]+}}:{{[0-9]+}}: optimized: loop vectorized
func.func @step_loop(%out: memref<1024xcomplex<f64>>, %c: memref<1024xcomplex<f64>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  scf.for %i = %c0 to %n step %c1 {
    %z = memref.load %out[%i] : memref<1024xcomplex<f64>>
    %k = memref.load %c[%i] : memref<1024xcomplex<f64>>
    %zr = complex.re %z : complex<f64>
    %zi = complex.im %z : complex<f64>
    %kr = complex.re %k : complex<f64>
    %ki = complex.im %k : complex<f64>
    %rr = arith.mulf %zr, %zr : f64
    %ii = arith.mulf %zi, %zi : f64
    %re = arith.subf %rr, %ii : f64
    %ri = arith.mulf %zr, %zi : f64
    %im = arith.addf %ri, %ri : f64
    %sum_r = arith.addf %re, %kr : f64
    %sum_i = arith.addf %im, %ki : f64
    %next = complex.create %sum_r, %sum_i : complex<f64>
    memref.store %next, %out[%i] : memref<1024xcomplex<f64>>
  }
  func.return
}
