// RUN: kiln-opt %s -p kiln-expand-half-powers | filecheck %s
// RUN: kiln-opt %s -p kiln-expand-half-powers,kiln-vectorize -t 'c{isa=avx512}' | filecheck %s --check-prefix=C

// In a loop, the expansion is ops kiln-vectorize puts on vectors: no pow call in the C.
// C-LABEL: void inverse_cube(double *restrict in, double *restrict out) {
// C-NOT:     pow(
// C:         _mm512_sqrt_pd(
// C:         _mm512_fmadd_pd(
// C-NOT:     pow(
// C-LABEL: double powers({{.*}}) {
func.func @inverse_cube(%in: memref<64xf64>, %out: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m15 = arith.constant -1.5 : f64
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %in[%i] : memref<64xf64>
    %p = math.powf %v, %m15 : f64
    memref.store %p, %out[%i] : memref<64xf64>
  }
  func.return
}

// x ** -1.5: x scaled into [2^-274, 2^400] (by 2^-624 above 2^400, 2^800 below 2^-400),
// sqrt in double-double (its error by an fma), one product with its error, the reciprocal
// corrected by a Newton step, the scale's power applied back as two factors, libm's special
// cases selected last. No pow call is left.
// CHECK-LABEL: func.func @powers
// CHECK-NOT:     math.powf %x, %m15
// CHECK:         %[[LARGE:.*]] = arith.cmpf ogt, %x, %{{.*}} : f64
// CHECK:         %[[SMALL:.*]] = arith.cmpf olt, %x, %{{.*}} : f64
// CHECK:         %[[X:.*]] = arith.mulf %x, %{{.*}} : f64
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %[[X]] : f64
// CHECK-NEXT:    %[[NS:.*]] = arith.negf %[[S]] : f64
// CHECK-NEXT:    %[[E:.*]] = math.fma %[[NS]], %[[S]], %[[X]] : f64
// CHECK:         %[[HI:.*]] = arith.mulf %[[S]], %[[X]] : f64
// CHECK:         %[[Q:.*]] = arith.divf %{{.*}}, %[[HI]] : f64
// CHECK:         %[[P:.*]] = math.fma %[[Q]], %{{.*}}, %[[Q]] : f64
// CHECK:         %[[OK:.*]] = arith.andi
// CHECK:         %a = arith.select %[[OK]], %{{.*}}, %{{.*}} : f64
// x ** 0.5 is NumPy's sqrt; x ** 2.5 has two products (each error an fma) and no reciprocal:
// its only division is the sqrt's correction.
// CHECK-NEXT:    %b = math.sqrt %x : f64
// CHECK:         arith.divf
// CHECK-COUNT-2: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f64
// CHECK-NOT:     arith.divf
// CHECK:         %c = arith.select
// An integer or traced exponent, and f32, keep libm's pow.
// CHECK-NEXT:    %d = math.powf %x, %three : f64
// CHECK-NEXT:    %e = math.powf %x, %y : f64
// CHECK-NEXT:    %f = math.powf %z, %f15 : f32
func.func @powers(%x: f64, %y: f64, %z: f32) -> (f64, f64, f64, f64, f64, f32) {
  %m15 = arith.constant -1.5 : f64
  %h = arith.constant 0.5 : f64
  %p25 = arith.constant 2.5 : f64
  %three = arith.constant 3.0 : f64
  %f15 = arith.constant 1.5 : f32
  %a = math.powf %x, %m15 : f64
  %b = math.powf %x, %h : f64
  %c = math.powf %x, %p25 : f64
  %d = math.powf %x, %three : f64
  %e = math.powf %x, %y : f64
  %f = math.powf %z, %f15 : f32
  func.return %a, %b, %c, %d, %e, %f : f64, f64, f64, f64, f64, f32
}
