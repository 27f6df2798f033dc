// RUN: kiln-opt %s -p cse | filecheck %s

// Two ifs alike but for the type one op rounds to (float32, float16): not one value. xDSL 0.74's
// structural equivalence ignored result types, and cse merged them (kiln's xdsl_patches).
// CHECK-LABEL: func.func @rounds
// CHECK:         %[[A:.*]] = scf.if %c -> (f64) {
// CHECK:           arith.truncf %x : f64 to f32
// CHECK:         %[[B:.*]] = scf.if %c -> (f64) {
// CHECK:           arith.truncf %x : f64 to f16
// CHECK:         func.return %[[A]], %[[B]] : f64, f64
func.func @rounds(%x: f64, %c: i1) -> (f64, f64) {
  %a = scf.if %c -> (f64) {
    %t = arith.truncf %x : f64 to f32
    %e = arith.extf %t : f32 to f64
    scf.yield %e : f64
  } else {
    scf.yield %x : f64
  }
  %b = scf.if %c -> (f64) {
    %t = arith.truncf %x : f64 to f16
    %e = arith.extf %t : f16 to f64
    scf.yield %e : f64
  } else {
    scf.yield %x : f64
  }
  func.return %a, %b : f64, f64
}

// Alike to the types: one value.
// CHECK-LABEL: func.func @same
// CHECK:         %[[A:.*]] = scf.if
// CHECK-NOT:     scf.if
// CHECK:         func.return %[[A]], %[[A]] : f64, f64
func.func @same(%x: f64, %c: i1) -> (f64, f64) {
  %a = scf.if %c -> (f64) {
    %t = arith.truncf %x : f64 to f32
    %e = arith.extf %t : f32 to f64
    scf.yield %e : f64
  } else {
    scf.yield %x : f64
  }
  %b = scf.if %c -> (f64) {
    %t = arith.truncf %x : f64 to f32
    %e = arith.extf %t : f32 to f64
    scf.yield %e : f64
  } else {
    scf.yield %x : f64
  }
  func.return %a, %b : f64, f64
}
